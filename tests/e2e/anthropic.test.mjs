// End-to-end: Anthropic's Messages API with extended thinking, in the release build. The page
// talks to tests/servers/anthropic_replay.py (Anthropic's streaming wire, scripted per request)
// and, for the tool loop, to a real server-everything.
//
// Why it exists: only a browser shows the whole thinking path at once: the budget set in
// Settings → Providers reaching the request, `thinking_delta`s shown as collapsed thinking,
// the `signature_delta` and `redacted_thinking` kept on the saved answer and given back, first
// in the assistant turn that holds the `tool_use`, when the tool loop on an MCP server
// continues (the API refuses the request otherwise), and failures mid-stream read into a
// sentence with the partial answer kept and Retry working.
//
// What it must never do: listen on anything but 127.0.0.1, reach the network, or wait
// without a bound (every wait here is ≤ 20 s).
//
// Needs: scripts/build.sh (dist/, or SKIFF_DIST) and scripts/setup-mcp.sh (server-everything).

import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import {
  startReplayServer, startStaticServer, launchBrowser, rustConst, requireServerEverything, collectConsoleErrors, screenshot, distDir, storedBodies,
} from './harness.mjs';
import { startServer } from '../servers/mcp/servers.mjs';

const WAIT_MS = 20_000;
const KEY = 'sk-ant-skiff-test';
const MODEL = 'claude-test';
const SERVER_ID = 'everything';
// Shaped like a real signature (base64); the page must give it back byte for byte.
const SIGNATURE = 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYdsSkipfReplay+/=';
const REDACTED = 'EmwKAhgBEgy3va3pzix/LafPsn4aDdzHmZVk2iHsFQkSLzLH1CMBQqpLKrJ/oHlSj8E5';

const SERVERS_VERSION = rustConst('src/core/mcp/config.rs', 'SERVERS_VERSION');

let api, site, browser, mcp;

before(async () => {
  assert.ok(existsSync(path.join(distDir(), 'index.html')), `no build in ${distDir()}: run scripts/build.sh first`);
  requireServerEverything();
  api = await startReplayServer('anthropic_replay.py', KEY);
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

const FATAL = /panicked|RuntimeError|unreachable executed|uncaught|CSP violation/i;

/** Settings format 2: one Anthropic profile, with a thinking budget unless `budget` is null. */
function settingsEnvelope({ budget = 2048, extra = {} } = {}) {
  const profile = {
    id: 'p-anthropic', name: 'Anthropic test', kind: 'anthropic', base_url: `${api.url}/v1`,
    api_key: KEY, default_model: MODEL, temperature: 0.4, top_p: null, max_tokens: null,
  };
  if (budget !== null) profile.thinking_budget = budget;
  return JSON.stringify({
    v: 2,
    data: {
      profiles: [profile],
      // The wire format is what this suite checks: no title requests, no system template.
      system_prompt: 'Be brief.', theme: 'system', auto_title: false, system_template_enabled: false,
      tool_mode: 'native', step_limit: 15, result_char_limit: 16000, tool_images_to_model: false,
      approvals: { rules: {}, allow_read_only: false }, learned_tool_modes: {},
      ...extra,
    },
  });
}

function serversEnvelope(withEverything) {
  const servers = withEverything
    ? [{ id: SERVER_ID, name: SERVER_ID, url: mcp.url, transport: 'auto', headers: [], enabled: true }]
    : [];
  return JSON.stringify({ v: SERVERS_VERSION, data: { servers } });
}

async function openPage({ budget, extra, everything = false } = {}) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  await context.addInitScript(([s, m]) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    if (!localStorage.getItem('skiff:mcp-servers')) localStorage.setItem('skiff:mcp-servers', m);
  }, [settingsEnvelope({ budget, extra }), serversEnvelope(everything)]);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  const wire = [];
  page.on('request', (req) => {
    wire.push({ method: req.method(), url: req.url(), headers: req.headers(), body: req.postData() ?? '' });
  });
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]', { timeout: WAIT_MS });
  return { context, page, errors, wire };
}

async function send(page, text) {
  await page.fill('textarea[aria-label="Message"]', text);
  await page.keyboard.press('Enter');
}

const lastAssistant = (page) => page.locator('article.message-assistant').last();

async function waitStatus(page, status) {
  await page.waitForFunction((s) => {
    const all = document.querySelectorAll('article.message-assistant');
    return all.length > 0 && all[all.length - 1].dataset.status === s;
  }, status, { timeout: WAIT_MS });
}

