// End-to-end: MCP tasks (2025-11-25 "tasks" utility). server-everything's
// `simulate-research-query` declares `execution.taskSupport: "required"`; the model (the
// scripted tests/servers/openai_compat.py) asks for it, and Skiff must call it as a task
// (task-augmented `tools/call`), show the task's status on the card, poll `tasks/get`, fetch
// `tasks/result` once it is done and hand the report to the model; Stop must cancel the task
// (`tasks/cancel`); a reload while it runs must take up the same MCP session (kept in the
// tab's sessionStorage, no DELETE on the way out), follow the same task there to its result,
// and never call the tool a second time; a server that does not know the kept session gets a
// new one, and the card says the task is out of reach and the call was not sent again.
//
// What it must never do: listen on anything but 127.0.0.1, wait without a bound (every wait
// here is ≤ 20 s), or hard-code what the server computes (the report is read from its answer).
//
// Needs: scripts/build.sh (dist/, or SKIFF_DIST) and scripts/setup-mcp.sh (server-everything).

import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  startOpenAiServer, startStaticServer, launchBrowser, screenshot, collectConsoleErrors, distDir,
  rustConst, requireServerEverything,
} from './harness.mjs';
import { startServer } from '../servers/mcp/servers.mjs';

const WAIT_MS = 20_000;
const MODEL = 'skiff-tasks-model';
const SERVER_ID = 'everything';
const TOOL = 'simulate-research-query';
const SERVERS_VERSION = rustConst('src/core/mcp/config.rs', 'SERVERS_VERSION');
const FATAL = /panicked|RuntimeError|unreachable executed|uncaught|CSP violation/i;

let api, site, browser, mcp;

before(async () => {
  assert.ok(existsSync(path.join(distDir(), 'index.html')), `no build in ${distDir()}: run scripts/build.sh first`);
  requireServerEverything();
  api = await startOpenAiServer({ models: [MODEL] });
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

beforeEach(async () => {
  await api.reset();
});

function settingsEnvelope() {
  return JSON.stringify({
    v: 1,
    data: {
      base_url: `${api.url}/v1`, auto_title: false, api_key: '', model: MODEL, system_prompt: '',
      theme: 'system', tool_mode: 'native', step_limit: 15, result_char_limit: 16000,
      tool_images_to_model: false,
      // The research tool is not read-only: a remembered "always" lets it run unasked.
      approvals: { rules: { [`${SERVER_ID}\u001f${TOOL}`]: 'always' }, allow_read_only: false },
      learned_tool_modes: {},
    },
  });
}

async function openPage() {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const servers = JSON.stringify({
    v: SERVERS_VERSION,
    data: { servers: [{ id: SERVER_ID, name: SERVER_ID, url: mcp.url, transport: 'auto', headers: [], enabled: true }] },
  });
  await context.addInitScript(([s, m]) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    if (!localStorage.getItem('skiff:mcp-servers')) localStorage.setItem('skiff:mcp-servers', m);
  }, [settingsEnvelope(), servers]);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  const wire = [];
  page.on('request', (req) => wire.push({
    t: Date.now(), method: req.method(), url: req.url(), body: req.postData() ?? '', sid: req.headers()['mcp-session-id'],
    type: req.resourceType(),
  }));
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]', { timeout: WAIT_MS });
  return { context, page, errors, wire };
}

/** JSON-RPC messages the page posted to server-everything, in order. */
function mcpSent(wire) {
  const origin = new URL(mcp.url).origin;
  const out = [];
  for (const r of wire) {
    if (!r.url.startsWith(origin) || !r.body) continue;
    try {
      const m = JSON.parse(r.body);
      for (const one of Array.isArray(m) ? m : [m]) out.push(one);
    } catch { /* not JSON */ }
  }
  return out;
}
const sent = (wire, method) => mcpSent(wire).filter((m) => m.method === method);

/** Waits until the research tool is offered (its server announced tasks and listed it). */
async function waitForResearchTool(page) {
  await page.waitForFunction(
    () => Number((document.querySelector('.tool-picker-toggle')?.innerText || '').replace(/\D+/g, '')) >= 13,
    null,
    { timeout: WAIT_MS },
  );
  await page.waitForTimeout(500);
}

