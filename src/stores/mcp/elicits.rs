//! Questions MCP servers are asking the user (elicitation), as the chat shows them.
//!
//! The MCP runner writes (a question arrived, was withdrawn, or a URL-mode step finished);
//! the cards read and remove what the user answered. Nothing here talks to a server or
//! decides what a question means: `skiff_core::mcp::elicit` did that.

use leptos::prelude::*;
use skiff_core::mcp::elicit::{ElicitKind, ElicitRequest};
use skiff_core::mcp::ElicitKey;

use super::McpStore;

/// One question on screen.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitCard {
    pub server_id: String,
    pub server_name: String,
    pub key: ElicitKey,
    pub request: ElicitRequest,
    /// A URL-mode question the user accepted: the page was opened and the server has not
    /// said yet that the step finished (`notifications/elicitation/complete`).
    pub waiting: bool,
}

impl McpStore {
    pub fn elicit_arrived(&self, server_id: &str, key: ElicitKey, request: ElicitRequest) {
        let server_name = self
            .server_name(server_id)
            .unwrap_or_else(|| server_id.to_string());
        self.elicits.update(|cards| {
            cards.push(ElicitCard {
                server_id: server_id.to_string(),
                server_name,
                key,
                request,
                waiting: false,
            })
        });
    }

    /// The question can no longer be answered (its connection ended).
    pub fn elicit_gone(&self, server_id: &str, key: ElicitKey) {
        self.elicits.update(|cards| {
            cards.retain(|c| !(c.server_id == server_id && c.key == key && !c.waiting))
        });
    }

    /// The user answered: the card goes, except an accepted URL-mode question, which waits
    /// for the server's word that the step finished.
    pub fn elicit_answered(&self, server_id: &str, key: ElicitKey, url_accepted: bool) {
        self.elicits.update(|cards| {
            if url_accepted {
                for c in cards.iter_mut() {
                    if c.server_id == server_id && c.key == key {
                        c.waiting = true;
                    }
                }
            } else {
                cards.retain(|c| !(c.server_id == server_id && c.key == key));
            }
        });
    }

    /// `notifications/elicitation/complete`: the out-of-band step `elicitation_id` finished.
    pub fn elicit_complete(&self, server_id: &str, elicitation_id: &str) {
        self.elicits.update(|cards| {
            cards.retain(|c| {
                let same = matches!(&c.request.kind, ElicitKind::Url(u) if u.elicitation_id == elicitation_id);
                !(c.server_id == server_id && same)
            })
        });
    }

    /// Remove a card the user dismissed (a finished URL-mode wait).
    pub fn elicit_dismiss(&self, server_id: &str, key: ElicitKey) {
        self.elicits
            .update(|cards| cards.retain(|c| !(c.server_id == server_id && c.key == key)));
    }
}
