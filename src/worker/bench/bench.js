// The bench page scripts/bench-model.mjs drives: starts the model worker directly (no app)
// and exposes
//   window.benchAdd(url, name, context)  stores a model from a URL unless it is stored, sets
//                                         its context; returns its record
//   window.benchTurn(model, messages, max_tokens, ignore_eos)
//                                         one streamed chat request, timed from this page:
//                                         load (from the load_progress chunks), first token,
//                                         the worker's timings, prompt_progress chunks seen
// A page reload starts a fresh worker (the model stays stored), so each run measures a load.
// Messages both ways are the JSON text of skiff_core::model_panel::wire (ToWorker/FromWorker).
const worker = new Worker(new URL("./model-worker.js", import.meta.url), { type: "module" });
const send = (m) => worker.postMessage(JSON.stringify(m));
let lastState = null;
const stateWaiters = [];
const requests = new Map();

worker.onmessage = (event) => {
  const m = JSON.parse(event.data);
  if (m.op === "state") {
    lastState = m;
    for (const w of stateWaiters.splice(0)) w();
  } else if (requests.has(m.id)) {
    const r = requests.get(m.id);
    if (m.op === "head") r.status = m.status;
    if (m.op === "chunk") r.chunk(m.text, performance.now());
    if (m.op === "end") { requests.delete(m.id); r.resolve(r.result()); }
  }
};
worker.onerror = (e) => console.error("worker error", e.message);

async function until(pred, timeoutMs = 600000) {
  const end = Date.now() + timeoutMs;
  while (!(lastState && pred(lastState))) {
    if (Date.now() > end) throw new Error("timed out; last state " + JSON.stringify(lastState));
    await new Promise((r) => { stateWaiters.push(r); setTimeout(r, 500); });
  }
  return lastState;
}

window.benchAdd = async (url, name, context) => {
  await until((s) => Array.isArray(s.models));
  let model = lastState.models.find((m) => m.name === name || m.id === name.replace(/\.gguf$/, ""));
  if (!model) {
    const before = new Set(lastState.models.map((m) => m.id));
    send({ op: "add_url", url });
    const s = await until((s) => s.jobs.some((j) => j.name === name && j.error) || s.models.some((m) => !before.has(m.id)));
    const failed = s.jobs.find((j) => j.name === name && j.error);
    if (failed) throw new Error(name + ": " + JSON.stringify(failed.error));
    model = s.models.find((m) => !before.has(m.id));
  }
  if (model.context !== context) {
    send({ op: "set_context", model: model.id, context });
    model = (await until((s) => s.models.some((m) => m.id === model.id && m.context === context)))
      .models.find((m) => m.id === model.id);
  }
  return model;
};

let nextId = 1;
window.benchTurn = (model, messages, maxTokens, ignoreEos) => {
  const id = nextId++;
  const t0 = performance.now();
  let buffer = "", text = "", firstMs = null, loadMs = null, timings = null, error = null;
  let progressChunks = 0;
  return new Promise((resolve) => {
    requests.set(id, {
      status: 0,
      chunk(chunk, now) {
        buffer += chunk;
        let at;
        while ((at = buffer.indexOf("\n\n")) >= 0) {
          const line = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
          const ev = JSON.parse(line.slice(6));
          if (ev.error) error = ev.error.message || JSON.stringify(ev.error);
          if (ev.load_progress && ev.load_progress.loaded === ev.load_progress.total) loadMs = now - t0;
          if (ev.prompt_progress) progressChunks++;
          if (ev.timings) timings = ev.timings;
          const content = ev.choices && ev.choices[0] && ev.choices[0].delta.content;
          if (content) {
            if (firstMs === null) firstMs = now - t0;
            text += content;
          }
        }
      },
      result() {
        return { status: this.status, error, text, wall_ms: performance.now() - t0, first_ms: firstMs,
          load_ms: loadMs, timings, progress_chunks: progressChunks };
      },
      resolve,
    });
    send({
      op: "fetch", id, path: "/chat/completions",
      body: JSON.stringify({ model: model.id, stream: true, temperature: 0, repeat_penalty: 1,
        max_tokens: maxTokens, ignore_eos: ignoreEos, messages }),
    });
  });
};

window.benchMemoryMb = () => (lastState && lastState.loaded ? lastState.loaded.bytes / 1048576 : 0);
window.benchReady = true;
