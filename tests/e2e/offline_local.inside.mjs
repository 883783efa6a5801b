// Run by offline_local.test.mjs inside a network namespace that has only loopback, where
// Chromium reports offline while 127.0.0.1 answers. Not a test file of its own (the name does
// not match node --test's patterns): outside the namespace the first assertion fails.
//
// What must hold (issue 31, item 1): a provider on this machine answers, an MCP server on
// loopback is used, a local server that is down is named as not answering, and a hosted
// provider is refused with the offline sentence without anything being sent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startOpenAiServer, startStaticServer, launchBrowser, collectConsoleErrors, chatSettings, rustConst, screenshot,
} from './harness.mjs';
import { startServer } from '../servers/mcp/servers.mjs';

const SERVERS_VERSION = rustConst('src/core/mcp/config.rs', 'SERVERS_VERSION');
let api, site, browser, mcp;

before(async () => {
  api = await startOpenAiServer();
  site = await startStaticServer();
  browser = await launchBrowser();
  mcp = await startServer('everything-http');
});

after(async () => {
  await browser?.close();
  await site?.stop();
  await api?.stop();
  await mcp?.stop();
});

/** A page with these stored settings (and MCP servers), opened; navigator.onLine must be false. */
async function open(settings, servers = []) {
  const context = await browser.newContext();
  await context.addInitScript(([s, m]) => {
    localStorage.setItem('skiff:settings', s);
    localStorage.setItem('skiff:mcp-servers', m);
  }, [settings, JSON.stringify({ v: SERVERS_VERSION, data: { servers } })]);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page, { ignore: [/Failed to load resource/, /ERR_/] });
  const sent = [];
  page.on('request', (r) => sent.push(r.url()));
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]');
  assert.equal(await page.evaluate(() => navigator.onLine), false, 'the browser reports offline (run inside the namespace)');
  return { context, page, errors, sent };
}

async function send(page, text) {
  await page.fill('textarea[aria-label="Message"]', text);
  await page.keyboard.press('Enter');
}

const last = (page) => page.locator('article.message-assistant').last();

test('a provider on 127.0.0.1 answers while the browser is offline', async () => {
  await api.reset();
  await api.script([{ reply: 'Answered with Wi-Fi off.' }]);
  const { context, page, errors } = await open(chatSettings(api.url));
  try {
    await send(page, 'hello from an offline laptop');
    await last(page).getByText('Answered with Wi-Fi off.').waitFor({ timeout: 15_000 });
    assert.equal((await api.requests()).length, 1, 'the request reached the local server');
    await screenshot(page, 'offline-local-provider');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('an MCP server on loopback connects and its tool runs while offline', async () => {
  await api.reset();
  const servers = [{ id: 'everything', name: 'everything', url: mcp.url, transport: 'auto', headers: [], enabled: true }];
  const settings = chatSettings(api.url, { tool_mode: 'native', approvals: { rules: {}, allow_read_only: false } });
  const { context, page, errors, sent } = await open(settings, servers);
  try {
    await page.waitForFunction(
      () => Number((document.querySelector('.tool-picker-toggle')?.innerText || '').replace(/\D+/g, '')) >= 10,
      null,
      { timeout: 20_000 },
    );
    await api.script([
      { reply: 'Echoing.', tool_calls: [{ name: 'echo', arguments: { message: 'no network needed' }, id: 'call_offline' }] },
      { reply: 'The echo came back.' },
    ]);
    await send(page, 'echo something');
    const card = page.locator('details.tool-card[data-call-id="call_offline"]');
    await card.waitFor({ timeout: 15_000 });
    await page.locator('.tool-approval button.approve-once').first().click();
    await page.waitForFunction(
      () => document.querySelector('details.tool-card[data-call-id="call_offline"]')?.dataset.status === 'done',
      null,
      { timeout: 20_000 },
    );
    await last(page).getByText('The echo came back.').waitFor({ timeout: 15_000 });
    const calls = sent.filter((u) => u.startsWith(new URL(mcp.url).origin));
    assert.ok(calls.length > 0, 'the page talked to the MCP server');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a local server that is not running is named as not answering', async () => {
  const { context, page } = await open(chatSettings('http://127.0.0.1:9'));
  try {
    await send(page, 'is anyone there?');
    await last(page).getByText(/The server at http:\/\/127\.0\.0\.1:9 did not answer\. The browser reports no network/).waitFor({ timeout: 15_000 });
  } finally {
    await context.close();
  }
});

test('a hosted provider is refused with the offline sentence, and nothing is sent', async () => {
  const { context, page, sent } = await open(chatSettings('https://api.openai.com'));
  try {
    await send(page, 'this needs the internet');
    await last(page).getByText(/You are offline, so nothing was sent to the provider/).waitFor({ timeout: 15_000 });
    assert.deepEqual(sent.filter((u) => u.includes('openai.com')), [], 'no request to the hosted provider');
    await screenshot(page, 'offline-hosted-refused');
  } finally {
    await context.close();
  }
});
