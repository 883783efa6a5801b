#!/usr/bin/env node
// Benchmarks the in-page model worker (headless Chromium, one thread) against native
// llama.cpp (npm node-llama-cpp's prebuilt CPU binary, one thread) on the same GGUF, the
// same messages and the same context, runs alternated (A B, B A, …) because the machine is
// shared and its speed drifts. Per run and engine:
//   load        worker: request sent → last load_progress chunk (file read from OPFS into
//               memory); native: loadModel + createContext
//   short/long  a fresh ~50-token and ~1,000-token turn: time to first token, prompt tok/s,
//               then 64 greedy tokens (end-of-generation ignored) for decode tok/s
//   chat 1 / 5  a five-turn chat (each turn feeds back the engine's own answer): time to
//               first token of turn 1 and turn 5, and how many prompt tokens turn 5 reused
//               from the previous turn's KV cache (prefix reuse) and how many it read
// Every scenario starts with its own system message, so no scenario reuses another's cache.
//
//   node scripts/bench-model.mjs [DIST...]  DIST defaults to $SKIFF_DIST or dist; each must
//                                           hold worker/ from scripts/build-worker.sh; two or
//                                           more compare worker builds (A/B), alternated too
// Env: BENCH_RUNS (default 2), BENCH_MODEL (a ChatML GGUF in the models folder, default
// SmolLM2-135M-Instruct.Q4_1.gguf), BENCH_CONTEXT (2048), BENCH_ENGINES ("worker,native"),
// SKIFF_MODELS (~/.cache/skiff/models), NODE_LLAMA_CPP (~/.cache/skiff/node-llama-cpp).
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(root, "package.json"));
const { chromium } = require("playwright-core");

const dists = (process.argv.length > 2 ? process.argv.slice(2) : [process.env.SKIFF_DIST || path.join(root, "dist")])
  .map((d) => path.resolve(d));
// A worker build's name in the table: its folder's name, or as much of its path as tells it
// from the others (two builds both called dist/ were merged into one row of medians).
function distLabel(index) {
  const parts = dists[index].split(path.sep);
  for (let n = 1; n <= parts.length; n++) {
    const tail = (d) => d.split(path.sep).slice(-n).join(path.sep);
    if (dists.every((d, i) => i === index || tail(d) !== tail(dists[index]))) return tail(dists[index]);
  }
  return `${index + 1}`;
}
const modelsDir = process.env.SKIFF_MODELS || path.join(os.homedir(), ".cache/skiff/models");
const MODEL = process.env.BENCH_MODEL || "SmolLM2-135M-Instruct.Q4_1.gguf";
const CONTEXT = Number(process.env.BENCH_CONTEXT || 2048);
const RUNS = Number(process.env.BENCH_RUNS || 2);
const ENGINES = (process.env.BENCH_ENGINES || "worker,native").split(",");
const nlcDir = process.env.NODE_LLAMA_CPP || path.join(os.homedir(), ".cache/skiff/node-llama-cpp");
const DECODE = 64;
const CHAT_ANSWER = 24;

for (const d of dists) {
  if (!fs.existsSync(path.join(d, "worker", "skiff_worker_bg.wasm"))) {
    console.error(`bench-model: ${d}/worker has no worker build: run scripts/build-worker.sh`);
    process.exit(1);
  }
}
if (!fs.existsSync(path.join(modelsDir, MODEL))) {
  console.error(`bench-model: ${MODEL} is missing in ${modelsDir}: run scripts/setup-models.sh`);
  process.exit(1);
}

// ---- The prompts (the same text for both engines) ----
const SHORT = "In two or three sentences, explain why lighthouses were painted with bold " +
  "stripes, and what a sailor could learn from them at dawn.";
const STORY = [
  "Ada kept the lighthouse on the northern cliff for eleven years.",
  "Every night she climbed the spiral stairs, trimmed the wick and polished the great lens.",
  "The keeper's log recorded the wind, the swell, the ships that passed and the hour the lamp was lit.",
  "In winter the storms came from the west and the spray reached the gallery rail.",
  "Her brother Tom fished from the harbour below and brought her bread, oil and news from the village.",
  "The old keeper before her had left notes about the reef, the currents and the fog that hid the strait.",
  "On clear evenings she could see the lights of three other towers along the coast.",
  "Supply boats came every second week when the sea allowed it, and sometimes not for a month.",
];
function longUser() {
  // Deterministic varied text: about 1,000 tokens with the template (SmolLM2).
  const parts = [];
  for (let i = 0; i < 11; i++) {
    parts.push(`Entry ${i + 1}. ` + STORY.map((s, j) => STORY[(i + j) % STORY.length]).slice(0, 3 + (i % 4)).join(" "));
  }
  return "Read these log entries, then summarise what the keeper's life was like.\n\n" + parts.join("\n");
}
const LONG = longUser();
const CHAT = [
  "What is a lighthouse for?",
  "Who kept them lit before electricity?",
  "What fuel did they burn?",
  "How far could the light be seen?",
  "Name one famous lighthouse.",
];
const system = (tag) => `Session ${tag}. You are a brief, helpful assistant.`;

