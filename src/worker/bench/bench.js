// The bench page: starts the model worker directly and exposes window.bench(models), which
// adds each model from a URL, then times a load, a ~200-token prompt and 128 greedy tokens.
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
    console.log("state " + event.data.slice(0, 400));
    for (const w of stateWaiters.splice(0)) w();
  } else if (requests.has(m.id)) {
    const r = requests.get(m.id);
    if (m.op === "head") r.status = m.status;
    if (m.op === "chunk") r.body += m.text;
    if (m.op === "end") { requests.delete(m.id); r.resolve(r); }
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

let nextId = 1;
function request(path, body) {
  const id = nextId++;
  return new Promise((resolve) => {
    requests.set(id, { status: 0, body: "", resolve });
    send({ op: "fetch", id, path, body: JSON.stringify(body) });
  });
}

const PROMPT = "Here is a short story about a lighthouse keeper named Ada. " +
  "Every night she climbed the spiral stairs, trimmed the wick, and watched the ships pass " +
  "through the narrow strait below the cliffs. One stormy evening the lamp failed, and Ada had " +
  "to decide whether to row out to the reef or keep the fire burning with the last of the oil. " +
  "The wind tore at the shutters, the rain hammered the glass, and far out at sea a small " +
  "fishing boat was fighting the waves. Her brother had warned her never to leave the tower " +
  "during a storm, but the people on that boat had no other light to guide them home. " +
  "Continue the story in detail, describing what Ada did next, what she saw on the water, " +
  "how the fishermen reacted, and how the village remembered that night for years afterwards. " +
  "Write at least five long paragraphs.";

window.bench = async (models) => {
  await until((s) => Array.isArray(s.models));
  const rows = [];
  for (const { url, name } of models) {
    // A stored model leaves the job list and appears in the models; a failure stays listed.
    const before = new Set(lastState.models.map((m) => m.id));
    send({ op: "add_url", url });
    const s = await until((s) => s.jobs.some((j) => j.name === name && j.error) || s.models.some((m) => !before.has(m.id)));
    const failed = s.jobs.find((j) => j.name === name && j.error);
    if (failed) throw new Error(name + ": " + JSON.stringify(failed.error));
    const model = s.models.find((m) => !before.has(m.id));
    const t0 = performance.now();
    const r = await request("/chat/completions", {
      model: model.id, stream: true, temperature: 0, max_tokens: 128, ignore_eos: true,
      messages: [{ role: "user", content: PROMPT }],
    });
    const wall = performance.now() - t0;
    if (r.status !== 200) throw new Error(name + ": " + r.status + " " + r.body);
    const last = r.body.split("\n\n").filter((l) => l.includes("timings")).pop();
    const t = JSON.parse(last.slice(6)).timings;
    const after = await until((s) => s.loaded && s.loaded.model === model.id && !s.generating);
    rows.push({
      model: model.id, quantization: model.quantization, file_mb: model.size / 1e6,
      load_ms: after.loaded.load_ms, wall_ms: wall,
      prompt_n: t.prompt_n, prefill_tps: t.prompt_per_second,
      predicted_n: t.predicted_n, decode_tps: t.predicted_per_second,
      mem_after_load_mb: loadBytes(model.id) / 1048576, mem_peak_mb: after.loaded.bytes / 1048576,
    });
    // Drop it before the next model is added, as switching models does.
    send({ op: "delete", model: model.id });
    await until((s) => !s.models.some((m) => m.id === model.id));
  }
  return rows;
};

// The memory size reported right after load (the first state with this model loaded).
const firstLoaded = new Map();
const origHandler = worker.onmessage;
worker.onmessage = (event) => {
  origHandler(event);
  if (lastState && lastState.loaded && !firstLoaded.has(lastState.loaded.model)) {
    firstLoaded.set(lastState.loaded.model, lastState.loaded.bytes);
  }
};
function loadBytes(id) { return firstLoaded.get(id) || 0; }
window.benchReady = true;
