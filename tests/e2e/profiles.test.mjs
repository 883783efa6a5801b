// End-to-end: provider profiles (issue 14, items 1, 2 and 8) in the release build, against
// the real test servers: an OpenAI-compatible one (tests/servers/openai_compat.py), Anthropic's
// Messages API replayed (tests/servers/anthropic_replay.py) and server-everything over
// Streamable HTTP for MCP.
//
// (a) Settings as builds before profiles stored them (format 1, one provider in flat fields)
//     load as one profile, nothing lost, and are written back as format 2.
// (b) Two profiles; a conversation switches model mid-way: the next request goes to the other
//     server in its own wire format, the conversation remembers its choice after a reload, and
//     a new conversation starts with the last used.
// (d) One conversation goes OpenAI-compatible → Gemini → Anthropic: each request in its own
//     wire format carries the whole history, and each key goes to its own origin only.
// (c) With an MCP server and two providers configured, every request the page makes is
//     recorded: each key appears only in requests to its own profile's origin.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  startOpenAiServer, startReplayServer, startStaticServer, launchBrowser, collectConsoleErrors, screenshot, distDir, repoRoot,
} from './harness.mjs';
import { startServer } from '../servers/mcp/servers.mjs';

const KEY_OPENAI = 'sk-openai-profile-key-1111';
const KEY_ANTHROPIC = 'sk-ant-profile-key-2222';
const KEY_GEMINI = 'AIza-profile-key-3333';
const WAIT_MS = 20_000;
const SERVERS_VERSION = Number(
  /pub const SERVERS_VERSION: u32 = (\d+);/.exec(readFileSync(path.join(repoRoot, 'src/core/mcp/config.rs'), 'utf8'))[1],
);


let openai, anthropic, gemini, site, browser, mcp;

before(async () => {
  assert.ok(existsSync(path.join(distDir(), 'index.html')), `no build in ${distDir()}: run scripts/build.sh first`);
  openai = await startOpenAiServer({ apiKey: KEY_OPENAI, models: ['gpt-a', 'gpt-b'] });
  anthropic = await startReplayServer('anthropic_replay.py', KEY_ANTHROPIC);
  gemini = await startReplayServer('gemini_replay.py', KEY_GEMINI);
  site = await startStaticServer();
  browser = await launchBrowser();
  mcp = await startServer('everything-http');
});

after(async () => {
  await browser?.close();
  await site?.stop();
  await openai?.stop();
  anthropic?.stop();
  gemini?.stop();
  await mcp?.stop();
});

beforeEach(async () => {
  await openai.reset();
  await anthropic.reset();
  await gemini.reset();
});

/** A page whose storage starts with `settings` (and `servers`, the MCP list), recording every request. */
async function openPage(settings, servers = [], { builtin = false } = {}) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const list = JSON.stringify({ v: SERVERS_VERSION, data: { servers } });
  const memory = JSON.stringify({ v: 1, data: { builtin_enabled: builtin, book: { entries: [], next_id: 1 } } });
  await context.addInitScript(([s, l, m]) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    if (!localStorage.getItem('skiff:mcp-servers')) localStorage.setItem('skiff:mcp-servers', l);
    if (!localStorage.getItem('skiff:memory')) localStorage.setItem('skiff:memory', m);
  }, [settings, list, memory]);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  const wire = [];
  page.on('request', async (req) => {
    const entry = { method: req.method(), url: req.url(), headers: req.headers(), body: req.postData() ?? '' };
    wire.push(entry);
    // Every header the browser sent, not only those Playwright lists at once.
    entry.headers = await req.allHeaders().catch(() => entry.headers);
  });
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]', { timeout: WAIT_MS });
  return { context, page, errors, wire };
}

async function send(page, text) {
  await page.fill('textarea[aria-label="Message"]', text);
  await page.keyboard.press('Enter');
}

/** Waits until `n` answers are on screen and the last is done. */
async function waitAnswers(page, n) {
  await page.waitForFunction((n) => {
    const all = document.querySelectorAll('article.message-assistant');
    return all.length === n && all[n - 1].dataset.status === 'done';
  }, n, { timeout: WAIT_MS });
}