// ---- The worker, in Chromium ----
const TYPES = { ".js": "text/javascript", ".html": "text/html", ".wasm": "application/wasm" };
const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://127.0.0.1");
  let file = null;
  // /worker0/… is the first DIST's worker, /worker1/… the second's.
  const w = /^\/worker(\d+)\//.exec(url.pathname);
  if (w && dists[+w[1]]) file = path.join(dists[+w[1]], "worker", path.basename(url.pathname));
  if (url.pathname.startsWith("/models/")) file = path.join(modelsDir, path.basename(url.pathname));
  if (!file || !fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, {
    "content-type": TYPES[path.extname(file)] || "application/octet-stream",
    "content-length": fs.statSync(file).size,
  });
  fs.createReadStream(file).pipe(res);
});

async function workerEngine(browser, base, index) {
  const page = await browser.newPage();
  page.on("console", (m) => { if (m.type() === "error") console.error("page:", m.text()); });
  page.on("pageerror", (e) => console.error("page error:", e.message));
  let model = null;
  return {
    name: dists.length > 1 ? `Skiff worker ${distLabel(index)} (wasm, 1 thread)` : "Skiff worker (wasm, 1 thread)",
    async load() {
      // A fresh page is a fresh worker: the model stays stored (OPFS), and is read again.
      await page.goto(`${base}/worker${index}/bench.html`);
      await page.waitForFunction(() => window.benchReady === true);
      model = await page.evaluate(([url, name, context]) => window.benchAdd(url, name, context),
        [`${base}/models/${MODEL}`, model ? model.id : MODEL, CONTEXT]);
      // A one-token request loads the model; its own system message keeps it out of the way.
      const r = await this.turn([{ role: "system", content: "load" }, { role: "user", content: "Hi" }], 1, true);
      return { load_ms: r.load_ms };
    },
    async turn(messages, maxTokens, ignoreEos) {
      const r = await page.evaluate(([m, msgs, n, ig]) => window.benchTurn(m, msgs, n, ig),
        [model, messages, maxTokens, ignoreEos]);
      if (r.status !== 200 || r.error || !r.timings) {
        throw new Error(`worker: ${r.status} ${r.error || "no timings"}`);
      }
      const t = r.timings;
      return {
        load_ms: r.load_ms, first_ms: r.first_ms ?? r.wall_ms, text: r.text,
        prompt_n: t.prompt_n, cache_n: t.cache_n ?? 0, prompt_tps: t.prompt_per_second,
        predicted_n: t.predicted_n, decode_tps: t.predicted_per_second,
      };
    },
    async unload() {},
    memory: () => page.evaluate(() => window.benchMemoryMb()),
  };
}

// ---- Native llama.cpp (node-llama-cpp) ----
async function nativeEngine() {
  const entry = path.join(nlcDir, "node_modules/node-llama-cpp/dist/index.js");
  if (!fs.existsSync(entry)) throw new Error(`node-llama-cpp is missing at ${entry}`);
  const { getLlama } = await import(pathToFileURL(entry).href);
  const llama = await getLlama({ gpu: false, build: "never", progressLogs: false, logLevel: "error", maxThreads: 1 });
  let model = null, context = null, seq = null;
  // SmolLM2's chat template (ChatML), rendered as its GGUF's Jinja template renders it.
  const render = (messages) => messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join("") +
    "<|im_start|>assistant\n";
  return {
    name: "native llama.cpp (node-llama-cpp, 1 thread)",
    async load() {
      const t0 = performance.now();
      model = await llama.loadModel({ modelPath: path.join(modelsDir, MODEL), gpuLayers: 0 });
      context = await model.createContext({ contextSize: CONTEXT, threads: 1, batchSize: 512 });
      seq = context.getSequence();
      return { load_ms: performance.now() - t0 };
    },
    async turn(messages, maxTokens, ignoreEos) {
      const tokens = model.tokenize(render(messages), true);
      // Prefix reuse as llama.cpp's server does it: keep the common part, read the rest.
      const cached = seq.contextTokens;
      let common = 0;
      while (common < cached.length && common < tokens.length - 1 && cached[common] === tokens[common]) common++;
      if (seq.nextTokenIndex > common) {
        await seq.eraseContextTokenRanges([{ start: common, end: seq.nextTokenIndex }]);
      }
      const t0 = performance.now();
      let first = null, n = 0;
      const out = [];
      for await (const tok of seq.evaluate(tokens.slice(common), { temperature: 0 })) {
        if (first === null) first = performance.now();
        if (!ignoreEos && model.isEogToken(tok)) break;
        out.push(tok);
        if (++n >= maxTokens) break;
      }
      const end = performance.now();
      const read = tokens.length - common;
      return {
        first_ms: first - t0, text: model.detokenize(out),
        prompt_n: read, cache_n: common, prompt_tps: read / ((first - t0) / 1000),
        predicted_n: n, decode_tps: n > 1 ? (n - 1) / ((end - first) / 1000) : 0,
      };
    },
    async unload() {
      await context.dispose();
      await model.dispose();
    },
    memory: async () => process.memoryUsage().rss / 1048576,
  };
}

