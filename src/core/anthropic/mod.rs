//! Anthropic's Messages API (`POST /v1/messages`) for the agent loop: a request builder and a
//! stream decoder, the two pieces a provider plugs into `agent` (see `agent::wire_openai` and
//! `openai::ChatStream` for the OpenAI-compatible pair).
//!
//! It exists because Anthropic's wire differs from OpenAI's in every place the loop touches:
//! the system prompt is a top-level field, roles must alternate, tool calls are `tool_use`
//! content blocks answered by `tool_result` blocks inside one user turn, and the stream is a
//! sequence of typed block events. Decoding still yields `openai::StreamEvent`, so
//! `agent::assemble` and `agent::AgentRun` work unchanged.
//!
//! Not wired into the UI yet: the "providers" issue adds the setting that picks this codec.
//! HTTP error bodies (`{"type":"error","error":{"type","message"}}`) need no code of their own:
//! `openai::error_from_response` already finds their message (tested in `fixture_tests`).

mod request;
mod stream;

pub use request::step_request;
pub use stream::AnthropicStream;

/// The API version every request pins (`anthropic-version`).
pub const API_VERSION: &str = "2023-06-01";

/// `max_tokens` is required by the API; this is sent when the user set none.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

#[cfg(test)]
mod fixture_tests;
