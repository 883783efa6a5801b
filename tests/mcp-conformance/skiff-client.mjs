#!/usr/bin/env node
// The MCP conformance suite's client command for Skiff: Skiff itself, in headless Chromium.
//
// Why it exists: the suite (npm @modelcontextprotocol/conformance, client mode) judges a client
// by what its test server sees. It runs `<command> <server URL>` with MCP_CONFORMANCE_SCENARIO
// set; this command opens the built page (dist/, or $SKIFF_DIST) on a loopback static server,
// adds the server through Settings → MCP servers exactly as a user would — with the CORS proxy
// prefix $SKIFF_CORS_PROXY, since the suite's servers send no CORS headers — and makes Skiff do
// what the scenario asks:
//   initialize     connect (Skiff sends initialize and lists tools), then leave
//   tools_call     connect, call `add_numbers` {a: 5, b: 3} from the tool's "try" form
//   sse-retry      connect, call `test_reconnection`; the server closes the call's SSE stream
//                  and Skiff must resume it with GET + Last-Event-ID after the `retry` delay
//   elicitation-sep1034-client-defaults
//                  connect, call `test_client_elicitation_defaults`; the server's question
//                  shows as a card (at the top of Settings, where the call was made) and is
//                  accepted as it is, so the form's defaults go back (the server judges them)
//   auth/*         the server answers 401 (OAuth, issue 10): the card must ask for a sign-in;
//                  the command presses Account → Sign in (the suite's authorization server
//                  approves at once, the popup returns to Skiff's callback page), waits for
//                  the server to connect and calls `test-tool`; a refusal for more scope
//                  (step-up) is answered by signing in again, at most 3 times, as a user would.
//                  MCP_CONFORMANCE_CONTEXT's client_id and client_secret (pre-registration)
//                  are entered in the Account dialog, as a user would; so are its other
//                  credentials, under "How Skiff signs in": a private_key_pem as an
//                  application's key (client-credentials-jwt), idp_* as cross-app access
//                  (cross-app-access-complete-flow), valid_jwt as a workload's JWT
//                  (wif-jwt-bearer). A client id and secret alone stay with the
//                  default way: Skiff itself turns to client credentials when the server offers
//                  nothing else (client-credentials-basic).
//   auth/basic-cimd
//                  as auth/*, but Skiff is deployed as its Client ID Metadata Document needs:
//                  a copy of the build with the document written for the scenario's address
//                  (scripts/write-client-metadata.mjs, https://conformance-test.local/), and
//                  the page, its module and its callback served at that https origin by
//                  Playwright's routing from the loopback static server. Skiff then uses the
//                  document's URL as its client id on its own, as it would in production.
//   anything else  connect and report "not supported"
// It exits 0 once the scenario's work is done (the suite kills it after its --timeout), and 1
// when Skiff could not do it, printing what the page showed.
//
// What it must never do: decide a result itself (the suite's server judges), listen on anything
// but 127.0.0.1, or talk to the server other than through the page.
//
//   node tests/mcp-conformance/skiff-client.mjs <server URL>
//   env: MCP_CONFORMANCE_SCENARIO, SKIFF_CORS_PROXY (prefix), SKIFF_DIST (default dist/),
//        SKIFF_CONFORMANCE_SCREENSHOT=1 to save target/screenshots/conformance-<scenario>.png

import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { closed, distDir, launchBrowser, startStaticServer, screenshot } from '../e2e/harness.mjs';

const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const serverUrl = process.argv[process.argv.length - 1];
const proxy = process.env.SKIFF_CORS_PROXY ?? '';
const NAME = 'conformance';

const log = (...a) => console.log('skiff-client:', ...a);

if (!/^https?:\/\//.test(serverUrl ?? '')) {
  console.error('usage: skiff-client.mjs <server URL>  (MCP_CONFORMANCE_SCENARIO set)');
  process.exit(2);
}
if (!existsSync(`${distDir()}/index.html`)) {
  console.error(`skiff-client: no build in ${distDir()}: run scripts/build.sh first`);
  process.exit(2);
}

