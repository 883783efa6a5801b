//! The chat settings store: provider, model, parameters, theme. Small, so it is written whole
//! on every change, by the rules every whole-value store shares (`whole_value.rs`): a saved
//! value that cannot be read is copied aside before anything may replace it, and one written
//! by a newer Skiff is never overwritten.

use leptos::prelude::*;
use skiff_core::persist::SETTINGS_KEY;
use skiff_core::settings::{self, ChatSettings};

use super::notices::Notices;
use super::whole_value::{Texts, WholeValue};

#[derive(Clone, Copy)]
pub struct SettingsStore {
    pub settings: RwSignal<ChatSettings>,
    persisted: WholeValue,
}

impl SettingsStore {
    /// Load from storage and start mirroring changes back to it.
    pub fn load(notices: Notices) -> Self {
        let (initial, persisted) = WholeValue::load(
            SETTINGS_KEY,
            notices,
            Texts {
                save_key: "settings-save",
                unsaved_key: "settings-unsaved",
                unsaved_text: "Settings are not being saved: the saved settings could not be read or were written by a newer Skiff, and would be lost. Reload, or free some browser storage.",
                failed_suffix: " (Settings changes stay in this tab until they can be saved.)",
            },
            settings::decode_settings,
        );
        let store = SettingsStore {
            settings: RwSignal::new(initial.unwrap_or_default()),
            persisted,
        };
        persisted.mirror(move || store.settings.with(settings::encode_settings));
        store
    }

    /// Another tab saved settings: take them (settings are whole-value, last writer wins).
    pub fn apply_remote(&self, raw: Option<&str>) {
        let write_back = || self.settings.with_untracked(settings::encode_settings);
        if let Some(s) = self
            .persisted
            .remote(raw, settings::decode_settings, write_back)
        {
            if self.settings.with_untracked(|cur| *cur != s) {
                self.settings.set(s);
            }
        }
    }
}
