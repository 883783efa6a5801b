// End-to-end: the provider seam in the release build. Settings that name the Anthropic
// provider (not selectable in the UI yet, so they are stored directly) make the page send a
// Messages API request, decode Anthropic's documented stream, and read its error body; the
// OpenAI-compatible path is what chat.test.mjs and agent.test.mjs cover.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { startReplayServer, startStaticServer, launchBrowser, collectConsoleErrors } from './harness.mjs';

const KEY = 'sk-ant-test';


let api, site, browser;

before(async () => {
  api = await startReplayServer('anthropic_replay.py', KEY);
  site = await startStaticServer(process.env.SKIFF_DIST || 'dist');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await site?.stop();
  api?.stop();
});

beforeEach(async () => {
  await api.reset();
});

async function anthropicPage(apiKey) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  const settings = JSON.stringify({
    v: 1,
    data: {
      provider: 'anthropic', base_url: `${api.url}/v1`, api_key: apiKey, model: 'claude-test',
      system_prompt: 'Be brief.', theme: 'system',
      // The wire format is what this suite checks (pipeline::request_tests checks the template
      // in Anthropic's system field).
      auto_title: false, system_template_enabled: false,
    },
  });
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, settings);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]');
  await page.fill('textarea[aria-label="Message"]', 'Hi');
  await page.keyboard.press('Enter');
  return { context, page, errors };
}

async function waitStatus(page, status) {
  await page.waitForFunction((s) => {
    const all = document.querySelectorAll('article.message-assistant');
    return all.length > 0 && all[all.length - 1].dataset.status === s;
  }, status, { timeout: 15_000 });
}

test('settings naming Anthropic send a Messages request and show its streamed answer', async () => {
  const { context, page, errors } = await anthropicPage(KEY);
  await waitStatus(page, 'done');
  const answer = page.locator('article.message-assistant').last();
  assert.equal((await answer.locator('.markdown').innerText()).trim(), 'Hello!');

  const sent = (await api.requests()).filter((r) => r.path === '/v1/messages');
  assert.equal(sent.length, 1);
  assert.equal(sent[0].headers['x-api-key'], KEY);
  assert.equal(sent[0].headers['anthropic-version'], '2023-06-01');
  assert.equal(sent[0].headers.authorization, undefined, 'no OpenAI-style Bearer header');
  const { tools, ...body } = JSON.parse(sent[0].body);
  // The built-in server's tools (memory, time) go as Anthropic tool definitions, not as
  // OpenAI's `{"type":"function","function":{...}}`.
  assert.ok(tools.length > 0, 'the built-in tools are offered');
  for (const t of tools) {
    assert.deepEqual(Object.keys(t).filter((k) => k !== 'description').sort(), ['input_schema', 'name']);
    assert.equal(t.input_schema.type, 'object');
  }
  assert.deepEqual(body, {
    model: 'claude-test',
    max_tokens: 4096,
    system: 'Be brief.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    stream: true,
  });
  // Whatever the page wrote back to storage kept the kind: format 1's flat provider became
  // one Anthropic profile.
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('skiff:settings')).data.profiles.map((p) => p.kind));
  assert.deepEqual(stored, ['anthropic']);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a refused key shows the sentence read from Anthropic\'s error body', async () => {
  const { context, page } = await anthropicPage('sk-ant-wrong');
  await waitStatus(page, 'error');
  const text = await page.locator('article.message-assistant').last().locator('.message-error').innerText();
  assert.match(text, /rejected the API key \(HTTP 401\): invalid x-api-key\. Check the key in Settings\./);
  await context.close();
});
