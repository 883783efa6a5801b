// End-to-end: elicitation (issue 13, item 7) against the real server-everything, whose
// `trigger-elicitation-request` tool asks the user for a form (strings with formats, an
// integer and a number with ranges and defaults, enums of every kind, multi-selects).
//
// The cards are the page's (src/ui/mcp/asks): a tray pinned above the composer, and above
// Settings while it is open.
//
//   a. In the chat: the scripted model calls the tool, the question shows as a card above the
//      composer and takes focus, Accept with an empty required field is refused with the
//      field's sentence, then the typed values and the defaults go back and the tool's result
//      shows the accepted content.
//   b. From Settings (no chat visible): the tool's "try" form calls it, the question shows over
//      Settings (on top, clickable, Tab stays in the card), Decline goes back, focus returns to
//      Settings and the result says so.
//   c. URL mode: the domain shows, nothing opens before Open; then the tab opens, the server
//      hears accept, and the card waits until dismissed.
//   d. On a 375 px phone, keyboard only: the card fits the width, Tab reaches the first field
//      from the focused card, Enter there is Accept, and focus returns to the message box.
//   e. A link the page must not open (`javascript:`): refused at once with "invalid params" and
//      core's sentence, a notice (the page's one notice area) says so until dismissed, and no
//      card or tab appears.
//
// Needs: scripts/build.sh (dist/, or SKIFF_DIST) and scripts/setup-mcp.sh (server-everything).
//   SKIFF_DIST=$PWD/dist node --test --test-concurrency=1 tests/e2e/elicit.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startOpenAiServer, startStaticServer, launchBrowser, collectConsoleErrors, distDir, repoRoot, screenshot, rustConst } from './harness.mjs';
import { startServer } from '../servers/mcp/servers.mjs';

const WAIT_MS = 20_000;
const MODEL = 'skiff-elicit-model';
const SERVER_ID = 'everything';
const TOOL = 'trigger-elicitation-request';
const FATAL = /panicked|RuntimeError|unreachable executed|uncaught|CSP violation/i;

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
    // Format 1 (one provider in flat fields), as builds before profiles stored it: the page
    // migrates it into one profile, which this suite also keeps in use.
    v: 1,
    data: {
      base_url: `${api.url}/v1`, api_key: '', model: MODEL, system_prompt: '', theme: 'system',
      tool_mode: 'native', step_limit: 15, result_char_limit: 16000, tool_images_to_model: false,
      approvals: { rules: { [`${SERVER_ID}\u001f${TOOL}`]: 'always' }, allow_read_only: false },
      learned_tool_modes: {},
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
  await page.waitForSelector('textarea[aria-label="Message"]', { timeout: WAIT_MS });
  return { context, page, errors };
}

async function waitForTool(page) {
  // The tool exists only because Skiff declares the elicitation capability. server-everything
  // registers it after `initialized` and announces it with list_changed, after its first
  // tools/list: counting tools passed on that first list (12 tools + 4 built-in) and the model
  // then called a tool Skiff had not heard of yet. Wait for the tool itself, in the picker.
  const end = Date.now() + WAIT_MS;
  const toggle = page.locator('.tool-picker-toggle');
  await toggle.waitFor({ timeout: WAIT_MS });
  for (;;) {
    await toggle.click();
    const found = await page.locator('.tool-switch', { hasText: TOOL }).count();
    await page.keyboard.press('Escape');
    if (found > 0) return;
    if (Date.now() > end) throw new Error(`${TOOL} never reached the tool picker`);
    await page.waitForTimeout(200);
  }
}

