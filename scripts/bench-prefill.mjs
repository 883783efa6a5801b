#!/usr/bin/env node
// Times the worker's model code alone in Chromium (V8, the page worker's engine), for kernel
// work: src/worker/examples/prefill_bench.rs built for wasm32-wasip1 runs in a page under a
// minimal WASI (one preopened "/", every opened file reads the model's bytes), several builds
// alternated in one browser, medians printed. A loop of a minute where a worker build and
// bench-model take a quarter of an hour; confirm with scripts/bench-model.mjs.
//
//   RUSTFLAGS='-C target-feature=+simd128[,+relaxed-simd]' cargo build --profile worker \
//     --target wasm32-wasip1 -p skiff-worker --example prefill_bench   (copy each build's
//     target/wasm32-wasip1/worker/examples/prefill_bench.wasm aside to compare)
//   node scripts/bench-prefill.mjs RUNS PROMPT_TOKENS DECODE_TOKENS A.wasm [B.wasm...]
// Env: BENCH_MODEL (a GGUF path, default ~/.cache/skiff/models/SmolLM2-135M-Instruct.Q4_1.gguf),
// PROFILE=1 (one run of the first build with Chromium's sampling profiler: self time by function).
// Node's own WASI is no substitute: Node 20 and 22 crash in their optimizing tier on this module.
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { chromium } = createRequire(path.join(root, "package.json"))("playwright-core");
const [runs, prompt, decode, ...wasms] = process.argv.slice(2);
if (!wasms.length) {
  console.error("usage: node scripts/bench-prefill.mjs RUNS PROMPT_TOKENS DECODE_TOKENS A.wasm [B.wasm...]");
  process.exit(2);
}
const model = process.env.BENCH_MODEL || path.join(os.homedir(), ".cache/skiff/models/SmolLM2-135M-Instruct.Q4_1.gguf");

// The page's WASI: just what Rust's std needs for args, clocks, stdout and reading one file.
const SHIM = String.raw`
window.runWasi = (module, args, fileBytes, log) => {
  let mem; const fdPos = new Map();
  const u8 = () => new Uint8Array(mem.buffer), dv = () => new DataView(mem.buffer);
  const enc = new TextEncoder(), dec = new TextDecoder();
  let out = "";
  const w = {
    args_sizes_get(c, s) { dv().setUint32(c, args.length, true); dv().setUint32(s, args.reduce((a, x) => a + enc.encode(x).length + 1, 0), true); return 0; },
    args_get(argv, buf) { let p = buf; args.forEach((a, i) => { dv().setUint32(argv + 4 * i, p, true); const b = enc.encode(a); u8().set(b, p); u8()[p + b.length] = 0; p += b.length + 1; }); return 0; },
    environ_sizes_get(c, s) { dv().setUint32(c, 0, true); dv().setUint32(s, 0, true); return 0; },
    environ_get() { return 0; },
    random_get(p, n) { crypto.getRandomValues(u8().subarray(p, p + n)); return 0; },
    clock_time_get(id, prec, out) { dv().setBigUint64(out, BigInt(Math.round(performance.now() * 1e6)), true); return 0; },
    fd_close(fd) { fdPos.delete(fd); return 0; },
    fd_fdstat_get(fd, b) { u8().fill(0, b, b + 24); u8()[b] = fd === 3 ? 3 : fd >= 4 ? 4 : 2; dv().setBigUint64(b + 8, 0xffffffffn, true); dv().setBigUint64(b + 16, 0xffffffffn, true); return 0; },
    fd_prestat_get(fd, b) { if (fd !== 3) return 8; dv().setUint32(b, 0, true); dv().setUint32(b + 4, 1, true); return 0; },
    fd_prestat_dir_name(fd, p, n) { u8()[p] = 47; return 0; },
    path_open(dirfd, df, p, n, of, rb, ri, ff, outp) { const fd = 4 + fdPos.size; fdPos.set(fd, 0); dv().setUint32(outp, fd, true); return 0; },
    fd_seek(fd, off, whence, outp) { let pos = fdPos.get(fd); if (pos === undefined) return 8; const o = Number(off); pos = whence === 0 ? o : whence === 1 ? pos + o : fileBytes.length + o; fdPos.set(fd, pos); dv().setBigUint64(outp, BigInt(pos), true); return 0; },
    fd_read(fd, iovs, n, outp) { let pos = fdPos.get(fd); if (pos === undefined) return 8; let total = 0; for (let i = 0; i < n; i++) { const p = dv().getUint32(iovs + 8 * i, true), l = dv().getUint32(iovs + 8 * i + 4, true); const k = Math.max(0, Math.min(l, fileBytes.length - pos)); u8().set(fileBytes.subarray(pos, pos + k), p); pos += k; total += k; if (k < l) break; } fdPos.set(fd, pos); dv().setUint32(outp, total, true); return 0; },
    fd_write(fd, iovs, n, outp) { let total = 0; for (let i = 0; i < n; i++) { const p = dv().getUint32(iovs + 8 * i, true), l = dv().getUint32(iovs + 8 * i + 4, true); out += dec.decode(u8().slice(p, p + l)); total += l; } let at; while ((at = out.indexOf("\n")) >= 0) { log(out.slice(0, at)); out = out.slice(at + 1); } dv().setUint32(outp, total, true); return 0; },
    proc_exit(c) { throw new Error("exit " + c); },
    sched_yield() { return 0; },
  };
  const inst = new WebAssembly.Instance(module, { wasi_snapshot_preview1: w });
  mem = inst.exports.memory;
  try { inst.exports._start(); } catch (e) { if (!String(e.message).startsWith("exit 0")) throw e; }
};`;

