// End-to-end: the conversations store owns the signals it hands out (ARCHITECTURE.md,
// "Ownership"). Before that rule, opening a conversation from the sidebar and then pressing
// its Rename or Delete disposed the conversation's signals under the sidebar row and the page
// panicked ("tried to access a reactive value … already disposed") and stayed dead. Each test
// here is what a user does, with no reload between the steps, and fails on any console error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  collectConsoleErrors, chatSettings, storedBodies, waitStored, openAiSuite,
} from './harness.mjs';

let api, site, browser;
openAiSuite((s) => ({ api, site, browser } = s));

const SETTINGS = () => chatSettings(api.url);

async function newContext() {
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  const settings = SETTINGS();
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, settings);
  return context;
}

async function open(context) {
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]');
  return { page, errors };
}

async function send(page, text) {
  await page.fill('textarea[aria-label="Message"]', text);
  await page.keyboard.press('Enter');
}

async function waitLastDone(page, timeout = 15000) {
  await page.waitForFunction(() => {
    const all = document.querySelectorAll('article.message-assistant');
    return all.length > 0 && all[all.length - 1].dataset.status === 'done';
  }, null, { timeout });
}

/** Two stored conversations, "Older one" then "Newer one", made through the page itself. */
async function twoConversations(context) {
  const { page } = await open(context);
  await send(page, 'Older one');
  await waitLastDone(page);
  await page.click('.new-chat');
  await send(page, 'Newer one');
  await waitLastDone(page);
  await page.close();
}

const row = (page, title) => page.locator('li.conversation', { has: page.locator('.conversation-select', { hasText: title }) });

/** The page still works: a message sends and its answer arrives. */
async function stillAlive(page, text) {
  await page.click('.new-chat');
  await send(page, text);
  await waitLastDone(page);
  assert.match(await page.locator('article.message-assistant').last().innerText(), new RegExp(`You said: ${text}`));
}

async function rename(page, from, to) {
  const r = row(page, from);
  await r.locator('button[aria-label="Rename"]').click();
  await page.getByLabel('Conversation title').fill(to);
  await page.locator('form.rename button[type="submit"]').click();
  await row(page, to).waitFor();
}

async function remove(page, title) {
  const r = row(page, title);
  await r.locator('button[aria-label="Delete"]').click();
  await page.locator('.confirm-delete button.danger').click();
  await row(page, title).waitFor({ state: 'detached' });
}

const storedTitles = (page) => page.evaluate(() => {
  const raw = localStorage.getItem('skiff:conversations');
  const index = JSON.parse(raw).data;
  return (Array.isArray(index) ? index : index.items ?? []).map((s) => s.title);
});

test('open the older conversation from the sidebar, rename it, then delete it (fresh page)', async () => {
  const context = await newContext();
  await twoConversations(context);

  let { page, errors } = await open(context);
  await row(page, 'Older one').locator('.conversation-select').click();
  await page.locator('.user-text', { hasText: 'Older one' }).waitFor();
  await rename(page, 'Older one', 'Renamed older');
  await stillAlive(page, 'after rename');
  assert.ok((await storedTitles(page)).includes('Renamed older'), 'the new title is stored');
  assert.deepEqual(errors, []);
  await page.close();

  ({ page, errors } = await open(context));
  await row(page, 'Renamed older').locator('.conversation-select').click();
  await page.locator('.user-text', { hasText: 'Older one' }).waitFor();
  await remove(page, 'Renamed older');
  await stillAlive(page, 'after delete');
  assert.ok(!(await storedTitles(page)).includes('Renamed older'), 'the deletion is stored');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a conversation switched to twice can be renamed and deleted', async () => {
  const context = await newContext();
  await twoConversations(context);
  const { page, errors } = await open(context);
  for (const title of ['Older one', 'Newer one', 'Older one', 'Newer one']) {
    await row(page, title).locator('.conversation-select').click();
    await page.locator('.user-text', { hasText: title }).waitFor();
  }
  await rename(page, 'Older one', 'Older, renamed');
  await rename(page, 'Newer one', 'Newer, renamed');
  await remove(page, 'Older, renamed');
  await remove(page, 'Newer, renamed');
  await stillAlive(page, 'after both');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a rename and a delete in a second tab, while the first has the conversation open', async () => {
  const context = await newContext();
  await twoConversations(context);
  const first = await open(context);
  await row(first.page, 'Older one').locator('.conversation-select').click();
  await first.page.locator('.user-text', { hasText: 'Older one' }).waitFor();

  const second = await open(context);
  await rename(second.page, 'Older one', 'Renamed elsewhere');
  await row(first.page, 'Renamed elsewhere').waitFor();
  await remove(second.page, 'Renamed elsewhere');
  await row(first.page, 'Renamed elsewhere').waitFor({ state: 'detached' });
  await first.page.getByText('This conversation was deleted in another tab.').waitFor();
  await stillAlive(first.page, 'first tab lives');
  assert.deepEqual(first.errors, []);
  assert.deepEqual(second.errors, []);
  await context.close();
});

