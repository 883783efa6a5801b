// End-to-end: the conversation pipeline (issue 12) in the release build, against the scripted
// OpenAI-compatible server, which records every request body. What is checked is what the
// page sent and what the user sees: the system template with the user's date, time and zone,
// the input template, a model-written title, a context budget that leaves old messages out,
// clear context (and Undo), a request refused for length, and export as Markdown and JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  collectConsoleErrors, chatSettings, screenshot, repoRoot, waitStored, openAiSuite,
} from './harness.mjs';

let api, site, browser;
openAiSuite((s) => ({ api, site, browser } = s));

const SUMMARY_PROMPT = 'Summarize the discussion briefly in 200 words or less to use as a prompt for future context.';
const TITLE_PROMPT = 'Please generate a four to five word title summarizing our conversation without any lead-in, punctuation, quotation marks, periods, symbols, bold text, or additional text. Remove enclosing quotation marks.';

/** A fresh profile in Berlin speaking German, with the provider configured. */
async function openPage(extra = {}, ignore = []) {
  const context = await browser.newContext({
    viewport: { width: 1100, height: 800 },
    timezoneId: 'Europe/Berlin',
    locale: 'de-DE',
    acceptDownloads: true,
  });
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, chatSettings(api.url, extra));
  const page = await context.newPage();
  const errors = collectConsoleErrors(page, { ignore });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]');
  return { context, page, errors };
}

async function send(page, text) {
  await page.fill('textarea[aria-label="Message"]', text);
  await page.keyboard.press('Enter');
}

async function waitAnswers(page, n, status = 'done', timeout = 15000) {
  await page.waitForFunction(([count, s]) => {
    const all = document.querySelectorAll('article.message-assistant');
    return all.length === count && all[count - 1].dataset.status === s;
  }, [n, status], { timeout });
}

const chatRequests = async () => (await api.requests()).filter((r) => r.path.endsWith('/chat/completions'));
const contents = (body) => body.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));

