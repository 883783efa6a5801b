#!/usr/bin/env node
// Streaming benchmark: prints the numbers behind Skiff's streaming claims. A benchmark, not a
// test: a missed target is printed, never turned into an exit code (exit 1 only when the
// harness itself fails: no build, no browser, a server that will not start, a page that never
// finishes; exit 2 for bad arguments). docs/benchmarks.md explains every number.
//
// Why it exists: the llama.cpp web UI, measured on this machine, keeps the main thread 94–100 %
// busy while an answer streams, its frames slowing from 38 ms to 172 ms over a 30,000-token
// answer. Skiff batches signal updates (src/runner/chat.rs), renders finished markdown blocks
// once (src/ui/markdown_body.rs) and throttles storage writes to one key per conversation
// (src/stores/conversations.rs). This script checks those three promises with numbers:
//
//  1. A long answer (default 30,000 tokens at 500 tok/s, realistic markdown from a seeded
//     generator) streamed by tests/servers/openai_compat.py into the release build in
//     headless Chromium: main-thread busy % (CDP Performance.getMetrics TaskDuration deltas)
//     and frame cost (requestAnimationFrame intervals, long-animation-frame entries) for each
//     tenth of the answer, wall time, and whether the final text is complete.
//  2. Storage writes (Storage.prototype.setItem wrapped in an init script) for a shorter answer
//     with 1 and with 200 conversations already stored: writes and bytes per token must not
//     depend on how many conversations exist.
//
// `--shape fence|list` replaces the realistic answer with a worst case for re-rendering the
// unfinished last block (one code fence, one bullet list holding the whole answer).
//
// What it must never do: reach the network (everything is on 127.0.0.1), download a browser,
// or change the app. It reads dist/ (or $SKIFF_DIST) as built by scripts/build.sh.
//
// Usage: node scripts/bench-stream.mjs [--tokens N] [--rate R] [--quick]
//          [--storage-tokens N] [--conversations N] [--shape realistic|fence|list] [--seed S]
//          [--no-storage] [--busy-with N] [--json FILE]

import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  distDir, launchBrowser, startOpenAiServer, startStaticServer, storedBodies,
} from '../tests/e2e/harness.mjs';

// --- options -----------------------------------------------------------------------------------

const USAGE = `usage: node scripts/bench-stream.mjs [options]
  --tokens N           tokens in the long answer (default 30000; --quick: 5000)
  --rate R             tokens per second the server streams (default 500)
  --storage-tokens N   tokens in the storage benchmark's answer (default 3000; --quick: 1000)
  --conversations N    conversations pre-seeded for the storage comparison (default 200)
  --quick              a short run for CI
  --shape S            the long answer's markdown: realistic (default), or a worst case for
                       re-rendering the unfinished last block: fence (one code fence) or list
                       (one bullet list)
  --seed S             seed of the markdown generator (default 7)
  --no-storage         skip benchmark 2 (storage writes)
  --busy-with N        also stream the long answer with N conversations stored, and print main-thread
                       busy against the run with none (issue 12's target: at most 1.1x)
  --json FILE          also write every raw number to FILE
  --help               this text`;

function parseArgs(argv) {
  const o = { tokens: null, rate: 500, storageTokens: null, conversations: 200, quick: false, seed: 7, json: null, shape: 'realistic', storage: true, busyWith: 0 };
  const num = (name, v, min) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < min) throw new Error(`${name} needs a number >= ${min}, got "${v}"`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    switch (a) {
      case '--tokens': o.tokens = Math.round(num(a, next(), 100)); break;
      case '--rate': o.rate = num(a, next(), 1); break;
      case '--storage-tokens': o.storageTokens = Math.round(num(a, next(), 100)); break;
      case '--conversations': o.conversations = Math.round(num(a, next(), 1)); break;
      case '--seed': o.seed = Math.round(num(a, next(), 0)); break;
      case '--json': o.json = next(); break;
      case '--shape': o.shape = next(); break;
      case '--no-storage': o.storage = false; break;
      case '--busy-with': o.busyWith = Math.round(num(a, next(), 1)); break;
      case '--quick': o.quick = true; break;
      case '--help': case '-h': console.log(USAGE); process.exit(0); break;
      default: throw new Error(`unknown option ${a}\n${USAGE}`);
    }
  }
  if (!['realistic', 'fence', 'list'].includes(o.shape)) throw new Error(`--shape takes realistic, fence or list, not "${o.shape}"`);
  o.tokens ??= o.quick ? 5000 : 30000;
  o.storageTokens ??= o.quick ? 1000 : 3000;
  return o;
}

// --- a realistic answer, deterministic ---------------------------------------------------------

/** Characters per token: the server cuts the reply into chunks of this many characters, one
 * SSE event each, as llama.cpp sends one event per token (its tokens average ~4 characters). */
const CHARS_PER_TOKEN = 4;

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the a of to and in is it that for on with as this be are by or from an at which can not ' +
  'you your we will each when more time data value request server model stream answer token ' +
  'buffer render page browser memory thread frame block list item code change update state ' +
  'signal effect store write read file key index cost work small large first last next other ' +
  'same new old fast slow simple clear safe direct local remote error result option setting ' +
  'user message conversation history limit size length rate number count order line text ' +
  'parse build test check keep move start stop wait return call handle open close send ' +
  'receive always never often usually only still already again because while before after'
).split(' ');
const IDENTS = ['items', 'total', 'buffer', 'tokens', 'cursor', 'offset', 'reader', 'state', 'limit', 'chunk', 'index', 'result'];
// Highlighted languages (src/core/markdown/highlight/): every fence is coloured once it settles.
const LANGS = ['rust', 'python', 'js', 'ts', 'bash', 'json', 'toml', 'go', 'java', 'cpp', 'sql', 'yaml', 'html', 'css', 'diff'];
// Formulas as models write them, in all four spellings (src/core/markdown/math/).
const FORMULAS = [
  '\\frac{a}{b} + \\sum_{i=1}^{n} x_i^2',
  '\\int_0^1 x\\,dx = \\frac{1}{2}',
  'e^{i\\pi} + 1 = 0',
  '\\sqrt{x^2 + y^2} \\le |x| + |y|',
  '\\begin{pmatrix} a & b \\\\ c & d \\end{pmatrix}',
  '\\mathbb{R}^n \\to \\mathbb{R}, \\; \\alpha \\mapsto \\hat{\\beta}',
];

/**
 * A markdown answer of exactly `tokens` * CHARS_PER_TOKEN characters, and the text it should show.
 * shape: 'realistic' (paragraphs, lists, code fences, headings, quotes, tables), or one of the
 * worst cases for a renderer that re-renders the unfinished last block: 'fence' (a short intro,
 * then one code fence holding the rest) and 'list' (an intro, then one long bullet list).
 */
