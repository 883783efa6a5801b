// End-to-end: prompts (issue 13 item 5) and roots (item 9), the page's MCP surfaces
// (src/ui/mcp/prompts, src/ui/mcp/roots.rs), against the real server-everything.
//
//   a. "/" opens the picker above the composer with the server's prompts; typing filters it,
//      Up/Down/Enter choose without sending; the argument form marks and checks the required
//      argument; the prompt's message lands in the conversation as the user's and the "/…"
//      text leaves the box.
//   b. Completions: server-everything's completable-prompt suggests departments, then team
//      members that depend on the chosen department (context.arguments); the chosen values
//      reach the inserted message. At 375 px wide the picker and the form fit the screen.
//   c. A word nothing matches is said; Escape closes the picker and the text typed stays; a
//      prompt without arguments goes in at once when chosen with Enter, and the model answers
//      it (it ends with the user's turn).
//   d. Roots: a server card's "Roots" opens the editor; a non-file URI is refused with a
//      sentence; saved roots are stored as the exact roots/list result and the server's own
//      get-roots-list tool reports them.
//   e. A server's refusal of prompts/get is the form's sentence, the form stays filled; fixed,
//      the prompt's embedded resource is inlined into the user's message.
//
// Needs: scripts/build.sh (dist/, or SKIFF_DIST) and scripts/setup-mcp.sh (server-everything).
//   SKIFF_DIST=$PWD/dist node --test --test-concurrency=1 tests/e2e/prompts.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startOpenAiServer, startStaticServer, launchBrowser, collectConsoleErrors, distDir, repoRoot, screenshot, rustConst } from './harness.mjs';
import { startServer } from '../servers/mcp/servers.mjs';

const WAIT_MS = 20_000;
const MODEL = 'skiff-prompts-model';
const SERVER_ID = 'everything';
const FATAL = /panicked|RuntimeError|unreachable executed|uncaught|CSP violation/i;
const BOX = 'textarea[aria-label="Message"]';

const SERVERS_VERSION = rustConst('src/core/mcp/config.rs', 'SERVERS_VERSION');

let api, site, browser, mcp;

before(async () => {
  assert.ok(existsSync(path.join(distDir(), 'index.html')), `no build in ${distDir()}: run scripts/build.sh first`);
  api = await startOpenAiServer({ models: [MODEL] });
  site = await startStaticServer();
  browser = await launchBrowser();
  mcp = await startServer('everything-http');
});

after(async () => {
  await browser?.close();
  await site?.stop();
  await api?.stop();
  await mcp?.stop();
});

async function openPage({ width = 1200, height = 900 } = {}) {
  const settings = JSON.stringify({
    v: 1,
    data: {
      // No title request after an answer: test c counts the requests an inserted prompt makes.
      base_url: `${api.url}/v1`, api_key: '', model: MODEL, system_prompt: '', theme: 'system', auto_title: false,
      tool_mode: 'native', step_limit: 15, result_char_limit: 16000, tool_images_to_model: false,
      approvals: { rules: {}, allow_read_only: false }, learned_tool_modes: {},
    },
  });
  const servers = JSON.stringify({
    v: SERVERS_VERSION,
    data: { servers: [{ id: SERVER_ID, name: SERVER_ID, url: mcp.url, transport: 'auto', headers: [], enabled: true }] },
  });
  const context = await browser.newContext({ viewport: { width, height } });
  await context.addInitScript(([s, m]) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    if (!localStorage.getItem('skiff:mcp-servers')) localStorage.setItem('skiff:mcp-servers', m);
  }, [settings, servers]);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  await page.goto(site.url);
  await page.waitForSelector(BOX, { timeout: WAIT_MS });
  return { context, page, errors };
}

/** Types "/" + `typed` until the picker lists `prompt` (the server may still be connecting). */
async function openPicker(page, typed, prompt) {
  const end = Date.now() + WAIT_MS;
  const option = page.locator(`#ask-panel .ask-option[data-prompt="${prompt}"]`);
  for (;;) {
    await page.fill(BOX, '');
    await page.locator(BOX).pressSequentially(`/${typed}`, { delay: 20 });
    try {
      await option.waitFor({ timeout: 2_000 });
      return option;
    } catch {
      if (Date.now() > end) throw new Error(`${prompt} never showed in the / picker`);
      await page.keyboard.press('Escape');
      await page.waitForTimeout(300);
    }
  }
}

