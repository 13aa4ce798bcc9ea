// What every browser script of the panel shares: the report line the Go
// test reads, the browser launch and the sign-in.
const fs = require('fs');
const { chromium } = require('playwright-core');

const env = process.env;
const base = env.BASE;

// report prints one step's outcome as the JSON line browser_test.go reads.
function report(step, ok, detail) {
  console.log(JSON.stringify({ step, ok: Boolean(ok), detail: detail || '' }));
}

// launch starts Debian's Chromium (never a downloaded browser) as its
// headless shell, the build Playwright itself runs headless tests in: the
// full browser's headless mode cost these tests a third more CPU.
// The flags keep Chromium from its own background traffic (updates, sync,
// field trials), which a closed network refuses many times a start, and
// from the GPU process a headless test has no use for. args are more
// flags (the render package's fabric oracle turns hinting off).
async function launch(args = []) {
  return chromium.launch({
    executablePath: env.CHROMIUM || '/usr/bin/chromium-headless-shell',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-extensions', ...args],
  });
}

// signIn signs page in as an operator and waits for the prints list. A
// 429 (the process's password hashes all busy, as when the tests of both
// databases sign in at once) is tried again, as a person would.
async function signIn(page, email, password) {
  for (let attempt = 1; ; attempt++) {
    await page.goto(base + '/operator/prints');
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', password);
    const [answer] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/operator/login') && r.request().method() === 'POST'),
      page.click('button'),
    ]);
    if (answer.status() !== 429 || attempt === 10) break;
  }
  await page.waitForURL('**/operator/prints');
}

// openConfirmation opens the in-page confirmation whose summary has text,
// within scope (a page or a part of one), and returns it: its words say
// what the action does, and its button does it.
async function openConfirmation(scope, text) {
  const summary = scope.locator('details.confirm > summary', { hasText: text }).first();
  await summary.click();
  return summary.locator('xpath=..');
}

// policyViolations counts what the pages' Content-Security-Policy refused
// (Chromium reports each on the console): a page that needs an inline
// script, handler or style the policy forbids is broken there.
const policyViolations = [];
function watchPolicy(page) {
  page.on('console', (m) => {
    if (m.text().includes('Content Security Policy')) policyViolations.push(`${page.url()}: ${m.text()}`);
  });
  return page;
}

// axe-core (pinned in package.json) is evaluated in the page over the
// DevTools protocol, which the page's Content-Security-Policy does not
// govern: the policy stays on while axe looks.
const axeSource = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const axeRules = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'];

// axeCheck runs axe-core over page as it is now (WCAG 2.1 A and AA, and
// axe's best practices) and returns its violations as lines naming the
// page, the rule, its impact and the elements. Only violations are
// gathered (resultTypes): the passes' details, which nothing reads, were
// half of axe's time.
async function axeCheck(page, name) {
  await page.evaluate(axeSource);
  const found = await page.evaluate((rules) => axe.run(document, { runOnly: { type: 'tag', values: rules }, resultTypes: ['violations'] }), axeRules);
  return found.violations.map((v) => `${name}: ${v.id} (${v.impact}) ×${v.nodes.length}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

// look takes a screenshot of page as name.png in OUT and has axe-core
// look at it; lookFindings holds what axe found on every page looked at.
const lookFindings = [];
async function look(page, name) {
  await page.screenshot({ path: `${env.OUT}/${name}.png`, fullPage: true });
  lookFindings.push(...(await axeCheck(page, name)));
}

// run runs a script's main, reporting a thrown error as a failed step.
function run(main) {
  main().catch((e) => { report('the run', false, String((e && e.stack) || e)); process.exit(1); });
}

module.exports = { env, base, report, launch, signIn, run, openConfirmation, watchPolicy, policyViolations, axeCheck, look, lookFindings };
