// End-to-end: a provider whose CORS settings refuse this page, in the release build.
//
// A browser hides why a cross-origin request failed ("Failed to fetch" for a dead server and
// for a missing CORS header alike). Skiff asks the server again without CORS: a server that
// answers that is up, so the message names what it must allow (the page's origin and the
// request's headers) instead of listing every possible cause. A dead server still gets the
// network sentence.
//
// What it must never do: listen on anything but 127.0.0.1, or wait without a bound.
//
// Needs: scripts/build.sh (dist/, or SKIFF_DIST).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startStaticServer, launchBrowser, collectConsoleErrors, chatSettings } from './harness.mjs';

const WAIT_MS = 15_000;
let site, browser, noCors, seen;

before(async () => {
  site = await startStaticServer(process.env.SKIFF_DIST || 'dist');
  browser = await launchBrowser();
  seen = [];
  // An OpenAI-compatible address that answers everything, but never with a CORS header.
  noCors = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(req.method === 'OPTIONS' ? 204 : 200, { 'content-type': 'application/json' });
    res.end(req.method === 'OPTIONS' ? '' : '{}');
  });
  await new Promise((r) => noCors.listen(0, '127.0.0.1', r));
});

after(async () => {
  await browser?.close();
  await site?.stop();
  noCors?.close();
});

async function ask(baseUrl, extra) {
  const context = await browser.newContext();
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, chatSettings(baseUrl, extra));
  const page = await context.newPage();
  const errors = collectConsoleErrors(page, { ignore: [/net::ERR_|Failed to load resource|CORS policy/] });
  await page.goto(site.url);
  await page.fill('textarea[aria-label="Message"]', 'Hello?');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => {
    const a = document.querySelector('article.message-assistant');
    return a && a.dataset.status === 'error';
  }, null, { timeout: WAIT_MS });
  const text = await page.locator('article.message-assistant').innerText();
  return { context, page, errors, text };
}

test('a server that refuses this page by CORS is named, with the origin and headers it must allow', async () => {
  const url = `http://127.0.0.1:${noCors.address().port}`;
  const { context, errors, text } = await ask(url, { api_key: 'sk-local' });
  assert.match(text, new RegExp(
    `The provider at ${url.replace(/[.]/g, '\\.')} answered, but its CORS settings do not let this page read the answer\\. `
    + `The server must send Access-Control-Allow-Origin: ${site.url.replace(/\/$/, '').replace(/[.]/g, '\\.')} \\(or \\*\\) `
    + 'and allow the headers content-type, authorization \\(Access-Control-Allow-Headers\\)',
  ));
  assert.ok(seen.some((s) => s.startsWith('GET /v1/chat/completions')), `the no-CORS probe reached the server: ${seen}`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a dead server still gets the network sentence', async () => {
  // A port that was just free: nothing listens there.
  const probe = http.createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  const port = probe.address().port;
  await new Promise((r) => probe.close(r));
  const { context, errors, text } = await ask(`http://127.0.0.1:${port}`);
  assert.match(text, /Could not reach the provider: .*Check the base URL, your connection/);
  assert.doesNotMatch(text, /answered, but its CORS settings/);
  assert.deepEqual(errors, []);
  await context.close();
});