/** axe-core on one of the module's surfaces: every violation, whatever its impact, fails. */
async function scan(page, selector, what) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) {
    await page.evaluate(await readFile(path.join(repoRoot, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  }
  const { passed, violations } = await page.evaluate(async (sel) => {
    const r = await window.axe.run({ include: [[sel]] });
    return { passed: r.passes.length, violations: r.violations.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`) };
  }, selector);
  assert.ok(passed >= 5, `axe checked ${selector} (${passed} rules passed, ${what})`);
  assert.deepEqual(violations, [], `axe on ${selector} (${what})`);
}

async function within(page, selector) {
  const box = await page.locator(selector).boundingBox();
  const vw = page.viewportSize().width;
  assert.ok(box, `${selector} is on screen`);
  assert.ok(box.x >= 0 && box.x + box.width <= vw + 0.5, `${selector} fits ${vw} px: ${JSON.stringify(box)}`);
}

test('a. "/" lists the prompts, keys choose, the required argument is checked, the message is inserted', async () => {
  const { context, page, errors } = await openPage();
  try {
    await openPicker(page, '', 'args-prompt');
    const options = page.locator('#ask-panel .ask-option');
    assert.ok((await options.count()) >= 4, 'every prompt of the server is listed');
    assert.match(await page.locator('#ask-panel').innerText(), /Arguments Prompt[\s\S]*\/args-prompt[\s\S]*everything/);
    await scan(page, '#ask-panel', 'the picker');
    // Filtering: "arg" leaves the one prompt whose name starts with it first.
    await page.locator(BOX).pressSequentially('arg', { delay: 20 });
    await page.waitForFunction(() => document.querySelector('#ask-panel .ask-option.selected')?.dataset.prompt === 'args-prompt');
    assert.equal(await page.locator(BOX).getAttribute('aria-activedescendant'), 'ask-opt-0');
    // Up from the first wraps to the last, Down comes back; Enter chooses and sends nothing.
    const shown = await options.count();
    await page.keyboard.press('ArrowUp');
    assert.equal(await page.locator(BOX).getAttribute('aria-activedescendant'), `ask-opt-${shown - 1}`);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');

    const form = page.locator('#ask-panel[role="dialog"]');
    await form.waitFor({ timeout: WAIT_MS });
    assert.match(await form.locator('#ask-form-title').innerText(), /Arguments Prompt/);
    assert.equal(await page.locator(BOX).inputValue(), '/arg', 'Enter chose; it did not send');
    assert.equal(await page.locator('article.message-user').count(), 0, 'nothing was sent');
    const city = form.getByRole('textbox', { name: 'city', exact: true });
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'ask-arg-0', 'focus is in the first argument');
    assert.equal(await city.getAttribute('required'), '');
    // Insert with the required city empty: its sentence, nothing inserted.
    await form.locator('button.ask-insert').click();
    assert.match(await form.locator('.ask-field[data-arg="city"] .ask-error').innerText(), /city is required/);
    assert.equal(await city.getAttribute('aria-invalid'), 'true');
    await screenshot(page, 'prompts-form-error').catch(() => {});
    await scan(page, '#ask-panel', 'the form with an error');

    await city.fill('Paris');
    await form.getByRole('textbox', { name: 'state (optional)' }).fill('Île-de-France');
    await city.press('Enter');
    await form.waitFor({ state: 'detached', timeout: WAIT_MS });
    const msg = page.locator('article.message-user').last();
    await msg.waitFor({ timeout: WAIT_MS });
    assert.match(await msg.innerText(), /What's weather in Paris, Île-de-France\?/);
    assert.equal(await page.locator(BOX).inputValue(), '', 'the /… text left the box');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Message');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'prompts-a-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('b. completions suggest values that depend on the other argument; it all fits 375 px', async () => {
  const { context, page, errors } = await openPage({ width: 375, height: 740 });
  try {
    const option = await openPicker(page, 'team', 'completable-prompt');
    await within(page, '#ask-panel');
    await option.click();
    const form = page.locator('#ask-panel[role="dialog"]');
    await form.waitFor({ timeout: WAIT_MS });
    await within(page, '#ask-panel');

    const dept = form.locator('#ask-arg-0');
    await dept.focus();
    await dept.pressSequentially('E', { delay: 30 });
    const deptSuggestions = form.locator('#ask-sug-0 .ask-suggestion');
    // Focus alone asked for every department; "E" narrows them to one.
    await page.waitForFunction(() => [...document.querySelectorAll('#ask-sug-0 .ask-suggestion')].map((b) => b.textContent).join() === 'Engineering', null, { timeout: WAIT_MS });
    await deptSuggestions.first().click();
    assert.equal(await dept.inputValue(), 'Engineering');

    // The second argument's values depend on the first (sent as context.arguments).
    const name = form.locator('#ask-arg-1');
    await name.focus();
    const nameSuggestions = form.locator('#ask-sug-1 .ask-suggestion');
    await page.waitForFunction(() => [...document.querySelectorAll('#ask-sug-1 .ask-suggestion')].map((b) => b.textContent).join() === 'Alice,Bob,Charlie', null, { timeout: WAIT_MS });
    // Keyboard: Down walks from the field into its suggestions.
    await name.press('ArrowDown');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Alice');
    await within(page, '#ask-sug-1');
    await nameSuggestions.nth(1).click();
    assert.equal(await name.inputValue(), 'Bob');
    await screenshot(page, 'prompts-completions-375').catch(() => {});

    await form.locator('button.ask-insert').click();
    await form.waitFor({ state: 'detached', timeout: WAIT_MS });
    const msg = page.locator('article.message-user').last();
    await msg.waitFor({ timeout: WAIT_MS });
    assert.match(await msg.innerText(), /Please promote Bob to the head of the Engineering team\./);
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'prompts-b-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('c. Escape closes the picker and keeps the text; nothing matches shows a sentence', async () => {
  const { context, page, errors } = await openPage();
  try {
    await openPicker(page, 'simple', 'simple-prompt');
    await page.locator(BOX).pressSequentially('zzz', { delay: 20 });
    await page.locator('#ask-panel .ask-picker-empty').waitFor({ timeout: WAIT_MS });
    assert.match(await page.locator('#ask-panel').innerText(), /No prompt matches “simplezzz”/);
    await page.keyboard.press('Escape');
    await page.locator('#ask-panel').waitFor({ state: 'detached', timeout: WAIT_MS });
    assert.equal(await page.locator(BOX).inputValue(), '/simplezzz');
    assert.equal(await page.locator(BOX).getAttribute('aria-activedescendant'), null);
    // A prompt without arguments goes straight in when chosen.
    await page.fill(BOX, '');
    await api.script([{ reply: 'Answering the simple prompt.' }]);
    const before = (await api.requests()).length;
    await openPicker(page, 'simple', 'simple-prompt');
    await page.keyboard.press('Enter');
    const msg = page.locator('article.message-user').last();
    await msg.waitFor({ timeout: WAIT_MS });
    assert.match(await msg.innerText(), /This is a simple prompt without arguments/);
    assert.equal(await page.locator(BOX).inputValue(), '');
    // It is a turn the model answers (issue 32 item 2: it went nowhere, Send disabled).
    await page.locator('article.message-assistant .markdown', { hasText: 'Answering the simple prompt.' }).waitFor({ timeout: WAIT_MS });
    const asked = (await api.requests()).slice(before);
    assert.equal(asked.length, 1, 'one request answers the prompt');
    assert.match(JSON.stringify(asked[0].body.messages.at(-1)), /This is a simple prompt without arguments/);
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'prompts-c-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('d. roots: entered in the editor, stored as the roots/list result, reported by the server', async () => {
  const { context, page, errors } = await openPage();
  try {
    await page.click('button[aria-label="Settings"]');
    await page.getByRole('tab', { name: 'MCP servers' }).click();
    const row = page.locator(`li.mcp-server[data-server-name="${SERVER_ID}"]`);
    await row.waitFor({ timeout: WAIT_MS });
    await row.getByRole('button', { name: /^Roots/ }).click();

    // The page's one modal: a section[role=dialog].
    const dialog = page.locator('.ask-roots[role="dialog"]');
    await dialog.waitFor({ timeout: WAIT_MS });
    // Centred like every dialog, not pinned top-left (it once shared a class with the roots list).
    const box = await dialog.boundingBox();
    const view = page.viewportSize();
    assert.ok(Math.abs(box.x + box.width / 2 - view.width / 2) <= 2 && box.y > 0, `the roots dialog is centred: ${JSON.stringify(box)} in ${JSON.stringify(view)}`);
    assert.equal(await dialog.getAttribute('aria-labelledby'), 'ask-roots-title');
    assert.match(await dialog.locator('#ask-roots-title').innerText(), /Roots for everything/);
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'ask-root-uri');
    // Not a file:// URI: refused with a sentence, the text stays to be fixed.
    await dialog.getByLabel('Folder or file URI').fill('https://example.com/x');
    await dialog.getByRole('button', { name: 'Add root' }).click();
    assert.match(await dialog.locator('.ask-error').innerText(), /not a file:\/\/ URI/);
    await scan(page, '.ask-roots[role="dialog"]', 'the roots editor with an error');
    await dialog.getByLabel('Folder or file URI').fill('file:///home/me/project');
    await dialog.getByLabel('Name (optional)').fill('Project');
    await dialog.getByLabel('Folder or file URI').press('Enter');
    await dialog.locator('.ask-root').first().waitFor({ timeout: WAIT_MS });
    // Typed but not added: Save keeps it too.
    await dialog.getByLabel('Folder or file URI').fill('file:///srv/data');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached', timeout: WAIT_MS });
    assert.ok(await page.locator('.settings').isVisible(), 'Settings stayed open under the editor');
    const stored = await page.evaluate((id) => localStorage.getItem(`skiff.roots.${id}`), SERVER_ID);
    assert.deepEqual(JSON.parse(stored), { roots: [{ uri: 'file:///home/me/project', name: 'Project' }, { uri: 'file:///srv/data' }] });

    // The server asks (roots/list, again after list_changed) and its tool reports them.
    if (!(await row.locator('ul.mcp-tools').count())) await row.locator('.mcp-toggle-tools').click();
    const li = row.locator('li.mcp-tool[data-tool="get-roots-list"]');
    await li.waitFor({ timeout: WAIT_MS });
    await li.locator('summary').click();
    await li.locator('.mcp-try-args').fill('{}');
    let text = '';
    const end = Date.now() + WAIT_MS;
    do {
      await li.locator('.mcp-try-call').click();
      await li.locator('.mcp-try-result, .mcp-try-error').first().waitFor({ timeout: WAIT_MS });
      text = await li.locator('.mcp-try-result, .mcp-try-error').first().innerText();
      if (/srv\/data/.test(text)) break;
      await page.waitForTimeout(300);
    } while (Date.now() < end);
    // The try form shows the raw result: its text block holds the server's report.
    let report = text;
    try {
      report = JSON.parse(text.slice(text.indexOf('{'))).content.map((c) => c.text).join('\n');
    } catch { /* shown as text already */ }
    assert.match(report, /Current MCP Roots \(2 total\)/, text);
    assert.match(report, /1\. Project\s+URI: file:\/\/\/home\/me\/project/, text);
    assert.match(report, /2\. Unnamed Root\s+URI: file:\/\/\/srv\/data/, text);
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'prompts-d-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('e. a refused prompts/get is a sentence in the form; an embedded resource is inlined', async () => {
  const { context, page, errors } = await openPage();
  try {
    const option = await openPicker(page, 'resource', 'resource-prompt');
    await option.click();
    const form = page.locator('#ask-panel[role="dialog"]');
    await form.waitFor({ timeout: WAIT_MS });
    await form.locator('#ask-arg-0').fill('Nope');
    await form.locator('#ask-arg-1').fill('1');
    await form.locator('button.ask-insert').click();
    const failure = form.locator('.ask-failure');
    await failure.waitFor({ timeout: WAIT_MS });
    assert.match(await failure.innerText(), /The server could not give the prompt: .*Invalid resourceType: Nope/);
    assert.equal(await form.locator('#ask-arg-1').inputValue(), '1', 'what was typed stays');
    assert.equal(await page.locator('article.message-user').count(), 0, 'nothing was inserted');

    await form.locator('#ask-arg-0').fill('Text');
    await form.locator('button.ask-insert').click();
    await form.waitFor({ state: 'detached', timeout: WAIT_MS });
    const msg = page.locator('article.message-user').last();
    await msg.waitFor({ timeout: WAIT_MS });
    const text = await msg.innerText();
    assert.match(text, /This prompt includes the Text resource with id: 1/, text);
    assert.match(text, /Resource 1: This is a plaintext resource created at/, text);
    assert.equal(await page.locator('article.message-user').count(), 1, 'one user turn: consecutive user parts are joined');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'prompts-e-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});
