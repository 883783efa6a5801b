//! The bridge to the on-demand MCP module (`extras/`, built from `src/extras`), which now
//! holds only the OAuth sign-in: imported when a server card's Account is opened, when a
//! request meets a 401, or at start while credentials are stored. `skiffExtras` is a short
//! script in index.html; the module's contract is `src/extras/README.md`.
//!
//! It decides nothing: which op to open and what an answer says are the callers'.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `import("extras/extras.js").then(m => m.run(op, arg))`: a Promise.
    #[wasm_bindgen(js_name = skiffExtras, catch)]
    fn extras(op: &str, arg: &str) -> Result<js_sys::Promise, JsValue>;
}

// OAuth: the Account dialog.

/// Open one of the module's surfaces; the Promise rejects with the reason it could not load.
pub fn open(op: &str, arg: &str) -> Result<js_sys::Promise, JsValue> {
    extras(op, arg)
}

// OAuth: the fetch path's questions (`runner::mcp::auth`).

/// Import the module if needed and run `op`; its answer as a string ("" for none).
pub async fn call(op: &str, arg: &str) -> Result<String, String> {
    let p = extras(op, arg).map_err(|e| format!("{e:?}"))?;
    let v = wasm_bindgen_futures::JsFuture::from(p)
        .await
        .map_err(|e| format!("{e:?}"))?;
    Ok(v.as_string().unwrap_or_default())
}
