//! The OpenAI-compatible chat completions codec: request building, stream decoding and model
//! lists, for OpenAI, OpenRouter, llama.cpp, Ollama, LM Studio and vLLM alike.
//!
//! It exists so every quirk of these servers lives in one tested place instead of in the
//! runner or the UI. It never performs IO: it builds [`crate::http::HttpRequest`] values and decodes
//! bytes handed to it, so the fixtures under `tests/fixtures/openai/` exercise it natively.
//!
//! It decodes into, and fails with, the provider-neutral vocabulary of `crate::provider`
//! (`StreamEvent`, `ToolCallDelta`, `ProviderError`), which `provider::Provider` dispatches to.

mod models;
pub(crate) mod request;
mod stream;

pub use models::{from_openai_entry, parse_model_entries, parse_models};
pub use request::{chat_request, models_request, validate_base_url, WireMessage};
pub use stream::{parse_completion_body, ChatStream};

#[cfg(test)]
mod fixture_tests;
