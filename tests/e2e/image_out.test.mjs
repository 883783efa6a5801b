// End-to-end: images a model returns, in the release build. Gemini's `inlineData` output part
// (the written fixture tests/fixtures/gemini/image_inline_png.written.sse, replayed byte for
// byte) and OpenRouter's `delta.images` data URLs (tests/servers/openai_compat.py `images`)
// are shown under the answer, stored once in IndexedDB's blob store under their SHA-256,
// survive a reload, become a placeholder when the blob is gone, are deleted with their
// conversation, and never break the next request (they are not sent back).
//
// What it must never do: listen on anything but 127.0.0.1, or wait without a bound.
//
// Needs: scripts/build.sh (dist/, or SKIFF_DIST).

import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  startOpenAiServer, startReplayServer, startStaticServer, launchBrowser, collectConsoleErrors, screenshot, chatSettings,
} from './harness.mjs';

const WAIT_MS = 15_000;
// The 2×2 red PNG inside the Gemini fixture, and a 3×2 blue one for OpenRouter.
const RED = 'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==';
const BLUE = 'iVBORw0KGgoAAAANSUhEUgAAAAMAAAACCAIAAAASFvFNAAAAD0lEQVR4nGNgYPgPQzAWADXeBfvilmCeAAAAAElFTkSuQmCC';
const sha = (b64) => createHash('sha256').update(Buffer.from(b64, 'base64')).digest('hex');

let openai, gemini, site, browser;

before(async () => {
  openai = await startOpenAiServer({ models: ['skiff-test-small'] });
  gemini = await startReplayServer('gemini_replay.py', 'AIza-test');
  site = await startStaticServer(process.env.SKIFF_DIST || 'dist');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await site?.stop();
  await openai?.stop();
  gemini?.stop();
});

beforeEach(async () => {
  await Promise.all([openai.reset(), gemini.reset()]);
});

const settingsFor = {
  openai: () => chatSettings(openai.url),
  gemini: () => JSON.stringify({ v: 1, data: {
    provider: 'gemini', base_url: `${gemini.url}/v1beta`, api_key: 'AIza-test', model: 'gemini-test',
    system_prompt: '', theme: 'system', auto_title: false, system_template_enabled: false,
  } }),
};

async function page(kind) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, settingsFor[kind]());
  const p = await context.newPage();
  const errors = collectConsoleErrors(p);
  await p.goto(site.url);
  await p.waitForSelector('textarea[aria-label="Message"]');
  return { context, page: p, errors };
}

async function sendAndWait(p, text, n) {
  await p.fill('textarea[aria-label="Message"]', text);
  await p.keyboard.press('Enter');
  await p.waitForFunction((n) => {
    const all = document.querySelectorAll('article.message-assistant');
    return all.length === n && all[n - 1].dataset.status === 'done';
  }, n, { timeout: WAIT_MS });
}

/** Hashes in the page's blob store. */
const storedBlobs = (p) => p.evaluate(() => new Promise((resolve, reject) => {
  const open = indexedDB.open('skiff');
  open.onsuccess = () => {
    const req = open.result.transaction('blobs').objectStore('blobs').getAllKeys();
    req.onsuccess = () => { open.result.close(); resolve(req.result); };
    req.onerror = () => reject(req.error);
  };
  open.onerror = () => reject(open.error);
}));

async function waitBlobs(p, want) {
  const end = Date.now() + WAIT_MS;
  let blobs = await storedBlobs(p);
  while (JSON.stringify(blobs) !== JSON.stringify(want) && Date.now() < end) {
    await p.waitForTimeout(50);
    blobs = await storedBlobs(p);
  }
  assert.deepEqual(blobs, want);
}

const clearBlobs = (p) => p.evaluate(() => new Promise((resolve, reject) => {
  const open = indexedDB.open('skiff');
  open.onsuccess = () => {
    const tx = open.result.transaction('blobs', 'readwrite');
    tx.objectStore('blobs').clear();
    tx.oncomplete = () => { open.result.close(); resolve(); };
    tx.onerror = () => reject(tx.error);
  };
  open.onerror = () => reject(open.error);
}));

async function deleteConversation(p, title) {
  const row = p.locator('li.conversation', { has: p.locator('.conversation-select', { hasText: title }) });
  await row.locator('button[aria-label="Delete"]').click();
  await p.locator('.confirm-delete button.danger').click();
  await row.waitFor({ state: 'detached' });
}

