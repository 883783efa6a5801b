// End-to-end: MCP resources (issue 13 items 1–4), the page's resource surfaces (src/ui/mcp/resources),
// against the real server-everything (Streamable HTTP) and the modern Python server
// (tests/servers/mcp/modern_server.py), with the scripted OpenAI-compatible model recording
// what each chat request carries.
//
//   a. Browse → search → preview → Attach: the resource's text reaches the provider request;
//      Escape closes the dialog and gives focus back.
//   b. A template form with completion/complete suggestions, read and attached.
//   c. Subscribe: the server's update is read again and shown (a notice, or the open pane);
//      after a reload the page resumes by itself and resubscribes (server-everything only
//      notifies subscribed sessions).
//   c2. The same on the modern-era (2026-07-28) server, where a subscription is the listen
//      stream's `resourceSubscriptions`: `bump` changes skiff://counter, the update is read
//      again and shown, and it still arrives after a reload and after a server restart.
//   d. The `@` picker: keyboard navigation, Enter attaches and removes the `@query`.
//   e. A reload keeps the cache; the server killed, the kept copy is still usable, marked
//      stale, attachable and offered by the picker. e2: a resource attached and not yet sent
//      is still attached after a reload (the composer keeps its records).
//   f. The modern-era server: a PNG preview, pretty JSON, a text resource attached.
//   g. A corrupt stored value is never overwritten and says so.
//
// Needs: scripts/build.sh (dist/, or SKIFF_DIST) and scripts/setup-mcp.sh.
//   SKIFF_DIST=$PWD/dist node --test --test-concurrency=1 tests/e2e/resources.test.mjs
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  startOpenAiServer, startStaticServer, launchBrowser, collectConsoleErrors, distDir, repoRoot, chatSettings,
  rustConst, requireServerEverything, screenshot,
} from './harness.mjs';
import { startServer } from '../servers/mcp/servers.mjs';

const WAIT_MS = 20_000;
const SERVERS_VERSION = rustConst('src/core/mcp/config.rs', 'SERVERS_VERSION');
const ARCH = 'demo://resource/static/document/architecture.md';
const TEXTAREA = 'textarea[aria-label="Message"]';
// Chromium logs a refused connection by itself once a server is killed (test e).
const REFUSED = [/ERR_CONNECTION_REFUSED/, /Failed to load resource/];

let api, site, browser, everything, modern;

before(async () => {
  assert.ok(existsSync(path.join(distDir(), 'index.html')), `no build in ${distDir()}: run scripts/build.sh`);
  requireServerEverything();
  api = await startOpenAiServer({ models: ['skiff-test-small'] });
  site = await startStaticServer();
  browser = await launchBrowser();
  [everything, modern] = await Promise.all([
    startServer('everything-http'),
    startServer('modern'),
  ]);
});

after(async () => {
  await browser?.close();
  await site?.stop();
  await api?.stop();
  await everything?.stop();
  await modern?.stop();
});

beforeEach(async () => {
  await api.reset();
});

async function openPage({ servers = ['everything'], context, seed = {}, width = 1200, urls = {} } = {}) {
  const url = (id) => urls[id] ?? (id === 'everything' ? everything : modern).url;
  const list = servers.map((id) => ({ id, name: id, url: url(id), transport: 'auto', headers: [], enabled: true }));
  const stored = JSON.stringify({ v: SERVERS_VERSION, data: { servers: list } });
  context ??= await browser.newContext({ viewport: { width, height: 860 } });
  await context.addInitScript(([s, m, extra]) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    if (!localStorage.getItem('skiff:mcp-servers')) localStorage.setItem('skiff:mcp-servers', m);
    for (const [k, v] of Object.entries(extra)) if (localStorage.getItem(k) === null) localStorage.setItem(k, v);
  }, [chatSettings(api.url), stored, seed]);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page, { ignore: REFUSED });
  await page.goto(site.url);
  await page.waitForSelector(TEXTAREA, { timeout: WAIT_MS });
  await waitConnected(page, servers);
  return { context, page, errors };
}