test('the system template tells the model the date, time and zone; the input template wraps the question; the model names the conversation', async () => {
  const { context, page, errors } = await openPage({ auto_title: true, input_template: '[{{lang}}] {{input}}' });
  await api.script([
    { reply: 'The moon pulls the oceans.' },
    { reply: '**Title:** "Ocean Tides Explained."' },
  ]);
  // Titles go to the provider's cheaper model, set in Settings → Providers.
  await page.click('button[aria-label="Settings"]');
  await page.getByLabel('Model for titles and summaries (optional, a cheaper one)').fill('skiff-test-tiny');
  await page.click('button[aria-label="Close settings"]');
  await send(page, 'How do tides work?');
  await waitAnswers(page, 1);
  // The sidebar and the header show the model's title, cleaned of its bold, quotes and period.
  await page.locator('.conversation-select', { hasText: 'Ocean Tides Explained' }).waitFor({ timeout: 15000 });
  assert.equal((await page.locator('.chat-title').innerText()).trim(), 'Ocean Tides Explained');

  const [answer, title] = await chatRequests();
  const system = answer.body.messages[0];
  assert.equal(system.role, 'system');
  assert.match(system.content, /Current model: skiff-test-small \(OpenAI-compatible\)/);
  // The browser's own clock and zone, in words: today's weekday, date and Berlin's offset.
  const now = new Date();
  const weekday = now.toLocaleDateString('en-GB', { weekday: 'long', timeZone: 'Europe/Berlin' });
  const day = now.toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'Europe/Berlin' });
  assert.ok(system.content.includes(`${weekday}, ${day}`), system.content);
  assert.match(system.content, /\(UTC\+0[12]:00, Europe\/Berlin\)/);
  assert.match(system.content, /The user's language: de-DE/);
  assert.match(system.content, /\\\(x\^2\\\)/, 'says how to write math');
  assert.deepEqual(answer.body.messages.slice(1), [{ role: 'user', content: '[de-DE] How do tides work?' }]);

  // The title request: the exchange, then the instruction; no tools, no system template.
  assert.deepEqual(contents(title.body), ['How do tides work?', 'The moon pulls the oceans.', TITLE_PROMPT]);
  assert.equal(title.body.tools, undefined);
  assert.equal(answer.body.model, 'skiff-test-small', "the answer uses the conversation's model");
  assert.equal(title.body.model, 'skiff-test-tiny', "the title uses the profile's summary model");

  // It is stored: a reload keeps it, and the next answer does not ask again.
  await page.reload();
  await page.locator('.conversation-select', { hasText: 'Ocean Tides Explained' }).waitFor();
  await api.script([{ reply: 'Twice a day.' }]);
  await send(page, 'How often?');
  await waitAnswers(page, 2);
  await page.waitForTimeout(500);
  assert.equal((await chatRequests()).length, 3, 'no second title request');

  // "New title from the model" asks again on demand.
  await api.script([{ reply: 'Moon and Tide Rhythms' }]);
  await page.click('.conversation-menu > summary');
  await page.click('.regenerate-title');
  await page.locator('.conversation-select', { hasText: 'Moon and Tide Rhythms' }).waitFor();
  // A renamed conversation keeps the user's title: the source is stored as "generated" now.
  // The body is in IndexedDB; its write commits just after the list shows the title.
  const id = await page.evaluate(() => {
    const index = JSON.parse(localStorage.getItem('skiff:conversations')).data;
    return (index.items ?? index)[0].id;
  });
  const bodies = await waitStored(page, (b) => b[id] && JSON.parse(b[id]).data.title === 'Moon and Tide Rhythms');
  const stored = JSON.parse(bodies[id]).data;
  assert.equal(stored.title, 'Moon and Tide Rhythms');
  assert.equal(stored.title_source, 'generated');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a small context window leaves the oldest messages out, the gauge says so, and clear context starts afresh until Undo', async () => {
  // Window 2048 with 128 kept for the answer: after the system template and the built-in
  // tools' schemas (~600 tokens) about eight 600-character messages fit, not eleven.
  // Compaction off: this test is about what the budget leaves out (compaction has its own).
  const { context, page, errors } = await openPage({ context_window: 2048, max_tokens: 128, auto_compact: false });
  const long = (i) => `${i} `.padEnd(600, 'x');
  const steps = [];
  for (let i = 0; i < 6; i++) steps.push({ reply: `answer ${long(i)}` });
  steps.push({ reply: 'short' }, { reply: 'after the clear' }, { reply: 'after undo' });
  await api.script(steps);
  for (let i = 0; i < 6; i++) {
    await send(page, `question ${long(i)}`);
    await waitAnswers(page, i + 1);
  }
  const reqs = await chatRequests();
  const last = reqs[5].body.messages;
  assert.equal(last[0].role, 'system');
  assert.ok(last.length < 12, `the sixth request leaves old messages out (${last.length} sent)`);
  assert.equal(last.at(-1).content, `question ${long(5)}`, 'the newest question always goes');
  assert.equal(last[1].role, 'user', 'what is sent never opens on an answer');
  // The gauge under the box: how full the next request is, and that older messages stay out.
  const gauge = page.locator('.context-gauge');
  assert.match(await gauge.innerText(), /^≈[\d.]+k? of [\d.]+k? tokens \(\d+ %\) · \d+ older messages not sent/);
  await screenshot(page, 'conversation-gauge');

  // Clear context: the next request carries only what follows the mark.
  await page.click('.clear-context');
  await page.locator('.context-mark').waitFor();
  assert.equal(await page.locator('.clear-context').isDisabled(), true);
  await send(page, 'fresh start');
  await waitAnswers(page, 7);
  let body = (await chatRequests())[6].body;
  assert.deepEqual(contents(body).slice(1), ['fresh start']);
  // Undo removes the mark; the mark survives a reload until then.
  await page.reload();
  await page.locator('.context-mark').waitFor();
  await page.click('.undo-clear');
  await page.locator('.context-mark').waitFor({ state: 'detached' });
  await send(page, 'and now?');
  await waitAnswers(page, 8);
  body = (await chatRequests())[7].body;
  assert.ok(body.messages.length > 4, 'older messages are back within the budget');
  assert.equal(body.messages.at(-1).content, 'and now?');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a request refused for length says so and retries with the older messages left out', async () => {
  const { context, page, errors } = await openPage({}, [/Failed to load resource: the server responded with a status of 400/]);
  await api.script([
    { reply: 'first answer' },
    {
      status: 400,
      error_body: { error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: 5000, n_ctx: 4096 } },
    },
    { reply: 'fits now' },
  ]);
  await send(page, 'one');
  await waitAnswers(page, 1);
  await send(page, 'two');
  await waitAnswers(page, 2, 'error');
  const error = page.locator('article.message-assistant').last().locator('.message-error');
  assert.match(await error.innerText(), /too long for this model's context window \(HTTP 400\): the request exceeds the available context size/);
  assert.equal(await error.locator('.retry').count(), 0, 'no plain Retry: the same request cannot fit');
  await error.locator('.retry-shorter').click();
  await waitAnswers(page, 2);
  const body = (await chatRequests())[2].body;
  assert.deepEqual(contents(body).slice(1), ['two'], 'the retry carries the question alone');
  await page.locator('.context-mark').waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});

