#!/usr/bin/env node
// Benchmarks the in-page model worker in headless Chromium: adds each test model from a
// loopback URL (add_url, so OPFS storage is exercised), then prints load time, prefill and
// decode tokens per second (a ~200-token prompt, 128 greedy tokens) and wasm memory.
//
//   node scripts/bench-model.mjs [DIST]     DIST defaults to $SKIFF_DIST or dist; it must
//                                           hold worker/ from scripts/build-worker.sh
// Models come from ${SKIFF_MODELS:-~/.cache/skiff/models} (scripts/setup-models.sh).
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(path.join(root, "package.json"));
const { chromium } = require("playwright-core");

const dist = path.resolve(process.argv[2] || process.env.SKIFF_DIST || path.join(root, "dist"));
const workerDir = path.join(dist, "worker");
const modelsDir = process.env.SKIFF_MODELS || path.join(os.homedir(), ".cache/skiff/models");
const MODELS = ["SmolLM2-135M-Instruct.Q4_1.gguf", "gemma-3-270m-q4_k_m.gguf"];

if (!fs.existsSync(path.join(workerDir, "skiff_worker_bg.wasm"))) {
  console.error(`bench-model: ${workerDir} has no worker build: run scripts/build-worker.sh`);
  process.exit(1);
}
for (const m of MODELS) {
  if (!fs.existsSync(path.join(modelsDir, m))) {
    console.error(`bench-model: ${m} is missing in ${modelsDir}: run scripts/setup-models.sh`);
    process.exit(1);
  }
}

const TYPES = { ".js": "text/javascript", ".html": "text/html", ".wasm": "application/wasm" };
const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://127.0.0.1");
  let file = null;
  if (url.pathname.startsWith("/worker/")) file = path.join(workerDir, path.basename(url.pathname));
  if (url.pathname.startsWith("/models/")) file = path.join(modelsDir, path.basename(url.pathname));
  if (!file || !fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
  const size = fs.statSync(file).size;
  res.writeHead(200, {
    "content-type": TYPES[path.extname(file)] || "application/octet-stream",
    "content-length": size,
  });
  fs.createReadStream(file).pipe(res);
});
await new Promise((r) => server.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${server.address().port}`;

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
let code = 0;
try {
  const page = await browser.newPage();
  page.on("console", (m) => {
    if (m.type() === "error" || process.env.BENCH_VERBOSE) console.error("page:", m.text());
  });
  page.on("pageerror", (e) => console.error("page error:", e.message));
  await page.goto(`${base}/worker/bench.html`);
  await page.waitForFunction(() => window.benchReady === true);
  const rows = await page.evaluate(
    (models) => window.bench(models),
    MODELS.map((name) => ({ url: `${base}/models/${name}`, name })),
  );
  const f = (n, d = 1) => n.toFixed(d);
  const head = ["model", "quant", "file MB", "load ms", "prefill tok/s (n)", "decode tok/s (n)", "wasm MB after load", "wasm MB peak"];
  const lines = rows.map((r) => [r.model, r.quantization, f(r.file_mb), f(r.load_ms, 0),
    `${f(r.prefill_tps)} (${r.prompt_n})`, `${f(r.decode_tps)} (${r.predicted_n})`,
    f(r.mem_after_load_mb), f(r.mem_peak_mb)]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells) => "| " + cells.map((c, i) => c.padEnd(widths[i])).join(" | ") + " |";
  console.log(fmt(head));
  console.log("|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|");
  for (const l of lines) console.log(fmt(l));
} catch (e) {
  console.error("bench-model:", e.message);
  code = 1;
} finally {
  await browser.close();
  server.close();
}
process.exit(code);
