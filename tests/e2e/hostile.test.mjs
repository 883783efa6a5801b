// End-to-end: the hostile input corpus (tests/fixtures/hostile/corpus.json) delivered through
// every surface that shows untrusted text today, on the release build in Chromium.
//
// Why it exists: the page holds API keys and shows text written by models, tools and MCP
// servers. Unit tests check the markdown writer's output; only a browser shows that nothing in
// that text runs a script, navigates, or makes the page fetch from a stranger's origin, after
// the DOM, the CSP and the sandboxed previews all had their say.
//
// Surfaces covered: model output (streamed in two chunkings, then reloaded from storage),
// reasoning text, the conversation title (from the first user message), an MCP server's name,
// version and instructions, its tool titles and descriptions (Settings → MCP servers), and a
// tool's results (the tool card), a model-written title, imported files (Skiff's JSON and
// llama.cpp's export), search results and the Markdown export. Resource contents and tool
// instructions shown to the user join when they land (issue 13).
//
// Every payload tries one of: call `__pwned(id)` (defined in every frame by an init script;
// any call is recorded), navigate the page or open a window, or load a URL on EVIL, a local
// server that must see no request. The assertions: no call, the page URL unchanged and no
// popup, every request the page made went to the app, the model server or the MCP server, and
// no CSP violation on the page (collectConsoleErrors).
//
// What it must never do: listen on anything but 127.0.0.1 or reach the network.

import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import os from 'node:os';
import path from 'node:path';
import {
  startOpenAiServer, startStaticServer, launchBrowser, collectConsoleErrors, repoRoot, screenshot,
  rustConst,
} from './harness.mjs';

const WAIT_MS = 20_000;
const MODEL = 'skiff-hostile-model';

const SERVERS_VERSION = rustConst('src/core/mcp/config.rs', 'SERVERS_VERSION');

const corpusFile = JSON.parse(readFileSync(path.join(repoRoot, 'tests/fixtures/hostile/corpus.json'), 'utf8'));

let api, site, browser, evil, mcp, corpus;
const evilHits = [];

/** A local server standing for "somewhere else": every request it gets is a failure. */
async function startEvil() {
  const server = createServer((req, res) => {
    evilHits.push(req.url);
    res.writeHead(200, { 'Content-Type': 'text/html', 'Access-Control-Allow-Origin': '*' });
    res.end('<script>__pwned("evil-origin")</script>');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}`, stop: () => new Promise((r) => { server.closeAllConnections(); server.close(r); }) };
}

async function startCorpusMcp(payloads) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'skiff-hostile-'));
  const file = path.join(dir, 'payloads.json');
  writeFileSync(file, JSON.stringify(payloads));
  const child = spawn(process.execPath, [path.join(repoRoot, 'tests/servers/mcp/corpus_server.mjs'), file], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('corpus_server.mjs printed no port')), 10_000);
    createInterface({ input: child.stdout }).once('line', (l) => {
      clearTimeout(timer);
      resolve(Number(l.trim()));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    origin: `http://127.0.0.1:${port}`,
    stop: () => { child.kill('SIGTERM'); },
  };
}

before(async () => {
  evil = await startEvil();
  corpus = corpusFile.payloads.map((p) => ({ ...p, payload: p.payload.replaceAll('EVIL', evil.url) }));
  api = await startOpenAiServer({ models: [MODEL] });
  site = await startStaticServer(process.env.SKIFF_DIST || 'dist');
  mcp = await startCorpusMcp(corpus.map((p) => p.payload));
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await site?.stop();
  await api?.stop();
  mcp?.stop();
  await evil?.stop();
});

beforeEach(async () => {
  await api.reset();
  evilHits.length = 0;
});

/** Runs in every frame before any page script: records every `__pwned` call. */
function watchScript() {
  const record = (id) => {
    try {
      (window.top.__pwnedCalls ||= []).push(String(id));
    } catch {
      console.error(`PWNED in a cross-origin frame: ${id}`);
    }
  };
  window.__pwned = record;
  if (window === window.top) {
    window.__pwnedCalls = [];
    window.__previewReports = [];
    window.addEventListener('message', (e) => {
      if (e.data && e.data.kind === 'preview-report') window.__previewReports.push(e.data);
    });
  }
}