function makeAnswer(tokens, seed, shape = 'realistic') {
  const rnd = mulberry32(seed);
  const pick = (arr) => arr[Math.floor(rnd() * arr.length)];
  const int = (lo, hi) => lo + Math.floor(rnd() * (hi - lo + 1));
  const cap = (w) => w[0].toUpperCase() + w.slice(1);
  // Capitalise the first letter even when it sits behind inline markup (`**`, `[`, a backtick).
  const capFirst = (s) => s.replace(/[a-z]/, (c) => c.toUpperCase());
  const words = (n) => Array.from({ length: n }, () => pick(WORDS));

  // Inline markup: returns [markdown, visible text].
  const phrase = (n) => {
    const md = [];
    const text = [];
    for (const w of words(n)) {
      const r = rnd();
      if (r < 0.04) { md.push(`**${w}**`); text.push(w); }
      else if (r < 0.07) { md.push(`*${w}*`); text.push(w); }
      else if (r < 0.11) { const id = `${pick(IDENTS)}_${int(1, 99)}`; md.push(`\`${id}\``); text.push(id); }
      else if (r < 0.125) { md.push(`[${w} docs](https://example.com/${w}/${int(1, 999)})`); text.push(`${w} docs`); }
      else { md.push(w); text.push(w); }
    }
    return [md.join(' '), text.join(' ')];
  };
  const sentence = () => {
    const [md, text] = phrase(int(6, 18));
    return [capFirst(md) + '.', capFirst(text) + '.'];
  };
  const para = () => {
    const parts = Array.from({ length: int(2, 6) }, sentence);
    // Some models wrap paragraphs; most write one line per paragraph.
    const sep = rnd() < 0.25 ? '\n' : ' ';
    return { md: parts.map((p) => p[0]).join(sep), text: parts.map((p) => p[1]).join(' '), kind: 'p' };
  };
  const heading = () => {
    const level = rnd() < 0.6 ? 2 : 3;
    const t = cap(words(int(2, 6)).join(' '));
    return { md: `${'#'.repeat(level)} ${t}`, text: t, kind: `h${level}` };
  };
  const list = () => {
    const ordered = rnd() < 0.35;
    const n = int(3, 7);
    const items = Array.from({ length: n }, () => {
      const [md, text] = phrase(int(4, 16));
      return [capFirst(md), capFirst(text)];
    });
    const md = items.map((it, i) => `${ordered ? `${i + 1}.` : '-'} ${it[0]}`).join('\n');
    return { md, text: items.map((it) => it[1]).join(' '), kind: 'list', items: n };
  };
  const codeLine = () => {
    const indent = '    '.repeat(int(0, 2));
    const a = pick(IDENTS);
    const b = pick(IDENTS);
    const r = rnd();
    if (r < 0.3) return `${indent}let ${a} = ${b}.iter().map(|x| x.len() * ${int(2, 64)}).sum::<usize>();`;
    if (r < 0.5) return `${indent}if ${a} > ${b} && ${a} < ${int(10, 9999)} { return Err("${pick(WORDS)} ${pick(WORDS)}"); }`;
    if (r < 0.7) return `${indent}${a}.push_str(&format!("{} <{}>", ${b}, ${int(0, 255)}));`;
    if (r < 0.85) return `${indent}// ${words(int(3, 9)).join(' ')}`;
    return `${indent}${a} = ${b}["${pick(WORDS)}"] + ${int(1, 100)}`;
  };
  const code = () => {
    const lang = pick(LANGS);
    const lines = Array.from({ length: int(4, 24) }, codeLine);
    return { md: '```' + lang + '\n' + lines.join('\n') + '\n```', text: lines.join(' '), kind: 'pre' };
  };
  const table = () => {
    const cols = int(2, 4);
    const rows = int(2, 5);
    const cell = () => cap(words(int(1, 3)).join(' '));
    const head = Array.from({ length: cols }, cell);
    const body = Array.from({ length: rows }, () => Array.from({ length: cols }, cell));
    const line = (cells) => `| ${cells.join(' | ')} |`;
    const md = [line(head), line(head.map(() => '---')), ...body.map(line)].join('\n');
    return { md, text: [...head, ...body.flat()].join(' '), kind: 'table' };
  };
  // Math: text around the formulas is what the check reads (math elements are left out of it).
  const math = () => {
    const [md, text] = sentence();
    const f = pick(FORMULAS);
    const r = rnd();
    if (r < 0.25) return { md: `${md} Here $${f}$ holds.`, text: `${text} Here holds.`, kind: 'p' };
    if (r < 0.5) return { md: `${md} Here \\(${f}\\) holds.`, text: `${text} Here holds.`, kind: 'p' };
    if (r < 0.75) return { md: `$$${f}$$`, text: '', kind: 'p' };
    return { md: `\\[\n${f}\n\\]`, text: '', kind: 'p' };
  };
  const quote = () => {
    const [md, text] = sentence();
    return { md: `> ${md}`, text, kind: 'blockquote' };
  };

  const target = tokens * CHARS_PER_TOKEN;
  const blocks = [];
  let len = 0;
  const add = (b) => { blocks.push(b); len += b.md.length + (blocks.length > 1 ? 2 : 0); };
  const fill = (room, first = 'Finally') => {
    let f = '';
    while (f.length < room) f += (f ? ' ' : `${first} `) + pick(WORDS);
    return f.slice(0, room).replace(/\s+$/, (w) => 'x'.repeat(w.length));
  };
  if (shape === 'fence' || shape === 'list') {
    add({ md: 'Here is the whole thing in one piece.', text: 'Here is the whole thing in one piece.', kind: 'p' });
    const room = target - len - 2;
    if (shape === 'fence') {
      const [open, close] = ['```rust\n', '\n```'];
      let body = '';
      while (body.length < room - open.length - close.length) body += (body ? '\n' : '') + codeLine();
      body = body.slice(0, room - open.length - close.length).replace(/\s+$/, (w) => 'x'.repeat(w.length));
      add({ md: open + body + close, text: body, kind: 'pre' });
    } else {
      const items = [];
      let used = 0;
      for (;;) {
        const [md, text] = phrase(int(4, 16));
        const item = [`- ${capFirst(md)}`, capFirst(text)];
        if (used + item[0].length + 1 > room - 40) break;
        items.push(item);
        used += item[0].length + 1;
      }
      const last = fill(room - used - 2, 'Last');
      items.push([`- ${last}`, last]);
      add({ md: items.map((i) => i[0]).join('\n'), text: items.map((i) => i[1]).join(' '), kind: 'list', items: items.length });
    }
  } else if (shape !== 'realistic') {
    throw new Error(`unknown shape "${shape}" (realistic, fence or list)`);
  }
  for (; shape === 'realistic';) {
    const r = rnd();
    // Two lists in a row would merge into one loose list; a paragraph goes between them.
    const afterList = blocks.at(-1)?.kind === 'list';
    const b = blocks.length === 0 || r < 0.36 || (afterList && r < 0.6) ? para()
      : r < 0.44 ? math() : r < 0.6 ? list() : r < 0.75 ? code() : r < 0.87 ? heading() : r < 0.94 ? quote() : table();
    if (len + 2 + b.md.length > target - 60) break;
    add(b);
  }
  if (shape === 'realistic') {
    // A last plain paragraph fills the answer to exactly `tokens` chunks.
    const filler = fill(target - len - (blocks.length ? 2 : 0));
    add({ md: filler, text: filler, kind: 'p' });
  }

  const md = blocks.map((b) => b.md).join('\n\n');
  if (md.length !== target) throw new Error(`generator: ${md.length} chars instead of ${target}`);
  const counts = {};
  for (const b of blocks) counts[b.kind] = (counts[b.kind] || 0) + 1;
  return { md, text: blocks.map((b) => b.text).join(' '), counts, listItems: blocks.reduce((s, b) => s + (b.items || 0), 0) };
}

