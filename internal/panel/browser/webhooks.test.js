// Drives the panel's webhooks, stores and tokens pages in Debian's chromium,
// as webhooks_browser_test.go asks: each step prints one JSON line
// {"step", "ok", "detail"}; screenshots go to OUT. The Go test makes the
// store's event happen once the URL is set (step "set the URL").
const { env, base, report, launch, signIn, run, openConfirmation, watchPolicy, policyViolations, look, lookFindings } = require('./lib.js');

// until retries check (reloading page) until it holds or ms pass.
async function until(page, check, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await page.waitForTimeout(200);
    await page.reload();
  }
}

// apiStatus is the client API's answer to a bearer token, from outside the
// browser.
async function apiStatus(token) {
  const r = await fetch(base + '/api/v1/orders', { headers: { Authorization: 'Bearer ' + token } });
  return r.status;
}

// fitsPhone reports whether each path fits a 390 px screen without
// scrolling sideways.
async function fitsPhone(browser, paths) {
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await signIn(phone, env.STAFF_EMAIL, env.STAFF_PASSWORD);
  const widths = {};
  for (const path of paths) {
    await phone.goto(base + path);
    widths[path] = await phone.evaluate(() => document.documentElement.scrollWidth);
    await look(phone, `phone-${path.split('/').slice(2).join('-')}`);
  }
  await phone.close();
  return widths;
}

async function webhooks(page) {
  await page.goto(base + '/operator/webhooks');
  const listed = await page.locator('[data-store="acme-shop"]').count();
  report('the stores', listed === 1, `acme-shop listed ${listed} times`);
  await look(page, 'webhooks');

  await Promise.all([page.waitForURL('**/operator/webhooks/acme-shop'), page.click('[data-store="acme-shop"]')]);
  await page.fill('input[name=url]', 'ftp://nowhere');
  await Promise.all([page.waitForLoadState(), page.click('text=Save the URL')]);
  const why = (await page.locator('p.err[role=alert]').textContent().catch(() => '')) || '';
  report('a bad URL is refused', why.includes('must be an absolute http or https URL'), why);

  await page.fill('input[name=url]', env.RECEIVER + '/hooks');
  await Promise.all([page.waitForURL('**done=url'), page.click('text=Save the URL')]);
  const saved = await page.locator('#endpoint-url').textContent();
  report('set the URL', saved === env.RECEIVER + '/hooks', saved);

  const hidden = (await page.locator('code.secret').count()) === 0; // not even in the page's source
  await page.click('text=show the secret');
  const before = await page.locator('code.secret').textContent();
  const rotation = await openConfirmation(page, 'Rotate the secret');
  await Promise.all([page.waitForURL('**done=rotate'), rotation.locator('button').click()]);
  const after = await page.locator('code.secret').textContent();
  const shown = await page.locator('code.secret').isVisible();
  report('rotate the secret', hidden && shown && after !== before && after.startsWith('whsec_'), `hidden before ${hidden}, shown after ${shown}`);

  const delivered = await until(page, async () => (await page.locator('tr[data-delivery] .badge', { hasText: 'delivered' }).count()) > 0, 30000);
  const row = page.locator('tr[data-delivery]').first();
  report('a delivery in the log', delivered && (await row.textContent()).includes('order_item.print_file.ready'), (await row.textContent().catch(() => '')).replace(/\s+/g, ' '));
  await look(page, 'webhook');

  // What was sent and what came back, in the row.
  await row.locator('details.delivery-detail summary').click();
  const payload = await row.locator('pre.payload').textContent();
  const headers = await row.locator('dl.headers').textContent();
  const answer = await row.locator('.delivery-detail').textContent();
  report('a delivery\'s payload, headers and answer', payload.includes('"event": "order_item.print_file.ready"') &&
    headers.includes('Webhook-Signature') && headers.includes('Platen-Delivery') && answer.includes('HTTP 200'),
    `${payload.slice(0, 80)} | ${headers.slice(0, 80)}`);
  await look(page, 'delivery');
  await page.goto(base + '/operator/webhooks');
  const health = await page.locator('tr', { has: page.locator('[data-store="acme-shop"]') }).locator('[data-health]').getAttribute('data-health');
  report('the endpoint\'s health on the stores list', health === 'healthy', String(health));
  await page.goto(base + '/operator/webhooks/acme-shop');

  const resend = await openConfirmation(page.locator('tr[data-delivery]').first(), 'Resend');
  await Promise.all([page.waitForURL('**done=resend'), resend.locator('button').click()]);
  const notice = await page.locator('p.notice').textContent();
  report('resend a delivery', notice.includes('queued to be sent again'), notice);
}

