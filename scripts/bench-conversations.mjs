#!/usr/bin/env node
// Conversation benchmarks (issue 12), printed, not enforced:
//   1. input ready after navigation: from navigation start to the message box in the page,
//      with no stored conversation and with N stored (median of several loads);
//   2. search over N stored conversations: from the keystroke to the matches in the page
//      (Ctrl/⌘+K), and how long opening the search (reading every conversation) takes.
// Usage: node scripts/bench-conversations.mjs [--conversations N] [--messages M] [--chars C] [--loads L]
// Needs the release build in dist/ (or $SKIFF_DIST): scripts/build.sh.
import os from 'node:os';
import {
  distDir, launchBrowser, startOpenAiServer, startStaticServer, seedBodies,
} from '../tests/e2e/harness.mjs';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
// The realistic history: 1,000 conversations of 10 messages of 500 characters (~5.3 M
// characters, more than localStorage's ~5 M). Stored as the app stores them now: the list in
// localStorage, the bodies in IndexedDB (seeded through a page of the origin before the app
// first loads).
const N = opt('--conversations', 1000);
const M = opt('--messages', 10);
const C = opt('--chars', 500);
const LOADS = opt('--loads', 5);

const WORDS = 'tide moon ocean river harbour bread starter flour yeast temple garden dawn mountain train ticket rust borrow checker lifetime python list comprehension kettle lantern'.split(' ');

function seed(n) {
  const entries = [];
  const items = [];
  const base = 1_700_000_000_000;
  let x = 7;
  const rnd = () => ((x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const text = (chars) => {
    let s = '';
    while (s.length < chars) s += `${WORDS[Math.floor(rnd() * WORDS.length)]} `;
    return s.slice(0, chars);
  };
  for (let i = 0; i < n; i++) {
    const id = `seed${String(i).padStart(5, '0')}`;
    const t = base + i * 60_000;
    const messages = [];
    for (let j = 0; j < M; j++) {
      const user = j % 2 === 0;
      messages.push({ id: `${id}m${j}`, role: user ? 'user' : 'assistant', content: text(C), created_ms: t + j * 1000, status: { kind: 'done' } });
    }
    // One conversation in the middle holds the word the search looks for.
    if (i === Math.floor(n / 2)) messages[M - 1].content = `${text(C / 2)} zanzibar ${text(C / 2)}`;
    const title = `Seeded conversation ${i}`;
    entries.push([id, JSON.stringify({ v: 2, data: { id, title, created_ms: t, updated_ms: t + M * 1000, messages } })]);
    items.push({ id, title, updated_ms: t + M * 1000 });
  }
  items.sort((a, b) => b.updated_ms - a.updated_ms);
  return { bodies: entries, index: JSON.stringify({ v: 1, data: { items } }) };
}

/** A context holding `seeded` (or nothing) as the app would have stored it. */
async function seededContext(browser, site, api, seeded) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
  const pre = await context.newPage();
  await pre.goto(`${site.url}/blank.txt`);
  await pre.evaluate(({ s, index }) => {
    localStorage.setItem('skiff:settings', s);
    if (index) localStorage.setItem('skiff:conversations', index);
  }, { s: settings(api.url), index: seeded?.index });
  if (seeded) await seedBodies(pre, seeded.bodies);
  await pre.close();
  return context;
}

const settings = (url) => JSON.stringify({ v: 1, data: { base_url: `${url}/v1`, model: 'bench-model', auto_title: false } });

/** Loads the page `LOADS` times in one profile; the time from navigation start to the message box. */
async function inputReady(browser, site, api, seeded) {
  const context = await seededContext(browser, site, api, seeded);
  await context.addInitScript(() => {
    new MutationObserver((_, mo) => {
      if (document.querySelector('textarea[aria-label="Message"]')) {
        window.__inputReady = performance.now();
        mo.disconnect();
      }
    }).observe(document, { subtree: true, childList: true });
  });
  const page = await context.newPage();
  const times = [];
  let stored = 0;
  for (let i = 0; i < LOADS + 1; i++) {
    await page.goto(site.url);
    await page.waitForFunction(() => window.__inputReady !== undefined, null, { timeout: 60_000 });
    const t = await page.evaluate(() => window.__inputReady);
    if (i > 0) times.push(t); // the first load warms the HTTP cache, as a returning visit has
    stored = await page.locator('.conversation-select').count();
  }
  await context.close();
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], min: times[0], max: times.at(-1), listed: stored };
}

async function search(browser, site, api, seeded) {
  const context = await seededContext(browser, site, api, seeded);
  const page = await context.newPage();
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]');
  const open = [];
  const keystroke = [];
  for (let i = 0; i < 5; i++) {
    const t0 = Date.now();
    await page.keyboard.press('Control+k');
    await page.getByRole('searchbox', { name: 'Search conversations' }).waitFor();
    open.push(Date.now() - t0);
    const ms = await page.evaluate(() => new Promise((resolve) => {
      const input = document.querySelector('input.search-input');
      const t = performance.now();
      new MutationObserver((_, mo) => {
        if (document.querySelector('.search-hit')) {
          mo.disconnect();
          // Until the frame that shows the matches.
          requestAnimationFrame(() => resolve(performance.now() - t));
        }
      }).observe(document.body, { subtree: true, childList: true });
      input.value = 'zanzibar';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }));
    keystroke.push(ms);
    await page.keyboard.press('Escape');
    await page.locator('.search-dialog').waitFor({ state: 'detached' });
  }
  await context.close();
  const med = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
  return { open: med(open), keystroke: med(keystroke) };
}

const api = await startOpenAiServer({ models: ['bench-model'] });
const site = await startStaticServer(process.env.SKIFF_DIST || distDir());
const browser = await launchBrowser();
try {
  const seeded = seed(N);
  const chars = seeded.bodies.reduce((n, [k, v]) => n + k.length + v.length, 0);
  console.log(`== Skiff conversation benchmarks: ${N} stored conversations of ${M} messages × ${C} characters (${(chars / 1e6).toFixed(2)} M characters of bodies in IndexedDB, the list in localStorage) ==`);
  console.log(`machine: ${os.cpus().length} cores, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  const empty = await inputReady(browser, site, api, null);
  const full = await inputReady(browser, site, api, seeded);
  console.log(`input ready after navigation, median of ${LOADS} loads: ${empty.median.toFixed(0)} ms with none stored (${empty.min.toFixed(0)}–${empty.max.toFixed(0)}), ${full.median.toFixed(0)} ms with ${full.listed} listed (${full.min.toFixed(0)}–${full.max.toFixed(0)}): ${(full.median / empty.median).toFixed(2)}× (target ≤ 1.3×)`);
  const s = await search(browser, site, api, seeded);
  console.log(`search over ${N} conversations, median of 5: ${s.keystroke.toFixed(0)} ms from the keystroke to the matches on screen (target ≤ 150 ms); opening the search (reading every conversation): ${s.open} ms`);
} finally {
  await browser.close();
  await site.stop();
  await api.stop();
}