async function send(page, text) {
  await page.fill('textarea[aria-label="Message"]', text);
  await page.keyboard.press('Enter');
}

const card = (page, id) => page.locator(`details.tool-card[data-call-id="${id}"]`);

async function waitCard(page, id, statuses) {
  const want = Array.isArray(statuses) ? statuses : [statuses];
  try {
    await page.waitForFunction(([i, s]) => s.includes(document.querySelector(`details.tool-card[data-call-id="${i}"]`)?.dataset.status), [id, want], { timeout: WAIT_MS });
  } catch (err) {
    const cards = await page.evaluate(() => [...document.querySelectorAll('details.tool-card')].map((d) => d.outerHTML.slice(0, 600)));
    throw new Error(`card ${id} never became ${want.join('|')}: ${JSON.stringify(cards)}`, { cause: err });
  }
}

/** Waits (bounded) until `check(wire)` holds. */
async function waitWire(page, wire, check, what) {
  const t0 = Date.now();
  while (!check(wire)) {
    if (Date.now() - t0 > WAIT_MS) throw new Error(`never seen on the wire: ${what}; sent: ${JSON.stringify(mcpSent(wire).map((m) => [m.method, m.params?.taskId ?? m.params?.task]))}`);
    await page.waitForTimeout(100);
  }
}

function createdTaskId(wire) {
  // The page's first tasks/get (or tasks/result, when a status notification said the task was
  // done before the first poll) names the task the server created.
  return mcpSent(wire).find((m) => m.method === 'tasks/get' || m.method === 'tasks/result')?.params?.taskId;
}

