// On-demand chunks (src/ui/lazy.rs): a surface whose chunk cannot be fetched shows a sentence
// with Retry where it would be, the rest of the page keeps working, and Retry loads it. With
// `panic = "abort"`, a split point that panicked on a failed load would kill the whole page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  launchBrowser, startStaticServer, startOpenAiServer, collectConsoleErrors, screenshot, chatSettings,
} from './harness.mjs';

let site, browser, api;
before(async () => {
  site = await startStaticServer();
  browser = await launchBrowser();
  api = await startOpenAiServer();
});
after(async () => {
  await browser?.close();
  await site?.stop();
  await api?.stop();
});

const CHUNK = /\/chunk-settings-[0-9a-f]+\.wasm$/;

/** A page without a service worker (its precache would answer the chunk from the cache).
 * `route`: [pattern, handler] installed before the page loads (a chunk fetched when idle). */
async function open({ configured = false, route } = {}) {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  if (configured) {
    await context.addInitScript((s) => localStorage.setItem('skiff:settings', s), chatSettings(api.url));
  }
  const page = await context.newPage();
  if (route) await page.route(...route);
  // The loader logs the failed fetch to the console: that is expected here.
  // (and a 404 page's body fails the chunk's integrity check: also expected).
  const errors = collectConsoleErrors(page, {
    ignore: [/Failed to load resource/, /Failed to fetch/, /split/i, /WebAssembly/, /ERR_/, /integrity/, /SRI/],
  });
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]');
  return { context, page, errors };
}

test('a chunk that is gone (a redeploy) says so, the page keeps working, and Retry loads it', async () => {
  const { context, page, errors } = await open();
  try {
    let refused = 0;
    await page.route(CHUNK, (route) => {
      refused += 1;
      return route.fulfill({ status: 404, body: 'not found' });
    });
    await page.click('button[aria-label="Settings"]');
    const failed = page.locator('.chunk-failed[role="alert"]');
    await failed.waitFor();
    assert.match(await failed.innerText(), /Settings could not be loaded: the browser could not fetch this part of Skiff\. Retry; if it fails again, reload the page/);
    assert.equal(refused, 1);
    await screenshot(page, 'chunk-failed');
    // The rest of the page is alive: the message box takes text.
    await page.fill('textarea[aria-label="Message"]', 'still here');
    assert.equal(await page.inputValue('textarea[aria-label="Message"]'), 'still here');

    await page.unroute(CHUNK);
    await failed.getByRole('button', { name: 'Retry' }).click();
    await page.locator('.settings [role="tablist"]').waitFor();
    assert.equal(await page.locator('.chunk-failed').count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('offline before the chunk was ever stored: the sentence says offline; back online, Retry opens it', async () => {
  const { context, page, errors } = await open();
  try {
    await context.setOffline(true);
    await page.waitForFunction(() => !navigator.onLine);
    await page.click('button[aria-label="Settings"]');
    const failed = page.locator('.chunk-failed[role="alert"]');
    await failed.waitFor();
    assert.match(await failed.innerText(), /Settings could not be loaded because the browser is offline/);
    await context.setOffline(false);
    await failed.getByRole('button', { name: 'Retry' }).click();
    await page.locator('.settings [role="tablist"]').waitFor();
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

// The send path (`runner::send_path`: a turn, the provider codecs, titles) is a chunk fetched
// once the page is idle, so the first visit's message box does not wait for it.
const SEND_CHUNK = /\/chunk-send-[0-9a-f]+\.wasm$/;
const box = 'textarea[aria-label="Message"]';
const lastAnswer = (page) => page.locator('article.message-assistant').last();

test('a message sent the moment the box takes input is answered, though the send chunk is still loading', async () => {
  await api.reset();
  await api.script([{ reply: 'Answered after the chunk came.', chunk_chars: 6 }]);
  // The chunk is held until the message has been sent, so the send surely waits for it.
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  let fetched = 0;
  const { context, page, errors } = await open({
    configured: true,
    route: [SEND_CHUNK, async (route) => { fetched += 1; await held; await route.continue(); }],
  });
  try {
    await page.fill(box, 'The first thing I type.');
    await page.keyboard.press('Enter');
    await page.locator('article.message-user').getByText('The first thing I type.').waitFor();
    // Waiting for the chunk: the question is shown, the answer is under way, nothing was sent.
    await page.waitForFunction(() => document.querySelector('article.message-assistant')?.dataset.status === 'streaming');
    assert.equal((await api.requests()).length, 0);
    release();
    await page.waitForFunction(() => document.querySelector('article.message-assistant')?.dataset.status === 'done', null, { timeout: 20_000 });
    assert.match(await lastAnswer(page).innerText(), /Answered after the chunk came\./);
    assert.equal((await api.requests()).length, 1, 'one request, sent once');
    assert.ok(fetched >= 1);
    assert.deepEqual(errors, []);
  } finally {
    release();
    await context.close();
  }
});

test('the send chunk is gone: the answer says so with Retry, the question stays, and Retry answers', async () => {
  await api.reset();
  await api.script([{ reply: 'Answered on Retry.', chunk_chars: 6 }]);
  const { context, page, errors } = await open({
    configured: true,
    route: [SEND_CHUNK, (route) => route.fulfill({ status: 404, body: 'not found' })],
  });
  try {
    await page.fill(box, 'Will this be sent?');
    await page.keyboard.press('Enter');
    const failed = lastAnswer(page).locator('.message-error[role="alert"]');
    await failed.waitFor();
    assert.match(await failed.innerText(), /The part of Skiff that sends messages could not be loaded: the browser could not fetch this part of Skiff\. Retry/);
    assert.equal(await page.locator('article.message-user').getByText('Will this be sent?').count(), 1);
    assert.equal((await api.requests()).length, 0, 'nothing was sent');
    await screenshot(page, 'send-chunk-failed');
    // The page is alive: the box takes text.
    await page.fill(box, 'still here');
    assert.equal(await page.inputValue(box), 'still here');

    await page.unroute(SEND_CHUNK);
    await failed.getByRole('button', { name: 'Retry' }).click();
    await page.waitForFunction(() => [...document.querySelectorAll('article.message-assistant')].at(-1)?.dataset.status === 'done', null, { timeout: 20_000 });
    assert.match(await lastAnswer(page).innerText(), /Answered on Retry\./);
    assert.equal((await api.requests()).length, 1);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