async function tokens(page) {
  await page.goto(base + '/operator/stores');
  const stores = await page.locator('tr[data-store]').count();
  report('the teams and stores', stores === 2 && (await page.locator('tr[data-team]').count()) === 2, `${stores} stores`);
  await look(page, 'stores');

  await page.goto(base + '/operator/tokens');
  await page.selectOption('form[action="/operator/tokens"] select[name=team_id]', env.TEAM_ID);
  await page.selectOption('form[action="/operator/tokens"] select[name=store_id]', 'acme-shop');
  await page.fill('form[action="/operator/tokens"] input[name=name]', 'browser test');
  await Promise.all([page.waitForLoadState(), page.click('text=Issue the token')]);
  const token = await page.locator('#bearer-token').textContent();
  const once = (await page.locator('p.notice').textContent()).includes('will not be shown again');
  const works = await apiStatus(token);
  report('a token shown once that works', token.startsWith('plt_') && once && !page.url().includes(token) && works === 200,
    `url ${page.url()}, the API answered ${works}`);
  await look(page, 'token');

  await page.goto(base + '/operator/tokens');
  const listed = (await page.content()).includes(token);
  const row = page.locator('tr[data-token]', { hasText: 'browser test' });
  const revoke = await openConfirmation(row, 'Revoke');
  await Promise.all([page.waitForURL('**done=revoke'), revoke.locator('button').click()]);
  const deadline = Date.now() + 6000; // the API refuses a revoked token within its revocation delay
  let refused = await apiStatus(token);
  while (refused !== 401 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    refused = await apiStatus(token);
  }
  const revoked = !(await row.locator('button').count());
  report('revoke the token', !listed && revoked && refused === 401, `listed ${listed}, revoked ${revoked}, the API answered ${refused}`);
  await look(page, 'tokens');
}

async function main() {
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  watchPolicy(page);
  let dialogs = 0;
  page.on('dialog', (d) => { dialogs++; d.dismiss(); }); // confirmations are in the page, never a dialog
  await signIn(page, env.STAFF_EMAIL, env.STAFF_PASSWORD);
  await webhooks(page);
  await tokens(page);

  const widths = await fitsPhone(browser, ['/operator/webhooks', '/operator/webhooks/acme-shop', '/operator/stores', '/operator/tokens']);
  report('usable on a phone', Object.values(widths).every((w) => w <= 390), JSON.stringify(widths));

  // A team's operator gets no stores page, and no other team's webhook.
  const other = await browser.newPage();
  await signIn(other, env.MEMBER_EMAIL, env.MEMBER_PASSWORD);
  const stores = await other.goto(base + '/operator/stores');
  const storesPage = await other.content();
  const theirs = await other.goto(base + '/operator/webhooks/acme-shop');
  report('a team operator reaches neither', stores.status() === 403 && !storesPage.includes('acme-shop') && theirs.status() === 404,
    `stores ${stores.status()}, another team's webhook ${theirs.status()}`);
  report('confirmations in the page, nothing refused by the policy', dialogs === 0 && policyViolations.length === 0,
    `${dialogs} dialogs; ${policyViolations.join('; ')}`);

  report('axe-core finds nothing on the pages looked at', lookFindings.length === 0, lookFindings.join('\n'));
  await browser.close();
}

run(main);
