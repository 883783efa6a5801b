#!/usr/bin/env node
// What the user waits for, measured in Chromium rather than by listing dist/:
//   1. the first visit's critical path: every file the browser requests, on a fresh profile,
//      before the message box takes input, with its gzip -9 size — against the budget;
//   2. each on-demand chunk (src/ui/lazy.rs) with its size, and which surface loads it;
//   3. opening each on-demand surface with a warm cache: from the click to the surface in the
//      page (median of several opens), against 150 ms — a benchmark, printed, not enforced.
//
//   node scripts/bench-size.mjs           print the numbers
//   node scripts/bench-size.mjs --gate    the same, then exit 1 when the critical path is over
//                                         budget, when it fetched no wasm (a broken build cannot
//                                         pass), or when a chunk in dist/ is never loaded by any
//                                         surface listed below (a split point nobody measures)
// SKIFF_PAGE_BUDGET_KIB overrides the budget for one run, e.g. to see the gate fail:
//   SKIFF_PAGE_BUDGET_KIB=100 node scripts/bench-size.mjs --gate
// Needs the release build in dist/ (or $SKIFF_DIST): scripts/build.sh.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { distDir, launchBrowser, startStaticServer } from '../tests/e2e/harness.mjs';

const PAGE_BUDGET_KIB = 640;
const OPEN_TARGET_MS = 150;
const budget = Number(process.env.SKIFF_PAGE_BUDGET_KIB || PAGE_BUDGET_KIB);
const gate = process.argv.includes('--gate');
const OPENS = 5;

const dist = distDir();
if (!existsSync(path.join(dist, 'index.html'))) {
  console.error(`bench-size: no build at ${dist}: run scripts/build.sh first`);
  process.exit(1);
}
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
const gz = (file) => gzipSync(readFileSync(file), { level: 9 }).length;

/**
 * Each on-demand surface: how a user opens it (a JS statement run in the page), and what is in
 * the page once it is open. Every chunk the build writes must be loaded by one of these (the
 * gate says which is not).
 */
const SURFACES = [
  {
    name: 'Settings',
    open: `document.querySelector('button[aria-label="Settings"]').click()`,
    ready: '.settings [role="tablist"]',
  },
  {
    // The tabs after Providers: their own chunk, fetched when idle once Settings is open, or
    // at the first click on one of them. Timed from that click, on a page reloaded each time
    // (so the idle fetch has not happened: the chunk comes from the warm cache on the click).
    name: 'Settings → MCP servers (a tab after the first)',
    before: `document.querySelector('button[aria-label="Settings"]').click()`,
    beforeReady: '.settings [role="tablist"]',
    open: `[...document.querySelectorAll('.settings [role="tab"]')].find((t) => t.textContent === 'MCP servers').click()`,
    ready: '.settings .mcp-add-open',
  },
  {
    name: 'Search conversations',
    open: `document.querySelector('button.open-search').click()`,
    ready: '.search-dialog input',
  },
  {
    name: 'Keyboard shortcuts',
    open: `document.querySelector('button.show-shortcuts').click()`,
    ready: '.help-sheet .settings-header',
  },
];

/**
 * Chunks loaded by an event a fresh profile with no server cannot produce here: named, with
 * what loads them and the e2e file that opens them. A chunk named in neither list fails the
 * gate; a shared chunk (`chunk-shared-N`) that none of the surfaces above loaded is counted
 * as belonging to these.
 */
const ON_EVENT = {
  'mcp-resources': 'Resources on an MCP server card, @ in the composer (tests/e2e/resources.test.mjs)',
  'mcp-prompts': '/ in the composer with a server that has prompts (tests/e2e/prompts.test.mjs)',
  'mcp-roots': 'Roots on an MCP server card (tests/e2e/prompts.test.mjs)',
  'mcp-asks': 'a server asks for input or for the model (tests/e2e/elicit.test.mjs, sampling.test.mjs)',
  oauth: 'a server that asks for a sign-in, or stored credentials (tests/e2e/oauth.test.mjs)',
  builtin: 'the built-in tools, when switched on (at start, once idle; tests/e2e/agent.test.mjs)',
  'local-model': 'the first request to the model in the page (tests/e2e/local_model.test.mjs)',
};

