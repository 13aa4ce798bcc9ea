// Drives the operator panel in Debian's chromium, as browser_test.go asks:
// each step prints one JSON line {"step", "ok", "detail"}; screenshots go
// to OUT. The Go test reads the lines and fails the steps that did not
// hold. Configuration comes from the environment (see browser_test.go).
const { env, base, report, launch, signIn, run } = require('./lib.js');

async function main() {
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  let alerts = 0;
  page.on('dialog', async (d) => {
    if (d.type() === 'alert') alerts++;
    await d.accept(); // the actions' confirmations
  });

  await signIn(page, env.STAFF_EMAIL, env.STAFF_PASSWORD);
  report('sign in', page.url().endsWith('/operator/prints'), page.url());
  await page.screenshot({ path: env.OUT + '/prints.png', fullPage: true });

  // A print rendering when the page loaded turns ready without a reload:
  // its image is held until this line says the page is watching.
  const badge = page.locator(`[data-print="${env.SLOW_PRINT}"]`);
  const before = await badge.textContent();
  report('watching', before !== 'ready', before);
  await page.waitForFunction(
    (id) => document.querySelector(`[data-print="${id}"]`)?.textContent === 'ready',
    env.SLOW_PRINT, { timeout: 30000 }).catch(() => {});
  report('a print turns ready in place', before !== 'ready' && (await badge.textContent()) === 'ready', `${before} → ${await badge.textContent()}`);

  // The hostile order id is text: no alert ran, and it reads as written.
  report('client strings are text', alerts === 0 && (await page.content()).includes('&lt;img src=x onerror=alert(1)&gt;'), `alerts: ${alerts}`);

  // A failed print's page says why.
  await page.goto(base + '/operator/prints/' + env.FAILED_PRINT);
  const why = await page.locator('p.err').first().textContent();
  report('a failed print says why', why.includes('unknown font "Nope"'), why);
  await page.screenshot({ path: env.OUT + '/print.png', fullPage: true });

  // Retry, flag with a reason, cancel: each confirmed, each in the history.
  await Promise.all([page.waitForURL('**done=retry'), page.click('form[action$="/retry"] button')]);
  await page.fill('form[action$="/flag"] input[name=reason]', 'the photo is upside down');
  await Promise.all([page.waitForURL('**done=flag'), page.click('form[action$="/flag"] button')]);
  await Promise.all([page.waitForURL('**done=cancel'), page.click('form[action$="/cancel"] button')]);
  const history = await page.locator('ol').textContent();
  report('retry, flag and cancel', history.includes('retried') && history.includes('flagged: the photo is upside down') && history.includes('cancelled'), history.replace(/\s+/g, ' '));
  await page.screenshot({ path: env.OUT + '/actions.png', fullPage: true });

  // A POST without the form's token is refused.
  const forged = await page.evaluate(async (id) => {
    const r = await fetch('/operator/prints/' + id + '/cancel', { method: 'POST', body: new URLSearchParams({}) });
    return r.status;
  }, env.FAILED_PRINT);
  report('a POST without the form token', forged === 403, String(forged));

  // A team's operator reaches nothing of another team.
  const other = await browser.newPage();
  await signIn(other, env.MEMBER_EMAIL, env.MEMBER_PASSWORD);
  const listed = (await other.content()).includes(env.FAILED_PRINT);
  await other.goto(base + '/operator/prints?query=' + encodeURIComponent(env.FAILED_ORDER));
  const searched = (await other.content()).includes(env.FAILED_PRINT);
  const direct = await other.goto(base + '/operator/prints/' + env.FAILED_PRINT);
  report('another team is out of reach', !listed && !searched && direct.status() === 404, `listed ${listed}, searched ${searched}, page ${direct.status()}`);
  await other.screenshot({ path: env.OUT + '/other-team.png', fullPage: true });

  // A phone-sized screen.
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await signIn(phone, env.STAFF_EMAIL, env.STAFF_PASSWORD);
  const wide = await phone.evaluate(() => document.documentElement.scrollWidth);
  report('usable on a phone', wide <= 390, `page width ${wide}`);
  await phone.screenshot({ path: env.OUT + '/phone.png', fullPage: true });

  await browser.close();
}

run(main);
