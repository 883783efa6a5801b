//! What crosses the provider seam, whichever wire format is behind it: what one request is
//! built from ([`StepContext`], [`ChatParams`], a user turn's attachments as [`piece`]s), what
//! a stream decoder hands back ([`StreamEvent`], tool-call fragments as [`ToolCallDelta`],
//! images the model made through [`image_out`]) and what can go wrong ([`ProviderError`], with
//! the sentence a user reads).
//!
//! Architecture invariant: below every codec (`openai`, `anthropic`, `gemini`) and below
//! `provider`, which dispatches to them, so a codec never imports the provider, the agent loop
//! or the settings. It names no provider kind and decides no policy; it imports only the tool
//! wire formats (`tools`), records, display rules and leaf helpers.

mod error;
mod event;
pub mod image_out;
pub mod piece;
mod progress;
mod step;

pub(crate) use error::{detail_from_json, shorten};
pub use error::{
    error_from_response, is_context_too_long_sentence, parse_retry_after, unanswered,
    ProviderError, CONTEXT_TOO_LONG_LEAD,
};
pub use event::{StreamEvent, ToolCallDelta};
pub use progress::Progress;
pub use step::{ChatParams, ReasoningEffort, StepContext};

/// The base URL of the in-browser model: not a network address. `platform::fetch` sends
/// requests under it to the model worker, which answers them as an OpenAI-compatible server.
pub const IN_BROWSER_BASE: &str = "in-browser://model";