/** Every server connected with its resource list, as the resource browser shows it (opened
 * and closed again: it is the page's own view of the servers). */
async function waitConnected(page, ids) {
  await browse(page);
  await page.waitForFunction((want) => want.every((id) => [...document.querySelectorAll('.res-dialog .res-server')].some((s) =>
    s.querySelector('.res-server-name bdi')?.textContent === id && !s.querySelector('.res-offline') && s.querySelector('.res-item'))),
  ids, { timeout: WAIT_MS, polling: 250 });
  await page.keyboard.press('Escape');
  await dialog(page).waitFor({ state: 'detached', timeout: WAIT_MS });
}

/** The composer's MCP button: the browser for every server (the tests that filter configure
 * one server, or use its card's "Resources"). */
const browse = (page) => page.locator('form.composer .mcp-button').click();
const dialog = (page) => page.locator('.res-dialog[role="dialog"]');
const chips = (page) => page.locator('form.composer .attachment');

async function openResource(page, name) {
  await dialog(page).locator('.res-item', { hasText: name }).first().click();
  await dialog(page).locator('.res-name', { hasText: name }).waitFor({ timeout: WAIT_MS });
}

async function sendAndWait(page, text) {
  await page.fill(TEXTAREA, text);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => {
    const all = document.querySelectorAll('article.message-assistant');
    return all.length > 0 && all[all.length - 1].dataset.status === 'done';
  }, null, { timeout: WAIT_MS });
}

async function lastUserText() {
  const reqs = (await api.requests()).filter((r) => r.path.includes('/chat/completions'));
  assert.ok(reqs.length > 0, 'no chat request');
  const b = reqs[reqs.length - 1].body;
  const body = typeof b === 'string' ? JSON.parse(b) : b;
  const user = body.messages.filter((m) => m.role === 'user').pop();
  return typeof user.content === 'string' ? user.content : user.content.map((c) => c.text ?? '').join('\n');
}

