// End-to-end: the in-page model's turns as a person waits for them (issue 31, item 4's page
// side). The real SmolLM2-135M-Instruct GGUF is added through the model panel; the first
// question shows "Loading the model… N %" then "Reading the prompt… N of M tokens, about T s
// left" in the waiting answer; each finished answer keeps its tok/s, prompt speed and time to
// first token under it, after a reload too; and the second turn reuses the conversation's
// prefix from the worker's cache (reported as tokens reused), so its first token comes sooner
// than the first turn's. The context gauge counts against the model's own window.
//
// A six-question chat (the issue's "normal chat failed on its sixth short question with
// 'conversation is too long' while the gauge read 15 %"): with a system prompt that fills most
// of the model's 2,048-token window, every question gets an answer, the gauge counts against
// that window, and the earliest turns are left out of the request (trimmed, as the gauge says)
// instead of the turn being refused.
//
// Needs: scripts/build.sh (dist/ with worker/) and the model (scripts/setup-models.sh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  startStaticServer, launchBrowser, collectConsoleErrors, distDir, screenshot,
} from './harness.mjs';

const MODELS = process.env.SKIFF_MODELS || path.join(os.homedir(), '.cache', 'skiff', 'models');
const MODEL = path.join(MODELS, 'SmolLM2-135M-Instruct.Q4_1.gguf');
// A system prompt of about 300 tokens: more than two of the worker's 128-token prompt chunks,
// so reading it shows progress with a time left, and a second turn that read it all again
// (no prefix reuse) would be slower than the first, not faster.
const BACKGROUND = [
  'You are a helpful assistant who answers in one short sentence.',
  'Background for the conversation: the harbour town of Skiff lies on a rocky coast where the',
  'fishing boats leave before dawn and come back in the late afternoon with mackerel, cod and',
  'herring. The town has a lighthouse painted red and white, a small museum about sailing ships,',
  'a bakery famous for its cinnamon buns, a library with a reading room facing the sea, and a',
  'market on Saturdays where farmers from the valley sell cheese, apples, honey and wool. In',
  'winter the storms close the harbour for days, and the ferry to the islands waits in the bay.',
  'In summer visitors come to walk the cliff path, swim in the cold water, and watch the seals on',
  'the rocks below the lighthouse. The school teaches navigation, knots and weather to the older',
  'children, and every August the town holds a regatta with rowing boats, small sailing dinghies',
  'and a race for old wooden fishing boats that ends with music and grilled fish on the quay.',
  'The mayor keeps a logbook of every storm since the lighthouse was built, and the museum shows',
  'a map of the wrecks along the coast, each marked with the name of its ship and the year it sank.',
].join(' ');
const SETTINGS = JSON.stringify({
  v: 2,
  data: {
    profiles: [{ id: 'here', name: 'This browser', kind: 'browser', base_url: '', api_key: '', default_model: '', temperature: 0, top_p: null, max_tokens: 24 }],
    system_prompt: BACKGROUND, system_template_enabled: false, theme: 'system', auto_title: false, tool_mode: 'off',
  },
});

let site, browser;

before(async () => {
  assert.ok(existsSync(MODEL), `${MODEL} is missing: run scripts/setup-models.sh`);
  assert.ok(existsSync(path.join(distDir(), 'worker', 'model-worker.js')), `no worker/ in ${distDir()}: run scripts/build.sh`);
  site = await startStaticServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await site?.stop();
});

async function send(page, text) {
  await page.fill('textarea[aria-label="Message"]', text);
  await page.keyboard.press('Enter');
}

/** A page of `context` with the test model added through Settings' model panel. */
async function pageWithModel(context) {
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  await page.goto(`${site.url}/`);
  await page.waitForSelector('textarea[aria-label="Message"]');
  await page.click('button[aria-label="Settings"]');
  const panel = page.locator('section.local-models');
  await panel.locator('input[type="file"]').waitFor({ state: 'attached', timeout: 30_000 });
  await panel.locator('input[type="file"]').setInputFiles(MODEL);
  await panel.locator('.lm-model').waitFor({ timeout: 120_000 });
  await page.keyboard.press('Escape');
  return { page, errors };
}

/** The speed line under the `n`th answer (0-based): its text and what it was made from. */
async function speedOf(page, n) {
  const speed = page.locator('article.message-assistant').nth(n).locator('.message-status .speed');
  await speed.waitFor({ timeout: 10_000 });
  return {
    text: (await speed.innerText()).trim(),
    cacheN: Number(await speed.getAttribute('data-cache-n')),
    promptMs: Number(await speed.getAttribute('data-prompt-ms')),
  };
}

