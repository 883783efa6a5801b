// End-to-end: the release build in headless Chromium against the OpenAI-compatible test server.
// Every assertion is about what a user sees (or what the page sent), never about internals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  newPage, screenshot, collectConsoleErrors, chatSettings, waitStored, openAiSuite,
} from './harness.mjs';

let api, site, browser;
openAiSuite((s) => ({ api, site, browser } = s), { models: ['skiff-test-small', 'skiff-test-large'] });

const BASE = () => `${api.url}/v1`;
const SETTINGS = (extra = {}) => chatSettings(api.url, extra);

/** A fresh browser context (own localStorage) with the provider already configured. */
async function configuredPage(opts = {}) {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1100, height: opts.height ?? 760 },
    colorScheme: opts.colorScheme ?? 'light',
  });
  const settings = SETTINGS(opts.settings);
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, settings);
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

const lastAssistant = (page) => page.locator('article.message-assistant').last();

async function waitStatus(page, status, timeout = 15000) {
  await page.waitForFunction(
    (s) => {
      const all = document.querySelectorAll('article.message-assistant');
      return all.length > 0 && all[all.length - 1].dataset.status === s;
    },
    status,
    { timeout },
  );
}

test('first run without configuration shows onboarding, and settings connect to the server', async () => {
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  const page = await context.newPage();
  await page.goto(site.url);
  await page.getByText('Welcome to Skiff').waitFor();
  // The probe of 127.0.0.1:8080/11434/1234 finishes either way and says what it found.
  await page.waitForFunction(() => /No local server answered|Found on this computer/.test(document.body.innerText));
  assert.equal(await page.locator('.send').isDisabled(), true, 'sending is disabled until a provider is set');

  await page.click('button[aria-label="Settings"]');
  await page.click('.add-profile');
  await page.getByLabel('Base URL').fill(BASE());
  await page.click('.test-connection');
  await page.locator('.connection-result .ok').waitFor();
  assert.match(await page.locator('.connection-result').innerText(), /Connected: 2 model\(s\)/);
  assert.equal(await page.getByLabel('Default model', { exact: true }).inputValue(), 'skiff-test-large', 'first model (sorted) is picked');

  await page.getByLabel('Base URL').fill('http://127.0.0.1:9/v1');
  await page.click('.test-connection');
  await page.locator('.connection-result .error').waitFor();
  assert.match(await page.locator('.connection-result').innerText(), /could not|reach|network|connect/i);
  await context.close();
});

test('a reply streams progressively, renders markdown, and survives a reload', async () => {
  const reply = 'Here is **bold** text and a list:\n\n- one\n- two\n\n```rust\nfn main() {}\n```\n\nHalf is $\\frac{1}{2}$, see [docs](https://example.com/a?b=1&c=2).\n\nThe end of a fairly long answer that streams slowly.';
  await api.script([{ reply, chunk_chars: 3, delay_ms: 25 }]);
  const { context, page, errors } = await configuredPage();
  await send(page, 'Tell me something');

  // Sample the visible answer while it arrives: it must grow in several steps.
  const lengths = new Set();
  const t0 = Date.now();
  while (Date.now() - t0 < 15000) {
    const status = await lastAssistant(page).getAttribute('data-status');
    lengths.add((await lastAssistant(page).locator('.markdown').innerText()).length);
    if (status === 'done') break;
    await page.waitForTimeout(60);
  }
  assert.ok(lengths.size >= 4, `text arrived in ${lengths.size} distinct steps`);
  await waitStatus(page, 'done');
  const md = lastAssistant(page).locator('.markdown');
  assert.equal(await md.locator('strong').innerText(), 'bold');
  assert.equal(await md.locator('li').count(), 2);
  assert.match(await md.locator('pre code').innerText(), /fn main/);
  assert.match(await page.locator('.message-status').last().innerText(), /tokens/);
  // Built as DOM nodes from core's tree: MathML in its own namespace (an HTML <mfrac> would be
  // an unknown inline box), colour spans in the finished code, the link's target as written.
  const MATHML = 'http://www.w3.org/1998/Math/MathML';
  const shape = () => md.evaluate((el) => ({
    math: el.querySelector('math')?.namespaceURI,
    frac: el.querySelector('math mfrac')?.namespaceURI,
    kw: el.querySelector('pre code span.hl-kw')?.textContent,
    href: el.querySelector('p a')?.getAttribute('href'),
    rel: el.querySelector('p a')?.getAttribute('rel'),
  }));
  assert.deepEqual(await shape(), {
    math: MATHML, frac: MATHML, kw: 'fn', href: 'https://example.com/a?b=1&c=2', rel: 'noopener noreferrer',
  });

  // What the page sent: the model, stream flag and the user's text.
  const reqs = await api.requests();
  const body = reqs.at(-1).body;
  assert.equal(body.model, 'skiff-test-small');
  assert.equal(body.stream, true);
  assert.equal(body.messages.at(-1).content, 'Tell me something');

  await page.reload();
  await page.locator('.conversation-select', { hasText: 'Tell me something' }).waitFor();
  await waitStatus(page, 'done');
  assert.equal(await lastAssistant(page).locator('strong').innerText(), 'bold');
  assert.equal((await shape()).frac, MATHML, 'the stored answer renders the same way');
  assert.deepEqual(errors, []);
  await context.close();
});

