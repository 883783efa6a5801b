// End-to-end: the full backup (issue 12, item 10) in the release build. A used browser
// (a provider with a key, a mask, a project, an MCP server with a header, a memory, a
// conversation with an attached image, dark theme) downloads one file from Settings → Storage,
// without its keys unless the switch is on; a fresh browser profile imports it and has
// everything back (the image included); importing it again adds nothing; a backup from a newer
// Skiff is refused with a sentence.
//
//   SKIFF_DIST=$PWD/dist node --test --test-concurrency=1 tests/e2e/backup.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { collectConsoleErrors, chatSettings, screenshot, openAiSuite, rustConst } from './harness.mjs';

let api, site, browser;
openAiSuite((s) => ({ api, site, browser } = s));

const FATAL = /panicked|unreachable|RuntimeError/;
const PNG_B64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const PNG = { name: 'dot.png', mimeType: 'image/png', buffer: Buffer.from(PNG_B64, 'base64') };
const SERVERS_VERSION = rustConst('src/core/mcp/config.rs', 'SERVERS_VERSION');

async function usedBrowser() {
  const context = await browser.newContext({ viewport: { width: 1100, height: 850 }, acceptDownloads: true });
  const settings = chatSettings(api.url, {
    api_key: 'sk-secret-9',
    theme: 'dark',
    history_count: 7,
    masks: [{ id: 'mask-1', name: 'Pirate', context: [{ role: 'system', content: 'Talk like a pirate.' }] }],
    projects: [{ id: 'proj-1', name: 'Garden', instructions: 'Balcony only.' }],
  });
  const servers = JSON.stringify({ v: SERVERS_VERSION, data: { servers: [
    { id: 'srv-1', name: 'Notes', url: 'http://127.0.0.1:9/mcp', transport: 'auto', headers: [['Authorization', 'Bearer tok-9']], enabled: false },
  ] } });
  const memory = JSON.stringify({ v: 1, data: { builtin_enabled: true, book: { entries: [
    { id: 'm1', text: 'I water the basil on Sundays.', tags: [], created_ms: 1, updated_ms: 1 },
  ], next_id: 2 } } });
  await context.addInitScript(([s, m, b]) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    if (!localStorage.getItem('skiff:mcp-servers')) localStorage.setItem('skiff:mcp-servers', m);
    if (!localStorage.getItem('skiff:memory')) localStorage.setItem('skiff:memory', b);
  }, [settings, servers, memory]);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]');
  return { context, page, errors };
}

async function openStorage(page) {
  await page.click('button[aria-label="Settings"]');
  await page.getByRole('tab', { name: 'Storage' }).click();
  await page.locator('.backup-all').waitFor();
}

async function download(page) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.locator('.backup-all').click()]);
  const text = await readFile(await file.path(), 'utf8');
  return { name: file.suggestedFilename(), text };
}

