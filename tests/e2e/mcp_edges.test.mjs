// End-to-end: two MCP rough edges of issue 32, against real servers (server-everything over
// Streamable HTTP) stopped, killed and restarted under the page.
//
// - A frozen server (SIGSTOP: its sockets stay open, so nothing fails and nothing answers) is
//   noticed within the ping interval plus the ping's own timeout, and said to be "not
//   answering" (it took 77 s with the defaults: the ping waited the request timeout).
// - A tool call can never run twice: the server dies mid-call and a new one serves the same
//   port within a second; the page resumes the call's stream and the new server refuses the
//   session it never knew. That refusal of the *resume* must fail the call ("Skiff did not
//   send it again"), not send it again as a refusal of the call itself would allow.
//
// - A URL step the server asked for during a tool call goes from the tray once that call has its
//   answer (the server went on; server-everything never sends elicitation/complete).
// - A resource link in a tool's result opens in the resource browser, is read there and can be
//   attached from there.
//
// Needs: scripts/build.sh (dist/, or SKIFF_DIST) and scripts/setup-mcp.sh (server-everything).
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import {
  startOpenAiServer, startStaticServer, launchBrowser, screenshot, collectConsoleErrors,
  rustConst, requireServerEverything,
} from './harness.mjs';
import { startServer } from '../servers/mcp/servers.mjs';

const MODEL = 'skiff-edges-model';
const SERVERS_VERSION = rustConst('src/core/mcp/config.rs', 'SERVERS_VERSION');
// Chromium logs refused and broken fetches itself (the servers are stopped and killed on
// purpose); a panic or an uncaught exception never is expected.
const FATAL = /panicked|RuntimeError|unreachable executed|uncaught|CSP violation/i;

let api, site, browser;

before(async () => {
  requireServerEverything();
  api = await startOpenAiServer({ models: [MODEL] });
  site = await startStaticServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await site?.stop();
  await api?.stop();
});

beforeEach(async () => {
  await api.reset();
});

/** A context with the provider and one MCP server seeded; `server` fields go on top. */
async function openPage(mcpUrl, server = {}) {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const settings = JSON.stringify({
    v: 1,
    data: {
      base_url: `${api.url}/v1`, api_key: '', model: MODEL, system_prompt: '', theme: 'system',
      auto_title: false, tool_mode: 'native', approvals: { rules: {}, allow_read_only: false },
    },
  });
  const servers = JSON.stringify({
    v: SERVERS_VERSION,
    data: { servers: [{ id: 'everything', name: 'Everything', url: mcpUrl, transport: 'auto', headers: [], enabled: true, ...server }] },
  });
  await context.addInitScript(([s, m]) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    if (!localStorage.getItem('skiff:mcp-servers')) localStorage.setItem('skiff:mcp-servers', m);
  }, [settings, servers]);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  const wire = [];
  page.on('request', (req) => wire.push({ method: req.method(), url: req.url(), body: req.postData() ?? '' }));
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]');
  return { context, page, errors, wire };
}

/**
 * A pass-through proxy on 127.0.0.1 in front of `port` that can hold back one kind of answer:
 * while `hold(req)` is true for a request, its answer's head is passed on `ms` later. A broken
 * upstream breaks the answer downstream, as the server's own death would. It lets a test pick
 * which of two answers the page reads first, where the real order is a race.
 */