test('the waiting answer shows loading then prompt progress; the second turn reuses the prefix and answers sooner; each answer keeps its speed', async () => {
  const context = await browser.newContext();
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    // Every line the waiting answer shows, in order (they change faster than a test polls).
    window.__statusLines = [];
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('.message-status.streaming')) {
        const t = el.textContent.trim();
        if (t && window.__statusLines[window.__statusLines.length - 1] !== t) window.__statusLines.push(t);
      }
    }).observe(document, { subtree: true, childList: true, characterData: true });
  }, SETTINGS);
  try {
    const { page, errors } = await pageWithModel(context);

    // Turn 1: the model loads (stored, not yet in memory), then the prompt is read.
    await send(page, 'What is the capital of France?');
    await page.locator('article.message-assistant[data-status="done"]').nth(0).waitFor({ timeout: 240_000 });
    const lines = await page.evaluate(() => window.__statusLines);
    const loading = lines.filter((l) => /^Loading the model… \d+ %$/.test(l));
    const reading = lines.filter((l) => /^Reading the prompt… \d+ of \d+ tokens/.test(l));
    assert.ok(loading.length > 0, `loading progress shown: ${JSON.stringify(lines)}`);
    assert.ok(reading.some((l) => /, about \d+ s left$/.test(l)), `prompt progress with a time left: ${JSON.stringify(lines)}`);
    assert.ok(lines.indexOf(loading[0]) < lines.indexOf(reading[0]), 'loading comes before reading');
    const first = await speedOf(page, 0);
    assert.match(first.text, /^[\d.]+ tok\/s · prompt [\d.]+ tok\/s · first token after [\d.]+ s$/, first.text);
    assert.equal(first.cacheN, 0, 'nothing to reuse on the first turn');

    // Turn 2: only the new part of the prompt is read.
    await page.evaluate(() => { window.__statusLines = []; });
    await send(page, 'And the capital of Italy?');
    await page.locator('article.message-assistant[data-status="done"]').nth(1).waitFor({ timeout: 240_000 });
    const second = await speedOf(page, 1);
    assert.match(second.text, /· \d+ tokens reused · first token after [\d.]+ s$/, second.text);
    assert.ok(second.cacheN > 250, `the system prompt and first turn came from the cache: ${second.cacheN}`);
    assert.ok(second.promptMs < first.promptMs, `second turn's first token sooner: ${second.promptMs} ms vs ${first.promptMs} ms`);
    const again = await page.evaluate(() => window.__statusLines);
    assert.ok(!again.some((l) => l.startsWith('Loading the model')), `no second load: ${JSON.stringify(again)}`);
    // The gauge and trimming use the model's own window (2,048 tokens), not the 16k setting.
    const gauge = await page.locator('.context-gauge-text').innerText();
    const budget = gauge.match(/of ([\d.]+)(k?) tokens/);
    assert.ok(budget, gauge);
    assert.ok(Number(budget[1]) * (budget[2] ? 1000 : 1) <= 2048, `the model's window bounds the gauge: ${gauge}`);
    await screenshot(page, 'local-model-turns');

    // Reload: the speeds were stored with the answers.
    await page.reload();
    await page.locator('article.message-assistant[data-status="done"]').nth(1).waitFor({ timeout: 20_000 });
    assert.equal((await speedOf(page, 0)).text, first.text);
    assert.equal((await speedOf(page, 1)).text, second.text);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

// About 1,890 tokens by the page's estimate (1,767 by SmolLM2's tokenizer, with its template):
// with 24-token answers, the model's window (2,048, less the answer's 24) holds the system
// prompt and only the last three or four short turns, so a six-question chat must trim.
const FACTS = [
  'The lighthouse is painted red and white and its lamp was first lit in the spring of 1871.',
  'The bakery on the quay sells cinnamon buns, rye bread and apple cake every morning but Sunday.',
  'The library has a reading room facing the sea and keeps the logbooks of every storm.',
  'On Saturdays farmers from the valley sell cheese, apples, honey and wool at the market.',
  'In winter the storms close the harbour for days and the ferry to the islands waits in the bay.',
  'In summer visitors walk the cliff path, swim in the cold water and watch the seals on the rocks.',
  'The school teaches navigation, knots and weather to the older children of the town.',
  'Every August the town holds a regatta for rowing boats, dinghies and old wooden fishing boats.',
  'The museum shows a map of the wrecks along the coast, each marked with its ship and year.',
];
function townNotes() {
  const notes = [];
  for (let i = 0; i < 26; i++) {
    notes.push(`Note ${i + 1}. ` + FACTS.map((_, j) => FACTS[(i * 2 + j) % FACTS.length]).slice(0, 2 + (i % 3)).join(' '));
  }
  return 'You are a helpful assistant who answers in one short sentence. Background for the conversation: ' +
    'the harbour town of Skiff lies on a rocky coast where the fishing boats leave before dawn and come back ' +
    'in the late afternoon with mackerel, cod and herring.\n\nThe town notes:\n' + notes.join('\n');
}
const QUESTIONS = [
  'What colour is the lighthouse?',
  'When was its lamp first lit?',
  'What does the bakery sell?',
  'What is sold at the Saturday market?',
  'What happens in winter?',
  'When is the regatta?',
];

test('a six-question chat trims its earliest turns to the model\'s window instead of refusing the sixth', async () => {
  const settings = JSON.stringify({
    v: 2,
    data: {
      profiles: [{ id: 'here', name: 'This browser', kind: 'browser', base_url: '', api_key: '', default_model: '', temperature: 0, top_p: null, max_tokens: 24 }],
      // Trimming only (no summary request in between), so what each request carries is the
      // budget's doing alone.
      system_prompt: townNotes(), system_template_enabled: false, theme: 'system', auto_title: false, auto_compact: false, tool_mode: 'off',
    },
  });
  const context = await browser.newContext();
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    // Every chat request the page hands the model worker, as the worker receives it.
    window.__requests = [];
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (message, transfer) {
      try {
        const m = typeof message === 'string' ? JSON.parse(message) : message;
        if (m && m.op === 'fetch' && m.path === '/chat/completions') window.__requests.push(JSON.parse(m.body));
      } catch { /* not a request */ }
      return post.call(this, message, transfer);
    };
  }, settings);
  try {
    const { page, errors } = await pageWithModel(context);

    const answers = [];
    for (const [i, q] of QUESTIONS.entries()) {
      const t0 = Date.now();
      await send(page, q);
      const answer = page.locator('article.message-assistant').nth(i);
      // The first turn loads the model and reads the whole system prompt.
      await page.locator('article.message-assistant[data-status="done"], article.message-assistant[data-status="error"]').nth(i)
        .waitFor({ timeout: i === 0 ? 420_000 : 240_000 });
      const status = await answer.getAttribute('data-status');
      const text = (await answer.innerText()).trim();
      assert.equal(status, 'done', `question ${i + 1} answered, not refused: ${text}`);
      const words = (await answer.locator('.markdown').innerText()).trim();
      assert.ok(words.length > 0, `question ${i + 1} got words`);
      answers.push(words);
      console.log(`bench: six-question chat, turn ${i + 1}: ${((Date.now() - t0) / 1000).toFixed(1)} s, ${(await speedOf(page, i)).text}`);
    }

    // What the worker received: every question went, the last ones with only recent turns.
    const requests = await page.evaluate(() => window.__requests);
    assert.equal(requests.length, QUESTIONS.length, 'one request per question (no title, no summary)');
    const userTexts = (r) => r.messages.filter((m) => m.role === 'user').map((m) => m.content);
    for (const [i, r] of requests.entries()) {
      assert.equal(r.messages[0].role, 'system', `request ${i + 1} keeps the system prompt`);
      assert.equal(userTexts(r).at(-1), QUESTIONS[i], `request ${i + 1} asks question ${i + 1}`);
    }
    assert.deepEqual(userTexts(requests[1]), QUESTIONS.slice(0, 2), 'early turns carry the whole chat');
    const last = userTexts(requests.at(-1));
    assert.ok(!last.includes(QUESTIONS[0]), `the sixth request left out the first turn: ${JSON.stringify(last)}`);
    assert.ok(last.length >= 2, `and still carries recent turns: ${JSON.stringify(last)}`);
    const firstAssistant = requests.at(-1).messages.findIndex((m) => m.role !== 'system');
    assert.equal(requests.at(-1).messages[firstAssistant].role, 'user', 'the trimmed request opens on a question, not an answer');

    // The gauge: against the model's window (about 2.0k tokens, not the 16k setting), saying
    // that older messages are not sent.
    const gauge = await page.locator('.context-gauge-text').innerText();
    const budget = gauge.match(/of ([\d.]+)(k?) tokens/);
    assert.ok(budget, gauge);
    const tokens = Number(budget[1]) * (budget[2] ? 1000 : 1);
    assert.ok(tokens <= 2048 && tokens >= 1900, `the model's window bounds the gauge: ${gauge}`);
    assert.match(gauge, /· \d+ older messages not sent/, gauge);
    await screenshot(page, 'local-model-six-questions');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
