//! One value stored whole under one key (settings, the memory, the MCP server list), loaded,
//! saved and synced with other tabs by the same rules (`skiff_core::persist::whole` decides
//! them; this file performs them against `localStorage`).
//!
//! It never writes over a value it could not read unless that value was copied aside first,
//! never writes over a value a newer Skiff wrote, and keeps the change in this tab (with a
//! notice) when storage is full.

use crate::stores::reactive::effect;
use leptos::prelude::*;
use skiff_core::persist::whole::{self, Remote, Write};
use skiff_core::persist::{self, PersistError};

use super::notices::{Level, Notices};
use crate::platform::{clock, storage};

/// The sentences and notice keys of one store.
pub struct Texts {
    /// Key of the "could not save" notice, cleared by the next good write.
    pub save_key: &'static str,
    /// Key of the "not saving at all" notice.
    pub unsaved_key: &'static str,
    /// Why nothing is saved while the stored value is unreadable or newer than this Skiff.
    pub unsaved_text: &'static str,
    /// Appended to a failed write's sentence (may be empty).
    pub failed_suffix: &'static str,
}

/// The persistence half of a whole-value store. `Copy`; its one signal is created by
/// [`WholeValue::load`] under the owner running at start-up (the app's), where the store
/// itself lives.
#[derive(Clone, Copy)]
pub struct WholeValue {
    key: &'static str,
    notices: Notices,
    /// False while writing would destroy a value this tab could not read, or one a newer
    /// Skiff wrote.
    writable: StoredValue<bool>,
    texts: StoredValue<Texts>,
}

impl WholeValue {
    /// Read `key` and decide what to start from: the stored value, or `None` for the default.
    pub fn load<T>(
        key: &'static str,
        notices: Notices,
        texts: Texts,
        decode: impl Fn(&str) -> Result<T, PersistError>,
    ) -> (Option<T>, WholeValue) {
        let (value, writable) = match storage::get(key) {
            Ok(stored) => {
                let plan = whole::start(stored.as_deref(), decode);
                if let Some(n) = plan.notice {
                    notices.push(Level::Error, n);
                }
                let writable = match plan.write {
                    Write::Allowed => true,
                    Write::Refused => false,
                    Write::AfterAside => stored.as_deref().is_some_and(|raw| keep_aside(key, raw)),
                };
                (plan.value, writable)
            }
            Err(e) => {
                notices.push(Level::Error, e.to_string());
                (None, false)
            }
        };
        let this = WholeValue {
            key,
            notices,
            writable: StoredValue::new(writable),
            texts: StoredValue::new(texts),
        };
        (value, this)
    }

    /// Write `raw` whole, unless this tab must not (the user is told), keeping the change in
    /// the tab when storage refuses it.
    pub fn save(&self, raw: &str) {
        let notices = self.notices;
        self.texts.with_value(|t| {
            if !self.writable.get_value() {
                notices.push_keyed(Level::Warning, t.unsaved_text, Some(t.unsaved_key));
                return;
            }
            match storage::set(self.key, raw) {
                Ok(()) => notices.clear_key(t.save_key),
                Err(e) => notices.push_keyed(
                    Level::Error,
                    format!("{e}{}", t.failed_suffix),
                    Some(t.save_key),
                ),
            }
        });
    }

    /// Another tab wrote the key (`None`: removed, or storage cleared). Returns the value to
    /// take, if any; `write_back` gives this tab's value to write when the key was removed.
    pub fn remote<T>(
        &self,
        raw: Option<&str>,
        decode: impl Fn(&str) -> Result<T, PersistError>,
        write_back: impl FnOnce() -> String,
    ) -> Option<T> {
        match whole::remote(raw, decode) {
            Remote::Take(v) => Some(v),
            Remote::WriteBack => {
                self.save(&write_back());
                None
            }
            Remote::StopWriting(sentence) => {
                self.writable.set_value(false);
                self.notices.push(Level::Error, sentence);
                None
            }
            Remote::Ignore => None,
        }
    }

    /// Mirror `encode()` to storage whenever what it reads changes, skipping the first run
    /// (which only reads what was just loaded).
    pub fn mirror(self, encode: impl Fn() -> String + 'static) {
        let skip_first = StoredValue::new(true);
        effect(move || {
            let raw = encode();
            if skip_first.get_value() {
                skip_first.set_value(false);
                return;
            }
            self.save(&raw);
        });
    }
}

/// Copy an unreadable value to an aside key so the original key can be written again.
/// Returns whether the copy succeeded (if not, the caller must not overwrite the key).
pub fn keep_aside(key: &str, raw: &str) -> bool {
    storage::set(&persist::aside_key(key, clock::now_ms()), raw).is_ok()
}
