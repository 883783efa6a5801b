// End-to-end: masks (issue 12, item 3) in the release build, against the scripted
// OpenAI-compatible server, which records every request body. A mask made in Settings →
// Masks starts a chat; its prompts open every request of that chat (after the system text,
// before the conversation) and its sampling replaces the profile's; the chat keeps its copy
// through a reload and through later edits of the mask; built-in masks can be duplicated but
// not changed; what cannot be saved is said on the field.
//
//   SKIFF_DIST=$PWD/dist node --test --test-concurrency=1 tests/e2e/masks.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collectConsoleErrors, chatSettings, screenshot, openAiSuite } from './harness.mjs';

let api, site, browser;
openAiSuite((s) => ({ api, site, browser } = s));

const FATAL = /panicked|unreachable|RuntimeError/;

async function openPage() {
  const context = await browser.newContext({ viewport: { width: 1100, height: 850 } });
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, chatSettings(api.url));
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]');
  return { context, page, errors };
}

async function openMasks(page) {
  await page.click('button[aria-label="Settings"]');
  await page.getByRole('tab', { name: 'Masks' }).click();
  await page.locator('section.masks #mask-new').waitFor();
}

async function send(page, text) {
  await page.fill('textarea[aria-label="Message"]', text);
  await page.keyboard.press('Enter');
}

async function waitAnswers(page, n) {
  await page.waitForFunction((count) => {
    const all = document.querySelectorAll('article.message-assistant');
    return all.length === count && all[count - 1].dataset.status === 'done';
  }, n, { timeout: 15000 });
}

const chatBodies = async () => (await api.requests()).filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.body);

