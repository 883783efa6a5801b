// End-to-end: accessibility and keys (issue 8, item 6). Release build in headless Chromium
// against the scripted OpenAI-compatible server.
// - axe-core scans the main screens (onboarding, a chat with an answer and a tool card,
//   Settings on each tab, the shortcuts sheet); no violation may be serious or critical (the
//   others are printed).
// - Each shortcut does its intent; Settings takes focus, keeps Tab inside and gives focus back
//   on Escape; Escape stops a streaming answer; the live region says when an answer ended.
//
// axe is put into the page with `page.evaluate(source)`: an injected <script> (addScriptTag)
// is refused by the page's Content-Security-Policy (scripts/csp.mjs allows only our own
// files), and the harness fails any test on a CSP violation; DevTools evaluation is not
// governed by the page's script-src. The page itself keeps its policy (no bypassCSP), so what
// is scanned is what users get.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  startOpenAiServer, startStaticServer, launchBrowser, screenshot, collectConsoleErrors, chatSettings, repoRoot,
} from './harness.mjs';

let api, site, browser, axeSource;

before(async () => {
  axeSource = await readFile(path.join(repoRoot, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');
  api = await startOpenAiServer({ models: ['skiff-test-small'] });
  site = await startStaticServer(process.env.SKIFF_DIST || 'dist');
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await site?.stop();
  await api?.stop();
});

beforeEach(async () => {
  await api.reset();
});

const MESSAGE = 'textarea[aria-label="Message"]';
const WAIT_MS = 20000;

/** A fresh context with the provider configured (unless `configured: false`). */
async function openPage(opts = {}) {
  const context = await browser.newContext({
    viewport: { width: opts.width ?? 1100, height: opts.height ?? 760 },
    colorScheme: opts.colorScheme ?? 'light',
    reducedMotion: opts.reducedMotion ?? 'no-preference',
  });
  if (opts.configured !== false) {
    await context.addInitScript((s) => {
      if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    }, chatSettings(api.url));
  }
  const page = await context.newPage();
  // Unconfigured, the onboarding probes 127.0.0.1:8080/11434/1234, which Chromium logs when
  // nothing listens there.
  const errors = collectConsoleErrors(page, {
    ignore: opts.configured === false ? [/Failed to load resource|ERR_CONNECTION_REFUSED/] : [],
  });
  await page.goto(site.url);
  await page.waitForSelector(MESSAGE);
  return { context, page, errors };
}

async function send(page, text) {
  await page.fill(MESSAGE, text);
  await page.keyboard.press('Enter');
}

async function waitStatus(page, status, timeout = WAIT_MS) {
  await page.waitForFunction(
    (s) => {
      const all = document.querySelectorAll('article.message-assistant');
      return all.length > 0 && all[all.length - 1].dataset.status === s;
    },
    status,
    { timeout },
  );
}

/** What has focus: its accessible label, else its class, else its tag; 'body' for none. */
const focused = (page) => page.evaluate(() => {
  const el = document.activeElement;
  if (!el || el === document.body) return 'body';
  return el.getAttribute('aria-label') || el.className || el.tagName;
});

const focusInDialog = (page) => page.evaluate(() => {
  const dialog = document.querySelector('[role="dialog"][aria-modal="true"]');
  return !!dialog && dialog.contains(document.activeElement);
});

/** Focus moves in once the dialog is in the document (an effect after mounting). */
const waitFocusInDialog = (page) => page.waitForFunction(() => {
  const dialog = document.querySelector('[role="dialog"][aria-modal="true"]');
  return !!dialog && dialog.contains(document.activeElement);
}, null, { timeout: 5000 });

const openDialogName = (page) => page.evaluate(
  () => document.querySelector('[role="dialog"][aria-modal="true"]')?.getAttribute('aria-label') ?? null,
);

const announced = (page) => page.locator('.announcer').innerText();

/**
 * Runs axe on the page as it is; fails on serious or critical violations and prints the rest.
 * Returns the number of lesser ones.
 */
async function scan(page, screen) {
  const hasAxe = await page.evaluate(() => typeof window.axe === 'object');
  if (!hasAxe) await page.evaluate(axeSource);
  const { passed, violations } = await page.evaluate(async () => {
    const result = await window.axe.run(document);
    return { passed: result.passes.length, violations: result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')} — ${n.failureSummary.replace(/\s+/g, ' ')}`),
    })) };
  });
  // A scan that checked nothing (axe not loaded, an empty page) must not pass.
  assert.ok(passed >= 20, `axe checked the page (${passed} rules passed on ${screen})`);
  console.log(`axe (${screen}): ${passed} rules passed, ${violations.length} violations`);
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  for (const v of violations.filter((x) => !bad.includes(x))) {
    console.log(`axe (${screen}): ${v.impact} ${v.id}: ${v.help}\n  ${v.nodes.join('\n  ')}`);
  }
  assert.deepEqual(bad, [], `axe found serious or critical problems on ${screen}`);
  return violations.length;
}