function settingsEnvelope(autoTitle = false) {
  return JSON.stringify({
    // Format 1 (one provider in flat fields), as builds before profiles stored it: the page
    // migrates it into one profile, which this suite also keeps in use.
    v: 1,
    data: {
      base_url: `${api.url}/v1`, api_key: '', model: MODEL, system_prompt: '', theme: 'system',
      tool_mode: 'native', step_limit: 15, result_char_limit: 64000, tool_images_to_model: false,
      approvals: { rules: {}, allow_read_only: false }, learned_tool_modes: {},
      // The title comes from the first user message here; the model-written title is its
      // own surface (the import/search test turns it on).
      auto_title: autoTitle,
    },
  });
}

function serversEnvelope(withCorpus) {
  const servers = withCorpus
    ? [{ id: 'corpus', name: 'corpus', url: mcp.url, transport: 'auto', headers: [], enabled: true }]
    : [];
  return JSON.stringify({ v: SERVERS_VERSION, data: { servers } });
}

/**
 * A fresh context with the provider (and optionally the corpus MCP server) seeded, and
 * everything the page does recorded: requests, main-frame navigations, popups, console errors.
 */
async function openPage({ withMcp = false, width = 1200, colorScheme = 'light', autoTitle = false } = {}) {
  const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
  await context.addInitScript(([s, m]) => {
    // Init scripts run in every frame; the sandboxed preview has no storage to seed.
    if (window !== window.top) return;
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', s);
    if (!localStorage.getItem('skiff:mcp-servers')) localStorage.setItem('skiff:mcp-servers', m);
  }, [settingsEnvelope(autoTitle), serversEnvelope(withMcp)]);
  await context.addInitScript(watchScript);
  const page = await context.newPage();
  const errors = collectConsoleErrors(page);
  const requests = [];
  page.on('request', (req) => requests.push(req));
  // Chromium reports a request the CSP refused (it never reaches the wire) as failed with "csp".
  const refused = new Set();
  page.on('requestfailed', (req) => { if (req.failure()?.errorText === 'csp') refused.add(req); });
  const navigations = [];
  page.on('framenavigated', (f) => {
    if (f === page.mainFrame()) navigations.push(f.url());
  });
  const popups = [];
  context.on('page', (p) => popups.push(p.url()));
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]', { timeout: WAIT_MS });
  return { context, page, errors, requests, refused, navigations, popups };
}

async function send(page, text) {
  await page.fill('textarea[aria-label="Message"]', text);
  await page.keyboard.press('Enter');
}

async function waitDone(page, count) {
  await page.waitForFunction(
    (n) => {
      const all = document.querySelectorAll('article.message-assistant');
      return all.length >= n && all[all.length - 1].dataset.status === 'done';
    },
    count,
    { timeout: WAIT_MS },
  );
}

/** The four promises, checked after a surface showed the corpus. */
async function assertNothingHappened(page, rec, { allowed = [], extraErrors = [] } = {}) {
  // Give late loads (images, refreshes, frames) a moment to try.
  await page.waitForTimeout(700);
  const calls = await page.evaluate(() => window.__pwnedCalls ?? ['(the page lost its watcher: it navigated)']);
  assert.deepEqual(calls, [], 'no payload ran a script');
  // The app keeps the open conversation in the fragment; anything else is a navigation.
  const page_ = (u) => { const x = new URL(u); return x.origin + x.pathname + x.search; };
  assert.equal(page_(page.url()), `${site.url}/`, 'the page never navigated away');
  assert.deepEqual(rec.navigations.filter((u) => page_(u) !== `${site.url}/`), [], 'no main-frame navigation');
  assert.deepEqual(rec.popups, [], 'no window opened');
  const origins = new Set([site.url, api.url, mcp.origin, ...allowed]);
  const foreign = rec.requests
    .filter((r) => !rec.refused.has(r) && !origins.has(new URL(r.url()).origin))
    .map((r) => r.url());
  assert.deepEqual(foreign, [], 'the page requested nothing from an origin the user did not configure');
  assert.deepEqual(evilHits, [], 'the outside server saw no request');
  const errors = rec.errors.filter((e) => !extraErrors.some((re) => re.test(e)));
  assert.deepEqual(errors, [], 'no CSP violation, console error or uncaught error');
}

const joined = () => corpus.map((p) => `${p.payload}\n\n`).join('');

