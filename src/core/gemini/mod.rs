//! Google's Gemini API (`models/{model}:streamGenerateContent?alt=sse`) for the agent loop: a
//! request builder, the conversion of MCP tool schemas to the subset Gemini accepts, a stream
//! decoder, and the reading of its finish reasons and error bodies. `provider::Provider`
//! dispatches here when the settings say `ProviderKind::Gemini`.
//!
//! It exists because Gemini's wire differs from the other two in every place the loop touches:
//! the key is an `x-goog-api-key` header, the system prompt is `systemInstruction`, turns are
//! `contents` with `user`/`model` roles, tools are `functionDeclarations` whose parameters are
//! an OpenAPI subset, calls come whole (and in older versions without ids) and are answered by
//! `functionResponse` parts paired by name and order, the stream has no end marker but a
//! `finishReason`, and safety blocks arrive as reasons rather than errors. Decoding still
//! yields the neutral `provider::StreamEvent`, so `agent::assemble` and `agent::AgentRun` work
//! unchanged. This module never performs IO.

mod error;
mod finish;
mod request;
mod schema;
mod stream;

pub use error::error_from_response;
pub use finish::{BlockReason, FinishReason, Outcome};
mod models;
pub use models::{from_gemini_entry, models_request, parse_model_entries, parse_models};
pub use request::{schema_notes, step_request, SKIP_SIGNATURE};
pub use schema::{to_gemini, Converted, Dropped, Effect};
pub use stream::GeminiStream;

/// The base URL Settings suggests for Gemini.
pub const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com/v1beta";

/// Whether a refusal means "this model takes no function declarations" (Gemma models served
/// by the Gemini API answer 400 "Function calling is not enabled for models/gemma-3-27b-it"),
/// so auto tool mode retries the step prompt-based.
pub fn rejects_tools(status: u16, body: &str) -> bool {
    status == 400
        && body
            .to_ascii_lowercase()
            .contains("function calling is not enabled")
}

#[cfg(test)]
mod fixture_tests;
