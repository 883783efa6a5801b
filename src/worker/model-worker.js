// Skiff's model worker, started by the page as `new Worker(url, {type: "module"})`.
// Messages that arrive while the wasm is still compiling are kept and replayed, so the
// page may post as soon as it creates the worker.
import init, { start } from "./skiff_worker.js";

const early = [];
self.onmessage = (event) => early.push(event.data);
await init({ module_or_path: new URL(engineFile(), import.meta.url) });
start(); // replaces self.onmessage
for (const data of early) self.dispatchEvent(new MessageEvent("message", { data }));

// scripts/build-worker.sh builds the engine twice from the same code: with relaxed SIMD
// (its 4-bit dot product reads prompts and decodes faster) and with plain simd128 for browsers
// that do not validate relaxed SIMD. Both share skiff_worker.js (the build checks that the two
// glue files are the same). The probe is a module whose one function returns
// i32x4.relaxed_dot_i8x16_i7x16_add_s of three constants.
function engineFile() {
  const v = (b) => [0xfd, 0x0c, ...new Array(16).fill(b)];
  const body = [0x00, ...v(1), ...v(2), ...v(3), 0xfd, 0x93, 0x02, 0x0b];
  const probe = new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // magic, version
    0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, // types: () -> v128
    0x03, 0x02, 0x01, 0x00, // one function of type 0
    0x0a, body.length + 2, 0x01, body.length, ...body, // its code
  ]);
  return WebAssembly.validate(probe) ? "./skiff_worker_relaxed_bg.wasm" : "./skiff_worker_bg.wasm";
}
