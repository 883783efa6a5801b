// End-to-end: sampling (issue 13 item 8), the page's approval cards (src/ui/mcp/asks),
// against the real server-everything, whose `trigger-sampling-request` tool sends
// `sampling/createMessage` (a system prompt, one user message, maxTokens, temperature) and
// returns what it got back; the scripted OpenAI-compatible provider is the user's model.
//
//   a. Approved: the card shows the server, system prompt, message and limits; the user edits
//      the message; the model receives exactly the edit; its answer streams into the card and
//      reaches the server, whose tool result shows the sampled text.
//   b. Denied: the server gets the specification's refusal (-1, "User rejected sampling
//      request"), and the model is never asked.
//   c. Tools (SEP-1577): a real server (sampling_tools.mjs, the published SDK) asks with the
//      tool get_weather offered; the card lists it (collapsed); the model's call is said on the
//      card and goes back as tool_use; the server runs the tool itself and asks again with the
//      tool_result, which the card shows and the model receives as a tool message; the final
//      text reaches the chat in the server's tool result.
//   d. Gone: the server dies while the card waits; the card says nothing can be sent any more
//      and offers only Dismiss (runs last: it kills the server).
//
// Needs: scripts/build.sh (dist/, or SKIFF_DIST) and scripts/setup-mcp.sh (server-everything).
//   SKIFF_DIST=$PWD/dist node --test --test-concurrency=1 tests/e2e/sampling.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startOpenAiServer, startStaticServer, launchBrowser, collectConsoleErrors, distDir, repoRoot, screenshot, rustConst } from './harness.mjs';
import { startServer } from '../servers/mcp/servers.mjs';

const WAIT_MS = 20_000;
const MODEL = 'skiff-sampling-model';
const ALT_MODEL = 'skiff-sampling-alt';
const SERVER_ID = 'everything';
const TOOL = 'trigger-sampling-request';
const FATAL = /panicked|RuntimeError|unreachable executed|uncaught|CSP violation/i;
const BOX = 'textarea[aria-label="Message"]';
const SAMPLED = 'Bonjour from the scripted model';

const SERVERS_VERSION = rustConst('src/core/mcp/config.rs', 'SERVERS_VERSION');

const WEATHER_ID = 'weather';
const WEATHER_TOOL = 'weather_report';

let api, site, browser, mcp, weather;

before(async () => {
  assert.ok(existsSync(path.join(distDir(), 'index.html')), `no build in ${distDir()}: run scripts/build.sh first`);
  api = await startOpenAiServer({ models: [MODEL] });
  site = await startStaticServer();
  browser = await launchBrowser();
  mcp = await startServer('everything-http');
  weather = await startServer('sampling-tools');
});

after(async () => {
  await browser?.close();
  await site?.stop();
  await api?.stop();
  await mcp?.stop();
  await weather?.stop();
});

/** The page with server-everything, or (`withWeather`) the sampling-tools server instead. */
async function openPage({ withWeather = false, twoProfiles = false } = {}) {
  const [id, tool, url] = withWeather ? [WEATHER_ID, WEATHER_TOOL, weather.url] : [SERVER_ID, TOOL, mcp.url];
  const approvals = { rules: { [`${id}\u001f${tool}`]: 'always' }, allow_read_only: false };
  // Two provider profiles on the same scripted API: the conversation's (first) and another.
  const profiles = JSON.stringify({
    v: 2,
    data: {
      profiles: [
        { id: 'p-main', name: 'Main', kind: 'openai', base_url: `${api.url}/v1`, api_key: '', default_model: MODEL },
        { id: 'p-alt', name: 'Alternate', kind: 'openai', base_url: `${api.url}/v1`, api_key: '', default_model: ALT_MODEL },
      ],
      system_prompt: '', theme: 'system', auto_title: false, system_template_enabled: false,
      tool_mode: 'native', step_limit: 15, result_char_limit: 16000, tool_images_to_model: false, approvals,
    },
  });
  const settings = twoProfiles ? profiles : JSON.stringify({
    v: 1,
    data: {
      base_url: `${api.url}/v1`, api_key: '', model: MODEL, system_prompt: '', theme: 'system',
      tool_mode: 'native', step_limit: 15, result_char_limit: 16000, tool_images_to_model: false,
      approvals,
      learned_tool_modes: {},
    },
  });
  const servers = JSON.stringify({
    v: SERVERS_VERSION,
    data: { servers: [{ id, name: id, url, transport: 'auto', headers: [], enabled: true }] },
  });
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await context.addInitScript(([s, m]) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    if (!localStorage.getItem('skiff:mcp-servers')) localStorage.setItem('skiff:mcp-servers', m);
  }, [settings, servers]);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  await page.goto(site.url);
  await page.waitForSelector(BOX, { timeout: WAIT_MS });
  return { context, page, errors };
}