test('a. a task tool runs as a task: status on its card, tasks/get polled, tasks/result fetched once, the report goes to the model', async () => {
  const { context, page, errors, wire } = await openPage();
  try {
    await waitForResearchTool(page);
    await api.script([
      { tool_calls: [{ name: TOOL, arguments: { topic: 'tides' }, id: 'call_task_a' }] },
      { reply: 'The research is done.' },
    ]);
    await send(page, 'Research tides');
    await waitCard(page, 'call_task_a', 'running');
    // The card shows the task and the server's own status message while it runs.
    const line = card(page, 'call_task_a').locator('.tool-card-task');
    await line.waitFor({ state: 'visible', timeout: WAIT_MS });
    await page.waitForFunction(
      () => /Task: working — .+\.\.\./.test(document.querySelector('.tool-card-task')?.textContent ?? ''),
      null,
      { timeout: WAIT_MS },
    );
    await waitCard(page, 'call_task_a', 'done');
    await page.waitForFunction(() => document.querySelector('article.message-assistant:last-of-type')?.innerText.includes('The research is done.'), null, { timeout: WAIT_MS });

    const calls = sent(wire, 'tools/call').filter((m) => m.params?.name === TOOL);
    assert.equal(calls.length, 1, 'the tool was called once');
    assert.deepEqual(calls[0].params.task, {}, 'task-augmented');
    const gets = sent(wire, 'tasks/get');
    assert.ok(gets.length >= 1, 'the task was polled');
    const taskId = gets[0].params.taskId;
    assert.ok(gets.every((g) => g.params.taskId === taskId));
    const results = sent(wire, 'tasks/result');
    assert.equal(results.length, 1, 'the result was fetched once');
    assert.equal(results[0].params.taskId, taskId);
    // What the model got back is the server's report.
    const reqs = await api.requests();
    assert.equal(reqs.length, 2);
    const toolMsg = reqs[1].body.messages.find((m) => m.role === 'tool');
    assert.match(JSON.stringify(toolMsg.content), /Research Report: tides/);
    assert.equal(await card(page, 'call_task_a').locator('.tool-card-task').getAttribute('data-task-status'), 'completed');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'tasks-a-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('b. Stop while the task runs cancels it with tasks/cancel and the model is not asked again', async () => {
  const { context, page, errors, wire } = await openPage();
  try {
    await waitForResearchTool(page);
    await api.script([
      { tool_calls: [{ name: TOOL, arguments: { topic: 'volcanoes' }, id: 'call_task_b' }] },
      { reply: 'This answer must never be requested.' },
    ]);
    await send(page, 'Research volcanoes');
    await waitCard(page, 'call_task_b', 'running');
    await waitWire(page, wire, (w) => createdTaskId(w) !== undefined, 'a tasks/get or tasks/result');
    const taskId = createdTaskId(wire);
    await page.click('.stop');
    await waitCard(page, 'call_task_b', 'cancelled');
    await waitWire(page, wire, (w) => sent(w, 'tasks/cancel').length > 0, 'tasks/cancel');
    const cancels = sent(wire, 'tasks/cancel');
    assert.equal(cancels.length, 1);
    assert.equal(cancels[0].params.taskId, taskId, 'the running task was cancelled');
    assert.equal(sent(wire, 'notifications/cancelled').length, 0, 'a task is cancelled with tasks/cancel');
    await page.waitForTimeout(1500);
    assert.equal(sent(wire, 'tasks/result').length, 0, 'no result is fetched after Stop');
    assert.equal((await api.requests()).length, 1, 'after Stop the model is not asked again');
    assert.equal(await card(page, 'call_task_b').getAttribute('data-status'), 'cancelled');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'tasks-b-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

/** The Mcp-Session-Id of the first request carrying `method` in `wire` from index `from`. */
function sessionOf(wire, method, from = 0) {
  return wire.slice(from).find((r) => {
    try { return [JSON.parse(r.body)].flat().some((m) => m.method === method); } catch { return false; }
  })?.sid;
}

/** Where the reloaded page's traffic starts in `wire` (its document request after `from`):
 * what the leaving page still sent before it is not the reloaded page's. */
function reloadedFrom(wire, from) {
  const at = wire.findIndex((r, i) => i >= from && r.type === 'document');
  assert.ok(at >= 0, 'the reload requested the page');
  return at;
}

/** Starts the research, waits until the page follows the task; returns its id and wire mark. */
async function startResearch(page, wire, topic, callId) {
  await waitForResearchTool(page);
  await api.script([
    { tool_calls: [{ name: TOOL, arguments: { topic }, id: callId }] },
    { reply: 'Not asked: the turn ended with the page.' },
  ]);
  await send(page, `Research ${topic}`);
  await waitCard(page, callId, 'running');
  await waitWire(page, wire, (w) => createdTaskId(w) !== undefined, 'a tasks/get or tasks/result');
  return createdTaskId(wire);
}

test('c. a reload while the task runs takes up the same session, follows the task to its result, and never calls the tool twice', async () => {
  const { context, page, errors, wire } = await openPage();
  try {
    const taskId = await startResearch(page, wire, 'glaciers', 'call_task_c');
    const createdIn = sessionOf(wire, 'tools/call');
    const before = wire.length;
    // The first page may still have reached its next model request while unloading (the
    // research takes seconds): what counts is that the reloaded page asks nothing.
    const asked = (await api.requests()).length;
    await page.reload();
    await page.waitForSelector('textarea[aria-label="Message"]', { timeout: WAIT_MS });
    // The reloaded page takes up the kept session (a ping on it, no initialize) and asks
    // about the same task there.
    await waitWire(page, wire, (w) => w.some((r, i) => i >= before && r.type === 'document'), 'the reload');
    const from = reloadedFrom(wire, before);
    await waitWire(page, wire, (w) => sent(w.slice(from), 'tasks/result').length > 0, 'tasks/result from the reloaded page');
    const after = wire.slice(from);
    assert.equal(sent(after, 'initialize').length, 0, 'no new session');
    assert.ok(sent(after, 'ping').length >= 1, 'the kept session is confirmed with a ping');
    assert.equal(sessionOf(wire, 'ping', from), createdIn, 'the ping carries the kept session');
    const gets = sent(after, 'tasks/get');
    const results = sent(after, 'tasks/result');
    assert.ok([...gets, ...results].every((m) => m.params.taskId === taskId), 'the same task');
    assert.ok(gets.length + results.length > 0);
    assert.equal(sessionOf(wire, 'tasks/result', from), createdIn, `followed in the session that created it (${createdIn})`);
    // The page that left sent no DELETE for that session.
    assert.equal(wire.filter((r) => r.method === 'DELETE' && r.sid === createdIn).length, 0, 'no DELETE for the kept session');
    await waitCard(page, 'call_task_c', 'done');
    const c = card(page, 'call_task_c');
    if (!(await c.evaluate((d) => d.open))) await c.locator('summary').first().click();
    const text = await c.innerText();
    assert.match(text, /Research Report: glaciers/, text);
    // How the settled card looks after the reload (target/screenshots/tasks-c-after-reload.png).
    await screenshot(page, 'tasks-c-after-reload');
    await page.waitForTimeout(1000);
    assert.equal(sent(wire, 'tasks/result').length, 1, 'the result was fetched once');
    const calls = sent(wire, 'tools/call').filter((m) => m.params?.name === TOOL);
    assert.equal(calls.length, 1, 'a tool call runs at most once');
    // Ids never repeat within the session across the reload.
    const ids = mcpSent(wire).filter((m) => m.id !== undefined).map((m) => m.id);
    const oldIds = new Set(mcpSent(wire.slice(0, from)).filter((m) => m.id !== undefined).map((m) => m.id));
    assert.ok(mcpSent(after).filter((m) => m.id !== undefined).every((m) => !oldIds.has(m.id)), `ids repeated: ${JSON.stringify(ids)}`);
    assert.ok((await api.requests()).length <= Math.max(asked, 2), 'a reload asks the model nothing');
    console.log(`reload while running: task ${taskId} followed on session ${createdIn}, result fetched once`);
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'tasks-c-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('d. a server that does not know the kept session: a new session, and the card says the task is out of reach and the call was not sent again', async () => {
  const { context, page, errors, wire } = await openPage();
  try {
    const taskId = await startResearch(page, wire, 'fjords', 'call_task_d');
    const createdIn = sessionOf(wire, 'tools/call');
    const before = wire.length;
    const asked = (await api.requests()).length;
    // The record the page keeps names a session the server never made (as after a restart
    // of the server): forged before the reloaded page reads it.
    await context.addInitScript(() => {
      for (let i = 0; i < sessionStorage.length; i++) {
        const key = sessionStorage.key(i);
        if (!key.startsWith('skiff:mcp-session:')) continue;
        const record = JSON.parse(sessionStorage.getItem(key));
        if (!record.data.session_id.startsWith('forged-')) record.data.session_id = `forged-${record.data.session_id}`;
        sessionStorage.setItem(key, JSON.stringify(record));
      }
    });
    await page.reload();
    await page.waitForSelector('textarea[aria-label="Message"]', { timeout: WAIT_MS });
    await waitWire(page, wire, (w) => w.some((r, i) => i >= before && r.type === 'document'), 'the reload');
    const from = reloadedFrom(wire, before);
    await waitWire(page, wire, (w) => sent(w.slice(from), 'tasks/get').length > 0, 'a tasks/get from the reloaded page');
    const forged = sessionOf(wire, 'ping', from);
    assert.equal(forged, `forged-${createdIn}`, 'the page tried the kept session first');
    assert.equal(sent(wire.slice(from), 'initialize').length, 1, 'then made a new one');
    assert.equal(sent(wire.slice(from), 'tasks/get')[0].params.taskId, taskId, 'the same task');
    const followedIn = sessionOf(wire, 'tasks/get', from);
    assert.ok(followedIn && followedIn !== createdIn && followedIn !== forged, `a new session after the reload (${createdIn} → ${followedIn})`);
    await waitCard(page, 'call_task_d', 'error');
    const c = card(page, 'call_task_d');
    if (!(await c.evaluate((d) => d.open))) await c.locator('summary').first().click();
    const text = await c.innerText();
    assert.match(text, new RegExp(`task behind this call \\(${taskId}\\)`), text);
    assert.match(text, /reloaded while it ran/, text);
    assert.match(text, /new session/, text);
    assert.match(text, /Task not found/, text);
    assert.match(text, /did not send it again/, text);
    const calls = sent(wire, 'tools/call').filter((m) => m.params?.name === TOOL);
    assert.equal(calls.length, 1, 'a tool call runs at most once');
    await page.waitForTimeout(1000);
    assert.ok((await api.requests()).length <= Math.max(asked, 2), 'a reload asks the model nothing');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'tasks-d-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});