/** axe-core on the question cards only: every violation, whatever its impact, fails. */
async function scanCards(page, what) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) {
    await page.evaluate(await readFile(path.join(repoRoot, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8'));
  }
  const { passed, violations } = await page.evaluate(async () => {
    const r = await window.axe.run({ include: [['.elicit-tray']] });
    return { passed: r.passes.length, violations: r.violations.map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join('; ')})`) };
  });
  assert.ok(passed >= 5, `axe checked the card (${passed} rules passed, ${what})`);
  assert.deepEqual(violations, [], `axe on the question card (${what})`);
}

const field = (cardEl, name) => cardEl.locator(`.elicit-field[data-field="${name}"]`);

test('a. in the chat: the question shows as a card; typed values and defaults are accepted and reach the tool', async () => {
  const { context, page, errors } = await openPage();
  try {
    await waitForTool(page);
    await api.script([
      { reply: 'Let me ask you.', tool_calls: [{ id: 'call_elicit_a', name: TOOL, arguments: {} }] },
      { reply: 'Thanks, noted.' },
    ]);
    await page.fill('textarea[aria-label="Message"]', 'Ask me for my details');
    await page.keyboard.press('Enter');

    const card = page.locator('.elicit-tray .elicit-card');
    await card.waitFor({ timeout: WAIT_MS });
    assert.equal(await card.getAttribute('data-server-name'), SERVER_ID);
    // Where the user is looking: above the composer, and focus on the card (its label read).
    // (The tray's box: a long form scrolls inside it.)
    const [trayBox, composerBox] = [await page.locator('.elicit-tray').boundingBox(), await page.locator('.composer').boundingBox()];
    assert.ok(trayBox.y + trayBox.height <= composerBox.y + 1, `the card sits above the composer (${JSON.stringify({ trayBox, composerBox })})`);
    await page.waitForFunction(() => document.activeElement?.classList.contains('elicit-card'), null, { timeout: WAIT_MS });
    assert.match(await card.locator('.elicit-title').innerText(), /everything asks for input/);
    assert.match(await card.locator('.elicit-message').innerText(), /Please provide inputs/);
    // Defaults are in the inputs before the user touches anything.
    assert.equal(await field(card, 'firstLine').locator('input').inputValue(), 'It was a dark and stormy night.');
    assert.equal(await field(card, 'integer').locator('input').inputValue(), '42');
    assert.equal(await field(card, 'untitledSingleSelectEnum').locator('select').inputValue(), 'Monica');
    await screenshot(page, 'elicit-form').catch(() => {});
    await scanCards(page, 'as it arrives');

    // The required name is empty: Accept says so on the field, and nothing goes back yet.
    await card.locator('button.elicit-accept').click();
    assert.match(await field(card, 'name').locator('.elicit-error').innerText(), /String is required/);
    assert.equal(await field(card, 'name').locator('input').getAttribute('aria-invalid'), 'true');
    await scanCards(page, 'with a field error');
    // Keyboard: the first field and the buttons are reachable with Tab.
    await card.getByRole('textbox', { name: 'String', exact: true }).focus();
    assert.equal(await page.evaluate(() => document.activeElement?.closest('.elicit-field')?.dataset.field), 'name');

    // Typed values, by label, as a user would.
    await card.getByRole('textbox', { name: 'String', exact: true }).fill('Ada Lovelace');
    await card.getByRole('spinbutton', { name: 'Integer', exact: true }).fill('7');
    await card.getByRole('checkbox', { name: 'Boolean', exact: true }).check();
    await field(card, 'titledSingleSelectEnum').locator('select').selectOption('hero-3');
    await card.locator('button.elicit-accept').click();
    await card.waitFor({ state: 'detached', timeout: WAIT_MS });

    const tool = page.locator('details.tool-card[data-call-id="call_elicit_a"]');
    await page.waitForFunction(() => document.querySelector('details.tool-card[data-call-id="call_elicit_a"]')?.dataset.status === 'done', null, { timeout: WAIT_MS });
    if (!(await tool.evaluate((d) => d.open))) await tool.locator('summary').first().click();
    const result = await tool.locator('.tool-result').innerText();
    assert.match(result, /User provided the requested information/, result);
    const raw = JSON.parse(result.slice(result.indexOf('{', result.indexOf('Raw result:'))));
    assert.equal(raw.action, 'accept');
    assert.equal(raw.content.name, 'Ada Lovelace', 'typed');
    assert.equal(raw.content.integer, 7, 'typed, as a number');
    assert.equal(raw.content.check, true, 'typed');
    assert.equal(raw.content.titledSingleSelectEnum, 'hero-3', 'chosen');
    assert.equal(raw.content.firstLine, 'It was a dark and stormy night.', 'default');
    assert.equal(raw.content.number, 3.14, 'default');
    assert.equal(raw.content.untitledSingleSelectEnum, 'Monica', 'default');
    assert.deepEqual(raw.content.untitledMultipleSelectEnum, ['Guitar'], 'default');
    assert.equal(raw.content.legacyTitledEnum, 'pet-1', 'default');
    assert.equal(raw.content.email, undefined, 'an empty optional field is left out');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'elicit-a-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('b. from Settings, with no chat visible: the question shows there; Decline goes back', async () => {
  const { context, page, errors } = await openPage();
  try {
    await waitForTool(page);
    await page.click('button[aria-label="Settings"]');
    await page.getByRole('tab', { name: 'MCP servers' }).click();
    const row = page.locator(`li.mcp-server[data-server-name="${SERVER_ID}"]`);
    await row.waitFor(); // the MCP tab is its own chunk: its rows come a moment after the click
    if (!(await row.locator('ul.mcp-tools').count())) await row.locator('.mcp-toggle-tools').click();
    const li = row.locator(`li.mcp-tool[data-tool="${TOOL}"]`);
    await li.waitFor({ timeout: WAIT_MS });
    await li.locator('summary').click();
    await li.locator('.mcp-try-args').fill('{}');
    await li.locator('.mcp-try-call').click();

    const card = page.locator('.elicit-tray .elicit-card');
    await card.waitFor({ timeout: WAIT_MS });
    assert.equal(await page.locator('.elicit-card').count(), 1, 'shown once');
    // Over Settings' backdrop, not under it: the topmost element at the button is the button.
    const decline = card.locator('button.elicit-decline');
    // Keyboard: focus is on the card, and Tab stays in it (Settings' focus trap would pull it
    // back into the dialog otherwise).
    await page.waitForFunction(() => document.activeElement?.classList.contains('elicit-card'), null, { timeout: WAIT_MS });
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.closest('.elicit-field')?.dataset.field), 'name', 'Tab went to the first field');
    await page.keyboard.press('Tab');
    assert.ok(await page.evaluate(() => !!document.activeElement?.closest('.elicit-card')), 'a second Tab stays in the card');
    await decline.scrollIntoViewIfNeeded();
    assert.ok(
      await decline.evaluate((b) => {
        const r = b.getBoundingClientRect();
        return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === b;
      }),
      'the card is on top of Settings',
    );
    await decline.click();
    await card.waitFor({ state: 'detached', timeout: WAIT_MS });
    // Focus goes back into Settings (to the control the call was made from), so its focus trap
    // and Escape keep working.
    assert.ok(await page.evaluate(() => !!document.activeElement?.closest('.settings')), 'focus is back in Settings');
    await li.locator('.mcp-try-result, .mcp-try-error').first().waitFor({ timeout: WAIT_MS });
    const text = await li.locator('.mcp-try-result').innerText();
    assert.match(text, /declined/, text);
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'elicit-b-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('c. URL mode: the domain shows, nothing opens until the user chooses Open, then the tab opens and the server hears accept', async () => {
  const { context, page, errors } = await openPage();
  try {
    await waitForTool(page);
    await page.click('button[aria-label="Settings"]');
    await page.getByRole('tab', { name: 'MCP servers' }).click();
    const row = page.locator(`li.mcp-server[data-server-name="${SERVER_ID}"]`);
    await row.waitFor(); // the MCP tab is its own chunk: its rows come a moment after the click
    if (!(await row.locator('ul.mcp-tools').count())) await row.locator('.mcp-toggle-tools').click();
    const li = row.locator('li.mcp-tool[data-tool="trigger-url-elicitation"]');
    await li.waitFor({ timeout: WAIT_MS });
    await li.locator('summary').click();
    // The static test site stands in for the sign-in page: loopback only.
    const target = `${site.url}/?signin=1`;
    await li.locator('.mcp-try-args').fill(JSON.stringify({ url: target, message: 'Sign in to continue' }));
    await li.locator('.mcp-try-call').click();

    const card = page.locator('.elicit-tray .elicit-card[data-mode="url"]');
    await card.waitFor({ timeout: WAIT_MS });
    assert.equal(await card.locator('.elicit-domain').innerText(), '127.0.0.1');
    assert.match(await card.locator('.elicit-message').innerText(), /Sign in to continue/);
    await page.waitForTimeout(500);
    assert.equal(context.pages().length, 1, 'nothing opened before the user chose Open');
    await scanCards(page, 'URL mode');

    const opened = context.waitForEvent('page', { timeout: WAIT_MS });
    await card.locator('button.elicit-accept').click();
    const tab = await opened;
    await tab.waitForLoadState('domcontentloaded').catch(() => {});
    assert.equal(tab.url(), target, 'the tab opened on the link the user saw');
    await li.locator('.mcp-try-result').waitFor({ timeout: WAIT_MS });
    assert.match(await li.locator('.mcp-try-result').innerText(), /User completed the URL elicitation flow/);
    // The call the question came with has its answer: the server went on, so the card that
    // said it would goes by itself (server-everything never sends elicitation/complete).
    await card.waitFor({ state: 'detached', timeout: WAIT_MS });
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'elicit-c-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('d. on a 375 px phone, by keyboard only: the card fits, Tab then Enter answers, focus returns to the message box', async () => {
  const { context, page, errors } = await openPage({ width: 375, height: 740 });
  try {
    await waitForTool(page);
    await api.script([
      { reply: 'Let me ask you.', tool_calls: [{ id: 'call_elicit_d', name: TOOL, arguments: {} }] },
      { reply: 'Thanks.' },
    ]);
    await page.fill('textarea[aria-label="Message"]', 'Ask me');
    await page.keyboard.press('Enter');
    const card = page.locator('.elicit-tray .elicit-card');
    await card.waitFor({ timeout: WAIT_MS });
    await page.waitForFunction(() => document.activeElement?.classList.contains('elicit-card'), null, { timeout: WAIT_MS });
    const fit = await page.evaluate(() => {
      const c = document.querySelector('.elicit-card');
      const r = c.getBoundingClientRect();
      return { left: r.left, right: r.right, cardOverflow: c.scrollWidth - c.clientWidth, page: document.documentElement.scrollWidth };
    });
    assert.ok(fit.left >= 0 && fit.right <= 375 && fit.cardOverflow <= 0 && fit.page <= 375, `fits 375 px: ${JSON.stringify(fit)}`);
    await screenshot(page, 'elicit-375').catch(() => {});
    await scanCards(page, 'at 375 px');

    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.closest('.elicit-field')?.dataset.field), 'name');
    await page.keyboard.type('Grace Hopper');
    await page.keyboard.press('Enter');
    await card.waitFor({ state: 'detached', timeout: WAIT_MS });
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'composer-input', 'focus is back in the message box');

    await page.waitForFunction(() => document.querySelector('details.tool-card[data-call-id="call_elicit_d"]')?.dataset.status === 'done', null, { timeout: WAIT_MS });
    const tool = page.locator('details.tool-card[data-call-id="call_elicit_d"]');
    if (!(await tool.evaluate((d) => d.open))) await tool.locator('summary').first().click();
    const result = await tool.locator('.tool-result').innerText();
    const raw = JSON.parse(result.slice(result.indexOf('{', result.indexOf('Raw result:'))));
    assert.equal(raw.action, 'accept');
    assert.equal(raw.content.name, 'Grace Hopper');
    assert.equal(raw.content.integer, 42, 'the default went with it');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'elicit-d-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('e. a link the page must not open is refused at once: the server hears invalid params, a notice says why', async () => {
  const { context, page, errors } = await openPage();
  try {
    await waitForTool(page);
    await page.click('button[aria-label="Settings"]');
    await page.getByRole('tab', { name: 'MCP servers' }).click();
    const row = page.locator(`li.mcp-server[data-server-name="${SERVER_ID}"]`);
    await row.waitFor(); // the MCP tab is its own chunk: its rows come a moment after the click
    if (!(await row.locator('ul.mcp-tools').count())) await row.locator('.mcp-toggle-tools').click();
    const li = row.locator('li.mcp-tool[data-tool="trigger-url-elicitation"]');
    await li.waitFor({ timeout: WAIT_MS });
    await li.locator('summary').click();
    await li.locator('.mcp-try-args').fill(JSON.stringify({ url: 'javascript:alert(1)', message: 'Click me' }));
    await li.locator('.mcp-try-call').click();

    const notice = page.locator('.notice', { hasText: 'request for input' });
    await notice.waitFor({ timeout: WAIT_MS });
    const text = await notice.innerText();
    assert.match(text, new RegExp(`Refused ${SERVER_ID}.s request for input: the link uses .javascript:., not http\\(s\\)`), text);
    assert.equal(await page.locator('.elicit-card').count(), 0, 'no question card for a refused request');
    await li.locator('.mcp-try-result, .mcp-try-error').first().waitFor({ timeout: WAIT_MS });
    const out = await li.locator('.mcp-try-out').innerText();
    assert.match(out, /not http\(s\)|-32602|invalid/i, out);
    assert.equal(context.pages().length, 1, 'nothing opened');
    await notice.locator('button[aria-label="Dismiss"]').click();
    await notice.waitFor({ state: 'detached', timeout: WAIT_MS });
    assert.equal(await page.locator('.elicit-tray').isHidden(), true, 'the empty tray hides');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'elicit-e-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});
