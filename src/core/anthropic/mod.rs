//! Anthropic's Messages API (`POST /v1/messages`) for the agent loop: a request builder and a
//! stream decoder, which `provider::Provider` dispatches to when the settings say
//! `ProviderKind::Anthropic` (`openai::step_request` and `openai::ChatStream` are the
//! OpenAI-compatible pair).
//!
//! It exists because Anthropic's wire differs from OpenAI's in every place the loop touches:
//! the system prompt is a top-level field, roles must alternate, tool calls are `tool_use`
//! content blocks answered by `tool_result` blocks inside one user turn, and the stream is a
//! sequence of typed block events. Decoding still yields the neutral `provider::StreamEvent`,
//! so `agent::assemble` and `agent::AgentRun` work unchanged.
//!
//! Not selectable in the UI yet: the "providers" issue adds the control that sets
//! `ChatSettings::provider`. HTTP error bodies (`{"type":"error","error":{"type","message"}}`)
//! need no code of their own: `provider::error_from_response` already finds their message
//! (tested in `fixture_tests`).

mod request;
mod stream;

mod models;
pub use models::models_request;
pub use request::step_request;
pub use stream::AnthropicStream;

/// The API version every request pins (`anthropic-version`).
pub const API_VERSION: &str = "2023-06-01";

/// `max_tokens` is required by the API; this is sent when the user set none.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

#[cfg(test)]
mod fixture_tests;
