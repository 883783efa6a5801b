//! The chat settings store: provider, model, parameters, theme. Small, so it is written whole
//! on every change. A saved value that cannot be read is copied aside before anything may
//! replace it, and the user is told.

use leptos::prelude::*;
use skiff_core::persist::{self, SETTINGS_KEY};
use skiff_core::settings::ChatSettings;

use super::notices::{Level, Notices};
use crate::platform::{clock, storage};

#[derive(Clone, Copy)]
pub struct SettingsStore {
    pub settings: RwSignal<ChatSettings>,
    /// False while an unreadable saved value could not be set aside: writing would destroy it.
    writable: StoredValue<bool>,
}

impl SettingsStore {
    /// Load from storage and start mirroring changes back to it.
    pub fn load(notices: Notices) -> Self {
        let (initial, writable) = match storage::get(SETTINGS_KEY) {
            Ok(None) => (ChatSettings::default(), true),
            Ok(Some(raw)) => match persist::decode_settings(&raw) {
                Ok(s) => (s, true),
                Err(e) => {
                    let kept = keep_aside(SETTINGS_KEY, &raw);
                    notices.push(Level::Error, e.to_string());
                    (ChatSettings::default(), kept)
                }
            },
            Err(e) => {
                notices.push(Level::Error, e.to_string());
                (ChatSettings::default(), false)
            }
        };
        let store = SettingsStore {
            settings: RwSignal::new(initial),
            writable: StoredValue::new(writable),
        };
        let skip_first = StoredValue::new(true);
        Effect::new(move |_| {
            let raw = store.settings.with(persist::encode_settings);
            // The first run only reads what was just loaded; writing it back would be wasted.
            if skip_first.get_value() {
                skip_first.set_value(false);
                return;
            }
            if !store.writable.get_value() {
                notices.push_keyed(
                    Level::Warning,
                    "Settings are not being saved: the saved settings could not be read or set aside, and would be lost. Free some browser storage and reload.",
                    Some("settings-unsaved"),
                );
                return;
            }
            match storage::set(SETTINGS_KEY, &raw) {
                Ok(()) => notices.clear_key("settings-save"),
                Err(e) => notices.push_keyed(Level::Error, e.to_string(), Some("settings-save")),
            }
        });
        store
    }

    /// Another tab saved settings: take them (settings are whole-value, last writer wins).
    pub fn apply_remote(&self, raw: Option<&str>) {
        if let Some(Ok(s)) = raw.map(persist::decode_settings) {
            if self.settings.with_untracked(|cur| *cur != s) {
                self.settings.set(s);
            }
        }
    }
}

/// Copy an unreadable value to an aside key so the original key can be written again.
/// Returns whether the copy succeeded (if not, the caller must not overwrite the key).
pub fn keep_aside(key: &str, raw: &str) -> bool {
    storage::set(&persist::aside_key(key, clock::now_ms()), raw).is_ok()
}
