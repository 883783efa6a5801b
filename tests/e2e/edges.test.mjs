// End-to-end: rough edges a demanding user hit in the chat (issue 32), each checked the way a
// person meets it, against the release build and the scripted OpenAI-compatible server:
// the view that stopped following the conversation (600 and 800 px windows, answers taller
// than the window, a "jump to latest" button while reading above), another tab's add or
// delete throwing away a title being typed, a mask's system prompt against a chat template
// that takes one system message, and the smaller ones of item 10.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  collectConsoleErrors, chatSettings, screenshot, openAiSuite,
} from './harness.mjs';

let api, site, browser;
openAiSuite((s) => ({ api, site, browser } = s));

/** A fresh context (own storage) with the provider configured; `settings` go on top. */
async function openPage({ width = 1100, height = 800, settings = {}, context: shared } = {}) {
  const context = shared ?? await browser.newContext({ viewport: { width, height } });
  if (!shared) {
    await context.addInitScript((s) => {
      // Init scripts run in every frame; a code preview's sandboxed frame has no storage.
      try {
        if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
      } catch { /* sandboxed */ }
    }, chatSettings(api.url, { system_template_enabled: false, ...settings }));
  }
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

async function waitStatus(page, status, timeout = 20_000) {
  await page.waitForFunction(
    (s) => {
      const all = document.querySelectorAll('article.message-assistant');
      return all.length > 0 && all[all.length - 1].dataset.status === s;
    },
    status,
    { timeout },
  );
}

const lastAssistant = (page) => page.locator('article.message-assistant').last();

/** What has focus, described the way a test can compare it. */
const focused = (page) => page.evaluate(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return 'body';
  return el.getAttribute('aria-label') || el.className || el.tagName;
});

/** Markdown several windows tall: paragraphs, a list and code (highlighted once finished). */
const tallAnswer = (tag, n = 40) => Array.from({ length: n }, (_, i) => (
  i % 10 === 5
    ? `\`\`\`rust\nfn step_${i}() -> u32 {\n    let x = ${i};\n    x * 2\n}\n\`\`\``
    : `${tag} paragraph ${i + 1}: **some** text to read, with \`code\` and a [link](https://example.com).`
)).join('\n\n');

/** Where the newest question and the end of the newest answer sit, against the list's box. */
const view = (page) => page.evaluate(() => {
  const list = document.querySelector('.messages');
  const box = list.getBoundingClientRect();
  const q = [...document.querySelectorAll('article.message-user')].at(-1)?.getBoundingClientRect();
  const a = [...document.querySelectorAll('article.message')].at(-1)?.getBoundingClientRect();
  return {
    top: list.scrollTop,
    max: list.scrollHeight - list.clientHeight,
    atBottom: list.scrollTop + list.clientHeight >= list.scrollHeight - 4,
    questionTop: q ? Math.round(q.top - box.top) : null,
    questionInView: !!q && q.top >= box.top - 1 && q.top < box.bottom - 20,
    endInView: !!a && a.bottom <= box.bottom + 1 && a.bottom > box.top,
    client: list.clientHeight,
  };
});

/** Passes when `check(view)` holds at some animation frame within `ms`. */
async function eventually(page, check, what, ms = 3_000) {
  const end = Date.now() + ms;
  let last;
  while (Date.now() < end) {
    last = await view(page);
    if (check(last)) return last;
    await page.waitForTimeout(50);
  }
  assert.fail(`${what}: ${JSON.stringify(last)}`);
}