test('axe: onboarding, a chat with an answer and a tool card, every Settings tab, the shortcuts sheet', async () => {
  // The newcomer's first screen: no provider yet.
  {
    const { context, page } = await openPage({ configured: false });
    await page.getByText('Welcome to Skiff').waitFor();
    await page.waitForFunction(() => /No local server answered|Found on this computer/.test(document.body.innerText));
    await scan(page, 'onboarding');
    await context.close();
  }
  for (const colorScheme of ['light', 'dark']) {
    const { context, page, errors } = await openPage({ colorScheme });
    await scan(page, `empty chat (${colorScheme})`);
    await api.script([
      { tool_calls: [{ name: 'current_time', arguments: {}, id: `call_time_${colorScheme}` }] },
      // Every highlight colour, math, a footnote, a task list and a Preview button, in both themes.
      { reply: 'It is **now**. Here is a list:\n\n- one\n- two\n- [x] done\n\n```js\n// comment\nconst s = "x"; let n = 1; if (true) { console.log(null) }\n```\n\n```diff\n@@ -1 +1 @@\n-old\n+new\n```\n\n```toml\n[table]\nkey = 1\n```\n\n```html\n<a href="x">t</a>\n```\n\nMath $x^2$ and $$\\frac{a}{b}$$ and a note[^1].\n\n[^1]: The note.\n\n[a link](https://example.com)' },
    ]);
    await send(page, 'What time is it?');
    const card = page.locator('.tool-card').first();
    await card.waitFor({ timeout: WAIT_MS });
    // Built-in tools may ask first, depending on the approval policy.
    const deadline = Date.now() + WAIT_MS;
    while (Date.now() < deadline) {
      const status = await page.evaluate(() => document.querySelectorAll('article.message-assistant')[document.querySelectorAll('article.message-assistant').length - 1]?.dataset.status);
      const approve = page.locator('button.approve-once');
      if (await approve.count()) await approve.first().click();
      if (status === 'done') break;
      await page.waitForTimeout(100);
    }
    await waitStatus(page, 'done');
    await page.locator('.messages').getByText('Here is a list').waitFor();
    await scan(page, `chat with an answer and a tool card (${colorScheme})`);
    await card.locator('summary').click();
    await scan(page, `chat with the tool card open (${colorScheme})`);
    await screenshot(page, `a11y-chat-${colorScheme}`);

    await page.click('button[aria-label="Settings"]');
    for (const tab of ['Provider', 'MCP servers', 'Tools', 'Memory', 'Masks', 'Projects', 'Storage']) {
      await page.getByRole('tab', { name: tab }).click();
      if (tab === 'Masks') await page.locator('section.masks #mask-new').waitFor();
      if (tab === 'Projects') {
        // The editor with a field error, then the list with one project (whose heading the
        // sidebar scan below sees).
        await page.locator('section.projects #project-new').click();
        await page.locator('section.projects .project-save').click();
        await page.locator('#project-name-err', { hasText: 'A project needs a name.' }).waitFor();
        await scan(page, `Settings → Projects, the editor with an error (${colorScheme})`);
        await page.locator('#project-name').fill(`Garden ${colorScheme}`);
        await page.locator('section.projects .project-save').click();
        await page.locator('section.projects li.project-row').first().waitFor();
      }
      await scan(page, `Settings → ${tab} (${colorScheme})`);
      if (tab === 'Masks') {
        // The editor, with a field error showing.
        await page.locator('section.masks #mask-new').click();
        await page.locator('section.masks .mask-save').click();
        await page.locator('#mask-name-err', { hasText: 'A mask needs a name.' }).waitFor();
        await scan(page, `Settings → Masks, the editor with an error (${colorScheme})`);
        await page.locator('section.masks .mask-cancel').click();
      }
    }
    await page.keyboard.press('Escape');
    await page.locator('.project-heading').first().waitFor();
    await scan(page, `the sidebar with a project heading (${colorScheme})`);
    await page.keyboard.press('Control+/');
    // The dialog shows "Loading Keyboard shortcuts…" under the same name until its chunk is
    // there: the scan is of the sheet itself.
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).locator('tr[data-shortcut="new-chat"]').waitFor();
    await scan(page, `the shortcuts sheet (${colorScheme})`);
    await screenshot(page, `a11y-shortcuts-${colorScheme}`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('shortcuts: help (Ctrl+/ and ?), Settings (Ctrl+,), new chat (Ctrl+Shift+O), focus the message box (Shift+Esc)', async () => {
  const { context, page, errors } = await openPage();
  // Ctrl+/ from the message box opens the sheet, which lists every shortcut with Ctrl.
  assert.equal(await focused(page), 'Message');
  await page.keyboard.press('Control+/');
  const sheet = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  // Until the sheet's chunk is there the dialog says "Loading Keyboard shortcuts…" under the
  // same name (a loaded machine once read its rows then: none).
  await sheet.locator('tr[data-shortcut="new-chat"]').waitFor();
  await waitFocusInDialog(page);
  const rows = await sheet.locator('tr').allInnerTexts();
  for (const label of ['New chat', 'Focus the message box', 'Stop the answer being written', 'Open Settings', 'Show keyboard shortcuts', 'Close a dialog']) {
    assert.ok(rows.some((r) => r.startsWith(label)), `the sheet lists "${label}": ${JSON.stringify(rows)}`);
  }
  assert.match(await sheet.locator('tr[data-shortcut="new-chat"]').innerText(), /Ctrl\s*Shift\s*O/);
  assert.doesNotMatch(await sheet.innerText(), /⌘/, 'Linux names Ctrl, not ⌘');
  // While a dialog is open, other shortcuts do nothing.
  await page.keyboard.press('Control+,');
  assert.equal(await openDialogName(page), 'Keyboard shortcuts');
  await page.keyboard.press('Escape');
  await sheet.waitFor({ state: 'detached' });
  assert.equal(await focused(page), 'Message', 'focus returns to the message box that opened it');

  // "?" is a character in the message box...
  await page.keyboard.type('why?');
  assert.equal(await page.locator(MESSAGE).inputValue(), 'why?');
  assert.equal(await openDialogName(page), null);
  // ...and the help outside text fields.
  await page.evaluate(() => document.activeElement.blur());
  await page.keyboard.press('Shift+?');
  await sheet.waitFor();
  await page.keyboard.press('Escape');
  await sheet.waitFor({ state: 'detached' });

  // The sidebar's button opens it too, and focus comes back to the button.
  await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
  await sheet.waitFor();
  await waitFocusInDialog(page);
  await page.keyboard.press('Escape');
  await sheet.waitFor({ state: 'detached' });
  assert.equal(await focused(page), 'link-button show-shortcuts');

  // Ctrl+, opens Settings.
  await page.focus(MESSAGE);
  await page.keyboard.press('Control+,');
  await page.getByRole('dialog', { name: 'Settings' }).waitFor();
  await page.keyboard.press('Escape');
  await page.getByRole('dialog', { name: 'Settings' }).waitFor({ state: 'detached' });
  assert.equal(await focused(page), 'Message');

  // Ctrl+C, Ctrl+A and arrows still edit the text (not taken by the page).
  await page.keyboard.press('Control+a');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.type('!');
  assert.equal(await page.locator(MESSAGE).inputValue(), 'why?!');

  // Ctrl+Shift+O: a new, empty conversation, with the caret in the box.
  await page.fill(MESSAGE, '');
  await api.script([{ reply: 'First answer.' }]);
  await send(page, 'hello');
  await waitStatus(page, 'done');
  assert.equal(await page.locator('article.message').count(), 2);
  await page.click('button[aria-label="Settings"]');
  await page.keyboard.press('Escape');
  assert.equal(await focused(page), 'Settings', 'Escape gives focus back to the gear');
  await page.keyboard.press('Control+Shift+O');
  await page.waitForFunction(() => document.querySelectorAll('article.message').length === 0);
  assert.equal(await page.locator('.chat-title').innerText(), 'New conversation');
  assert.equal(await focused(page), 'Message');
  assert.equal(await page.evaluate(() => location.hash), '', 'no conversation is selected');

  // Shift+Esc brings focus back to the box from anywhere.
  await page.focus('button.new-chat');
  await page.keyboard.press('Shift+Escape');
  assert.equal(await focused(page), 'Message');

  // The tool picker (a non-modal popover) closes on Escape and gives focus to its toggle.
  const toggle = page.locator('.tool-picker-toggle');
  if (await toggle.count()) {
    await toggle.click();
    await page.locator('.tool-picker-panel').waitFor();
    await page.keyboard.press('Escape');
    await page.locator('.tool-picker-panel').waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('tool-picker-toggle')), true);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('Settings: focus moves in, Tab and Shift+Tab stay inside, Escape closes from anywhere and focus returns', async () => {
  const { context, page, errors } = await openPage();
  await page.click('button[aria-label="Settings"]');
  // Settings is an on-demand chunk: until it is there, a "Loading Settings…" dialog of the
  // same name holds the focus (itself); the surface then takes it.
  await page.locator('button[aria-label="Close settings"]').waitFor();
  await waitFocusInDialog(page);
  assert.equal(await focused(page), 'Close settings', 'on its first control');

  const seen = new Set();
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    assert.ok(await focusInDialog(page), `Tab #${i + 1} stays inside Settings (at ${await focused(page)})`);
    seen.add(await page.evaluate(() => document.activeElement.outerHTML.slice(0, 80)));
  }
  assert.ok(seen.size > 10, `Tab visits the dialog's controls (${seen.size})`);
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Shift+Tab');
    assert.ok(await focusInDialog(page), `Shift+Tab #${i + 1} stays inside Settings`);
  }
  // From the first control, Shift+Tab wraps to the last one and Tab back to the first.
  await page.focus('button[aria-label="Close settings"]');
  await page.keyboard.press('Shift+Tab');
  assert.ok(await focusInDialog(page));
  assert.notEqual(await focused(page), 'Close settings');
  await page.keyboard.press('Tab');
  assert.equal(await focused(page), 'Close settings');

  // Escape from a text field inside closes it; focus goes back to the gear.
  await page.getByLabel('Base URL').focus();
  await page.keyboard.press('Escape');
  await page.getByRole('dialog', { name: 'Settings' }).waitFor({ state: 'detached' });
  assert.equal(await focused(page), 'Settings');

  // Escape with focus nowhere (a click on the backdrop's edge would leave it on <body>).
  await page.click('button[aria-label="Settings"]');
  await page.getByRole('tab', { name: 'MCP servers' }).click();
  await page.evaluate(() => document.activeElement.blur());
  assert.equal(await focused(page), 'body');
  await page.keyboard.press('Tab');
  assert.ok(await focusInDialog(page), 'Tab from <body> goes into the dialog, not the page behind');
  await page.evaluate(() => document.activeElement.blur());
  await page.keyboard.press('Escape');
  await page.getByRole('dialog', { name: 'Settings' }).waitFor({ state: 'detached' });
  assert.equal(await focused(page), 'Settings');
  assert.deepEqual(errors, []);
  await context.close();
});

test('Escape stops a streaming answer; the live region speaks once when an answer ends', async () => {
  const { context, page, errors } = await openPage({ reducedMotion: 'reduce' });
  await api.script([
    { reply: 'slow '.repeat(300), chunk_chars: 5, delay_ms: 40 },
    { reply: 'The second answer is short and finished. It says nothing else of note.' },
  ]);
  await send(page, 'talk slowly');
  await waitStatus(page, 'streaming');
  await page.waitForFunction(() => (document.querySelector('article.message-assistant .markdown')?.innerText ?? '').includes('slow slow'));
  // Nothing is announced per token.
  for (let i = 0; i < 5; i++) {
    assert.equal(await announced(page), '', 'the live region is quiet while the answer streams');
    await page.waitForTimeout(100);
  }
  // Reduced motion: the streaming pulse does not animate.
  assert.equal(await page.locator('.pulse').evaluate((el) => getComputedStyle(el).animationName), 'none');
  assert.equal(await focused(page), 'Message');
  await page.keyboard.press('Escape');
  await waitStatus(page, 'stopped', 5000);
  const partial = await page.locator('article.message-assistant .markdown').innerText();
  assert.ok(partial.length < 'slow '.repeat(300).length - 100, 'stopped well before the end');
  // The server sees the connection dropped at its next chunk.
  const deadline = Date.now() + 5000;
  let reqs = await api.requests();
  while (!reqs[0]?.client_aborted && Date.now() < deadline) {
    await page.waitForTimeout(100);
    reqs = await api.requests();
  }
  assert.equal(reqs.length, 1);
  assert.equal(reqs[0].completed, false, 'the request was cut, not finished');
  assert.equal(reqs[0].client_aborted, true, 'the page dropped the connection');
  await page.waitForFunction(() => document.querySelector('.announcer')?.innerText === 'Answer stopped.');
  assert.equal(await focused(page), 'Message');

  // Escape with nothing streaming is left to the browser: the conversation stays.
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('article.message').count(), 2);

  await send(page, 'and now briefly');
  await waitStatus(page, 'done');
  await page.waitForFunction(() => document.querySelector('.announcer')?.innerText.startsWith('Answer finished:'));
  assert.equal(
    await announced(page),
    'Answer finished: The second answer is short and finished. It says nothing else of note.',
  );
  const region = page.locator('.announcer');
  assert.equal(await region.getAttribute('aria-live'), 'polite');
  assert.equal(await region.getAttribute('role'), 'status');
  // Visually hidden, yet in the accessibility tree.
  const box = await region.boundingBox();
  assert.ok(box && box.width <= 1 && box.height <= 1, `hidden from sight: ${JSON.stringify(box)}`);
  // Emptied once read, so it does not linger as stale page text.
  await page.waitForFunction(() => document.querySelector('.announcer')?.innerText === '', null, { timeout: 10_000 });
  assert.deepEqual(errors, []);
  await context.close();
});
