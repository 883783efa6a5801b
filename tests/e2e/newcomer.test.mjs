// End-to-end: what a newcomer hit on the release page (issue 11, item 9), each tried the way a
// new user would. Release build in headless Chromium against the scripted OpenAI-compatible
// server; assertions are about what the user sees: where the list is scrolled, where the caret
// is, what the composer and Settings say, whether a button is inside its sidebar.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  screenshot, collectConsoleErrors, chatSettings, openAiSuite,
} from './harness.mjs';

let api, site, browser;
openAiSuite((s) => ({ api, site, browser } = s));

const SETTINGS = () => chatSettings(api.url);

/** A fresh browser context (own localStorage) with the provider configured. */
async function configuredPage(opts = {}) {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1100, height: opts.height ?? 700 },
    colorScheme: opts.colorScheme ?? 'light',
  });
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, SETTINGS());
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]');
  return { context, page, errors };
}

async function send(page, text) {
  await page.fill('textarea[aria-label="Message"]', text);
  await page.keyboard.press('Enter');
}

async function waitStatus(page, status, timeout = 20000) {
  await page.waitForFunction(
    (s) => {
      const all = document.querySelectorAll('article.message-assistant');
      return all.length > 0 && all[all.length - 1].dataset.status === s;
    },
    status,
    { timeout },
  );
}

/** Where the message list is scrolled, and whether the newest message's end is in view. */
const scrollState = (page) => page.evaluate(() => {
  const el = document.querySelector('.messages');
  const last = [...document.querySelectorAll('article.message')].at(-1);
  const box = el.getBoundingClientRect();
  const lastBox = last?.getBoundingClientRect();
  return {
    top: el.scrollTop,
    height: el.scrollHeight,
    client: el.clientHeight,
    atBottom: el.scrollTop + el.clientHeight >= el.scrollHeight - 4,
    lastEndVisible: !!lastBox && lastBox.bottom <= box.bottom + 1 && lastBox.bottom > box.top,
  };
});

/**
 * At the bottom as the user sees it. A look taken between a flush and the next frame sees new
 * text the page has not scrolled to yet (it scrolls once per frame, before painting), so the
 * check runs at animation frames and passes if one of them within 500 ms is at the bottom; a
 * page that stopped following never is.
 */
async function atBottomAsPainted(page, what) {
  try {
    await page.waitForFunction(() => {
      const el = document.querySelector('.messages');
      return el.scrollTop + el.clientHeight >= el.scrollHeight - 4;
    }, null, { polling: 'raf', timeout: 500 });
  } catch {
    assert.fail(`${what}: not at the bottom: ${JSON.stringify(await scrollState(page))}`);
  }
}

/** What has focus, described the way a test can compare it. */
const focused = (page) => page.evaluate(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return 'body';
  return el.getAttribute('aria-label') || el.className || el.tagName;
});

/** Many paragraphs: an answer several screens tall. */
const longReply = (tag, n = 60) =>
  Array.from({ length: n }, (_, i) => `${tag} paragraph ${i + 1}: some text to read.`).join('\n\n');

