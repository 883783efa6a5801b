//! The URL fragment, which holds the open conversation's id so a reload (or a bookmark)
//! returns to it. `replaceState` rather than assigning `location.hash`, so switching
//! conversations does not flood the back button's history.

/// The fragment without its `#`, if any.
pub fn hash() -> Option<String> {
    let hash = web_sys::window()?.location().hash().ok()?;
    let trimmed = hash.trim_start_matches('#');
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

/// Set (or clear, with `None`) the fragment without adding a history entry.
pub fn replace_hash(value: Option<&str>) {
    let Some(window) = web_sys::window() else {
        return;
    };
    // Already so (the page's start, every reload): `replaceState` is not free (it goes to
    // the browser process), and the start of the page is where it was paid.
    let location = window.location();
    let now = location.hash().unwrap_or_default();
    let dangling = location.href().is_ok_and(|h| h.ends_with('#'));
    let same = match value {
        Some(v) => now.strip_prefix('#') == Some(v),
        None => now.is_empty() && !dangling,
    };
    if same {
        return;
    }
    let Ok(history) = window.history() else {
        return;
    };
    let url = match value {
        Some(v) => format!("#{v}"),
        // An empty fragment would leave a dangling `#`; the path and query clear it (the
        // query is kept: it is not ours to drop).
        None => {
            let path = location.pathname().unwrap_or_else(|_| "/".into());
            format!("{path}{}", location.search().unwrap_or_default())
        }
    };
    let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
}

/// Open `url` in a new tab, without giving that page a handle on this one (`noopener`) or
/// telling it where the user came from (`noreferrer`). Only call it from a user's click: it
/// must never open anything on a server's say-so alone. With `noopener` the browser returns
/// no handle even when the tab opened, so whether a pop-up blocker stopped it cannot be known
/// here; false only when there is no window or the browser threw.
pub fn open_in_new_tab(url: &str) -> bool {
    web_sys::window().is_some_and(|w| {
        w.open_with_url_and_target_and_features(url, "_blank", "noopener,noreferrer")
            .is_ok()
    })
}