/** The tool exists only once Skiff declared sampling: wait for it in the tool picker. */
async function waitForTool(page, tool = TOOL) {
  const end = Date.now() + WAIT_MS;
  const toggle = page.locator('.tool-picker-toggle');
  await toggle.waitFor({ timeout: WAIT_MS });
  for (;;) {
    await toggle.click();
    const found = await page.locator('.tool-switch', { hasText: tool }).count();
    await page.keyboard.press('Escape');
    if (found > 0) return;
    if (Date.now() > end) throw new Error(`${tool} never reached the tool picker`);
    await page.waitForTimeout(200);
  }
}

async function scanDialog(page, what) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) {
    await page.evaluate(await readFile(path.join(repoRoot, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  }
  const { passed, violations } = await page.evaluate(async () => {
    const r = await window.axe.run({ include: [['.ask-sampling[role="dialog"]']] });
    return { passed: r.passes.length, violations: r.violations.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`) };
  });
  assert.ok(passed >= 5, `axe checked the dialog (${passed} rules passed, ${what})`);
  assert.deepEqual(violations, [], `axe on the sampling dialog (${what})`);
}

async function toolResult(page, callId) {
  const tool = page.locator(`details.tool-card[data-call-id="${callId}"]`);
  await page.waitForFunction((id) => document.querySelector(`details.tool-card[data-call-id="${id}"]`)?.dataset.status === 'done'
    || document.querySelector(`details.tool-card[data-call-id="${id}"]`)?.dataset.status === 'error', callId, { timeout: WAIT_MS });
  if (!(await tool.evaluate((d) => d.open))) await tool.locator('summary').first().click();
  // A tool error may be a result marked isError or the card's error sentence.
  return (await tool.locator('.tool-result, .tool-error').allInnerTexts()).join('\n');
}

test('a. approved: the user edits the message, the model answers it, the server gets the answer', async () => {
  const { context, page, errors } = await openPage();
  try {
    await waitForTool(page);
    await api.reset();
    await api.script([
      { reply: 'Asking the server.', tool_calls: [{ id: 'call_sample_a', name: TOOL, arguments: { prompt: 'Say hi', maxTokens: 50 } }] },
      { reply: SAMPLED, chunk_chars: 3, delay_ms: 150 },
      { reply: 'The server got its answer.' },
    ]);
    await page.fill(BOX, 'Use the sampling tool');
    await page.keyboard.press('Enter');

    const dialog = page.locator('.ask-sampling[role="dialog"]');
    await dialog.waitFor({ timeout: WAIT_MS });
    const card = dialog.locator('section.ask-card');
    assert.match(await card.locator('.ask-title').innerText(), /everything wants to use your model/);
    assert.match(await card.locator('.ask-system').innerText(), /You are a helpful test server\./);
    assert.match(await card.locator('.ask-details').innerText(), /Max tokens\s+50[\s\S]*Temperature\s+0\.7/);
    const last = card.getByRole('textbox', { name: /User \(you may edit this/ });
    assert.equal(await last.inputValue(), 'Resource trigger-sampling-request context: Say hi');
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('ask-card')), true, 'focus is on the card, not on Approve');
    await scanDialog(page, 'as it arrives');
    await screenshot(page, 'sampling-card').catch(() => {});
    // Nothing reached the model before Approve.
    assert.equal((await api.requests()).length, 1);

    await last.fill('Say hi in French, please');
    await card.getByRole('button', { name: 'Approve' }).click();
    // The answer streams into the card (11 pieces, 150 ms apart) before it goes back.
    await page.waitForFunction((full) => {
      if (document.querySelector('.ask-sampling .ask-failure')) return true;
      const t = document.querySelector('.ask-sampling .ask-stream')?.textContent ?? '';
      return t.length > 0 && t.length < full.length && full.startsWith(t);
    }, SAMPLED, { timeout: WAIT_MS, polling: 50 });
    const failure = card.locator('.ask-failure');
    assert.equal(await failure.count(), 0, `the model answered: ${await failure.allInnerTexts()}`);
    await dialog.waitFor({ state: 'detached', timeout: WAIT_MS });

    const requests = await api.requests();
    assert.ok(requests.length >= 2, `the model was asked (${requests.length} requests)`);
    const sampled = requests[1].body;
    const users = sampled.messages.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
    assert.deepEqual(users, ['Say hi in French, please'], 'exactly the edited message, nothing of the chat');
    assert.ok(sampled.messages.some((m) => m.role === 'system' && /You are a helpful test server\./.test(JSON.stringify(m.content))), 'the system prompt goes along');
    assert.ok(!JSON.stringify(sampled.messages).includes('Use the sampling tool'), 'the conversation is not sent to the server\'s request');

    const result = await toolResult(page, 'call_sample_a');
    assert.match(result, new RegExp(SAMPLED), result);
    assert.match(result, /"role": "assistant"/, result);
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'sampling-a-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('b. denied: the server hears "User rejected sampling request" and the model is not asked', async () => {
  const { context, page, errors } = await openPage();
  try {
    await waitForTool(page);
    await api.reset();
    await api.script([
      { reply: 'Asking the server.', tool_calls: [{ id: 'call_sample_b', name: TOOL, arguments: { prompt: 'Say no', maxTokens: 20 } }] },
      { reply: 'It was refused.' },
    ]);
    await page.fill(BOX, 'Use the sampling tool again');
    await page.keyboard.press('Enter');

    const dialog = page.locator('.ask-sampling[role="dialog"]');
    await dialog.waitFor({ timeout: WAIT_MS });
    await dialog.getByRole('button', { name: 'Deny' }).click();
    await dialog.waitFor({ state: 'detached', timeout: WAIT_MS });

    const result = await toolResult(page, 'call_sample_b');
    assert.match(result, /User rejected sampling request/, result);
    // Only the chat's own requests (the tool call and the answer after it): none carries the
    // server's message as a user's.
    const requests = await api.requests();
    const asked = requests.filter((r) => r.body.messages.some((m) => m.role === 'user' && /sampling-request context/.test(JSON.stringify(m.content))));
    assert.deepEqual(asked, [], 'the sampling request never reached the model');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'sampling-b-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('c. tools: the model calls the server\'s tool, the server runs it and asks again with its result', async () => {
  const { context, page, errors } = await openPage({ withWeather: true });
  try {
    await waitForTool(page, WEATHER_TOOL);
    await api.reset();
    const FINAL = 'It is sunny in Paris, 21 degrees.';
    await api.script([
      { reply: 'Asking the weather server.', tool_calls: [{ id: 'call_weather', name: WEATHER_TOOL, arguments: { city: 'Paris' } }] },
      // The server's first request: the model asks for get_weather ...
      { reply: 'Let me check.', tool_calls: [{ id: 'call_gw_1', name: 'get_weather', arguments: { city: 'Paris' } }] },
      // ... and, given the server's tool result, answers in text.
      { reply: FINAL },
      { reply: 'The weather server answered.' },
    ]);
    // Every text the answer area shows, kept: the card goes as soon as the answer is sent.
    await page.evaluate(() => {
      window.__streams = [];
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('.ask-stream')) window.__streams.push(el.textContent);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    await page.fill(BOX, 'What is the weather in Paris?');
    await page.keyboard.press('Enter');

    // First request: the offered tool is listed, collapsed, with its description.
    const first = page.locator('.ask-sampling[role="dialog"] section.ask-card');
    await first.waitFor({ timeout: WAIT_MS });
    const tools = first.locator('details.ask-tools-box');
    assert.match(await tools.locator('summary').innerText(), /Tools the model may call \(1\)/);
    assert.equal(await tools.evaluate((d) => d.open), false, 'the tools start collapsed');
    await tools.locator('summary').click();
    assert.match(await tools.locator('.ask-tools').innerText(), /get_weather: Current weather for a city/);
    assert.match(await first.locator('.ask-details').innerText(), /Skiff never runs them/);
    await scanDialog(page, 'with tools');
    await first.getByRole('button', { name: 'Approve' }).click();

    // Second request: the model's call and the server's result, readable, before Approve.
    const second = page.locator('.ask-sampling[role="dialog"] section.ask-card', { hasText: 'Tool result' });
    await second.waitFor({ timeout: WAIT_MS });
    const shown = await second.locator('.ask-messages').innerText();
    assert.match(shown, /Asks to call get_weather\(\{"city":"Paris"\}\)/, shown);
    assert.match(shown, /Tool result: Sunny, 21 degrees in Paris/, shown);
    await screenshot(page, 'sampling-tools-card').catch(() => {});
    await second.getByRole('button', { name: 'Approve' }).click();

    const result = await toolResult(page, 'call_weather');
    assert.match(result, new RegExp(`Final answer: ${FINAL}`), result);
    const streams = await page.evaluate(() => window.__streams);
    assert.ok(streams.some((t) => t.includes('Your model asks to call get_weather({"city":"Paris"})')),
      `the call was said on the card before it went back: ${JSON.stringify(streams)}`);

    // What the model received: the tool offered natively, then the exchange as a call and a
    // tool message (not text).
    const requests = await api.requests();
    assert.ok(requests.length >= 4, `four model requests (${requests.length})`);
    const [, ask1, ask2] = requests.map((r) => r.body);
    assert.deepEqual(ask1.tools.map((t) => t.function.name), ['get_weather']);
    assert.deepEqual(ask1.tools[0].function.parameters.required, ['city']);
    assert.equal(ask1.max_tokens, 200);
    assert.ok(!JSON.stringify(ask1.messages).includes('weather_report'), 'the chat is not sent along');
    const call = ask2.messages.find((m) => m.role === 'assistant' && m.tool_calls);
    assert.equal(call?.tool_calls?.[0]?.id, 'call_gw_1', JSON.stringify(ask2.messages));
    assert.equal(call.tool_calls[0].function.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.tool_calls[0].function.arguments), { city: 'Paris' });
    const toolMsg = ask2.messages.find((m) => m.role === 'tool');
    assert.equal(toolMsg?.tool_call_id, 'call_gw_1');
    assert.match(String(toolMsg.content), /Sunny, 21 degrees in Paris/);
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'sampling-tools-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('c2. "Answer with": the card offers the user\'s models, the chosen one answers, and the server\'s next card starts on it', async () => {
  const { context, page, errors } = await openPage({ twoProfiles: true });
  try {
    await waitForTool(page);
    await api.reset();
    await api.script([
      { reply: 'Asking the server.', tool_calls: [{ id: 'call_sample_c2', name: TOOL, arguments: { prompt: 'Say hi', maxTokens: 20 } }] },
      { reply: SAMPLED },
      { reply: 'Done.' },
    ]);
    await page.fill(BOX, 'Use the sampling tool');
    await page.keyboard.press('Enter');
    const dialog = page.locator('.ask-sampling[role="dialog"]');
    await dialog.waitFor({ timeout: WAIT_MS });
    const pick = dialog.getByRole('combobox', { name: 'Answer with' });
    const labels = await pick.locator('option').allInnerTexts();
    assert.deepEqual(labels, [`Main \u00b7 ${MODEL}`, `Alternate \u00b7 ${ALT_MODEL}`]);
    assert.equal(await pick.evaluate((s) => s.selectedOptions[0].textContent), `Main \u00b7 ${MODEL}`, 'the conversation\'s model first');
    await pick.selectOption({ label: `Alternate \u00b7 ${ALT_MODEL}` });
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await dialog.waitFor({ state: 'detached', timeout: WAIT_MS });
    const requests = await api.requests();
    assert.equal(requests[0].body.model, MODEL, 'the chat itself stays on its model');
    assert.equal(requests[1].body.model, ALT_MODEL, 'the sampling request went to the chosen model');
    assert.match(await toolResult(page, 'call_sample_c2'), new RegExp(SAMPLED));
    // Remembered for this server: its next card starts on it.
    const kept = await page.evaluate((id) => localStorage.getItem(`skiff.sampling.model.${id}`), SERVER_ID);
    assert.deepEqual(JSON.parse(kept), { profile_id: 'p-alt', model: '' });
    await api.script([
      { reply: 'Again.', tool_calls: [{ id: 'call_sample_c2b', name: TOOL, arguments: { prompt: 'Say bye', maxTokens: 20 } }] },
      { reply: SAMPLED },
      { reply: 'Done again.' },
    ]);
    await page.fill(BOX, 'Once more');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ timeout: WAIT_MS });
    assert.equal(await pick.evaluate((s) => s.selectedOptions[0].textContent), `Alternate \u00b7 ${ALT_MODEL}`);
    await dialog.getByRole('button', { name: 'Deny' }).click();
    await dialog.waitFor({ state: 'detached', timeout: WAIT_MS });
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'sampling-c2-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('d. gone: the server dies while the card waits; the card says so and only dismisses', async () => {
  const { context, page, errors } = await openPage();
  try {
    await waitForTool(page);
    await api.reset();
    await api.script([
      { reply: 'Asking the server.', tool_calls: [{ id: 'call_sample_c', name: TOOL, arguments: { prompt: 'Say bye', maxTokens: 20 } }] },
      { reply: 'The server went away.' },
    ]);
    await page.fill(BOX, 'Use the sampling tool once more');
    await page.keyboard.press('Enter');
    const dialog = page.locator('.ask-sampling[role="dialog"]');
    await dialog.waitFor({ timeout: WAIT_MS });
    await mcp.kill('SIGKILL');
    const gone = dialog.locator('.ask-gone');
    await gone.waitFor({ timeout: WAIT_MS });
    assert.match(await gone.innerText(), /everything no longer waits for this answer/);
    assert.equal(await dialog.getByRole('button', { name: 'Approve' }).count(), 0, 'nothing can be approved');
    await dialog.getByRole('button', { name: 'Dismiss' }).click();
    await dialog.waitFor({ state: 'detached', timeout: WAIT_MS });
    assert.equal((await api.requests()).filter((r) => r.body.messages.some((m) => /sampling-request context/.test(JSON.stringify(m.content)))).length, 0);
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'sampling-c-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});
