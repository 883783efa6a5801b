//! The bridge to the model worker (`src/worker`, built into `worker/` beside the page): the
//! in-browser model is reached as if it were an OpenAI-compatible server.
//!
//! Why so little here: the worker (candle and the model code, about half a megabyte) and its
//! bridge (`worker/bridge.js`: requests in, a streaming `Response` out) are never part of the
//! page's first load. [`fetch`] imports the bridge on the first request to
//! [`IN_BROWSER_BASE`]; `platform::fetch` then reads the answer like the network (the same SSE
//! decoder, abort and stall handling). Settings shows the worker's own panel
//! (`worker/panel.html`) in a frame, which asks this page for the bridge
//! (`skiffModels`), so one worker owns the stored models, downloads and the loaded model
//! whichever side asks.
//!
//! It decides nothing: which model, what to answer and what to show are the worker's.
//!
//! [`IN_BROWSER_BASE`]: skiff_core::provider::IN_BROWSER_BASE

use wasm_bindgen::prelude::*;

// Defined by a two-line script in index.html rather than a wasm-bindgen snippet: a snippet is
// a file of its own with a preload link and an integrity hash, three times the bytes. A bridge
// that cannot load (offline before the worker was ever stored) rejects like a network failure,
// which the runner words as the model worker not starting.
#[wasm_bindgen]
extern "C" {
    /// A `Promise<Response>` for `path` under the in-browser base, answered by the worker.
    #[wasm_bindgen(js_name = skiffLocalFetch)]
    fn local_fetch(path: &str, body: &str, signal: Option<web_sys::AbortSignal>)
        -> js_sys::Promise;
}

/// Sends one request to the model worker; resolves like `window.fetch` does.
pub fn fetch(path: &str, body: &str, signal: Option<web_sys::AbortSignal>) -> js_sys::Promise {
    local_fetch(path, body, signal)
}
