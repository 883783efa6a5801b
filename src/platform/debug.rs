//! Numbers the page publishes on `window` for its own end-to-end tests to read (for example
//! how many message handles are alive, which proves that removed messages are disposed).
//!
//! Publishing is a property write; nothing reads these values inside the app, and they carry
//! no user data.

use wasm_bindgen::JsValue;

/// Set `window[name] = value`. Best effort: a page without a window has no tests to read it.
pub fn publish(name: &str, value: f64) {
    if let Some(w) = web_sys::window() {
        let _ = js_sys::Reflect::set(&w, &JsValue::from_str(name), &JsValue::from_f64(value));
    }
}
