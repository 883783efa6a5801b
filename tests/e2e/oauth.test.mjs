// Signing in to a protected remote MCP server (issue 10), end to end against real servers:
// tests/servers/oauth/oauth_servers.py runs the Python MCP SDK's own authorization server
// routes (metadata, dynamic registration, authorize with PKCE, token, refresh, revocation), a
// protected MCP server (its bearer middleware answers 401 with `WWW-Authenticate`), and an
// unprotected MCP server that records every Authorization header it gets.
//
// One browser context goes through a user's whole story, step by step (each a test): the card
// asks for a sign-in; Sign in in the Account dialog opens the popup (the test AS approves at
// once) and the server connects; a tool call works; an expired token is refreshed without the
// call failing (on the timer, and on a 401); a reload keeps the sign-in (decrypted from the
// store; localStorage holds no token); the token never reaches the other server; Sign out
// revokes at the AS and the card says so. The Account dialog's "How Skiff signs in" shows only
// the chosen way's fields and refuses a key that cannot sign where it was pasted; the grants
// without a browser window (client credentials, cross-app access) are not run here, since the
// SDK's authorization server routes take only authorization_code, refresh_token and jwt-bearer
// (the conformance suite's auth/client-credentials-* and cross-app scenarios run them).
//
//   SKIFF_DIST=$PWD/dist node --test --test-concurrency=1 tests/e2e/oauth.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import os from 'node:os';
import path from 'node:path';
import { launchBrowser, startStaticServer, collectConsoleErrors, closed, distDir, repoRoot, screenshot } from './harness.mjs';
import { card as mcpCard, until as untilCard, callTool as callCardTool } from './mcp_card.mjs';
import { startServer } from '../servers/mcp/servers.mjs';

const PY = process.env.SKIFF_MCP_PY2 ?? path.join(process.env.SKIFF_CACHE ?? path.join(os.homedir(), '.cache', 'skiff'), 'mcp-py2', 'bin', 'python');
const LIFETIME_S = 8;
const EXPECTED_CONSOLE = [/net::ERR_/, /Failed to load resource/, /status of 401/];

let site;
let browser;
let servers; // {as, mcp, other, child}
let context;
let page;
let errors;

async function startOAuthServers(args = []) {
  const child = spawn(PY, [path.join(repoRoot, 'tests/servers/oauth/oauth_servers.py'), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const line = await new Promise((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`oauth_servers.py exited ${code}: ${stderr}`)));
  });
  return { ...JSON.parse(line), child, stderr: () => stderr };
}

const asState = async () => (await fetch(`${servers.as}/_state`)).json();

before(async () => {
  assert.ok(existsSync(`${distDir()}/index.html`), `no build in ${distDir()}: run scripts/build.sh first`);
  assert.ok(existsSync(`${distDir()}/extras/oauth-callback.html`), 'the build has no OAuth callback page (src/oauth-callback/, copied to extras/)');
  assert.ok(existsSync(PY), `${PY} is missing: run "source scripts/setup-mcp.sh"`);
  servers = await startOAuthServers(['--token-lifetime', String(LIFETIME_S)]);
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
    page.on('requestfailed', (r) => console.error(`wire: ${r.method()} ${r.url()} failed ${r.failure()?.errorText}`));
  }
});

after(async () => {
  await browser?.close();
  await site?.stop();
  servers?.child.kill('SIGTERM');
});

const card = (name) => mcpCard(page, name);

async function openMcpSettings() {
  await page.click('button[aria-label="Settings"]');
  await page.getByRole('tab', { name: 'MCP servers' }).click();
  await page.locator('.mcp-section').waitFor();
}

async function addServer(name, url) {
  await page.click('.mcp-add-open');
  await page.getByLabel('Server name').fill(name);
  await page.getByLabel('Server URL').fill(url);
  await page.click('.mcp-save');
}

const until = (what, read, re, timeout) => untilCard(page, what, read, re, timeout);

const note = (name) => until.bind(null, `${name}'s sign-in note`, () => card(name).locator('.mcp-auth-note').innerText());
const status = (name) => until.bind(null, `${name}'s status`, () => card(name).getAttribute('data-status'));

const callTool = (name, tool, args) => callCardTool(page, name, tool, args);

async function openAccount(name) {
  await card(name).locator('.mcp-account').click();
  const dialog = page.locator('.oauth-dialog[role="dialog"]');
  await dialog.waitFor();
  return dialog;
}