const WORK = {
  initialize: null,
  tools_call: { tool: 'add_numbers', args: { a: 5, b: 3 } },
  'sse-retry': { tool: 'test_reconnection', args: {} },
  'elicitation-sep1034-client-defaults': { tool: 'test_client_elicitation_defaults', args: {} },
  'sep-2322-client-request-state': mrtrScenario,
  'http-custom-headers': contextCalls,
  // Skiff must keep the valid tool and leave out the ones whose x-mcp-header is invalid.
  'http-invalid-tool-headers': { tool: 'valid_tool', args: { region: 'us-west1' } },
  'json-schema-2020-12-preservation': schemaEchoScenario,
};

const row = (page) => page.locator(`li.mcp-server[data-server-name="${NAME}"]`);

async function describeRow(page) {
  if (!(await row(page).count())) return { status: 'absent' };
  return row(page).evaluate((li) => ({
    status: li.dataset.status,
    text: li.querySelector('.mcp-status-text')?.textContent ?? '',
    protocol: li.querySelector('.mcp-protocol')?.textContent ?? '',
    log: li.querySelector('details.mcp-log pre')?.textContent ?? '',
  }));
}

/** Waits for connected (or a final error); returns the row's description. */
async function waitSettled(page, timeout) {
  await page
    .waitForFunction(
      (n) => {
        const s = document.querySelector(`li.mcp-server[data-server-name="${n}"]`)?.dataset.status;
        return s === 'connected' || s === 'error' || s === 'reconnecting';
      },
      NAME,
      { timeout },
    )
    .catch(() => {});
  return describeRow(page);
}

/** The tool's row in the server's list (opened), or why it is not there. */
async function toolRow(page, tool) {
  const r = row(page);
  if (!(await r.locator('ul.mcp-tools').count())) await r.locator('.mcp-toggle-tools').click();
  const li = r.locator(`li.mcp-tool[data-tool="${tool}"]`);
  try {
    await li.waitFor({ timeout: 5_000 });
  } catch {
    const shown = await r.locator('li.mcp-tool').evaluateAll((ls) => ls.map((l) => l.dataset.tool));
    return { missing: `the tool ${tool} is not listed (listed: ${shown.join(', ') || 'none'})` };
  }
  // A second call (after a step-up sign-in) finds the form open already.
  if (!(await li.locator('.mcp-try-args').isVisible())) await li.locator('summary').click();
  return { li };
}

/** Types the arguments into the tool's "try" form and presses Call; does not wait. */
async function startCall(page, tool, args) {
  const { li, missing } = await toolRow(page, tool);
  if (missing) return { missing };
  await li.locator('.mcp-try-args').fill(JSON.stringify(args));
  await li.locator('.mcp-try-call').click();
  return { li };
}

/** Waits for the call started in `li` to show its result or error. */
async function callOutcome(li, timeout) {
  try {
    // The call runs, then its result (or error) replaces any earlier one.
    await li.locator('.mcp-try-running').waitFor({ state: 'attached', timeout: 2_000 }).catch(() => {});
    await li.locator('.mcp-try-running').waitFor({ state: 'detached', timeout });
    await li.locator('.mcp-try-result, .mcp-try-error').first().waitFor({ timeout });
  } catch {
    return { ok: false, text: `no result within ${timeout} ms (${await li.locator('.mcp-try-running').innerText().catch(() => '')})` };
  }
  if (await li.locator('.mcp-try-result').count()) return { ok: true, text: await li.locator('.mcp-try-result').innerText() };
  return { ok: false, text: await li.locator('.mcp-try-error').innerText() };
}

/** Accepts the first question card as Skiff filled it in (what goes back is Skiff's doing). */
async function acceptQuestion(page, timeout) {
  const card = page.locator('.elicit-card').first();
  try {
    await card.waitFor({ timeout });
    log(`question card: ${(await card.innerText()).replace(/\s+/g, ' ').slice(0, 300)}`);
    await card.locator('button.elicit-accept').click();
    await card.waitFor({ state: 'detached', timeout: 5_000 }).catch(() => {});
    return true;
  } catch {
    log('no question card appeared');
    return false;
  }
}

/** Calls one tool from its "try" form and waits for the outcome. */
async function callAndWait(page, tool, args, timeout) {
  const { li, missing } = await startCall(page, tool, args);
  if (missing) return { ok: false, text: missing };
  const out = await callOutcome(li, timeout);
  log(`${tool} ${out.ok ? 'result' : 'error'}: ${out.text.slice(0, 300)}`);
  return out;
}

