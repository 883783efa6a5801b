//! Raw string access to the browser's `localStorage`, plus change notifications from other
//! tabs, so stores can persist conversations and settings without touching `web_sys`.
//!
//! Values are opaque strings: callers own the JSON (and its versioning, in `skiff-core`).
//! This module must never parse, migrate or silently drop what it stores, and must never
//! panic when storage is missing or full — both are ordinary situations in browsers
//! (private windows, disabled site data, a 5–10 MB quota).
//!
//! `gloo_storage::LocalStorage::raw()` is deliberately not used: it throws when storage is
//! unavailable, which would turn a recoverable situation into a crash.

use std::fmt;

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Storage, StorageEvent, Window};

use super::{js_error_name, js_error_text};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StorageError {
    /// No `localStorage` at all (no window, disabled site data, sandboxed frame).
    Unavailable(String),
    /// The write would exceed the origin's quota. `bytes` is the estimated size of the
    /// rejected entry (key + value, UTF-16, as browsers count it).
    QuotaExceeded {
        key: String,
        bytes: usize,
    },
    Other(String),
}

impl fmt::Display for StorageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StorageError::Unavailable(detail) => write!(
                f,
                "Browser storage is not available, so nothing can be saved between visits. \
                 Allow site data for this page (private windows and strict privacy settings \
                 often block it) and reload. (Browser said: {detail})"
            ),
            StorageError::QuotaExceeded { key, bytes } => write!(
                f,
                "Browser storage is full: could not save \"{key}\" ({}). Delete old \
                 conversations or export them; nothing already saved was lost.",
                skiff_core::format::human_bytes(*bytes as u64)
            ),
            StorageError::Other(detail) => write!(
                f,
                "Browser storage failed: {detail}. Your change was not saved; try again, and \
                 export your conversations if it keeps happening."
            ),
        }
    }
}

impl std::error::Error for StorageError {}

fn window() -> Result<Window, StorageError> {
    web_sys::window()
        .ok_or_else(|| StorageError::Unavailable("this page has no window".to_string()))
}

fn storage() -> Result<Storage, StorageError> {
    match window()?.local_storage() {
        Ok(Some(s)) => Ok(s),
        Ok(None) => Err(StorageError::Unavailable(
            "localStorage is missing".to_string(),
        )),
        // Chrome throws a SecurityError here when site data is blocked.
        Err(e) => Err(StorageError::Unavailable(js_error_text(&e))),
    }
}

/// Size as browsers account it: UTF-16 code units, two bytes each.
fn utf16_bytes(s: &str) -> usize {
    s.encode_utf16().count() * 2
}

pub fn get(key: &str) -> Result<Option<String>, StorageError> {
    storage()?
        .get_item(key)
        .map_err(|e| StorageError::Other(js_error_text(&e)))
}

pub fn set(key: &str, value: &str) -> Result<(), StorageError> {
    storage()?.set_item(key, value).map_err(|e| {
        if is_quota_error(&e) {
            StorageError::QuotaExceeded {
                key: key.to_string(),
                bytes: utf16_bytes(key) + utf16_bytes(value),
            }
        } else {
            StorageError::Other(js_error_text(&e))
        }
    })
}

/// Chrome/Safari: name "QuotaExceededError", legacy code 22.
/// Old Firefox: name "NS_ERROR_DOM_QUOTA_REACHED", code 1014.
fn is_quota_error(e: &JsValue) -> bool {
    let name = js_error_name(e);
    let code = js_sys::Reflect::get(e, &JsValue::from_str("code"))
        .ok()
        .and_then(|v| v.as_f64());
    matches!(
        name.as_deref(),
        Some("QuotaExceededError") | Some("NS_ERROR_DOM_QUOTA_REACHED")
    ) || matches!(code, Some(c) if c == 22.0 || c == 1014.0)
}

pub fn remove(key: &str) -> Result<(), StorageError> {
    storage()?
        .remove_item(key)
        .map_err(|e| StorageError::Other(js_error_text(&e)))
}

/// All keys starting with `prefix`, sorted (the browser's key order is unspecified).
pub fn keys_with_prefix(prefix: &str) -> Result<Vec<String>, StorageError> {
    let storage = storage()?;
    let mut keys: Vec<String> = all_keys(&storage)?
        .into_iter()
        .filter(|k| k.starts_with(prefix))
        .collect();
    skiff_core::order::sort(&mut keys);
    Ok(keys)
}

fn all_keys(storage: &Storage) -> Result<Vec<String>, StorageError> {
    let len = storage
        .length()
        .map_err(|e| StorageError::Other(js_error_text(&e)))?;
    let mut keys = Vec::with_capacity(len as usize);
    for i in 0..len {
        if let Ok(Some(k)) = storage.key(i) {
            keys.push(k);
        }
    }
    Ok(keys)
}

/// Approximate bytes used by this origin's localStorage (keys + values, UTF-16), for a
/// "storage used" display. Returns 0 when storage is unavailable.
pub fn used_bytes_estimate() -> usize {
    let Ok(storage) = storage() else { return 0 };
    let Ok(keys) = all_keys(&storage) else {
        return 0;
    };
    keys.iter()
        .map(|k| {
            let value = storage.get_item(k).ok().flatten().unwrap_or_default();
            utf16_bytes(k) + utf16_bytes(&value)
        })
        .sum()
}

/// A change made to localStorage by *another* tab or frame of this origin (browsers do not
/// notify the document that made the change).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageChange {
    /// `None` when the other tab called `localStorage.clear()`.
    pub key: Option<String>,
    /// `None` when the key was removed (or everything was cleared).
    pub new_value: Option<String>,
}

/// Keeps a `storage` event listener registered; dropping it unregisters the listener.
pub struct StorageListener {
    target: Option<Window>,
    callback: Closure<dyn Fn(web_sys::Event)>,
}

impl Drop for StorageListener {
    fn drop(&mut self) {
        if let Some(window) = &self.target {
            let _ = window.remove_event_listener_with_callback(
                "storage",
                self.callback.as_ref().unchecked_ref(),
            );
        }
    }
}

/// Calls `cb` for every localStorage change made elsewhere. Changes to sessionStorage are
/// ignored. Without a window the listener is inert (nothing can change anyway).
pub fn on_change(cb: impl Fn(StorageChange) + 'static) -> StorageListener {
    let callback = Closure::<dyn Fn(web_sys::Event)>::new(move |event: web_sys::Event| {
        let Some(event) = event.dyn_ref::<StorageEvent>() else {
            return;
        };
        let is_local = match (event.storage_area(), storage()) {
            (Some(area), Ok(local)) => js_sys::Object::is(&area, &local),
            // Synthetic events may carry no area; treat them as localStorage.
            (None, _) => true,
            (Some(_), Err(_)) => false,
        };
        if is_local {
            cb(StorageChange {
                key: event.key(),
                new_value: event.new_value(),
            });
        }
    });
    let target = web_sys::window().filter(|w| {
        w.add_event_listener_with_callback("storage", callback.as_ref().unchecked_ref())
            .is_ok()
    });
    StorageListener { target, callback }
}