test('Stop keeps the partial answer, also after a reload', async () => {
  const reply = 'word '.repeat(400);
  await api.script([{ reply, chunk_chars: 5, delay_ms: 30 }]);
  const { context, page } = await configuredPage();
  await send(page, 'Count slowly');
  await page.waitForFunction(() => {
    const all = document.querySelectorAll('article.message-assistant .markdown');
    return all.length && all[all.length - 1].innerText.length > 40;
  });
  await page.click('.stop');
  await waitStatus(page, 'stopped');
  const partial = await lastAssistant(page).locator('.markdown').innerText();
  assert.ok(partial.length > 40 && partial.length < reply.length - 100, `partial length ${partial.length}`);
  await page.waitForTimeout(300);
  assert.equal(await lastAssistant(page).locator('.markdown').innerText(), partial, 'nothing arrives after Stop');
  // Stop really aborted the fetch: the server saw the client go away mid-stream.
  const stopped = (await api.requests()).at(-1);
  assert.equal(stopped.client_aborted, true, 'the server saw the request aborted');
  assert.equal(stopped.completed, false);
  await page.reload();
  await waitStatus(page, 'stopped');
  assert.equal((await lastAssistant(page).locator('.markdown').innerText()).trim(), partial.trim());
  await context.close();
});

const ERROR_CASES = [
  { name: '401', step: { status: 401, error_body: '{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}' }, expect: /API key/i },
  { name: '429', step: { status: 429, error_body: '{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}' }, expect: /rate limit/i },
  { name: '500', step: { status: 500, error_body: '{"error":{"code":500,"message":"model crashed","type":"server_error"}}' }, expect: /model crashed/ },
  { name: 'cut stream', step: { reply: 'This answer will be cut in the middle of things.', chunk_chars: 4, delay_ms: 10, cut_after_chars: 20 }, expect: /before the answer was complete|closed|interrupted|broke/i, partial: true },
  // Half an answer read fine proves the address and the API: the sentence must not blame the
  // base URL (issue 32).
  { name: 'malformed chunk', step: { reply: 'Good start then garbage arrives.', chunk_chars: 4, delay_ms: 10, malformed_after_chars: 12 }, expect: /could not read: a stream chunk was not valid JSON/, unexpected: /base URL/, partial: true },
];

for (const c of ERROR_CASES) {
  test(`error ${c.name}: readable message, partial answer kept, retry works`, async () => {
    await api.script([c.step, { reply: 'Recovered answer.', chunk_chars: 5 }]);
    const { context, page } = await configuredPage();
    await send(page, `trigger ${c.name}`);
    await waitStatus(page, 'error');
    const errorText = await lastAssistant(page).locator('.message-error').innerText();
    assert.match(errorText, c.expect);
    if (c.unexpected) assert.doesNotMatch(errorText, c.unexpected);
    if (c.partial) {
      const partial = await lastAssistant(page).locator('.markdown').innerText();
      assert.ok(partial.trim().length > 0, 'partial text is kept');
    }
    await page.reload();
    await waitStatus(page, 'error');
    assert.match(await lastAssistant(page).locator('.message-error').innerText(), c.expect);
    await lastAssistant(page).locator('.retry').click();
    await waitStatus(page, 'done');
    assert.equal((await lastAssistant(page).locator('.markdown').innerText()).trim(), 'Recovered answer.');
    await context.close();
  });
}

