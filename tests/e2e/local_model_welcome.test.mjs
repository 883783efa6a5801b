// End-to-end: a newcomer with no local server gets an answer from the page itself (issue 31,
// item 2). The welcome screen offers the model that runs in the page with what it costs; one
// click downloads the suggested GGUF (its real address answered here by a redirect to the local
// copy on the test's own server), its progress shows in place, the chat takes over naming it, and the first answer comes
// with the network off. The request the welcome flow sends names no sampling, so the worker
// samples with llama.cpp's defaults and its fixed default seed (0): one build gives the same
// answer every run, but which answer is a draw (this 135M model is right about half the time
// at temperature 0.8), so its sense is not asserted, only printed. What is asserted does not
// depend on luck: that very request (its prompt is pinned token for token to llama.cpp's in
// src/worker/tests/engine_load.rs), sent again with greedy decoding (temperature 0), answers
// "Paris" in English. It also prints how long the newcomer waits (a benchmark line, not a timed
// assertion: the machine is shared).
//
// Needs: scripts/build.sh (dist/ with worker/) and the model (scripts/setup-models.sh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startStaticServer, launchBrowser, collectConsoleErrors, distDir, screenshot, repoRoot } from './harness.mjs';

const MODELS = process.env.SKIFF_MODELS || path.join(os.homedir(), '.cache', 'skiff', 'models');
const MODEL = path.join(MODELS, 'SmolLM2-135M-Instruct.Q4_1.gguf');
// The suggested address, read from core so the test follows it.
const WELCOME_RS = readFileSync(path.join(repoRoot, 'src/core/model_panel/welcome.rs'), 'utf8');
const SUGGESTED_URL = WELCOME_RS.match(/url: "(https:[^"]+)"/)[1];

let site, browser, files;

before(async () => {
  assert.ok(existsSync(MODEL), `${MODEL} is missing: run scripts/setup-models.sh`);
  assert.ok(existsSync(path.join(distDir(), 'worker', 'model-worker.js')), `no worker/ in ${distDir()}: run scripts/build.sh`);
  site = await startStaticServer();
  // The GGUF from a server of the test's own, as a model host answers a page: with CORS.
  // (Fulfilling the route with the file itself does not work: Playwright hands the body over
  // its DevTools pipe, whose 100 MB buffer the 98 MB file overflows, closing the browser.)
  files = createServer((req, res) => {
    res.writeHead(200, {
      'Access-Control-Allow-Origin': '*',
      'Content-Type': 'application/octet-stream',
      'Content-Length': statSync(MODEL).size,
    });
    createReadStream(MODEL).pipe(res);
  });
  await new Promise((resolve) => files.listen(0, '127.0.0.1', resolve));
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await site?.stop();
  files?.close();
});

