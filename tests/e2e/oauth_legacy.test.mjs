// Signing in to protected legacy-era (2025-11-25) MCP servers (issue 10): the same sign-in as
// oauth.test.mjs, on the Python MCP SDK 1.x's FastMCP auth (tests/servers/oauth/legacy_server.py)
// over Streamable HTTP, over the deprecated HTTP+SSE transport (a GET event stream and POSTs to
// the endpoint it announces: both must carry the token, and so must every reconnect of the
// stream), and over WebSocket, where a browser cannot send an Authorization header at all. The
// tokens come from the authorization server of tests/servers/oauth/oauth_servers.py (SDK 2.x),
// which the 1.x servers ask about each token by RFC 7662 introspection.
//
// Each step is a test in one browser context, as a user goes: the card asks for a sign-in; Sign
// in through the popup connects the server in the 2025 era; a tool call carries the token on the
// wire; a token the AS ended (/_expire) is refreshed without the call failing, and again the
// second time (runner/mcp/link.rs + core::oauth's loop guard); on SSE, a dropped stream
// reconnects with the fresh token, and a 401 on the stream itself is refreshed and the stream
// opened again; a server that refuses even the fresh token costs one refresh, then the card
// asks for a sign-in; a WebSocket entry for the protected server says a WebSocket from a page
// cannot carry a sign-in (the browser hides the handshake's 401).
//
// Needs a build whose sw.js lists extras/oauth-callback.html (the service worker otherwise
// answers the popup's navigation with index.html); SKIFF_OAUTH_DEBUG=1 prints the wire.
//
//   SKIFF_DIST=$PWD/dist node --test --test-concurrency=1 tests/e2e/oauth_legacy.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import os from 'node:os';
import path from 'node:path';
import { launchBrowser, startStaticServer, collectConsoleErrors, closed, distDir, repoRoot, screenshot } from './harness.mjs';
import { card as mcpCard, until as untilCard, callTool as callCardTool } from './mcp_card.mjs';

const CACHE = process.env.SKIFF_CACHE ?? path.join(os.homedir(), '.cache', 'skiff');
const PY2 = process.env.SKIFF_MCP_PY2 ?? path.join(CACHE, 'mcp-py2', 'bin', 'python');
const PY1 = process.env.SKIFF_MCP_PY1 ?? path.join(CACHE, 'mcp-py1', 'bin', 'python');
const EXPECTED_CONSOLE = [/net::ERR_/, /Failed to load resource/, /status of 401/, /WebSocket connection to/];

let site;
let browser;
let as; // {as, child}
let legacy; // {sse, mcp, ws, child}
let context;
let page;
let errors;

