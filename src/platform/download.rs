//! Saving text or bytes as a file the user downloads (exports, MCP resources), through a Blob
//! URL: no size limit of `data:` URLs, and nothing leaves the browser.

use wasm_bindgen::JsCast;

/// Offer `text` as a download named `file_name`. The error is the browser's, as a sentence.
pub fn save_text(file_name: &str, mime: &str, text: &str) -> Result<(), String> {
    save(file_name, mime, &text.into())
}

/// Offer `bytes` as a download named `file_name`, always as `application/octet-stream`: bytes
/// a server sent and called `text/html` must never render as a page.
pub fn save_bytes(file_name: &str, bytes: &[u8]) -> Result<(), String> {
    save(
        file_name,
        "application/octet-stream",
        &js_sys::Uint8Array::from(bytes).into(),
    )
}

fn save(file_name: &str, mime: &str, part: &wasm_bindgen::JsValue) -> Result<(), String> {
    let parts = js_sys::Array::of1(part);
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options)
        .map_err(|e| format!("The browser could not make the file: {e:?}"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob)
        .map_err(|e| format!("The browser could not make the file: {e:?}"))?;
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("There is no page to download from.")?;
    let a = document
        .create_element("a")
        .map_err(|e| format!("{e:?}"))?
        .dyn_into::<web_sys::HtmlAnchorElement>()
        .map_err(|_| "The browser could not make a download link.".to_string())?;
    a.set_href(&url);
    a.set_download(file_name);
    a.click();
    // The click has started the download; the URL may go once the event loop has turned.
    let revoke = url.clone();
    leptos::task::spawn_local(async move {
        super::clock::sleep_ms(10_000).await;
        let _ = web_sys::Url::revoke_object_url(&revoke);
    });
    Ok(())
}
