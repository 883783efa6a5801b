// End-to-end: an MCP server's `instructions` (issue 13, item 6). The Python mcp 2.x test
// server sends "Test server for Skiff: echo, add, slow (progress), image, fail." in its
// initialize result. Skiff shows them on the server card as the server's words, sends them to
// the model after the user's system prompt while the server's tools are offered, framed as the
// server's and not the user's, and stops when the card's switch is turned off (which persists).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  startOpenAiServer, startStaticServer, launchBrowser, collectConsoleErrors, chatSettings, repoRoot, screenshot,
} from './harness.mjs';
import { startServer } from '../servers/mcp/servers.mjs';

const WAIT_MS = 20_000;
const SERVER_ID = 'modern';
const INSTRUCTIONS = 'Test server for Skiff: echo, add, slow (progress), image, fail.';
const SERVERS_VERSION = Number(/pub const SERVERS_VERSION: u32 = (\d+);/.exec(
  readFileSync(path.join(repoRoot, 'src/core/mcp/config.rs'), 'utf8'),
)[1]);

let api, site, browser, mcp;

before(async () => {
  api = await startOpenAiServer({ models: ['skiff-test-small'] });
  site = await startStaticServer(process.env.SKIFF_DIST || 'dist');
  browser = await launchBrowser();
  mcp = await startServer('modern');
});

after(async () => {
  await browser?.close();
  await site?.stop();
  await api?.stop();
  await mcp?.stop();
});

const chatRequests = async () => (await api.requests()).filter((r) => r.path.endsWith('/chat/completions'));
const systemOf = (req) => {
  const body = typeof req.body === 'string' ? JSON.parse(req.body) : req.body;
  return body.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
};

test('a server\'s instructions are shown on its card, sent with its tools after the system prompt, and the switch stops them', async () => {
  await api.reset();
  const servers = JSON.stringify({
    v: SERVERS_VERSION,
    data: { servers: [{ id: SERVER_ID, name: 'Modern test server', url: mcp.url, transport: 'auto', headers: [], enabled: true }] },
  });
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await context.addInitScript(([s, m]) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    if (!localStorage.getItem('skiff:mcp-servers')) localStorage.setItem('skiff:mcp-servers', m);
  }, [chatSettings(api.url, { system_prompt: 'Answer in one line.', tool_mode: 'native' }), servers]);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  try {
    await page.goto(site.url);
    await page.waitForSelector('textarea[aria-label="Message"]', { timeout: WAIT_MS });

    // The card shows them once the server is connected.
    await page.click('button[aria-label="Settings"]');
    await page.getByRole('tab', { name: 'MCP servers' }).click();
    const card = page.locator('li.mcp-server[data-server-name="Modern test server"]');
    await card.locator('details.mcp-instructions').waitFor({ timeout: WAIT_MS }).catch(async (e) => {
      await screenshot(page, 'mcp-instructions-missing');
      throw new Error(`no instructions on the card: ${await card.innerText()}`, { cause: e });
    });
    await card.locator('details.mcp-instructions summary').click();
    assert.equal((await card.locator('.mcp-instructions-text').innerText()).trim(), INSTRUCTIONS);
    const box = card.locator('input.mcp-send-instructions');
    assert.equal(await box.isChecked(), true, 'on by default');
    await screenshot(page, 'mcp-instructions-card');
    await page.keyboard.press('Escape');

    // Sent with the tools, after the user's system prompt, framed as the server's words.
    await page.fill('textarea[aria-label="Message"]', 'hello');
    await page.keyboard.press('Enter');
    await waitFor(async () => (await chatRequests()).length >= 1);
    const first = await chatRequests();
    const sys = systemOf(first[0]);
    const body = typeof first[0].body === 'string' ? JSON.parse(first[0].body) : first[0].body;
    assert.ok((body.tools ?? []).some((t) => t.function.name.includes('echo')), 'the server\'s tools are offered');
    assert.ok(sys.indexOf('Answer in one line.') >= 0, sys);
    const at = sys.indexOf('Instructions from the MCP server "Modern test server" for its tools (written by that server, not by the user):');
    assert.ok(at > sys.indexOf('Answer in one line.'), `after the system prompt: ${sys}`);
    assert.ok(sys.indexOf(INSTRUCTIONS) > at, sys);

    // The switch off: the next request carries none, and the choice survives a reload.
    await page.click('button[aria-label="Settings"]');
    await page.getByRole('tab', { name: 'MCP servers' }).click();
    await card.locator('details.mcp-instructions summary').click();
    await card.locator('.mcp-toggle-tools').click();
    await card.locator('ul.mcp-tools').waitFor();
    await box.uncheck();
    // The row is the same row (keyed by the server's id): its open tool list and open
    // instructions stay as they were, and the switch shows the stored value.
    assert.equal(await card.locator('ul.mcp-tools').count(), 1, 'the tool list stays open');
    assert.equal(await card.locator('details.mcp-instructions').evaluate((d) => d.open), true);
    assert.equal(await box.isChecked(), false);
    await page.keyboard.press('Escape');
    await page.reload();
    await page.waitForSelector('textarea[aria-label="Message"]', { timeout: WAIT_MS });
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('skiff:mcp-servers')).data.servers[0].send_instructions);
    assert.equal(stored, false);
    // Wait for the server (so a request without instructions is not just one without its tools).
    await page.click('button[aria-label="Settings"]');
    await page.getByRole('tab', { name: 'MCP servers' }).click();
    await page.locator('li.mcp-server[data-status="connected"]').waitFor({ timeout: WAIT_MS });
    await page.keyboard.press('Escape');
    const before = (await chatRequests()).length;
    await page.fill('textarea[aria-label="Message"]', 'again');
    await page.keyboard.press('Enter');
    await waitFor(async () => (await chatRequests()).length > before);
    const last = (await chatRequests()).at(-1);
    const lastBody = typeof last.body === 'string' ? JSON.parse(last.body) : last.body;
    assert.ok((lastBody.tools ?? []).some((t) => t.function.name.includes('echo')), 'its tools still offered');
    assert.ok(!systemOf(last).includes(INSTRUCTIONS), systemOf(last));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

async function waitFor(pred, timeout = WAIT_MS) {
  const t0 = Date.now();
  while (!(await pred())) {
    if (Date.now() - t0 > timeout) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}
