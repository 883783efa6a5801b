//! Thin adapters over the browser APIs Skiff needs: streaming `fetch`, abort signals,
//! `localStorage`, IndexedDB, storage quota, clocks/frames and id generation.
//!
//! This module exists so everything else can stay ignorant of `web_sys`/`js_sys`: the
//! sans-IO logic in `skiff-core` builds values (an `HttpRequest`, a JSON string) and these
//! adapters perform them. It must never contain protocol or product logic — no parsing of
//! provider payloads, no SSE decoding, no retry policy, no JSON schemas. If a function here
//! starts making decisions about *what* the bytes mean, it belongs in `skiff-core`.

pub mod abort;
pub mod broadcast;
pub mod clipboard;
pub mod clock;
pub mod debug;
pub mod download;
pub mod fetch;
pub mod file_read;
pub mod files;
pub mod focus;
pub mod idb;
pub mod idb_values;
pub mod ids;
pub mod local_model;
pub mod location;
pub mod online;
pub mod popup;
pub mod quota;
pub mod service_worker;
pub mod split;
pub mod storage;
pub mod webcrypto;
pub mod websocket;

pub use abort::AbortHandle;
pub use fetch::{send, FetchError, StreamingResponse};
pub use storage::{StorageChange, StorageError, StorageListener};

use wasm_bindgen::{JsCast, JsValue};

/// The `name` of a thrown JS value (`"AbortError"`, `"TypeError"`, `"QuotaExceededError"`),
/// read through `Reflect` so DOMException, its subclasses and plain `Error`s all work.
pub(crate) fn js_error_name(err: &JsValue) -> Option<String> {
    js_sys::Reflect::get(err, &JsValue::from_str("name"))
        .ok()
        .and_then(|v| v.as_string())
}

/// A one-line description of a thrown JS value, for inclusion in user-facing messages.
/// Browsers throw strings, `Error`s and DOMExceptions; none of them may make us panic.
pub(crate) fn js_error_text(err: &JsValue) -> String {
    if let Some(s) = err.as_string() {
        return s;
    }
    let message = js_sys::Reflect::get(err, &JsValue::from_str("message"))
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_default();
    match (js_error_name(err), message.is_empty()) {
        (Some(name), false) => format!("{name}: {message}"),
        (Some(name), true) => name,
        (None, false) => message,
        (None, true) => err
            .dyn_ref::<js_sys::Object>()
            .map(|o| String::from(o.to_string()))
            .unwrap_or_else(|| format!("{err:?}")),
    }
}