test('model output, reasoning and the title carry the corpus: nothing runs, loads or navigates', async () => {
  const rec = await openPage();
  const { page } = rec;
  try {
    const body = joined();
    await api.script([
      { reasoning: body, reply: body, chunk_chars: 7 },
      { reply: body, chunk_chars: 3 },
    ]);
    // The first user message becomes the conversation's title.
    const title = `<img src=x onerror="__pwned('title')"><script>__pwned('title2')</script> [t](javascript:__pwned('title3'))`;
    await send(page, title);
    await waitDone(page, 1);
    await send(page, corpus.map((p) => p.payload).join('\n'));
    await waitDone(page, 2);
    // The title is shown as the text it is.
    const sidebar = await page.locator('.sidebar').innerText();
    assert.match(sidebar, /<img src=x/, `the title is text: ${sidebar.slice(0, 300)}`);
    // The reasoning is shown too (open it), as text.
    const reasoning = page.locator('details.reasoning').first();
    await reasoning.locator('summary').click();
    assert.match(await reasoning.innerText(), /<script>__pwned\('script-tag'\)<\/script>/);
    // The answers rendered: payloads are visible as text, math fell back to source where asked.
    const answer = page.locator('article.message-assistant').first();
    assert.match(await answer.innerText(), /<script>__pwned\('script-tag'\)<\/script>/);
    assert.equal(await answer.locator('a[href^="javascript"], a[href^="data"], a[href^="vbscript"]').count(), 0);
    assert.equal(await answer.locator('script, iframe, object, embed, img, svg, style, form, base, meta, input:not([type="checkbox"])').count(), 0);
    assert.ok(await answer.locator('code.math-src').count() >= 1, 'the \\href formula is shown as source');
    await assertNothingHappened(page, rec);

    // Reloaded from storage: the same text goes through the whole-message path.
    rec.navigations.length = 0;
    await page.reload();
    await page.waitForSelector('article.message-assistant[data-status="done"]', { timeout: WAIT_MS });
    await page.waitForTimeout(300);
    rec.navigations.length = 0;
    assert.equal(await page.locator('article.message-assistant').count(), 2);
    await assertNothingHappened(page, rec);
  } finally {
    await rec.context.close();
  }
});

test('an MCP server name, instructions, tool descriptions and tool results carry the corpus', async () => {
  const rec = await openPage({ withMcp: true });
  const { page } = rec;
  try {
    // Settings → MCP servers shows the server's info and every tool's description.
    await page.click('button[aria-label="Settings"]');
    await page.getByRole('tab', { name: 'MCP servers' }).click();
    const row = page.locator('li.mcp-server[data-server-name="corpus"]');
    await page.waitForFunction(
      () => document.querySelector('li.mcp-server[data-server-name="corpus"]')?.dataset.status === 'connected',
      null,
      { timeout: WAIT_MS },
    );
    await row.locator('.mcp-toggle-tools').click();
    await row.locator('li.mcp-tool[data-tool="corpus_echo"]').waitFor({ timeout: WAIT_MS });
    const tools = row.locator('li.mcp-tool');
    assert.equal(await tools.count(), corpus.length + 1, 'every tool is listed');
    assert.match(await row.innerText(), /<script>__pwned\('script-tag'\)<\/script>/, 'descriptions are text');
    // Open every tool's details, so each description and schema is laid out.
    for (const summary of await row.locator('li.mcp-tool summary').all()) await summary.click();
    // Skiff's transport probe asks `server/discover` first; a legacy server answers 400 (as the
    // TypeScript SDK does), which Chromium logs. That is the probe, not a payload.
    const probe = [new RegExp(`Failed to load resource: the server responded with a status of 400 .*${mcp.origin.replace(/[.]/g, '\\.')}/mcp`)];
    await assertNothingHappened(page, rec, { extraErrors: probe });
    await page.keyboard.press('Escape');

    // The model calls the tool; its results (and the resource link) show in the card.
    await api.script([
      { reply: 'Calling.', tool_calls: [{ name: 'corpus_echo', arguments: { message: 'go' }, id: 'call_corpus' }] },
      { reply: joined() },
    ]);
    await send(page, 'use the tool');
    const card = page.locator('details.tool-card[data-call-id="call_corpus"]');
    await page.waitForFunction(
      () => document.querySelector('details.tool-card[data-call-id="call_corpus"]')?.dataset.status === 'awaiting_approval',
      null,
      { timeout: WAIT_MS },
    );
    if (!(await card.evaluate((d) => d.open))) await card.locator('summary').first().click();
    await card.locator('.tool-approval button.approve-once').click();
    await waitDone(page, 1);
    if (!(await card.evaluate((d) => d.open))) await card.locator('summary').first().click();
    assert.match(await card.innerText(), /<script>__pwned\('script-tag'\)<\/script>/, 'results are text');
    assert.equal(await card.locator('a[href^="javascript"]').count(), 0, 'the javascript: resource link is not a link');
    await assertNothingHappened(page, rec, { extraErrors: probe });
  } finally {
    await rec.context.close();
  }
});

