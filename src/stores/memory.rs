//! The built-in tools' state: the memory book and the switch that turns the built-in tools on
//! or off, kept together in one stored record (`skiff:memory`).
//!
//! It exists so the settings page and the in-page MCP server (`runner::builtin`) change one
//! and the same book: a memory edited in Settings is what the next tool call sees, and a
//! memory the model saved appears in Settings at once. The rules for what a book may hold
//! live in `skiff_core::builtin::memory`; this store only holds it and saves it.
//!
//! Persistence follows the other stores: written whole on every change; an unreadable saved
//! value is copied to `skiff:aside:*` before anything may replace it; one written by a newer
//! Skiff is never overwritten; a full storage shows a notice and keeps what was stored, while
//! the change stays in this tab.

use leptos::prelude::*;
use skiff_core::builtin::memory::{
    encode_record, MemoryBook, MemoryError, MemoryRecord, Saved, MEMORY_KEY,
};
use skiff_core::persist::PersistError;

use super::notices::{save_whole_value, Level, Notices, WholeValueNotices};
use super::settings::keep_aside;
use crate::platform::{clock, storage};

const SAVE_NOTICE: &str = "memory-save";
const UNSAVED_NOTICE: &str = "memory-unsaved";

#[derive(Clone, Copy)]
pub struct MemoryStore {
    pub book: RwSignal<MemoryBook>,
    /// Whether the built-in tools (memory and time) are offered to the model.
    pub builtin_enabled: RwSignal<bool>,
    notices: Notices,
    /// False while the saved record may not be overwritten (unreadable and not set aside, or
    /// written by a newer Skiff).
    writable: StoredValue<bool>,
}

impl MemoryStore {
    /// Load from storage and start mirroring changes back to it.
    pub fn load(notices: Notices) -> Self {
        let (initial, writable) = load_record(&notices);
        let store = MemoryStore {
            book: RwSignal::new(initial.book),
            builtin_enabled: RwSignal::new(initial.builtin_enabled),
            notices,
            writable: StoredValue::new(writable),
        };
        let skip_first = StoredValue::new(true);
        Effect::new(move |_| {
            let enabled = store.builtin_enabled.get();
            let raw = store.book.with(|book| encode_record(enabled, book));
            // The first run only reads what was just loaded; writing it back would be wasted.
            if skip_first.get_value() {
                skip_first.set_value(false);
                return;
            }
            store.save(&raw);
        });
        store
    }

    fn save(&self, raw: &str) {
        save_whole_value(
            self.notices,
            MEMORY_KEY,
            raw,
            self.writable.get_value(),
            &WholeValueNotices {
                save_key: SAVE_NOTICE,
                unsaved_key: UNSAVED_NOTICE,
                unsaved_text: "Memory changes are not being saved: the saved memory could not be read or was written by a newer Skiff, and would be lost. Reload, or free some browser storage.",
                failed_suffix: " (Memory changes stay in this tab until they can be saved.)",
            },
        );
    }

    /// Save a memory typed in Settings. The same text again returns the existing id.
    pub fn add(&self, text: &str, tags: &[String]) -> Result<Saved, MemoryError> {
        let now = clock::now_ms();
        self.change(|book| {
            let saved = book.add(text, tags, now)?;
            let changed = matches!(saved, Saved::New(_));
            Ok((changed, saved))
        })
    }

    pub fn edit(&self, id: &str, text: &str, tags: &[String]) -> Result<(), MemoryError> {
        let now = clock::now_ms();
        self.change(|book| Ok((book.edit(id, text, tags, now)?, ())))
    }

    pub fn delete(&self, id: &str) -> Result<(), MemoryError> {
        self.change(|book| book.delete(id).map(|_| (true, ())))
    }

    pub fn set_enabled(&self, on: bool) {
        if self.builtin_enabled.get_untracked() != on {
            self.builtin_enabled.set(on);
        }
    }

    /// Apply `f` to the book, notifying (and so saving) only when it reports a change.
    fn change<U>(
        &self,
        f: impl FnOnce(&mut MemoryBook) -> Result<(bool, U), MemoryError>,
    ) -> Result<U, MemoryError> {
        self.book
            .try_maybe_update(|book| match f(book) {
                Ok((changed, value)) => (changed, Ok(value)),
                Err(e) => (false, Err(e)),
            })
            // Disposed only when the page is being torn down; nothing can be changed then.
            .unwrap_or(Err(MemoryError::Unavailable))
    }

    /// Another tab changed `skiff:memory` (`raw` is its new value, `None` when it was removed
    /// or storage was cleared). A readable value is taken whole (last writer wins); a removed
    /// one is written back from what this tab shows, so nothing is lost; one written by a
    /// newer Skiff stops this tab from saving over it.
    pub fn apply_remote(&self, raw: Option<&str>) {
        let Some(raw) = raw else {
            let enabled = self.builtin_enabled.get_untracked();
            let raw = self
                .book
                .with_untracked(|book| encode_record(enabled, book));
            self.save(&raw);
            return;
        };
        match MemoryRecord::decode(raw) {
            Ok(record) => {
                if self.book.with_untracked(|b| *b != record.book) {
                    self.book.set(record.book);
                }
                self.set_enabled(record.builtin_enabled);
            }
            Err(e @ PersistError::TooNew { .. }) => {
                self.writable.set_value(false);
                self.notices.push(Level::Error, e.to_string());
            }
            // A half-written or foreign value: keep ours; our next change replaces it.
            Err(_) => {}
        }
    }
}

fn load_record(notices: &Notices) -> (MemoryRecord, bool) {
    match storage::get(MEMORY_KEY) {
        Ok(None) => (MemoryRecord::default(), true),
        Ok(Some(raw)) => match MemoryRecord::decode(&raw) {
            Ok(record) => (record, true),
            Err(e @ PersistError::TooNew { .. }) => {
                notices.push(Level::Error, e.to_string());
                (MemoryRecord::default(), false)
            }
            Err(e) => {
                let kept = keep_aside(MEMORY_KEY, &raw);
                notices.push(Level::Error, e.to_string());
                (MemoryRecord::default(), kept)
            }
        },
        Err(e) => {
            notices.push(Level::Error, e.to_string());
            (MemoryRecord::default(), false)
        }
    }
}