/** The returned image of the first answer, once drawn: its natural size and alt text. */
async function shownImage(p) {
  const img = p.locator('article.message-assistant figure.returned-image img').first();
  await img.waitFor({ timeout: WAIT_MS });
  await p.waitForFunction(() => document.querySelector('figure.returned-image img')?.complete, null, { timeout: WAIT_MS });
  return img.evaluate((i) => ({ w: i.naturalWidth, h: i.naturalHeight, alt: i.alt }));
}

/** The one thing both providers must do, after the first answer brought `b64`. */
async function checkLifecycle(p, b64, size, errors, nextRequest) {
  assert.deepEqual(await shownImage(p), { ...size, alt: 'image-1.png' });
  await waitBlobs(p, [sha(b64)]);
  await screenshot(p, `image-out-${size.w}x${size.h}`);
  // A click shows it at full size, another fits it again.
  const figure = p.locator('figure.returned-image').first();
  await figure.locator('button').click();
  assert.equal(await figure.evaluate((f) => f.classList.contains('full')), true);
  await figure.locator('button').click();
  assert.equal(await figure.evaluate((f) => f.classList.contains('full')), false);
  // Saved with the conversation: it is there after a reload.
  await p.waitForTimeout(1200);
  await p.reload();
  assert.deepEqual(await shownImage(p), { ...size, alt: 'image-1.png' });
  // The next request is accepted and carries no image back.
  await nextRequest();
  assert.deepEqual(errors, []);
}

test('Gemini: an inlineData image part is shown, stored under its hash, kept, and deleted with the conversation', async () => {
  const { context, page: p, errors } = await page('gemini');
  await gemini.script([{ fixture: 'image_inline_png.written.sse' }, { text: 'It is red.' }]);
  await sendAndWait(p, 'Draw a red square', 1);
  assert.match(await p.locator('article.message-assistant').first().innerText(), /Here is a red square/);
  await checkLifecycle(p, RED, { w: 2, h: 2 }, errors, async () => {
    await sendAndWait(p, 'What colour is it?', 2);
    const reqs = (await gemini.requests()).filter((r) => r.path.includes(':streamGenerateContent'));
    assert.equal(reqs.length, 2);
    const body = typeof reqs[1].body === 'string' ? JSON.parse(reqs[1].body) : reqs[1].body;
    assert.deepEqual(body.contents, [
      { role: 'user', parts: [{ text: 'Draw a red square' }] },
      { role: 'model', parts: [{ text: 'Here is a red square' }] },
      { role: 'user', parts: [{ text: 'What colour is it?' }] },
    ]);
    assert.match(await p.locator('article.message-assistant').nth(1).innerText(), /It is red\./);
  });
  await deleteConversation(p, 'Draw a red square');
  await waitBlobs(p, []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('OpenAI-compatible: delta.images data URLs are shown and kept; a bad one is a note; the next request goes through', async () => {
  const { context, page: p, errors } = await page('openai');
  await openai.script([
    { reply: 'A blue strip.', images: [`data:image/png;base64,${BLUE}`, 'data:image/tiff;base64,SUkqAA=='] },
    { reply: 'Blue, as asked.' },
  ]);
  await sendAndWait(p, 'Draw a blue strip', 1);
  const answer = p.locator('article.message-assistant').first();
  assert.match(await answer.innerText(), /A blue strip\./);
  assert.match(await answer.innerText(), /The model returned a file of type “image\/tiff”, not shown \(only PNG, JPEG, GIF and WebP are\)/);
  assert.equal(await p.locator('figure.returned-image').count(), 1);
  await checkLifecycle(p, BLUE, { w: 3, h: 2 }, errors, async () => {
    await sendAndWait(p, 'Which colour?', 2);
    const reqs = (await openai.requests()).filter((r) => r.path.includes('/chat/completions'));
    assert.equal(reqs.length, 2);
    assert.equal(reqs[1].status, 200);
    const body = typeof reqs[1].body === 'string' ? JSON.parse(reqs[1].body) : reqs[1].body;
    const assistant = body.messages.find((m) => m.role === 'assistant');
    assert.equal(typeof assistant.content, 'string', 'the answer goes back as its words only');
    assert.match(assistant.content, /^A blue strip\./);
    assert.ok(!JSON.stringify(body).includes(BLUE.slice(0, 40)), 'the image is not sent back');
  });
  // A blob that is gone is the chip's placeholder; the conversation goes on.
  await clearBlobs(p);
  await p.reload();
  const missing = p.locator('figure.returned-image[data-missing]');
  await missing.waitFor({ timeout: WAIT_MS });
  assert.match(await missing.innerText(), /image-1\.png · image no longer stored/);
  await openai.script([{ reply: 'Still here.' }]);
  await sendAndWait(p, 'Go on', 3);
  assert.deepEqual(errors, []);
  await context.close();
});