test('with no local server, the welcome offers the page\'s own model; one click downloads it with progress in place, and it answers offline', async () => {
  const context = await browser.newContext();
  // No local server answers, whatever this machine runs on those ports.
  for (const port of [8080, 11434, 1234]) await context.route(`http://127.0.0.1:${port}/**`, (r) => r.abort('connectionrefused'));
  const fetched = [];
  // The model worker's fetch of the suggested address is routed too (checked: a dedicated
  // Worker's requests reach context.route; the service worker leaves other origins alone).
  await context.route(SUGGESTED_URL, (route) => {
    fetched.push(route.request().url());
    route.fulfill({
      status: 302,
      headers: { Location: `http://127.0.0.1:${files.address().port}/SmolLM2-135M-Instruct.Q4_1.gguf`, 'Access-Control-Allow-Origin': '*' },
    });
  });
  await context.addInitScript(() => {
    // The chat requests the page hands the model worker.
    window.__requests = [];
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (message, transfer) {
      try {
        const m = typeof message === 'string' ? JSON.parse(message) : message;
        if (m && m.op === 'fetch' && m.path === '/chat/completions') window.__requests.push(m.body);
      } catch { /* not a request */ }
      return post.call(this, message, transfer);
    };
    // When the first answer's status lines change, its first words show, and it ends.
    window.__turn = { lines: [], firstText: null, done: null };
    new MutationObserver(() => {
      const now = performance.now();
      const t = window.__turn;
      const status = document.querySelector('article.message-assistant .message-status.streaming');
      const line = status?.textContent.trim();
      if (line && t.lines.at(-1)?.line !== line) t.lines.push({ at: now, line });
      const words = document.querySelector('article.message-assistant .markdown')?.textContent.trim();
      if (words && t.firstText === null) t.firstText = now;
      if (t.done === null && document.querySelector('article.message-assistant[data-status="done"]')) t.done = now;
    }).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
  });
  await context.addInitScript(() => {
    window.__jobLines = [];
    new MutationObserver(() => {
      for (const el of document.querySelectorAll('.welcome-model-job')) {
        const t = el.textContent.trim();
        if (t && window.__jobLines[window.__jobLines.length - 1] !== t) window.__jobLines.push(t);
      }
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  try {
    const page = await context.newPage();
    const errors = collectConsoleErrors(page, { ignore: [/net::ERR_CONNECTION_REFUSED/, /net::ERR_FAILED/, /Failed to load resource/] });
    await page.goto(`${site.url}/`);
    const offer = page.locator('.welcome-model');
    await offer.waitFor({ timeout: 30_000 });
    const text = await offer.innerText();
    assert.match(text, /98 MB download · about 220 MB of memory while it runs · about \d+–\d+ tokens a second/, text);
    assert.match(text, /works offline from then on/, text);
    assert.match(text, /Or choose a GGUF file/, text);
    await screenshot(page, 'welcome-model-offer');

    await offer.getByRole('button', { name: /^Download SmolLM2-135M-Instruct \(98 MB\)$/ }).click();
    const chatting = page.getByText(/Chatting with In this browser · SmolLM2-135M-Instruct\.Q4_1, which runs on this device and works offline\./);
    await chatting.waitFor({ timeout: 180_000 });
    assert.deepEqual(fetched, [SUGGESTED_URL], 'the suggested file, once');
    const lines = await page.evaluate(() => window.__jobLines);
    assert.ok(lines.some((l) => /Downloading .*of 98 MB/.test(l)), `progress in place: ${JSON.stringify(lines)}`);
    await offer.waitFor({ state: 'detached', timeout: 10_000 });

    // The first answer, with the network gone.
    await context.setOffline(true);
    await page.fill('textarea[aria-label="Message"]', 'What is the capital of France?');
    const sent = await page.evaluate(() => performance.now());
    await page.keyboard.press('Enter');
    const answer = page.locator('article.message-assistant[data-status="done"]');
    await answer.waitFor({ timeout: 240_000 });
    const words = (await answer.locator('.markdown').innerText()).trim();
    assert.ok(words.length > 0, 'an answer');
    // The same request, greedy: a sensible answer, whatever the seed would draw.
    const [welcome] = await page.evaluate(() => window.__requests);
    const greedyBody = JSON.stringify({ ...JSON.parse(welcome), temperature: 0 });
    const greedy = await page.evaluate(async (body) => {
      const r = await window.__skiffLocalFetch('/chat/completions', body);
      const sse = await r.text();
      return sse.split('\n\n').filter((e) => e.startsWith('data: {'))
        .map((e) => JSON.parse(e.slice(6)).choices?.[0]?.delta?.content ?? '').join('');
    }, greedyBody);
    assert.match(greedy, /Paris/, `a sensible answer to the welcome request, greedy: ${greedy}`);
    assert.doesNotMatch(greedy, /^(Le|La|Les|L'|Il|Ce|C'est|Un|Une)\b/, `in the question's language: ${greedy}`);

    // Issue 31's goal: the first turn within 5 s once the model is loaded. Printed, not asserted.
    const t = await page.evaluate(() => window.__turn);
    // Loaded: the first line after the load's (reading the prompt), else the load's last line.
    const loading = (l) => /^(Loading the model|Waiting)/.test(l.line);
    const loaded = t.lines.find((l) => !loading(l))?.at ?? t.lines.filter(loading).at(-1)?.at ?? sent;
    const speed = await page.locator('article.message-assistant .message-status .speed').innerText();
    const s = (ms) => (ms / 1000).toFixed(2);
    console.log(`bench: welcome first turn: send → model loaded ${s(loaded - sent)} s; ` +
      `→ first words ${s(t.firstText - sent)} s (${s(t.firstText - loaded)} s after the load); ` +
      `→ answer's end ${s(t.done - sent)} s (${s(t.done - loaded)} s after the load); worker: ${speed.trim()}; ` +
      `answer (seed 0): ${JSON.stringify(words)}; greedy: ${JSON.stringify(greedy)}`);
    await screenshot(page, 'welcome-model-answer');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
