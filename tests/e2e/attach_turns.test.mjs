// End-to-end: attachments across turns, in the release build, against the OpenAI-compatible
// test server (tests/servers/openai_compat.py).
//
// (a) A file attached while an answer streams waits with the queued words (shown in the
//     queued bar) and goes with them when the answer ends.
// (b) Stopping that answer puts the queued words back in the box and the files back beside it.
// (c) After the conversation switches to a model marked as not taking images, the image sent
//     earlier is left out of the next request, the model is told in words, and the composer
//     says so; a new image to that model is refused before anything is sent.
//
// What it must never do: listen on anything but 127.0.0.1, or wait without a bound.
//
// Needs: scripts/build.sh (dist/, or SKIFF_DIST).

import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import {
  startOpenAiServer, startStaticServer, launchBrowser, collectConsoleErrors, screenshot,
} from './harness.mjs';

const WAIT_MS = 15_000;
const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const PNG = { name: 'dot.png', mimeType: 'image/png', buffer: Buffer.from(PNG_B64, 'base64') };
const SLOW = { reply: 'word '.repeat(300), chunk_chars: 5, delay_ms: 20 };

let openai, site, browser;

before(async () => {
  openai = await startOpenAiServer({ models: ['seeing', 'text-only'] });
  site = await startStaticServer(process.env.SKIFF_DIST || 'dist');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await site?.stop();
  await openai?.stop();
});

beforeEach(async () => {
  await openai.reset();
});

function settings() {
  return JSON.stringify({ v: 2, data: {
    profiles: [{
      id: 'p-local', name: 'Local', kind: 'openai', base_url: `${openai.url}/v1`, api_key: '', default_model: 'seeing',
      models: [{ id: 'seeing' }, { id: 'text-only', caps: { vision: { user: false } } }],
    }],
    system_prompt: '', theme: 'system', auto_title: false, system_template_enabled: false,
  } });
}

async function openPage() {
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, settings());
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]');
  return { context, page, errors };
}

const pendingChips = (p) => p.locator('form.composer .attachment');
const hint = (p) => p.locator('.composer-hint');

async function type(p, text) {
  await p.fill('textarea[aria-label="Message"]', text);
  await p.keyboard.press('Enter');
}

async function attachPng(p) {
  await p.locator('.attach-button input[type=file]').setInputFiles(PNG);
  await pendingChips(p).first().waitFor({ timeout: WAIT_MS });
}

/** Waits until `n` answers are on screen and the last has `status`. */
async function waitAnswers(p, n, status = 'done') {
  await p.waitForFunction(([n, status]) => {
    const all = document.querySelectorAll('article.message-assistant');
    return all.length === n && all[n - 1].dataset.status === status;
  }, [n, status], { timeout: WAIT_MS });
}

const chatBodies = async () => (await openai.requests())
  .filter((r) => r.path.endsWith('/chat/completions'))
  .map((r) => (typeof r.body === 'string' ? JSON.parse(r.body) : r.body));

test('(a) a file attached while an answer streams waits with the queued words and goes with them', async () => {
  await openai.script([SLOW, { reply: 'It is a dot.' }]);
  const { context, page: p, errors } = await openPage();
  await type(p, 'Count slowly');
  await waitAnswers(p, 1, 'streaming');
  await attachPng(p);
  await type(p, 'And this?');
  const queued = p.locator('.queued-text');
  await queued.waitFor({ timeout: WAIT_MS });
  assert.equal(await queued.innerText(), 'And this?\n+ dot.png');
  assert.equal(await pendingChips(p).count(), 0, 'queued files leave the composer');
  await screenshot(p, 'attach-queued');
  await waitAnswers(p, 2);
  assert.equal(await queued.count(), 0, 'the queued bar goes once sent');
  const bodies = await chatBodies();
  assert.equal(bodies.length, 2);
  const user = bodies[1].messages.filter((m) => m.role === 'user').pop();
  assert.deepEqual(user.content, [
    { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_B64}` } },
    { type: 'text', text: 'And this?' },
  ]);
  await p.locator('article.message-user').last().locator('.attachment img').waitFor({ timeout: WAIT_MS });
  assert.deepEqual(errors, []);
  await context.close();
});

test('(b) Stop puts the queued words back in the box and the files beside it', async () => {
  await openai.script([SLOW]);
  const { context, page: p, errors } = await openPage();
  await type(p, 'Count slowly');
  await waitAnswers(p, 1, 'streaming');
  await attachPng(p);
  await type(p, 'Then this');
  await p.locator('.queued-text').waitFor({ timeout: WAIT_MS });
  await p.click('.stop');
  await waitAnswers(p, 1, 'stopped');
  await hint(p).waitFor({ timeout: WAIT_MS });
  assert.match(await hint(p).innerText(), /You stopped the answer, so your queued message was not sent/);
  assert.equal(await p.inputValue('textarea[aria-label="Message"]'), 'Then this');
  assert.equal(await pendingChips(p).count(), 1);
  assert.match(await pendingChips(p).first().innerText(), /dot\.png/);
  assert.equal((await chatBodies()).length, 1, 'nothing was sent behind the user\'s back');
  assert.deepEqual(errors, []);
  await context.close();
});

test('(c) a model without vision gets earlier images left out, in words, and refuses new ones', async () => {
  await openai.script([{ reply: 'A dot.' }, { reply: 'Noted.' }]);
  const { context, page: p, errors } = await openPage();
  await attachPng(p);
  await type(p, 'What is this?');
  await waitAnswers(p, 1);
  await p.focus('.model-select');
  await p.locator('.model-select option[value="p-local/text-only"]').waitFor({ state: 'attached', timeout: WAIT_MS });
  await p.selectOption('.model-select', 'p-local/text-only');

  // A new image to this model is refused before anything is sent, and kept.
  await attachPng(p);
  await type(p, 'And this one?');
  await hint(p).waitFor({ timeout: WAIT_MS });
  assert.equal(await hint(p).innerText(), 'text-only (Local) does not take images; choose a vision model or remove the image.');
  assert.equal((await chatBodies()).length, 1);
  assert.equal(await pendingChips(p).count(), 1, 'the refused file stays beside the box');
  await pendingChips(p).first().locator('button').click();
  assert.equal(await pendingChips(p).count(), 0);

  await type(p, 'And now?');
  await waitAnswers(p, 2);
  await screenshot(p, 'attach-left-out');
  assert.equal(
    await hint(p).innerText(),
    'dot.png, attached earlier in this conversation, cannot go to text-only (Local), so the model is told it was left out.',
  );
  const bodies = await chatBodies();
  assert.equal(bodies.length, 2);
  const body = bodies[1];
  assert.equal(body.model, 'text-only');
  assert.ok(!JSON.stringify(body).includes('image_url'), 'no image goes to a model without vision');
  const first = body.messages.find((m) => m.role === 'user');
  assert.equal(first.content, 'What is this?\n\n[Attached here but left out of this request, because text-only cannot read it: dot.png]');
  // The conversation itself still holds the image.
  assert.equal(await p.locator('article.message-user').first().locator('.attachment img').count(), 1);
  assert.deepEqual(errors, []);
  await context.close();
});
