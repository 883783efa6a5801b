//! What one model request is built from, whichever provider receives it: the conversation as
//! the step sees it ([`StepContext`]) and the user's sampling choices ([`ChatParams`]).
//!
//! Plain borrowed data and no policy: which messages, tools and mode a step uses is decided by
//! the agent machine and the runner; each provider's request builder only reshapes this.

use crate::records::message::{Message, Role};
use crate::records::tool_mode::ToolMode;
use crate::tools::prompt;
use crate::tools::spec::ToolSpec;
use serde::{Deserialize, Serialize};

/// Sampling parameters. `None` means "let the server decide" and is left out of the body
/// (unless the provider requires the field, as Anthropic requires `max_tokens`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatParams {
    /// Empty means "whatever the server has loaded" (llama.cpp accepts a missing model).
    pub model: String,
    pub temperature: Option<f32>,
    pub top_p: Option<f32>,
    pub max_tokens: Option<u32>,
    /// Tokens the model may think before answering (Anthropic's `budget_tokens`, Gemini's
    /// `thinkingBudget`); `None` leaves thinking as the provider has it by default.
    pub thinking_budget: Option<u32>,
    /// How hard an OpenAI-compatible reasoning model thinks (`reasoning_effort`).
    pub reasoning_effort: Option<ReasoningEffort>,
    /// The profile knows this model reasons (its `reasoning` capability is true): Gemini then
    /// asks for thought summaries even without a budget, which a model that cannot think may
    /// refuse, so it is never asked of a model not known to think.
    pub reasoning_model: bool,
    /// The model must call one of the offered tools (an MCP server's sampling request with
    /// `toolChoice: required`); the agent loop never forces a call.
    pub tool_required: bool,
    /// Where the model stops writing (an MCP server's `stopSequences`); none for chat.
    pub stop: Vec<String>,
}

/// OpenAI's `reasoning_effort` words: the ones every server that takes the field accepts.
///
/// Read through its name (`try_from = "String"`, the `FromStr` below): serde's derived enum
/// visitor would add wasm for what `FromStr` already does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", try_from = "String")]
pub enum ReasoningEffort {
    Low,
    Medium,
    High,
}

crate::names::named_enum!(ReasoningEffort, "reasoning effort", {
    Low => "low",
    Medium => "medium",
    High => "high",
});

impl TryFrom<String> for ReasoningEffort {
    type Error = crate::names::UnknownName;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

/// Everything one step's request is built from.
#[derive(Debug, Clone, Copy)]
pub struct StepContext<'a> {
    /// The filled system template (`pipeline::template`), empty when turned off; it opens
    /// the system text.
    pub system_template: &'a str,
    /// The user's system prompt (may be empty); prompt mode appends the tool section.
    pub system_prompt: &'a str,
    /// The recap of a summary standing in for older messages (`pipeline::memory`), after the
    /// tools section; empty when there is none.
    pub recap: &'a str,
    /// Every message before the answer being generated, in order.
    pub history: &'a [Message],
    /// The tools offered (ignored when `mode` is `Off`).
    pub tools: &'a [ToolSpec],
    pub mode: ToolMode,
    /// Characters of one tool result the model receives.
    pub result_char_limit: usize,
    /// Whether image results go to the model as image input.
    pub vision: bool,
}

impl StepContext<'_> {
    /// The system slot before the tools: the system template, then the user's system
    /// prompt (the order of `pipeline`'s assembly), joined by a blank line.
    pub fn system_text(&self) -> String {
        [self.system_template, self.system_prompt]
            .into_iter()
            .filter(|s| !s.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// One system text for providers that take it apart from the messages (Anthropic's
    /// `system`, Gemini's `systemInstruction`): the user's system prompt, the conversation's
    /// system messages, and in prompt mode the tool section, joined by blank lines.
    pub fn joined_system_prompt(&self) -> String {
        let mut parts: Vec<&str> = Vec::new();
        if !self.system_template.trim().is_empty() {
            parts.push(self.system_template);
        }
        if !self.system_prompt.trim().is_empty() {
            parts.push(self.system_prompt);
        }
        parts.extend(
            self.history
                .iter()
                .filter(|m| m.role == Role::System && !m.content.trim().is_empty())
                .map(|m| m.content.as_str()),
        );
        let section = if self.mode == ToolMode::Prompt && !self.tools.is_empty() {
            prompt::system_prompt_section(self.tools)
        } else {
            String::new()
        };
        if !section.is_empty() {
            parts.push(&section);
        }
        if !self.recap.trim().is_empty() {
            parts.push(self.recap);
        }
        parts.join("\n\n")
    }
}
