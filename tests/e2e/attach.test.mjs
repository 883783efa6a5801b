// End-to-end: attachments in the release build. A file picked, pasted or dropped on the
// composer is stored in IndexedDB (blob store, keyed by SHA-256) and goes to each provider in
// its own format: OpenAI `image_url` data URLs, Anthropic `image` blocks, Gemini `inlineData`.
// A large image is scaled to 1568 px before storing; a chip keeps the original size; the chip
// survives a reload, and a blob that is gone becomes a placeholder without breaking anything.
//
// What it must never do: listen on anything but 127.0.0.1, or wait without a bound.
//
// Needs: scripts/build.sh (dist/, or SKIFF_DIST).

import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  startOpenAiServer, startReplayServer, startStaticServer, launchBrowser, collectConsoleErrors, chatSettings,
} from './harness.mjs';

const WAIT_MS = 15_000;
// A 1×1 PNG: small enough to be stored as it is, so the request carries these exact bytes.
const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const PNG = { name: 'dot.png', mimeType: 'image/png', buffer: Buffer.from(PNG_B64, 'base64') };


let openai, anthropic, gemini, site, browser;

before(async () => {
  openai = await startOpenAiServer({ models: ['skiff-test-small'] });
  anthropic = await startReplayServer('anthropic_replay.py', 'sk-ant-test');
  gemini = await startReplayServer('gemini_replay.py', 'AIza-test');
  site = await startStaticServer(process.env.SKIFF_DIST || 'dist');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await site?.stop();
  await openai?.stop();
  anthropic?.stop();
  gemini?.stop();
});

beforeEach(async () => {
  await Promise.all([openai.reset(), anthropic.reset(), gemini.reset()]);
});

const settingsFor = {
  openai: () => chatSettings(openai.url),
  anthropic: () => JSON.stringify({ v: 1, data: {
    provider: 'anthropic', base_url: `${anthropic.url}/v1`, api_key: 'sk-ant-test', model: 'claude-test',
    system_prompt: '', theme: 'system', auto_title: false, system_template_enabled: false,
  } }),
  gemini: () => JSON.stringify({ v: 1, data: {
    provider: 'gemini', base_url: `${gemini.url}/v1beta`, api_key: 'AIza-test', model: 'gemini-test',
    system_prompt: '', theme: 'system', auto_title: false, system_template_enabled: false,
  } }),
};

async function page(kind, context) {
  context ??= await browser.newContext({ viewport: { width: 1100, height: 760 } });
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, settingsFor[kind]());
  const p = await context.newPage();
  const errors = collectConsoleErrors(p);
  await p.goto(site.url);
  await p.waitForSelector('textarea[aria-label="Message"]');
  return { context, page: p, errors };
}

const pendingChips = (p) => p.locator('form.composer .attachment');

async function sendAndWait(p, text) {
  await p.fill('textarea[aria-label="Message"]', text);
  await p.keyboard.press('Enter');
  await p.waitForFunction(() => {
    const all = document.querySelectorAll('article.message-assistant');
    return all.length > 0 && all[all.length - 1].dataset.status === 'done';
  }, null, { timeout: WAIT_MS });
}

/** The parsed body of the last model request a server received. */
async function lastBody(server, pathPart) {
  const reqs = (await server.requests()).filter((r) => r.path.includes(pathPart));
  assert.ok(reqs.length > 0, `no request to ${pathPart}`);
  const b = reqs[reqs.length - 1].body;
  return typeof b === 'string' ? JSON.parse(b) : b;
}

async function attachPng(p) {
  await p.locator('.attach-button input[type=file]').setInputFiles(PNG);
  await pendingChips(p).first().waitFor({ timeout: WAIT_MS });
  assert.match(await pendingChips(p).first().innerText(), /dot\.png · \d+ bytes · 1×1/);
}

