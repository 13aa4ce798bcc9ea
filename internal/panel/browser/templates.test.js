// Drives the print templates pages in Debian's chromium, as
// templates_browser_test.go asks: a new template's drawing following the
// typing without a reload, an invalid value's message, save, assign to a
// variant, the list, a phone-sized screen. Each step prints one JSON line;
// screenshots go to OUT.
const { env, base, report, launch, signIn, run, look, lookFindings } = require('./lib.js');

// slots counts the drawing's slot rectangles.
const slots = (page) => page.locator('#drawing svg rect.slot').count();

async function main() {
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  let alerts = 0;
  page.on('dialog', async (d) => {
    if (d.type() === 'alert') alerts++;
    await d.accept();
  });

  await signIn(page, env.STAFF_EMAIL, env.STAFF_PASSWORD);
  await page.goto(base + '/operator/templates');
  await Promise.all([page.waitForURL('**/operator/templates/new'), page.click('text=New template')]);
  const first = await slots(page);
  report('a new template is drawn', first === 8, `${first} slots`);

  // Typing changes the drawing in place: the page is not reloaded (the
  // mark set on window survives) and the drawing has 3 × 4 slots.
  await page.evaluate(() => { window.stillHere = true; });
  await page.fill('input[name="grid.columns"]', '3');
  await page.waitForFunction(() => document.querySelectorAll('#drawing svg rect.slot').length === 12, null, { timeout: 5000 }).catch(() => {});
  const typed = await slots(page);
  const here = await page.evaluate(() => window.stillHere === true);
  report('the drawing follows the typing', typed === 12 && here, `${typed} slots, same page ${here}`);

  // A value the API would refuse shows its message instead of the drawing.
  await page.fill('input[name=gap_mm]', '200');
  const message = await page.locator('#drawing-error').textContent({ timeout: 5000 }).catch(() => '');
  report('an invalid value shows why', message.includes('grid.columns') && (await slots(page)) === 0, message);
  await look(page, 'template-invalid');
  await page.fill('input[name=gap_mm]', '5');
  await page.waitForSelector('#drawing svg rect.slot');

  // Save: the template's own page, drawn as it was typed.
  await page.fill('input[name=name]', env.TEMPLATE_NAME);
  await page.selectOption('select[name=team_id]', env.TEAM_ID);
  await Promise.all([page.waitForURL('**/operator/templates/*?done=created'), page.click('#tpl-form button')]);
  const saved = await slots(page);
  const notice = await page.locator('.notice').textContent();
  report('save', notice.includes('Template created') && saved === 12, `${notice}, ${saved} slots`);

  // Assign it to a variant: checked once the page comes back.
  const box = `input[name=variant][value="${env.VARIANT_ID}"]`;
  await page.check(box);
  await Promise.all([page.waitForURL('**done=assigned'), page.click('form[action$="/assign"] button')]);
  const checked = await page.isChecked(box);
  report('assign to a variant', checked, `checked ${checked}`);
  await look(page, 'template');

  // The list shows it, with its slots and its variant; client strings are text.
  await page.goto(base + '/operator/templates');
  const row = await page.locator('tr', { hasText: env.TEMPLATE_NAME }).textContent();
  report('the list', row.includes('12 (3 × 4)') && row.includes('#' + env.VARIANT_ID) && alerts === 0, `${row.replace(/\s+/g, ' ')}, alerts ${alerts}`);
  await look(page, 'templates');

  // A phone-sized screen: no page-wide sideways scroll, on the list or a
  // template's page.
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await signIn(phone, env.STAFF_EMAIL, env.STAFF_PASSWORD);
  await phone.goto(base + '/operator/templates');
  const listWidth = await phone.evaluate(() => document.documentElement.scrollWidth);
  await look(phone, 'templates-phone');
  await phone.goto(await page.locator('tr', { hasText: env.TEMPLATE_NAME }).locator('a').first().evaluate((a) => a.href));
  const pageWidth = await phone.evaluate(() => document.documentElement.scrollWidth);
  await look(phone, 'template-phone');
  report('usable on a phone', listWidth <= 390 && pageWidth <= 390, `list ${listWidth}, template ${pageWidth}`);

  report('axe-core finds nothing on the pages looked at', lookFindings.length === 0, lookFindings.join('\n'));
  await browser.close();
}

run(main);
