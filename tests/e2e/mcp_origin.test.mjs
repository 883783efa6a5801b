// Credentials never leave their origin (issue 13, item 12), against scripted servers
// (tests/servers/mcp/leaky_origin.mjs): a legacy HTTP+SSE server whose `endpoint` event names
// another origin, and a server that answers 307 to another loopback origin. That other origin
// records every request it gets (with open CORS, so nothing the browser sends there is blocked):
// it must see none carrying the custom header, and the server card must say why. The same 307
// server stands in for a provider too: a chat request carrying the key is not redirected.
//
//   SKIFF_DIST=$PWD/dist node --test --test-concurrency=1 tests/e2e/mcp_origin.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { launchBrowser, startStaticServer, collectConsoleErrors, distDir } from './harness.mjs';
import { startLeaky, startRecorder } from '../servers/mcp/leaky_origin.mjs';

let site;
let browser;

before(async () => {
  assert.ok(existsSync(`${distDir()}/index.html`), `no build in ${distDir()}: run scripts/build.sh first`);
  site = await startStaticServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await site?.stop();
});

const EXPECTED_CONSOLE = [/net::ERR_/, /Failed to load resource/];
const FATAL = /panicked|RuntimeError|unreachable executed|uncaught|CSP violation/i;
const HEADERS = 'Authorization: Bearer never-elsewhere\nX-Skiff-Secret: s3cret';

async function openMcp() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const page = await context.newPage();
  const errors = collectConsoleErrors(page, { ignore: EXPECTED_CONSOLE });
  await page.goto(site.url);
  await page.click('button[aria-label="Settings"]');
  await page.getByRole('tab', { name: 'MCP servers' }).click();
  await page.locator('.mcp-section').waitFor();
  return { context, page, errors };
}

async function addServer(page, { name, url, transport }) {
  await page.click('.mcp-add-open');
  await page.getByLabel('Server name').fill(name);
  await page.getByLabel('Server URL').fill(url);
  await page.locator('select.mcp-transport').selectOption(transport);
  await page.locator('.mcp-headers').fill(HEADERS);
  await page.click('.mcp-save');
}

/** Waits until the server card's status text matches `re`; returns the text. */
async function cardSays(page, name, re, timeout = 20_000) {
  const text = page.locator(`li.mcp-server[data-server-name="${name}"] .mcp-status-text`);
  const t0 = Date.now();
  for (;;) {
    const got = (await text.count()) ? await text.innerText() : '';
    if (re.test(got)) return got;
    if (Date.now() - t0 > timeout) throw new Error(`${name}: the card never said ${re}; it says: ${got}`);
    await page.waitForTimeout(100);
  }
}

function leaked(seen) {
  return seen.filter((r) => r.headers.authorization !== undefined || r.headers['x-skiff-secret'] !== undefined);
}

test('an endpoint event naming another origin is refused: nothing is posted there', async () => {
  const elsewhere = await startRecorder();
  const leaky = await startLeaky('endpoint-elsewhere', elsewhere.origin);
  const { context, page, errors } = await openMcp();
  try {
    await addServer(page, { name: 'endpoint-elsewhere', url: leaky.url, transport: 'sse' });
    const said = await cardSays(page, 'endpoint-elsewhere', /another origin/);
    assert.match(said, /refused/, said);
    assert.ok(said.includes(elsewhere.origin), `the card names where it wanted to go: ${said}`);
    // Give a follower time to post; then nothing may have reached the other origin at all.
    await page.waitForTimeout(1_000);
    assert.deepEqual(leaked(elsewhere.seen), [], 'no request with the custom headers reached the other origin');
    assert.deepEqual(elsewhere.seen.map((r) => `${r.method} ${r.url}`), [], 'nothing reached the other origin');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } finally {
    await context.close();
    await leaky.stop();
    await elsewhere.stop();
  }
});

test('a 307 to another origin is not followed by a request with custom headers, and the card says so', async () => {
  const elsewhere = await startRecorder();
  const leaky = await startLeaky('redirect', elsewhere.origin);
  const { context, page, errors } = await openMcp();
  try {
    await addServer(page, { name: 'redirector', url: leaky.url, transport: 'streamable' });
    const said = await cardSays(page, 'redirector', /redirect the request elsewhere/);
    assert.match(said, /not follow/, said);
    assert.match(said, /does not reveal where/, said);
    await page.waitForTimeout(1_000);
    assert.deepEqual(leaked(elsewhere.seen), [], 'no request with the custom headers reached the other origin');
    assert.deepEqual(elsewhere.seen.map((r) => `${r.method} ${r.url}`), [], 'nothing reached the other origin');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } finally {
    await context.close();
    await leaky.stop();
    await elsewhere.stop();
  }
});

test('a provider answering 307 to another origin: the key is not sent there, and the message says why', async () => {
  const elsewhere = await startRecorder();
  const leaky = await startLeaky('redirect', elsewhere.origin);
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  // Format 1 (flat provider fields): the page migrates it into one profile.
  const settings = JSON.stringify({ v: 1, data: { base_url: leaky.url.replace(/\/mcp$/, '/v1'), api_key: 'sk-never-elsewhere', model: 'm' } });
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, settings);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page, { ignore: EXPECTED_CONSOLE });
  try {
    await page.goto(site.url);
    await page.fill('textarea[aria-label="Message"]', 'hello');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => /redirect the request elsewhere/.test(document.querySelector('article.message-assistant:last-of-type')?.innerText || document.body.innerText), null, { timeout: 20_000 });
    const text = await page.evaluate(() => document.body.innerText);
    assert.match(text, /did not follow, because the request carries your key/, text.slice(0, 400));
    await page.waitForTimeout(1_000);
    assert.deepEqual(elsewhere.seen.map((r) => `${r.method} ${r.url}`), [], 'nothing reached the other origin');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } finally {
    await context.close();
    await leaky.stop();
    await elsewhere.stop();
  }
});