test('a stream that stalls mid-answer is given up after the silence limit: partial kept, Retry works', async () => {
  await api.script([
    { reply: 'The first words arrive, then the server hangs.', chunk_chars: 4, delay_ms: 5, stall_after_chars: 16, stall_ms: 30_000 },
    { reply: 'Recovered answer.', chunk_chars: 5 },
  ]);
  const { context, page, errors } = await configuredPage({ settings: { silence_limit_s: 2 } });
  const t0 = Date.now();
  await send(page, 'trigger a stall');
  await waitStatus(page, 'error', 15_000);
  const waited = Date.now() - t0;
  assert.ok(waited >= 2_000 && waited < 10_000, `gave up after ${waited} ms (limit 2 s)`);
  const errorText = await lastAssistant(page).locator('.message-error').innerText();
  assert.match(errorText, /nothing arrived for 2 s/);
  assert.equal((await lastAssistant(page).locator('.markdown').innerText()).trim(), 'The first words');
  const stalled = (await api.requests()).at(-1);
  assert.equal(stalled.client_aborted || !stalled.completed, true, 'the stalled request was given up');
  await lastAssistant(page).locator('.retry').click();
  await waitStatus(page, 'done');
  assert.equal((await lastAssistant(page).locator('.markdown').innerText()).trim(), 'Recovered answer.');
  assert.deepEqual(errors, []);
  await context.close();
});

test('Copy on a code block copies its code; Copy under the answer copies the markdown', async () => {
  const reply = 'Here is code:\n\n```rust\nfn main() {\n    println!("<hi> & bye");\n}\n```\n\nDone.';
  await api.script([{ reply, chunk_chars: 7, delay_ms: 5 }]);
  const { context, page, errors } = await configuredPage();
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await send(page, 'show me code');
  await waitStatus(page, 'done');
  const block = lastAssistant(page).locator('pre');
  assert.equal(await block.count(), 1);
  const button = block.locator('button.copy-code');
  assert.equal(await button.count(), 1, 'one Copy button on the finished block');
  await button.click();
  await page.waitForFunction(() => document.querySelector('button.copy-code')?.textContent === 'Copied');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'fn main() {\n    println!("<hi> & bye");\n}\n');
  await screenshot(page, 'copy-buttons');
  await lastAssistant(page).locator('button.copy-message').click();
  await lastAssistant(page).getByRole('button', { name: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), reply);
  // After a reload the stored answer gets its button too (rendered whole, not streamed).
  await page.reload();
  await waitStatus(page, 'done');
  assert.equal(await lastAssistant(page).locator('pre button.copy-code').count(), 1);
  assert.deepEqual(errors, []);
  await context.close();
});

test('reload mid-stream restores the partial answer marked interrupted', async () => {
  await api.script([{ reply: 'slow '.repeat(300), chunk_chars: 5, delay_ms: 40 }]);
  const { context, page } = await configuredPage();
  await send(page, 'Go slowly');
  await page.waitForFunction(() => {
    const all = document.querySelectorAll('article.message-assistant .markdown');
    return all.length && all[all.length - 1].innerText.length > 30;
  });
  await page.reload();
  await waitStatus(page, 'interrupted');
  assert.ok((await lastAssistant(page).locator('.markdown').innerText()).length > 30);
  assert.match(await lastAssistant(page).innerText(), /Interrupted/);
  await context.close();
});

test('a second tab sees new conversations and messages without overwriting', async () => {
  await api.script([{ reply: 'First answer.' }, { reply: 'Answer from tab B.' }, { reply: 'Answer from tab A.' }]);
  const { context, page: a } = await configuredPage();
  const b = await context.newPage();
  await b.goto(site.url);
  await b.waitForSelector('textarea[aria-label="Message"]');

  await send(a, 'hello from A');
  await waitStatus(a, 'done');
  const item = b.locator('.conversation-select', { hasText: 'hello from A' });
  await item.waitFor({ timeout: 5000 });
  await item.click();
  await waitStatus(b, 'done');
  assert.equal((await lastAssistant(b).locator('.markdown').innerText()).trim(), 'First answer.');

  await send(b, 'now from B');
  await waitStatus(b, 'done');
  await a.waitForFunction(() => document.body.innerText.includes('Answer from tab B.'), null, { timeout: 5000 });
  await send(a, 'and A again');
  await waitStatus(a, 'done');
  await b.waitForFunction(() => document.body.innerText.includes('Answer from tab A.'), null, { timeout: 5000 });
  for (const p of [a, b]) {
    const texts = await p.locator('article.message').allInnerTexts();
    const joined = texts.join('\n');
    for (const t of ['hello from A', 'First answer.', 'now from B', 'Answer from tab B.', 'and A again', 'Answer from tab A.']) {
      assert.ok(joined.includes(t), `${t} present in both tabs`);
    }
  }
  await context.close();
});

