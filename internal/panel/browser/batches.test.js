// Drives the batches pages in Debian's chromium, as batches_browser_test.go
// asks: ticks prints on the prints list and a print template, makes the
// batch, watches it turn Ready without a reload, fetches its sheet. Each
// step prints one JSON line (lib.js report); screenshots go to OUT.
const { env, base, report, launch, signIn, run, look, lookFindings } = require('./lib.js');

// swaps resolves once the prints list's rows (its only htmx requests)
// have been refreshed n times, or after 15 s with the count seen.
function swaps(page, n) {
  return page.evaluate((n) => new Promise((resolve) => {
    let seen = 0;
    document.addEventListener('htmx:afterSettle', () => { if (++seen === n) resolve(seen); });
    setTimeout(() => resolve(seen), 15000);
  }), n);
}

// statusOf is the text of the batch's badge on page.
function statusOf(page, uid) {
  return page.locator(`[data-batch="${uid}"]`).first().textContent();
}

// readyInPlace waits for the batch's badge to read Ready while the page
// is still the one loaded (a mark set on its window survives).
async function readyInPlace(page, uid) {
  await page.evaluate(() => { window.notReloaded = true; });
  await page.waitForFunction(
    (uid) => document.querySelector(`[data-batch="${uid}"]`)?.textContent === 'Ready',
    uid, { timeout: 90000 }).catch(() => {});
  const kept = await page.evaluate(() => window.notReloaded === true);
  const status = await statusOf(page, uid);
  return { ok: kept && status === 'Ready', detail: `status ${status}, same page ${kept}` };
}

async function main() {
  const browser = await launch();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  let alerts = 0;
  page.on('dialog', async (d) => { alerts++; await d.dismiss(); });
  const [ticked, held] = env.ITEMS.split(',');

  await signIn(page, env.MEMBER_EMAIL, env.MEMBER_PASSWORD);
  const boxes = await page.locator('input[name=order_items]').count();
  report('sign in', page.url().endsWith('/operator/prints') && boxes === 3, `${page.url()}, ${boxes} checkboxes`);

  // Ticks outlive the rows' refreshes every 2 s.
  await page.check(`#pick-${ticked}`);
  await page.check(`#pick-${held}`);
  const refreshed = await swaps(page, 2);
  const kept = await page.evaluate(() => [...document.querySelectorAll('input[name=order_items]:checked')].map((b) => b.value));
  report('the ticks outlive the refreshes', refreshed === 2 && kept.length === 2 && kept.includes(ticked) && kept.includes(held) && !kept.includes(env.UNTICKED),
    `${refreshed} refreshes, ticked ${JSON.stringify(kept)}`);

  // "All on this page" ticks every print and the count follows; clearing
  // it clears them.
  const picked = () => page.locator('#picked').textContent();
  const counts = [await picked()];
  await page.check('#pick-all');
  counts.push(await picked(), String(await page.locator('input[name=order_items]:checked').count()));
  await page.uncheck('#pick-all');
  counts.push(await picked());
  await page.check(`#pick-${ticked}`);
  await page.check(`#pick-${held}`);
  const mixed = await page.evaluate(() => document.getElementById('pick-all').indeterminate);
  counts.push(await picked());
  report('select all and the count', counts.join(',') === '2,3,3,0,2' && mixed, `${counts.join(',')}, indeterminate ${mixed}`);

  // The sheets previewed before the batch is made, then made from there.
  await page.check(`input[name=print_templates][value="${env.TEMPLATE}"]`);
  await look(page, 'batch-form');
  await Promise.all([page.waitForURL('**/operator/batches'), page.click('#batch-form button[name=do][value=plan]')]);
  const plan = await page.locator('main').textContent();
  const slots = await page.locator('section.plan svg [data-slot]').count();
  report('the sheets previewed', plan.includes('What the batch would print') && plan.includes('1 sheet') && slots > 0,
    `${slots} slots drawn; ${plan.replace(/\s+/g, ' ').slice(0, 200)}`);
  await look(page, 'batch-plan');
  await Promise.all([page.waitForURL('**/operator/batches/*'), page.click('text=Make this batch')]);
  const uid = page.url().split('/').pop();

  // The list, open beside the batch's page, shows it Batching too.
  const list = await context.newPage(); // the same session
  await list.goto(base + '/operator/batches');
  const before = [await statusOf(page, uid), await statusOf(list, uid)];
  report('batching', before[0] === 'Batching' && before[1] === 'Batching', before.join(', '));

  const onPage = await readyInPlace(page, uid);
  report('the batch turns Ready in place', onPage.ok, onPage.detail);
  const onList = await readyInPlace(list, uid);
  report('the list turns Ready in place', onList.ok, onList.detail);

  // The sheet's link answers the PDF, through the signed link's redirect.
  const href = await page.locator('a.sheet').first().getAttribute('href');
  const pdf = await page.request.get(href);
  const head = (await pdf.body()).subarray(0, 4).toString();
  report('the sheet is a PDF', pdf.status() === 200 && head === '%PDF' && pdf.headers()['content-type'] === 'application/pdf',
    `${pdf.status()} ${pdf.headers()['content-type']} ${head}`);

  const text = await page.locator('main').textContent();
  report('client strings are text', alerts === 0 && text.includes(env.TEMPLATE_NAME), `alerts: ${alerts}`);
  await look(page, 'batch');
  await look(list, 'batches');

  // A phone-sized screen: no page wider than the screen (tables scroll in
  // their own box).
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await signIn(phone, env.MEMBER_EMAIL, env.MEMBER_PASSWORD);
  const widths = {};
  for (const [name, path] of [['prints', '/operator/prints'], ['batches', '/operator/batches'], ['batch', '/operator/batches/' + uid]]) {
    await phone.goto(base + path);
    widths[name] = await phone.evaluate(() => document.documentElement.scrollWidth);
    await look(phone, `${name}-phone`);
  }
  report('usable on a phone', Object.values(widths).every((w) => w <= 390), JSON.stringify(widths));

  report('axe-core finds nothing on the pages looked at', lookFindings.length === 0, lookFindings.join('\n'));
  await browser.close();
}

run(main);
