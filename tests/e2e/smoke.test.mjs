// Smoke test of the end-to-end harness and of the built page.
//
// Why: proves that the pieces every browser test relies on work together —
// the static server, the scripted OpenAI-compatible server, Debian's Chromium
// under playwright-core — and that the built app boots without console errors.
// It never skips: a missing build is a failure with a message saying what to do.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  collectConsoleErrors,
  distDir,
  launchBrowser,
  newPage,
  screenshot,
  startOpenAiServer,
  startStaticServer,
} from './harness.mjs';

describe('smoke', () => {
  let browser;
  let openai;

  before(async () => {
    openai = await startOpenAiServer({ models: ['smoke-model'] });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await openai?.stop();
  });

  test('the built page boots and renders without console errors', async () => {
    const dist = distDir();
    assert.ok(
      existsSync(path.join(dist, 'index.html')),
      `no index.html in ${dist}: build the app first (scripts/build.sh, after ` +
        `scripts/setup.sh), or point SKIFF_DIST at a built dist directory`,
    );
    const site = await startStaticServer(dist);
    const page = await newPage(browser, { width: 1280, height: 800 });
    try {
      // On a first run the app looks for a local server on the usual ports
      // (llama.cpp 8080, Ollama 11434, LM Studio 1234); Chromium itself logs each
      // refused connection, which the page cannot prevent. Nothing else may appear.
      const errors = collectConsoleErrors(page, {
        ignore: [
          /^console\.error: Failed to load resource: net::ERR_CONNECTION_REFUSED \(http:\/\/(127\.0\.0\.1|localhost):(8080|11434|1234)\/v1\/models:0\)$/,
        ],
      });
      await page.goto(site.url + '/', { waitUntil: 'load' });
      // The app mounts into <body> once its wasm has loaded: wait for
      // something other than the loader's own tags to appear there.
      await page.waitForFunction(
        () => {
          const skip = new Set(['SCRIPT', 'NOSCRIPT', 'LINK', 'STYLE', 'TEMPLATE']);
          const shown = [...document.body.children].filter((el) => !skip.has(el.tagName));
          return shown.length > 0 && document.body.innerText.trim().length > 0;
        },
        null,
        { timeout: 20_000 },
      );
      await page.waitForLoadState('networkidle');
      await screenshot(page, 'smoke');
      const text = await page.evaluate(() => document.body.innerText.trim());
      assert.ok(text.length > 0, 'the page body has visible text');
      assert.deepEqual(errors, [], 'no console errors while booting');
    } finally {
      await page.context().close();
      await site.stop();
    }
  });

  test('harness: a page streams from the scripted server across origins', async () => {
    // A throwaway page, not the app: it checks the test servers and the
    // browser agree (CORS preflight with Authorization, SSE framing, a cut).
    const dir = await mkdtemp(path.join(os.tmpdir(), 'skiff-harness-'));
    await writeFile(
      path.join(dir, 'index.html'),
      `<!doctype html><meta charset="utf-8"><title>harness</title><body><pre id="out" style="white-space:pre-wrap"></pre>
<script type="module">
const api = new URL(location.href).searchParams.get('api');
async function stream() {
  const res = await fetch(api + '/v1/chat/completions', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer sk-test' },
    body: JSON.stringify({ model: 'smoke-model', stream: true, messages: [{ role: 'user', content: 'ping' }] }),
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let raw = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    raw += value;
  }
  return raw;
}
const models = await (await fetch(api + '/v1/models')).json();
const first = await stream();
let cut = 'no error';
try { await stream(); } catch (e) { cut = 'error: ' + e.name; }
document.getElementById('out').textContent = JSON.stringify({ models: models.data.map((m) => m.id), first, cut });
</script>`,
    );
    const site = await startStaticServer(dir);
    const page = await newPage(browser, { width: 800, height: 600, colorScheme: 'dark' });
    try {
      const errors = collectConsoleErrors(page);
      await openai.reset();
      await openai.script([
        { reply: 'pong pong', chunk_chars: 3, delay_ms: 20 },
        { reply: 'abcdefgh', chunk_chars: 2, cut_after_chars: 4 },
      ]);
      await page.goto(`${site.url}/?api=${encodeURIComponent(openai.url)}`);
      await page.waitForFunction(() => document.getElementById('out').textContent !== '', null, {
        timeout: 15_000,
      });
      await screenshot(page, 'harness-selftest');
      const result = JSON.parse(await page.locator('#out').textContent());
      assert.deepEqual(result.models, ['smoke-model']);
      const events = result.first.split('\n\n').filter(Boolean);
      assert.equal(events.at(-1), 'data: [DONE]');
      const text = events
        .slice(0, -1)
        .map((e) => JSON.parse(e.slice('data: '.length)))
        .map((c) => c.choices[0]?.delta?.content ?? '')
        .join('');
      assert.equal(text, 'pong pong');
      assert.match(result.cut, /^error: TypeError$/, 'a cut stream is an error in the browser');

      const seen = await openai.requests();
      assert.equal(seen.length, 2);
      assert.equal(seen[0].headers.authorization, 'Bearer sk-test');
      assert.equal(seen[0].headers.origin, site.url);
      assert.equal(seen[0].body.messages[0].content, 'ping');
      assert.equal(seen[0].completed, true);
      assert.equal(seen[1].completed, false);
      // The cut makes Chromium log a failed load; nothing else may appear.
      assert.deepEqual(
        errors.filter((e) => !/ERR_INCOMPLETE_CHUNKED_ENCODING|Failed to load resource/.test(e)),
        [],
      );
    } finally {
      await page.context().close();
      await site.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