test('a protected server: the card says a sign-in is required at its authorization server', async () => {
  await page.goto(site.url);
  await openMcpSettings();
  await addServer('protected', servers.mcp);
  const asHost = new URL(servers.as).host;
  const said = await note('protected')(new RegExp(`Sign in required at ${asHost.replace(/\./g, '\\.')}`));
  assert.match(said, /Sign in required/);
  assert.notEqual(await card('protected').getAttribute('data-status'), 'connected');
});

test('Sign in through the popup (PKCE, dynamic registration) connects the server; a tool call works', async () => {
  const dialog = await openAccount('protected');
  assert.match(await dialog.innerText(), /Sign in required/);
  const popupP = context.waitForEvent('page');
  await dialog.locator('button.oauth-sign-in').click();
  const popup = await popupP;
  // The test AS approves at once: the popup lands on Skiff's callback page and closes itself.
  await closed(popup);
  await note('protected')(/Signed in at .* · scopes mcp · expires in \d+ s/);
  await status('protected')(/^connected$/);
  // The dialog shows the account facts and offers Sign out; Escape closes it.
  await until('the dialog', () => dialog.innerText(), /Sign out/);
  assert.match(await dialog.innerText(), /Issuer/);
  // The test AS issues Bearer tokens: the binding fact says the token is not bound.
  assert.match(await dialog.locator('dd.oauth-binding').innerText(), /^Bearer: not bound/);
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  const r = await callTool('protected', 'echo', { message: 'hello' });
  assert.ok(r.ok, r.text);
  assert.match(r.text, /Echo: hello/);
  const s = await asState();
  assert.equal(s.registrations, 1, 'registered once, dynamically');
  assert.equal(s.codes, 1, 'one code exchanged');
  assert.ok(s.seen_mcp.some((h) => h.startsWith('Bearer at_')), 'the MCP server saw the token');
});

test('an expiring token is refreshed (on its timer and after a 401) without the call failing', async () => {
  const before = (await asState()).refreshes;
  // Past the token's lifetime: the timer refreshed it already, or the call waits for it.
  await page.waitForTimeout((LIFETIME_S + 1) * 1000);
  let r = await callTool('protected', 'echo', { message: 'later' });
  assert.ok(r.ok, r.text);
  assert.match(r.text, /Echo: later/);
  const mid = (await asState()).refreshes;
  assert.ok(mid > before, `refreshed on time (${before} → ${mid})`);
  // The AS ends every token now: the MCP server answers 401, the module refreshes, the page
  // re-sends the request, and the call still succeeds.
  await fetch(`${servers.as}/_expire`, { method: 'POST' });
  r = await callTool('protected', 'echo', { message: 'after 401' });
  assert.ok(r.ok, r.text);
  assert.match(r.text, /Echo: after 401/);
  const after401 = (await asState()).refreshes;
  assert.ok(after401 > mid, `refreshed after the 401 (${mid} → ${after401})`);
  assert.equal(await card('protected').getAttribute('data-status'), 'connected');
});

test('a reload keeps the sign-in: the encrypted record is decrypted and the server connects', async () => {
  await page.reload();
  await openMcpSettings();
  await status('protected')(/^connected$/, 30_000);
  await note('protected')(/Signed in at/);
  const r = await callTool('protected', 'echo', { message: 'after reload' });
  assert.ok(r.ok, r.text);
  // What localStorage holds names no token: records are AES-GCM ciphertext under a key that is
  // not in localStorage.
  const dump = await page.evaluate(() => JSON.stringify({ ...localStorage }));
  const s = await asState();
  assert.ok(s.issued.length > 0);
  for (const t of s.issued) assert.ok(!dump.includes(t), 'no access token in localStorage');
  assert.ok(!/rt_[A-Za-z0-9_-]{20}/.test(dump), 'no refresh token in localStorage');
  assert.match(dump, /skiff\.oauth\.cred\./, 'the encrypted record is there');
  assert.equal(s.codes, 1, 'no second sign-in was needed');
});

test('the token only goes to its own MCP server: another server never sees it', async () => {
  await addServer('other', servers.other);
  await status('other')(/^connected$/);
  const r = await callTool('other', 'echo', { message: 'elsewhere' });
  assert.ok(r.ok, r.text);
  const s = await asState();
  assert.deepEqual(s.seen_other, [], `the other server saw no Authorization at all: ${JSON.stringify(s.seen_other)}`);
  assert.ok(s.seen_mcp.length > 0 && s.seen_mcp.every((h) => /^Bearer at_/.test(h)));
});