async function holdingProxy(port, ms) {
  const proxy = { hold: () => false };
  const server = http.createServer((req, res) => {
    const wait = proxy.hold(req) ? ms : 0;
    if (process.env.DEBUG_PROXY) console.error('proxy', Date.now() % 100000, req.method, req.headers['last-event-id'] ?? '-', req.headers['mcp-session-id'] ?? '-', wait);
    const up = http.request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      setTimeout(() => {
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
        answer.on('close', () => { if (!answer.complete) res.destroy(); });
      }, wait);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
    res.on('close', () => up.destroy());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${server.address().port}/mcp`;
  proxy.stop = () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return proxy;
}

/** Waits until the header counts the server's tools (it is connected and listed). */
async function waitConnected(page) {
  await page.waitForFunction(
    () => Number((document.querySelector('.tool-picker-toggle')?.innerText || '').replace(/\D+/g, '')) > 5,
    null,
    { timeout: 20_000 },
  );
}

test('a frozen server is said to be not answering within the ping interval and its timeout', async () => {
  const srv = await startServer('everything-http');
  const { context, page, errors } = await openPage(srv.url, { ping_interval_ms: 2_000, request_timeout_ms: 60_000 });
  try {
    await waitConnected(page);
    process.kill(srv.pid, 'SIGSTOP');
    const stoppedAt = Date.now();
    // Outside Settings: the header's badge and a notice that says why.
    await page.locator('.mcp-down').waitFor({ timeout: 20_000 });
    const noticedMs = Date.now() - stoppedAt;
    await page.locator('.notice-text', { hasText: 'not answering' }).waitFor({ timeout: 2_000 });
    // 2 s to the next ping, 10 s for its answer, and slack for a busy machine; the request
    // timeout (60 s) plays no part.
    assert.ok(noticedMs < 16_000, `noticed ${noticedMs} ms after the server froze`);
    await screenshot(page, 'mcp-edges-not-answering');
    // Thawed, it comes back on the reconnect schedule.
    process.kill(srv.pid, 'SIGCONT');
    await page.locator('.mcp-down').waitFor({ state: 'detached', timeout: 45_000 });
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } finally {
    try { process.kill(srv.pid, 'SIGCONT'); } catch { /* gone */ }
    await context.close();
    await srv.stop();
  }
});

test('a tool call whose server restarts mid-call runs once: the refused resume fails it, it is not sent again', async () => {
  const srv = await startServer('everything-http');
  // Which refusal the page reads first is a race the bug lost about one run in three: the
  // notification stream's resume (no Last-Event-ID) is held back, so the call's resume is
  // refused first, the order that sent the call again.
  const proxy = await holdingProxy(srv.port, 600);
  const { context, page, errors, wire } = await openPage(proxy.url);
  try {
    await waitConnected(page);
    const callId = 'call-long-1';
    await api.script([
      { tool_calls: [{ id: callId, name: 'trigger-long-running-operation', arguments: { duration: 20, steps: 20 } }] },
      { reply: 'The model read the result.' },
    ]);
    await page.fill('textarea[aria-label="Message"]', 'Run the long operation');
    await page.keyboard.press('Enter');
    const card = page.locator(`details.tool-card[data-call-id="${callId}"]`);
    await page.waitForFunction((id) => document.querySelector(`details.tool-card[data-call-id="${id}"]`)?.dataset.status === 'awaiting_approval', callId, { timeout: 20_000 });
    if (!(await card.locator('.tool-approval').first().isVisible())) await card.locator('summary').first().click();
    await card.locator('button.approve-once').click();
    await page.waitForFunction((id) => document.querySelector(`details.tool-card[data-call-id="${id}"]`)?.dataset.status === 'running', callId, { timeout: 10_000 });
    // About 3 s in (three progress events on the call's stream), the server dies and a new
    // one serves the same port at once.
    await page.waitForTimeout(3_000);
    proxy.hold = (req) => req.method === 'GET' && !req.headers['last-event-id'];
    await srv.restart();
    await page.waitForFunction(
      (id) => ['error', 'done', 'cancelled'].includes(document.querySelector(`details.tool-card[data-call-id="${id}"]`)?.dataset.status),
      callId,
      { timeout: 40_000 },
    );
    const calls = wire.filter((r) => r.method === 'POST' && r.body.includes('"tools/call"') && r.body.includes('trigger-long-running-operation'));
    assert.equal(calls.length, 1, 'tools/call went out once');
    assert.equal(await card.getAttribute('data-status'), 'error');
    if (!(await card.evaluate((d) => d.open))) await card.locator('summary').first().click();
    if (process.env.DEBUG_PROXY) console.error('card', await card.innerText());
    assert.match(await card.innerText(), /did not send it again/);
    await screenshot(page, 'mcp-edges-restart-mid-call');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } finally {
    await context.close();
    await proxy.stop();
    await srv.stop();
  }
});

test('a call refused for a URL step (-32042) shows the step as a card and is made again, once, when the user finished it', async () => {
  const srv = await startServer('everything-http');
  const { context, page, errors, wire } = await openPage(srv.url);
  // server-everything's prerequisite link: stood in for, nothing leaves the machine.
  await context.route('https://modelcontextprotocol.io/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<p>Prerequisite</p>' }));
  const toolCalls = () => wire.filter((r) => r.method === 'POST' && r.body.includes('"tools/call"') && r.body.includes('trigger-url-elicitation')).length;
  const approve = async (callId) => {
    const card = page.locator(`details.tool-card[data-call-id="${callId}"]`);
    await page.waitForFunction((id) => document.querySelector(`details.tool-card[data-call-id="${id}"]`)?.dataset.status === 'awaiting_approval', callId, { timeout: 20_000 });
    if (!(await card.locator('.tool-approval').first().isVisible())) await card.locator('summary').first().click();
    await card.locator('button.approve-once').click();
    return card;
  };
  try {
    await waitConnected(page);
    const target = `${site.url}/?signed-in=1`;
    await api.script([
      { tool_calls: [{ id: 'call-url-1', name: 'trigger-url-elicitation', arguments: { url: target, message: 'Finish signing in', errorPath: true } }] },
      { reply: 'The model read the result.' },
    ]);
    await page.fill('textarea[aria-label="Message"]', 'Do the thing that needs a sign-in');
    await page.keyboard.press('Enter');
    const tool = await approve('call-url-1');
    // The refusal's step, as a URL card: where it goes, nothing opened yet.
    const step = page.locator('.elicit-tray .elicit-card[data-mode="url"]');
    await step.waitFor({ timeout: 20_000 });
    assert.equal(await step.locator('.elicit-domain').innerText(), 'modelcontextprotocol.io');
    assert.equal(toolCalls(), 1);
    assert.equal(context.pages().length, 1, 'nothing opened before Open');
    await screenshot(page, 'mcp-edges-url-required');
    let opened = context.waitForEvent('page', { timeout: 20_000 });
    await step.locator('button.elicit-accept').click();
    await (await opened).close();
    await step.locator('.elicit-waiting', { hasText: 'run the tool again' }).waitFor({ timeout: 20_000 });
    assert.equal(toolCalls(), 1, 'not made again before the user finished');
    // Finished there: the call goes again, once, and this time asks for its own link.
    await step.locator('button.elicit-dismiss').click();
    const held = page.locator('.elicit-tray .elicit-card[data-mode="url"]', { hasText: 'Finish signing in' });
    await held.waitFor({ timeout: 20_000 });
    assert.equal(toolCalls(), 2, 'made again once');
    opened = context.waitForEvent('page', { timeout: 20_000 });
    await held.locator('button.elicit-accept').click();
    await (await opened).close();
    await page.waitForFunction(() => document.querySelector('details.tool-card[data-call-id="call-url-1"]')?.dataset.status === 'done', null, { timeout: 20_000 });
    if (!(await tool.evaluate((d) => d.open))) await tool.locator('summary').first().click();
    assert.match(await tool.innerText(), /User completed the URL elicitation flow/);
    await page.locator('article.message-assistant .markdown', { hasText: 'The model read the result.' }).waitFor({ timeout: 20_000 });
    assert.equal(toolCalls(), 2);
    // server-everything never says the linked step finished, but the call it came with has its
    // answer: the server went on, so the card that said it "will continue" goes by itself.
    await held.waitFor({ state: 'detached', timeout: 20_000 });
    assert.equal(await page.locator('.elicit-tray .elicit-card').count(), 0, 'no finished card lingers');

    // Declined: the refusal stands and the call is not made again.
    await api.script([
      { tool_calls: [{ id: 'call-url-2', name: 'trigger-url-elicitation', arguments: { url: `${target}&again=1`, message: 'Again', errorPath: true } }] },
      { reply: 'The model read the refusal.' },
    ]);
    await page.fill('textarea[aria-label="Message"]', 'Once more');
    await page.keyboard.press('Enter');
    await approve('call-url-2');
    const second = page.locator('.elicit-tray .elicit-card[data-mode="url"]');
    await second.waitFor({ timeout: 20_000 });
    await second.locator('button.elicit-decline').click();
    await page.waitForFunction(() => document.querySelector('details.tool-card[data-call-id="call-url-2"]')?.dataset.status === 'error', null, { timeout: 20_000 });
    assert.equal(toolCalls(), 3, 'the declined call went out once');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'mcp-edges-url-required-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
    await srv.stop();
  }
});

test('a resource link in a tool\'s result opens in the resource browser: read there, and attached from there', async () => {
  const srv = await startServer('everything-http');
  const { page, errors, context } = await openPage(srv.url);
  try {
    await waitConnected(page);
    await api.script([
      { tool_calls: [{ id: 'call-links', name: 'get-resource-links', arguments: { count: 2 } }] },
      { reply: 'Two links.' },
    ]);
    await page.fill('textarea[aria-label="Message"]', 'Give me two resource links');
    await page.keyboard.press('Enter');
    const card = page.locator('details.tool-card[data-call-id="call-links"]');
    await page.waitForFunction(() => document.querySelector('details.tool-card[data-call-id="call-links"]')?.dataset.status === 'awaiting_approval', null, { timeout: 20_000 });
    if (!(await card.locator('.tool-approval').first().isVisible())) await card.locator('summary').first().click();
    await card.locator('button.approve-once').click();
    await page.waitForFunction(() => document.querySelector('details.tool-card[data-call-id="call-links"]')?.dataset.status === 'done', null, { timeout: 20_000 });
    if (!(await card.evaluate((d) => d.open))) await card.locator('summary').first().click();
    // Resource 2 is text (server-everything: even ids are text, odd ones blobs).
    const link = card.locator('.tool-part-resource-link', { hasText: 'Text Resource 2' });
    await link.waitFor({ timeout: 20_000 });
    await link.scrollIntoViewIfNeeded();
    await screenshot(page, 'mcp-edges-resource-link-card');
    await link.locator('button.tool-part-open').click();
    const dialog = page.locator('.res-dialog');
    await dialog.waitFor({ timeout: 20_000 });
    const pane = dialog.locator('#res-pane');
    await pane.locator('.res-uri code', { hasText: '/2' }).waitFor({ timeout: 20_000 });
    await pane.locator('.res-text', { hasText: 'Resource 2: This is a plaintext resource' }).waitFor({ timeout: 20_000 });
    assert.equal(await page.locator('#res-server').inputValue(), 'everything', 'the list is the answering server\'s');
    await screenshot(page, 'mcp-edges-resource-link');
    await pane.locator('[data-act="attach"]').click();
    await pane.locator('.res-note', { hasText: 'Attached' }).waitFor({ timeout: 20_000 });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached', timeout: 20_000 });
    await page.locator('form.composer .attachment').first().waitFor({ timeout: 20_000 });
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'mcp-edges-resource-link-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
    await srv.stop();
  }
});