// --- small statistics --------------------------------------------------------------------------

function quantile(values, q) {
  if (!values.length) return NaN;
  const s = Float64Array.from(values).sort();
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}
const sum = (a) => a.reduce((x, y) => x + y, 0);
const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '–');
const pad = (s, n) => String(s).padStart(n);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const normalize = (s) => s.replace(/\s+/g, ' ').trim();

/** Prints rows (arrays) under a header, right-aligned columns. */
function table(header, rows) {
  const widths = header.map((h, i) => Math.max(String(h).length, ...rows.map((r) => String(r[i]).length)));
  const line = (r) => r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : pad(c, widths[i]))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

// --- the scripted server's pace ----------------------------------------------------------------

/** Streams one scripted reply straight from the server (no browser) and returns the rate of its
 * content events, so the delay per chunk can be corrected for Python's own overhead. */
async function measureServerRate(api, tokens, delayMs) {
  const reply = 'abcd'.repeat(tokens);
  await api.script([{ reply, chunk_chars: CHARS_PER_TOKEN, delay_ms: delayMs }]);
  const res = await fetch(`${api.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ model: 'bench', stream: true, messages: [{ role: 'user', content: 'pace' }] }),
  });
  const decoder = new TextDecoder();
  let buf = '';
  let n = 0;
  let first = 0;
  let last = 0;
  for await (const chunk of res.body) {
    const now = performance.now();
    buf += decoder.decode(chunk, { stream: true });
    let cut;
    while ((cut = buf.indexOf('\n\n')) >= 0) {
      const ev = buf.slice(0, cut);
      buf = buf.slice(cut + 2);
      if (ev.includes('"content":"')) {
        if (n === 0) first = now;
        last = now;
        n++;
      }
    }
  }
  if (n !== tokens) throw new Error(`pace check: expected ${tokens} content events, got ${n}`);
  return (n - 1) / ((last - first) / 1000);
}

/** Finds the per-chunk delay that makes the server stream at `rate`: Python's sleep and socket
 * writes add a roughly constant cost per chunk, measured here and subtracted. */
async function calibrate(api, rate, tokens) {
  let delay = 1000 / rate;
  const rounds = [];
  for (let i = 0; i < 3; i++) {
    const achieved = await measureServerRate(api, tokens, delay);
    rounds.push({ delay, achieved });
    if (Math.abs(achieved - rate) / rate < 0.01) break;
    delay = Math.max(0, delay + 1000 / rate - 1000 / achieved);
  }
  return { delay: rounds.at(-1).delay, rounds };
}

/** The server competes with Chromium for the CPU (two cores here), so the pace it keeps alone is
 * not the pace the page sees. Streams three short answers into the app, correcting the delay
 * after each from the rate the page received. */
async function calibrateInPage(browser, site, api, opts, startDelay) {
  const tokens = Math.min(opts.tokens, Math.max(1000, Math.round(opts.rate * 4)));
  const { context, page } = await openPage(browser, site, api);
  let delay = startDelay;
  const rounds = [];
  try {
    for (let i = 0; i < 3; i++) {
      await api.script([{ reply: makeAnswer(tokens, opts.seed + 100 + i).md, chunk_chars: CHARS_PER_TOKEN, delay_ms: delay }]);
      await page.click('.new-chat');
      await page.evaluate(() => { const b = window.__bench; b.reads = []; b.doneAt = null; b.sendAt = null; });
      await sendAndWait(page, 'Calibration answer.', (tokens / opts.rate) * 4000 + 30_000);
      const reads = await page.evaluate(() => { window.__bench.armed = false; return window.__bench.reads; });
      const achieved = tokens / ((reads.at(-1)[0] - reads[0][0]) / 1000);
      rounds.push({ delay, achieved, tokens });
      // Each round measures the server's cost per chunk on top of its sleep; the median of the
      // rounds so far damps the machine's noise (a few % from round to round).
      const overhead = quantile(rounds.map((r) => 1000 / r.achieved - r.delay), 0.5);
      delay = Math.max(0, 1000 / opts.rate - overhead);
    }
  } finally {
    await context.close();
  }
  return { delay, rounds };
}

// --- what the page records ---------------------------------------------------------------------

/** Runs in the page before the app: counts storage writes, logs frames, long animation frames,
 * body chunks as they reach the page, and status changes of assistant messages. Everything is
 * appended to arrays; nothing is computed while the stream runs. */
function pageProbe() {
  const B = {
    armed: false, writes: [], raf: [], loaf: [], reads: [], statuses: [], sendAt: null, doneAt: null,
    // First answer text: when its bytes were read, when it reached the DOM, and the frame that
    // painted it (a rAF callback runs in the frame that then paints).
    firstContentAt: null, firstTextAt: null, firstPaintAt: null,
  };
  window.__bench = B;
  const setItem = Storage.prototype.setItem;
  Storage.prototype.setItem = function (key, value) {
    if (!B.armed) return setItem.call(this, key, value);
    const t0 = performance.now();
    try {
      return setItem.call(this, key, value);
    } finally {
      B.writes.push([t0, String(key), String(key).length + String(value).length, performance.now() - t0]);
    }
  };
  // Conversation bodies go to IndexedDB: each `put` into `conversations` is one write, counted
  // as its key would have been in localStorage (the time is the call; the commit is async).
  const put = IDBObjectStore.prototype.put;
  IDBObjectStore.prototype.put = function (value, key) {
    if (!B.armed || this.name !== 'conversations') return put.call(this, value, key);
    const t0 = performance.now();
    try {
      return put.call(this, value, key);
    } finally {
      B.writes.push([t0, `skiff:conv:${key}`, String(key).length + String(value).length, performance.now() - t0]);
    }
  };
  const decoder = new TextDecoder();
  // Watches the DOM only from the first content bytes to the first visible text, then stops.
  const watchFirstText = () => {
    const seen = () => {
      const all = document.querySelectorAll('article.message-assistant .markdown');
      const md = all[all.length - 1];
      return md && md.textContent.trim() !== '';
    };
    const found = () => {
      B.firstTextAt = performance.now();
      requestAnimationFrame(() => { B.firstPaintAt = performance.now(); });
    };
    if (seen()) return found();
    const obs = new MutationObserver(() => {
      if (!seen()) return;
      obs.disconnect();
      found();
    });
    obs.observe(document.documentElement, { subtree: true, childList: true, characterData: true });
  };
  const read = ReadableStreamDefaultReader.prototype.read;
  ReadableStreamDefaultReader.prototype.read = function (...args) {
    const p = read.apply(this, args);
    if (!B.armed) return p;
    return p.then((r) => {
      if (r && !r.done && r.value) {
        const now = performance.now();
        B.reads.push([now, r.value.byteLength]);
        if (B.firstContentAt === null && /"content":"[^"]/.test(decoder.decode(r.value, { stream: true }))) {
          B.firstContentAt = now;
          watchFirstText();
        }
      }
      return r;
    });
  };
  const frame = (ts) => {
    if (B.armed) B.raf.push(ts);
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  try {
    new PerformanceObserver((list) => {
      if (!B.armed) return;
      for (const e of list.getEntries()) B.loaf.push([e.startTime, e.duration, e.blockingDuration || 0]);
    }).observe({ type: 'long-animation-frame', buffered: false });
  } catch { /* not supported: the LoAF columns stay empty */ }
  window.addEventListener('keydown', (e) => {
    if (B.armed && e.key === 'Enter' && B.sendAt === null) B.sendAt = performance.now();
  }, true);
  const watch = () => new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target;
      if (!el.classList || !el.classList.contains('message-assistant')) continue;
      const s = el.getAttribute('data-status');
      if (B.armed) B.statuses.push([performance.now(), s]);
      if (B.armed && s !== 'streaming' && B.doneAt === null) B.doneAt = performance.now();
    }
  }).observe(document.documentElement, { subtree: true, attributes: true, attributeFilter: ['data-status'] });
  if (document.documentElement) watch();
  else document.addEventListener('DOMContentLoaded', watch);
}

// --- the page ----------------------------------------------------------------------------------

const SETTINGS = (base) => JSON.stringify({
  v: 1,
  data: { base_url: base, api_key: '', model: 'bench-model', system_prompt: '', theme: 'system' },
});

async function openPage(browser, site, api, seedConversations = null) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 }, colorScheme: 'light' });
  await context.addInitScript(pageProbe);
  await context.addInitScript(({ settings, seed }) => {
    if (!localStorage.getItem('skiff:settings')) localStorage.setItem('skiff:settings', settings);
    if (seed && localStorage.getItem('skiff:conversations') === null) {
      for (const [k, v] of seed) localStorage.setItem(k, v);
    }
  }, { settings: SETTINGS(`${api.url}/v1`), seed: seedConversations });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(site.url);
  await page.waitForSelector('textarea[aria-label="Message"]', { timeout: 30_000 });
  if (seedConversations) {
    // The app moves the seeded localStorage conversations into IndexedDB at start, a one-off
    // migration in batches; measuring starts after it, or its writes (100 keys at once, when
    // a batch lands in the window) would be counted as the stream's.
    await page.waitForFunction(() => !Object.keys(localStorage).some((k) => k.startsWith('skiff:conv:')), null, { timeout: 60_000 });
  }
  return { context, page, errors };
}

async function sendAndWait(page, text, timeoutMs) {
  await page.fill('textarea[aria-label="Message"]', text);
  await page.evaluate(() => { const b = window.__bench; b.armed = true; b.firstContentAt = null; b.firstTextAt = null; b.firstPaintAt = null; });
  await page.keyboard.press('Enter');
  // Polled twice a second, not every frame: the wait itself must not load the main thread.
  await page.waitForFunction(() => window.__bench.doneAt !== null, null, { timeout: timeoutMs, polling: 500 });
}

/** CDP's Timestamp (monotonic seconds) minus the page's performance.now(), from the tightest
 * of a few bracketed samples. */
async function clockOffset(cdp) {
  let best = null;
  for (let i = 0; i < 7; i++) {
    const a = await metrics(cdp);
    const { result } = await cdp.send('Runtime.evaluate', { expression: 'performance.now()', returnByValue: true });
    const b = await metrics(cdp);
    const width = b.Timestamp - a.Timestamp;
    if (!best || width < best.width) best = { width, offset: ((a.Timestamp + b.Timestamp) / 2) * 1000 - result.value };
  }
  return best;
}

async function metrics(cdp) {
  const { metrics: list } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(list.map((m) => [m.name, m.value]));
}

/** Samples the renderer's cumulative task time every `everyMs` until stopped. */
function startSampler(cdp, everyMs = 100) {
  const samples = [];
  let running = true;
  const done = (async () => {
    while (running) {
      samples.push(await metrics(cdp));
      await sleep(everyMs);
    }
    samples.push(await metrics(cdp));
  })();
  return { samples, stop: async () => { running = false; await done; } };
}

/** A cumulative metric (ms) at page time `t`, interpolated between samples. */
function cumulativeAt(samples, offset, name, t) {
  const ts = (s) => s.Timestamp * 1000 - offset;
  if (t <= ts(samples[0])) return samples[0][name] * 1000;
  for (let i = 1; i < samples.length; i++) {
    const t1 = ts(samples[i]);
    if (t <= t1) {
      const t0 = ts(samples[i - 1]);
      const v0 = samples[i - 1][name] * 1000;
      const v1 = samples[i][name] * 1000;
      return t1 === t0 ? v1 : v0 + ((v1 - v0) * (t - t0)) / (t1 - t0);
    }
  }
  return samples.at(-1)[name] * 1000;
}

// --- benchmark 1: one long answer --------------------------------------------------------------

async function benchLongAnswer(browser, site, api, opts, delayMs, seeded = null) {
  const answer = makeAnswer(opts.tokens, opts.seed, opts.shape);
  await api.reset();
  await api.script([{ reply: answer.md, chunk_chars: CHARS_PER_TOKEN, delay_ms: delayMs }]);
  const { context, page, errors } = await openPage(browser, site, api, seeded);
  // A new conversation either way, so both runs stream into the same empty chat.
  if (seeded) await page.click('button.new-chat');
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'timeTicks' });
  const { offset, width } = await clockOffset(cdp);

  const sampler = startSampler(cdp);
  await sleep(2000); // idle baseline: the probe's own rAF loop and this sampling
  const idleSamples = sampler.samples.slice(1);
  const secondsFor = opts.tokens / opts.rate;
  await sendAndWait(page, 'Write a long, detailed answer.', Math.max(60_000, secondsFor * 4000 + 30_000));
  await sleep(500);
  await sampler.stop();
  const B = await page.evaluate(() => {
    const b = window.__bench;
    b.armed = false;
    return {
      raf: b.raf, loaf: b.loaf, reads: b.reads, statuses: b.statuses, sendAt: b.sendAt, doneAt: b.doneAt, writes: b.writes,
      firstContentAt: b.firstContentAt, firstTextAt: b.firstTextAt, firstPaintAt: b.firstPaintAt,
    };
  });
  const samples = sampler.samples;
  const taskAt = (t) => cumulativeAt(samples, offset, 'TaskDuration', t);
  const busy = (t0, t1, name = 'TaskDuration') =>
    (100 * (cumulativeAt(samples, offset, name, t1) - cumulativeAt(samples, offset, name, t0))) / (t1 - t0);

  // Idle baseline: the page with nothing to do, before the message is typed.
  const [i0, i1] = [idleSamples[0], idleSamples.at(-1)];
  const idle = (100 * (i1.TaskDuration - i0.TaskDuration)) / (i1.Timestamp - i0.Timestamp);
  const idleCpu = (100 * (i1.ThreadTime - i0.ThreadTime)) / (i1.Timestamp - i0.Timestamp);

  // Slices: the k-th tenth of the body's bytes reaching the page; the last one runs to "done".
  const totalBytes = sum(B.reads.map((r) => r[1]));
  const firstRead = B.reads[0][0];
  const lastRead = B.reads.at(-1)[0];
  const bounds = [firstRead];
  let acc = 0;
  let k = 1;
  for (const [t, n] of B.reads) {
    acc += n;
    while (k < 10 && acc >= (totalBytes * k) / 10) { bounds.push(t); k++; }
  }
  while (bounds.length < 10) bounds.push(lastRead);
  bounds.push(Math.max(B.doneAt, lastRead));

  const rafDeltas = B.raf.slice(1).map((t, i) => [t, t - B.raf[i]]);
  const slices = [];
  for (let i = 0; i < 10; i++) {
    const [t0, t1] = [bounds[i], bounds[i + 1]];
    const frames = rafDeltas.filter(([t]) => t > t0 && t <= t1).map((d) => d[1]);
    const loafs = B.loaf.filter(([t]) => t >= t0 && t < t1);
    const writes = B.writes.filter(([t]) => t >= t0 && t < t1);
    slices.push({
      from: t0, to: t1, seconds: (t1 - t0) / 1000,
      busy: busy(t0, t1),
      cpu: busy(t0, t1, 'ThreadTime'),
      script: busy(t0, t1, 'ScriptDuration'),
      styleLayout: busy(t0, t1, 'RecalcStyleDuration') + busy(t0, t1, 'LayoutDuration'),
      frames: frames.length,
      rafP50: quantile(frames, 0.5), rafP95: quantile(frames, 0.95), rafMax: frames.length ? Math.max(...frames) : NaN,
      loafCount: loafs.length,
      loafP95: quantile(loafs.map((l) => l[1]), 0.95),
      loafBlocking: sum(loafs.map((l) => l[2])),
      writes: writes.length,
      writeKiB: (2 * sum(writes.map((w) => w[2]))) / 1024,
      writeMs: sum(writes.map((w) => w[3])),
    });
  }
  const streamFrames = rafDeltas.filter(([t]) => t > firstRead && t <= bounds[10]).map((d) => d[1]);
  const streamLoafs = B.loaf.filter(([t]) => t >= firstRead && t < bounds[10]);

  // Is the answer whole? Stored text, visible text, and the streamed DOM against a fresh render.
  const shown = await page.evaluate(() => {
    const all = document.querySelectorAll('article.message-assistant');
    const a = all[all.length - 1];
    const md = a.querySelector('.markdown');
    const q = (s) => md.querySelectorAll(s).length;
    const html = md.innerHTML;
    // Formulas render as MathML, whose text is not the LaTeX; the check reads the prose around them.
    for (const m of md.querySelectorAll('math')) m.replaceWith(' ');
    // The Copy and Preview buttons on code blocks are the page's, not the answer's text.
    for (const b of md.querySelectorAll('button.copy-code, button.preview-code')) b.remove();
    return {
      status: a.dataset.status,
      innerText: md.innerText,
      html,
      counts: { p: q('p'), h2: q('h2'), h3: q('h3'), pre: q('pre'), li: q('li'), table: q('table'), blockquote: q('blockquote') },
      footer: (a.querySelector('.message-status') || {}).innerText || '',
      nodes: document.getElementsByTagName('*').length,
    };
  });
  await sleep(500); // the final body write commits just after the answer shows as done
  const bodies = await storedBodies(page);
  const stored = await page.evaluate((bodies) => {
    const idx = JSON.parse(localStorage.getItem('skiff:conversations'));
    const id = idx.data.items[0].id;
    const conv = JSON.parse(bodies[id]);
    const m = conv.data.messages.at(-1);
    return { content: m.content, status: m.status.kind };
  }, bodies);
  const endMetrics = samples.at(-1);
  await page.reload();
  await page.waitForFunction(() => {
    const all = document.querySelectorAll('article.message-assistant');
    return all.length && all[all.length - 1].dataset.status === 'done';
  }, null, { timeout: 60_000 });
  const reloadedHtml = await page.evaluate(() => {
    const all = document.querySelectorAll('article.message-assistant .markdown');
    return all[all.length - 1].innerHTML;
  });
  await context.close();

  const expectedCounts = {
    p: answer.counts.p || 0, h2: answer.counts.h2 || 0, h3: answer.counts.h3 || 0, pre: answer.counts.pre || 0,
    li: answer.listItems, table: answer.counts.table || 0, blockquote: answer.counts.blockquote || 0,
  };
  // Paragraphs inside blockquotes are <p> too.
  expectedCounts.p += expectedCounts.blockquote;
  const mismatch = (a, b) => {
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    return i;
  };
  const shownText = normalize(shown.innerText);
  const expectedText = normalize(answer.text);
  const check = {
    status: shown.status,
    storedStatus: stored.status,
    storedExact: stored.content === answer.md,
    textExact: shownText === expectedText,
    textFirstDiff: shownText === expectedText ? -1 : mismatch(shownText, expectedText),
    countsMatch: JSON.stringify(shown.counts) === JSON.stringify(expectedCounts),
    counts: shown.counts,
    expectedCounts,
    sameAsFreshRender: shown.html === reloadedHtml,
    footer: shown.footer,
  };

  return {
    tokens: opts.tokens,
    requestedRate: opts.rate,
    delayMs,
    clockOffsetUncertaintyMs: width * 1000,
    sourceChars: answer.md.length,
    renderedChars: shown.innerText.length,
    expectedRenderedChars: answer.text.length,
    domNodes: shown.nodes,
    jsHeapMB: endMetrics.JSHeapUsedSize / 1048576,
    idleBusy: idle,
    idleCpu,
    wallSeconds: (B.doneAt - B.sendAt) / 1000,
    firstByteSeconds: (firstRead - B.sendAt) / 1000,
    firstTextDomMs: B.firstTextAt - B.firstContentAt,
    firstTextPaintMs: B.firstPaintAt - B.firstContentAt,
    streamSeconds: (lastRead - firstRead) / 1000,
    renderLagMs: B.doneAt - lastRead,
    deliveredRate: opts.tokens / ((lastRead - firstRead) / 1000),
    busyWhole: busy(firstRead, bounds[10]),
    cpuWhole: busy(firstRead, bounds[10], 'ThreadTime'),
    scriptWhole: busy(firstRead, bounds[10], 'ScriptDuration'),
    styleLayoutWhole: busy(firstRead, bounds[10], 'RecalcStyleDuration') + busy(firstRead, bounds[10], 'LayoutDuration'),
    devtoolsWhole: busy(firstRead, bounds[10], 'DevToolsCommandDuration'),
    taskMsWhole: taskAt(bounds[10]) - taskAt(firstRead),
    rafP50: quantile(streamFrames, 0.5),
    rafP95: quantile(streamFrames, 0.95),
    rafMax: streamFrames.length ? Math.max(...streamFrames) : NaN,
    frames: streamFrames.length,
    loafCount: streamLoafs.length,
    loafBlockingMs: sum(streamLoafs.map((l) => l[2])),
    reads: B.reads.length,
    writesDuring: B.writes.filter(([t]) => t >= firstRead && t <= lastRead).length,
    writeKiBDuring: (2 * sum(B.writes.filter(([t]) => t >= firstRead && t <= lastRead).map((w) => w[2]))) / 1024,
    largestWriteKiB: (2 * Math.max(0, ...B.writes.map((w) => w[2]))) / 1024,
    setItemMsDuring: sum(B.writes.filter(([t]) => t >= firstRead && t <= lastRead).map((w) => w[3])),
    slowestSetItemMs: Math.max(0, ...B.writes.map((w) => w[3])),
    slices,
    check,
    pageErrors: errors,
  };
}

// --- benchmark 2: storage writes vs. number of conversations -----------------------------------

function seedConversations(n, seed) {
  const rnd = mulberry32(seed);
  const entries = [];
  const items = [];
  const base = 1_700_000_000_000;
  for (let i = 0; i < n; i++) {
    const id = `seed${String(i).padStart(4, '0')}`;
    const t = base + i * 60_000;
    const messages = [];
    for (let j = 0; j < 4; j++) {
      const user = j % 2 === 0;
      const a = makeAnswer(user ? 20 : 300, Math.floor(rnd() * 1e9));
      messages.push({
        id: `${id}m${j}`, role: user ? 'user' : 'assistant', content: a.md, created_ms: t + j * 1000,
        ...(user ? {} : { model: 'bench-model' }), status: { kind: 'done' },
      });
    }
    const title = `Seeded conversation ${i}`;
    entries.push([`skiff:conv:${id}`, JSON.stringify({ v: 1, data: { id, title, created_ms: t, updated_ms: t + 3000, messages } })]);
    items.push({ id, title, updated_ms: t + 3000 });
  }
  items.sort((a, b) => b.updated_ms - a.updated_ms || a.id.localeCompare(b.id));
  entries.push(['skiff:conversations', JSON.stringify({ v: 1, data: { items } })]);
  return entries;
}

async function benchStorage(browser, site, api, opts, delayMs, conversations) {
  const answer = makeAnswer(opts.storageTokens, opts.seed + 1);
  await api.reset();
  await api.script([{ reply: answer.md, chunk_chars: CHARS_PER_TOKEN, delay_ms: delayMs }]);
  const seed = seedConversations(conversations, opts.seed + 2);
  const seedBytes = 2 * sum(seed.map(([k, v]) => k.length + v.length));
  const { context, page, errors } = await openPage(browser, site, api, seed);
  const listed = await page.locator('.conversation-select').count();
  // The app opens the newest conversation; the answer goes to a new one in every run, so the
  // written conversation has the same size whatever is stored.
  await page.click('.new-chat');
  await sendAndWait(page, 'Write a medium-length answer.', Math.max(60_000, (opts.storageTokens / opts.rate) * 4000 + 30_000));
  await sleep(1000); // a throttled write still owed would land here
  const B = await page.evaluate(() => {
    const b = window.__bench;
    b.armed = false;
    return { writes: b.writes, reads: b.reads, doneAt: b.doneAt, sendAt: b.sendAt };
  });
  const keysNow = Object.keys(await storedBodies(page)).length
    + await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('skiff:conv:')).length);
  await context.close();

  const firstRead = B.reads[0][0];
  const kind = (k) => (k === 'skiff:conversations' ? 'index' : k.startsWith('skiff:conv:') ? 'conversation' : 'other');
  // While tokens arrive: from the first body chunk to the last. The write that starts the reply
  // comes before, the final one (status "done", and the index) after.
  const lastRead = B.reads.at(-1)[0];
  const by = (ws, what) => ws.filter(([, k]) => kind(k) === what);
  const window = B.writes.filter(([t]) => t >= firstRead && t <= lastRead);
  // The index is written per message (the user's message, the new answer, the final status),
  // after the body's IndexedDB transaction commits so it never lists a body that is not stored.
  // With many conversations that commit can land after the first chunk, so a per-message index
  // write falls inside the window: it is counted per message (indexWrites, equal whatever the
  // answer's length), not as a cost per streamed token.
  const during = window.filter(([, k]) => kind(k) !== 'index');
  const bytes = (ws) => 2 * sum(ws.map((w) => w[2])); // UTF-16, as the quota counts it
  return {
    conversations,
    listed,
    seedKiB: seedBytes / 1024,
    conversationKeysAfter: keysNow,
    tokens: opts.storageTokens,
    streamSeconds: (lastRead - firstRead) / 1000,
    writes: B.writes.length,
    writesDuring: during.length,
    convWrites: by(B.writes, 'conversation').length,
    indexWrites: by(B.writes, 'index').length,
    indexWritesInWindow: by(window, 'index').length,
    otherWrites: by(B.writes, 'other').length,
    distinctKeys: new Set(B.writes.map((w) => w[1])).size,
    bytes: bytes(B.writes),
    bytesDuring: bytes(during),
    convBytes: bytes(by(B.writes, 'conversation')),
    indexBytes: bytes(by(B.writes, 'index')),
    writesPerToken: B.writes.length / opts.storageTokens,
    writesDuringPerToken: during.length / opts.storageTokens,
    bytesPerToken: bytes(B.writes) / opts.storageTokens,
    bytesDuringPerToken: bytes(during) / opts.storageTokens,
    // Rate-independent views: the throttle fixes writes per second, and a write's size is the
    // conversation's size at that moment, so these do not move when the pace wobbles.
    deliveredRate: opts.storageTokens / ((lastRead - firstRead) / 1000),
    writesPerSecond: during.length / ((lastRead - firstRead) / 1000),
    meanWriteKiB: during.length ? bytes(during) / during.length / 1024 : NaN,
    perMessageKiB: (bytes(B.writes) - bytes(during)) / 1024,
    pageErrors: errors,
  };
}

// --- report ------------------------------------------------------------------------------------

function report(opts, pace, long, stores) {
  const targets = [];
  const target = (ok, what, detail) => targets.push({ ok, what, detail });

  console.log(`\n== Skiff streaming benchmark (${opts.tokens} tokens at ${opts.rate} tok/s, ${opts.shape} markdown, seed ${opts.seed}) ==`);
  console.log(`build: ${distDir()}   chromium headless, viewport 1100x760, ${CHARS_PER_TOKEN} chars per token`);
  const cores = os.cpus().length;
  console.log(`machine: ${cores} cores, load average ${opts.loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} after`);
  if (opts.loadBefore[0] > cores * 0.75) {
    console.log('warning: the machine was busy before the run; wall-clock numbers (busy %, rate) are inflated by other processes — cpu % is not');
  }

  console.log('\n-- server pace: delay per chunk tuned until the page receives the requested rate --');
  table(['round', 'measured by', 'tokens', 'delay ms/chunk', 'achieved tok/s'], [
    ...pace.alone.map((r, i) => [i + 1, 'node client, no browser', '', fmt(r.delay, 3), fmt(r.achieved, 1)]),
    ...pace.inPage.map((r, i) => [pace.alone.length + i + 1, 'the page (body chunks)', r.tokens, fmt(r.delay, 3), fmt(r.achieved, 1)]),
  ]);
  console.log(`using delay ${fmt(pace.delay, 3)} ms per chunk; delivered to the page during the run: ${fmt(long.deliveredRate, 1)} tok/s`);
  target(Math.abs(long.deliveredRate - opts.rate) / opts.rate <= 0.05, 'rate delivered to the page within 5 % of the requested rate',
    `${fmt(long.deliveredRate, 1)} of ${opts.rate} tok/s`);

  console.log(`\n-- 1. one ${opts.tokens}-token answer: main thread and frames per tenth of the answer --`);
  table(
    ['slice', 'secs', 'tok/s', 'busy %', 'cpu %', 'script %', 'style+layout %', 'frames', 'rAF p50', 'rAF p95', 'rAF max', 'LoAF n', 'LoAF p95', 'blocking ms', 'writes', 'KiB stored', 'setItem ms'],
    long.slices.map((s, i) => [
      `${i * 10}-${i * 10 + 10} %`, fmt(s.seconds, 2), fmt(opts.tokens / 10 / s.seconds, 0), fmt(s.busy), fmt(s.cpu), fmt(s.script), fmt(s.styleLayout), s.frames,
      fmt(s.rafP50), fmt(s.rafP95), fmt(s.rafMax), s.loafCount, fmt(s.loafP95), fmt(s.loafBlocking, 0),
      s.writes, fmt(s.writeKiB, 0), fmt(s.writeMs, 1),
    ]),
  );
  console.log('(busy = wall time in main-thread tasks, CDP TaskDuration; cpu = CPU time of the main thread, CDP ThreadTime,');
  console.log(' which other processes on the machine cannot inflate; rAF = interval between animation frames in ms, 16.7 when');
  console.log(' nothing blocks; LoAF = long animation frames, over 50 ms; "blocking ms" = their time beyond 50 ms;');
  console.log(' writes / KiB stored / setItem ms = localStorage.setItem and IndexedDB put calls, their size (UTF-16) and the time spent inside the calls)');
  const first = long.slices[0];
  const last = long.slices[9];
  console.log('');
  table(['whole stream', 'value'], [
    ['wall time, Enter to "done"', `${fmt(long.wallSeconds, 2)} s`],
    ['first byte after Enter', `${fmt(long.firstByteSeconds * 1000, 0)} ms`],
    ['first answer text: bytes read → in the DOM', `${fmt(long.firstTextDomMs, 1)} ms`],
    ['first answer text: bytes read → painted (its frame)', `${fmt(long.firstTextPaintMs, 1)} ms`],
    ['stream (first to last chunk read)', `${fmt(long.streamSeconds, 2)} s`],
    ['last chunk read to "done" shown', `${fmt(long.renderLagMs, 0)} ms`],
    ['main thread busy (TaskDuration)', `${fmt(long.busyWhole)} % (idle page before sending: ${fmt(long.idleBusy)} %)`],
    ['main thread CPU (ThreadTime)', `${fmt(long.cpuWhole)} % (idle page before sending: ${fmt(long.idleCpu)} %)`],
    ['  of which script / style+layout', `${fmt(long.scriptWhole)} % / ${fmt(long.styleLayoutWhole)} %`],
    ['  of which this sampler (DevTools)', `${fmt(long.devtoolsWhole, 2)} %`],
    ['frames: rAF p50 / p95 / max', `${fmt(long.rafP50)} / ${fmt(long.rafP95)} / ${fmt(long.rafMax)} ms (${long.frames} frames)`],
    ['long animation frames', `${long.loafCount} (blocking ${fmt(long.loafBlockingMs, 0)} ms in all)`],
    ['body chunks read by the page', long.reads],
    ['storage writes while streaming', `${long.writesDuring}: ${fmt(long.writeKiBDuring / 1024, 1)} MiB, ${fmt(long.setItemMsDuring, 0)} ms inside setItem (largest ${fmt(long.largestWriteKiB, 0)} KiB, slowest ${fmt(long.slowestSetItemMs, 1)} ms)`],
    ['markdown source', `${long.sourceChars} chars`],
    ['rendered text', `${long.renderedChars} chars (expected ${long.expectedRenderedChars})`],
    ['DOM elements at the end', long.domNodes],
    ['JS heap at the end', `${fmt(long.jsHeapMB)} MB`],
  ]);
  const c = long.check;
  console.log('');
  table(['is the answer complete?', 'result'], [
    ['status shown', c.status],
    ['stored text equals the text sent', c.storedExact ? 'yes' : 'NO'],
    ['stored status', c.storedStatus],
    ['visible text equals the expected text', c.textExact ? 'yes' : `NO (first difference at char ${c.textFirstDiff})`],
    ['block counts (p h2 h3 pre li table quote)', `${Object.values(c.counts).join(' ')}${c.countsMatch ? ' = expected' : ` ≠ expected ${Object.values(c.expectedCounts).join(' ')}`}`],
    ['streamed DOM equals a fresh render (after reload)', c.sameAsFreshRender ? 'yes' : 'NO'],
    ['footer', c.footer.replace(/\s+/g, ' ').trim()],
  ]);
  if (long.pageErrors.length) console.log(`page errors: ${long.pageErrors.join(' | ')}`);

  target(long.busyWhole < 50, 'main thread busy < 50 % over the stream (llama.cpp web UI: 94–100 %)', `${fmt(long.busyWhole)} %`);
  // CPU time, not wall time: another process taking the CPU for a while must not read as a trend.
  target(last.cpu <= Math.max(first.cpu * 1.5, first.cpu + 5), 'main-thread cost flat: cpu % of the last tenth within 1.5x (or +5 points) of the first',
    `cpu ${fmt(first.cpu)} % → ${fmt(last.cpu)} %, busy ${fmt(first.busy)} % → ${fmt(last.busy)} %`);
  target(last.rafP95 <= Math.max(first.rafP95 * 1.5, first.rafP95 + 5), 'frame cost flat: rAF p95 of the last tenth within 1.5x (or +5 ms) of the first (llama.cpp: 38 → 172 ms)',
    `${fmt(first.rafP95)} → ${fmt(last.rafP95)} ms`);
  target(Math.max(...long.slices.map((s) => s.rafP95)) <= 50, 'rAF p95 ≤ 50 ms in every tenth',
    `worst ${fmt(Math.max(...long.slices.map((s) => s.rafP95)))} ms`);
  target(c.status === 'done' && c.storedExact && c.textExact && c.countsMatch && c.sameAsFreshRender,
    'final answer complete: stored text, visible text, block counts, same DOM as a fresh render', c.status);

  if (!stores.length) {
    console.log('\n-- 2. storage writes: skipped (--no-storage) --');
  } else {
  console.log(`\n-- 2. storage writes for one ${opts.storageTokens}-token answer, by number of stored conversations --`);
  table(
    ['stored convs', 'tok/s', 'writes', 'during stream', 'conv key', 'index key', 'index in window', 'keys', 'writes/token', 'writes/s', 'KiB written', 'bytes/token', 'stream bytes/token', 'KiB/write', 'per-message KiB'],
    stores.map((s) => [
      s.conversations, fmt(s.deliveredRate, 0), s.writes, s.writesDuring, s.convWrites, s.indexWrites, s.indexWritesInWindow, s.distinctKeys,
      fmt(s.writesPerToken, 4), fmt(s.writesPerSecond, 2), fmt(s.bytes / 1024), fmt(s.bytesPerToken, 0), fmt(s.bytesDuringPerToken, 0),
      fmt(s.meanWriteKiB, 1), fmt(s.perMessageKiB, 1),
    ]),
  );
  console.log('(bytes are UTF-16, 2 per character of key + value, as browsers count the quota; "during stream" = from the first');
  console.log(' body chunk to the last, index writes excluded: they are per message and counted in "index key" (see "index in window");');
  console.log(' "per-message" = the writes before it (user message, index) and after it (final status, index), once per message whatever its length. Per-token numbers scale with 1/tok/s: the throttle fixes writes/s)');
  for (const s of stores) {
    if (s.listed !== s.conversations) console.log(`note: ${s.conversations} seeded but the sidebar listed ${s.listed}`);
    if (s.pageErrors.length) console.log(`page errors (${s.conversations} convs): ${s.pageErrors.join(' | ')}`);
  }
  const [one, many] = [stores[0], stores.at(-1)];
  const close = (a, b, tol) => Math.abs(a - b) <= tol * Math.max(Math.abs(a), Math.abs(b), 1e-9);
  // Per token at equal pace; per second and per write otherwise, since the pace wobbles between
  // runs on a busy machine and the throttle is time-based.
  const samePace = close(one.deliveredRate, many.deliveredRate, 0.05);
  target(samePace
    ? close(one.writesDuringPerToken, many.writesDuringPerToken, 0.15) && many.writesDuring > 0
    : close(one.writesPerSecond, many.writesPerSecond, 0.15) && many.writesDuring > 0,
  `storage writes while streaming independent of stored conversations (1 vs ${many.conversations}, ±15 %, ${samePace ? 'per token' : 'per second: the two runs streamed at different rates'})`,
  samePace ? `${fmt(one.writesDuringPerToken, 4)} vs ${fmt(many.writesDuringPerToken, 4)} per token`
    : `${fmt(one.writesPerSecond, 2)} vs ${fmt(many.writesPerSecond, 2)} per second (${fmt(one.writesDuringPerToken, 4)} vs ${fmt(many.writesDuringPerToken, 4)} per token)`);
  target(samePace
    ? close(one.bytesDuringPerToken, many.bytesDuringPerToken, 0.15)
    : close(one.meanWriteKiB, many.meanWriteKiB, 0.15),
  `bytes written while streaming independent of stored conversations (1 vs ${many.conversations}, ±15 %, ${samePace ? 'per token' : 'per write'})`,
  samePace ? `${fmt(one.bytesDuringPerToken, 0)} vs ${fmt(many.bytesDuringPerToken, 0)} bytes per token`
    : `${fmt(one.meanWriteKiB, 1)} vs ${fmt(many.meanWriteKiB, 1)} KiB per write (${fmt(one.bytesDuringPerToken, 0)} vs ${fmt(many.bytesDuringPerToken, 0)} per token)`);
  target(one.indexWrites === many.indexWrites && many.indexWrites <= 6,
    `index writes per exchange, not per token, the same whatever is stored (1 vs ${many.conversations})`,
    `${one.indexWrites} vs ${many.indexWrites} (${one.indexWritesInWindow} vs ${many.indexWritesInWindow} of them inside the streaming window)`);
  target(one.distinctKeys === many.distinctKeys, 'same keys touched whatever is stored (one conversation key + the index)',
    `${one.distinctKeys} vs ${many.distinctKeys}`);
  }

  console.log('\n-- targets (reported, not enforced) --');
  for (const t of targets) console.log(`${t.ok ? 'MET   ' : 'MISSED'}  ${t.what}: ${t.detail}`);
  return targets;
}

// --- main --------------------------------------------------------------------------------------

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`bench-stream: ${e.message}`);
    process.exit(2);
  }
  const dist = distDir();
  if (!existsSync(path.join(dist, 'index.html'))) {
    console.error(`bench-stream: no build in ${dist}; run scripts/build.sh first (or set SKIFF_DIST)`);
    process.exit(1);
  }
  opts.loadBefore = os.loadavg();
  let api;
  let site;
  let browser;
  try {
    api = await startOpenAiServer({ models: ['bench-model'] });
    site = await startStaticServer(dist);
    browser = await launchBrowser();
    console.log(`bench-stream: calibrating the server's pace at ${opts.rate} tok/s ...`);
    const alone = await calibrate(api, opts.rate, Math.min(2000, Math.max(500, Math.round(opts.rate * 3))));
    const inPage = await calibrateInPage(browser, site, api, opts, alone.delay);
    const pace = { alone: alone.rounds, inPage: inPage.rounds, delay: inPage.delay };
    console.log(`bench-stream: streaming ${opts.tokens} tokens (~${fmt(opts.tokens / opts.rate, 0)} s) ...`);
    const long = await benchLongAnswer(browser, site, api, opts, pace.delay);
    const stores = [];
    for (const n of opts.storage ? [1, opts.conversations] : []) {
      console.log(`bench-stream: storage run with ${n} stored conversation(s) ...`);
      stores.push(await benchStorage(browser, site, api, opts, pace.delay, n));
    }
    let withStored = null;
    if (opts.busyWith > 0) {
      console.log(`bench-stream: streaming again with ${opts.busyWith} stored conversations ...`);
      withStored = await benchLongAnswer(browser, site, api, opts, pace.delay, seedConversations(opts.busyWith, opts.seed + 3));
    }
    const targets = report(opts, pace, long, stores);
    if (withStored) {
      const ratio = withStored.busyWhole / long.busyWhole;
      console.log(`\n-- 3. the same answer with ${opts.busyWith} conversations stored --`);
      console.log(`main thread busy: ${fmt(long.busyWhole)} % with none, ${fmt(withStored.busyWhole)} % with ${opts.busyWith}: ${fmt(ratio, 2)}x (target <= 1.1x)`);
      // Where the difference is: script (our wasm and glue) or the browser's style and layout.
      console.log(`  script ${fmt(long.scriptWhole)} % vs ${fmt(withStored.scriptWhole)} %, style+layout ${fmt(long.styleLayoutWhole)} % vs ${fmt(withStored.styleLayoutWhole)} %, cpu ${fmt(long.cpuWhole)} % vs ${fmt(withStored.cpuWhole)} %`);
      console.log(`${ratio <= 1.1 ? 'MET   ' : 'MISSED'}  streaming busy with ${opts.busyWith} stored conversations within 1.1x of none: ${fmt(ratio, 2)}x`);
      targets.push({ ok: ratio <= 1.1, what: `busy with ${opts.busyWith} stored conversations within 1.1x of none`, detail: `${fmt(ratio, 2)}x` });
    }
    if (opts.json) {
      await writeFile(opts.json, JSON.stringify({ opts, pace, long, withStored, stores, targets }, null, 2));
      console.log(`\nraw numbers written to ${opts.json}`);
    }
  } finally {
    await browser?.close().catch(() => {});
    await site?.stop().catch(() => {});
    await api?.stop().catch(() => {});
  }
}

main().catch((e) => {
  console.error(`bench-stream: the harness failed: ${e.stack || e.message}`);
  process.exit(1);
});