test('a conversation exports as Markdown and as JSON with every message', async () => {
  const { context, page, errors } = await openPage();
  await api.script([{ reply: 'Use `grep -r`:\n\n```sh\ngrep -r "x" .\n```' }]);
  await send(page, 'How do I search files?');
  await waitAnswers(page, 1);

  await page.click('.conversation-menu > summary');
  const [md] = await Promise.all([page.waitForEvent('download'), page.click('.export-markdown')]);
  assert.equal(await page.locator('details.conversation-menu').evaluate((d) => d.open), false, 'the menu closes once an item is chosen');
  await page.click('.conversation-menu > summary');
  assert.equal(md.suggestedFilename(), 'how-do-i-search-files.md');
  const markdown = await readFile(await md.path(), 'utf8');
  assert.equal(
    markdown,
    '# How do I search files?\n\n## User\n\nHow do I search files?\n\n## Assistant (skiff-test-small)\n\nUse `grep -r`:\n\n```sh\ngrep -r "x" .\n```\n',
  );

  const [js] = await Promise.all([page.waitForEvent('download'), page.click('.export-json')]);
  assert.equal(js.suggestedFilename(), 'how-do-i-search-files.json');
  const file = JSON.parse(await readFile(await js.path(), 'utf8'));
  assert.equal(file.format, 'skiff-conversation');
  assert.equal(file.version, 1);
  assert.deepEqual(file.conversation.messages.map((m) => [m.role, m.content]), [
    ['user', 'How do I search files?'],
    ['assistant', 'Use `grep -r`:\n\n```sh\ngrep -r "x" .\n```'],
  ]);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Settings edit the templates, the window and automatic titles, and they are stored', async () => {
  const { context, page, errors } = await openPage();
  await page.click('button[aria-label="Settings"]');
  await page.getByLabel('Input template').fill('Answer briefly: {{input}}');
  await page.getByLabel('Context window (tokens)').fill('8192');
  await page.getByLabel('Messages sent at most').fill('10');
  await page.getByLabel(/Open every request with the system template/).uncheck();
  await page.getByLabel(/Name conversations automatically/).check();
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('skiff:settings')).data);
  assert.equal(stored.input_template, 'Answer briefly: {{input}}');
  assert.equal(stored.context_window, 8192);
  assert.equal(stored.history_count, 10);
  assert.equal(stored.system_template_enabled, false);
  assert.equal(stored.auto_title, true);
  // A window too small to be real is refused with a sentence, not stored.
  await page.getByLabel('Context window (tokens)').fill('8');
  await page.getByText(/Context window \(tokens\) must be a whole number from 512/).waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});