/** The model requests the replay server received, bodies parsed. */
async function modelRequests() {
  return (await api.requests())
    .filter((r) => r.path === '/v1/messages')
    .map((r) => ({ ...r, body: JSON.parse(r.body) }));
}

/** Every stored message, from the conversation bodies in IndexedDB. */
async function storedMessages(page) {
  const bodies = await storedBodies(page);
  return Object.values(bodies).flatMap((text) => {
    const v = JSON.parse(text);
    return (v.data ?? v).messages ?? [];
  });
}

/** Waits (bounded) until the saved copy of the last answer satisfies `ok`; saves are throttled. */
async function savedAnswer(page, ok) {
  const until = Date.now() + WAIT_MS;
  let last;
  while (Date.now() < until) {
    last = (await storedMessages(page)).filter((m) => m.role === 'assistant').at(-1);
    if (last && ok(last)) return last;
    await page.waitForTimeout(100);
  }
  return last;
}

test('(a) the budget set in Settings reaches the request; thinking is shown collapsed', async () => {
  const { context, page, errors } = await openPage({ budget: null });
  try {
    // Settings → Providers offers the budget for an Anthropic profile, and no effort select.
    await page.click('button[aria-label="Settings"]');
    const form = page.locator('.profile-form');
    await form.getByLabel('Thinking budget').fill('2048');
    assert.equal(await form.locator('select.reasoning-effort').count(), 0, 'effort is for OpenAI-compatible profiles');
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('skiff:settings')).data.profiles[0]);
    assert.equal(stored.thinking_budget, 2048);
    assert.equal('reasoning_effort' in stored, false, 'an unset effort is not stored');
    // Switching the kind swaps the field: OpenAI-compatible takes an effort, not a budget.
    await form.locator('select.provider-kind').selectOption('openai');
    await form.locator('select.reasoning-effort').waitFor({ timeout: WAIT_MS });
    assert.equal(await form.getByLabel('Thinking budget').count(), 0);
    assert.deepEqual(await form.locator('select.reasoning-effort option').allInnerTexts(), ['default', 'low', 'medium', 'high']);
    await form.locator('select.provider-kind').selectOption('anthropic');
    await form.getByLabel('Thinking budget').waitFor({ timeout: WAIT_MS });
    assert.equal(await form.getByLabel('Thinking budget').inputValue(), '2048', 'the budget survived the round trip');
    await page.keyboard.press('Escape');

    await api.script([{
      thinking: 'The user greets me; a short greeting back.',
      signature: SIGNATURE,
      text: 'Hello! How can I help?',
    }]);
    await send(page, 'Hi');
    await waitStatus(page, 'done');
    const answer = lastAssistant(page);
    assert.equal((await answer.locator('.markdown').innerText()).trim(), 'Hello! How can I help?');
    const details = answer.locator('details.reasoning');
    assert.equal(await details.getAttribute('open'), null, 'thinking is collapsed once the answer is there');
    assert.equal((await details.locator('.reasoning-text').textContent()).trim(), 'The user greets me; a short greeting back.');

    const [req] = await modelRequests();
    assert.equal(req.headers['x-api-key'], KEY);
    assert.deepEqual(req.body.thinking, { type: 'enabled', budget_tokens: 2048 });
    assert.equal(req.body.max_tokens, 4096, 'above the budget already');
    assert.equal('temperature' in req.body, false, 'thinking refuses a temperature (the profile has 0.4)');
    // The signed thinking is kept on the saved answer, to give back in a tool loop.
    const saved = await savedAnswer(page, (m) => m.status?.kind === 'done');
    assert.deepEqual(saved?.thinking, [{ text: 'The user greets me; a short greeting back.', signature: SIGNATURE }]);
    await details.locator('summary').click();
    await screenshot(page, 'anthropic-thinking');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'anthropic-thinking-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('(b) a tool loop on server-everything gives the signed thinking back before tool_use', async () => {
  const rules = { [`${SERVER_ID}\u001fecho`]: 'always' };
  const { context, page, errors, wire } = await openPage({
    everything: true,
    extra: { approvals: { rules, allow_read_only: false } },
  });
  try {
    // server-everything's tools listed in the chat header before the first request.
    await page.waitForFunction(
      () => Number((document.querySelector('.tool-picker-toggle')?.innerText || '').replace(/\D+/g, '')) >= 13,
      null,
      { timeout: WAIT_MS },
    );
    await page.waitForTimeout(500);
    await api.script([
      {
        thinking: 'The user wants an echo; call the echo tool.',
        signature: SIGNATURE,
        redacted: REDACTED,
        text: 'Let me echo that.',
        calls: [{ name: 'echo', id: 'toolu_01EchoSkiff', input: { message: 'hello claude' } }],
      },
      { thinking: 'The tool answered.', signature: `${SIGNATURE}2`, text: 'The server said: Echo: hello claude' },
    ]);
    await send(page, 'Echo "hello claude" please');
    await page.waitForFunction(
      () => [...document.querySelectorAll('article.message-assistant')].some((a) => a.dataset.status === 'done' && a.innerText.includes('The server said')),
      null,
      { timeout: WAIT_MS },
    );
    const card = page.locator('details.tool-card[data-tool="echo"]');
    assert.equal(await card.getAttribute('data-status'), 'done');

    // The MCP side: one tools/call for echo with the model's input; no Anthropic key there.
    const mcpOrigin = new URL(mcp.url).origin;
    const calls = wire
      .filter((r) => r.url.startsWith(mcpOrigin) && r.body)
      .flatMap((r) => { try { const m = JSON.parse(r.body); return Array.isArray(m) ? m : [m]; } catch { return []; } })
      .filter((m) => m.method === 'tools/call');
    assert.deepEqual(calls.map((m) => [m.params.name, m.params.arguments]), [['echo', { message: 'hello claude' }]]);
    for (const r of wire.filter((w) => w.url.startsWith(mcpOrigin))) {
      assert.equal(r.headers['x-api-key'], undefined, 'the Anthropic key never goes to the MCP server');
    }

    const reqs = await modelRequests();
    assert.equal(reqs.length, 2, 'the call, then the answer');
    assert.ok(reqs[0].body.tools.some((t) => t.name === 'echo'), 'echo is offered');
    const { messages } = reqs[1].body;
    assert.deepEqual(reqs[1].body.thinking, { type: 'enabled', budget_tokens: 2048 });
    assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant', 'user']);
    assert.deepEqual(messages[1].content, [
      { type: 'thinking', thinking: 'The user wants an echo; call the echo tool.', signature: SIGNATURE },
      { type: 'redacted_thinking', data: REDACTED },
      { type: 'text', text: 'Let me echo that.' },
      { type: 'tool_use', id: 'toolu_01EchoSkiff', name: 'echo', input: { message: 'hello claude' } },
    ]);
    assert.equal(messages[2].content.length, 1);
    const result = messages[2].content[0];
    assert.equal(result.type, 'tool_result');
    assert.equal(result.tool_use_id, 'toolu_01EchoSkiff');
    assert.equal(result.is_error, false);
    assert.match(result.content[0].text, /Echo: hello claude/);
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'anthropic-tools-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('(c) errors mid-stream keep the partial answer and its thinking, say why, and Retry works', async () => {
  const cases = [
    {
      step: { thinking: 'Plan the answer.', signature: SIGNATURE, text: 'The first part of an answer', chunk_chars: 6, stream_error_after_chars: 12, error: { type: 'overloaded_error', message: 'Overloaded' } },
      partial: 'The first pa',
      sentence: /reported an error while answering: Overloaded\. Retry, or pick another model\./,
    },
    {
      step: { thinking: 'Plan the answer.', text: 'Cut short here and then more', chunk_chars: 5, cut_after_chars: 10 },
      partial: 'Cut short ',
      sentence: /connection closed before the answer was complete/,
    },
  ];
  for (const c of cases) {
    const { context, page, errors } = await openPage();
    try {
      await api.script([c.step]);
      await send(page, 'Go');
      await waitStatus(page, 'error');
      const answer = lastAssistant(page);
      assert.equal((await answer.locator('.markdown').innerText()).trim(), c.partial.trim(), 'the partial answer is kept');
      assert.equal((await answer.locator('details.reasoning .reasoning-text').textContent()).trim(), 'Plan the answer.');
      assert.match(await answer.locator('.message-error').innerText(), c.sentence);
      // Retry sends the same question again and gets a whole answer.
      await api.script([{ text: 'Whole answer.' }]);
      await answer.locator('button.retry').click();
      await waitStatus(page, 'done');
      assert.equal((await lastAssistant(page).locator('.markdown').innerText()).trim(), 'Whole answer.');
      const reqs = await modelRequests();
      assert.equal(reqs.length, 2);
      assert.deepEqual(reqs[1].body.messages, [{ role: 'user', content: [{ type: 'text', text: 'Go' }] }], 'the retry asks the same question');
      assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
    } catch (err) {
      await screenshot(page, 'anthropic-error-failure').catch(() => {});
      throw err;
    } finally {
      await context.close();
      await api.reset();
    }
  }
});
