// End-to-end: conversation bodies in IndexedDB (issue 12, item 11) in the release build.
// The conversation list stays in localStorage (the sidebar draws at once); bodies move to
// IndexedDB on the first start, are read back and compared before the old keys go, and a
// failure leaves the old keys where they were. Also: 1,000 realistic conversations (more than
// localStorage holds), two tabs in sync, Settings → Storage, and a full quota that loses
// nothing. The quota is made small with the DevTools protocol's
// `Storage.overrideQuotaForOrigin`, so "full" is the browser's own QuotaExceededError.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  collectConsoleErrors, chatSettings, storedBodies, waitStored, seedBodies, openAiSuite,
} from './harness.mjs';

let api, site, browser;
openAiSuite((s) => ({ api, site, browser } = s));

const DAY = 86_400_000;

/**
 * A conversation body exactly as the previous version wrote it to `skiff:conv:<id>`
 * (`persist::encode_conversation`, format 2: fields in struct order, empty optional ones left
 * out), and its index entry.
 */
function record(id, { messages = 10, chars = 500, updated = Date.now(), title = `Conversation ${id}` } = {}) {
  const created = updated - messages * 1000;
  const ms = [];
  for (let j = 0; j < messages; j++) {
    const body = `${id} message ${j} `;
    ms.push({
      id: `${id}-m${j}`,
      role: j % 2 === 0 ? 'user' : 'assistant',
      content: body + 'x'.repeat(Math.max(0, chars - body.length)),
      created_ms: created + j * 1000,
      status: { kind: 'done' },
    });
  }
  const text = JSON.stringify({ v: 2, data: { id, title, created_ms: created, updated_ms: updated, messages: ms } });
  return { id, text, summary: { id, title, updated_ms: updated } };
}

const indexText = (records) => JSON.stringify({
  v: 1,
  data: { items: records.map((r) => r.summary).sort((a, b) => b.updated_ms - a.updated_ms) },
});

/** A context whose localStorage holds what the previous version left: settings, list, bodies. */
async function oldProfile(records) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  await context.addInitScript(({ s, index, bodies }) => {
    if (localStorage.getItem('skiff:settings')) return;
    localStorage.setItem('skiff:settings', s);
    localStorage.setItem('skiff:conversations', index);
    for (const [id, text] of bodies) localStorage.setItem(`skiff:conv:${id}`, text);
  }, { s: chatSettings(api.url), index: indexText(records), bodies: records.map((r) => [r.id, r.text]) });
  return context;
}

async function openApp(context, hash = '') {
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  await page.goto(`${site.url}/${hash}`);
  await page.waitForSelector('textarea[aria-label="Message"]');
  return { page, errors };
}

const oldKeys = (page) => page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('skiff:conv:')));

/**
 * Limits this origin's quota to `bytes` (`null` lifts the limit) through a DevTools session on
 * `page`, which must stay open. Chromium applies it to IndexedDB only when set before the
 * origin first uses IndexedDB, so it is set from a blank page before the app loads.
 */
async function quota(cdp, bytes) {
  await cdp.send('Storage.overrideQuotaForOrigin', bytes === null ? { origin: site.url } : { origin: site.url, quotaSize: bytes });
}

/** A blank page of the site's origin, and a DevTools session on it for `quota`. */
async function blankPage(context) {
  const pre = await context.newPage();
  await pre.goto(`${site.url}/blank.txt`);
  return { pre, cdp: await context.newCDPSession(pre) };
}

async function send(page, text) {
  await page.fill('textarea[aria-label="Message"]', text);
  await page.keyboard.press('Enter');
}

async function waitLastDone(page) {
  await page.waitForFunction(() => {
    const all = document.querySelectorAll('article.message-assistant');
    return all.length && all[all.length - 1].dataset.status === 'done';
  }, null, { timeout: 15000 });
}

async function openStorageSettings(page) {
  await page.click('button[aria-label="Settings"]');
  await page.getByRole('tab', { name: 'Storage' }).click();
}