test('hostile markdown is shown as text, never run', async () => {
  const reply = [
    '<script>window.__pwned = 1</script>',
    '<img src="x" onerror="window.__pwned = 2">',
    '[click me](javascript:window.__pwned=3)',
    '![tracker](http://127.0.0.1:9/pixel.png)',
    '[safe link](https://example.com/)',
  ].join('\n\n');
  await api.script([{ reply }]);
  const { context, page } = await configuredPage();
  await send(page, 'be evil');
  await waitStatus(page, 'done');
  const md = lastAssistant(page).locator('.markdown');
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await md.locator('script, img, iframe').count(), 0);
  assert.match(await md.innerText(), /<script>window.__pwned = 1<\/script>/);
  for (const a of await md.locator('a').all()) {
    const href = (await a.getAttribute('href')) || '';
    assert.ok(!/^\s*javascript:/i.test(href), `no javascript: link (${href})`);
    if (href) assert.equal(await a.getAttribute('rel'), 'noopener noreferrer');
  }
  // The javascript: link survives only as inert text; clicking that text runs nothing.
  assert.match(await md.innerText(), /click me/);
  const jsLink = md.locator('a', { hasText: 'click me' });
  if (await jsLink.count()) {
    assert.equal(await jsLink.getAttribute('href'), null);
    await jsLink.click();
  }
  await md.getByText('click me').click();
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  const tracker = md.locator('a', { hasText: 'tracker' });
  assert.equal(await tracker.count(), 1, 'a remote image becomes a link');
  await context.close();
});

test('unreadable saved data is reported, kept, and the rest still loads', async () => {
  await api.script([{ reply: 'Good answer.' }]);
  const { context, page } = await configuredPage();
  await send(page, 'a good conversation');
  await waitStatus(page, 'done');
  // Written as an older Skiff would have: the reload moves it into IndexedDB as it is.
  await page.evaluate(() => {
    localStorage.setItem('skiff:conv:broken', '{"v":1,"data":{"id": tru');
    localStorage.setItem('skiff:settings', 'not json at all');
  });
  await page.reload();
  await page.locator('.notice-error').first().waitFor();
  const notices = (await page.locator('.notice').allInnerTexts()).join('\n');
  assert.match(notices, /could not be read/);
  await page.locator('.conversation-select', { hasText: 'a good conversation' }).waitFor();
  const kept = await page.evaluate(() => ({
    aside: Object.keys(localStorage).filter((k) => k.startsWith('skiff:aside:settings')).map((k) => localStorage.getItem(k)),
  }));
  kept.broken = (await waitStored(page, (b) => 'broken' in b)).broken;
  assert.equal(kept.broken, '{"v":1,"data":{"id": tru', 'the unreadable conversation is untouched');
  assert.deepEqual(kept.aside, ['not json at all'], 'the unreadable settings were kept aside');
  await page.click('button[aria-label="Settings"]');
  await page.getByRole('tab', { name: 'Storage' }).click();
  await page.locator('.unreadable code', { hasText: 'skiff:conv:broken' }).waitFor();
  await context.close();
});

