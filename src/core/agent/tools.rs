//! The tools offered to the model in one turn, flattened from the MCP tool index with the
//! conversation's switches applied. Both wire formats (native `tools`, the prompt-based system
//! prompt) and the agent machine read this one list.

use serde_json::{Map, Value};

use crate::mcp::tool_index::{ToolEntry, ToolIndex};
use crate::records::tool_overrides::ToolOverrides;

#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The name the model sees (unique across servers).
    pub exposed_name: String,
    pub server_id: String,
    pub server_name: String,
    /// The tool's own name on its server.
    pub tool_name: String,
    pub description: String,
    /// JSON Schema of the arguments (an object schema).
    pub input_schema: Map<String, Value>,
    /// `annotations.readOnlyHint`.
    pub read_only: bool,
}

impl ToolSpec {
    pub fn from_entry(entry: &ToolEntry, server_name: &str) -> Self {
        let tool = &entry.tool;
        ToolSpec {
            exposed_name: entry.exposed_name.clone(),
            server_id: entry.server_id.clone(),
            server_name: server_name.to_string(),
            tool_name: entry.tool_name.clone(),
            description: tool
                .description
                .as_deref()
                .map(str::to_string)
                .unwrap_or_default(),
            input_schema: (*tool.input_schema).clone(),
            read_only: tool
                .annotations
                .as_ref()
                .and_then(|a| a.read_only_hint)
                .unwrap_or(false),
        }
    }
}

impl ToolSpec {
    /// The input schema, explicitly an object schema: MCP servers publish `{}` for tools
    /// without arguments, and providers reject a schema without `"type": "object"`.
    pub fn object_schema(&self) -> Map<String, Value> {
        let mut schema = self.input_schema.clone();
        schema
            .entry("type")
            .or_insert_with(|| Value::String("object".into()));
        schema
    }
}

/// The enabled tools of a conversation, in index order. `server_name` maps a server id to its
/// display name.
pub fn enabled_specs(
    index: &ToolIndex,
    overrides: &ToolOverrides,
    server_name: impl Fn(&str) -> String,
) -> Vec<ToolSpec> {
    index
        .enabled(overrides)
        .map(|e| ToolSpec::from_entry(e, &server_name(&e.server_id)))
        .collect()
}

/// The spec for a name the model used.
pub fn find<'a>(tools: &'a [ToolSpec], exposed_name: &str) -> Option<&'a ToolSpec> {
    tools.iter().find(|t| t.exposed_name == exposed_name)
}