/** Start `script` with `py` and read the JSON line it prints once it listens. */
async function startPy(py, script, args = []) {
  const child = spawn(py, [path.join(repoRoot, script), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const line = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited ${code}: ${stderr}`)));
  });
  return { ...JSON.parse(line), child, stderr: () => stderr };
}

const asState = async () => (await fetch(`${as.as}/_state`)).json();
const origin = (u) => new URL(u).origin;
/** What one legacy server saw: [{method, path, authorization}], and how many streams it dropped. */
const seen = async (u) => (await fetch(`${origin(u).replace(/^ws/, 'http')}/_state`)).json();

before(async () => {
  assert.ok(existsSync(`${distDir()}/index.html`), `no build in ${distDir()}: run scripts/build.sh first`);
  assert.ok(existsSync(`${distDir()}/extras/oauth-callback.html`), 'the build has no OAuth callback page (src/oauth-callback/, copied to extras/)');
  for (const py of [PY1, PY2]) assert.ok(existsSync(py), `${py} is missing: run "source scripts/setup-mcp.sh"`);
  as = await startPy(PY2, 'tests/servers/oauth/oauth_servers.py');
  legacy = await startPy(PY1, 'tests/servers/oauth/legacy_server.py', ['--as', as.as]);
  site = await startStaticServer();
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  page = await context.newPage();
  errors = collectConsoleErrors(page, { ignore: EXPECTED_CONSOLE });
  if (process.env.SKIFF_OAUTH_DEBUG) {
    page.on('console', (m) => console.error(`page ${m.type()}: ${m.text()}`));
    page.on('requestfinished', async (r) => {
      if (r.url().startsWith(site.url)) return;
      console.error(`wire: ${r.method()} ${r.url()} ${r.headers().authorization ? '(auth)' : ''} -> ${(await r.response())?.status()}`);
    });
  }
  await page.goto(site.url);
  await openMcpSettings();
});

after(async () => {
  await browser?.close();
  await site?.stop();
  legacy?.child.kill('SIGTERM');
  as?.child.kill('SIGTERM');
});

const card = (name) => mcpCard(page, name);

async function openMcpSettings() {
  await page.click('button[aria-label="Settings"]');
  await page.getByRole('tab', { name: 'MCP servers' }).click();
  await page.locator('.mcp-section').waitFor();
}

async function addServer(name, url, transport) {
  await page.click('.mcp-add-open');
  await page.getByLabel('Server name').fill(name);
  await page.getByLabel('Server URL').fill(url);
  await page.locator('select.mcp-transport').selectOption(transport);
  await page.click('.mcp-save');
  await card(name).waitFor();
}

const until = (what, read, re, timeout) => untilCard(page, what, read, re, timeout);

const note = (name) => until.bind(null, `${name}'s sign-in note`, () => card(name).locator('.mcp-auth-note').innerText());
const status = (name) => until.bind(null, `${name}'s status`, () => card(name).getAttribute('data-status'));
const protocol = (name) => card(name).locator('.mcp-protocol').innerText();

const callTool = (name, tool, args) => callCardTool(page, name, tool, args);

/** Sign in to `name` from its card's Account dialog; the test AS approves at once. */
async function signIn(name) {
  await card(name).locator('.mcp-account').click();
  const dialog = page.locator('.oauth-dialog[role="dialog"]');
  await dialog.waitFor();
  assert.match(await dialog.innerText(), /Sign in required/);
  const popupP = context.waitForEvent('page');
  await dialog.locator('button.oauth-sign-in').click();
  const popup = await popupP;
  if (process.env.SKIFF_OAUTH_DEBUG) {
    popup.on('console', (m) => console.error(`popup ${m.type()}: ${m.text()}`));
    popup.on('requestfinished', async (r) => console.error(`popup wire: ${r.method()} ${r.url()} -> ${(await r.response())?.status()}`));
    popup.on('requestfailed', (r) => console.error(`popup wire: ${r.url()} failed ${r.failure()?.errorText}`));
  }
  await closed(popup).catch(async (e) => {
    throw new Error(`the popup stayed open at ${popup.url()}: ${(await popup.content().catch((x) => String(x))).slice(0, 400)} (${e.message})`);
  });
  await note(name)(/Signed in at .* · scopes mcp/);
  await status(name)(/^connected$/, 30_000);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
}

const bearer = (h) => (h.authorization ?? '').replace(/^Bearer /, '');

test('legacy Streamable HTTP: sign-in required, Sign in connects in the 2025 era, a call carries the token', async () => {
  await addServer('legacy-http', legacy.mcp, 'streamable');
  const asHost = new URL(as.as).host.replace(/\./g, '\\.');
  await note('legacy-http')(new RegExp(`Sign in required at ${asHost}`));
  assert.notEqual(await card('legacy-http').getAttribute('data-status'), 'connected');
  await signIn('legacy-http');
  assert.match(await protocol('legacy-http'), /protocol 2025-11-25 \(legacy\)/);
  assert.match(await protocol('legacy-http'), /Streamable HTTP/);
  const r = await callTool('legacy-http', 'echo', { message: 'hello 2025' });
  assert.ok(r.ok, r.text);
  assert.match(r.text, /Echo: hello 2025/);
  const { seen: wire } = await seen(legacy.mcp);
  const signedIn = wire.slice(wire.findIndex((h) => h.authorization));
  assert.ok(signedIn.length > 2, `requests after the sign-in: ${JSON.stringify(wire)}`);
  for (const h of signedIn) assert.match(h.authorization ?? '', /^Bearer at_/, `${h.method} ${h.path} carried the token`);
  assert.ok(signedIn.some((h) => h.method === 'POST'), 'the tool call was a POST with the token');
});

test('legacy Streamable HTTP: a token the AS ended is refreshed after the 401 and the call still works', async () => {
  const before = (await asState()).refreshes;
  const n = (await seen(legacy.mcp)).seen.length;
  await fetch(`${as.as}/_expire`, { method: 'POST' });
  const r = await callTool('legacy-http', 'echo', { message: 'after 401' });
  assert.ok(r.ok, r.text);
  assert.match(r.text, /Echo: after 401/);
  assert.ok((await asState()).refreshes > before, 'refreshed after the 401');
  // On the wire: the call went with the ended token, was refused, and went again with a new one.
  const calls = (await seen(legacy.mcp)).seen.slice(n).filter((h) => h.method === 'POST');
  assert.ok(calls.length >= 2, JSON.stringify(calls));
  assert.notEqual(bearer(calls[0]), bearer(calls.at(-1)), 'the resent request carries the fresh token');
  assert.equal(await card('legacy-http').getAttribute('data-status'), 'connected');
});

test('HTTP+SSE (transport auto falls back): sign-in required, Sign in connects, the GET stream and the POSTs carry the token', async () => {
  await addServer('legacy-sse', legacy.sse, 'auto');
  await note('legacy-sse')(/Sign in required/);
  await signIn('legacy-sse');
  const proto = await protocol('legacy-sse');
  assert.match(proto, /protocol 2025-11-25 \(legacy\)/);
  assert.match(proto, /SSE/);
  const r = await callTool('legacy-sse', 'echo', { message: 'over sse' });
  assert.ok(r.ok, r.text);
  assert.match(r.text, /Echo: over sse/);
  const { seen: wire } = await seen(legacy.sse);
  const gets = wire.filter((h) => h.method === 'GET' && h.path === '/sse' && h.authorization);
  const posts = wire.filter((h) => h.method === 'POST' && h.path.startsWith('/messages'));
  assert.ok(gets.length >= 1, `a GET /sse with the token: ${JSON.stringify(wire)}`);
  assert.ok(posts.length >= 2, `initialize and tools/call POSTed to the endpoint: ${JSON.stringify(wire)}`);
  for (const p of posts) assert.match(p.authorization ?? '', /^Bearer at_/, `POST ${p.path} carried the token`);
});

test('HTTP+SSE: a token the AS ended is refreshed after the POST 401; a dropped stream reconnects with the fresh token', async () => {
  const before = (await asState()).refreshes;
  let n = (await seen(legacy.sse)).seen.length;
  await fetch(`${as.as}/_expire`, { method: 'POST' });
  let r = await callTool('legacy-sse', 'echo', { message: 'after 401' });
  assert.ok(r.ok, r.text);
  assert.match(r.text, /Echo: after 401/);
  assert.ok((await asState()).refreshes > before, 'refreshed after the 401');
  let wire = (await seen(legacy.sse)).seen.slice(n);
  const posts = wire.filter((h) => h.method === 'POST');
  assert.ok(posts.length >= 2, JSON.stringify(wire));
  const fresh = bearer(posts.at(-1));
  assert.notEqual(bearer(posts[0]), fresh, 'the resent POST carries the fresh token');

  // The server ends the stream (as a restart would): the page reconnects, and the new GET
  // carries the token refreshed above, not the ended one.
  n = (await seen(legacy.sse)).seen.length;
  const { dropped } = await (await fetch(`${origin(legacy.sse)}/_drop`, { method: 'POST' })).json();
  assert.equal(dropped, 1, 'one open stream');
  await until('the reconnect', async () => JSON.stringify((await seen(legacy.sse)).seen.slice(n)), /"GET","path":"\/sse"/, 30_000);
  await status('legacy-sse')(/^connected$/, 30_000);
  wire = (await seen(legacy.sse)).seen.slice(n);
  const get = wire.find((h) => h.method === 'GET');
  assert.equal(bearer(get), fresh, `the reconnect's GET carries the fresh token: ${JSON.stringify(wire)}`);
  r = await callTool('legacy-sse', 'echo', { message: 'after reconnect' });
  assert.ok(r.ok, r.text);
});

test('HTTP+SSE: a 401 on the stream itself (token ended, then the stream dropped) is refreshed and the stream opens again', async () => {
  const before = (await asState()).refreshes;
  await fetch(`${as.as}/_expire`, { method: 'POST' });
  const n = (await seen(legacy.sse)).seen.length;
  await fetch(`${origin(legacy.sse)}/_drop`, { method: 'POST' });
  // The reconnect's GET goes with the ended token (401), then again with a refreshed one.
  await until(
    'the stream reopened with a new token',
    async () => {
      const gets = (await seen(legacy.sse)).seen.slice(n).filter((h) => h.method === 'GET');
      return String(gets.length >= 2 && bearer(gets[0]) !== bearer(gets.at(-1)));
    },
    /true/,
    30_000,
  );
  await status('legacy-sse')(/^connected$/, 30_000).catch(async (e) => {
    const said = await card('legacy-sse').innerText();
    const wire = (await seen(legacy.sse)).seen.slice(n).map((h) => `${h.method} ${h.path} ${bearer(h).slice(0, 8)}`);
    throw new Error(`${e.message}\ncard: ${said}\nwire: ${wire.join(', ')}\nAS: ${JSON.stringify(await asState())}`);
  });
  assert.ok((await asState()).refreshes > before, 'refreshed after the stream 401');
  const r = await callTool('legacy-sse', 'echo', { message: 'after stream 401' });
  assert.ok(r.ok, r.text);
  assert.match(r.text, /Echo: after stream 401/);
  await screenshot(page, 'oauth-legacy-sse');
  assert.deepEqual(errors, []);
});

test('a server that refuses even the fresh token: one refresh, then the card asks for a new sign-in at once', async () => {
  // From now on the legacy servers take no token at all: the grant is no good for them.
  await fetch(`${origin(legacy.mcp)}/_refuse`, { method: 'POST' });
  const before = (await asState()).refreshes;
  const r = await callTool('legacy-http', 'echo', { message: 'refused' });
  assert.ok(!r.ok, `the call fails: ${r.text}`);
  // The resent request's 401 reaches the module (runner/mcp/link.rs), which ends the
  // credentials then, not at some later request after yet another refresh.
  await note('legacy-http')(/Sign in required/, 10_000);
  assert.equal((await asState()).refreshes, before + 1, 'exactly one refresh');
  assert.deepEqual(errors, []);
});

test('a WebSocket entry for the OAuth-protected server: the card says a WebSocket cannot carry the sign-in', async () => {
  await addServer('legacy-ws', legacy.ws, 'websocket');
  // The handshake is refused with 401, which a browser does not show the page: the card can
  // only say what a WebSocket from a page cannot do. While it retries the sentence is in the
  // card's Log (the status line says when the next attempt is); once it gives up, there too.
  const log = () => card('legacy-ws').locator('details.mcp-log pre').evaluate((el) => el.textContent);
  const said = await until('the WebSocket card\'s log', log, /handshake failed/, 30_000);
  assert.match(said, /cannot send an Authorization header on a WebSocket/);
  assert.notEqual(await card('legacy-ws').getAttribute('data-status'), 'connected');
  const { seen: wire } = await seen(legacy.ws);
  assert.ok(wire.length > 0 && wire.every((h) => h.method === 'WS' && h.authorization === null), JSON.stringify(wire));
  await screenshot(page, 'oauth-legacy-ws');
});