/** sep-2322-client-request-state: multi-round tool calls (MRTR). The server asks a question
 * in the call's result; Skiff shows it, the user answers, Skiff retries the call with the
 * answer (and the server's state, byte for byte). Another call made meanwhile must carry
 * neither. */
async function mrtrScenario(page) {
  const first = await startCall(page, 'test_mrtr_echo_state', {});
  if (first.missing) return { ok: false, text: first.missing };
  const card = page.locator('.elicit-card').first();
  await card.waitFor({ timeout: 15_000 }).catch(() => log('no question card for test_mrtr_echo_state'));
  // While that question waits, an unrelated call goes out on its own.
  const unrelated = await callAndWait(page, 'test_mrtr_unrelated', {}, 15_000);
  await acceptQuestion(page, 5_000);
  const echo = await callOutcome(first.li, 15_000);
  log(`test_mrtr_echo_state ${echo.ok ? 'result' : 'error'}: ${echo.text.slice(0, 300)}`);
  const noState = await startCall(page, 'test_mrtr_no_state', {});
  if (noState.missing) return { ok: false, text: noState.missing };
  await acceptQuestion(page, 15_000);
  const second = await callOutcome(noState.li, 15_000);
  log(`test_mrtr_no_state ${second.ok ? 'result' : 'error'}: ${second.text.slice(0, 300)}`);
  const plain = await callAndWait(page, 'test_mrtr_no_result_type', {}, 15_000);
  const ok = unrelated.ok && echo.ok && second.ok && plain.ok;
  return { ok, text: ok ? 'every MRTR call completed' : 'an MRTR call failed' };
}

/** The calls a scenario's context lists (`toolCalls`: name and arguments), one after another,
 * from the tools' "try" forms. */
async function contextCalls(page) {
  const calls = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}').toolCalls ?? [];
  if (!calls.length) return { ok: false, text: 'the scenario context lists no toolCalls' };
  let ok = true;
  for (const c of calls) ok = (await callAndWait(page, c.name, c.arguments ?? {}, 20_000)).ok && ok;
  return { ok, text: ok ? 'every call completed' : 'a call failed' };
}

/** json-schema-2020-12-preservation: the focal tool's input schema, as Skiff shows it in the
 * tool's row (what Skiff kept of it), goes back verbatim through the echo tool. */
async function schemaEchoScenario(page) {
  const { li, missing } = await toolRow(page, 'json_schema_2020_12_tool');
  if (missing) return { ok: false, text: missing };
  let schema;
  try {
    schema = JSON.parse(await li.locator('.mcp-schema').innerText());
  } catch (err) {
    return { ok: false, text: `the tool's schema as Skiff shows it is not JSON: ${err.message}` };
  }
  return callAndWait(page, 'json_schema_echo', { schema }, 20_000);
}

async function callTool(page, tool, args, timeout) {
  const { li, missing } = await startCall(page, tool, args);
  if (missing) return { ok: false, text: missing };
  if (scenario.startsWith('elicitation')) {
    // Accept the question untouched: what goes back is whatever Skiff filled in by itself.
    const card = page.locator('.elicit-card').first();
    try {
      await card.waitFor({ timeout });
      log(`elicitation card: ${(await card.innerText()).replace(/\s+/g, ' ').slice(0, 300)}`);
      await card.locator('button.elicit-accept').click();
    } catch {
      log('no elicitation card appeared');
    }
  }
  return callOutcome(li, timeout);
}

const authNote = async (page) =>
  (await row(page).locator('.mcp-auth-note').count()) ? row(page).locator('.mcp-auth-note').innerText() : '';

/** Waits for the card's sign-in note to match `re`; returns it (or what it said at the end). */
async function noteSays(page, re, timeout) {
  const t0 = Date.now();
  let said = '';
  while (Date.now() - t0 < timeout) {
    said = await authNote(page).catch(() => '');
    if (re.test(said)) break;
    await page.waitForTimeout(100);
  }
  return said;
}