async function scenarios(engine, run) {
  const { load_ms } = await engine.load();
  const r = { load_ms };
  r.short = await engine.turn([{ role: "system", content: system(`${run}s`) }, { role: "user", content: SHORT }], DECODE, true);
  r.long = await engine.turn([{ role: "system", content: system(`${run}l`) }, { role: "user", content: LONG }], DECODE, true);
  const messages = [{ role: "system", content: system(`${run}c`) }];
  r.chat = [];
  for (const q of CHAT) {
    messages.push({ role: "user", content: q });
    const t = await engine.turn(messages, CHAT_ANSWER, false);
    r.chat.push(t);
    messages.push({ role: "assistant", content: t.text });
  }
  r.memory_mb = await engine.memory();
  await engine.unload();
  return r;
}

const f = (n, d = 1) => (n === null || n === undefined || Number.isNaN(n) ? "-" : n.toFixed(d));
const s = (ms) => f(ms / 1000, 2);
function row(name, run, r) {
  const c1 = r.chat[0], c5 = r.chat[4];
  return [name, String(run), s(r.load_ms),
    `${s(r.short.first_ms)} (${r.short.prompt_n})`, f(r.short.prompt_tps), f(r.short.decode_tps),
    `${s(r.long.first_ms)} (${r.long.prompt_n})`, f(r.long.prompt_tps), f(r.long.decode_tps),
    `${s(c1.first_ms)} (${c1.prompt_n})`, `${s(c5.first_ms)} (${c5.cache_n}+${c5.prompt_n})`];
}
const HEAD = ["engine", "run", "load s", "short: 1st tok s (n)", "prompt tok/s", "decode tok/s",
  "long: 1st tok s (n)", "prompt tok/s", "decode tok/s", "chat turn 1: 1st tok s (n)",
  "turn 5: 1st tok s (reused+read)"];
function table(lines) {
  const widths = HEAD.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells) => "| " + cells.map((c, i) => c.padEnd(widths[i])).join(" | ") + " |";
  return [fmt(HEAD), "|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|", ...lines.map(fmt)].join("\n");
}
const median = (xs) => { const v = xs.filter((x) => x !== null && !Number.isNaN(x)).sort((a, b) => a - b); return v.length ? v[Math.floor((v.length - 1) / 2)] : NaN; };

await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
let code = 0;
try {
  const engines = [];
  if (ENGINES.includes("worker")) {
    for (let i = 0; i < dists.length; i++) engines.push(await workerEngine(browser, base, i));
  }
  if (ENGINES.includes("native")) engines.push(await nativeEngine());
  const results = new Map(engines.map((e) => [e.name, []]));
  const lines = [];
  for (let run = 1; run <= RUNS; run++) {
    const order = run % 2 ? engines : [...engines].reverse();
    for (const e of order) {
      const r = await scenarios(e, run);
      results.get(e.name).push(r);
      lines.push(row(e.name, run, r));
      console.error(`bench-model: run ${run} ${e.name} done`);
    }
  }
  console.log(`${MODEL}, context ${CONTEXT}, greedy, ${DECODE} tokens decoded per short/long turn, ` +
    `${CHAT_ANSWER}-token chat answers; ${RUNS} runs alternated; load average ${os.loadavg().map((x) => x.toFixed(1)).join(" ")} ` +
    `on ${os.cpus().length} cores (shared: numbers are as measured under that load)`);
  console.log(table(lines));
  console.log("\nmedians, and the worker as a share of native:");
  const med = new Map();
  for (const [name, rs] of results) {
    const m = (get) => median(rs.map(get));
    med.set(name, {
      prompt_long: m((r) => r.long.prompt_tps), decode_short: m((r) => r.short.decode_tps),
      decode_long: m((r) => r.long.decode_tps), first_long: m((r) => r.long.first_ms),
      turn1: m((r) => r.chat[0].first_ms), turn5: m((r) => r.chat[4].first_ms),
      memory: m((r) => r.memory_mb),
    });
    const x = med.get(name);
    console.log(`  ${name}: prompt ${f(x.prompt_long)} tok/s (long turn), decode ${f(x.decode_short)} / ${f(x.decode_long)} tok/s ` +
      `(short / long), first token long turn ${s(x.first_long)} s, chat turn 1 ${s(x.turn1)} s → turn 5 ${s(x.turn5)} s, memory ${f(x.memory, 0)} MB`);
  }
  const native = engines.find((e) => e.name.startsWith("native"));
  for (const e of engines) {
    if (!native || e === native) continue;
    const [a, b] = [med.get(e.name), med.get(native.name)];
    const pct = (x, y) => `${f((x / y) * 100, 0)} %`;
    console.log(`  ${e.name} / native: prompt ${pct(a.prompt_long, b.prompt_long)}, decode ${pct(a.decode_short, b.decode_short)} / ${pct(a.decode_long, b.decode_long)} (short / long)`);
  }
} catch (e) {
  console.error("bench-model:", e.stack || e.message);
  code = 1;
} finally {
  await browser.close();
  server.close();
}
process.exit(code);