test('Sign out revokes at the authorization server and the card says signed out', async () => {
  const dialog = await openAccount('protected');
  await dialog.locator('button.oauth-sign-out').click();
  await note('protected')(/Signed out/);
  const s = await until('the AS revocations', async () => JSON.stringify((await asState()).revoked), /AccessToken/);
  assert.match(s, /RefreshToken/);
  const dump = await page.evaluate(() => Object.keys(localStorage).join(' '));
  assert.ok(!dump.includes('skiff.oauth.cred.'), 'the record is deleted');
  await page.keyboard.press('Escape');
  await screenshot(page, 'oauth-signed-out');
  assert.deepEqual(errors, []);
});

/** A fresh context (its own storage) with the MCP settings open; `init` runs before the page. */
async function freshPage(init) {
  context = await browser.newContext({ viewport: { width: 375, height: 800 } });
  if (init) await context.addInitScript(init);
  page = await context.newPage();
  errors = collectConsoleErrors(page, { ignore: EXPECTED_CONSOLE });
  await page.goto(site.url);
  await openMcpSettings();
}

test('popups blocked: Sign in goes by full-page redirect and the page resumes the sign-in after it', async () => {
  const more = await startOAuthServers();
  try {
    // A browser that blocks every popup.
    await freshPage(() => {
      window.open = () => null;
    });
    await addServer('redirected', more.mcp);
    await note('redirected')(/Sign in required/);
    const dialog = await openAccount('redirected');
    // The tab goes to the AS and comes back through the callback page: wait for both
    // navigations (the page's own address matches before it leaves, so it cannot be waited on).
    const wentOut = page.waitForRequest((r) => r.isNavigationRequest() && r.url().startsWith(`${more.as}/authorize`), { timeout: 20_000 });
    const cameBack = page.waitForRequest((r) => r.isNavigationRequest() && r.url().includes('oauth-callback'), { timeout: 20_000 });
    await dialog.locator('button.oauth-sign-in').click();
    await wentOut;
    await cameBack;
    // Then the page started again.
    await page.waitForFunction(() => !location.href.includes('oauth-callback') && document.querySelector('button[aria-label="Settings"]'), null, { timeout: 20_000 });
    assert.ok(!page.url().includes('code='), `no code left in the address: ${page.url()}`);
    await openMcpSettings();
    await note('redirected')(/Signed in at/, 30_000);
    await status('redirected')(/^connected$/, 30_000);
    const r = await callTool('redirected', 'whoami', {});
    assert.ok(r.ok, r.text);
    const s = await (await fetch(`${more.as}/_state`)).json();
    assert.equal(s.codes, 1);
    assert.deepEqual(errors, []);
  } finally {
    more.child.kill('SIGTERM');
    await context.close();
  }
});

test('the user declines at the authorization server: the card says so, nothing is stored', async () => {
  const denying = await startOAuthServers(['--deny']);
  try {
    await freshPage();
    await addServer('declined', denying.mcp);
    await note('declined')(/Sign in required/);
    const dialog = await openAccount('declined');
    const popupP = context.waitForEvent('page');
    await dialog.locator('button.oauth-sign-in').click();
    await closed(await popupP);
    await note('declined')(/You declined the sign-in\./);
    assert.match(await dialog.innerText(), /You declined the sign-in/);
    // The 375 px dialog fits: no horizontal overflow.
    const fits = await page.evaluate(() => {
      const d = document.querySelector('.oauth-dialog').getBoundingClientRect();
      return d.left >= 0 && d.right <= window.innerWidth;
    });
    assert.ok(fits, 'the dialog fits a 375 px screen');
    const keys = await page.evaluate(() => Object.keys(localStorage).join(' '));
    assert.ok(!keys.includes('skiff.oauth.cred.'));
    assert.deepEqual(errors, []);
  } finally {
    denying.child.kill('SIGTERM');
    await context.close();
  }
});

