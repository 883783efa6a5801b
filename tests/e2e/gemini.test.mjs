// End-to-end: Google Gemini as the provider, in the release build. The page talks to
// tests/servers/gemini_replay.py (Gemini's streaming wire, scripted per request) and, for the
// tool loop, to a real server-everything.
//
// Why it exists: only a browser shows the whole Gemini path at once: Settings offering the
// kind, the request the page builds (the key only in `x-goog-api-key`, `systemInstruction`,
// `contents`, `functionDeclarations` in Gemini's schema subset), the stream decoded into the
// answer and its thought summary, a `functionCall` run on an MCP server and answered with a
// `functionResponse` in the next request, and every failure read into a sentence with the
// partial answer kept.
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
  startReplayServer, startStaticServer, launchBrowser, rustConst, requireServerEverything, collectConsoleErrors, screenshot, distDir,
} from './harness.mjs';
import { startServer } from '../servers/mcp/servers.mjs';

const WAIT_MS = 20_000;
const KEY = 'AIza-skiff-test-key';
const MODEL = 'gemini-test-flash';
const SERVER_ID = 'everything';

const SERVERS_VERSION = rustConst('src/core/mcp/config.rs', 'SERVERS_VERSION');


let api, site, browser, mcp;

before(async () => {
  assert.ok(existsSync(path.join(distDir(), 'index.html')), `no build in ${distDir()}: run scripts/build.sh first`);
  requireServerEverything();
  api = await startReplayServer('gemini_replay.py', KEY);
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

function settingsEnvelope(extra = {}) {
  return JSON.stringify({
    // Format 1 (one provider in flat fields), as builds before profiles stored it: the page
    // migrates it into one profile, which this suite also keeps in use.
    v: 1,
    data: {
      provider: 'gemini',
      base_url: `${api.url}/v1beta`,
      // The wire format is what this suite checks: no title requests, no system template
      // (pipeline::request_tests checks the template in systemInstruction).
      auto_title: false,
      system_template_enabled: false,
      api_key: KEY,
      model: MODEL,
      system_prompt: 'Be brief.',
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

function serversEnvelope(withEverything) {
  const servers = withEverything
    ? [{ id: SERVER_ID, name: SERVER_ID, url: mcp.url, transport: 'auto', headers: [], enabled: true }]
    : [];
  return JSON.stringify({ v: SERVERS_VERSION, data: { servers } });
}

async function openPage({ settings = {}, everything = false } = {}) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  await context.addInitScript(([s, m]) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    if (!localStorage.getItem('skiff:mcp-servers')) localStorage.setItem('skiff:mcp-servers', m);
  }, [settingsEnvelope(settings), serversEnvelope(everything)]);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  const logs = [];
  page.on('console', (msg) => { if (msg.type() === 'log') logs.push(msg.text()); });
  const wire = [];
  page.on('request', (req) => {
    wire.push({ method: req.method(), url: req.url(), headers: req.headers(), body: req.postData() ?? '' });
  });
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]', { timeout: WAIT_MS });
  return { context, page, errors, logs, wire };
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

/** The model requests the replay server received. */
async function modelRequests() {
  return (await api.requests()).filter((r) => r.path.endsWith(':streamGenerateContent'));
}

/** Keys Gemini's Schema does not take, anywhere in a converted schema. */
function foreignKeys(schema, at = '') {
  const bad = [];
  if (schema && typeof schema === 'object') {
    for (const [k, v] of Object.entries(schema)) {
      if (['$schema', 'additionalProperties', '$ref', '$defs', 'default', 'examples', 'const'].includes(k)) bad.push(`${at}/${k}`);
      if (k === 'properties') for (const [p, s] of Object.entries(v)) bad.push(...foreignKeys(s, `${at}/properties/${p}`));
      else if (typeof v === 'object') bad.push(...foreignKeys(v, `${at}/${k}`));
    }
  }
  return bad;
}

test('a streamed Gemini answer with its thought summary; the key travels only in x-goog-api-key', async () => {
  const { context, page, errors, wire } = await openPage();
  try {
    await api.script([{ thought: 'The user says hi; answer warmly.', text: 'Hello from Gemini! How can I help?' }]);
    await send(page, 'Hi');
    await waitStatus(page, 'done');
    const answer = lastAssistant(page);
    assert.equal((await answer.locator('.markdown').innerText()).trim(), 'Hello from Gemini! How can I help?');
    // Collapsed once the answer is there: read its text, not what is rendered.
    assert.equal((await answer.locator('details.reasoning .reasoning-text').textContent()).trim(), 'The user says hi; answer warmly.');

    const [req] = await modelRequests();
    assert.equal(req.path, `/v1beta/models/${MODEL}:streamGenerateContent`);
    assert.deepEqual(req.query, { alt: ['sse'] }, 'no key in the query');
    assert.equal(req.headers['x-goog-api-key'], KEY);
    assert.equal(req.headers.authorization, undefined, 'no Bearer header');
    const { tools, ...body } = req.body;
    assert.deepEqual(body, {
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
    });
    // The built-in tools (memory, time) go as function declarations in Gemini's schema subset.
    assert.equal(tools.length, 1);
    assert.ok(tools[0].functionDeclarations.length > 0);
    for (const d of tools[0].functionDeclarations) {
      assert.deepEqual(foreignKeys(d.parameters ?? {}), [], `${d.name}'s parameters`);
      if (d.parameters) assert.equal(d.parameters.type, 'OBJECT');
    }
    // Chromium's own record: the key went to the provider's origin only, never in a URL.
    for (const r of wire) {
      assert.ok(!r.url.includes(KEY), `no key in ${r.url}`);
      if (r.headers['x-goog-api-key']) assert.ok(r.url.startsWith(api.url), `key sent to ${r.url}`);
    }
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'gemini-stream-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('a Gemini functionCall runs on server-everything and its functionResponse goes back in the next request', async () => {
  const rules = { [`${SERVER_ID}\u001fecho`]: 'always' };
  const { context, page, errors, logs, wire } = await openPage({
    everything: true,
    settings: { approvals: { rules, allow_read_only: false } },
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
      { text: 'Let me echo that.', calls: [{ name: 'echo', args: { message: 'hello gemini' } }] },
      { text: 'The server said: Echo: hello gemini' },
    ]);
    await send(page, 'Echo "hello gemini" please');
    await page.waitForFunction(
      () => [...document.querySelectorAll('article.message-assistant')].some((a) => a.dataset.status === 'done' && a.innerText.includes('The server said')),
      null,
      { timeout: WAIT_MS },
    );
    const card = page.locator('details.tool-card[data-tool="echo"]');
    assert.equal(await card.getAttribute('data-status'), 'done');

    // The MCP side: one tools/call for echo with the model's arguments.
    const mcpOrigin = new URL(mcp.url).origin;
    const calls = wire
      .filter((r) => r.url.startsWith(mcpOrigin) && r.body)
      .flatMap((r) => { try { const m = JSON.parse(r.body); return Array.isArray(m) ? m : [m]; } catch { return []; } })
      .filter((m) => m.method === 'tools/call');
    assert.deepEqual(calls.map((m) => [m.params.name, m.params.arguments]), [['echo', { message: 'hello gemini' }]]);
    for (const r of wire.filter((w) => w.url.startsWith(mcpOrigin))) {
      assert.equal(r.headers['x-goog-api-key'], undefined, 'the Gemini key never goes to the MCP server');
    }

    const reqs = await modelRequests();
    assert.equal(reqs.length, 2, 'the call, then the answer');
    const decls = reqs[0].body.tools[0].functionDeclarations;
    const echo = decls.find((d) => d.name === 'echo');
    assert.ok(echo, `echo is declared: ${decls.map((d) => d.name)}`);
    assert.deepEqual(foreignKeys(echo.parameters), []);
    assert.equal(echo.parameters.properties.message.type, 'STRING');
    const contents = reqs[1].body.contents;
    assert.deepEqual(contents.map((c) => c.role), ['user', 'model', 'user']);
    assert.deepEqual(contents[1].parts, [
      { text: 'Let me echo that.' },
      { functionCall: { name: 'echo', args: { message: 'hello gemini' } }, thoughtSignature: 'skip_thought_signature_validator' },
    ]);
    assert.equal(contents[2].parts.length, 1);
    const fr = contents[2].parts[0].functionResponse;
    assert.equal(fr.name, 'echo');
    assert.equal(fr.id, undefined, 'Gemini gave the call no id, so none goes back');
    assert.match(fr.response.output, /Echo: hello gemini/);
    // server-everything's schemas carry `$schema`, which Gemini refuses: the log says it was left out.
    assert.ok(logs.some((l) => l.startsWith('Tool \u201cecho\u201d: left out \u201c$schema\u201d')), `schema notes in the log: ${logs.join('\n')}`);
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'gemini-tools-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('errors keep the partial answer and say why: in-stream error, cut stream, safety stop, wrong key', async () => {
  const cases = [
    {
      step: { text: 'The first part of an answer', chunk_chars: 6, stream_error_after_chars: 12, error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } },
      partial: 'The first pa',
      sentence: /reported an error while answering: The model is overloaded\. Please try again later\./,
    },
    {
      step: { text: 'Cut short here and then more', chunk_chars: 5, cut_after_chars: 10 },
      partial: 'Cut short ',
      sentence: /connection closed before the answer was complete/,
    },
    {
      step: { text: 'Some of it', finish: 'SAFETY' },
      partial: 'Some of it',
      sentence: /withheld the answer: Gemini stopped the answer because it may break its safety rules \(SAFETY\)/,
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
      assert.match(await answer.locator('.message-error').innerText(), c.sentence);
      // Retry sends the same question again and gets a whole answer.
      await api.script([{ text: 'Whole answer.' }]);
      await answer.locator('button.retry').click();
      await waitStatus(page, 'done');
      assert.equal((await lastAssistant(page).locator('.markdown').innerText()).trim(), 'Whole answer.');
      assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
    } catch (err) {
      await screenshot(page, 'gemini-error-failure').catch(() => {});
      throw err;
    } finally {
      await context.close();
    }
  }

  const { context, page } = await openPage({ settings: { api_key: 'AIza-wrong' } });
  try {
    await send(page, 'Hi');
    await waitStatus(page, 'error');
    assert.match(
      await lastAssistant(page).locator('.message-error').innerText(),
      /rejected the API key \(HTTP 400\): API key not valid\. Please pass a valid API key\. Check the key in Settings\./,
    );
  } finally {
    await context.close();
  }
});

test('Settings offer Gemini: picking it fills its address and the next message goes to Gemini', async () => {
  const { context, page } = await openPage({ settings: { provider: 'openai', base_url: '' } });
  try {
    await page.click('button[aria-label="Settings"]');
    const kind = page.locator('select.provider-kind');
    // Settings is an on-demand chunk: its form is there once the chunk is.
    await kind.locator('option').first().waitFor({ state: 'attached', timeout: 20_000 });
    assert.deepEqual(await kind.locator('option').allInnerTexts(), ['OpenAI-compatible', 'Anthropic', 'Google Gemini', 'In this browser']);
    await kind.selectOption('gemini');
    const baseUrl = page.getByLabel('Base URL');
    assert.equal(await baseUrl.inputValue(), 'https://generativelanguage.googleapis.com/v1beta');
    assert.match(await page.locator('.profile-form p.hint').first().innerText(), /generativelanguage\.googleapis\.com\/v1beta/);
    // Point it at the replay server, as a user with a proxy would.
    await baseUrl.fill(`${api.url}/v1beta`);
    // Test connection lists Gemini's own models (models.list, key in x-goog-api-key), only
    // those that generate content, by the id a request takes.
    await page.click('button.test-connection');
    await page.locator('.connection-result .ok').waitFor();
    assert.match(await page.locator('.connection-result').innerText(), /Connected: 2 model\(s\) available/);
    assert.deepEqual(
      await page.locator('.profile-form datalist option').evaluateAll((os) => os.map((o) => o.value)),
      ['gemini-2.5-flash', 'gemini-2.5-pro'],
    );
    await page.keyboard.press('Escape');
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('skiff:settings')).data);
    assert.equal(stored.profiles.length, 1);
    assert.equal(stored.profiles[0].kind, 'gemini');
    await send(page, 'Hi');
    await waitStatus(page, 'done');
    assert.equal((await lastAssistant(page).locator('.markdown').innerText()).trim(), 'Hello from Gemini!');
    assert.equal((await modelRequests()).length, 1);
  } finally {
    await context.close();
  }
});
