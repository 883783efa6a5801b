//! Which MCP servers and tools one conversation may use, as the conversation stores it: all,
//! unless switched off here.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// Per-conversation switches.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolOverrides {
    #[serde(default)]
    pub disabled_servers: BTreeSet<String>,
    /// `(server id, tool name)` → enabled.
    #[serde(default)]
    pub tools: BTreeMap<String, bool>,
    /// Progressive discovery for this conversation: the model gets a compact list and
    /// `find_tools` instead of every tool's schema (`tools::discovery`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub discovery: bool,
}

impl ToolOverrides {
    fn key(server_id: &str, tool_name: &str) -> String {
        format!("{server_id}\u{1f}{tool_name}")
    }

    pub fn set_tool(&mut self, server_id: &str, tool_name: &str, enabled: bool) {
        self.tools.insert(Self::key(server_id, tool_name), enabled);
    }

    pub fn is_empty(&self) -> bool {
        self.disabled_servers.is_empty() && self.tools.is_empty() && !self.discovery
    }

    pub fn set_server(&mut self, server_id: &str, enabled: bool) {
        if enabled {
            self.disabled_servers.remove(server_id);
        } else {
            self.disabled_servers.insert(server_id.to_string());
        }
    }

    pub fn server_enabled(&self, server_id: &str) -> bool {
        !self.disabled_servers.contains(server_id)
    }

    pub fn tool_enabled(&self, server_id: &str, tool_name: &str) -> bool {
        self.tools
            .get(&Self::key(server_id, tool_name))
            .copied()
            .unwrap_or(true)
    }
}
