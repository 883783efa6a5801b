//! Small helpers over the worker's JS surface: reading fields, posting messages,
//! clocks, the wasm memory size, and a zero-delay yield to the event loop.

use js_sys::{Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{DedicatedWorkerGlobalScope, MessageChannel};

pub(crate) fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

pub(crate) fn field(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

pub(crate) fn field_str(obj: &JsValue, key: &str) -> Option<String> {
    field(obj, key).as_string()
}

/// Posts a message's JSON text to the page.
pub(crate) fn post_text(text: &str) {
    // A failed postMessage (the page is gone) has nobody left to tell.
    let _ = scope().post_message(&JsValue::from_str(text));
}

/// Epoch milliseconds (for times the page shows).
pub(crate) fn now_epoch_ms() -> f64 {
    js_sys::Date::now()
}

/// A monotonic clock in ms with sub-ms precision (for durations).
pub(crate) fn now_ms() -> f64 {
    match scope().performance() {
        Some(p) => p.now(),
        None => js_sys::Date::now(),
    }
}

/// The wasm linear memory size in bytes (it only grows).
pub(crate) fn wasm_memory_bytes() -> u64 {
    wasm_bindgen::memory()
        .dyn_into::<js_sys::WebAssembly::Memory>()
        .map(|m| {
            m.buffer()
                .unchecked_into::<js_sys::ArrayBuffer>()
                .byte_length() as u64
        })
        .unwrap_or(0)
}

/// Lets the event loop run (so `abort` messages are handled) and comes back at once: a
/// message posted to our own MessageChannel is a task with no delay, unlike setTimeout,
/// which browsers clamp to 4 ms after a few nestings.
/// Resolves after `ms` milliseconds (a timer, so other messages run meanwhile).
pub(crate) async fn sleep_ms(ms: i32) {
    let promise = Promise::new(&mut |resolve, _reject| {
        let _ = scope().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
    });
    let _ = JsFuture::from(promise).await;
}

pub(crate) async fn yield_now() {
    let Ok(channel) = MessageChannel::new() else {
        return;
    };
    let port2 = channel.port2();
    let promise = Promise::new(&mut |resolve, _reject| {
        port2.set_onmessage(Some(resolve.unchecked_ref()));
    });
    let _ = channel.port1().post_message(&JsValue::NULL);
    let _ = JsFuture::from(promise).await;
    port2.set_onmessage(None);
}

/// A JS error's message, for sentences.
pub(crate) fn error_text(e: &JsValue) -> String {
    if let Some(s) = e.as_string() {
        return s;
    }
    field_str(e, "message").unwrap_or_else(|| format!("{e:?}"))
}

/// The DOMException / Error name ("QuotaExceededError", "AbortError", "TypeError").
pub(crate) fn error_name(e: &JsValue) -> String {
    field_str(e, "name").unwrap_or_default()
}
