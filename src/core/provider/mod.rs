//! The provider seam: what the rest of Skiff knows about "the model's server", whichever wire
//! format it speaks.
//!
//! A [`Provider`] is one value, made from the settings, that does the four things that differ
//! per wire format: it builds a step's HTTP request from the conversation
//! ([`Provider::step_request`]), hands out the decoder for its stream ([`Provider::decoder`]),
//! reads an error answer ([`Provider::error_from_response`]), and says whether a refusal means
//! "this server does not take tools" ([`Provider::rejects_tools`]). Everything that crosses
//! the seam is provider-neutral: [`StepContext`] and [`ChatParams`] in, [`HttpRequest`] out,
//! bytes in, [`StreamEvent`]s (tool-call fragments as [`ToolCallDelta`]) and
//! [`ProviderError`]s out. The codecs themselves stay in `openai` and `anthropic`.
//!
//! Architecture invariant: the runner and the agent machine never name a wire format; adding
//! a provider adds a [`ProviderKind`] and a match arm here, nothing above. This module never
//! performs IO and never decides policy (which mode, which tools, when to retry).

mod decoder;
mod error;
mod event;
mod step;

use serde::{Deserialize, Serialize};

use crate::agent::wire_openai;
use crate::anthropic::{self, AnthropicStream};
use crate::http::HttpRequest;
use crate::openai::{validate_base_url, ChatStream};
use crate::settings::ChatSettings;

pub use decoder::Decoder;
pub(crate) use error::{detail_from_json, shorten};
pub use error::{error_from_response, parse_retry_after, ProviderError};
pub use event::{StreamEvent, ToolCallDelta};
pub use step::{ChatParams, StepContext};

/// Which wire format the configured server speaks. Stored in `ChatSettings`; a value stored
/// before this field existed means OpenAI-compatible, the only kind there was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum ProviderKind {
    /// `POST {base}/chat/completions`: OpenAI, OpenRouter, llama.cpp, Ollama, LM Studio, vLLM.
    #[default]
    #[serde(rename = "openai")]
    OpenAiCompatible,
    /// Anthropic's Messages API, `POST {base}/messages`.
    #[serde(rename = "anthropic")]
    Anthropic,
}

/// A configured provider: its kind, where it is, and how to ask it.
#[derive(Debug, Clone, PartialEq)]
pub struct Provider {
    kind: ProviderKind,
    /// Validated (`openai::validate_base_url`): trimmed, no trailing slash.
    base_url: String,
    /// Empty when the server needs no key; each codec then sends no auth header at all.
    api_key: String,
    params: ChatParams,
}

impl Provider {
    /// `Err(InvalidBaseUrl)` when the base URL is unusable, before anything is sent.
    pub fn new(
        kind: ProviderKind,
        base_url: &str,
        api_key: &str,
        params: ChatParams,
    ) -> Result<Provider, ProviderError> {
        Ok(Provider {
            kind,
            base_url: validate_base_url(base_url)?,
            api_key: api_key.to_string(),
            params,
        })
    }

    /// The provider the settings describe, with the model and sampling they hold.
    pub fn from_settings(s: &ChatSettings) -> Result<Provider, ProviderError> {
        let params = ChatParams {
            model: s.model.trim().to_string(),
            temperature: s.temperature,
            top_p: s.top_p,
            max_tokens: s.max_tokens,
        };
        Provider::new(s.provider, &s.base_url, &s.api_key, params)
    }

    pub fn kind(&self) -> ProviderKind {
        self.kind
    }

    /// The validated base URL (the runner names it when the browser blocks mixed content).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    fn key(&self) -> Option<&str> {
        Some(self.api_key.as_str()).filter(|k| !k.trim().is_empty())
    }

    /// One agent step as this provider's streaming request.
    pub fn step_request(&self, ctx: &StepContext<'_>) -> HttpRequest {
        match self.kind {
            ProviderKind::OpenAiCompatible => {
                wire_openai::step_request(&self.base_url, self.key(), &self.params, ctx)
            }
            ProviderKind::Anthropic => {
                anthropic::step_request(&self.base_url, self.key(), &self.params, ctx)
            }
        }
    }

    /// A fresh decoder for the body of one [`Provider::step_request`].
    pub fn decoder(&self) -> Decoder {
        match self.kind {
            ProviderKind::OpenAiCompatible => Decoder::OpenAiCompatible(ChatStream::new()),
            ProviderKind::Anthropic => Decoder::Anthropic(AnthropicStream::new()),
        }
    }

    /// A non-success answer as the error the user reads. `retry_after` is the raw
    /// `Retry-After` header, if the answer had one.
    pub fn error_from_response(
        &self,
        status: u16,
        body: &str,
        retry_after: Option<&str>,
    ) -> ProviderError {
        let seconds = retry_after.and_then(parse_retry_after);
        match self.kind {
            // Anthropic's `{"type":"error","error":{"type","message"}}` and its statuses
            // (402 billing, 413 too large, 529 overloaded) read the same way as OpenAI's.
            ProviderKind::OpenAiCompatible | ProviderKind::Anthropic => {
                error_from_response(status, body).with_retry_after(seconds)
            }
        }
    }

    /// Whether a refused request means "this model or server does not take `tools`", so auto
    /// mode retries the step prompt-based.
    pub fn rejects_tools(&self, status: u16, body: &str) -> bool {
        match self.kind {
            ProviderKind::OpenAiCompatible => wire_openai::rejects_tools(status, body),
            // Every Messages API model takes `tools`; a 400 that mentions them is about a
            // schema or a block, which prompt mode would not fix but would hide.
            ProviderKind::Anthropic => false,
        }
    }
}

#[cfg(test)]
mod tests;