async function axe(page, where = '.res-dialog') {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) {
    await page.evaluate(await readFile(path.join(repoRoot, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  }
  return page.evaluate(async (sel) => {
    const r = await window.axe.run({ include: [[sel]] });
    return r.violations.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`);
  }, where);
}

test('a. browse, search, preview and attach a resource: its text reaches the model', async () => {
  const { context, page, errors } = await openPage();
  try {
    // The composer's MCP button opens the browser for every server.
    await page.locator('form.composer .mcp-button').click();
    await dialog(page).waitFor({ timeout: WAIT_MS });
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'res-search', 'focus moves into the dialog');
    await page.fill('#res-search', 'architec');
    assert.equal(await dialog(page).locator('.res-item').count(), 1, 'search narrows the list');
    await openResource(page, 'architecture.md');
    const pane = dialog(page).locator('#res-pane');
    // The pane opens at once and fills in once the read answers (slower with a second test file
    // running beside this one): wait for its size line.
    await page.waitForFunction(() => /\S/.test(document.querySelector('#res-pane .res-meta')?.innerText ?? ''), null, { timeout: WAIT_MS });
    assert.match(await pane.locator('.res-meta').first().innerText(), /text\/markdown · [\d.]+ (KB|bytes)/);
    const text = await pane.locator('.res-text').innerText();
    assert.ok(text.length > 50, 'the text is shown');
    assert.deepEqual(await axe(page), [], 'axe on the dialog');
    await screenshot(page, 'resources-browser').catch(() => {});
    await pane.locator('[data-act="attach"]').click();
    await pane.locator('.res-note', { hasText: 'Attached architecture.md' }).waitFor({ timeout: WAIT_MS });
    await page.keyboard.press('Escape');
    await dialog(page).waitFor({ state: 'detached', timeout: WAIT_MS });
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('mcp-button')), true, 'focus goes back to the button');
    await chips(page).filter({ hasText: 'architecture.md' }).waitFor({ timeout: WAIT_MS });
    await sendAndWait(page, 'Summarize the attached document');
    const sent = await lastUserText();
    assert.ok(sent.includes(text.trim().split('\n')[0]), `the resource's first line is in the request: ${sent.slice(0, 300)}`);
    assert.ok(sent.includes('Summarize the attached document'));
    // Cached with its server and URI (localStorage, versioned).
    const stored = JSON.parse(await page.evaluate(() => localStorage.getItem('skiff.extras.resources')));
    assert.equal(stored.v, 1);
    assert.ok(stored.cache.entries.some((e) => e.server_id === 'everything' && e.uri === ARCH));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('b. a template form suggests values (completion/complete), reads and attaches the URI', async () => {
  const { context, page, errors } = await openPage({ servers: ['modern'] });
  try {
    // The server card's "Resources" button opens the browser for that server.
    await page.click('button[aria-label="Settings"]');
    await page.getByRole('tab', { name: 'MCP servers' }).click();
    await page.locator('li.mcp-server[data-server-name="modern"] .mcp-browse').click();
    await dialog(page).waitFor({ timeout: WAIT_MS });
    assert.equal(await dialog(page).locator('#res-server').inputValue(), 'modern');
    await dialog(page).locator('.res-template', { hasText: 'greeting' }).click();
    const input = dialog(page).locator('.res-form input[name="name"]');
    await input.waitFor({ timeout: WAIT_MS });
    // Read with nothing typed: the field says it is required, nothing is read.
    await dialog(page).locator('.res-read').click();
    await dialog(page).locator('.res-field .res-error', { hasText: 'name is required.' }).waitFor({ timeout: WAIT_MS });
    assert.equal(await input.getAttribute('aria-invalid'), 'true');
    await input.pressSequentially('A', { delay: 30 });
    await page.waitForFunction(() => {
      const list = document.querySelector('.res-form datalist');
      return list && [...list.options].map((o) => o.value).join(',') === 'Ada,Alan';
    }, null, { timeout: WAIT_MS });
    await input.fill('Ada');
    await dialog(page).locator('.res-read').click();
    const pane = dialog(page).locator('#res-pane');
    await pane.locator('.res-text', { hasText: 'Hello, Ada!' }).waitFor({ timeout: WAIT_MS });
    assert.match(await pane.locator('.res-uri').innerText(), /skiff:\/\/greeting\/Ada/);
    await pane.locator('[data-act="attach"]').click();
    await chips(page).first().waitFor({ timeout: WAIT_MS });
    await page.keyboard.press('Escape');
    await page.keyboard.press('Escape'); // Settings
    await page.waitForSelector(TEXTAREA, { timeout: WAIT_MS });
    await sendAndWait(page, 'Greet back');
    assert.ok((await lastUserText()).includes('Hello, Ada!'));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

/** Settings → MCP servers → `server`'s tool `tool`, called through its "try" form (the page's
 * own session, as a user would), then Settings closes. */
async function callTool(page, server, tool, args = {}) {
  await page.click('button[aria-label="Settings"]');
  await page.getByRole('tab', { name: 'MCP servers' }).click();
  const row = page.locator(`li.mcp-server[data-server-name="${server}"]`);
  await page.waitForFunction((id) => document.querySelector(`li.mcp-server[data-server-name="${id}"]`)?.dataset.status === 'connected', server, { timeout: WAIT_MS });
  await row.waitFor(); // the MCP tab is its own chunk: its rows come a moment after the click
  if (!(await row.locator('ul.mcp-tools').count())) await row.locator('.mcp-toggle-tools').click();
  const li = row.locator(`li.mcp-tool[data-tool="${tool}"]`);
  await li.waitFor({ timeout: WAIT_MS });
  if (!(await li.locator('.mcp-try-args').isVisible())) await li.locator('summary').click();
  await li.locator('.mcp-try-args').fill(JSON.stringify(args));
  await li.locator('.mcp-try-call').click();
  await li.locator('.mcp-try-result, .mcp-try-error').first().waitFor({ timeout: WAIT_MS });
  await page.keyboard.press('Escape');
  await page.locator('.modal-backdrop').waitFor({ state: 'detached', timeout: WAIT_MS });
}

/** server-everything sends `notifications/resources/updated` every 5 s to subscribed
 * sessions once its `toggle-subscriber-updates` tool has been called in that session. */
const startUpdates = (page) => callTool(page, 'everything', 'toggle-subscriber-updates');

/** Every notice dismissed, as the user would (only later ones count after this). */
async function dismissNotices(page) {
  await page.evaluate(() => document.querySelectorAll('.notice button[aria-label="Dismiss"]').forEach((b) => b.click()));
  await page.waitForFunction(() => !document.querySelector('.notice'), null, { timeout: WAIT_MS });
}

// The page's own flag, while subscriptions must resume after a reload.
const RESUME = 'skiff.mcp.subscribed';

test('c. subscribe: an update is read again and shown; after a reload the page resubscribes by itself', async () => {
  const { context, page, errors } = await openPage();
  try {
    await browse(page);
    await openResource(page, 'architecture.md');
    const pane = dialog(page).locator('#res-pane');
    await pane.locator('[data-act="subscribe"]').click();
    await pane.locator('[data-act="unsubscribe"]').waitFor({ timeout: WAIT_MS });
    assert.equal(await page.evaluate((k) => localStorage.getItem(k), RESUME), '1', 'resume flag while subscribed');
    await page.keyboard.press('Escape');
    await startUpdates(page);
    // The browser is closed: the update is a notice.
    await page.locator('.notice', { hasText: 'architecture.md was updated; its content is the same.' }).first().waitFor({ timeout: WAIT_MS });
    // Open on the resource: the next update shows in its pane instead.
    await browse(page);
    await openResource(page, 'architecture.md');
    await dismissNotices(page);
    await pane.locator('.res-note', { hasText: 'architecture.md was updated; its content is the same.' }).waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator('.notice', { hasText: 'architecture.md was updated' }).count(), 0, 'not a notice as well');
    await page.keyboard.press('Escape');

    // Reload: nothing opens a resource surface, yet the page resumes and subscribes again in
    // the new session.
    await page.reload();
    await page.waitForSelector(TEXTAREA, { timeout: WAIT_MS });
    await waitConnected(page, ['everything']);
    // The resume's resubscribe may race the connection; the reconnect repeats it.
    await page.waitForTimeout(1000);
    await startUpdates(page);
    await page.locator('.notice', { hasText: 'architecture.md was updated' }).first().waitFor({ timeout: WAIT_MS });

    // The server restarts (a fresh process: no subscription survives it). The page reconnects
    // and subscribes again.
    await everything.restart();
    await page.waitForTimeout(1500);
    await waitConnected(page, ['everything']);
    await page.waitForTimeout(1000);
    // Only a notice from after the restart counts.
    await dismissNotices(page);
    await startUpdates(page);
    await page.locator('.notice', { hasText: 'architecture.md was updated' }).first().waitFor({ timeout: WAIT_MS });

    // Unsubscribe: the resume flag goes.
    await browse(page);
    await openResource(page, 'architecture.md');
    await dialog(page).locator('[data-act="unsubscribe"]').click();
    await dialog(page).locator('[data-act="subscribe"]').waitFor({ timeout: WAIT_MS });
    assert.equal(await page.evaluate((k) => localStorage.getItem(k), RESUME), null);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

// What an update of skiff://counter shows (`res_ui::change_summary`).
const CHANGED = /^counter (changed|was updated)/;

/** `bump` on the modern server: skiff://counter changes and its listen streams are told. */
const bump = (page) => callTool(page, 'modern', 'bump');

test('c2. subscribe on a modern-era server: the listen filter carries it, across a reload and a restart', async () => {
  // A server of its own: `bump` is a flag (other suites count the default tools), and this
  // test restarts it.
  const own = await startServer('modern', { extraArgs: ['--bump-tool'] });
  const { context, page, errors } = await openPage({ servers: ['modern'], urls: { modern: own.url } });
  try {
    await browse(page);
    await openResource(page, 'counter');
    const pane = dialog(page).locator('#res-pane');
    await pane.locator('pre', { hasText: 'count: 0' }).waitFor({ timeout: WAIT_MS });
    await pane.locator('[data-act="subscribe"]').click();
    await pane.locator('[data-act="unsubscribe"]').waitFor({ timeout: WAIT_MS });
    await pane.locator('.res-note', { hasText: 'Subscribed' }).waitFor({ timeout: WAIT_MS });
    assert.equal(await page.evaluate((k) => localStorage.getItem(k), RESUME), '1', 'resume flag while subscribed');
    await page.keyboard.press('Escape');
    await bump(page);
    // Read again: what changed is said, and the new content is what the browser shows.
    await page.locator('.notice', { hasText: CHANGED }).first().waitFor({ timeout: WAIT_MS });
    // Worded as a sentence (issue 32 item 3: "changed from line 1: 62 → 62 characters").
    assert.match(await page.locator('.notice', { hasText: CHANGED }).first().innerText(), /^counter changed from line 1 on; it is (now \d+ characters? long \(was \d+\)|the same length \(\d+ characters?\))\.$/m);
    // Another change of the same resource replaces its notice; the notice stays clear of the
    // message box and Send, and can be dismissed.
    await bump(page);
    await page.waitForTimeout(1500);
    assert.equal(await page.locator('.notice', { hasText: CHANGED }).count(), 1, 'one notice per resource');
    const clear = await page.evaluate(() => {
      const box = (el) => el.getBoundingClientRect();
      const n = box(document.querySelector('.notices'));
      return [...document.querySelectorAll('form.composer, form.composer button[type="submit"]')].every((el) => {
        const c = box(el);
        return n.bottom <= c.top || n.top >= c.bottom || n.right <= c.left || n.left >= c.right;
      });
    });
    assert.ok(clear, 'the notices do not cover the composer');
    await page.locator('.notice', { hasText: CHANGED }).getByRole('button', { name: 'Dismiss' }).click();
    await page.locator('.notice', { hasText: CHANGED }).waitFor({ state: 'detached', timeout: WAIT_MS });
    await browse(page);
    await openResource(page, 'counter');
    await pane.locator('pre', { hasText: 'count: 2' }).waitFor({ timeout: WAIT_MS });
    await page.keyboard.press('Escape');

    // Reload: the page resumes by itself and asks for the counter in a new listen filter.
    await page.reload();
    await page.waitForSelector(TEXTAREA, { timeout: WAIT_MS });
    await waitConnected(page, ['modern']);
    await page.waitForTimeout(1000);
    await dismissNotices(page);
    await bump(page);
    await page.locator('.notice', { hasText: CHANGED }).first().waitFor({ timeout: WAIT_MS });

    // A restart (a fresh process: no listen stream survives it): the page reconnects and the
    // new session's first listen stream carries the counter again.
    await own.restart();
    await page.waitForTimeout(1500);
    await waitConnected(page, ['modern']);
    await page.waitForTimeout(1000);
    await dismissNotices(page);
    await bump(page);
    await page.locator('.notice', { hasText: CHANGED }).first().waitFor({ timeout: WAIT_MS });

    // Unsubscribe: no more updates are shown, and the resume flag goes.
    await browse(page);
    await openResource(page, 'counter');
    await dialog(page).locator('[data-act="unsubscribe"]').click();
    await dialog(page).locator('[data-act="subscribe"]').waitFor({ timeout: WAIT_MS });
    assert.equal(await page.evaluate((k) => localStorage.getItem(k), RESUME), null);
    await page.keyboard.press('Escape');
    await dismissNotices(page);
    await bump(page);
    await page.waitForTimeout(1500);
    assert.equal(await page.locator('.notice', { hasText: CHANGED }).count(), 0, 'no update after unsubscribing');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await own.stop();
  }
});

test('d. the @ picker: arrows and Enter attach a resource and remove the @query', async () => {
  const { context, page, errors } = await openPage({ servers: ['everything', 'modern'] });
  try {
    await page.click(TEXTAREA);
    await page.keyboard.type('Please read @feat', { delay: 20 });
    const picker = page.locator('#res-picker');
    await picker.locator('[role="option"]').first().waitFor({ timeout: WAIT_MS });
    assert.match(await picker.locator('[role="option"][aria-selected="true"]').innerText(), /features\.md/);
    // Wider query: both servers' resources; arrows move, Escape closes without sending.
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('re', { delay: 20 });
    await page.waitForFunction(() => document.querySelectorAll('#res-picker [role="option"]').length >= 2, null, { timeout: WAIT_MS });
    await screenshot(page, 'resources-picker').catch(() => {});
    assert.deepEqual(await axe(page, '#res-picker'), [], 'axe on the picker');
    const first = await picker.locator('[aria-selected="true"]').innerText();
    await page.keyboard.press('ArrowDown');
    assert.notEqual(await picker.locator('[aria-selected="true"]').innerText(), first);
    await page.keyboard.press('ArrowUp');
    assert.equal(await picker.locator('[aria-selected="true"]').innerText(), first);
    await page.keyboard.type('adme', { delay: 20 });
    await page.waitForFunction(() => /readme/.test(document.querySelector('#res-picker [aria-selected="true"]')?.textContent ?? ''), null, { timeout: WAIT_MS });
    await page.keyboard.press('Enter');
    await picker.waitFor({ state: 'detached', timeout: WAIT_MS });
    await chips(page).filter({ hasText: 'readme' }).waitFor({ timeout: WAIT_MS });
    assert.equal(await page.inputValue(TEXTAREA), 'Please read ', 'the @query is gone, nothing was sent');
    assert.equal((await api.requests()).filter((r) => r.path.includes('/chat/completions')).length, 0);
    await page.keyboard.type('it.');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('article.message-assistant')?.dataset.status === 'done', null, { timeout: WAIT_MS });
    const sent = await lastUserText();
    assert.ok(sent.includes('Skiff modern test server: a fixed resource.'), sent);
    assert.ok(sent.includes('Please read it.'));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('e. a reload keeps the cache; a killed server leaves the copy usable, marked stale, and attachable', async () => {
  const own = await startServer('everything-http');
  const saved = everything;
  everything = own; // this test kills its own server
  const { context, page, errors } = await openPage();
  try {
    await browse(page);
    await openResource(page, 'architecture.md');
    const firstLine = (await dialog(page).locator('.res-text').innerText()).trim().split('\n')[0];
    await page.keyboard.press('Escape');

    await page.reload();
    await page.waitForSelector(TEXTAREA, { timeout: WAIT_MS });
    await own.kill('SIGKILL');
    await browse(page);
    await dialog(page).locator('.res-offline').first().waitFor({ timeout: WAIT_MS });
    // A resource never read cannot be opened while its server is down.
    assert.equal(await dialog(page).locator('.res-item', { hasText: 'features.md' }).isDisabled(), true);
    await openResource(page, 'architecture.md');
    const pane = dialog(page).locator('#res-pane');
    await pane.locator('.res-fresh', { hasText: 'is offline: this is the copy read' }).waitFor({ timeout: WAIT_MS });
    assert.equal((await pane.locator('.res-text').innerText()).trim().split('\n')[0], firstLine);
    assert.equal(await pane.locator('[data-act="subscribe"]').count(), 0, 'no Subscribe while offline');
    assert.equal(await pane.locator('[data-act="reload"]').count(), 0, 'no Read again while offline');
    await pane.locator('[data-act="attach"]').click();
    await chips(page).filter({ hasText: 'architecture.md' }).waitFor({ timeout: WAIT_MS });
    await page.keyboard.press('Escape');
    // The @ picker offers the kept copy too, marked offline.
    await page.click(TEXTAREA);
    await page.keyboard.type('@arch', { delay: 20 });
    await page.locator('#res-picker [role="option"]', { hasText: 'offline, cached copy' }).waitFor({ timeout: WAIT_MS });
    await page.keyboard.press('Escape');
    await page.locator('#res-picker').waitFor({ state: 'detached', timeout: WAIT_MS });
    await sendAndWait(page, 'Still there?');
    assert.ok((await lastUserText()).includes(firstLine), 'the stale copy was sent');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    everything = saved;
    await own.stop();
  }
});

// The composer's pending attachments live in a signal (src/ui/composer.rs), not in storage:
// the page side, not this module. Runs, and reports, until the page keeps them.
test('e2. a pending attachment survives a reload', async () => {
  const { context, page } = await openPage();
  try {
    await browse(page);
    await openResource(page, 'architecture.md');
    await dialog(page).locator('[data-act="attach"]').click();
    await chips(page).filter({ hasText: 'architecture.md' }).waitFor({ timeout: WAIT_MS });
    await page.keyboard.press('Escape');
    await page.reload();
    await page.waitForSelector(TEXTAREA, { timeout: WAIT_MS });
    await chips(page).filter({ hasText: 'architecture.md' }).waitFor({ timeout: 5000 });
    // Its bytes come back from the blob store by hash: the model reads the resource.
    await sendAndWait(page, 'What does it say?');
    const sent = await lastUserText();
    assert.match(sent, /architecture\.md/, sent.slice(0, 300));
    assert.ok(sent.length > 'What does it say?'.length + 40, `the resource's text went with it: ${sent.slice(0, 300)}`);
    assert.equal(await chips(page).count(), 0, 'sent, so no longer pending');
    await page.reload();
    await page.waitForSelector(TEXTAREA, { timeout: WAIT_MS });
    assert.equal(await chips(page).count(), 0, 'and not back after a reload');
  } finally {
    await context.close();
  }
});

test('f. the modern-era server: an image preview, pretty JSON and a text resource', async () => {
  const { context, page, errors } = await openPage({ servers: ['modern'], width: 375 });
  try {
    await browse(page);
    // 375 px: list and preview one at a time.
    await openResource(page, 'logo.png');
    const pane = dialog(page).locator('#res-pane');
    const img = pane.locator('img.res-img');
    await img.waitFor({ timeout: WAIT_MS });
    assert.match(await img.getAttribute('src'), /^data:image\/png;base64,iVBOR/);
    assert.ok(await page.evaluate(() => document.querySelector('img.res-img').naturalWidth === 4), 'the PNG decodes');
    assert.equal(await dialog(page).locator('#res-list').isVisible(), false, 'the list steps aside at 375 px');
    const box = await dialog(page).boundingBox();
    assert.ok(box.width <= 375, `the dialog fits (${box.width})`);
    await screenshot(page, 'resources-375').catch(() => {});
    await pane.locator('[data-act="back"]').click();
    await openResource(page, 'config.json');
    // Pretty-printed (keys in serde_json's order), not the server's one line.
    assert.match(await pane.locator('.res-text').innerText(), /^\{\n {2}"regions": \[\n {4}"eu",/);
    assert.match(await pane.locator('.res-text').innerText(), /\n {2}"theme": "dark"\n\}$/);
    await pane.locator('[data-act="back"]').click();
    await openResource(page, 'readme');
    await pane.locator('[data-act="attach"]').click();
    await chips(page).filter({ hasText: 'readme' }).waitFor({ timeout: WAIT_MS });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('g. a corrupt stored value is never overwritten and says so; Start afresh replaces it', async () => {
  const { context, page, errors } = await openPage({ seed: { 'skiff.extras.resources': '{"v":1,"subs":"oops"' } });
  try {
    await browse(page);
    const alert = dialog(page).locator('.res-locked[role="alert"]');
    await alert.waitFor({ timeout: WAIT_MS });
    assert.match(await alert.innerText(), /could not read its saved MCP resources/);
    await openResource(page, 'architecture.md');
    assert.equal(await page.evaluate(() => localStorage.getItem('skiff.extras.resources')), '{"v":1,"subs":"oops"', 'kept as it was');
    await dialog(page).locator('[data-act="reset"]').click();
    await alert.waitFor({ state: 'detached', timeout: WAIT_MS });
    assert.equal(JSON.parse(await page.evaluate(() => localStorage.getItem('skiff.extras.resources'))).v, 1);
    assert.equal(await page.evaluate(() => localStorage.getItem('skiff.extras.resources.bad')), '{"v":1,"subs":"oops"', 'set aside');
    assert.match(await dialog(page).locator('#res-notice').innerText(), /damaged value is kept under “skiff\.extras\.resources\.bad”/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
