// Drives the operator panel in Debian's chromium, as browser_test.go asks:
// each step prints one JSON line {"step", "ok", "detail"}; screenshots go
// to OUT. The Go test reads the lines and fails the steps that did not
// hold. Configuration comes from the environment (see browser_test.go).
const { env, base, report, launch, signIn, run, openConfirmation, watchPolicy, policyViolations, axeCheck, look, lookFindings } = require('./lib.js');

// everyPage is each page of the panel a staff operator can open, for
// axe-core to look at: the print pages are the script's own.
const everyPage = ['/operator/attention', '/operator/prints', '/operator/prints?state=failed', '/operator/batches',
  '/operator/templates', '/operator/templates/new', '/operator/webhooks', '/operator/webhooks/acme-shop',
  '/operator/stores', '/operator/tokens', '/operator/fonts', '/operator/press', '/operator/prints/no-such-print'];

// accessibility opens every page at the width of a desktop and of a
// phone, a print's page with each confirmation open, and the sign-in page
// signed out, and returns what axe-core found.
async function accessibility(browser, context) {
  const found = [];
  for (const width of [1280, 390]) {
    const page = await context.newPage();
    await page.setViewportSize({ width, height: 800 });
    for (const path of [...everyPage, '/operator/press?team_id=' + env.TEAM_ID, '/operator/prints/' + env.FAILED_PRINT,
      '/operator/prints/' + env.PAGES_PRINT, '/operator/prints/' + env.PAGES_PRINT + '/order', '/operator/prints/' + env.SLOW_PRINT]) {
      await page.goto(base + path);
      found.push(...(await axeCheck(page, `${path} at ${width} px`)));
    }
    for (const details of await page.locator('details').all()) await details.locator('summary').click();
    found.push(...(await axeCheck(page, `a print's page with every part open at ${width} px`)));
    await page.close();
  }
  const out = await browser.newPage();
  await out.goto(base + '/operator/login');
  found.push(...(await axeCheck(out, 'the sign-in page')));
  await out.close();
  return found;
}

