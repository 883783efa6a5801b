//! The chat header's tool chip: how many tools the next request offers, or that it offers none
//! because of the model or the settings. A small model in the page runs without tools unless
//! the user says it takes them (issue 31), so a bare count would promise tools the model never
//! gets.

use crate::records::tool_mode::ToolMode;

/// What the chip says, and its tooltip.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolChip {
    pub label: String,
    pub title: &'static str,
}

/// The chip for `enabled` switched-on tools when the conversation's next turn resolves to
/// `mode` (`TurnSettings`' `resolved_tool_mode`).
pub fn tool_chip(enabled: usize, mode: ToolMode) -> ToolChip {
    if mode == ToolMode::Off {
        return ToolChip {
            label: "Tools: off".to_string(),
            title: "This model is sent no tools: a small model in the page, a model marked as \
                    taking none, or tools turned off in Settings → Conversation. Mark the model \
                    as taking tools in the model picker to send them.",
        };
    }
    ToolChip {
        label: format!("Tools: {enabled}"),
        title: "MCP tools this conversation may use",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chip_counts_tools_only_when_the_model_gets_them() {
        assert_eq!(tool_chip(4, ToolMode::Native).label, "Tools: 4");
        assert_eq!(tool_chip(4, ToolMode::Prompt).label, "Tools: 4");
        let off = tool_chip(4, ToolMode::Off);
        assert_eq!(off.label, "Tools: off");
        assert!(off.title.contains("model picker"), "{}", off.title);
    }
}
