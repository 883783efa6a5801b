//! The exact bodies of the requests this tab sent, per answer, for "View request".
//!
//! Kept in memory only, for the newest [`KEEP`] answers: a body carries the whole history the
//! request included, so storing one per answer would grow storage with the square of a
//! conversation's length. An answer made before the page was loaded has no entry; the UI then
//! shows the request rebuilt from the stored conversation and says that it is rebuilt.

use std::collections::VecDeque;

use leptos::prelude::*;

/// Answers whose request bodies are kept.
pub const KEEP: usize = 50;

#[derive(Clone, Copy)]
pub struct SentRequests {
    /// (answer message id, request URL, body), oldest first. A step of a tool loop replaces
    /// the entry of the message it streams into (one message per step).
    entries: StoredValue<VecDeque<(String, String, String)>, LocalStorage>,
}

impl Default for SentRequests {
    fn default() -> Self {
        Self::new()
    }
}

impl SentRequests {
    pub fn new() -> Self {
        SentRequests {
            entries: StoredValue::new_local(VecDeque::new()),
        }
    }

    pub fn record(&self, message_id: &str, url: &str, body: &str) {
        self.entries.update_value(|e| {
            e.retain(|(id, _, _)| id != message_id);
            e.push_back((message_id.to_string(), url.to_string(), body.to_string()));
            while e.len() > KEEP {
                e.pop_front();
            }
        });
    }

    /// The URL and body sent for `message_id`, when this tab sent it.
    pub fn get(&self, message_id: &str) -> Option<(String, String)> {
        self.entries.with_value(|e| {
            e.iter()
                .find(|(id, _, _)| id == message_id)
                .map(|(_, url, body)| (url.clone(), body.clone()))
        })
    }
}