test('first start: old localStorage bodies move to IndexedDB, read back equal, old keys removed, every message opens', async () => {
  const records = [
    record('a1', { updated: Date.now() - 3000 }),
    record('b2', { updated: Date.now() - 2000 }),
    record('c3', { updated: Date.now() - 1000, messages: 4 }),
  ];
  const context = await oldProfile(records);
  const { page, errors } = await openApp(context);
  await page.locator('.conversation-select').nth(2).waitFor();
  // Moved exactly as they were written, and only then removed from localStorage.
  const bodies = await waitStored(page, (b) => Object.keys(b).length === 3);
  for (const r of records) assert.equal(bodies[r.id], r.text, `${r.id} moved unchanged`);
  await page.waitForFunction(() => !Object.keys(localStorage).some((k) => k.startsWith('skiff:conv:')));
  assert.ok(await page.evaluate(() => localStorage.getItem('skiff:conversations')), 'the list stays in localStorage');

  for (const r of records) {
    await page.locator('.conversation-select', { hasText: r.summary.title }).click();
    const n = JSON.parse(r.text).data.messages.length;
    await page.waitForFunction(([id, n]) => {
      const all = document.querySelectorAll('article.message');
      return all.length === n && all[n - 1].innerText.includes(`${id} message ${n - 1}`);
    }, [r.id, n]);
  }
  // A second start finds nothing to move and changes nothing.
  await page.reload();
  await page.locator('.conversation-select').nth(2).waitFor();
  assert.deepEqual(await oldKeys(page), []);
  assert.deepEqual(await storedBodies(page), Object.fromEntries(records.map((r) => [r.id, r.text])));
  await openStorageSettings(page);
  await page.locator('.storage-backend', { hasText: 'IndexedDB' }).waitFor();
  assert.equal(await page.locator('.storage-migration').innerText(), '', 'everything moved: no sentence');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a migration that fails leaves the old keys untouched, the page reads them, and the next start moves them', async () => {
  // ~100 KB each: more than the quota left below, which still lets the database open.
  const records = [record('k1', { updated: Date.now() - 2000, chars: 5000 }), record('k2', { updated: Date.now() - 1000, chars: 5000 })];
  const context = await oldProfile(records);
  const { cdp } = await blankPage(context);
  await quota(cdp, 50_000);
  const { page, errors } = await openApp(context);
  await openStorageSettings(page);
  const sentence = await page.locator('.storage-migration').innerText();
  assert.match(sentence, /2 conversations could not be moved to IndexedDB/);
  assert.match(sentence, /left untouched in localStorage/);
  await page.keyboard.press('Escape');
  const old = await page.evaluate(() => Object.fromEntries(Object.keys(localStorage)
    .filter((k) => k.startsWith('skiff:conv:')).map((k) => [k, localStorage.getItem(k)])));
  assert.deepEqual(old, Object.fromEntries(records.map((r) => [`skiff:conv:${r.id}`, r.text])), 'old keys untouched');
  assert.deepEqual(await storedBodies(page), {}, 'nothing half-moved');
  // Read from the old keys meanwhile.
  await page.locator('.conversation-select', { hasText: 'Conversation k1' }).click();
  await page.waitForFunction(() => document.querySelectorAll('article.message').length === 10);
  assert.match(await page.locator('article.message').last().innerText(), /k1 message 9/);

  await quota(cdp, null);
  await page.reload();
  await waitStored(page, (b) => Object.keys(b).length === 2);
  await page.waitForFunction(() => !Object.keys(localStorage).some((k) => k.startsWith('skiff:conv:')));
  assert.deepEqual(errors, []);
  await context.close();
});

test('1,000 conversations of 10 messages × 500 characters are all stored, and the last one opens after a reload', async () => {
  const N = 1000;
  const base = Date.now() - N * 60_000;
  const records = Array.from({ length: N }, (_, i) => record(`s${String(i).padStart(4, '0')}`, { updated: base + i * 60_000 }));
  const chars = records.reduce((n, r) => n + r.text.length, 0);
  assert.ok(chars > 5_000_000, `more than localStorage holds (${chars} characters)`);
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  const pre = await context.newPage();
  await pre.goto(`${site.url}/blank.txt`);
  await pre.evaluate(({ s, index }) => {
    localStorage.setItem('skiff:settings', s);
    localStorage.setItem('skiff:conversations', index);
  }, { s: chatSettings(api.url), index: indexText(records) });
  await seedBodies(pre, records.map((r) => [r.id, r.text]));
  await pre.close();

  const { page, errors } = await openApp(context);
  await api.script([{ reply: 'Stored next to a thousand others.' }]);
  await page.locator('.conversation-select').first().waitFor();
  await page.click('.new-chat');
  await send(page, 'one more on top');
  await waitLastDone(page);
  const bodies = await waitStored(page, (b) => Object.keys(b).length === N + 1, { timeout: 15000 });
  assert.equal(bodies.s0000, records[0].text);
  assert.equal(bodies.s0999, records[N - 1].text);

  // The oldest (last in the list) opens after a reload, with every message.
  await page.goto(`${site.url}/#s0000`);
  await page.reload();
  await page.waitForFunction(() => {
    const all = document.querySelectorAll('article.message');
    return all.length === 10 && all[9].innerText.includes('s0000 message 9');
  }, null, { timeout: 15000 });
  assert.equal(await page.locator('.chat-title').innerText(), 'Conversation s0000');
  assert.deepEqual(errors, []);
  await context.close();
});

test('two tabs: a message sent in one appears in the other', async () => {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, chatSettings(api.url));
  const one = await openApp(context);
  const two = await openApp(context);
  await api.script([{ reply: 'First answer.' }, { reply: 'Second answer, seen in both tabs.' }]);
  await send(one.page, 'hello from tab one');
  await waitLastDone(one.page);
  // The list travels by the storage event; the body is read from IndexedDB on opening.
  await two.page.locator('.conversation-select', { hasText: 'hello from tab one' }).click();
  await two.page.locator('.messages').getByText('First answer.').waitFor();

  await send(one.page, 'second from tab one');
  await waitLastDone(one.page);
  // Announced on the BroadcastChannel, re-read and merged message by message.
  await two.page.locator('.user-text', { hasText: 'second from tab one' }).waitFor();
  await two.page.locator('.messages').getByText('Second answer, seen in both tabs.').waitFor();
  assert.equal(await two.page.locator('article.message').count(), 4);
  assert.deepEqual(one.errors, []);
  assert.deepEqual(two.errors, []);
  await context.close();
});

