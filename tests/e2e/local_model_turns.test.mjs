// End-to-end: the in-page model's turns as a person waits for them (issue 31, item 4's page
// side). The real SmolLM2-135M-Instruct GGUF is added through the model panel; the first
// question shows "Loading the model… N %" then "Reading the prompt… N of M tokens, about T s
// left" in the waiting answer; each finished answer keeps its tok/s, prompt speed and time to
// first token under it, after a reload too; and the second turn reuses the conversation's
// prefix from the worker's cache (reported as tokens reused), so its first token comes sooner
// than the first turn's. The context gauge counts against the model's own window.
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
