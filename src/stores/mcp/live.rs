//! What one MCP server looks like right now, as signals the settings page and the agent loop
//! read: health, negotiated version, server info, its lists and a short log.
//!
//! The MCP runner is the only writer. Each field is its own signal so a ping updating
//! `health` does not re-render a tool list.

use leptos::prelude::*;
use serde_json::Value;
use skiff_core::mcp::backoff::{Health, HealthStatus};
use skiff_core::mcp::model::Tool;
use skiff_core::mcp::Era;

/// How many log lines a server keeps; older ones are dropped first.
pub const LOG_LIMIT: usize = 50;

#[derive(Clone, Copy)]
pub struct ServerLive {
    pub health: RwSignal<Health>,
    /// Era and protocol version, once ready; kept after a disconnect to show what was used.
    pub negotiated: RwSignal<Option<(Era, String)>>,
    /// "name version" from the server's `serverInfo`.
    pub server_info: RwSignal<Option<String>>,
    /// The server's icon as a checked `data:` URI (`core::mcp::icon`), if it has one to show.
    pub icon: RwSignal<Option<String>>,
    /// The server's capabilities (JSON), once ready: the MCP surfaces read them.
    pub capabilities: RwSignal<Value>,
    /// What the sign-in (OAuth, in the MCP module) says on the card, if anything.
    pub auth_note: RwSignal<Option<String>>,
    /// The server waits for the user to sign in (`oauth::status_text::waits_for_sign_in`).
    pub needs_sign_in: RwSignal<bool>,
    /// The server's `instructions`, if it sent any.
    pub instructions: RwSignal<Option<String>>,
    /// The transport in use: "Streamable HTTP", "HTTP+SSE (deprecated)", "WebSocket", "in-page".
    pub transport: RwSignal<Option<String>>,
    pub tools: RwSignal<Vec<Tool>>,
    /// Resources, templates and prompts as the server sent them (unchecked: the MCP surfaces
    /// decode them with `skiff_core::mcp::model` and leave out what does not decode).
    pub resources: RwSignal<Vec<Value>>,
    pub resource_templates: RwSignal<Vec<Value>>,
    pub prompts: RwSignal<Vec<Value>>,
    /// The last [`LOG_LIMIT`] notices, server log lines and errors, newest last.
    pub log: RwSignal<Vec<String>>,
}

impl Default for ServerLive {
    fn default() -> Self {
        Self::new()
    }
}

impl ServerLive {
    pub fn new() -> Self {
        ServerLive {
            health: RwSignal::new(Health::default()),
            negotiated: RwSignal::new(None),
            server_info: RwSignal::new(None),
            icon: RwSignal::new(None),
            capabilities: RwSignal::new(Value::Null),
            auth_note: RwSignal::new(None),
            needs_sign_in: RwSignal::new(false),
            instructions: RwSignal::new(None),
            transport: RwSignal::new(None),
            tools: RwSignal::new(Vec::new()),
            resources: RwSignal::new(Vec::new()),
            resource_templates: RwSignal::new(Vec::new()),
            prompts: RwSignal::new(Vec::new()),
            log: RwSignal::new(Vec::new()),
        }
    }

    pub fn push_log(&self, line: impl Into<String>) {
        let line = line.into();
        self.log.update(|log| {
            log.push(line);
            let excess = log.len().saturating_sub(LOG_LIMIT);
            log.drain(..excess);
        });
    }

    /// Tracked: whether the server is connected (its tools count for the model).
    pub fn is_connected(&self) -> bool {
        self.health
            .with(|h| matches!(h.status, HealthStatus::Connected { .. }))
    }

    /// Set the status, leaving `last_checked_ms` alone; no notification when unchanged.
    pub fn set_status(&self, status: HealthStatus) {
        if self.health.with_untracked(|h| h.status != status) {
            self.health.update(|h| h.status = status);
        }
    }

    /// Replace a list, notifying only when it changed: servers re-list on every
    /// `list_changed` and reconnect, mostly to the same list, and each notification re-runs
    /// the tool index and the settings rows.
    pub fn set_list<T: PartialEq + Send + Sync + 'static>(list: RwSignal<Vec<T>>, new: Vec<T>) {
        if list.with_untracked(|old| *old != new) {
            list.set(new);
        }
    }

    /// The server answered something at `at_ms`.
    pub fn checked(&self, at_ms: f64) {
        self.health.update(|h| h.last_checked_ms = Some(at_ms));
    }
}