const site = await startStaticServer(dist);
const browser = await launchBrowser();
let failed = false;
try {
  // ---- 1. the critical path -------------------------------------------------------------------
  const context = await browser.newContext();
  // The moment the message box takes input, by the page's own clock: a MutationObserver from
  // before the first script. Requests are then counted by when they *started* (Resource
  // Timing), so a chunk fetched when the browser is idle right after is never counted, however
  // the test's polling lines up with it.
  await context.addInitScript(() => {
    const ready = () => {
      const box = document.querySelector('textarea[aria-label="Message"]');
      if (box && !box.disabled && window.__inputReadyAt === undefined) window.__inputReadyAt = performance.now();
    };
    new MutationObserver(ready).observe(document, { subtree: true, childList: true, attributes: true });
  });
  const page = await context.newPage();
  const requested = [];
  page.on('request', (r) => requested.push(r.url()));
  await page.goto(site.url + '/');
  await page.waitForFunction(() => window.__inputReadyAt !== undefined, null, { timeout: 60_000 });
  const { inputReadyAt, started } = await page.evaluate(() => ({
    inputReadyAt: window.__inputReadyAt,
    started: [
      ...performance.getEntriesByType('navigation').map((e) => ({ url: e.name, at: 0 })),
      ...performance.getEntriesByType('resource').map((e) => ({ url: e.name, at: e.startTime })),
    ],
  }));
  const critical = [...new Set(started.filter((e) => e.at <= inputReadyAt).map((e) => e.url))]
    .filter((u) => u.startsWith(site.url))
    .map((u) => new URL(u).pathname.replace(/^\//, '') || 'index.html');
  const later = [...new Set(started.filter((e) => e.at > inputReadyAt).map((e) => new URL(e.url).pathname.split('/').pop()))];
  console.log(`input ready ${inputReadyAt.toFixed(0)} ms after navigation; fetched after it: ${later.join(', ') || 'nothing'}`);
  let total = 0;
  let wasm = 0;
  console.log('first visit, fetched before the message box takes input:');
  for (const file of critical) {
    const full = path.join(dist, file);
    if (!existsSync(full)) continue; // a probe the page made of a path that is not in the build
    const size = gz(full);
    total += size;
    if (file.endsWith('.wasm')) wasm += 1;
    console.log(`  ${file.padEnd(44)} ${kib(size).padStart(10)} gzip`);
  }
  console.log(`critical path: ${kib(total)} gzip (budget ${budget} KiB, ${(budget - total / 1024).toFixed(1)} KiB left)`);
  if (wasm === 0) {
    console.error('bench-size: the first visit fetched no wasm: the build is broken');
    failed = true;
  }
  if (total > budget * 1024) {
    console.error(`size gate: FAILED, the critical path is ${kib(total)} gzip, ${(total / 1024 - budget).toFixed(1)} KiB over its ${budget} KiB budget`);
    failed = true;
  }

  // ---- 2 and 3. the chunks and the surfaces that load them -------------------------------------
  const chunks = readdirSync(dist).filter((f) => /^chunk-.*\.wasm$/.test(f)).sort();
  const loadedBy = new Map();
  // Chunks the page fetches by itself once it is idle (needed soon, not first).
  await page.waitForTimeout(2_500);
  for (const u of requested) {
    const file = new URL(u).pathname.split('/').pop();
    if (chunks.includes(file)) loadedBy.set(file, 'after input is ready, when idle');
  }
  for (const surface of SURFACES) {
    const before = requested.length;
    if (surface.before) {
      await page.evaluate(surface.before);
      await page.waitForSelector(surface.beforeReady, { timeout: 20_000 });
    }
    await page.evaluate(surface.open);
    await page.waitForSelector(surface.ready, { timeout: 20_000 });
    await page.keyboard.press('Escape');
    for (const u of requested.slice(before)) {
      const file = new URL(u).pathname.split('/').pop();
      if (chunks.includes(file)) loadedBy.set(file, surface.name);
    }
  }
  console.log('on-demand chunks:');
  for (const chunk of chunks) {
    const name = chunk.replace(/^chunk-/, '').replace(/-[0-9a-f]{16}\.wasm$/, '');
    const by =
      loadedBy.get(chunk) ??
      (ON_EVENT[name] ? `on use: ${ON_EVENT[name]}` : undefined) ??
      (/^shared-\d+$/.test(name) ? 'shared by chunks loaded on use' : undefined);
    console.log(`  ${chunk.padEnd(44)} ${kib(gz(path.join(dist, chunk))).padStart(10)} gzip  ${by ? `(${by})` : '(loaded by no surface listed in scripts/bench-size.mjs)'}`);
    if (!by) failed = gate;
  }

  // Warm: the service worker controls a reloaded page, and every chunk is in its cache.
  for (const surface of SURFACES) {
    const times = [];
    for (let i = 0; i < OPENS; i++) {
      await page.reload();
      await page.waitForSelector('textarea[aria-label="Message"]');
      // One expression (the page's CSP allows no eval inside it): the click, then a frame.
      times.push(await page.evaluate(`(async () => {
        ${surface.before ? `${surface.before};
        await new Promise((resolve) => {
          const observer = new MutationObserver(() => check());
          const check = () => document.querySelector(${JSON.stringify(surface.beforeReady)}) && (observer.disconnect(), resolve());
          observer.observe(document.body, { subtree: true, childList: true, attributes: true });
          check();
        });` : ''}
        const t0 = performance.now();
        ${surface.open};
        await new Promise((resolve) => {
          const observer = new MutationObserver(() => check());
          const check = () => document.querySelector(${JSON.stringify(surface.ready)}) && (observer.disconnect(), resolve());
          observer.observe(document.body, { subtree: true, childList: true, attributes: true });
          check();
        });
        // Until the frame that shows it is painted.
        await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
        return performance.now() - t0;
      })()`));
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    console.log(`open ${surface.name} (warm cache, median of ${OPENS}): ${median.toFixed(0)} ms (${times[0].toFixed(0)}–${times[times.length - 1].toFixed(0)}; target ≤ ${OPEN_TARGET_MS} ms)`);
  }
  await context.close();
} finally {
  await browser.close();
  await site.stop();
}
// Rust's float printing (flt2dec, about 10 KiB gzip with the Debug code around it) is linked by
// any `{}`, `{:.1}` or `{:?}` on an f64 and by `f64::clamp`'s assertion. The page writes numbers
// with skiff_core::format::{fixed, decimal} instead; cargo's module still has its symbol names,
// so say so when it comes back (and fail the gate: it is 1.3 % of the page for nothing).
const named = path.join(process.env.CARGO_TARGET_DIR || path.join(os.homedir(), '.cache', 'skiff', 'target'), 'wasm32-unknown-unknown', 'release', 'skiff.wasm');
if (existsSync(named) && readFileSync(named).includes('flt2dec')) {
  console.error(`float printing is linked into the page (${named} names flt2dec): format f64 with skiff_core::format::{fixed, decimal}, never {} {:.N} {:?} or f64::clamp`);
  failed = true;
}
if (gate && failed) process.exit(1);
if (gate) console.log('size gate: passed');
