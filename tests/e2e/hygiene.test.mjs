// Issue 13, item 11 (hygiene), against the real server-everything on loopback:
//   - importing a server whose URL is already configured is refused with a sentence;
//   - the chat header's tool picker closes on Escape and on a click outside it, and its panel
//     fits a 375 px wide screen;
//   - a server that is down is named in the chat header, not only counted as fewer tools.
// A provider is set up (the scripted one): the header offers tools only when there is a model
// to offer them to (issue 32 item 10, edges.test.mjs "no provider yet").
//
//   SKIFF_DIST=$PWD/dist node --test --test-concurrency=1 tests/e2e/hygiene.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startStaticServer, startOpenAiServer, launchBrowser, collectConsoleErrors } from './harness.mjs';
import { startServer } from '../servers/mcp/servers.mjs';

let site, browser, mcp, api;
const MODEL = 'skiff-hygiene-model';
const FATAL = /panicked|RuntimeError|unreachable executed|uncaught|CSP violation/i;

before(async () => {
  site = await startStaticServer(process.env.SKIFF_DIST || 'dist');
  browser = await launchBrowser();
  mcp = await startServer('everything-http');
  api = await startOpenAiServer({ models: [MODEL] });
});

after(async () => {
  await browser?.close();
  await site?.stop();
  await mcp?.stop();
  await api?.stop();
});

async function openPage(servers, { width = 1100, height = 800 } = {}) {
  const context = await browser.newContext({ viewport: { width, height } });
  const list = JSON.stringify({ v: 1, data: { servers } });
  const memory = JSON.stringify({ v: 1, data: { builtin_enabled: false, book: { entries: [], next_id: 1 } } });
  const settings = JSON.stringify({ v: 1, data: { base_url: `${api.url}/v1`, api_key: '', model: MODEL, system_prompt: '', theme: 'system', auto_title: false } });
  await context.addInitScript(([m, b, s]) => {
    if (!localStorage.getItem('skiff:mcp-servers')) localStorage.setItem('skiff:mcp-servers', m);
    if (!localStorage.getItem('skiff:memory')) localStorage.setItem('skiff:memory', b);
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, [list, memory, settings]);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page, { ignore: [/net::ERR_/, /Failed to load resource/] });
  await page.goto(site.url);
  return { context, page, errors };
}

const everything = () => ({ id: 'everything', name: 'everything', url: mcp.url, transport: 'auto', headers: [], enabled: true });

test('importing a URL that is already configured is refused with a sentence', async () => {
  const { context, page, errors } = await openPage([everything()]);
  try {
    await page.click('button[aria-label="Settings"]');
    await page.getByRole('tab', { name: 'MCP servers' }).click();
    await page.locator('details.mcp-import-export > summary').click();
    // The same server under another name, with a trailing slash and the scheme in capitals.
    const again = mcp.url.replace('http://', 'HTTP://') + '/';
    await page.locator('.mcp-import-text').fill(JSON.stringify({ mcpServers: { 'everything-again': { url: again } } }));
    await page.click('.mcp-import');
    const report = await page.locator('.mcp-import-report').innerText();
    assert.match(report, /everything-again: its URL is already configured \(as "everything"\)/, report);
    assert.equal(await page.locator('li.mcp-server').count(), 1, 'not added twice');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } finally {
    await context.close();
  }
});

test('the tool picker closes on Escape and outside clicks, and fits a 375 px screen', async () => {
  const { context, page, errors } = await openPage([everything()], { width: 375, height: 740 });
  try {
    const toggle = page.locator('.tool-picker-toggle');
    await page.waitForFunction(() => /Tools: [1-9]/.test(document.querySelector('.tool-picker-toggle')?.innerText || ''), null, { timeout: 20000 });
    const panel = page.locator('.tool-picker-panel');

    await toggle.click();
    await panel.waitFor();
    const box = await panel.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 375, `the panel fits the screen: x ${box.x}, width ${box.width}`);
    // A click inside (a switch) keeps it open.
    await page.locator('.tool-switch').first().locator('input').click();
    assert.equal(await panel.count(), 1, 'a click inside keeps it open');

    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('tool-picker-toggle')), true, 'focus back on the toggle');

    await toggle.click();
    await panel.waitFor();
    await page.locator('h1.chat-title').click();
    await panel.waitFor({ state: 'detached' });
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } finally {
    await context.close();
  }
});

test('a server that is down is named in the chat header', async () => {
  const gone = await startServer('hostile-normal');
  const url = gone.url;
  await gone.stop();
  const down = { id: 'gone', name: 'gone-server', url, transport: 'auto', headers: [], enabled: true };
  const { context, page, errors } = await openPage([everything(), down]);
  try {
    const badge = page.locator('.chat-header .mcp-down');
    await badge.waitFor({ timeout: 20000 });
    assert.match(await badge.innerText(), /MCP server down: gone-server/);
    await page.waitForFunction(() => /Tools: [1-9]/.test(document.querySelector('.tool-picker-toggle')?.innerText || ''), null, { timeout: 20000 });
    assert.match(await badge.innerText(), /gone-server/, 'the working server does not hide it');
    await badge.click();
    await page.getByRole('tab', { name: 'MCP servers' }).waitFor();
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } finally {
    await context.close();
  }
});