/** The preview's own script: every way out it tries, reported to the page by postMessage. */
const ESCAPE_ATTEMPT = (evilUrl) => `<!doctype html>
<p id="p">preview</p>
<script>
const r = { kind: 'preview-report' };
const attempt = async (name, f) => { try { r[name] = 'reached: ' + String(await f()).slice(0, 80); } catch (e) { r[name] = 'blocked: ' + e.name; } };
(async () => {
  await attempt('localStorage', () => localStorage.getItem('skiff:settings'));
  await attempt('parentDocument', () => parent.document.body.innerHTML.length);
  await attempt('topDocument', () => top.document.title);
  await attempt('cookie', () => { document.cookie = 'a=b'; return document.cookie; });
  await attempt('indexedDB', () => indexedDB.open('x') && 'opened');
  await attempt('fetch', () => fetch('${evilUrl}/fetch').then((x) => x.status));
  await attempt('image', () => new Promise((ok, no) => { const i = new Image(); i.onload = () => ok('loaded'); i.onerror = () => no(new Error('refused')); i.src = '${evilUrl}/img.png'; }));
  await attempt('open', () => { const w = window.open('${evilUrl}/open'); if (!w) throw new Error('no window'); return w; });
  await attempt('topNavigation', () => { top.location = '${evilUrl}/top'; return 'assigned'; });
  r.pwned = typeof __pwned === 'function' ? 'watcher present (test hook)' : 'none';
  parent.postMessage(r, '*');
  // Last, navigate this frame itself: the page's frame-src 'none' must refuse it.
  location.href = '${evilUrl}/self';
})();
</script>`;

test('an html block preview runs sandboxed: it cannot reach the page, its storage or the network', async () => {
  const rec = await openPage();
  const { page } = rec;
  try {
    const reply = `Here is a page:\n\n\`\`\`html\n${ESCAPE_ATTEMPT(evil.url)}\n\`\`\`\n\nAnd an SVG:\n\n\`\`\`svg\n<svg xmlns="http://www.w3.org/2000/svg" width="80" height="40"><rect width="80" height="40" fill="teal"/></svg>\n\`\`\`\n`;
    await api.script([{ reply }]);
    await send(page, 'make me a page');
    await waitDone(page, 1);
    const buttons = page.locator('button.preview-code');
    assert.equal(await buttons.count(), 2, 'html and svg blocks each get a Preview');
    await buttons.first().click();
    const frame = page.locator('iframe.code-preview').first();
    assert.equal(await frame.getAttribute('sandbox'), 'allow-scripts', 'sandboxed without allow-same-origin');
    assert.equal(await frame.getAttribute('src'), 'preview.html', 'the preview page, with its own no-network policy');
    assert.equal(await frame.getAttribute('srcdoc'), null);
    try {
      await page.waitForFunction(() => window.__previewReports.length > 0, null, { timeout: WAIT_MS });
    } catch (err) {
      throw new Error(`the preview reported nothing; console: ${rec.errors.join('\n')}`, { cause: err });
    }
    const [report] = await page.evaluate(() => window.__previewReports);
    for (const key of ['localStorage', 'parentDocument', 'topDocument', 'cookie', 'indexedDB', 'fetch', 'image', 'open', 'topNavigation']) {
      assert.match(report[key], /^blocked: /, `${key}: ${report[key]}`);
    }
    // The SVG preview draws.
    await buttons.nth(1).click();
    assert.equal(await page.locator('iframe.code-preview').count(), 2);
    await screenshot(page, 'hostile-preview');
    // Hide again.
    await buttons.first().click();
    assert.equal(await page.locator('iframe.code-preview').count(), 1);
    assert.equal(await buttons.first().getAttribute('aria-expanded'), 'false');
    // The preview's own refusals (its CSP, its sandbox) are logged from its frame, and the
    // page's frame-src refuses its self-navigation: those are the defences working.
    const fromPreview = [
      /Refused to connect|violates the following Content Security Policy directive: "(connect-src|img-src|default-src)/,
      /CSP violation: frame-src blocked http:\/\/127\.0\.0\.1/,
      /Framing 'http:\/\/127\.0\.0\.1:\d+\/' violates the following Content Security Policy directive: "frame-src 'self'"/,
      /Blocked opening .* in a new window because the request was made in a sandboxed frame/,
      /Unsafe attempt to initiate navigation|permission to navigate the target frame/,
      /Failed to fetch|net::ERR/,
      /SecurityError|sandboxed and the 'allow-same-origin'|The document is sandboxed and lacks the 'allow-same-origin' flag/,
    ];
    await assertNothingHappened(page, rec, { extraErrors: fromPreview });
    // …and the page's refusal of the frame's self-navigation did happen.
    assert.ok(rec.errors.some((e) => /frame-src/.test(e)), `the page refused the frame's navigation: ${rec.errors.join('\n')}`);
  } finally {
    await rec.context.close();
  }
});

