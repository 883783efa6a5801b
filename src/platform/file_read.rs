//! Reading a file the user picked in an `<input type="file">` as text (imports).

use wasm_bindgen_futures::JsFuture;

/// The first picked file's name and text; `Ok(None)` when nothing was picked. Text that is not
/// UTF-8 is decoded with replacement characters (the browser's `Blob.text()`), so the reader
/// sees a damaged file rather than nothing.
pub async fn picked_text(
    input: &web_sys::HtmlInputElement,
) -> Result<Option<(String, String)>, String> {
    let Some(file) = input.files().and_then(|list| list.get(0)) else {
        return Ok(None);
    };
    let name = file.name();
    let text = JsFuture::from(file.text())
        .await
        .map_err(|e| format!("The browser could not read {name}: {e:?}"))?
        .as_string()
        .ok_or_else(|| format!("The browser could not read {name} as text."))?;
    Ok(Some((name, text)))
}
