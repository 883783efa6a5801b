//! Freeing attachment bytes: a blob (`platform::idb` `blobs`, keyed by hash) is deleted when the
//! last conversation naming it is deleted, or the last message naming it. Which blobs are free
//! is decided by `skiff_core::attach::unreferenced`; this file only gathers what it needs and
//! deletes what it returns. Only the blobs the delete named are ever candidates, so a file
//! stored a moment ago for a message not yet saved is never swept.

use leptos::prelude::*;
use skiff_core::attach;
use skiff_core::records::conversation::Conversation;

use super::bodies::Bodies;
use super::ConversationsStore;

impl ConversationsStore {
    /// Delete those of `candidates` that no conversation names any more: the ones held in
    /// memory (which may be ahead of storage) and every stored body (as text).
    pub(super) async fn sweep_blobs(&self, candidates: Vec<String>) {
        if candidates.is_empty() {
            return;
        }
        let Bodies::Idb(db) = self.bodies().await else {
            return;
        };
        let held: Vec<Conversation> = self
            .loaded
            .with_value(|m| m.values().filter_map(|l| l.try_snapshot()).collect());
        let stored = match db.all().await {
            Ok(all) => all,
            // Not knowing what is stored, keep everything.
            Err(e) => return leptos::logging::warn!("blobs kept: {e}"),
        };
        let texts = stored
            .iter()
            .filter(|(id, _)| !held.iter().any(|c| c.id == *id))
            .map(|(_, text)| text.as_str());
        for hash in attach::unreferenced(&candidates, &held, texts) {
            if let Err(e) = db.delete_blob(&hash).await {
                leptos::logging::warn!("could not delete an attachment's bytes: {e}");
            }
        }
    }
}
