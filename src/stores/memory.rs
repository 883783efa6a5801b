//! The built-in tools' state: the memory book and the switch that turns the built-in tools on
//! or off, kept together in one stored record (`skiff:memory`).
//!
//! It exists so the settings page and the in-page MCP server (`runner::builtin`) change one
//! and the same book: a memory edited in Settings is what the next tool call sees, and a
//! memory the model saved appears in Settings at once. The rules for what a book may hold
//! live in `skiff_core::builtin::memory`; this store only holds it and saves it.
//!
//! Persistence follows the rules every whole-value store shares (`whole_value.rs`): written
//! whole on every change; an unreadable saved value is copied to `skiff:aside:*` before
//! anything may replace it; one written by a newer Skiff is never overwritten; a full storage
//! shows a notice and keeps what was stored, while the change stays in this tab.

use leptos::prelude::*;
use skiff_core::builtin::memory::{
    encode_record, MemoryBook, MemoryError, MemoryRecord, Saved, MEMORY_KEY,
};

use super::notices::Notices;
use super::whole_value::{Texts, WholeValue};
use crate::platform::clock;

#[derive(Clone, Copy)]
pub struct MemoryStore {
    pub book: RwSignal<MemoryBook>,
    /// Whether the built-in tools (memory and time) are offered to the model.
    pub builtin_enabled: RwSignal<bool>,
    persisted: WholeValue,
}

impl MemoryStore {
    /// Load from storage and start mirroring changes back to it.
    pub fn load(notices: Notices) -> Self {
        let (initial, persisted) = WholeValue::load(
            MEMORY_KEY,
            notices,
            Texts {
                save_key: "memory-save",
                unsaved_key: "memory-unsaved",
                unsaved_text: "Memory changes are not being saved: the saved memory could not be read or was written by a newer Skiff, and would be lost. Reload, or free some browser storage.",
                failed_suffix: " (Memory changes stay in this tab until they can be saved.)",
            },
            MemoryRecord::decode,
        );
        let initial = initial.unwrap_or_default();
        let store = MemoryStore {
            book: RwSignal::new(initial.book),
            builtin_enabled: RwSignal::new(initial.builtin_enabled),
            persisted,
        };
        persisted.mirror(move || {
            let enabled = store.builtin_enabled.get();
            store.book.with(|book| encode_record(enabled, book))
        });
        store
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

    /// Add a backup's memories (its stored record `raw`) that are not here yet; how many.
    pub fn merge(&self, raw: &str) -> Result<usize, String> {
        let theirs = MemoryRecord::decode(raw).map_err(|e| e.to_string())?;
        self.change(|book| {
            let n = book.merge(&theirs.book);
            Ok((n > 0, n))
        })
        .map_err(|e| e.to_string())
    }

    /// The memory as stored (for a backup).
    pub fn record(&self) -> String {
        let enabled = self.builtin_enabled.get_untracked();
        self.book
            .with_untracked(|book| encode_record(enabled, book))
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
        let write_back = || {
            let enabled = self.builtin_enabled.get_untracked();
            self.book
                .with_untracked(|book| encode_record(enabled, book))
        };
        if let Some(record) = self.persisted.remote(raw, MemoryRecord::decode, write_back) {
            if self.book.with_untracked(|b| *b != record.book) {
                self.book.set(record.book);
            }
            self.set_enabled(record.builtin_enabled);
        }
    }
}
