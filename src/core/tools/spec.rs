//! One tool as offered to the model: the spec both wire formats (native `tools`, the
//! prompt-based system prompt) and the agent machine read, and the names a model may be shown.
//! The MCP tool index builds the specs of a turn (`mcp::tool_index::enabled_specs`).

use serde_json::{Map, Value};

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

/// The spec for a name the model used.
pub fn find<'a>(tools: &'a [ToolSpec], exposed_name: &str) -> Option<&'a ToolSpec> {
    tools.iter().find(|t| t.exposed_name == exposed_name)
}

/// The longest tool name providers accept.
pub const MAX_NAME_LEN: usize = 64;

/// Replace every character outside `[a-zA-Z0-9_-]` with `_`; an empty result becomes `tool`.
pub fn sanitize(name: &str) -> String {
    let s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() {
        "tool".into()
    } else {
        s
    }
}

pub fn is_valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
