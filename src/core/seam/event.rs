//! What a stream decoder hands the rest of Skiff, whatever the provider's wire format: text,
//! thinking, usage, progress and timings, the end, native tool-call fragments, and whole images the model made.
//!
//! It exists so the agent machine, the tool-call assembler and the runner's batching never
//! name a provider. A decoder must translate its wire into exactly these; nothing here may
//! grow a variant that only one provider could send.

use super::image_out::ImageOut;
use super::progress::Progress;
use crate::records::message::Usage;
use crate::records::speed::AnswerSpeed;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEvent {
    /// Visible answer text to append.
    Content(String),
    /// Model "thinking" text to append.
    Reasoning(String),
    /// The provider's seal on the thinking since the previous seal (or since the answer
    /// began): an opaque signature it wants back, with that thinking, when the conversation
    /// continues (Anthropic's `signature_delta`; Gemini's `thoughtSignature` and OpenRouter's
    /// `reasoning_details[].signature` are the same idea). See `thinking::ThoughtLog`.
    ReasoningSignature(String),
    /// Thinking the provider sent encrypted: nothing to show, but it must go back as it came
    /// (Anthropic's `redacted_thinking`; OpenRouter's `reasoning.encrypted` is the same idea).
    RedactedReasoning(String),
    /// Token counts reported by the server (may repeat; the last one wins).
    Usage(Usage),
    /// What a local server is doing before the first token (loading, reading the prompt).
    Progress(Progress),
    /// How long the prompt and the answer took, as the server timed them (llama.cpp's
    /// `timings`, which Skiff's model worker sends too).
    Timings(AnswerSpeed),
    /// Why generation ended, in the provider's words (`stop`, `length`, `tool_calls`,
    /// `end_turn`, `tool_use`, ...).
    Finish(String),
    /// A whole image the model returned (Gemini `inlineData`, OpenAI-compatible `images`),
    /// already checked by `image_out`; what fails the check arrives as a `Content` note.
    Image(ImageOut),
    /// A fragment of a native tool call.
    ToolCall(ToolCallDelta),
    /// The provider said the answer is whole (`data: [DONE]`, `message_stop`).
    Done,
}

/// One fragment of a native tool call, keyed by `index`: the first for an index usually
/// carries `id` and `name`, later ones pieces of `arguments` (see `agent::assemble`). OpenAI's
/// `delta.tool_calls[]` entries and Anthropic's `tool_use` block events both become these.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCallDelta {
    pub index: u32,
    pub id: Option<String>,
    pub name: Option<String>,
    pub arguments: String,
}
