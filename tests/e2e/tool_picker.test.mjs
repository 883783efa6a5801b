// Per-conversation MCP tool switches: chosen in the chat header, saved with the conversation,
// independent between conversations. Uses the real server-everything on loopback.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startOpenAiServer, startStaticServer, launchBrowser, waitStored } from './harness.mjs';
import { startServer } from '../servers/mcp/servers.mjs';

let api, site, browser, mcp;

before(async () => {
  api = await startOpenAiServer({});
  site = await startStaticServer(process.env.SKIFF_DIST || 'dist');
  browser = await launchBrowser();
  mcp = await startServer('everything-http');
});

after(async () => {
  await browser?.close();
  await site?.stop();
  await api?.stop();
  await mcp?.stop();
});

test('tool switches are per conversation and survive a reload', async () => {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const settings = JSON.stringify({ v: 1, data: { base_url: `${api.url}/v1`, model: 'm', auto_title: false } });
  const servers = JSON.stringify({
    v: 1,
    data: { servers: [{ id: 'everything', name: 'everything', url: mcp.url, transport: 'auto', headers: [], enabled: true }] },
  });
  // Built-in tools off: this test counts one server's tools (agent.test.mjs covers the
  // built-in server, in the picker too).
  const memory = JSON.stringify({ v: 1, data: { builtin_enabled: false, book: { entries: [], next_id: 1 } } });
  await context.addInitScript(([s, m, b]) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    if (!localStorage.getItem('skiff:mcp-servers')) localStorage.setItem('skiff:mcp-servers', m);
    if (!localStorage.getItem('skiff:memory')) localStorage.setItem('skiff:memory', b);
  }, [settings, servers, memory]);
  const page = await context.newPage();
  await page.goto(site.url);
  const toggle = page.locator('.tool-picker-toggle');
  await page.waitForFunction(() => /Tools: [1-9]/.test(document.querySelector('.tool-picker-toggle')?.innerText || ''), null, { timeout: 20000 });
  const all = Number((await toggle.innerText()).replace(/\D+/g, ''));
  assert.ok(all >= 10, `server-everything offers its tools (${all})`);

  // New chat: switch echo off, then start the conversation.
  await toggle.click();
  await page.locator('.tool-switch', { hasText: 'echo' }).locator('input').uncheck();
  assert.equal(await toggle.innerText(), `Tools: ${all - 1}`);
  await api.script([{ reply: 'ok' }, { reply: 'ok too' }]);
  await page.fill('textarea[aria-label="Message"]', 'without echo');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('article.message-assistant')?.dataset.status === 'done');

  // A second conversation starts with everything on.
  await page.click('.new-chat');
  // Opening the new chat is asynchronous (its record is written first): wait for its picker.
  await page.waitForFunction((n) => document.querySelector('.tool-picker-toggle')?.innerText === `Tools: ${n}`, all);
  await page.fill('textarea[aria-label="Message"]', 'with everything');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('article.message-assistant')?.dataset.status === 'done');
  assert.equal(await toggle.innerText(), `Tools: ${all}`);

  // After a reload the first conversation still has echo off; switching the server off
  // removes all of its tools.
  await page.reload();
  await page.locator('.conversation-select', { hasText: 'without echo' }).click();
  // 40 s: once, on a loaded 2-core machine, the reconnect after the reload took over 20 s.
  await page.waitForFunction((n) => document.querySelector('.tool-picker-toggle')?.innerText === `Tools: ${n}`, all - 1, { timeout: 40000 });
  await toggle.click();
  await page.locator('.tool-server legend input').uncheck();
  assert.equal(await toggle.innerText(), 'Tools: 0');
  // The body write commits just after the switch shows: wait for the stored record.
  await waitStored(page, (bodies) => {
    const c = Object.values(bodies).map((raw) => JSON.parse(raw).data).find((x) => x.title === 'without echo');
    return JSON.stringify(c?.tool_overrides?.disabled_servers) === JSON.stringify(['everything']);
  });
  await context.close();
});

test('a server name with a right-to-left override is shown neutralised, not reversed', async () => {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const settings = JSON.stringify({ v: 1, data: { base_url: `${api.url}/v1`, model: 'm', auto_title: false } });
  // U+202E would draw "everything" and the rest backwards; the page must show it as an escape.
  const name = 'every\u202Egnihteht';
  const servers = JSON.stringify({
    v: 1,
    data: { servers: [{ id: 'everything', name, url: mcp.url, transport: 'auto', headers: [], enabled: true }] },
  });
  const memory = JSON.stringify({ v: 1, data: { builtin_enabled: false, book: { entries: [], next_id: 1 } } });
  await context.addInitScript(([s, m, b]) => {
    localStorage.setItem('skiff:settings', s);
    localStorage.setItem('skiff:mcp-servers', m);
    localStorage.setItem('skiff:memory', b);
  }, [settings, servers, memory]);
  const page = await context.newPage();
  await page.goto(site.url);
  await page.waitForFunction(() => /Tools: [1-9]/.test(document.querySelector('.tool-picker-toggle')?.innerText || ''), null, { timeout: 20000 });
  await page.locator('.tool-picker-toggle').click();
  const shown = await page.locator('.tool-server legend strong').innerText();
  assert.equal(shown, 'every<U+202E>gnihteht');
  assert.ok(!shown.includes('\u202E'), 'no override reaches the page text');
  await context.close();
});