test('a backup carries everything but the keys; a fresh browser imports it whole, and again adds nothing', async () => {
  const used = await usedBrowser();
  const fresh = await browser.newContext({ viewport: { width: 1100, height: 850 } });
  try {
    const { page } = used;
    await api.script([{ reply: 'A dot.' }]);
    await page.getByRole('button', { name: 'New chat in Garden' }).click();
    await page.locator('.attach-button input[type=file]').setInputFiles(PNG);
    await page.locator('form.composer .attachment').first().waitFor();
    await page.fill('textarea[aria-label="Message"]', 'What is this?');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('article.message-assistant')?.dataset.status === 'done', null, { timeout: 15000 });

    await openStorage(page);
    const plain = await download(page);
    assert.match(plain.name, /^skiff-backup-\d{4}-\d{2}-\d{2}\.json$/);
    await page.locator('.prune-result', { hasText: 'Saved skiff-backup-' }).waitFor();
    assert.match(await page.locator('.prune-result').innerText(), /1 conversation and 1 file\./);
    assert.doesNotMatch(plain.text, /sk-secret-9/, 'no API key without the switch');
    assert.doesNotMatch(plain.text, /tok-9/, 'no MCP header without the switch');
    const parsed = JSON.parse(plain.text);
    assert.equal(parsed.format, 'skiff-backup');
    assert.equal(parsed.conversations.length, 1);
    assert.equal(parsed.files.length, 1);
    assert.equal(parsed.files[0].data, PNG_B64, 'the attached file, byte for byte');
    await page.locator('#backup-keys').check();
    const withKeys = await download(page);
    assert.match(withKeys.text, /sk-secret-9/);
    assert.match(withKeys.text, /tok-9/);

    // A fresh profile: nothing stored. The backup without keys brings everything else back.
    const p2 = await fresh.newPage();
    const errors2 = collectConsoleErrors(p2);
    await p2.goto(site.url);
    await p2.waitForSelector('textarea[aria-label="Message"]');
    await openStorage(p2);
    await p2.setInputFiles('#import-conversations', { name: 'backup.json', mimeType: 'application/json', buffer: Buffer.from(plain.text) });
    const result = (await p2.locator('.import-result').innerText()).trim();
    assert.match(result, /^Added 1 conversation\. From the backup: 1 provider, 1 mask, 1 project, \d+ settings, 1 MCP server, 1 memory, 1 file\.$/, result);
    await screenshot(p2, 'backup-imported').catch(() => {});
    assert.equal(await p2.evaluate(() => document.documentElement.dataset.theme), 'dark', "the backup's theme");
    const settings = await p2.evaluate(() => JSON.parse(localStorage.getItem('skiff:settings')).data);
    assert.equal(settings.profiles.length, 1);
    assert.equal(settings.profiles[0].base_url, `${api.url}/v1`);
    assert.equal(settings.profiles[0].api_key, '', 'no key came with it');
    assert.equal(settings.history_count, 7);
    assert.deepEqual(settings.projects.map((p) => p.name), ['Garden']);
    assert.deepEqual(settings.masks.map((m) => m.name), ['Pirate']);
    const servers = await p2.evaluate(() => JSON.parse(localStorage.getItem('skiff:mcp-servers')).data.servers);
    assert.deepEqual(servers.map((s) => [s.name, s.url, s.headers.length]), [['Notes', 'http://127.0.0.1:9/mcp', 0]]);
    assert.match(await p2.evaluate(() => localStorage.getItem('skiff:memory')), /I water the basil on Sundays\./);
    await p2.click('button[aria-label="Close settings"]');
    await p2.locator('.project-heading', { hasText: 'Garden' }).waitFor();
    await p2.locator('.conversation.nested .conversation-select').click();
    await p2.locator('article.message-user .attachment img').waitFor({ timeout: 10000 });
    assert.ok(await p2.locator('article.message-user .attachment img').evaluate((img) => img.complete && img.naturalWidth === 1), 'the image is back');

    // Again: nothing is added or doubled.
    await openStorage(p2);
    await p2.setInputFiles('#import-conversations', { name: 'backup.json', mimeType: 'application/json', buffer: Buffer.from(plain.text) });
    await p2.locator('.import-result', { hasText: 'skipped 1 already here' }).waitFor();
    const again = (await p2.locator('.import-result').innerText()).trim();
    assert.match(again, /^Added 0 conversations; skipped 1 already here\. 1 MCP server skipped \(already here, or unusable\)\.$/, again);
    const servers2 = await p2.evaluate(() => JSON.parse(localStorage.getItem('skiff:mcp-servers')).data.servers);
    assert.equal(servers2.length, 1, 'the MCP server is not doubled');

    // A backup from a newer Skiff is refused whole, with the reason.
    await p2.setInputFiles('#import-conversations', { name: 'future.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify({ format: 'skiff-backup', version: 9 })) });
    await p2.locator('.import-result', { hasText: 'newer Skiff' }).waitFor();
    assert.match(await p2.locator('.import-result').innerText(), /made by a newer Skiff \(format version 9\).*Nothing was imported\./);
    assert.deepEqual([...used.errors, ...errors2].filter((e) => FATAL.test(e)), []);
  } catch (err) {
    await screenshot(used.page, 'backup-failure').catch(() => {});
    throw err;
  } finally {
    await used.context.close();
    await fresh.close();
  }
});
