//! Another tab's writes, merged in: the index (the `storage` event), and conversations message
//! by message (`skiff_core::records::conversation::merge_conversations`), so neither tab overwrites the other's
//! messages and a message streaming here is never rolled back by an older copy. A message the
//! other tab added is created under this store's owners; one it removed is disposed.
//!
//! Body writes to IndexedDB raise no `storage` event: the writing tab announces the id on a
//! `BroadcastChannel` and this tab re-reads the body ([`ConversationsStore::remote_body_changed`]).
//! A `skiff:conv:*` key removed in localStorage is not a deletion by itself (the migration
//! removes keys it has moved): the body is read again, and only a missing one is deleted.

use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::persist::{self, INDEX_KEY};
use skiff_core::records::conversation::{
    merge_conversations, merge_needs_write_back, Conversation, ConversationSummary,
};

use super::super::live_message::LiveMessage;
use super::super::notices::Level;
use super::{ConversationsStore, Loaded};

impl ConversationsStore {
    /// Another tab changed a key of ours.
    pub fn apply_remote(&self, key: Option<&str>, new_value: Option<&str>) {
        match key {
            // `localStorage.clear()` elsewhere: keep what this tab shows, and re-save it.
            None => {
                let all: Vec<Loaded> = self.loaded.with_value(|m| m.values().copied().collect());
                for l in all {
                    self.save(&l);
                }
            }
            Some(INDEX_KEY) => self.apply_remote_index(new_value),
            Some(k) => {
                if let Some(id) = persist::conversation_id_from_key(k) {
                    self.remote_body_changed(id.to_string());
                }
            }
        }
    }

    /// Another tab wrote or deleted body `id`: read what is stored now and merge it.
    pub(super) fn remote_body_changed(&self, id: String) {
        let store = *self;
        spawn_local(async move {
            match store.bodies().await.get(&id).await {
                Ok(raw) => store.apply_remote_conversation(&id, raw.as_deref()),
                Err(e) => {
                    leptos::logging::warn!("could not read a conversation another tab wrote: {e}")
                }
            }
        });
    }

    fn apply_remote_index(&self, new_value: Option<&str>) {
        let Some(Ok(theirs)) = new_value.map(persist::decode_index) else {
            return;
        };
        let store = *self;
        spawn_local(async move {
            // Keep an entry the other tab did not know about only if its body still exists.
            let stored = store.bodies().await.ids().await.unwrap_or_default();
            let mut merged = theirs;
            let ours = store.index.get_untracked();
            for s in ours {
                if !merged.iter().any(|t| t.id == s.id) && stored.binary_search(&s.id).is_ok() {
                    merged.push(s);
                }
            }
            persist::sort_index(&mut merged);
            if store.index.with_untracked(|cur| *cur != merged) {
                store.index.set(merged);
            }
        });
    }

    pub(super) fn apply_remote_conversation(&self, id: &str, new_value: Option<&str>) {
        let Some(raw) = new_value else {
            // Deleted in another tab.
            if self.current_id().as_deref() == Some(id) {
                self.current.set(None);
                self.notices
                    .push(Level::Info, "This conversation was deleted in another tab.");
            }
            self.removed(id);
            self.index.update(|items| items.retain(|s| s.id != id));
            return;
        };
        let remote = match persist::decode_conversation(raw) {
            Ok(c) => c,
            Err(e) => {
                leptos::logging::warn!("ignoring unreadable conversation from another tab: {e}");
                return;
            }
        };
        let Some(l) = self.loaded.with_value(|m| m.get(id).copied()) else {
            self.set_summary(remote.summary());
            return;
        };
        let local = l.snapshot();
        let live: Vec<String> = self.live.with_value(|s| s.iter().cloned().collect());
        let live_refs: Vec<&str> = live.iter().map(String::as_str).collect();
        let merged = merge_conversations(&local, &remote, &live_refs);
        // The sidebar names what this tab now holds (a rename made here stays shown while the
        // other tab, which has not heard of it yet, keeps saving its older title).
        self.set_summary(merged.summary());
        self.apply_merged(&l, &merged);
        // We held something the other tab lacked (messages, or newer settings): write the
        // union so both converge. The other tab's next copy then carries it, and no more is
        // written.
        if merge_needs_write_back(&merged, &remote) {
            self.write_conversation_only(&l);
        }
    }

    fn set_summary(&self, summary: ConversationSummary) {
        self.index.update(|items| {
            match items.iter_mut().find(|s| s.id == summary.id) {
                Some(s) => *s = summary,
                None => items.push(summary),
            }
            persist::sort_index(items);
        });
    }

    fn apply_merged(&self, l: &Loaded, merged: &Conversation) {
        let conv_id = l.id();
        let current: Vec<LiveMessage> = l.messages.get_untracked();
        let mut next = Vec::with_capacity(merged.messages.len());
        let mut added = false;
        for m in &merged.messages {
            match current.iter().find(|x| x.id.with_value(|id| *id == m.id)) {
                Some(existing) => {
                    if !self.live.with_value(|s| s.contains(&m.id)) {
                        existing.apply(m);
                    }
                    next.push(*existing);
                }
                None => {
                    let Some(live) = self
                        .owners
                        .try_update_value(|o| o.message(&conv_id, m))
                        .flatten()
                    else {
                        continue;
                    };
                    added = true;
                    next.push(live);
                }
            }
        }
        let reordered = next.len() != current.len()
            || next
                .iter()
                .zip(current.iter())
                .any(|(a, b)| a.id.get_value() != b.id.get_value());
        if added || reordered {
            let gone: Vec<String> = current
                .iter()
                .map(LiveMessage::id)
                .filter(|id| !next.iter().any(|n| n.id.with_value(|x| x == id)))
                .collect();
            l.set_messages(next);
            self.owners
                .update_value(|o| o.drop_messages(&conv_id, &gone));
        }
        l.meta.update(|meta| {
            meta.title = merged.title.clone();
            meta.title_source = merged.title_source;
            meta.cleared_after = merged.cleared_after.clone();
            meta.memory = merged.memory.clone();
            meta.model = merged.model.clone();
            meta.mask = merged.mask.clone();
            meta.project = merged.project.clone();
            meta.pinned = merged.pinned;
            meta.meta_ms = merged.meta_ms;
            meta.updated_ms = merged.updated_ms;
        });
        if l.branches.with_untracked(|b| *b != merged.branches) {
            l.branches.set(merged.branches.clone());
        }
        if l.tool_overrides
            .with_untracked(|o| *o != merged.tool_overrides)
        {
            l.tool_overrides.set(merged.tool_overrides.clone());
        }
    }
}
