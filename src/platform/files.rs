//! The browser's file and image primitives that attachments need: a file's bytes, SHA-256, an
//! image's size, drawing it smaller.
//!
//! Decides nothing (what is accepted and at what size is `skiff_core::attach`); every failure
//! is a sentence naming the file, never a panic.

use js_sys::Uint8Array;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, ImageBitmap, ImageEncodeOptions, OffscreenCanvas};

fn failed(what: &str) -> impl Fn(wasm_bindgen::JsValue) -> String + '_ {
    move |e| format!("The browser could not read {what}: {e:?}")
}

async fn buffer_bytes(promise: js_sys::Promise, what: &str) -> Result<Vec<u8>, String> {
    let buf = JsFuture::from(promise).await.map_err(failed(what))?;
    Ok(Uint8Array::new(&buf).to_vec())
}

/// A file's (or blob's) bytes.
pub async fn bytes(blob: &Blob, what: &str) -> Result<Vec<u8>, String> {
    buffer_bytes(blob.array_buffer(), what).await
}

/// SHA-256 of `bytes` as lowercase hex (the blob store's key).
pub async fn sha256_hex(bytes: &[u8], what: &str) -> Result<String, String> {
    let subtle = web_sys::window()
        .ok_or("no window")?
        .crypto()
        .map_err(failed(what))?
        .subtle();
    let promise = subtle
        .digest_with_str_and_u8_array("SHA-256", bytes)
        .map_err(failed(what))?;
    let digest = buffer_bytes(promise, what).await?;
    Ok(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// The decoded image, for its size and for [`encode`]; the caller closes it.
pub async fn bitmap(blob: &Blob, what: &str) -> Result<ImageBitmap, String> {
    let promise = web_sys::window()
        .ok_or("no window")?
        .create_image_bitmap_with_blob(blob)
        .map_err(failed(what))?;
    JsFuture::from(promise)
        .await
        .map_err(failed(what))?
        .dyn_into()
        .map_err(failed(what))
}

/// `image` drawn at `w`×`h` and encoded as `mime` (JPEG at quality 0.85).
pub async fn encode(
    image: &ImageBitmap,
    w: u32,
    h: u32,
    mime: &str,
    what: &str,
) -> Result<Vec<u8>, String> {
    let canvas = OffscreenCanvas::new(w, h).map_err(failed(what))?;
    let ctx: web_sys::OffscreenCanvasRenderingContext2d = canvas
        .get_context("2d")
        .map_err(failed(what))?
        .ok_or("no 2d canvas")?
        .dyn_into()
        .map_err(|_| "no 2d canvas")?;
    ctx.draw_image_with_image_bitmap_and_dw_and_dh(image, 0.0, 0.0, w.into(), h.into())
        .map_err(failed(what))?;
    let opts = ImageEncodeOptions::new();
    opts.set_type(mime);
    opts.set_quality(0.85);
    let blob: Blob = JsFuture::from(
        canvas
            .convert_to_blob_with_options(&opts)
            .map_err(failed(what))?,
    )
    .await
    .map_err(failed(what))?
    .unchecked_into();
    bytes(&blob, what).await
}
