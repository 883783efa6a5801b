//! The bridge to the on-demand MCP module (`extras/`, built from `src/extras`): the resource
//! browser, prompts, sampling and roots are imported only when used, because the page's first
//! load has no room for them. `skiffExtras` is a two-line script in index.html (a
//! wasm-bindgen snippet would cost a file, a preload link and a hash); the module's contract
//! is `src/extras/README.md`.
//!
//! It decides nothing: which op to open and what an event says are the callers'.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `import("extras/extras.js").then(m => m.run(op, arg))`: a Promise.
    #[wasm_bindgen(js_name = skiffExtras, catch)]
    fn extras(op: &str, arg: &str) -> Result<js_sys::Promise, JsValue>;
}

/// Open one of the module's surfaces; the Promise rejects with the reason it could not load.
pub fn open(op: &str, arg: &str) -> Result<js_sys::Promise, JsValue> {
    extras(op, arg)
}

/// Whether the module is loaded (it sets `skiffExtrasOn`): events only matter to it then.
pub fn loaded() -> bool {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("skiffExtrasOn"))
        .is_ok_and(|v| v.is_truthy())
}

/// Hand the module an event (README.md), if it is loaded: an event for a module nobody
/// opened is dropped.
pub fn event(json: &serde_json::Value) {
    if loaded() {
        let _ = extras("event", &json.to_string());
    }
}

/// Import the module if needed and run `op`; its answer as a string ("" for none).
pub async fn call(op: &str, arg: &str) -> Result<String, String> {
    let p = extras(op, arg).map_err(|e| format!("{e:?}"))?;
    let v = wasm_bindgen_futures::JsFuture::from(p)
        .await
        .map_err(|e| format!("{e:?}"))?;
    Ok(v.as_string().unwrap_or_default())
}

/// Import the module if needed and hand it `json` (a server waiting for the user); resolves
/// once the module took it, or fails with the reason it could not load.
pub async fn wake(json: &serde_json::Value) -> Result<(), String> {
    let p = extras("event", &json.to_string()).map_err(|e| format!("{e:?}"))?;
    wasm_bindgen_futures::JsFuture::from(p)
        .await
        .map(|_| ())
        .map_err(|e| {
            e.dyn_ref::<js_sys::Error>()
                .map(|e| String::from(e.message()))
                .unwrap_or_else(|| format!("{e:?}"))
        })
}
