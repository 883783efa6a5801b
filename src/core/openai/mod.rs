//! The OpenAI-compatible chat completions codec: request building, stream decoding, model
//! lists and error classification, for OpenAI, OpenRouter, llama.cpp, Ollama, LM Studio and
//! vLLM alike.
//!
//! It exists so every provider quirk lives in one tested place instead of in the runner or
//! the UI. It never performs IO: it builds [`crate::http::HttpRequest`] values and decodes
//! bytes handed to it, so the fixtures under `tests/fixtures/openai/` exercise it natively.

mod error;
mod models;
pub(crate) mod request;
mod stream;

pub use error::{error_from_response, parse_retry_after, ProviderError};
pub use models::parse_models;
pub use request::{chat_request, models_request, validate_base_url, ChatParams, WireMessage};
pub use stream::{parse_completion_body, ChatStream, StreamEvent, ToolCallDelta};

#[cfg(test)]
mod fixture_tests;