test('a token endpoint that refuses CORS: the card says to turn on the CORS proxy, and with it the sign-in works', async () => {
  const strict = await startOAuthServers(['--no-token-cors']);
  const proxy = await startServer('cors-proxy');
  try {
    await freshPage();
    await addServer('strict', strict.mcp);
    await note('strict')(/Sign in required/);
    let dialog = await openAccount('strict');
    let popupP = context.waitForEvent('page');
    await dialog.locator('button.oauth-sign-in').click();
    await closed(await popupP);
    // The code came back, but the browser hid the token answer: the sentence names the way out.
    const said = await note('strict')(/CORS/);
    assert.match(said, /token endpoint/);
    assert.match(said, /Turn on the CORS proxy in this server's settings and sign in again\./);
    assert.match(await dialog.innerText(), /CORS proxy/);
    assert.ok(!(await page.evaluate(() => Object.keys(localStorage).join(' '))).includes('skiff.oauth.cred.'), 'no credentials kept');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // As the sentence says: the proxy in the server's settings, then Sign in again.
    await card('strict').locator('.mcp-edit').click();
    await card('strict').locator('.mcp-proxy').fill(proxy.url);
    await card('strict').locator('.mcp-save').click();
    dialog = await openAccount('strict');
    popupP = context.waitForEvent('page');
    await dialog.locator('button.oauth-sign-in').click();
    await closed(await popupP);
    await note('strict')(/Signed in at/);
    await status('strict')(/^connected$/);
    await page.keyboard.press('Escape');
    const r = await callTool('strict', 'whoami', {});
    assert.ok(r.ok, r.text);
    const s = await (await fetch(`${strict.as}/_state`)).json();
    // CORS hides answers, not requests: the server did exchange the first code, for a token the
    // page never saw; the second went through the proxy.
    assert.equal(s.codes, 2);
    assert.ok(s.seen_mcp.some((h) => h.startsWith('Bearer at_')), 'the MCP server saw the token');
    await screenshot(page, 'oauth-cors-proxy');
    assert.deepEqual(errors.filter((e) => !/blocked by CORS policy/.test(e)), []);
  } finally {
    strict.child.kill('SIGTERM');
    await proxy.stop();
    await context.close();
  }
});

test('an authorization answer naming another issuer (RFC 9207) is ignored with a sentence; no code is exchanged', async () => {
  const mixed = await startOAuthServers(['--wrong-iss']);
  try {
    await freshPage();
    await addServer('mixed', mixed.mcp);
    await note('mixed')(/Sign in required/);
    const dialog = await openAccount('mixed');
    const popupP = context.waitForEvent('page');
    await dialog.locator('button.oauth-sign-in').click();
    await closed(await popupP);
    const said = await note('mixed')(/came from/);
    assert.match(said, /The sign-in answer came from http:\/\/127\.0\.0\.1:1\/elsewhere, not from http:\/\/127\.0\.0\.1:\d+/);
    assert.match(said, /so it was ignored\. Sign in again\./);
    assert.notEqual(await card('mixed').getAttribute('data-status'), 'connected');
    const s = await (await fetch(`${mixed.as}/_state`)).json();
    assert.equal(s.authorizations, 1);
    assert.equal(s.codes, 0, 'the code of a mixed-up answer is never sent to a token endpoint');
    assert.ok(!(await page.evaluate(() => Object.keys(localStorage).join(' '))).includes('skiff.oauth.cred.'), 'no credentials kept');
    assert.deepEqual(errors, []);
  } finally {
    mixed.child.kill('SIGTERM');
    await context.close();
  }
});

test('How Skiff signs in: only the chosen way shows its fields, and a key that cannot sign is refused where it was pasted', async () => {
  await freshPage();
  try {
    await addServer('keys', servers.mcp);
    await note('keys')(/Sign in required/);
    const dialog = await openAccount('keys');
    await dialog.locator('details.oauth-advanced summary').click();
    assert.ok(await dialog.locator('#oauth-method-browser').isChecked(), 'a browser window is the default');
    assert.ok(!(await dialog.locator('#oauth-private-key').isVisible()), 'no key field for a browser sign-in');
    await dialog.locator('#oauth-method-application').check();
    assert.ok(await dialog.locator('#oauth-private-key').isVisible());
    assert.ok(!(await dialog.locator('#oauth-id-token').isVisible()));
    await dialog.locator('#oauth-client-id').fill('my-app');
    // The older SEC1 form: refused with what to paste and how to convert it.
    await dialog.locator('#oauth-private-key').fill('-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----');
    await dialog.locator('button.oauth-save-client').click();
    const notice = dialog.locator('.oauth-notice[role="alert"]');
    await notice.waitFor();
    const said = await notice.innerText();
    assert.match(said, /paste the private key as a PKCS#8 PEM \(BEGIN PRIVATE KEY\)/);
    assert.match(said, /openssl pkcs8 -topk8/);
    const keys = await page.evaluate(() => Object.keys(localStorage).join(' '));
    assert.ok(!keys.includes('skiff.oauth.key.'), `nothing was stored: ${keys}`);
    assert.equal(await dialog.locator('#oauth-client-id').inputValue(), 'my-app', 'what was typed is kept');
    // Cross-app access shows the identity provider's fields and says where the ID token comes from.
    await dialog.locator('#oauth-method-cross_app').check();
    assert.ok(await dialog.locator('#oauth-idp-token-endpoint').isVisible());
    assert.ok(await dialog.locator('#oauth-id-token').isVisible());
    assert.ok(!(await dialog.locator('#oauth-private-key').isVisible()));
    assert.match(await dialog.innerText(), /OpenID Connect id_token/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
  }
});