const lastAnswer = async (page) => (await page.locator('article.message-assistant').last().locator('.markdown').innerText()).trim();
/** What the picker shows: the chosen option, "model · profile". */
const pickerLabel = (page) => page.locator('.model-select').evaluate((s) => s.selectedOptions[0]?.textContent ?? '');
const option = (page, profileId, model) => page.locator(`.model-select option[value="${profileId}/${model}"]`);
const chatRequests = async () => (await openai.requests()).filter((r) => r.path.endsWith('/chat/completions'));
const messagesRequests = async () => (await anthropic.requests()).filter((r) => r.path === '/v1/messages');

function twoProfiles() {
  return JSON.stringify({
    v: 2,
    data: {
      profiles: [
        { id: 'p-openai', name: 'Local OpenAI', kind: 'openai', base_url: `${openai.url}/v1`, api_key: KEY_OPENAI, default_model: 'gpt-a' },
        { id: 'p-anthropic', name: 'Anthropic test', kind: 'anthropic', base_url: `${anthropic.url}/v1`, api_key: KEY_ANTHROPIC, default_model: '' },
      ],
      system_prompt: '', theme: 'system', auto_title: false, system_template_enabled: false,
    },
  });
}

/** Chooses `model` of the profile `profileId` in the header's picker (focus lists empty caches). */
async function choose(page, profileId, model) {
  await page.focus('.model-select');
  await option(page, profileId, model).waitFor({ state: 'attached', timeout: WAIT_MS });
  await page.selectOption('.model-select', `${profileId}/${model}`);
}