const files = { "/m.gguf": model };
wasms.forEach((w, i) => { files[`/b${i}.wasm`] = w; });
const server = http.createServer((req, res) => {
  if (req.url === "/") { res.writeHead(200, { "content-type": "text/html" }); return res.end("<!doctype html><title>bench-prefill</title>"); }
  const f = files[req.url];
  if (!f) { res.writeHead(404); return res.end(); }
  res.writeHead(200, { "content-type": req.url.endsWith(".wasm") ? "application/wasm" : "application/octet-stream" });
  fs.createReadStream(f).pipe(res);
}).listen(0, "127.0.0.1");
await new Promise((r) => server.once("listening", r));
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.addScriptTag({ content: SHIM });
  await page.evaluate(async (n) => {
    window.mods = [];
    for (let i = 0; i < n; i++) window.mods.push(await WebAssembly.compileStreaming(fetch(`/b${i}.wasm`)));
    window.bytes = new Uint8Array(await (await fetch("/m.gguf")).arrayBuffer());
  }, wasms.length);
  const run = (i) => page.evaluate(([i, args]) => {
    const out = [];
    window.runWasi(window.mods[i], ["bench", "/m.gguf", ...args], window.bytes, (l) => out.push(l));
    return out;
  }, [i, [prompt, decode]]);
  if (process.env.PROFILE) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 1000 });
    await cdp.send("Profiler.start");
    console.log((await run(0)).join("\n"));
    const { profile } = await cdp.send("Profiler.stop");
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const self = new Map();
    let total = 0;
    profile.samples.forEach((id, k) => {
      const name = byId.get(id).callFrame.functionName || "(program)";
      const dt = profile.timeDeltas[k] || 0;
      self.set(name, (self.get(name) || 0) + dt);
      total += dt;
    });
    for (const [name, t] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
      console.log(`${(100 * t / total).toFixed(1).padStart(5)} %  ${(t / 1e6).toFixed(2).padStart(6)} s  ${name.slice(0, 140)}`);
    }
  } else {
    const res = wasms.map(() => ({ prompt: [], decode: [], last: new Set() }));
    for (let r = 0; r < Number(runs); r++) {
      const order = wasms.map((_, i) => i);
      if (r % 2) order.reverse();
      for (const i of order) {
        const lines = await run(i);
        const p = lines.find((l) => l.startsWith("prompt"));
        const d = lines.find((l) => l.startsWith("decode"));
        res[i].prompt.push(Number(/([\d.]+) tok\/s/.exec(p)[1]));
        res[i].decode.push(Number(/([\d.]+) tok\/s/.exec(d)[1]));
        res[i].last.add(/last token (\d+)/.exec(d)[1]);
        console.error(`run ${r + 1} ${path.basename(wasms[i])}: ${p} | ${d}`);
      }
    }
    const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
    wasms.forEach((w, i) => console.log(`${w}: prompt ${median(res[i].prompt)} tok/s, decode ${median(res[i].decode)} tok/s (median of ${runs}), last token ${[...res[i].last].join("/")}`));
  }
} finally {
  await browser.close();
  server.close();
}