test('Settings → Storage: where conversations live, persistence, usage against quota, and deleting old ones', async () => {
  const now = Date.now();
  const records = [
    record('old1', { updated: now - 100 * DAY, messages: 2 }),
    record('old2', { updated: now - 60 * DAY, messages: 2 }),
    record('new1', { updated: now - DAY, messages: 2 }),
  ];
  const context = await oldProfile(records);
  const { page, errors } = await openApp(context);
  await waitStored(page, (b) => Object.keys(b).length === 3);
  await openStorageSettings(page);
  await page.locator('.storage-backend', { hasText: 'kept in the browser\'s database (IndexedDB)' }).waitFor();
  await page.locator('.storage-persist', { hasText: /Persistent storage: (granted|not granted)/ }).waitFor();
  const usage = await page.locator('.storage-usage').innerText();
  assert.match(usage, /This site uses .+ of the .+ the browser allows it \(\d+ %\)/);
  assert.match(usage, /Conversations: 3 conversations, about \d/);
  assert.match(usage, /localStorage \(settings, servers, the conversation list\): about \d/);
  // Asking again records the browser's answer (headless Chromium says no).
  await page.click('.storage-persist-ask');
  await page.locator('.storage-persist', { hasText: /Persistent storage: (granted|not granted)/ }).waitFor();

  // Not changed in 30 days: the two old ones, with a count, and a confirmation before anything goes.
  await page.locator('.prune', { hasText: 'Not changed in 30 days: 2 conversations.' }).waitFor();
  const download = page.waitForEvent('download');
  await page.click('.prune-export');
  const file = await download;
  const lines = (await (await file.createReadStream()).toArray()).join('').trim().split('\n');
  assert.deepEqual(lines.map((l) => JSON.parse(l).conversation.id).sort(), ['old1', 'old2']);
  await page.click('.prune-delete');
  await page.locator('.prune-confirm', { hasText: 'Delete 2 conversations not changed in 30 days?' }).waitFor();
  await page.click('.prune-confirm-no');
  assert.equal(Object.keys(await storedBodies(page)).length, 3, 'Cancel deletes nothing');
  await page.click('.prune-delete');
  await page.click('.prune-confirm-yes');
  await page.locator('.prune-result', { hasText: 'Deleted 2 conversations.' }).waitFor();
  const left = await waitStored(page, (b) => Object.keys(b).length === 1);
  assert.deepEqual(Object.keys(left), ['new1']);
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('.conversation-select').count(), 1);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a full quota on write keeps the message on screen, says so, and the next write stores everything', async () => {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, chatSettings(api.url, { auto_title: false })); // every scripted reply goes to the chat
  const { cdp } = await blankPage(context);
  await quota(cdp, 300_000);
  const { page, errors } = await openApp(context);
  // The second answer alone is larger than the quota.
  // Words that do not repeat: Chromium compresses what it stores in IndexedDB, and a repeated
  // phrase would fit in any quota.
  let seed = 7;
  const word = () => { seed = (seed * 48271) % 2147483647; return seed.toString(36); };
  const big = `Kept while the disk is full. ${Array.from({ length: 60_000 }, word).join(' ')}`;
  // The third answer is the server's echo ("You said: …").
  await api.script([{ reply: 'Stored answer.' }, { reply: big }]);
  await send(page, 'before the quota');
  await waitLastDone(page);
  await waitStored(page, (b) => Object.values(b).some((t) => t.includes('Stored answer.')));
  await send(page, 'while the quota is full');
  await waitLastDone(page);
  await page.locator('.notice-error', { hasText: /storage is full/i }).waitFor();
  assert.match(await page.locator('.messages').innerText(), /Kept while the disk is full\./);
  const during = await storedBodies(page);
  // The question and the answer's first throttled writes were small enough to be stored; the
  // whole answer, past the quota, was not (and nothing stored before was lost).
  assert.ok(Object.values(during).every((t) => t.length < big.length), 'the whole answer could not be stored');
  assert.ok(Object.values(during).some((t) => t.includes('Stored answer.')), 'what was stored is still there');

  await quota(cdp, null);
  await send(page, 'after room was made');
  await waitLastDone(page);
  await waitStored(page, (b) => Object.values(b).some((t) => t.includes('You said: after room was made') && t.includes('Kept while the disk is full.')));
  await page.reload();
  await page.waitForFunction(() => document.querySelectorAll('article.message').length === 6
    && document.querySelector('.messages').innerText.includes('You said: after room was made'), null, { timeout: 15000 });
  const text = await page.locator('.messages').innerText();
  for (const s of ['before the quota', 'Stored answer.', 'while the quota is full', 'Kept while the disk is full.', 'after room was made']) {
    assert.ok(text.includes(s), `${s} survived`);
  }
  assert.deepEqual(errors, []);
  await context.close();
});
