// End-to-end: the per-message actions of issue 12, item 7 that are not branches themselves:
// Delete (a message and what follows it, after a confirmation that counts them; a sibling takes
// its place) and Continue on an answer that was stopped (the next request ends with the
// answer's own words, which the model carries on from). Against the scripted OpenAI-compatible
// server, which records each request body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  collectConsoleErrors, chatSettings, screenshot, openAiSuite,
} from './harness.mjs';

let api, site, browser;
openAiSuite((s) => ({ api, site, browser } = s));

async function openPage() {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, chatSettings(api.url, { system_template_enabled: false }));
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]');
  return { context, page, errors };
}

async function send(page, text) {
  await page.fill('textarea[aria-label="Message"]', text);
  await page.keyboard.press('Enter');
}

async function waitAnswers(page, n, status = 'done') {
  await page.waitForFunction(
    ([n, s]) => {
      const all = document.querySelectorAll('article.message-assistant');
      return all.length === n && all[n - 1].dataset.status === s;
    },
    [n, status],
    { timeout: 15_000 },
  );
}

const texts = (page) => page.evaluate(() => [...document.querySelectorAll('article.message')].map((a) => (a.querySelector('.markdown, .user-text')?.innerText ?? '').trim()));

test('Delete takes a message and what follows it, says how many first, brings a sibling back, and survives a reload', async () => {
  await api.script([{ reply: 'First answer.' }, { reply: 'Second answer.' }, { reply: 'Second answer, again.' }]);
  const { context, page, errors } = await openPage();
  try {
    await send(page, 'One');
    await waitAnswers(page, 1);
    await send(page, 'Two');
    await waitAnswers(page, 2);
    // Regenerate the second answer: the first version stays as its sibling (‹ 2/2 ›).
    await page.locator('article.message-assistant').last().locator('button.regenerate').click();
    await page.waitForFunction(() => document.querySelector('article.message-assistant:last-of-type .markdown')?.innerText.trim() === 'Second answer, again.');
    await waitAnswers(page, 2);
    assert.equal(await page.locator('.branch-pos').innerText(), '2/2');

    // Deleting the newest version: one message, and the other version takes its place.
    const last = page.locator('article.message-assistant').last();
    await last.locator('button.delete-message').click();
    assert.equal(await last.locator('.confirm-delete-message > span').innerText(), 'Delete this message?');
    await last.locator('button.delete-message-confirm').click();
    await page.waitForFunction(() => document.querySelector('article.message-assistant:last-of-type .markdown')?.innerText.trim() === 'Second answer.');
    assert.equal(await page.locator('.branch-switch').count(), 0, 'no versions left to switch between');
    assert.deepEqual(await texts(page), ['One', 'First answer.', 'Two', 'Second answer.']);

    // Deleting the first question counts the three after it; Cancel keeps everything.
    const firstQ = page.locator('article.message-user').first();
    await firstQ.locator('button.delete-message').click();
    assert.equal(await firstQ.locator('.confirm-delete-message > span').innerText(), 'Delete this message and the 3 after it?');
    await firstQ.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await texts(page)).length, 4);
    // Deleting the second question takes its answer.
    const secondQ = page.locator('article.message-user').nth(1);
    await secondQ.locator('button.delete-message').click();
    assert.equal(await secondQ.locator('.confirm-delete-message > span').innerText(), 'Delete this message and the one after it?');
    await secondQ.locator('button.delete-message-confirm').click();
    await page.waitForFunction(() => document.querySelectorAll('article.message').length === 2);
    await screenshot(page, 'message-deleted');

    // Stored: a reload shows the same two messages, and the next request carries only them.
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('article.message').length === 2);
    assert.deepEqual(await texts(page), ['One', 'First answer.']);
    await api.script([{ reply: 'Third.' }]);
    await send(page, 'Three');
    await waitAnswers(page, 2);
    const body = (await api.requests()).at(-1).body;
    assert.deepEqual(body.messages.map((m) => [m.role, m.content]), [['user', 'One'], ['assistant', 'First answer.'], ['user', 'Three']]);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('Continue on a stopped answer sends its words last, and the model carries on after them in the same answer', async () => {
  const reply = 'word '.repeat(400);
  await api.script([{ reply, chunk_chars: 5, delay_ms: 30 }, { reply: 'and the rest.' }]);
  const { context, page, errors } = await openPage();
  try {
    await send(page, 'Count slowly');
    await page.waitForFunction(() => (document.querySelector('article.message-assistant .markdown')?.innerText.length ?? 0) > 40);
    await page.click('.stop');
    await waitAnswers(page, 1, 'stopped');
    const partial = (await page.locator('article.message-assistant .markdown').innerText()).trim();
    const stopped = page.locator('article.message-assistant').last();
    await stopped.locator('button.continue').click();
    // One answer that reads as one (issue 32 item 10: Continue added a second answer).
    await waitAnswers(page, 1);
    const body = (await api.requests()).at(-1).body;
    const lastMsg = body.messages.at(-1);
    assert.equal(lastMsg.role, 'assistant', 'the request ends with the stopped answer');
    assert.equal(lastMsg.content.trim(), partial);
    assert.equal(body.messages.at(-2).content, 'Count slowly');
    const whole = (await page.locator('article.message-assistant .markdown').innerText()).trim();
    assert.ok(whole.startsWith(partial) && whole.endsWith('and the rest.'), whole.slice(-80));
    // Only the newest answer offers Continue.
    assert.equal(await page.locator('button.continue').count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
