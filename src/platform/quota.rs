//! `navigator.storage`: ask that this site's storage be kept under pressure (`persist`), ask
//! whether it is (`persisted`), and how much is used of how much (`estimate`).
//!
//! Every function answers `None` where the browser lacks the API, so callers can say "your
//! browser does not tell" instead of guessing; none of them may panic.

use js_sys::{Promise, Reflect};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use web_sys::StorageManager;

fn manager() -> Option<StorageManager> {
    let navigator = web_sys::window()?.navigator();
    // Missing in insecure contexts and old browsers: `storage` is then undefined.
    Reflect::get(&navigator, &JsValue::from_str("storage"))
        .ok()
        .filter(|v| !v.is_undefined())?;
    Some(navigator.storage())
}

async fn answer(promise: Result<Promise, JsValue>) -> Option<JsValue> {
    JsFuture::from(promise.ok()?).await.ok()
}

/// Ask the browser to keep this site's data even when space runs low. Whether it was granted.
pub async fn persist() -> Option<bool> {
    answer(manager()?.persist()).await?.as_bool()
}

/// Whether this site's data is kept even when space runs low.
pub async fn persisted() -> Option<bool> {
    answer(manager()?.persisted()).await?.as_bool()
}

/// Bytes this origin uses, and the most it may use (both the browser's estimate).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub usage: f64,
    pub quota: f64,
}

pub async fn estimate() -> Option<Estimate> {
    let v = answer(manager()?.estimate()).await?;
    let field = |name: &str| {
        Reflect::get(&v, &JsValue::from_str(name))
            .ok()
            .and_then(|x| x.as_f64())
    };
    Some(Estimate {
        usage: field("usage")?,
        quota: field("quota")?,
    })
}