test('OpenAI-compatible: an image question carries an image_url data URL', async () => {
  const { context, page: p, errors } = await page('openai');
  await attachPng(p);
  await sendAndWait(p, 'What is this?');
  const body = await lastBody(openai, '/chat/completions');
  const user = body.messages.filter((m) => m.role === 'user').pop();
  assert.deepEqual(user.content, [
    { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_B64}` } },
    { type: 'text', text: 'What is this?' },
  ]);
  assert.equal(await pendingChips(p).count(), 0, 'sent files leave the composer');
  await p.locator('article.message-user .attachment img').waitFor({ timeout: WAIT_MS });
  assert.deepEqual(errors, []);
  await context.close();
});

test('Anthropic: an image question carries an image block', async () => {
  const { context, page: p, errors } = await page('anthropic');
  await attachPng(p);
  await sendAndWait(p, 'What is this?');
  const body = await lastBody(anthropic, '/v1/messages');
  assert.deepEqual(body.messages, [{ role: 'user', content: [
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_B64 } },
    { type: 'text', text: 'What is this?' },
  ] }]);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Gemini: an image question carries inlineData', async () => {
  const { context, page: p, errors } = await page('gemini');
  await attachPng(p);
  await sendAndWait(p, 'What is this?');
  const body = await lastBody(gemini, ':streamGenerateContent');
  assert.deepEqual(body.contents, [{ role: 'user', parts: [
    { inlineData: { mimeType: 'image/png', data: PNG_B64 } },
    { text: 'What is this?' },
  ] }]);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Anthropic and Gemini read a PDF natively: a document block, and inlineData application/pdf', async () => {
  const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
  const pdf = { name: 'report.pdf', mimeType: 'application/pdf', buffer: PDF };
  for (const kind of ['anthropic', 'gemini']) {
    const { context, page: p, errors } = await page(kind);
    await p.locator('.attach-button input[type=file]').setInputFiles(pdf);
    await p.locator('form.composer .attachment', { hasText: 'report.pdf' }).waitFor({ timeout: WAIT_MS });
    await sendAndWait(p, 'Summarize');
    if (kind === 'anthropic') {
      const body = await lastBody(anthropic, '/v1/messages');
      assert.deepEqual(body.messages, [{ role: 'user', content: [
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF.toString('base64') } },
        { type: 'text', text: 'Summarize' },
      ] }]);
    } else {
      const body = await lastBody(gemini, ':streamGenerateContent');
      assert.deepEqual(body.contents, [{ role: 'user', parts: [
        { inlineData: { mimeType: 'application/pdf', data: PDF.toString('base64') } },
        { text: 'Summarize' },
      ] }]);
    }
    await p.locator('article.message-user .attachment', { hasText: 'report.pdf' }).waitFor({ timeout: WAIT_MS });
    assert.deepEqual(errors, [], kind);
    await context.close();
  }
});

test('a dropped large image is scaled to 1568 px, a pasted text file is inlined, a PDF to a local server is refused', async () => {
  const { context, page: p, errors } = await page('openai');
  // Drop a 2000×1000 PNG made in the page.
  await p.evaluate(async () => {
    const canvas = new OffscreenCanvas(2000, 1000);
    const g = canvas.getContext('2d');
    g.fillStyle = '#3a7'; g.fillRect(0, 0, 2000, 1000);
    const blob = await canvas.convertToBlob({ type: 'image/png' });
    const dt = new DataTransfer();
    dt.items.add(new File([blob], 'wide.png', { type: 'image/png' }));
    document.querySelector('form.composer').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  });
  await p.locator('form.composer .attachment', { hasText: 'wide.png' }).waitFor({ timeout: WAIT_MS });
  // The size shown is the scaled image's, so its dimensions go with it (issue 32).
  assert.match(await pendingChips(p).first().innerText(), /^wide\.png · [\d.]+ (KB|bytes) · 1568×784 \(scaled from 2000×1000\)/);
  // Paste a text file into the box.
  await p.evaluate(() => {
    const dt = new DataTransfer();
    dt.items.add(new File(['print("hi")\n'], 'hello.py', { type: 'text/x-python' }));
    document.querySelector('textarea[aria-label="Message"]').dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  });
  await p.locator('form.composer .attachment', { hasText: 'hello.py' }).waitFor({ timeout: WAIT_MS });
  // A PDF cannot go to a local OpenAI-compatible server: refused before sending, files kept.
  await p.locator('.attach-button input[type=file]').setInputFiles({ name: 'doc.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n') });
  await p.locator('form.composer .attachment', { hasText: 'doc.pdf' }).waitFor({ timeout: WAIT_MS });
  await p.fill('textarea[aria-label="Message"]', 'Describe');
  await p.keyboard.press('Enter');
  const alert = p.locator('form.composer .composer-hint');
  await alert.waitFor({ timeout: WAIT_MS });
  assert.match(await alert.innerText(), /skiff-test-small \(.*\) does not take PDF files/);
  assert.equal((await openai.requests()).filter((r) => r.path.includes('/chat/completions')).length, 0);
  await p.locator('form.composer .attachment', { hasText: 'doc.pdf' }).locator('.attachment-remove').click();
  await sendAndWait(p, 'Describe');
  const body = await lastBody(openai, '/chat/completions');
  const parts = body.messages.filter((m) => m.role === 'user').pop().content;
  assert.equal(parts[0].type, 'image_url');
  const png = Buffer.from(parts[0].image_url.url.replace('data:image/png;base64,', ''), 'base64');
  assert.equal(png.readUInt32BE(16), 1568, 'width scaled to the longest edge');
  assert.equal(png.readUInt32BE(20), 784);
  assert.deepEqual(parts.slice(1), [
    { type: 'text', text: 'File: hello.py\n```\nprint("hi")\n```' },
    { type: 'text', text: 'Describe' },
  ]);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a chip survives a reload; a blob that is gone shows a placeholder and the conversation goes on', async () => {
  const { context, page: p, errors } = await page('openai');
  await attachPng(p);
  await sendAndWait(p, 'What is this?');
  await p.reload();
  const sentChip = p.locator('article.message-user .attachment');
  await sentChip.locator('img').waitFor({ timeout: WAIT_MS });
  assert.match(await sentChip.innerText(), /dot\.png/);
  // Clear the blob store, as cleared site data would.
  await p.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open('skiff');
    open.onsuccess = () => {
      const tx = open.result.transaction('blobs', 'readwrite');
      tx.objectStore('blobs').clear();
      tx.oncomplete = () => { open.result.close(); resolve(); };
      tx.onerror = () => reject(tx.error);
    };
    open.onerror = () => reject(open.error);
  }));
  await p.reload();
  await p.locator('article.message-user .attachment[data-missing]').waitFor({ timeout: WAIT_MS });
  assert.match(await sentChip.innerText(), /dot\.png · image no longer stored/);
  await openai.reset();
  await sendAndWait(p, 'And now?');
  const body = await lastBody(openai, '/chat/completions');
  const users = body.messages.filter((m) => m.role === 'user');
  assert.deepEqual(users[0].content, [{ type: 'text', text: 'What is this?' }], 'the words still go');
  assert.deepEqual(errors, []);
  await context.close();
});

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

async function deleteConversation(p, title) {
  const row = p.locator('li.conversation', { has: p.locator('.conversation-select', { hasText: title }) });
  await row.locator('button[aria-label="Delete"]').click();
  await p.locator('.confirm-delete button.danger').click();
  await row.waitFor({ state: 'detached' });
}

async function waitBlobs(p, n) {
  const end = Date.now() + WAIT_MS;
  let blobs = await storedBlobs(p);
  while (blobs.length !== n && Date.now() < end) {
    await p.waitForTimeout(50);
    blobs = await storedBlobs(p);
  }
  assert.equal(blobs.length, n, `blobs stored: ${JSON.stringify(blobs)}`);
}

test("a file's bytes are deleted with the last conversation naming it, not before", async () => {
  const { context, page: p, errors } = await page('openai');
  await attachPng(p);
  await sendAndWait(p, 'First with the dot');
  await p.click('.new-chat');
  await attachPng(p);
  await sendAndWait(p, 'Second with the same dot');
  await waitBlobs(p, 1); // one file, stored once
  await deleteConversation(p, 'First with the dot');
  await p.waitForTimeout(300);
  await waitBlobs(p, 1); // the second still names it
  await p.reload();
  await p.locator('.conversation-select', { hasText: 'Second with the same dot' }).click();
  await p.locator('article.message-user .attachment img').waitFor({ timeout: WAIT_MS });
  await deleteConversation(p, 'Second with the same dot');
  await waitBlobs(p, 0);
  assert.deepEqual(errors, []);
  await context.close();
});
