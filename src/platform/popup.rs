//! A sign-in window (the authorization server's page in a popup), the full-page way when popups
//! are blocked, this tab's `sessionStorage`, and the page's own address: the browser pieces the
//! OAuth sign-in needs besides fetch and WebCrypto.
//!
//! It decides nothing: when to open, what to keep in the session and what a closed window
//! means are `runner::oauth`'s (and core's). A window is only ever opened from the user's click
//! (`open` in the click handler itself, or `navigate` a window opened that way).

use web_sys::Window;

/// A window this page opened. Reading whether it is closed and sending it elsewhere work even
/// once it shows another origin.
#[derive(Clone)]
pub struct Popup(Window);

impl Popup {
    /// Open `url` (`""`: a blank window, to be sent on later) in a window named `name`. `None`
    /// when a popup blocker refused it.
    pub fn open(url: &str, name: &str, features: &str) -> Option<Popup> {
        web_sys::window()?
            .open_with_url_and_target_and_features(url, name, features)
            .ok()
            .flatten()
            .map(Popup)
    }

    pub fn is_closed(&self) -> bool {
        self.0.closed().unwrap_or(true)
    }

    /// Show `url` in it, replacing what it shows (no history entry).
    pub fn navigate(&self, url: &str) -> bool {
        self.0.location().replace(url).is_ok()
    }

    pub fn close(&self) {
        if !self.is_closed() {
            let _ = self.0.close();
        }
    }
}

/// Leave this page for `url` in this tab (the popup was blocked).
pub fn leave_for(url: &str) -> bool {
    web_sys::window().is_some_and(|w| w.location().assign(url).is_ok())
}

/// The page's base address (`document.baseURI`), which the redirect URI is made from.
pub fn page_base() -> String {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.base_uri().ok().flatten())
        .unwrap_or_default()
}

/// The `content` of `<meta name="…">` in the page, if the build wrote one.
pub fn meta(name: &str) -> Option<String> {
    let doc = web_sys::window()?.document()?;
    let el = doc
        .query_selector(&format!("meta[name=\"{name}\"]"))
        .ok()
        .flatten()?;
    el.get_attribute("content").filter(|c| !c.is_empty())
}

fn session() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok().flatten()
}

/// This tab's `sessionStorage` value under `key` (none when it is unavailable).
pub fn session_get(key: &str) -> Option<String> {
    session()?.get_item(key).ok().flatten()
}

/// Keep `value` for this tab; false when sessionStorage refused it.
pub fn session_set(key: &str, value: &str) -> bool {
    session().is_some_and(|s| s.set_item(key, value).is_ok())
}

pub fn session_remove(key: &str) {
    if let Some(s) = session() {
        let _ = s.remove_item(key);
    }
}
