//! The OpenAI-compatible chat completions codec: request building, stream decoding and model
//! lists, for OpenAI, OpenRouter, llama.cpp, Ollama, LM Studio and vLLM alike.
//!
//! It exists so every quirk of these servers lives in one tested place instead of in the
//! runner or the UI. It never performs IO: it builds [`crate::http::HttpRequest`] values and decodes
//! bytes handed to it, so the fixtures under `tests/fixtures/openai/` exercise it natively.
//!
//! It decodes into, and fails with, the provider-neutral vocabulary of `crate::seam`
//! (`StreamEvent`, `ToolCallDelta`, `ProviderError`), and `provider::Provider` dispatches to
//! it. An agent step with its tool calls is built by `step` (the other codecs' `request`
//! modules reshape the same conversation).

mod models;
pub(crate) mod request;
mod step;
mod stream;

pub use models::{from_openai_entry, parse_model_entries, parse_models};
pub use request::{chat_request, models_request, validate_base_url, WireMessage};
pub use step::{rejects_tools, step_request};
pub use stream::{parse_completion_body, ChatStream};

#[cfg(test)]
mod fixture_tests;
