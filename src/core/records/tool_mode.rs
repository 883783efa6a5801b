//! How tool calls travel in a request (`ToolMode`, stored on each answer made with tools) and
//! the user's choice of it (`ToolModeSetting`, stored in the settings).

use serde::{Deserialize, Serialize};

/// How tool calls travel in one model request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolMode {
    /// The provider's own function calling (`tools` in the request, `tool_calls` back).
    Native,
    /// Tools described in the system prompt; calls are fenced ```` ```json:mcp:{server} ````
    /// blocks in the answer, results go back as ```` ```json:mcp-response:{server} ```` blocks.
    Prompt,
    /// No tools are offered.
    Off,
}

/// The user's choice per model; `Auto` tries native and falls back to prompt-based when the
/// provider rejects `tools` (the result is remembered per model).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolModeSetting {
    #[default]
    Auto,
    Native,
    Prompt,
    Off,
}

crate::names::named_enum!(ToolMode, "tool mode", {
    Native => "native",
    Prompt => "prompt",
    Off => "off",
});

impl ToolMode {
    /// How a sentence names the mode: "Auto found that llama works with {label}."
    pub fn label(self) -> &'static str {
        match self {
            ToolMode::Native => "native function calling",
            ToolMode::Prompt => "prompt-based tools",
            ToolMode::Off => "no tools",
        }
    }
}

crate::names::named_enum!(ToolModeSetting, "tool mode", {
    Auto => "auto",
    Native => "native",
    Prompt => "prompt",
    Off => "off",
});

impl ToolModeSetting {
    /// What the tool-mode `<select>` says.
    pub fn label(self) -> &'static str {
        match self {
            ToolModeSetting::Auto => "Auto (native, falling back to prompt-based)",
            ToolModeSetting::Native => "Native function calling",
            ToolModeSetting::Prompt => "Prompt-based (for models without tool support)",
            ToolModeSetting::Off => "Off",
        }
    }
}
