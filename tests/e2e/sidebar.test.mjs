// End-to-end: the sidebar with a thousand conversations (issue 12, item 8). It groups them by
// date in the user's time zone and draws only the rows in view, so its cost does not grow with
// the history: measured before this, a 1,000-row sidebar (24k DOM nodes) raised main-thread
// busy while streaming from 25 % to 46 %. Checked here: how many rows exist in the DOM, that
// the row heights the stylesheet gives are the ones core::sidebar computes with (a mismatch
// would make the list jump or leave gaps), scrolling to the oldest one and opening it, and a
// conversation opened from search being scrolled into view, and pinning.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  collectConsoleErrors, chatSettings, screenshot, openAiSuite,
} from './harness.mjs';

let api, site, browser;
openAiSuite((s) => ({ api, site, browser } = s), { reset: false });

const N = 1000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * N conversations as the store writes them (index + one key each), newest first: 5 from today,
 * 5 from yesterday, 10 from earlier this week, then one every 6 hours back in time.
 */
function seed(now) {
  const ages = [];
  for (let i = 0; i < N; i++) {
    if (i < 5) ages.push(i * 60_000);
    else if (i < 10) ages.push(DAY + (i - 5) * 60_000);
    else if (i < 20) ages.push(3 * DAY + (i - 10) * 60_000);
    else ages.push(8 * DAY + (i - 20) * 6 * HOUR);
  }
  const entries = [];
  const items = [];
  ages.forEach((age, i) => {
    const id = `side${String(i).padStart(4, '0')}`;
    const t = now - age;
    const title = `Conversation number ${i}`;
    const messages = [
      { id: `${id}u`, role: 'user', content: `Question ${i} about lanterns`, created_ms: t, status: { kind: 'done' } },
      { id: `${id}a`, role: 'assistant', content: `Answer ${i}.`, created_ms: t + 1, status: { kind: 'done' } },
    ];
    entries.push([`skiff:conv:${id}`, JSON.stringify({ v: 1, data: { id, title, created_ms: t, updated_ms: t, messages } })]);
    items.push({ id, title, updated_ms: t });
  });
  entries.push(['skiff:conversations', JSON.stringify({ v: 1, data: { items } })]);
  return entries;
}

async function openSeeded({ width = 1100, height = 760 } = {}) {
  // A fixed clock at 15:00 in Berlin, so the groups are known.
  const now = Date.parse('2026-11-24T14:00:00Z');
  const context = await browser.newContext({ viewport: { width, height }, timezoneId: 'Europe/Berlin' });
  await context.addInitScript(({ s, entries }) => {
    if (!localStorage.getItem('skiff:settings')) {
      localStorage.setItem('skiff:settings', s);
      for (const [k, v] of entries) localStorage.setItem(k, v);
    }
  }, { s: chatSettings(api.url), entries: seed(now) });
  const page = await context.newPage();
  await page.clock.setFixedTime(now);
  const errors = collectConsoleErrors(page);
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]');
  await page.waitForSelector('.conversation-list li.conversation');
  return { context, page, errors };
}

/** What the list holds in the DOM right now. */
function listState(page) {
  return page.evaluate(() => {
    const ul = document.querySelector('.conversation-list');
    const rows = [...ul.querySelectorAll('li.conversation')];
    return {
      rows: rows.length,
      groups: [...ul.querySelectorAll('li.conversation-group')].map((g) => g.textContent),
      heights: [...new Set(rows.filter((r) => !r.querySelector('.confirm-delete')).map((r) => r.getBoundingClientRect().height))],
      groupHeights: [...new Set([...ul.querySelectorAll('li.conversation-group')].map((g) => g.getBoundingClientRect().height))],
      setsize: rows.map((r) => r.getAttribute('aria-setsize')),
      firstPos: Number(rows[0]?.getAttribute('aria-posinset')),
      titles: rows.map((r) => r.querySelector('.conversation-select')?.textContent),
      scrollHeight: ul.scrollHeight,
      nodes: ul.querySelectorAll('*').length,
    };
  });
}

