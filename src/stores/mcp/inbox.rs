//! What servers hand the page that only an MCP surface can take: questions held open
//! (sampling, elicitation) and their end, and updates of subscribed resources. The connection
//! runner puts them here; the surfaces, loaded on demand (`ui::mcp`), take them.
//!
//! Why a queue and not a call: the surfaces are a chunk the page may not have loaded yet, and
//! the runner must not wait for it. The queue is the always-loaded part; it decides nothing.
//!
//! Invariants: a question is never dropped (the ask cards are mounted as soon as one is
//! waiting, and take every event in order); a resource update is kept only while something
//! follows resources (the resource runner, once started), since nothing else reads them.

use leptos::prelude::*;
use serde_json::Value;
use skiff_core::mcp::held_ask::HeldAsk;
use skiff_core::mcp::ElicitKey;

/// A held question, or news about one.
#[derive(Debug, Clone, PartialEq)]
pub enum AskEvent {
    Held(HeldAsk),
    /// The question can no longer be answered (its connection ended).
    Gone {
        server: String,
        key: ElicitKey,
    },
    /// `notifications/elicitation/complete`: a URL-mode step finished.
    Completed {
        server: String,
        params: Value,
    },
}

#[derive(Clone, Copy)]
pub struct McpInbox {
    asks: RwSignal<Vec<AskEvent>>,
    /// A question arrived at least once: the cards are (to be) mounted.
    asked: RwSignal<bool>,
    /// `(server, uri)` of `notifications/resources/updated`, in order.
    updates: RwSignal<Vec<(String, String)>>,
    following: StoredValue<bool>,
}

impl Default for McpInbox {
    fn default() -> Self {
        Self::new()
    }
}

impl McpInbox {
    pub fn new() -> Self {
        McpInbox {
            asks: RwSignal::new(Vec::new()),
            asked: RwSignal::new(false),
            updates: RwSignal::new(Vec::new()),
            following: StoredValue::new(false),
        }
    }

    /// A server holds a question open.
    pub fn held(&self, ask: HeldAsk) {
        self.asks.update(|q| q.push(AskEvent::Held(ask)));
        if !self.asked.get_untracked() {
            self.asked.set(true);
        }
    }

    /// News about a question: only while questions have been shown (else there is no card
    /// it could be about).
    pub fn about_ask(&self, event: AskEvent) {
        if self.asked.get_untracked() {
            self.asks.update(|q| q.push(event));
        }
    }

    /// Tracked: whether the ask cards must be mounted.
    pub fn asked(&self) -> bool {
        self.asked.get()
    }

    /// Tracked: take every waiting ask event, oldest first.
    pub fn take_asks(&self) -> Vec<AskEvent> {
        if self.asks.with(Vec::is_empty) {
            return Vec::new();
        }
        let mut out = Vec::new();
        self.asks.update_untracked(|q| std::mem::swap(q, &mut out));
        out
    }

    /// A subscribed resource changed on its server.
    pub fn updated(&self, server: &str, uri: &str) {
        if self.following.get_value() {
            self.updates
                .update(|q| q.push((server.to_string(), uri.to_string())));
        }
    }

    /// The resource runner follows updates from now on.
    pub fn follow_resources(&self) {
        self.following.set_value(true);
    }

    /// Tracked: take every waiting resource update, oldest first.
    pub fn take_updates(&self) -> Vec<(String, String)> {
        if self.updates.with(Vec::is_empty) {
            return Vec::new();
        }
        let mut out = Vec::new();
        self.updates
            .update_untracked(|q| std::mem::swap(q, &mut out));
        out
    }
}
