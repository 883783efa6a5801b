// On-demand chunks (src/ui/lazy.rs): a surface whose chunk cannot be fetched shows a sentence
// with Retry where it would be, the rest of the page keeps working, and Retry loads it. With
// `panic = "abort"`, a split point that panicked on a failed load would kill the whole page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, startStaticServer, collectConsoleErrors, screenshot } from './harness.mjs';

let site, browser;
before(async () => {
  site = await startStaticServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await site?.stop();
});

const CHUNK = /\/chunk-settings-[0-9a-f]+\.wasm$/;

/** A page without a service worker (its precache would answer the chunk from the cache). */
async function open() {
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const page = await context.newPage();
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