test('a model-written title, imported files, search results and the Markdown export carry the corpus', async () => {
  const rec = await openPage({ autoTitle: true });
  const { page } = rec;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'skiff-hostile-import-'));
  try {
    // The model names the conversation with a payload.
    const evilTitle = `<img src=x onerror="__pwned('model-title')"> [x](javascript:__pwned('model-title-link'))`;
    await api.script([{ reply: 'hello' }, { reply: evilTitle }]);
    await send(page, 'hi');
    await waitDone(page, 1);
    await page.waitForFunction(() => /onerror/.test(document.querySelector('.chat-title')?.textContent ?? ''), null, { timeout: WAIT_MS });

    // Imported files: a llama.cpp export and a Skiff export, names and messages all payloads.
    const body = joined();
    const llama = {
      conv: { id: 'hostile-llama', name: corpus[0].payload, lastModified: Date.now(), currNode: 'l-a' },
      messages: [
        { id: 'l-root', type: 'root', timestamp: 1, role: 'system', content: '', parent: null, thinking: '', children: ['l-u'] },
        { id: 'l-u', type: 'text', timestamp: 2, role: 'user', content: `${body} pwnedmarker`, parent: 'l-root', thinking: '', children: ['l-a'] },
        { id: 'l-a', type: 'text', timestamp: 3, role: 'assistant', content: body, parent: 'l-u', thinking: body, children: [] },
      ],
    };
    const skiff = {
      format: 'skiff-conversation', version: 1, exported_ms: 0,
      conversation: {
        id: 'hostile-skiff', title: corpus[1].payload, created_ms: 1, updated_ms: 2,
        messages: [
          { id: 's-u', role: 'user', content: body, created_ms: 1, status: { kind: 'done' } },
          { id: 's-a', role: 'assistant', content: `${body} pwnedmarker`, reasoning: body, created_ms: 2, status: { kind: 'error', detail: corpus[2].payload } },
        ],
      },
    };
    const file = path.join(dir, 'hostile.jsonl');
    writeFileSync(file, `${JSON.stringify(llama)}\n${JSON.stringify(skiff)}\n`);
    await page.click('button[aria-label="Settings"]');
    await page.getByRole('tab', { name: 'Storage' }).click();
    await page.setInputFiles('#import-conversations', file);
    assert.equal((await page.locator('.import-result').innerText()).trim(), 'Added 2 conversations.');
    await page.keyboard.press('Escape');
    for (const row of await page.locator('.conversation-select').all()) {
      await row.click();
      await page.waitForTimeout(200);
    }
    await assertNothingHappened(page, rec);

    // Search shows titles and snippets of those messages as text.
    await page.keyboard.press('Control+k');
    await page.getByRole('searchbox', { name: 'Search conversations' }).fill('pwnedmarker');
    await page.locator('.search-hit').first().waitFor();
    const results = page.locator('.search-results');
    assert.equal(await results.locator('a, img, script, iframe, svg, style, math').count(), 0, 'snippets are text');
    await page.locator('.search-hit').first().click();
    await assertNothingHappened(page, rec);

    // The Markdown export of a hostile conversation is a file, not a page: nothing opens.
    await page.click('.conversation-menu > summary');
    const [md] = await Promise.all([page.waitForEvent('download'), page.click('.export-markdown')]);
    assert.match(md.suggestedFilename(), /^[\p{L}\p{N}-]+\.md$/u, `a plain file name: ${md.suggestedFilename()}`);
    await assertNothingHappened(page, rec);
  } finally {
    await rec.context.close();
  }
});