for (const height of [600, 800]) {
  test(`${height} px window: every new question shows when sent and its answer is followed to the end`, async () => {
    const steps = [];
    for (let i = 1; i <= 4; i++) steps.push({ reply: tallAnswer(`Answer ${i}`), chunk_chars: 60, delay_ms: 10 });
    await api.script(steps);
    const { context, page, errors } = await openPage({ height });
    try {
      for (let i = 1; i <= 4; i++) {
        await send(page, `Question ${i}`);
        // On send the new question is in view (the issue: its top at 485, 1131, 1485 px,
        // below the fold), and the answer is followed while it streams.
        await eventually(page, (v) => v.questionInView || v.atBottom, `question ${i} in view when sent`, 2_000);
        await waitStatus(page, 'done');
        // Rendering the finished answer (highlighting, the code blocks' buttons) changes
        // its height; the view still ends at its end.
        await eventually(page, (v) => v.atBottom && v.endInView, `answer ${i} followed to its end`);
      }
      await screenshot(page, `edges-follow-${height}`);

      // Scrolled up to read, then sending: the new question is scrolled into view.
      await page.locator('.messages').evaluate((el) => { el.scrollTop = 0; });
      await page.waitForTimeout(200);
      assert.ok(!(await view(page)).atBottom);
      await api.script([{ reply: tallAnswer('After reading', 30), chunk_chars: 60, delay_ms: 10 }]);
      await send(page, 'Question after reading');
      await eventually(page, (v) => v.questionInView || v.atBottom, 'the question sent after reading is in view', 2_000);
      await waitStatus(page, 'done');
      await eventually(page, (v) => v.atBottom && v.endInView, 'its answer followed to the end');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
}

test('reading above: a "jump to latest" button shows, takes the view to the newest text and follows again', async () => {
  await api.script([
    { reply: tallAnswer('Warm-up', 30), chunk_chars: 400 },
    { reply: tallAnswer('Streamed', 80), chunk_chars: 24, delay_ms: 25 },
  ]);
  const { context, page, errors } = await openPage({ height: 700 });
  try {
    await send(page, 'warm up');
    await waitStatus(page, 'done');
    const jump = page.locator('button.jump-to-latest');
    assert.equal(await jump.count(), 0, 'no button while at the newest text');
    await send(page, 'a long one');
    await waitStatus(page, 'streaming');
    await page.hover('.messages');
    await page.mouse.wheel(0, -900);
    await jump.waitFor({ timeout: 3_000 });
    assert.equal(await jump.getAttribute('aria-label'), 'Jump to the latest message');
    await screenshot(page, 'edges-jump-to-latest');
    const reading = await view(page);
    assert.ok(!reading.atBottom, `reading above: ${JSON.stringify(reading)}`);
    await jump.click();
    await eventually(page, (v) => v.atBottom, 'at the newest text after the jump');
    await jump.waitFor({ state: 'detached', timeout: 3_000 });
    // Following again: still at the bottom as the answer grows.
    await page.waitForTimeout(500);
    await eventually(page, (v) => v.atBottom, 'following after the jump');
    await waitStatus(page, 'done', 30_000);
    await eventually(page, (v) => v.atBottom && v.endInView, 'the answer ends in view');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

const row = (page, title) => page.locator('li.conversation', { has: page.locator('.conversation-select', { hasText: title }) });

test('another tab adding or deleting a conversation keeps a title being typed and an open delete confirmation', async () => {
  // Each sidebar row was keyed by the number of conversations: any add or delete anywhere
  // rebuilt every row, and the rename box closed with the text typed in it.
  await api.script([{ reply: 'One.' }, { reply: 'Two.' }, { reply: 'Three.' }, { reply: 'Four.' }]);
  const { context, page: a, errors: aErrors } = await openPage();
  try {
    for (const q of ['First topic', 'Second topic', 'Third topic']) {
      await a.click('.new-chat');
      await send(a, q);
      await waitStatus(a, 'done');
    }
    const b = await context.newPage();
    const bErrors = collectConsoleErrors(b);
    await b.goto(site.url);
    await row(b, 'First topic').waitFor();

    // Tab B: Rename, half typed, not saved.
    await row(b, 'First topic').locator('button[aria-label="Rename"]').click();
    const input = b.getByLabel('Conversation title');
    await input.fill('A title half typ');
    // Tab A: a new conversation.
    await a.click('.new-chat');
    await send(a, 'Fourth topic');
    await waitStatus(a, 'done');
    await row(b, 'Fourth topic').waitFor();
    assert.equal(await b.getByLabel('Conversation title').count(), 1, 'the rename box is still open');
    assert.equal(await b.getByLabel('Conversation title').inputValue(), 'A title half typ');
    // B's rows still say where they are and how many there are.
    const sizes = await b.locator('li.conversation').evaluateAll((rows) => rows.map((r) => r.getAttribute('aria-setsize')));
    assert.deepEqual([...new Set(sizes)], ['4'], 'aria-setsize follows the new count');

    // Tab B: a delete confirmation open; tab A deletes another conversation.
    await b.getByLabel('Conversation title').press('Escape');
    await row(b, 'Second topic').locator('button[aria-label="Delete"]').click();
    // A row asking to confirm shows its question in place of its title.
    const confirming = (page, title) => page.locator('li.conversation .confirm-delete', { hasText: `Delete “${title}”?` });
    await confirming(b, 'Second topic').waitFor();
    await row(a, 'Third topic').locator('button[aria-label="Delete"]').click();
    await confirming(a, 'Third topic').locator('button.danger').click();
    await row(b, 'Third topic').waitFor({ state: 'detached' });
    assert.equal(await confirming(b, 'Second topic').count(), 1, 'the confirmation is still open');
    const positions = await b.locator('li.conversation').evaluateAll((rows) => rows.map((r) => [r.getAttribute('aria-posinset'), r.getAttribute('aria-setsize')]));
    assert.deepEqual(positions.map(([p]) => p), positions.map((_, i) => String(i + 1)), 'positions follow');
    assert.ok(positions.every(([, n]) => n === '3'), JSON.stringify(positions));
    await screenshot(b, 'edges-sidebar-other-tab');
    assert.deepEqual(aErrors, []);
    assert.deepEqual(bErrors, []);
  } finally {
    await context.close();
  }
});

test('a mask with a system prompt works with a chat template that takes one system message', async () => {
  // llama.cpp `--jinja` with a strict template (Qwen 3.x): a second system message is
  // refused ("System message must be at the beginning"). The test server refuses the same way.
  await api.script([{ reply: 'Bonjour !', system_first: true }]);
  // A project whose new chats start with the built-in Translator mask (a system prompt).
  const projects = [{ id: 'p-fr', name: 'French', instructions: '', mask: 'builtin-translator', collapsed: false }];
  const { context, page, errors } = await openPage({ settings: { system_template_enabled: true, system_prompt: 'Be brief.', projects } });
  try {
    await page.getByRole('button', { name: 'New chat in French' }).click();
    await page.locator('.mask-line', { hasText: 'Translator' }).waitFor();
    await send(page, 'Hello');
    await waitStatus(page, 'done');
    assert.equal((await lastAssistant(page).locator('.markdown').innerText()).trim(), 'Bonjour !');
    const body = (await api.requests()).at(-1).body;
    const roles = body.messages.map((m) => m.role);
    assert.equal(roles.filter((r) => r === 'system').length, 1, JSON.stringify(roles));
    assert.equal(roles[0], 'system');
    assert.match(body.messages[0].content, /Be brief\.[\s\S]*You are a translator\./);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('the edit box sends with Enter (the composer\'s rule) and Ctrl+Enter; Shift+Enter adds a line', async () => {
  await api.script([{ reply: 'First.' }, { reply: 'Edited once.' }, { reply: 'Edited twice.' }]);
  const { context, page, errors } = await openPage();
  try {
    await send(page, 'Original question');
    await waitStatus(page, 'done');
    await page.locator('article.message-user button.edit-question').click();
    const box = page.getByLabel('Edit your message');
    await box.fill('Edited');
    await box.press('Shift+Enter');
    await box.pressSequentially('question');
    await box.press('Enter');
    await page.locator('article.message-assistant .markdown', { hasText: 'Edited once.' }).waitFor({ timeout: 10_000 });
    let body = (await api.requests()).at(-1).body;
    assert.equal(body.messages.at(-1).content, 'Edited\nquestion');
    assert.equal(await page.getByLabel('Edit your message').count(), 0, 'the edit box closed');
    assert.equal(await focused(page), 'Message', 'focus went to the message box, not <body>');
    await page.locator('article.message-user button.edit-question').click();
    await page.getByLabel('Edit your message').fill('Edited again');
    await page.getByLabel('Edit your message').press('Control+Enter');
    await page.locator('article.message-assistant .markdown', { hasText: 'Edited twice.' }).waitFor({ timeout: 10_000 });
    body = (await api.requests()).at(-1).body;
    assert.equal(body.messages.at(-1).content, 'Edited again');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('Enter on Retry keeps focus in the page: the message box, not <body>', async () => {
  await api.script([
    { status: 500, error_body: '{"error":{"code":500,"message":"model crashed","type":"server_error"}}' },
    { reply: 'Recovered.' },
  ]);
  const { context, page, errors } = await openPage();
  try {
    await send(page, 'Fail first');
    await waitStatus(page, 'error');
    await lastAssistant(page).locator('button.retry').focus();
    await page.keyboard.press('Enter');
    await waitStatus(page, 'done');
    assert.equal(await focused(page), 'Message');
    // The scripted 500 is the browser's own console line.
    assert.deepEqual(errors.filter((e) => !/status of 500/.test(e)), []);
  } finally {
    await context.close();
  }
});

test('code-block buttons sit above the code, and an SVG preview frame is as tall as the drawing', async () => {
  const longLine = 'const aLongFirstLineOfCodeThatReachesTheRightEdgeOfTheBlock = "where the buttons used to sit";';
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="80" height="80"><circle cx="40" cy="40" r="36" fill="#3a7"/></svg>';
  await api.script([{ reply: `Code:\n\n\`\`\`js\n${longLine}\n\`\`\`\n\nA drawing:\n\n\`\`\`svg\n${svg}\n\`\`\`\n` }]);
  const { context, page, errors } = await openPage({ width: 900 });
  try {
    await send(page, 'show me');
    await waitStatus(page, 'done');
    const pre = lastAssistant(page).locator('pre').first();
    await pre.locator('button.copy-code').waitFor();
    const boxes = await pre.evaluate((el) => {
      const code = el.querySelector('code').getBoundingClientRect();
      const button = el.querySelector('button.copy-code').getBoundingClientRect();
      return { codeTop: code.top, buttonBottom: button.bottom };
    });
    assert.ok(boxes.codeTop >= boxes.buttonBottom, `the first line of code starts below the buttons: ${JSON.stringify(boxes)}`);
    const svgPre = lastAssistant(page).locator('pre').nth(1);
    await svgPre.locator('button.preview-code').click();
    const frame = lastAssistant(page).locator('iframe.code-preview');
    await frame.waitFor();
    await page.waitForFunction(() => {
      const f = document.querySelector('iframe.code-preview');
      return f && f.getBoundingClientRect().height < 140;
    }, null, { timeout: 5_000 }).catch(() => {});
    const height = await frame.evaluate((f) => f.clientHeight);
    assert.ok(height >= 80 && height < 120, `an 80 px drawing in a frame ${height} px tall`);
    await screenshot(page, 'edges-code-buttons-and-preview');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('a cut answer ends without a stray half fence', async () => {
  const reply = 'Here:\n\n```python\nprint("hi")\n``';
  await api.script([{ reply, chunk_chars: 8, cut_after_chars: reply.length }]);
  const { context, page, errors } = await openPage();
  try {
    await send(page, 'code please');
    await waitStatus(page, 'error');
    const code = await lastAssistant(page).locator('.markdown pre code').innerText();
    assert.equal(code.trim(), 'print("hi")');
    assert.ok(!(await lastAssistant(page).locator('.markdown').innerText()).includes('``'));
    // The cut itself is the browser's own console line.
    assert.deepEqual(errors.filter((e) => !/ERR_INCOMPLETE_CHUNKED_ENCODING/.test(e)), []);
  } finally {
    await context.close();
  }
});

test('phone: Escape closes the conversation drawer and gives focus back to its button', async () => {
  const { context, page, errors } = await openPage({ width: 390, height: 800 });
  try {
    await page.click('button.menu');
    await page.waitForSelector('.app.sidebar-open');
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.querySelector('.app.sidebar-open'), null, { timeout: 2_000 });
    assert.equal(await focused(page), 'Conversations');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('sidebar titles use the row\'s width: hidden Rename and Delete take no room', async () => {
  await api.script([{ reply: 'One.' }, { reply: 'Two.' }]);
  const { context, page, errors } = await openPage();
  try {
    // Sent as the first message, it becomes the title (cut at 48 characters, at a word).
    const long = 'A conversation title long enough to fill the row';
    await send(page, long);
    await waitStatus(page, 'done');
    await page.click('.new-chat');
    await send(page, 'Another');
    await waitStatus(page, 'done');
    await page.mouse.move(900, 400);
    const widths = await row(page, long).evaluate((li) => ({
      row: li.getBoundingClientRect().width,
      title: li.querySelector('.conversation-select').getBoundingClientRect().width,
      text: li.querySelector('.conversation-select').clientWidth,
    }));
    assert.ok(widths.title >= widths.row - 4, `the title spans the row: ${JSON.stringify(widths)}`);
    // Hovered, the buttons show over the end of the row, within it.
    await row(page, long).hover();
    const rename = await row(page, long).locator('button[aria-label="Rename"]').evaluate((b) => {
      const r = b.getBoundingClientRect();
      const li = b.closest('li').getBoundingClientRect();
      return { visible: getComputedStyle(b).opacity === '1', inside: r.right <= li.right + 1 && r.left >= li.left };
    });
    assert.deepEqual(rename, { visible: true, inside: true });
    await screenshot(page, 'edges-sidebar-titles');
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('no provider yet: no "Tools: 4" in the header', async () => {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  try {
    const page = await context.newPage();
    const errors = collectConsoleErrors(page, { ignore: [/Failed to load resource|ERR_CONNECTION_REFUSED/] });
    await page.goto(site.url);
    await page.waitForSelector('textarea[aria-label="Message"]');
    // The built-in tools connect within moments; the picker stays away while there is no
    // model to offer them to.
    await page.locator('.tool-picker-toggle').waitFor({ timeout: 3_000 }).catch(() => {});
    assert.equal(await page.locator('.tool-picker-toggle').count(), 0);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});

test('390 px: the header\'s badges do not cover the model picker', async () => {
  // A configured server that is down shows "MCP server down: …" beside "Tools: N".
  const servers = JSON.stringify({ v: 1, data: { servers: [{ id: 'down1', name: 'Everything server with a long name', url: 'http://127.0.0.1:9/mcp', enabled: true, headers: [], transport: 'auto', request_timeout_ms: 60000, ping_interval_ms: 30000 }] } });
  const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
  await context.addInitScript(([s, m]) => {
    if (!localStorage.getItem('skiff:settings')) {
      localStorage.setItem('skiff:settings', s);
      localStorage.setItem('skiff:mcp-servers', m);
    }
  }, [chatSettings(api.url, { system_template_enabled: false, model: 'a-rather-long-model-name-7b-instruct' }), servers]);
  try {
    const { page } = await openPage({ context });
    await page.locator('.mcp-down').waitFor({ timeout: 10_000 });
    const boxes = await page.evaluate(() => {
      // The conversation menu shows only once a conversation is open.
      const box = (sel) => {
        const el = document.querySelector(sel);
        if (!el) return null;
        const r = el.getBoundingClientRect();
        return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
      };
      return {
        header: box('.chat-header'),
        select: box('.model-select'),
        more: box('.model-more'),
        tools: box('.tool-picker-toggle'),
        down: box('.mcp-down'),
        menu: box('.conversation-menu'),
      };
    });
    const overlap = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
    for (const k of ['select', 'more', 'tools', 'down']) assert.ok(boxes[k], `${k} is shown: ${JSON.stringify(boxes)}`);
    const names = Object.keys(boxes).filter((k) => k !== 'header' && boxes[k]);
    for (let i = 0; i < names.length; i++) {
      for (let j = i + 1; j < names.length; j++) {
        assert.ok(!overlap(boxes[names[i]], boxes[names[j]]), `${names[i]} and ${names[j]} overlap: ${JSON.stringify(boxes)}`);
      }
      const b = boxes[names[i]];
      assert.ok(b.top >= boxes.header.top && b.bottom <= boxes.header.bottom, `${names[i]} inside the header: ${JSON.stringify(boxes)}`);
    }
    await screenshot(page, 'edges-header-390');
  } finally {
    await context.close();
  }
});