/** Account → (client id) → Sign in; waits for the popup to come back. */
async function signIn(page, context) {
  await row(page).locator('.mcp-account').click();
  const dialog = page.locator('.oauth-dialog[role="dialog"]');
  await dialog.waitFor({ timeout: 5_000 });
  const ctx = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');
  // The way the context's credentials sign in: a key or an identity provider is chosen
  // explicitly; anything else stays with the default (a browser window).
  const method = ctx.private_key_pem
    ? 'application'
    : ctx.idp_token_endpoint
      ? 'cross_app'
      : ctx.valid_jwt
        ? 'workload'
        : 'browser';
  if (ctx.client_id && !(await dialog.locator('#oauth-client-id').inputValue())) {
    await dialog.locator('details.oauth-advanced').evaluate((d) => (d.open = true));
    await dialog.locator(`#oauth-method-${method}`).check();
    await dialog.locator('#oauth-client-id').fill(ctx.client_id);
    if (ctx.client_secret) await dialog.locator('#oauth-client-secret').fill(ctx.client_secret);
    if (ctx.private_key_pem) await dialog.locator('#oauth-private-key').fill(ctx.private_key_pem);
    if (ctx.idp_token_endpoint) {
      await dialog.locator('#oauth-idp-token-endpoint').fill(ctx.idp_token_endpoint);
      await dialog.locator('#oauth-idp-client-id').fill(ctx.idp_client_id ?? '');
      await dialog.locator('#oauth-id-token').fill(ctx.idp_id_token ?? '');
    }
    // A workload's JWT from its identity provider (the suite's scenario issues a valid one
    // beside deliberately broken ones).
    if (ctx.valid_jwt) await dialog.locator('#oauth-id-token').fill(ctx.valid_jwt);
    await dialog.locator('button.oauth-save-client').click();
    await page.waitForTimeout(300);
    const notice = dialog.locator('.oauth-notice');
    if (await notice.count()) log(`the dialog refused the entries: ${await notice.innerText()}`);
  }
  // Only a browser sign-in opens a window (the default way may still close its blank one).
  const popupP =
    method === 'browser' ? context.waitForEvent('page', { timeout: 15_000 }).catch(() => null) : Promise.resolve(null);
  await dialog.locator('button.oauth-sign-in').click();
  const popup = await popupP;
  if (popup) {
    log(`popup: ${popup.url()}`);
    await closed(popup, { timeout: 15_000 }).catch(() => log('the popup did not close'));
  } else {
    log(method === 'browser' ? 'no popup opened' : `no popup (signing in as ${method})`);
  }
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached', timeout: 2_000 }).catch(() => {});
}

async function authScenario(page, context) {
  const first = await noteSays(page, /Sign in required|Signed in|\.$/, 20_000);
  log(`card before sign-in: ${first || '(no sign-in note)'} (status ${(await describeRow(page)).status})`);
  // A server that offers no registration asks for a client id first, and one that signs in
  // only applications (or through an identity provider) for its credentials, whose sentence
  // ends "under this server's Account." (entered in signIn).
  const needsId =
    (/enter a client id/.test(first) || /under this server's Account\.$/.test(first)) &&
    JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}').client_id;
  if (!/Sign in required/.test(first) && !needsId) return 1;
  await signIn(page, context);
  const after = await noteSays(page, /Signed in|\.$/, 20_000);
  log(`card after sign-in: ${after}`);
  const state = await waitSettled(page, 20_000);
  log(`status: ${state.status}: ${state.text}`);
  if (state.status !== 'connected') return 1;
  for (let attempt = 1; ; attempt++) {
    const result = await callTool(page, 'test-tool', {}, 20_000);
    log(`test-tool ${result.ok ? 'result' : 'error'} (attempt ${attempt}): ${result.text}`);
    if (result.ok) return 0;
    const note = await authNote(page);
    log(`card: ${note}`);
    if (attempt >= 3 || !/Sign in required/.test(note)) return 1;
    // More scope asked (step-up): sign in again, as a user would from the card.
    await signIn(page, context);
    await noteSays(page, /Signed in|\.$/, 20_000);
    await waitSettled(page, 20_000);
  }
}

/** The address auth/basic-cimd expects as client id, minus `client-metadata.json`. */
const CIMD_ORIGIN = 'https://conformance-test.local/';

/** A copy of the build carrying the Client ID Metadata Document for CIMD_ORIGIN. */
function cimdBuild() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'skiff-cimd-'));
  cpSync(distDir(), dir, { recursive: true });
  const script = fileURLToPath(new URL('../../scripts/write-client-metadata.mjs', import.meta.url));
  log(execFileSync(process.execPath, [script, dir, CIMD_ORIGIN], { encoding: 'utf8' }).trim());
  return dir;
}