test('an export imports into a fresh profile unchanged; a llama.cpp export imports with its other versions and exports back as the same tree; a broken file changes nothing', async () => {
  const a = await openPage();
  await api.script([{ reply: 'Tides follow the **moon**.' }]);
  await send(a.page, 'Explain tides');
  await waitAnswers(a.page, 1);
  await a.page.click('.conversation-menu > summary');
  const [download] = await Promise.all([a.page.waitForEvent('download'), a.page.click('.export-json')]);
  const dir = await mkdtemp(path.join(tmpdir(), 'skiff-import-'));
  const exported = path.join(dir, 'export.json');
  await download.saveAs(exported);
  await a.context.close();

  // A fresh browser profile: nothing stored.
  const { context, page, errors } = await openPage();
  const importFile = async (file) => {
    await page.click('button[aria-label="Settings"]');
    await page.getByRole('tab', { name: 'Storage' }).click();
    await page.setInputFiles('#import-conversations', file);
    const text = (await page.locator('.import-result').innerText()).trim();
    await page.keyboard.press('Escape');
    return text;
  };
  assert.equal(await importFile(exported), 'Added 1 conversation.');
  await page.locator('.conversation-select', { hasText: 'Explain tides' }).click();
  await page.locator('article.message-assistant strong', { hasText: 'moon' }).waitFor();
  assert.equal((await page.locator('article.message-user').innerText()).includes('Explain tides'), true);
  // Again: nothing is doubled.
  assert.equal(await importFile(exported), 'Added 0 conversations; skipped 1 already here.');
  assert.equal(await page.locator('.conversation-select').count(), 1);

  // llama.cpp's export: the branch it showed on screen (with its reasoning), the other answer
  // kept as the earlier version.
  const llama = path.join(repoRoot, 'tests', 'fixtures', 'llamacpp', 'conversation-branches.json');
  assert.equal(await importFile(llama), 'Added 1 conversation.');
  await page.locator('.conversation-select', { hasText: 'Tides and the moon' }).click();
  await page.getByText('The moon\'s pull bulges the ocean on both sides of the Earth.').waitFor();
  assert.equal(await page.getByText('Because of the sun.').count(), 0);
  assert.equal(await page.locator('.branch-pos').innerText(), '2/2');
  // Exported back in llama.cpp's shape: the same tree, both answers under the question.
  await page.click('.conversation-menu > summary');
  const [llamaDownload] = await Promise.all([page.waitForEvent('download'), page.click('.export-llamacpp')]);
  const back = JSON.parse(await readFile(await llamaDownload.path(), 'utf8'));
  assert.equal(back.conv.currNode, 'm-a2');
  const q = back.messages.find((m) => m.id === 'm-u1');
  assert.deepEqual(q.children, ['m-a1', 'm-a2']);
  assert.equal(back.messages.find((m) => m.type === 'root').children[0], 'm-u1');
  // The earlier version is one click away.
  await page.click('.branch-prev');
  await page.getByText('Because of the sun.').waitFor();

  // A broken file: a sentence, and nothing stored changes.
  const broken = path.join(dir, 'broken.json');
  await writeFile(broken, '{"conv": {"id": ');
  const said = await importFile(broken);
  assert.match(said, /^The file is not JSON or JSON Lines \(.*\)\. Nothing was imported\.$/);
  assert.equal(await page.locator('.conversation-select').count(), 2);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Ctrl+K searches every conversation and opens the match at its message', async () => {
  const { context, page, errors } = await openPage();
  await api.script([
    { reply: 'Kinkaku-ji glows at dawn.' },
    { reply: 'Feed the starter every day.' },
  ]);
  await send(page, 'Which temples in Kyoto?');
  await waitAnswers(page, 1);
  await page.click('.new-chat');
  await send(page, 'How do I keep a sourdough starter?');
  await waitAnswers(page, 1);

  await page.keyboard.press('Control+k');
  const input = page.getByRole('searchbox', { name: 'Search conversations' });
  await input.waitFor();
  assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Search conversations', 'the caret is in the search box');
  await input.fill('DAWN');
  const hit = page.locator('.search-hit').first();
  await hit.waitFor();
  assert.equal(await page.locator('.search-hit').count(), 1);
  assert.equal((await hit.locator('mark').innerText()).trim(), 'dawn');
  assert.match(await hit.innerText(), /Which temples in Kyoto\?/);
  await input.press('Enter');
  await page.locator('.search-dialog').waitFor({ state: 'detached' });
  // The other conversation is open now, at the matching message, marked.
  assert.equal((await page.locator('.chat-title').innerText()).trim(), 'Which temples in Kyoto?');
  await page.locator('article.message-assistant.search-target', { hasText: 'Kinkaku-ji' }).waitFor();

  // Nothing found says so; Escape closes.
  await page.keyboard.press('Control+k');
  await input.fill('volcano');
  await page.getByText('Nothing matches “volcano”.').waitFor();
  await page.keyboard.press('Escape');
  await page.locator('.search-dialog').waitFor({ state: 'detached' });
  assert.deepEqual(errors, []);
  await context.close();
});