test('a thousand conversations: grouped by date, only the rows in view drawn, at the heights core computes with', async () => {
  const { context, page, errors } = await openSeeded();
  try {
    const s = await listState(page);
    assert.ok(s.rows > 10 && s.rows <= 80, `rows drawn for ${N} conversations: ${s.rows}`);
    assert.ok(s.nodes < 1000, `DOM nodes in the list: ${s.nodes}`);
    assert.deepEqual(s.setsize, Array(s.rows).fill(String(N)), 'every drawn row says how many there are');
    assert.equal(s.firstPos, 1);
    assert.deepEqual(s.groups.slice(0, 4), ['Today', 'Yesterday', 'Previous 7 days', 'Previous 30 days']);
    // core::sidebar::CONVERSATION_ROW_PX and GROUP_ROW_PX.
    assert.deepEqual(s.heights, [36], 'conversation rows are 36 px');
    assert.deepEqual(s.groupHeights, [28], 'group headings are 28 px');
    // The whole list still scrolls as if every row were there: 1000 rows of 36 px, the
    // headings, and the list's 12 px bottom padding.
    assert.ok(s.scrollHeight >= N * 36 && s.scrollHeight < N * 36 + 40 * 28 + 100, `scroll height ${s.scrollHeight}`);

    // Scroll to the very end: the oldest conversation is drawn and opens.
    await page.evaluate(() => { const ul = document.querySelector('.conversation-list'); ul.scrollTop = ul.scrollHeight; });
    await page.waitForFunction(() => [...document.querySelectorAll('.conversation-select')].some((b) => b.textContent === 'Conversation number 999'));
    const end = await listState(page);
    assert.ok(end.rows <= 80, `rows drawn at the end: ${end.rows}`);
    // 999 is 8 days + 979 × 6 h ≈ 253 days old: a month of 2026, shown without its year.
    assert.ok(end.groups.every((g) => /^(January|February|March|April|May|June|July|August|September|October|November|December)$/.test(g)), `month groups: ${end.groups}`);
    assert.equal(end.titles.at(-1), 'Conversation number 999');
    await page.getByRole('button', { name: 'Conversation number 999', exact: true }).click();
    await page.waitForFunction(() => document.querySelector('.chat-title')?.textContent === 'Conversation number 999');
    await page.waitForFunction(() => document.body.innerText.includes('Answer 999.'));
    await screenshot(page, 'sidebar-thousand-end');

    // Search for one in the middle: opening it scrolls its row into view and marks it active.
    await page.evaluate(() => { document.querySelector('.conversation-list').scrollTop = 0; });
    await page.keyboard.press('Control+k');
    await page.fill('input[type="search"]', 'Question 500 about');
    const hit = page.locator('.search-results button.search-hit').first();
    await hit.waitFor();
    await hit.click();
    await page.waitForFunction(() => document.querySelector('.chat-title')?.textContent === 'Conversation number 500');
    const active = await page.waitForFunction(() => {
      const ul = document.querySelector('.conversation-list');
      const li = ul.querySelector('li.conversation.active');
      if (!li) return null;
      const a = li.getBoundingClientRect(); const b = ul.getBoundingClientRect();
      return a.top >= b.top - 1 && a.bottom <= b.bottom + 1 ? li.textContent : null;
    });
    assert.match(await active.jsonValue(), /Conversation number 500/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a phone-sized sidebar scrolls its thousand rows and renames one far down, which moves to the top', async () => {
  const { context, page, errors } = await openSeeded({ width: 375, height: 700 });
  try {
    await page.locator('.chat-header button[aria-label="Conversations"]').click();
    await page.evaluate(() => { const ul = document.querySelector('.conversation-list'); ul.scrollTop = 700 * 36; });
    await page.waitForFunction(() => [...document.querySelectorAll('.conversation-select')].some((b) => b.textContent === 'Conversation number 700'));
    const row = page.locator('li.conversation', { hasText: 'Conversation number 700' });
    await row.getByRole('button', { name: 'Rename' }).click();
    // The row turns into the rename form (its title now only in the input).
    const form = page.locator('li.conversation form.rename');
    await form.getByLabel('Conversation title').fill('Renamed far down');
    await form.getByRole('button', { name: 'Save' }).click();
    // A rename counts as use: the conversation moves to the top, under Today.
    await page.evaluate(() => { document.querySelector('.conversation-list').scrollTop = 0; });
    await page.waitForFunction(() => [...document.querySelectorAll('.conversation-select')].some((b) => b.textContent === 'Renamed far down'));
    const s = await listState(page);
    assert.ok(s.rows <= 80, `rows drawn: ${s.rows}`);
    assert.deepEqual(s.heights, [36]);
    assert.equal(s.groups[0], 'Today');
    // (The page's clock is fixed at the newest seeded conversation's time, so they tie.)
    assert.ok(s.titles.slice(0, 2).includes('Renamed far down'), `top rows: ${s.titles.slice(0, 3)}`);
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('skiff:conversations')).data.items.find((i) => i.id === 'side0700').title);
    assert.equal(stored, 'Renamed far down');
    await screenshot(page, 'sidebar-phone-renamed');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a conversation pinned from the ⋯ menu heads the list under "Pinned", stays there after a reload, and unpins', async () => {
  const { context, page, errors } = await openSeeded();
  try {
    await page.evaluate(() => { const ul = document.querySelector('.conversation-list'); ul.scrollTop = 300 * 36; });
    await page.getByRole('button', { name: 'Conversation number 300', exact: true }).click();
    await page.waitForFunction(() => document.querySelector('.chat-title')?.textContent === 'Conversation number 300');
    await page.locator('.conversation-menu summary').click();
    await page.getByRole('button', { name: 'Pin to the top' }).click();
    await page.evaluate(() => { document.querySelector('.conversation-list').scrollTop = 0; });
    await page.waitForFunction(() => document.querySelector('.conversation-list li.conversation-group')?.textContent === 'Pinned');
    let s = await listState(page);
    assert.deepEqual(s.groups.slice(0, 2), ['Pinned', 'Today']);
    assert.equal(s.titles[0], 'Conversation number 300');
    assert.deepEqual(s.heights, [36]);
    const stored = () => page.evaluate(() => JSON.parse(localStorage.getItem('skiff:conversations')).data.items.find((i) => i.id === 'side0300'));
    assert.equal((await stored()).pinned, true);
    await screenshot(page, 'sidebar-pinned');

    await page.reload();
    await page.waitForSelector('.conversation-list li.conversation');
    s = await listState(page);
    assert.deepEqual(s.groups.slice(0, 2), ['Pinned', 'Today'], 'still pinned after a reload');
    assert.equal(s.titles[0], 'Conversation number 300');

    await page.getByRole('button', { name: 'Conversation number 300', exact: true }).click();
    await page.waitForFunction(() => document.querySelector('.chat-title')?.textContent === 'Conversation number 300');
    await page.locator('.conversation-menu summary').click();
    await page.getByRole('button', { name: 'Unpin' }).click();
    await page.waitForFunction(() => document.querySelector('.conversation-list li.conversation-group')?.textContent !== 'Pinned');
    assert.equal((await stored()).pinned, undefined, 'an unpinned summary stores no flag');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