test('a mask made in Settings starts a chat whose every request opens with its prompts and sampling, and the chat keeps its copy', async () => {
  const { context, page, errors } = await openPage();
  try {
    await openMasks(page);
    const panel = page.locator('section.masks');
    await panel.locator('#mask-new').click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'mask-name', 'the editor opens at its first field');
    await panel.getByLabel('Name', { exact: true }).fill('Pirate');
    await panel.getByLabel('Emoji').fill('🏴');
    await panel.getByLabel('Temperature').fill('1.5');
    await panel.getByLabel('Prompt 1', { exact: true }).fill('Talk like a pirate.');
    await panel.locator('#mask-add').click();
    // What was typed survives the redraw, and the new prompt has the cursor.
    assert.equal(await panel.getByLabel('Prompt 1', { exact: true }).inputValue(), 'Talk like a pirate.');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Prompt 2');
    await panel.getByLabel('Prompt 2', { exact: true }).fill('Who are you?');
    await panel.locator('#mask-add').click();
    await panel.getByLabel('Role of prompt 3').selectOption('assistant');
    await panel.getByLabel('Prompt 3', { exact: true }).fill('Arr, yer captain.');
    await panel.locator('#mask-add').click();
    await panel.getByRole('button', { name: 'Remove prompt 4' }).click();
    assert.equal(await panel.locator('.mask-prompt textarea').count(), 3, 'Remove takes the prompt out');
    await panel.locator('.mask-save').click();

    const row = panel.locator('li.mask-row', { hasText: 'Pirate' });
    await row.waitFor();
    assert.match(await row.innerText(), /3 prompts/);
    await screenshot(page, 'masks-list').catch(() => {});
    await row.getByRole('button', { name: 'New chat with 🏴 Pirate' }).click();
    await page.locator('.settings').waitFor({ state: 'detached' });
    assert.match(await page.locator('.mask-line').innerText(), /New chat with the mask 🏴 Pirate/);

    await api.script([{ reply: 'Ahoy.' }, { reply: 'Aye.' }, { reply: 'Still aye.' }]);
    await send(page, 'Hello');
    await waitAnswers(page, 1);
    assert.match(await page.locator('.mask-line').innerText(), /Mask: 🏴 Pirate/);
    let [first] = await chatBodies();
    // One leading system message (strict chat templates refuse two): the template, then the
    // mask's system prompt joined into it.
    assert.equal(first.messages[0].role, 'system', 'the system template still opens the request');
    assert.ok(first.messages[0].content.endsWith('\n\nTalk like a pirate.'), `the mask's system prompt joins it: ${first.messages[0].content}`);
    assert.deepEqual(first.messages.slice(1), [
      { role: 'user', content: 'Who are you?' },
      { role: 'assistant', content: 'Arr, yer captain.' },
      { role: 'user', content: 'Hello' },
    ]);
    assert.equal(first.temperature, 1.5, "the mask's temperature");

    // The mask changes in Settings; this chat keeps the copy it started with, through a reload.
    await openMasks(page);
    await page.locator('section.masks .row-edit').click();
    await page.locator('section.masks').getByLabel('Prompt 1', { exact: true }).fill('Talk like a robot.');
    await page.locator('section.masks .mask-save').click();
    await page.locator('section.masks li.mask-row', { hasText: 'Pirate' }).waitFor();
    await page.click('button[aria-label="Close settings"]');
    await page.reload();
    await page.waitForSelector('article.message-assistant');
    assert.match(await page.locator('.mask-line').innerText(), /Mask: 🏴 Pirate/, 'the chat still names its mask after a reload');
    await send(page, 'And now?');
    await waitAnswers(page, 2);
    const second = (await chatBodies())[1];
    assert.ok(second.messages[0].content.endsWith('\n\nTalk like a pirate.'), 'the chat kept its copy');
    assert.equal(second.messages.at(-1).content, 'And now?');
    assert.equal(second.temperature, 1.5);

    // A new chat from the edited mask gets the new text; "Start without it" drops it.
    await openMasks(page);
    await page.getByRole('button', { name: 'New chat with 🏴 Pirate' }).click();
    await page.locator('.mask-line button', { hasText: 'Start without it' }).click();
    await page.waitForFunction(() => document.querySelector('.mask-line')?.textContent === '');
    assert.equal(await page.locator('.mask-line').isVisible(), false, 'no mask, no line');
    await send(page, 'Plain');
    await page.waitForFunction(() => document.querySelectorAll('article.message-assistant').length === 1
      && document.querySelector('article.message-assistant').dataset.status === 'done', null, { timeout: 15000 });
    const third = (await chatBodies())[2];
    assert.deepEqual(third.messages.slice(1), [{ role: 'user', content: 'Plain' }], 'no mask, no prompts');
    assert.equal(third.temperature, undefined);
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'masks-a-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});

test('built-in masks are duplicated, not changed; a mask that cannot be saved says why on the field; delete asks first', async () => {
  const { context, page, errors } = await openPage();
  try {
    await openMasks(page);
    const panel = page.locator('section.masks');
    const builtin = panel.locator('li.mask-row[data-mask="builtin-translator"]');
    assert.equal(await builtin.locator('.row-edit, .row-delete').count(), 0, 'a built-in mask cannot be edited or deleted');
    await builtin.getByRole('button', { name: /^Duplicate/ }).click();
    const name = panel.getByLabel('Name', { exact: true });
    assert.equal(await name.inputValue(), 'Translator (copy)');
    assert.match(await panel.getByLabel('Prompt 1', { exact: true }).inputValue(), /You are a translator/);

    // Nothing is saved while a field is wrong, and the cursor goes to the first one.
    await name.fill('  ');
    await panel.getByLabel('Temperature').fill('5');
    await panel.locator('.mask-save').click();
    assert.equal(await panel.locator('#mask-name-err').innerText(), 'A mask needs a name.');
    assert.match(await panel.locator('#mask-temperature-err').innerText(), /Temperature must be a number from 0 to 2/);
    assert.equal(await panel.getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'mask-name');
    assert.match(await panel.locator('.mask-summary').innerText(), /2 fields need attention/);
    assert.match(await panel.getByLabel('Prompt 1', { exact: true }).inputValue(), /You are a translator/, 'what was there is kept');

    await panel.getByLabel('Name', { exact: true }).fill('My translator');
    await panel.getByLabel('Temperature').fill('');
    await panel.locator('.mask-save').click();
    const mine = panel.locator('li.mask-row', { hasText: 'My translator' });
    await mine.waitFor();
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('skiff:settings')).data.masks);
    assert.equal(stored.length, 1);
    assert.equal(stored[0].name, 'My translator');
    assert.equal(stored[0].context[0].role, 'system');

    // Survives a reload; Delete asks once more, Keep keeps it, Delete for good removes it.
    await page.reload();
    await page.waitForSelector('textarea[aria-label="Message"]');
    await openMasks(page);
    await mine.getByRole('button', { name: 'Delete 🌐 My translator', exact: true }).click();
    await mine.getByRole('button', { name: /^Keep/ }).click();
    await mine.getByRole('button', { name: 'Delete 🌐 My translator', exact: true }).click();
    await mine.getByRole('button', { name: /for good$/ }).click();
    await mine.waitFor({ state: 'detached' });
    assert.deepEqual(await page.evaluate(() => JSON.parse(localStorage.getItem('skiff:settings')).data.masks ?? []), []);
    assert.equal(await panel.locator('li.mask-row[data-mask="builtin-translator"]').count(), 1, 'the built-in one stays');
    assert.deepEqual(errors.filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(page, 'masks-b-failure').catch(() => {});
    throw err;
  } finally {
    await context.close();
  }
});
