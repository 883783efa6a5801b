//! User-visible notices: every problem the user must know about (unreadable saved data, full
//! storage, a failed probe) lands here and is shown at the top of the page until dismissed.

use leptos::prelude::*;

/// Whether a notice with this key is about something Settings shows itself (a failing MCP
/// server, keyed `mcp-down:{id}` by its driver), so the notice area holds it back while the
/// Settings dialog is open.
pub fn shown_in_settings(key: &str) -> bool {
    key.starts_with(MCP_DOWN_KEY)
}

/// The key prefix of an MCP server's failure notice.
pub const MCP_DOWN_KEY: &str = "mcp-down:";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Warning,
    Error,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub id: u64,
    pub level: Level,
    pub text: String,
    /// Notices with the same key replace each other instead of piling up (e.g. repeated
    /// "storage is full" while a reply streams).
    pub key: Option<String>,
}

#[derive(Clone, Copy)]
pub struct Notices {
    pub items: RwSignal<Vec<Notice>>,
    next_id: StoredValue<u64>,
}

impl Default for Notices {
    fn default() -> Self {
        Self::new()
    }
}

impl Notices {
    pub fn new() -> Self {
        Notices {
            items: RwSignal::new(Vec::new()),
            next_id: StoredValue::new(1),
        }
    }

    pub fn push(&self, level: Level, text: impl Into<String>) {
        self.push_keyed(level, text, None);
    }

    /// Show a notice; one with the same `key` is replaced rather than repeated.
    pub fn push_keyed(&self, level: Level, text: impl Into<String>, key: Option<&str>) {
        let id = self.next_id.get_value();
        self.next_id.set_value(id + 1);
        let notice = Notice {
            id,
            level,
            text: text.into(),
            key: key.map(str::to_string),
        };
        self.items.update(|items| {
            if let Some(k) = &notice.key {
                items.retain(|n| n.key.as_ref() != Some(k));
            }
            items.push(notice);
        });
    }

    pub fn clear_key(&self, key: &str) {
        let present = self
            .items
            .with_untracked(|i| i.iter().any(|n| n.key.as_deref() == Some(key)));
        if present {
            self.items
                .update(|items| items.retain(|n| n.key.as_deref() != Some(key)));
        }
    }

    pub fn dismiss(&self, id: u64) {
        self.items.update(|items| items.retain(|n| n.id != id));
    }
}
