// End-to-end: the in-page model is named as what it is, and its stored models are in the
// chat's model picker at once (issue 31, item 5). Before: "the server's default model at
// in-browser://model", and a stored model appeared only after "List models again".
//
// Needs: scripts/build.sh (dist/ with worker/) and the model (scripts/setup-models.sh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startStaticServer, launchBrowser, collectConsoleErrors, distDir } from './harness.mjs';

const MODELS = process.env.SKIFF_MODELS || path.join(os.homedir(), '.cache', 'skiff', 'models');
const MODEL = path.join(MODELS, 'SmolLM2-135M-Instruct.Q4_1.gguf');
const ID = 'SmolLM2-135M-Instruct.Q4_1';
const SETTINGS = JSON.stringify({
  v: 2,
  data: {
    profiles: [{ id: 'here', name: 'This browser', kind: 'browser', base_url: '', api_key: '', default_model: '', temperature: 0, top_p: null, max_tokens: 64 }],
    system_prompt: '', theme: 'system', auto_title: false, tool_mode: 'off',
  },
});

let site, browser;

before(async () => {
  assert.ok(existsSync(MODEL), `${MODEL} is missing: run scripts/setup-models.sh`);
  assert.ok(existsSync(path.join(distDir(), 'worker', 'model-worker.js')), `no worker/ in ${distDir()}: run scripts/build.sh`);
  site = await startStaticServer();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await site?.stop();
});

const options = (page) => page.locator('select.model-select option').allInnerTexts();
const intro = (page) => page.locator('.onboarding p.muted, section p.muted').first().innerText();

test('the in-page model is called "In this browser · <model>", and a stored model is in the picker at once, a deleted one gone at once', async () => {
  const context = await browser.newContext();
  await context.addInitScript((s) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
  }, SETTINGS);
  try {
    const page = await context.newPage();
    const errors = collectConsoleErrors(page);
    await page.goto(`${site.url}/`);
    await page.waitForSelector('textarea[aria-label="Message"]');
    const body = async () => page.locator('body').innerText();
    assert.doesNotMatch(await body(), /in-browser:\/\/|server's default model/);
    assert.match(await body(), /no model stored yet/);

    await page.click('button[aria-label="Settings"]');
    const panel = page.locator('section.local-models');
    await panel.locator('input[type="file"]').waitFor({ state: 'attached', timeout: 30_000 });
    await panel.locator('input[type="file"]').setInputFiles(MODEL);
    await panel.locator('.lm-model').waitFor({ timeout: 120_000 });
    await page.keyboard.press('Escape');

    // No listing asked for: the picker already offers it, chosen, by its name.
    assert.deepEqual(await options(page), [`In this browser · ${ID}`]);
    assert.equal(await page.locator('select.model-select').inputValue(), `here/${ID}`);
    assert.match(await body(), new RegExp(`Chatting with In this browser · ${ID.replace('.', '\\.')}, which runs on this device and works offline\\.`));
    assert.doesNotMatch(await body(), /in-browser:\/\/|server's default model/);

    // A reload keeps the list (no "List models again" either).
    await page.reload();
    await page.waitForSelector('textarea[aria-label="Message"]');
    assert.deepEqual(await options(page), [`In this browser · ${ID}`]);

    // Deleted in the panel: gone from the picker at once.
    await page.click('button[aria-label="Settings"]');
    await panel.locator('.lm-model').waitFor({ timeout: 30_000 });
    const name = (await panel.locator('.lm-name').innerText()).trim();
    await panel.getByRole('button', { name: `Delete ${name}` }).click();
    await panel.locator('button.lm-delete-confirm').click();
    await panel.getByText('No model is stored yet.').waitFor({ timeout: 20_000 });
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => [...document.querySelectorAll('select.model-select option')].every((o) => !o.textContent.includes('SmolLM2')), null, { timeout: 10_000 });
    assert.deepEqual(await options(page), ['In this browser · newest stored model']);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