test('a conversation too long for the window is compacted: the summary stands in for the older messages, and can be dropped', async () => {
  const { context, page, errors } = await openPage({ context_window: 2048, max_tokens: 128 });
  // Unscripted, the server answers "You said: <question>", and the summary request gets
  // "You said: <the summary instruction>".
  const long = (i) => `question ${i} `.padEnd(600, 'y');
  let summary;
  for (let i = 0; i < 10 && !summary; i++) {
    await send(page, long(i));
    await waitAnswers(page, i + 1);
    await page.waitForTimeout(300);
    summary = (await chatRequests()).find((r) => r.body.messages.at(-1)?.content === SUMMARY_PROMPT);
  }
  assert.ok(summary, 'a summary was asked for once older messages no longer fit');
  assert.equal(summary.body.tools, undefined, 'no tools in the summary request');
  assert.ok(summary.body.messages.length > 3, 'it carries the older messages');
  const card = page.locator('details.summary-card');
  await card.waitFor();
  await card.locator('summary').click();
  assert.match(await card.innerText(), /You said: Summarize the discussion/);

  // The next request: the recap in the system text, and only the messages after it.
  const before = (await chatRequests()).length;
  const answers = await page.locator('article.message-assistant').count();
  await send(page, 'and next?');
  await waitAnswers(page, answers + 1);
  const next = (await chatRequests()).slice(before).find((r) => r.body.messages.at(-1)?.content === 'and next?');
  assert.match(next.body.messages[0].content, /This is a summary of the chat history as a recap: You said: Summarize/);
  assert.ok(next.body.messages.length <= 4, `only the newest messages travel with the summary (${next.body.messages.length})`);

  // Dropping the summary sends the messages (within the budget) again; it survives a reload until then.
  await page.reload();
  await card.waitFor();
  await card.locator('summary').click();
  await card.locator('.drop-summary').click();
  await card.waitFor({ state: 'detached' });
  assert.deepEqual(errors, []);
  await context.close();
});

