// End-to-end: the 2026-07-28 era's multi round-trip requests (issue 13 item 10) and a prompt's
// image (item 5), against the real Python `mcp` 2.x server (tests/servers/mcp/modern_server.py
// --ask-tools), which Skiff reaches in the modern era.
//
//   a. `book` answers `tools/call` with `input_required`: an elicitation form and `roots/list`.
//      The same elicitation card as a legacy server's question appears; roots are answered from
//      what the user stored, with no card; after Accept the call is retried with the answers
//      and the server's result names the typed name, the default guests and the stored root.
//   b. Decline ends the call with a sentence instead of a retry.
//   c. The `postcard` prompt (`/post`) inserts its image as the user message's attachment (its
//      two user turns, image and text, arrive as one message).
//
// Needs: scripts/build.sh (dist/, or SKIFF_DIST) and scripts/setup-mcp.sh (the Python SDK).
//   SKIFF_DIST=$PWD/dist node --test --test-concurrency=1 tests/e2e/mrtr.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { startOpenAiServer, startStaticServer, launchBrowser, collectConsoleErrors, distDir, screenshot, rustConst } from './harness.mjs';
import { startServer } from '../servers/mcp/servers.mjs';

const WAIT_MS = 20_000;
const MODEL = 'skiff-mrtr-model';
const SERVER_ID = 'modern';
const ROOT = 'file:///home/ada/project';
const FATAL = /panicked|RuntimeError|unreachable executed|uncaught|CSP violation/i;

const SERVERS_VERSION = rustConst('src/core/mcp/config.rs', 'SERVERS_VERSION');

let api, site, browser, mcp;

before(async () => {
  assert.ok(existsSync(path.join(distDir(), 'index.html')), `no build in ${distDir()}: run scripts/build.sh first`);
  api = await startOpenAiServer({ models: [MODEL] });
  site = await startStaticServer();
  browser = await launchBrowser();
  mcp = await startServer('modern', { extraArgs: ['--ask-tools'] });
});

after(async () => {
  await browser?.close();
  await site?.stop();
  await api?.stop();
  await mcp?.stop();
});

async function openPage() {
  const settings = JSON.stringify({
    v: 1,
    data: {
      base_url: `${api.url}/v1`, api_key: '', model: MODEL, system_prompt: '', theme: 'system',
      tool_mode: 'native', step_limit: 15, result_char_limit: 16000, tool_images_to_model: false,
      approvals: { rules: {}, allow_read_only: false }, learned_tool_modes: {},
    },
  });
  const servers = JSON.stringify({
    v: SERVERS_VERSION,
    data: { servers: [{ id: SERVER_ID, name: SERVER_ID, url: mcp.url, transport: 'auto', headers: [], enabled: true }] },
  });
  const roots = JSON.stringify({ roots: [{ uri: ROOT, name: 'project' }] });
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await context.addInitScript(([s, m, r, id]) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    if (!localStorage.getItem('skiff:mcp-servers')) localStorage.setItem('skiff:mcp-servers', m);
    if (!localStorage.getItem(`skiff.roots.${id}`)) localStorage.setItem(`skiff.roots.${id}`, r);
  }, [settings, servers, roots, SERVER_ID]);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]', { timeout: WAIT_MS });
  return { context, page, errors };
}

/** Settings → MCP servers → the modern server's `book` tool's "try" form, called with `args`. */
async function tryBook(page, args) {
  await page.click('button[aria-label="Settings"]');
  await page.getByRole('tab', { name: 'MCP servers' }).click();
  const row = page.locator(`li.mcp-server[data-server-name="${SERVER_ID}"]`);
  await page.waitForFunction((id) => document.querySelector(`li.mcp-server[data-server-name="${id}"]`)?.dataset.status === 'connected', SERVER_ID, { timeout: WAIT_MS });
  assert.match(await row.locator('.mcp-protocol').innerText(), /2026-07-28/, 'the modern era');
  if (!(await row.locator('ul.mcp-tools').count())) await row.locator('.mcp-toggle-tools').click();
  const li = row.locator('li.mcp-tool[data-tool="book"]');
  await li.waitFor({ timeout: WAIT_MS });
  await li.locator('summary').click();
  await li.locator('.mcp-try-args').fill(JSON.stringify(args));
  await li.locator('.mcp-try-call').click();
  return li;
}

test('a. input_required: the same elicitation card, roots from storage, then the retry answers', async () => {
  const { context, page, errors } = await openPage();
  try {
    const li = await tryBook(page, { room: 'Blue' });
    const card = page.locator('.elicit-tray .elicit-card');
    await card.waitFor({ timeout: WAIT_MS });
    assert.match(await card.innerText(), /Who is booking Blue\?/);
    assert.equal(await page.locator('.elicit-card').count(), 1, 'roots/list needs no card');
    await card.locator('.elicit-field[data-field="name"] input').fill('Ada');
    await card.locator('button.elicit-accept').click();
    await card.waitFor({ state: 'detached', timeout: WAIT_MS });
    const result = li.locator('.mcp-try-result');
    await result.waitFor({ timeout: WAIT_MS });
    const text = await result.innerText();
    assert.match(text, /Booked Blue for Ada \(2 guests\); roots: file:\/\/\/home\/ada\/project/, text);
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'mrtr-a-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('b. a declined question ends the call with a sentence, not a retry', async () => {
  const { context, page, errors } = await openPage();
  try {
    const li = await tryBook(page, { room: 'Red' });
    const card = page.locator('.elicit-tray .elicit-card');
    await card.waitFor({ timeout: WAIT_MS });
    await card.locator('button.elicit-decline').click();
    await card.waitFor({ state: 'detached', timeout: WAIT_MS });
    const out = li.locator('.mcp-try-result, .mcp-try-error').first();
    await out.waitFor({ timeout: WAIT_MS });
    const text = await out.innerText();
    assert.doesNotMatch(text, /Booked/, text);
    assert.match(text, /declin|not given|cancel/i, text);
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'mrtr-b-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('c. a prompt whose message is an image inserts it as an attachment', async () => {
  const { context, page, errors } = await openPage();
  try {
    await page.waitForFunction(() => !!document.querySelector('.mcp-button'), null, { timeout: WAIT_MS });
    const box = page.locator('textarea[aria-label="Message"]');
    await box.click();
    // The server must be connected (its prompts listed) before the picker can show them.
    const end = Date.now() + WAIT_MS;
    for (;;) {
      await box.fill('');
      await box.pressSequentially('/post');
      const option = page.locator('[role="option"]', { hasText: 'postcard' });
      if (await option.count()) break;
      if (Date.now() > end) throw new Error('the postcard prompt never reached the / picker');
      await page.keyboard.press('Escape');
      await page.waitForTimeout(300);
    }
    await page.keyboard.press('Enter');
    const msg = page.locator('article.message-user', { hasText: 'Describe this postcard.' });
    await msg.waitFor({ timeout: WAIT_MS });
    // The prompt's image is stored and shown as the message's attachment.
    await msg.locator('.attachment img').waitFor({ timeout: WAIT_MS });
    assert.match(await msg.locator('.attachment').innerText(), /\.png/);
    assert.equal(await box.inputValue(), '', 'the /post text left the box');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'mrtr-c-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});