test('a conversation opened from the sidebar or after a reload opens at its newest message', async () => {
  await api.script([
    { reply: longReply('Early'), chunk_chars: 400 },
    { reply: longReply('Middle'), chunk_chars: 400 },
    { reply: longReply('Newest') + '\n\nTHE VERY END.', chunk_chars: 400 },
    { reply: 'A short other chat.' },
  ]);
  const { context, page, errors } = await configuredPage();
  for (const q of ['tell me a story', 'go on', 'and the end?']) {
    await send(page, q);
    await waitStatus(page, 'done');
  }
  await page.click('.new-chat');
  assert.equal(await focused(page), 'Message', 'New chat puts the caret in the message box');
  await send(page, 'something else');
  await waitStatus(page, 'done');

  // Open the long one from the sidebar: its newest text is what shows.
  await page.locator('.conversation-select', { hasText: 'tell me a story' }).click();
  await page.getByText('THE VERY END.').waitFor();
  await page.waitForFunction(() => {
    const el = document.querySelector('.messages');
    return el.scrollHeight > el.clientHeight * 3 && el.scrollTop + el.clientHeight >= el.scrollHeight - 4;
  }, null, { timeout: 5000 }).catch(() => {});
  let s = await scrollState(page);
  assert.ok(s.height > s.client * 3, `the conversation is several screens tall (${s.height} px in ${s.client} px)`);
  assert.ok(s.atBottom && s.lastEndVisible, `opened from the sidebar at its newest message: ${JSON.stringify(s)}`);
  assert.ok(await page.getByText('THE VERY END.').isVisible());
  assert.equal(await focused(page), 'Message', 'choosing a conversation puts the caret in the message box');
  await screenshot(page, 'newcomer-opened-at-newest');

  // Scroll away, then reload: the page reopens it (URL) at the newest message, focused.
  await page.locator('.messages').evaluate((el) => { el.scrollTop = 0; });
  await page.reload();
  await page.getByText('THE VERY END.').waitFor();
  await page.waitForTimeout(300);
  s = await scrollState(page);
  assert.ok(s.atBottom && s.lastEndVisible, `after a reload at the newest message: ${JSON.stringify(s)}`);
  assert.equal(await focused(page), 'Message', 'the message box has focus on load');

  // Switching to the short one and back lands at the bottom each time.
  await page.locator('.conversation-select', { hasText: 'something else' }).click();
  await page.getByText('A short other chat.').waitFor();
  await page.locator('.conversation-select', { hasText: 'tell me a story' }).click();
  await page.getByText('THE VERY END.').waitFor();
  await page.waitForTimeout(300);
  s = await scrollState(page);
  assert.ok(s.atBottom && s.lastEndVisible, `switched back at the newest message: ${JSON.stringify(s)}`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a streaming answer is followed until the user scrolls up, and again once back at the bottom', async () => {
  // A first exchange so the list already scrolls, then a slow answer ~10 screens long.
  await api.script([
    { reply: longReply('Warm-up', 30), chunk_chars: 400 },
    { reply: longReply('Streamed', 120), chunk_chars: 24, delay_ms: 20 },
  ]);
  const { context, page, errors } = await configuredPage();
  await send(page, 'warm up');
  await waitStatus(page, 'done');
  await send(page, 'now a long one');
  await waitStatus(page, 'streaming');

  // While following: at the bottom every time we look, while the list keeps growing.
  const heights = [];
  for (let i = 0; i < 8; i++) {
    await page.waitForTimeout(150);
    await atBottomAsPainted(page, `following the stream (sample ${i})`);
    heights.push((await scrollState(page)).height);
  }
  assert.ok(heights.at(-1) > heights[0], `the answer grew while followed (${heights[0]} → ${heights.at(-1)} px)`);

  // The user scrolls up to read: the view stays where they put it while text keeps arriving.
  await page.hover('.messages');
  await page.mouse.wheel(0, -700);
  await page.waitForTimeout(300);
  const readingAt = await scrollState(page);
  assert.ok(!readingAt.atBottom, `scrolled up: ${JSON.stringify(readingAt)}`);
  await page.waitForTimeout(700);
  const later = await scrollState(page);
  assert.equal(await page.locator('article.message-assistant').last().getAttribute('data-status'), 'streaming');
  assert.ok(later.height > readingAt.height, 'text kept arriving');
  assert.ok(Math.abs(later.top - readingAt.top) <= 2, `the view did not move while the user reads (${readingAt.top} → ${later.top})`);
  await screenshot(page, 'newcomer-reading-while-streaming');

  // Back to the bottom: following resumes.
  await page.mouse.wheel(0, 100000);
  await page.waitForTimeout(300);
  for (let i = 0; i < 4; i++) {
    await page.waitForTimeout(200);
    await atBottomAsPainted(page, `following again (sample ${i})`);
  }
  await waitStatus(page, 'done', 30000);
  const end = await scrollState(page);
  assert.ok(end.atBottom && end.lastEndVisible, `the whole answer ends in view: ${JSON.stringify(end)}`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Enter while an answer streams queues the message: shown, cancellable, sent when the answer ends', async () => {
  await api.script([
    { reply: 'word '.repeat(300), chunk_chars: 5, delay_ms: 30 },
    { reply: 'Answer to the queued one.' },
    { reply: 'word '.repeat(300), chunk_chars: 5, delay_ms: 30 },
  ]);
  const { context, page, errors } = await configuredPage();
  const box = page.locator('textarea[aria-label="Message"]');
  await send(page, 'first question');
  await waitStatus(page, 'streaming');
  assert.match(await box.getAttribute('placeholder'), /Enter queues/);

  // Enter while it streams: the text leaves the box and shows as queued; nothing is sent yet.
  await send(page, 'queued follow-up');
  const queued = page.locator('.queued');
  await queued.waitFor();
  assert.match(await queued.innerText(), /Queued: sends when this answer ends/);
  assert.match(await queued.locator('.queued-text').innerText(), /^queued follow-up$/);
  assert.equal(await box.inputValue(), '', 'the box is free for the next message');
  // The first request may still be on its way when the row turns "streaming"; wait for it,
  // then the queued text must not have been sent.
  for (let i = 0; i < 50 && (await api.requests()).length < 1; i++) await page.waitForTimeout(20);
  assert.equal((await api.requests()).length, 1, 'nothing sent while the answer streams');
  await screenshot(page, 'newcomer-queued-light');

  // Cancel gives the text back; queue it again and let the answer end: it is sent.
  await queued.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await queued.count(), 0);
  assert.equal(await box.inputValue(), 'queued follow-up', 'cancelled text comes back into the box');
  assert.equal(await focused(page), 'Message');
  await page.keyboard.press('Enter');
  await queued.waitFor();
  // In the messages: the live region (ui/announcer.rs) says it too when the answer ends.
  await page.locator('.messages').getByText('Answer to the queued one.').waitFor({ timeout: 30000 });
  await waitStatus(page, 'done');
  assert.equal(await queued.count(), 0, 'the queue is empty once sent');
  const reqs = await api.requests();
  assert.equal(reqs.length, 2);
  assert.equal(reqs[1].body.messages.at(-1).content, 'queued follow-up');
  const users = await page.locator('article.message-user .user-text').allInnerTexts();
  assert.deepEqual(users, ['first question', 'queued follow-up']);

  // Stop with something queued: nothing goes out behind the user's back; the text comes back,
  // says why, and the caret is in the box (not on <body> where the Stop button was).
  await send(page, 'third question');
  await waitStatus(page, 'streaming');
  await send(page, 'never mind this');
  await queued.waitFor();
  await page.click('.stop');
  await waitStatus(page, 'stopped');
  await page.locator('.composer-hint').waitFor();
  assert.match(await page.locator('.composer-hint').innerText(), /stopped the answer.*not sent/i);
  assert.equal(await box.inputValue(), 'never mind this');
  assert.equal(await queued.count(), 0);
  assert.equal(await focused(page), 'Message', 'Stop leaves the caret in the message box');
  await page.waitForTimeout(400);
  assert.equal((await api.requests()).length, 3, 'the queued text was not sent after Stop');
  assert.deepEqual(errors, []);
  await context.close();
});

test('queued message and hint at phone width and in the dark theme', async () => {
  for (const [name, opts] of [
    ['newcomer-queued-dark', { colorScheme: 'dark' }],
    ['newcomer-queued-phone', { width: 375, height: 740 }],
  ]) {
    await api.reset();
    await api.script([{ reply: 'word '.repeat(200), chunk_chars: 5, delay_ms: 30 }]);
    const { context, page, errors } = await configuredPage(opts);
    await send(page, 'a question');
    await waitStatus(page, 'streaming');
    await send(page, 'A follow-up typed while the answer streams, long enough to wrap on a phone screen.');
    await page.locator('.queued').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    assert.equal(overflow, false, `${name}: no horizontal scrolling`);
    const cancel = await page.locator('.queued-cancel').boundingBox();
    const vw = opts.width ?? 1100;
    assert.ok(cancel && cancel.x + cancel.width <= vw, `${name}: Cancel is on screen`);
    await screenshot(page, name);
    await page.click('.stop');
    await waitStatus(page, 'stopped');
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('focus: the message box after choosing the local server that onboarding found', async () => {
  // No provider yet. The onboarding probes the usual local ports; LM Studio's (1234) is
  // answered here by the real test server (the page's requests to it are forwarded).
  const context = await browser.newContext({ viewport: { width: 1100, height: 700 } });
  await context.route(/^http:\/\/127\.0\.0\.1:1234\//, async (route) => {
    const url = route.request().url().replace('http://127.0.0.1:1234', api.url);
    const response = await route.fetch({ url });
    await route.fulfill({ response });
  });
  const page = await context.newPage();
  await page.goto(site.url);
  const item = page.locator('.found-servers li', { hasText: '127.0.0.1:1234' });
  await item.waitFor({ timeout: 15000 });
  await screenshot(page, 'newcomer-onboarding-found');
  await item.getByRole('button', { name: 'Use' }).click();
  await page.getByText(/Chatting with skiff-test-small at http:\/\/127\.0\.0\.1:1234\/v1/).waitFor();
  assert.equal(await focused(page), 'Message', 'typing goes to the message box, not <body>');
  await page.keyboard.type('typed right away');
  assert.equal(await page.locator('textarea[aria-label="Message"]').inputValue(), 'typed right away');
  await context.close();
});

test('Settings → Storage shows a human size (47 KB, not 0.0 MB)', async () => {
  const { context, page, errors } = await configuredPage();
  // ~47 KB in localStorage (UTF-16: two bytes a character), like a few saved conversations.
  await page.evaluate(() => localStorage.setItem('padding', 'x'.repeat(23_000)));
  await page.click('button[aria-label="Settings"]');
  await page.getByRole('tab', { name: 'Storage' }).click();
  // The localStorage line of the usage per store (conversation bodies are in IndexedDB).
  const text = await page.locator('.storage-usage li', { hasText: 'localStorage' }).innerText();
  assert.match(text, /^localStorage \(settings, servers, the conversation list\): about 4\d KB\.$/);
  assert.doesNotMatch(text, /0\.0 MB/);
  // Closing Settings gives focus back to the gear that opened it.
  await page.getByRole('button', { name: 'Close settings' }).click();
  assert.equal(await focused(page), 'Settings');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the rename form fits its sidebar at desktop and phone widths, light and dark', async () => {
  for (const [name, opts] of [
    ['newcomer-rename-desktop-light', { width: 1280, height: 720 }],
    ['newcomer-rename-desktop-dark', { width: 1280, height: 720, colorScheme: 'dark' }],
    ['newcomer-rename-phone', { width: 375, height: 740 }],
  ]) {
    await api.reset();
    const { context, page, errors } = await configuredPage(opts);
    await send(page, 'A conversation with a rather long title to rename');
    await waitStatus(page, 'done');
    if (opts.width < 760) {
      await page.click('button[aria-label="Conversations"]');
      await page.waitForTimeout(300); // the sidebar slides in
    }
    const row = page.locator('.conversation').first();
    await row.locator('button[aria-label="Rename"]').click();
    const input = page.getByLabel('Conversation title');
    await input.waitFor();
    const sidebar = await page.locator('.sidebar').boundingBox();
    const save = await row.getByRole('button', { name: 'Save' }).boundingBox();
    const field = await input.boundingBox();
    assert.ok(save.x + save.width <= sidebar.x + sidebar.width - 2, `${name}: Save (${save.x}+${save.width}) inside the sidebar (${sidebar.x}+${sidebar.width})`);
    assert.ok(field.width >= 100, `${name}: the title field keeps a usable width (${field.width})`);
    const clipped = await page.locator('.conversation-list').evaluate((el) => el.scrollWidth > el.clientWidth);
    assert.equal(clipped, false, `${name}: nothing overflows the list sideways`);
    await screenshot(page, name);
    await input.fill('Renamed');
    await page.keyboard.press('Enter');
    await page.locator('.conversation-select', { hasText: 'Renamed' }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('the MCP summary counts only the user\'s servers, with the built-in tools apart', async () => {
  const { context, page, errors } = await configuredPage();
  await page.click('button[aria-label="Settings"]');
  await page.getByRole('tab', { name: 'MCP servers' }).click();
  await page.getByText('No MCP servers yet.').waitFor();
  // The built-in tools (on by default) are an in-page server the user never added.
  await page.waitForFunction(() => /\d+ built-in tools? (is|are) on\./.test(document.querySelector('.mcp-summary')?.innerText || ''));
  const summary = await page.locator('.mcp-summary').innerText();
  assert.equal(summary, '4 built-in tools are on.');
  assert.doesNotMatch(summary, /connected server/, `no server counted: "${summary}"`);
  assert.doesNotMatch(summary, /\(s\)/, 'counted nouns, not "(s)"');
  await screenshot(page, 'newcomer-mcp-summary');
  assert.deepEqual(errors, []);
  await context.close();
});