test('Compact now summarizes on demand, and the summary can be edited', async () => {
  const { context, page, errors } = await openPage({ auto_compact: false });
  await api.script([{ reply: 'first answer' }, { reply: 'second answer' }, { reply: 'They talked about one and two.' }, { reply: 'third answer' }]);
  await send(page, 'one');
  await waitAnswers(page, 1);
  await send(page, 'two');
  await waitAnswers(page, 2);
  await page.click('.conversation-menu > summary');
  await page.click('.compact-now');
  const card = page.locator('details.summary-card');
  await card.waitFor();
  const reqs = await chatRequests();
  assert.deepEqual(contents(reqs[2].body), ['one', 'first answer', SUMMARY_PROMPT], 'everything before the newest question');
  await page.keyboard.press('Escape');
  await card.locator('summary').click();
  await card.locator('.edit-summary').click();
  await card.getByLabel('Summary').fill('They counted to two.');
  await card.locator('.save-summary').click();
  await send(page, 'three');
  await waitAnswers(page, 3);
  const last = (await chatRequests())[3].body;
  assert.match(last.messages[0].content, /recap: They counted to two\.$/);
  assert.deepEqual(contents(last).slice(1), ['two', 'second answer', 'three']);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Regenerate and an edited question keep the old versions as branches: ‹ 1/2 › switches, and a reload keeps them', async () => {
  const { context, page, errors } = await openPage();
  await api.script([{ reply: 'first answer' }, { reply: 'second answer' }, { reply: 'answer to the edit' }]);
  await send(page, 'one');
  await waitAnswers(page, 1);
  await page.locator('article.message-assistant .regenerate').click();
  await page.locator('article.message-assistant', { hasText: 'second answer' }).waitFor();
  await waitAnswers(page, 1);
  const answer = page.locator('article.message-assistant');
  assert.equal((await answer.locator('.branch-pos').innerText()).trim(), '2/2');
  // The regenerated request carried the question, not the answer it replaces.
  let reqs = await chatRequests();
  assert.deepEqual(contents(reqs[1].body).slice(1), ['one']);
  // Back to the first answer, and the choice survives a reload.
  await answer.locator('.branch-prev').click();
  await page.locator('article.message-assistant', { hasText: 'first answer' }).waitFor();
  assert.equal((await answer.locator('.branch-pos').innerText()).trim(), '1/2');
  await page.reload();
  await page.locator('article.message-assistant', { hasText: 'first answer' }).waitFor();
  assert.equal((await page.locator('article.message-assistant .branch-pos').innerText()).trim(), '1/2');
  // The switch is two buttons and a position, nothing else.
  assert.equal((await answer.locator('.branch-switch').innerText()).replace(/\s+/g, ''), '‹1/2›');
  assert.equal(await answer.locator('.branch-prev').isDisabled(), true);
  await answer.locator('.branch-next').click();
  await page.locator('article.message-assistant', { hasText: 'second answer' }).waitFor();
  assert.equal(await answer.locator('.branch-next').isDisabled(), true);
  await answer.locator('.branch-prev').click();
  await page.locator('article.message-assistant', { hasText: 'first answer' }).waitFor();

  // Edit the question: the old question and its answers stay as a branch.
  await page.locator('article.message-user .edit-question').click();
  await page.getByLabel('Edit your message').fill('uno');
  await page.locator('.send-edit').click();
  await page.locator('article.message-assistant', { hasText: 'answer to the edit' }).waitFor();
  await waitAnswers(page, 1);
  reqs = await chatRequests();
  assert.deepEqual(contents(reqs[2].body).slice(1), ['uno']);
  const question = page.locator('article.message-user');
  assert.equal((await question.locator('.branch-pos').innerText()).trim(), '2/2');
  assert.equal(await page.locator('article.message-assistant .branch-pos').count(), 0, 'the new answer has no siblings');
  await question.locator('.branch-prev').click();
  await page.locator('article.message-user', { hasText: 'one' }).waitFor();
  await page.locator('article.message-assistant', { hasText: 'first answer' }).waitFor();
  assert.equal((await page.locator('article.message-assistant .branch-pos').innerText()).trim(), '1/2', 'its own answers keep their versions');
  // The JSON export keeps every branch.
  await page.click('.conversation-menu > summary');
  const [js] = await Promise.all([page.waitForEvent('download'), page.click('.export-json')]);
  const file = JSON.parse(await readFile(await js.path(), 'utf8'));
  const stashed = file.conversation.branches.flatMap((b) => b.messages.map((m) => m.content));
  assert.deepEqual(stashed.sort(), ['answer to the edit', 'second answer', 'uno']);
  assert.deepEqual(errors, []);
  await context.close();
});

test('View request shows the exact body an answer was made from, and a rebuilt one after a reload', async () => {
  const { context, page, errors } = await openPage({ input_template: 'Q: {{input}}' });
  await api.script([{ reply: 'an answer' }]);
  await send(page, 'what was sent?');
  await waitAnswers(page, 1);
  const [sent] = await chatRequests();
  await page.locator('article.message-assistant .view-request').click();
  const dialog = page.getByRole('dialog', { name: 'The request' });
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /Exactly what this tab sent/);
  assert.deepEqual(JSON.parse(await dialog.locator('.request-body').innerText()), sent.body, 'byte for byte the body the server received');
  assert.match(await dialog.locator('.request-url').innerText(), /^POST http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions$/);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  await page.reload();
  await page.locator('article.message-assistant .view-request').click();
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /Rebuilt from the stored conversation/);
  const rebuilt = JSON.parse(await dialog.locator('.request-body').innerText());
  assert.deepEqual(rebuilt.messages.at(-1), { role: 'user', content: 'Q: what was sent?' });
  assert.deepEqual(errors, []);
  await context.close();
});