// Bodies are in IndexedDB now (storage.test.mjs fills that quota): a full localStorage no
// longer stops a conversation from being saved, and loses nothing stored.
test('a full localStorage loses nothing stored, and conversations are still saved', async () => {
  await api.script([{ reply: 'Stored answer.' }, { reply: 'Saved although localStorage is full.' }]);
  const { context, page } = await configuredPage();
  await send(page, 'before the disk fills');
  await waitStatus(page, 'done');
  // Fill to the last byte: halve the chunk size every time a write is refused.
  const filled = await page.evaluate(() => {
    let i = 0;
    for (let size = 1 << 20; size >= 1; ) {
      try { localStorage.setItem(`filler:${i}`, 'x'.repeat(size)); i++; } catch { size = Math.floor(size / 2); }
    }
    return i;
  });
  assert.ok(filled > 0);
  await send(page, 'after the disk filled');
  await waitStatus(page, 'done');
  await waitStored(page, (b) => Object.values(b).some((t) => t.includes('Saved although localStorage is full.')));
  await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('filler:')).forEach((k) => localStorage.removeItem(k)));
  await page.reload();
  await page.locator('.conversation-select', { hasText: 'before the disk fills' }).waitFor();
  await waitStatus(page, 'done');
  assert.match(await page.locator('article.message').first().innerText(), /before the disk fills/);
  const all = (await page.locator('article.message').allInnerTexts()).join('\n');
  assert.ok(all.includes('Stored answer.'));
  assert.ok(all.includes('Saved although localStorage is full.'));
  await context.close();
});

test('screenshots: light, dark and phone width', async () => {
  const reply = '## Streaming markdown\n\nSkiff renders **finished blocks once** and only re-renders the growing tail.\n\n| provider | streaming |\n| --- | --- |\n| llama.cpp | yes |\n| Ollama | yes |\n\n```js\nconsole.log("hello");\n```';
  for (const [name, opts] of [
    ['chat-light', { colorScheme: 'light' }],
    ['chat-dark', { colorScheme: 'dark' }],
    ['chat-phone', { colorScheme: 'light', width: 375, height: 740 }],
  ]) {
    await api.script([{ reply, reasoning: 'The user wants a demo of the rendering.' }]);
    const { context, page } = await configuredPage(opts);
    await send(page, 'Show me what you can render');
    await waitStatus(page, 'done');
    const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    if (opts.colorScheme === 'dark') assert.notEqual(bg, 'rgb(255, 255, 255)', 'dark theme follows the system');
    else assert.equal(bg, 'rgb(255, 255, 255)');
    if (opts.width === 375) {
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
      assert.equal(overflow, false, 'no horizontal scrolling at phone width');
    }
    await screenshot(page, name);
    await context.close();
  }
});

test('a reload reopens the conversation that was open, and rename and delete work', async () => {
  await api.script([{ reply: 'Answer one.' }, { reply: 'Answer two.' }]);
  const { context, page } = await configuredPage();
  await send(page, 'first topic');
  await waitStatus(page, 'done');
  await page.click('.new-chat');
  await send(page, 'second topic');
  await waitStatus(page, 'done');
  await page.locator('.conversation-select', { hasText: 'first topic' }).click();
  // In the messages: the live region (ui/announcer.rs) may be saying it too.
  await page.locator('.messages').getByText('Answer one.').waitFor();
  await page.reload();
  await page.locator('.messages').getByText('Answer one.').waitFor();
  assert.equal(await page.locator('.chat-title').innerText(), 'first topic');

  // Rename in place.
  const item = page.locator('.conversation', { hasText: 'first topic' });
  await item.locator('button[aria-label="Rename"]').click();
  await page.getByLabel('Conversation title').fill('Renamed topic');
  await page.keyboard.press('Enter');
  await page.locator('.conversation-select', { hasText: 'Renamed topic' }).waitFor();
  assert.equal(await page.locator('.chat-title').innerText(), 'Renamed topic');

  // Delete asks first; Cancel keeps it, Delete removes it, also from storage.
  const renamed = page.locator('.conversation', { hasText: 'Renamed topic' });
  await renamed.locator('button[aria-label="Delete"]').click();
  await renamed.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await page.locator('.conversation-select', { hasText: 'Renamed topic' }).count(), 1);
  await renamed.locator('button[aria-label="Delete"]').click();
  await renamed.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.waitForFunction(() => !document.body.innerText.includes('Renamed topic'));
  await page.reload();
  await page.locator('.conversation-select', { hasText: 'second topic' }).waitFor();
  assert.equal(await page.locator('.conversation-select').count(), 1);
  const keys = Object.keys(await waitStored(page, (b) => Object.keys(b).length === 1));
  assert.equal(keys.length, 1);
  await context.close();
});