async function main() {
  const browser = await launch();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = watchPolicy(await context.newPage());
  let alerts = 0;
  let dialogs = 0;
  page.on('dialog', async (d) => {
    dialogs++;
    if (d.type() === 'alert') alerts++;
    await d.dismiss(); // no confirmation is a dialog
  });

  await signIn(page, env.STAFF_EMAIL, env.STAFF_PASSWORD);
  report('sign in', page.url().endsWith('/operator/prints'), page.url());
  await look(page, 'prints');

  // A print rendering when the pages loaded turns ready without a reload,
  // in the list and on its own page: its image is held until this line
  // says the pages are watching.
  const printPage = watchPolicy(await context.newPage()); // signed in as page is
  const policy = (await printPage.goto(base + '/operator/prints/' + env.SLOW_PRINT)).headers()['content-security-policy'] || '';
  const badge = page.locator(`[data-print="${env.SLOW_PRINT}"]`);
  const before = await badge.textContent();
  const pageBefore = await printPage.locator('h1 .badge').textContent();
  // The list asks for its rows every 2 s while a print renders: a row's
  // link keeps the keyboard's focus across the refreshes.
  const link = `a[href="/operator/prints/${env.FAILED_PRINT}"]`;
  await page.focus(link);
  const refreshed = page.waitForResponse((r) => r.url().includes('/operator/prints/rows'), { timeout: 10000 }).catch(() => null);
  await refreshed;
  await page.waitForTimeout(300); // the swap after the answer
  const focused = await page.evaluate(() => document.activeElement && (document.activeElement.getAttribute('href') || document.activeElement.tagName));
  report('focus kept across a refresh', (await refreshed) !== null && focused === `/operator/prints/${env.FAILED_PRINT}`, `focus on ${focused}`);
  report('watching', before !== 'Ready' && pageBefore !== 'Ready', `${before}, ${pageBefore}`);
  await page.waitForFunction(
    (id) => document.querySelector(`[data-print="${id}"]`)?.textContent === 'Ready',
    env.SLOW_PRINT, { timeout: 30000 }).catch(() => {});
  report('a print turns ready in place', before !== 'Ready' && (await badge.textContent()) === 'Ready', `${before} → ${await badge.textContent()}`);
  await printPage.waitForFunction(() => document.querySelector('h1 .badge')?.dataset.state === 'ready', null, { timeout: 30000 }).catch(() => {});
  const pageAfter = await printPage.locator('h1 .badge').textContent();
  const flagOffered = await printPage.locator('details[data-action=flag]').count();
  report('its page follows it, with the actions of a ready print', pageAfter === 'Ready' && flagOffered === 1 &&
    (await printPage.locator('details[data-action=retry]').count()) === 0, `${pageBefore} → ${pageAfter}`);

  // The hostile order id is text: no alert ran, and it reads as written.
  report('client strings are text', alerts === 0 && (await page.content()).includes('&lt;img src=x onerror=alert(1)&gt;'), `alerts: ${alerts}`);

  // A failed print's page says why.
  await page.goto(base + '/operator/prints/' + env.FAILED_PRINT);
  const why = await page.locator('p.err').first().textContent();
  report('a failed print says why', why.includes('unknown font "Nope"'), why);
  await look(page, 'print');

  // Retry, flag with a reason, cancel: each confirmed in the page, saying
  // what it does, each in the history.
  const retry = await openConfirmation(page, 'Retry');
  const retrySays = await retry.locator('p').first().textContent();
  await Promise.all([page.waitForURL('**done=retry'), retry.locator('button').click()]);
  await page.waitForFunction(() => document.querySelector('h1 .badge')?.dataset.state === 'failed', null, { timeout: 30000 }).catch(() => {});
  const flag = await openConfirmation(page, 'Flag');
  const flagSays = await flag.locator('p').first().textContent();
  await flag.locator('textarea[name=reason]').fill('the photo is upside down');
  await Promise.all([page.waitForURL('**done=flag'), flag.locator('button').click()]);
  const cancel = await openConfirmation(page, 'Cancel');
  const cancelSays = await cancel.locator('p').first().textContent();
  await Promise.all([page.waitForURL('**done=cancel'), cancel.locator('button').click()]);
  const history = await page.locator('ol').textContent();
  report('retry, flag and cancel', history.includes('retried') && history.includes('flagged: the photo is upside down') && history.includes('cancelled'), history.replace(/\s+/g, ' '));
  report('each says what it does', retrySays.includes('queued to render again') && flagSays.includes('which the client reads') &&
    cancelSays.includes('cancelled by the print shop') && cancelSays.includes('can be retried'), [retrySays, flagSays, cancelSays].join(' | '));
  await look(page, 'actions');

  // The fix without the API: the missing font uploaded on the Fonts page,
  // then Retry on the print's page, which follows the print to Ready.
  await page.goto(base + '/operator/fonts');
  await page.selectOption('form[action="/operator/fonts"][method=post] select[name=team_id]', env.TEAM_ID);
  await page.fill('form[action="/operator/fonts"][method=post] input[name=name]', 'Nope');
  await page.setInputFiles('form[action="/operator/fonts"][method=post] input[name=file]', env.FONT_FILE);
  await Promise.all([page.waitForURL('**done=uploaded**'), page.click('text=Add the font')]);
  const added = await page.locator('[data-font="Nope"]').count();
  await look(page, 'fonts');
  await page.goto(base + '/operator/prints/' + env.FAILED_PRINT);
  const again = await openConfirmation(page, 'Retry');
  await Promise.all([page.waitForURL('**done=retry'), again.locator('button').click()]);
  await page.waitForFunction(() => document.querySelector('h1 .badge')?.dataset.state === 'ready', null, { timeout: 30000 }).catch(() => {});
  const fixed = await page.locator('h1 .badge').textContent();
  report('a missing font uploaded, then Retry', added === 1 && fixed === 'Ready', `font listed ${added}, the print ${fixed}`);
  await look(page, 'fixed');

  // Finding: the start of the customer's e-mail, in another case, finds
  // the order's prints.
  await page.goto(base + '/operator/prints');
  await page.fill('input[name=query]', 'GRACE.hop');
  await Promise.all([page.waitForURL('**query=GRACE.hop**'), page.click('form.filters button')]);
  const found = await page.locator(`#open-${env.PAGES_PRINT}`).count();
  const rows = await page.locator('#rows tr').count();
  report('a search by the start of an e-mail', found === 1 && rows === 2, `${found} of the print, ${rows} rows`);
  await look(page, 'search');

  // A print's pages: each drawn with its trim and safe area; a page opens
  // zoomed, larger, with the same boxes.
  await page.goto(base + '/operator/prints/' + env.PAGES_PRINT);
  const figures = page.locator('figure.page');
  await page.waitForFunction(() => [...document.querySelectorAll('figure.page summary img')].every((i) => i.complete && i.naturalWidth > 0), null, { timeout: 30000 }).catch(() => {});
  const small = await figures.first().locator('summary img').evaluate((i) => i.naturalWidth);
  const boxes = await figures.first().locator('summary svg rect').count();
  await look(page, 'pages');
  await figures.first().locator('summary').click();
  const zoomed = figures.first().locator('.zoomed img');
  await zoomed.evaluate((i) => i.complete && i.naturalWidth > 0 ? 0 : new Promise((r) => { i.onload = r; i.onerror = r; })).catch(() => {});
  const large = await zoomed.evaluate((i) => i.naturalWidth);
  const zoomBoxes = await figures.first().locator('.zoomed svg rect').count();
  report('pages with their trim and safe area, zoomable', (await figures.count()) === 2 && boxes === 2 && zoomBoxes === 2 && small > 100 && large > 2 * small,
    `${await figures.count()} pages, ${boxes}+${zoomBoxes} boxes, ${small} px then ${large} px wide`);
  await look(page, 'pages-zoomed');

  // The order page: the customer, the address, every print of the order.
  await Promise.all([page.waitForURL('**/order'), page.click(`a[href="/operator/prints/${env.PAGES_PRINT}/order"]`)]);
  const order = await page.locator('main').textContent();
  const itsPrints = await page.locator('a[id^=open-]').count();
  report('the order page', order.includes('Grace Hopper') && order.includes('1 Navy Way') && itsPrints === 2 && (await page.title()).startsWith('Order Web-7731'),
    `${itsPrints} prints; ${order.replace(/\s+/g, ' ').slice(0, 160)}`);
  await look(page, 'order');

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
  await look(other, 'other-team');

  // A phone-sized screen.
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await signIn(phone, env.STAFF_EMAIL, env.STAFF_PASSWORD);
  const wide = await phone.evaluate(() => document.documentElement.scrollWidth);
  await look(phone, 'phone');
  await phone.goto(base + '/operator/prints/' + env.PAGES_PRINT);
  const widePages = await phone.evaluate(() => document.documentElement.scrollWidth);
  await look(phone, 'pages-phone');
  report('usable on a phone', wide <= 390 && widePages <= 390, `page width ${wide}, a print's pages ${widePages}`);

  const findings = await accessibility(browser, context);
  report('axe-core finds nothing on any page', findings.length + lookFindings.length === 0, [...findings, ...lookFindings].join('\n'));

  report('confirmations in the page, nothing refused by the policy', dialogs === 0 && policy.includes("script-src 'self'") && policyViolations.length === 0,
    `${dialogs} dialogs, policy ${policy}; ${policyViolations.join('; ')}`);

  await browser.close();
}

run(main);