test('(a) settings stored before profiles load as one profile with nothing lost', async () => {
  const legacy = {
    provider: 'openai', base_url: `${openai.url}/v1`, api_key: KEY_OPENAI, model: 'gpt-b',
    temperature: 0.3, top_p: null, max_tokens: 99, system_prompt: 'Be brief.', theme: 'dark',
    tool_mode: 'off', auto_title: false, system_template_enabled: false, step_limit: 7,
    learned_tool_modes: { [`${openai.url}/v1 gpt-b`]: 'prompt' },
  };
  const { context, page, errors } = await openPage(JSON.stringify({ v: 1, data: legacy }));
  try {
    // The migrated profile is in Settings → Providers, its form filled from the flat fields.
    await page.click('button[aria-label="Settings"]');
    // Settings is an on-demand chunk: it is there once its form is.
    await page.locator('.profile-select').waitFor();
    const origin = new URL(openai.url).host;
    assert.deepEqual(await page.locator('.profile-select option').allInnerTexts(), [`${origin} · OpenAI-compatible`]);
    assert.equal(await page.getByLabel('Base URL').inputValue(), `${openai.url}/v1`);
    assert.equal(await page.getByLabel('API key (optional)').inputValue(), KEY_OPENAI);
    assert.equal(await page.getByLabel('Default model').inputValue(), 'gpt-b');
    assert.equal(await page.locator('.profile-form').getByLabel('Temperature').inputValue(), '0.3');
    assert.equal(await page.locator('.profile-form').getByLabel('Max tokens').inputValue(), '99');
    assert.match(await page.locator('.key-hint').innerText(), /stored in this browser only/);
    await page.keyboard.press('Escape');
    assert.equal(await pickerLabel(page), `gpt-b · ${origin}`);

    // A request carries what the flat fields said.
    await send(page, 'first');
    await waitAnswers(page, 1);
    const [req] = await chatRequests();
    assert.equal(req.headers.authorization, `Bearer ${KEY_OPENAI}`);
    const body = req.body; // openai_compat.py keeps the body parsed
    assert.deepEqual(
      { model: body.model, temperature: body.temperature, max_tokens: body.max_tokens, system: body.messages[0] },
      { model: 'gpt-b', temperature: 0.3, max_tokens: 99, system: { role: 'system', content: 'Be brief.' } },
    );

    // Written back as format 2: one profile, every other field as it was.
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('skiff:settings')));
    assert.equal(stored.v, 2);
    assert.deepEqual(stored.data.profiles, [{
      id: 'migrated', name: origin, kind: 'openai', base_url: `${openai.url}/v1`, api_key: KEY_OPENAI,
      default_model: 'gpt-b', temperature: 0.3, top_p: null, max_tokens: 99,
    }]);
    for (const key of ['system_prompt', 'theme', 'tool_mode', 'auto_title', 'system_template_enabled', 'step_limit', 'learned_tool_modes']) {
      assert.deepEqual(stored.data[key], legacy[key], key);
    }
    for (const key of ['provider', 'base_url', 'api_key', 'model', 'temperature', 'max_tokens']) {
      assert.equal(key in stored.data, false, `${key} is no longer a flat field`);
    }
    assert.deepEqual(stored.data.last_used, { profile_id: 'migrated', model: 'gpt-b' });
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

/** (b)'s flow; returns what (c) inspects. */
async function switchMidway(page) {
  await send(page, 'first');
  await waitAnswers(page, 1);
  assert.equal(await lastAnswer(page), 'You said: first');
  assert.equal(await pickerLabel(page), 'gpt-a · Local OpenAI', 'no choice yet: the first profile');

  // The picker lists each profile's models from its own API, grouped by profile.
  await page.focus('.model-select');
  await option(page, 'p-openai', 'gpt-b').waitFor({ state: 'attached', timeout: WAIT_MS });
  await option(page, 'p-anthropic', 'claude-test').waitFor({ state: 'attached', timeout: WAIT_MS });
  assert.deepEqual(await page.locator('.model-select optgroup').evaluateAll((gs) => gs.map((g) => g.label)), ['Local OpenAI', 'Anthropic test']);
  assert.equal(await option(page, 'p-openai', 'gpt-a').evaluate((o) => o.selected), true);

  await choose(page, 'p-anthropic', 'claude-test');
  assert.equal(await pickerLabel(page), 'claude-test · Anthropic test');
  await send(page, 'second');
  await waitAnswers(page, 2);
  assert.equal(await lastAnswer(page), 'Hello!');
  const sent = await messagesRequests();
  assert.equal(sent.length, 1, 'the next request went to Anthropic');
  assert.equal(sent[0].headers['x-api-key'], KEY_ANTHROPIC);
  assert.equal(sent[0].headers.authorization, undefined);
  const body = JSON.parse(sent[0].body);
  assert.equal(body.model, 'claude-test');
  // Messages API shape, carrying the first exchange from the other provider.
  assert.deepEqual(body.messages.map((m) => [m.role, m.content.map((c) => c.text).join('')]), [
    ['user', 'first'], ['assistant', 'You said: first'], ['user', 'second'],
  ]);
  assert.equal((await chatRequests()).length, 1, 'nothing more went to the OpenAI-compatible server');

  // Remembered by the conversation across a reload.
  await page.reload();
  await page.waitForSelector('textarea[aria-label="Message"]');
  await waitAnswers(page, 2);
  assert.equal(await pickerLabel(page), 'claude-test · Anthropic test');
  await send(page, 'third');
  await waitAnswers(page, 3);
  assert.equal((await messagesRequests()).length, 2);
  assert.equal((await chatRequests()).length, 1);

  // A new conversation starts with the last used.
  await page.click('.new-chat');
  await page.waitForFunction(() => document.querySelectorAll('article.message-assistant').length === 0);
  assert.equal(await pickerLabel(page), 'claude-test · Anthropic test');
  await send(page, 'fresh');
  await waitAnswers(page, 1);
  assert.equal((await messagesRequests()).length, 3);

  // And back: choosing the OpenAI-compatible model sends there, in its format.
  await choose(page, 'p-openai', 'gpt-b');
  await send(page, 'back');
  await waitAnswers(page, 2);
  const chats = await chatRequests();
  assert.equal(chats.length, 2);
  assert.equal(chats[1].headers.authorization, `Bearer ${KEY_OPENAI}`);
  assert.equal(chats[1].body.model, 'gpt-b');
  assert.equal(await lastAnswer(page), 'You said: back');
}

test('(b) a conversation switches model mid-way, remembers it after a reload, and a new one starts with the last used', async () => {
  const { context, page, errors } = await openPage(twoProfiles());
  try {
    await switchMidway(page);
    assert.deepEqual(errors, []);
  } catch (err) {
    await screenshot(page, 'profiles-switch-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('(d) one conversation through all three: OpenAI-compatible, then Gemini, then Anthropic, each in its own format with the whole history', async () => {
  const settings = JSON.parse(twoProfiles());
  settings.data.profiles.push({
    id: 'p-gemini', name: 'Gemini test', kind: 'gemini', base_url: `${gemini.url}/v1beta`, api_key: KEY_GEMINI, default_model: '',
  });
  const { context, page, errors, wire } = await openPage(JSON.stringify(settings));
  try {
    await send(page, 'first');
    await waitAnswers(page, 1);
    assert.equal(await lastAnswer(page), 'You said: first');

    await gemini.script([{ text: 'Bonjour from Gemini.' }]);
    await choose(page, 'p-gemini', 'gemini-2.5-flash');
    await send(page, 'second');
    await waitAnswers(page, 2);
    assert.equal(await lastAnswer(page), 'Bonjour from Gemini.');
    const [g] = (await gemini.requests()).filter((r) => r.path.endsWith(':streamGenerateContent'));
    assert.equal(g.path, '/v1beta/models/gemini-2.5-flash:streamGenerateContent');
    assert.equal(g.headers['x-goog-api-key'], KEY_GEMINI);
    assert.deepEqual(g.body.contents.map((c) => [c.role, c.parts.map((p) => p.text).join('')]), [
      ['user', 'first'], ['model', 'You said: first'], ['user', 'second'],
    ]);

    await choose(page, 'p-anthropic', 'claude-test');
    await send(page, 'third');
    await waitAnswers(page, 3);
    const [a] = await messagesRequests();
    assert.deepEqual(JSON.parse(a.body).messages.map((m) => [m.role, m.content.map((c) => c.text).join('')]), [
      ['user', 'first'], ['assistant', 'You said: first'], ['user', 'second'], ['assistant', 'Bonjour from Gemini.'], ['user', 'third'],
    ]);

    // Remembered after a reload; each key went to its own origin only.
    await page.reload();
    await waitAnswers(page, 3);
    assert.equal(await pickerLabel(page), 'claude-test · Anthropic test');
    const own = { [KEY_OPENAI]: openai.url, [KEY_ANTHROPIC]: anthropic.url, [KEY_GEMINI]: gemini.url };
    for (const r of wire) {
      for (const [key, origin] of Object.entries(own)) {
        const carried = Object.values(r.headers).some((v) => String(v).includes(key)) || r.url.includes(key) || r.body.includes(key);
        if (carried) assert.ok(r.url.startsWith(origin), `${key} sent to ${r.url}`);
      }
    }
    assert.deepEqual(errors, []);
  } catch (err) {
    await screenshot(page, 'profiles-three-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('(c) with an MCP server and two providers, each key is sent only to its own origin', async () => {
  const servers = [{ id: 'everything', name: 'everything', url: mcp.url, transport: 'auto', headers: [], enabled: true }];
  const { context, page, errors, wire } = await openPage(twoProfiles(), servers);
  try {
    const mcpOrigin = new URL(mcp.url).origin;
    // The MCP server is connected and its tools listed before the turns that offer them.
    await page.waitForFunction(() => /Tools: ([1-9]\d)/.test(document.querySelector('.tool-picker-toggle')?.innerText ?? ''), null, { timeout: WAIT_MS });
    await switchMidway(page);
    // Settings → Test connection of the second profile lists its models once more.
    await page.click('button[aria-label="Settings"]');
    await page.selectOption('.profile-select', 'p-anthropic');
    assert.equal(await page.getByLabel('Base URL').inputValue(), `${anthropic.url}/v1`);
    await page.click('.test-connection');
    await page.locator('.connection-result .ok').waitFor();
    await page.keyboard.press('Escape');
    await page.waitForTimeout(300);

    const keys = { [KEY_OPENAI]: new URL(openai.url).origin, [KEY_ANTHROPIC]: new URL(anthropic.url).origin };
    const seen = { [KEY_OPENAI]: 0, [KEY_ANTHROPIC]: 0 };
    let toMcp = 0;
    for (const r of wire) {
      const origin = new URL(r.url).origin;
      if (origin === mcpOrigin) toMcp += 1;
      const text = `${r.url}\n${JSON.stringify(r.headers)}\n${r.body}`;
      for (const [key, home] of Object.entries(keys)) {
        if (text.includes(key)) {
          assert.equal(origin, home, `${key} was sent to ${r.method} ${r.url}`);
          seen[key] += 1;
        }
      }
    }
    assert.ok(toMcp > 0, 'the MCP server was reached');
    // Each key did travel (chat, listing), so the check above had something to check.
    assert.ok(seen[KEY_OPENAI] >= 2, `the OpenAI-compatible key was sent ${seen[KEY_OPENAI]} times`);
    assert.ok(seen[KEY_ANTHROPIC] >= 4, `the Anthropic key was sent ${seen[KEY_ANTHROPIC]} times`);
    // The reload leaves server-everything's old session behind; its refusal of that session
    // (a 400 the browser logs by itself) is the MCP client's expected path, not this test's.
    const mcpRefusal = new RegExp(`status of 40[04] .*\\(${mcpOrigin.replace(/[.]/g, '\\.')}/mcp:0\\)$`);
    assert.deepEqual(errors.filter((e) => !mcpRefusal.test(e)), []);
  } catch (err) {
    await screenshot(page, 'profiles-keys-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('the picker works at 375 px: its options panel, a free-text model id, capability flags, Escape and an outside click', async () => {
  // The built-in tools are on, so a model that takes tools would be offered some.
  const { context, page, errors } = await openPage(twoProfiles(), [], { builtin: true });
  try {
    await page.setViewportSize({ width: 375, height: 740 });
    const select = await page.locator('.model-select').boundingBox();
    assert.ok(select.x >= 0 && select.x + select.width <= 375, `the picker fits the header (${JSON.stringify(select)})`);
    await page.click('.model-more');
    const panel = page.locator('.model-picker-panel');
    await panel.waitFor();
    const box = await panel.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 375, `the panel fits the screen (${JSON.stringify(box)})`);
    // Escape closes it and gives focus back to its button; so does a click outside.
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('model-more')), true);
    await page.click('.model-more');
    await panel.waitFor();
    await page.mouse.click(10, 700);
    await panel.waitFor({ state: 'detached' });
    // A model id no list names, for the profile in use.
    await page.click('.model-more');
    await page.getByLabel('Another model of Local OpenAI').fill('my-custom-model');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('.model-select')?.selectedOptions[0]?.textContent === 'my-custom-model · Local OpenAI');
    // Its capability flags start unknown; the user says it takes no tools.
    assert.equal(await page.locator('select[data-cap="tools"]').inputValue(), '');
    await page.locator('select[data-cap="tools"]').selectOption('no');
    await page.getByText('no (set by you)').waitFor();
    await page.keyboard.press('Escape');
    await send(page, 'hello');
    await waitAnswers(page, 1);
    const [req] = await chatRequests();
    const body = req.body;
    assert.equal(body.model, 'my-custom-model');
    assert.equal(body.tools, undefined, 'a model without tools is offered none');
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('skiff:settings')).data.profiles[0].models);
    assert.deepEqual(stored.find((m) => m.id === 'my-custom-model'), { id: 'my-custom-model', caps: { tools: { user: false } }, listed: false });
    // The same model with tools left unknown is offered the built-in tools (the check above can fail).
    await page.click('.model-more');
    await page.locator('select[data-cap="tools"]').selectOption('');
    await page.keyboard.press('Escape');
    await send(page, 'again');
    await waitAnswers(page, 2);
    assert.ok((await chatRequests())[1].body.tools?.length > 0, 'tools offered again');
    assert.deepEqual(errors, []);
  } catch (err) {
    await screenshot(page, 'profiles-narrow-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});