test('a rename and a delete in a second tab while the first streams into that conversation', async () => {
  const context = await newContext();
  await twoConversations(context);
  const first = await open(context);
  await api.script([{ reply: 'slow '.repeat(300), chunk_chars: 5, delay_ms: 20 }]);
  await first.page.click('.new-chat');
  await send(first.page, 'Stream for a while');
  await first.page.waitForFunction(() => {
    const all = document.querySelectorAll('article.message-assistant .markdown');
    return all.length && all[all.length - 1].innerText.length > 30;
  });
  const title = 'Stream for a while';

  const second = await open(context);
  await rename(second.page, title, 'Renamed mid-stream');
  await row(first.page, 'Renamed mid-stream').waitFor();
  await remove(second.page, 'Renamed mid-stream');
  await first.page.getByText('This conversation was deleted in another tab.').waitFor();
  // The first tab stopped its turn and did not write the conversation back.
  await first.page.waitForTimeout(600);
  const keys = Object.keys(await storedBodies(second.page));
  assert.equal(keys.length, 2, 'the deleted conversation stays deleted');
  assert.deepEqual(first.errors, [], 'the streaming tab, before it sends again');
  await stillAlive(first.page, 'first tab after the stream');
  assert.deepEqual(first.errors, [], 'the streaming tab');
  assert.deepEqual(second.errors, [], 'the tab that deleted');
  await context.close();
});

test('a rename in a second tab survives the first tab streaming on into that conversation', async () => {
  // The streaming tab saves every moment, so its copy is always the later one; the rename
  // must still win (settings carry their own time, `meta_ms`), in both tabs and in storage.
  const context = await newContext();
  const first = await open(context);
  await api.script([{ reply: 'slow '.repeat(300), chunk_chars: 5, delay_ms: 20 }]);
  await send(first.page, 'Stream on');
  await first.page.waitForFunction(() => {
    const all = document.querySelectorAll('article.message-assistant .markdown');
    return all.length && all[all.length - 1].innerText.length > 30;
  });
  const second = await open(context);
  await rename(second.page, 'Stream on', 'Renamed while streaming');
  await row(first.page, 'Renamed while streaming').waitFor();
  await waitLastDone(first.page, 30000);
  // Let the last streamed saves reach the other tab.
  await first.page.waitForTimeout(800);
  for (const [name, page] of [['streaming tab', first.page], ['renaming tab', second.page]]) {
    assert.equal(await row(page, 'Renamed while streaming').count(), 1, name);
    assert.equal(await row(page, 'Stream on').count(), 0, name);
  }
  const bodies = await storedBodies(second.page);
  const [body] = Object.values(bodies).map((raw) => JSON.parse(raw).data);
  assert.equal(body.title, 'Renamed while streaming');
  assert.equal(body.title_source, 'user');
  assert.match(body.messages.at(-1).content, /^(slow ){300}$/);
  const reloaded = await open(context);
  await row(reloaded.page, 'Renamed while streaming').waitFor();
  assert.deepEqual(first.errors, []);
  assert.deepEqual(second.errors, []);
  await context.close();
});

test('50 regenerates dispose every replaced message (kept as branches, as data)', async () => {
  const context = await newContext();
  const { page, errors } = await open(context);
  await send(page, 'Again and again');
  await waitLastDone(page);
  for (let i = 0; i < 50; i++) {
    await page.locator('article.message-assistant').last().locator('button.regenerate').click();
    await waitLastDone(page);
  }
  // Disposal happens one render pass after the removal.
  await page.waitForFunction(() => window.__skiffLiveMessages === document.querySelectorAll('article.message').length, null, { timeout: 5000 });
  const live = await page.evaluate(() => window.__skiffLiveMessages);
  assert.equal(live, 2, 'one question and one answer are alive, not 51 answers');
  // The replaced answers are kept as branches in the stored record, not as live signals.
  const bodies = await waitStored(page, (b) => Object.values(b).some((raw) => JSON.parse(raw).data.branches.length === 50));
  const branches = JSON.parse(Object.values(bodies)[0]).data.branches.length;
  assert.equal(branches, 50);
  assert.equal((await page.locator('article.message-assistant .branch-pos').innerText()).trim(), '51/51');
  assert.deepEqual(errors, []);
  await context.close();
});
