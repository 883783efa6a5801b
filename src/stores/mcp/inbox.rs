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

use std::collections::HashMap;

use futures::channel::oneshot;
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
    /// The tool calls running when the server asked `key` are all answered: the server went
    /// on (`Action::AskSettled`).
    Settled {
        server: String,
        key: ElicitKey,
    },
    /// `notifications/elicitation/complete`: a URL-mode step finished.
    Completed {
        server: String,
        params: Value,
    },
    /// A tool call was refused until the user finishes URL steps (`-32042`, its `data`);
    /// [`McpInbox::finished`] reports the end of `wait`.
    Required {
        server: String,
        wait: u64,
        data: Value,
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
    /// The calls waiting for the user's URL steps, by wait id.
    waits: StoredValue<HashMap<u64, oneshot::Sender<bool>>, LocalStorage>,
    next_wait: StoredValue<u64>,
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
            waits: StoredValue::new_local(HashMap::new()),
            next_wait: StoredValue::new(0),
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

    /// A tool call on `server` was refused until the user finishes the URL steps in `data`
    /// (`-32042`): the cards show them; the answer is whether the user finished them all
    /// (`false`: declined, cancelled, or the cards went with the page).
    pub async fn required(&self, server: &str, data: Value) -> bool {
        let wait = self.next_wait.get_value() + 1;
        self.next_wait.set_value(wait);
        let (tx, rx) = oneshot::channel();
        self.waits.update_value(|w| {
            w.insert(wait, tx);
        });
        self.asks.update(|q| {
            q.push(AskEvent::Required {
                server: server.to_string(),
                wait,
                data,
            })
        });
        if !self.asked.get_untracked() {
            self.asked.set(true);
        }
        rx.await.unwrap_or(false)
    }

    /// The URL steps of `wait` are over (`done`: the user finished every one).
    pub fn finished(&self, wait: u64, done: bool) {
        if let Some(tx) = self.waits.try_update_value(|w| w.remove(&wait)).flatten() {
            let _ = tx.send(done);
        }
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
