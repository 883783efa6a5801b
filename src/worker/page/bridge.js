// The page's side of the model worker, loaded on demand (src/platform/local_model.rs imports
// it on the first request to the in-browser model, or when Settings opens the model panel).
// The in-browser model is reached as if it were an OpenAI-compatible server: each request
// becomes a real Response whose body streams the worker's `chunk` messages, so the page reads
// it exactly like the network. One worker per page; the panel frame uses the same one.
let worker = null;
let next = 0;
const open = new Map();

export function start() {
  if (worker) return worker;
  worker = new Worker(new URL('model-worker.js', import.meta.url), { type: 'module' });
  worker.addEventListener('message', (e) => {
    const m = e.data;
    const r = open.get(m.id);
    if (!r) return;
    if (m.op === 'head') {
      r.ok(new Response(r.body, { status: m.status, headers: { 'content-type': m.type } }));
    } else if (m.op === 'chunk') {
      r.controller.enqueue(new TextEncoder().encode(m.text));
    } else if (m.op === 'end') {
      open.delete(m.id);
      r.controller.close();
    }
  });
  // A worker that cannot start (a broken build, storage refused) fails every open request as
  // the network would, with the browser's reason; the next request tries a new worker.
  worker.addEventListener('error', (e) => {
    e.preventDefault();
    const err = new TypeError(`the model worker could not start${e.message ? `: ${e.message}` : ''}`);
    for (const r of open.values()) r.fail(err);
    open.clear();
    worker = null;
  });
  return worker;
}

// Ends the worker and starts none (the next request or panel starts a fresh one): the panel's
// Cancel for a model being loaded, since a load is synchronous and the worker reads no
// message until it ends. Answers waiting on it end as stopped ones do; files being added
// end too, and the new worker deletes their `.part` files as it starts.
export function restart() {
  if (!worker) return;
  worker.terminate();
  worker = null;
  const stopped = new DOMException('The model load was cancelled.', 'AbortError');
  for (const r of open.values()) r.fail(stopped);
  open.clear();
}

const post = (m) => start().postMessage(m);

export function fetch(path, body, signal) {
  return new Promise((ok, no) => {
    const id = ++next;
    const r = { ok };
    r.body = new ReadableStream({
      start(controller) {
        r.controller = controller;
      },
      // The reader let go (the answer was stopped or dropped): the worker stops generating.
      cancel() {
        open.delete(id);
        post({ op: 'abort', id });
      },
    });
    r.fail = (e) => {
      no(e);
      try {
        r.controller.error(e);
      } catch {
        // Already closed.
      }
    };
    open.set(id, r);
    signal?.addEventListener('abort', () => {
      if (!open.delete(id)) return;
      post({ op: 'abort', id });
      r.fail(new DOMException('The request was stopped.', 'AbortError'));
    });
    post({ op: 'fetch', id, path, body });
  });
}
