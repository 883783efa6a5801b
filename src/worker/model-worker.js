// Skiff's model worker, started by the page as `new Worker(url, {type: "module"})`.
// Messages that arrive while the wasm is still compiling are kept and replayed, so the
// page may post as soon as it creates the worker.
import init, { start } from "./skiff_worker.js";

const early = [];
self.onmessage = (event) => early.push(event.data);
await init({ module_or_path: new URL("./skiff_worker_bg.wasm", import.meta.url) });
start(); // replaces self.onmessage
for (const data of early) self.dispatchEvent(new MessageEvent("message", { data }));
