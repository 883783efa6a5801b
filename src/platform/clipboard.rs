//! Writing text to the clipboard (the Copy buttons on messages and code blocks).
//!
//! The async Clipboard API needs a secure context and a user gesture; where it is missing or
//! refused, the caller gets the browser's sentence and says "Copy failed" rather than
//! pretending it worked.

use wasm_bindgen_futures::JsFuture;

/// Put `text` on the clipboard.
pub async fn write_text(text: &str) -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    let navigator = window.navigator();
    let present = js_sys::Reflect::has(&navigator, &wasm_bindgen::JsValue::from_str("clipboard"))
        .unwrap_or(false);
    if !present {
        return Err("this page cannot use the clipboard (it needs https or localhost)".into());
    }
    JsFuture::from(navigator.clipboard().write_text(text))
        .await
        .map(|_| ())
        .map_err(|e| super::js_error_text(&e))
}