let site;
let browser;
let cimdDir;
let code = 1;
try {
  if (scenario === 'auth/basic-cimd') cimdDir = cimdBuild();
  site = await startStaticServer(cimdDir);
  browser = await launchBrowser();
  // At the https origin the service worker would need a certificate chain Playwright's routing
  // does not give; the page works without one (it is only the offline cache).
  const context = await browser.newContext({
    viewport: { width: 1280, height: 1000 },
    ...(cimdDir ? { serviceWorkers: 'block' } : {}),
  });
  let pageUrl = site.url;
  if (cimdDir) {
    // A public https page reaching the loopback CORS proxy needs the user's consent to local
    // network access (Chromium asks); this is that consent.
    await context.grantPermissions(['local-network-access'], { origin: CIMD_ORIGIN.slice(0, -1) });
    // Every request to the https origin (the page, its module, the popup's callback page) is
    // answered by the loopback static server, so the page runs at that origin.
    await context.route(`${CIMD_ORIGIN}**`, async (route) => {
      const local = site.url.replace(/\/$/, '') + new URL(route.request().url()).pathname;
      route.fulfill({ response: await route.fetch({ url: local }) });
    });
    pageUrl = CIMD_ORIGIN;
  }
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') console.error(`page ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => console.error(`page uncaught: ${e.message}`));
  page.on('requestfinished', async (req) => {
    const res = await req.response().catch(() => null);
    if (req.url().startsWith(site.url)) return;
    console.error(`wire: ${req.method()} ${req.url()} -> ${res?.status() ?? '?'}`);
  });
  page.on('requestfailed', (req) => {
    console.error(`wire: ${req.method()} ${req.url()} -> failed: ${req.failure()?.errorText}`);
  });

  log(`scenario=${scenario || '(none)'} server=${serverUrl} proxy=${proxy || '(none)'} page=${pageUrl}`);
  await page.goto(pageUrl);
  await page.click('button[aria-label="Settings"]');
  await page.getByRole('tab', { name: 'MCP servers' }).click();
  await page.click('.mcp-add-open');
  await page.getByLabel('Server name').fill(NAME);
  await page.getByLabel('Server URL').fill(serverUrl);
  if (proxy) await page.locator('.mcp-proxy').fill(proxy);
  await page.click('.mcp-save');

  if (scenario.startsWith('auth/')) {
    code = await authScenario(page, context);
    throw { done: true };
  }
  const state = await waitSettled(page, 20_000);
  log(`status: ${state.status}: ${state.text}`);
  log(`protocol: ${state.protocol.trim()}`);
  const work = WORK[scenario];
  if (!(scenario in WORK)) {
    log(`scenario ${scenario} is not supported by this command; connected only`);
    code = state.status === 'connected' ? 0 : 1;
  } else if (state.status !== 'connected') {
    log('Skiff did not connect');
    code = 1;
  } else if (work === null) {
    code = 0;
  } else if (typeof work === 'function') {
    const result = await work(page);
    log(`${scenario}: ${result.text}`);
    code = result.ok ? 0 : 1;
  } else {
    const result = await callTool(page, work.tool, work.args, 30_000);
    log(`${work.tool} ${result.ok ? 'result' : 'error'}: ${result.text}`);
    if (scenario.startsWith('elicitation') && /-32601|Method not found/i.test(result.text)) {
      log('not supported: Skiff answered the server\'s elicitation/create with "method not found"');
    }
    code = result.ok ? 0 : 1;
  }
  const end = await describeRow(page);
  log(`log:\n${end.log}`);
  if (process.env.SKIFF_CONFORMANCE_SCREENSHOT) {
    log(`screenshot: ${await screenshot(page, `conformance-${scenario.replaceAll('/', '_') || 'none'}`, { fullPage: true })}`);
  }
  // Leave like a client that is done: the session is closed (DELETE) before the page goes.
  if (await row(page).count()) {
    await row(page).locator('.mcp-remove').click();
    await row(page).locator('.mcp-remove-confirm').click();
    await page.waitForTimeout(300);
  }
} catch (err) {
  if (!err?.done) {
    console.error(`skiff-client: ${err.stack ?? err}`);
    code = 1;
  }
} finally {
  await browser?.close().catch(() => {});
  await site?.stop().catch(() => {});
  if (cimdDir) rmSync(cimdDir, { recursive: true, force: true });
}
process.exit(code);
