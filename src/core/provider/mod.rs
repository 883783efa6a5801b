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
//! [`ProviderError`]s out: those types live in `seam`, below the codecs, and are re-exported
//! here for the runner and the page. The codecs themselves stay in `openai`, `anthropic` and
//! `gemini`. The settings build a provider (`ChatSettings::provider`); this module never reads
//! them.
//!
//! Architecture invariant: the runner and the agent machine never name a wire format; adding
//! a provider adds a [`ProviderKind`] and a match arm here, nothing above. This module never
//! performs IO and never decides policy (which mode, which tools, when to retry).

mod decoder;

use serde::{Deserialize, Serialize};

use crate::anthropic::{self, AnthropicStream};
use crate::gemini::{self, GeminiStream};
use crate::http::HttpRequest;
use crate::openai::{validate_base_url, ChatStream};
use crate::records::capabilities::ModelEntry;

pub use crate::seam::{
    error_from_response, is_context_too_long_sentence, parse_retry_after, unanswered, ChatParams,
    ProviderError, ReasoningEffort, StepContext, StreamEvent, ToolCallDelta, CONTEXT_TOO_LONG_LEAD,
    IN_BROWSER_BASE,
};
pub use decoder::Decoder;

/// The default for `ChatSettings::silence_limit_s`: long enough for a slow local model
/// between tokens, short enough that a dead stream is said within a minute.
pub const DEFAULT_SILENCE_LIMIT_S: u32 = 60;

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
    /// Google's Gemini API, `POST {base}/models/{model}:streamGenerateContent?alt=sse`.
    #[serde(rename = "gemini")]
    Gemini,
    /// A GGUF model stored in this browser, run by the model worker (`src/worker`). It speaks
    /// the OpenAI-compatible wire format at [`IN_BROWSER_BASE`], an address only
    /// `platform::fetch` knows: it hands those requests to the worker instead of the network.
    #[serde(rename = "browser")]
    InBrowser,
}

crate::names::named_enum!(ProviderKind, "provider kind", {
    OpenAiCompatible => "openai",
    Anthropic => "anthropic",
    Gemini => "gemini",
    InBrowser => "browser",
});

impl ProviderKind {
    /// What Settings calls the kind.
    pub fn label(self) -> &'static str {
        match self {
            ProviderKind::OpenAiCompatible => "OpenAI-compatible",
            ProviderKind::Anthropic => "Anthropic",
            ProviderKind::Gemini => "Google Gemini",
            ProviderKind::InBrowser => "In this browser",
        }
    }

    /// Whether the kind's requests take a thinking budget in tokens (Anthropic, Gemini); an
    /// OpenAI-compatible server takes `reasoning_effort` words instead.
    pub fn takes_thinking_budget(self) -> bool {
        matches!(self, ProviderKind::Anthropic | ProviderKind::Gemini)
    }

    /// Whether the kind is reached over the network with an address and key the user types
    /// (the in-browser model has neither).
    pub fn is_remote(self) -> bool {
        self != ProviderKind::InBrowser
    }

    /// The base URL Settings suggests for the kind.
    pub fn base_url_hint(self) -> &'static str {
        match self {
            ProviderKind::OpenAiCompatible => "http://localhost:8080/v1",
            ProviderKind::Anthropic => "https://api.anthropic.com/v1",
            ProviderKind::Gemini => gemini::DEFAULT_BASE_URL,
            ProviderKind::InBrowser => IN_BROWSER_BASE,
        }
    }

    /// The base URL once the kind is switched to `self`: a field that is empty or still holds
    /// a kind's own address (one that was never typed) takes this kind's address, so a key
    /// is not sent to the previous provider's server; an address the user typed stays.
    /// OpenAI-compatible servers have no one address, so that field is left empty.
    pub fn base_url_after_switch(self, current: &str) -> String {
        let typed = current.trim().trim_end_matches('/');
        let untouched = typed.is_empty()
            || [
                ProviderKind::Anthropic,
                ProviderKind::Gemini,
                ProviderKind::InBrowser,
            ]
            .iter()
            .any(|k| k.base_url_hint() == typed);
        match (untouched, self) {
            (false, _) => current.to_string(),
            (true, ProviderKind::OpenAiCompatible) => String::new(),
            (true, kind) => kind.base_url_hint().to_string(),
        }
    }
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
    /// How long a started answer may be silent before it is given up as stalled.
    silence_limit_ms: f64,
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
            // The in-browser model is always at its one address, whatever the field holds.
            base_url: match kind {
                ProviderKind::InBrowser => IN_BROWSER_BASE.to_string(),
                _ => validate_base_url(base_url)?,
            },
            api_key: api_key.to_string(),
            params,
            silence_limit_ms: f64::from(DEFAULT_SILENCE_LIMIT_S) * 1000.0,
        })
    }

    /// Give up a started answer after `ms` without a byte (`ChatSettings::silence_limit_ms`).
    pub fn with_silence_limit_ms(mut self, ms: f64) -> Self {
        self.silence_limit_ms = ms.max(1.0);
        self
    }

    /// How long a started answer may go without a byte; then it is `ProviderError::Stalled`.
    pub fn silence_limit_ms(&self) -> f64 {
        self.silence_limit_ms
    }

    /// The error for an answer silent for [`Provider::silence_limit_ms`].
    pub fn stalled(&self) -> ProviderError {
        ProviderError::Stalled {
            after_s: (self.silence_limit_ms / 1000.0).round() as u32,
        }
    }

    /// The request parameters, for a caller that sets a request's own limits (an MCP
    /// server's sampling request: `mcp::sampling_step::SampleCall::apply`).
    pub fn params_mut(&mut self) -> &mut ChatParams {
        &mut self.params
    }

    pub fn kind(&self) -> ProviderKind {
        self.kind
    }

    /// The validated base URL (the runner names it when the browser blocks mixed content).
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The error to show instead of sending, decided before any request. While the browser
    /// reports no network, a provider on the internet gets "You are offline" rather than the
    /// browser's vague "Failed to fetch"; one on this machine or the local network (a llama.cpp
    /// on 127.0.0.1, an Ollama on the LAN) is still tried, as is the in-browser model.
    pub fn refusal_before_send(&self, online: bool) -> Option<ProviderError> {
        let needs_internet =
            self.kind.is_remote() && !crate::address::reachable_offline(&self.base_url);
        (needs_internet && !online).then_some(ProviderError::Offline)
    }

    fn key(&self) -> Option<&str> {
        Some(self.api_key.as_str()).filter(|k| !k.trim().is_empty())
    }

    /// One agent step as this provider's streaming request.
    pub fn step_request(&self, ctx: &StepContext<'_>) -> HttpRequest {
        match self.kind {
            ProviderKind::OpenAiCompatible | ProviderKind::InBrowser => {
                crate::openai::step_request(&self.base_url, self.key(), &self.params, ctx)
            }
            ProviderKind::Anthropic => {
                anthropic::step_request(&self.base_url, self.key(), &self.params, ctx)
            }
            ProviderKind::Gemini => {
                gemini::step_request(&self.base_url, self.key(), &self.params, ctx)
            }
        }
    }

    /// What this provider's request leaves out of the tools' schemas, as sentences for the
    /// log (only Gemini converts schemas; the others send them as they are).
    pub fn schema_notes(&self, tools: &[crate::tools::spec::ToolSpec]) -> Vec<String> {
        match self.kind {
            ProviderKind::Gemini => gemini::schema_notes(tools),
            _ => Vec::new(),
        }
    }

    /// A fresh decoder for the body of one [`Provider::step_request`].
    pub fn decoder(&self) -> Decoder {
        match self.kind {
            ProviderKind::Anthropic => Decoder::Anthropic(AnthropicStream::new()),
            ProviderKind::Gemini => Decoder::Gemini(GeminiStream::new()),
            _ => Decoder::OpenAiCompatible(ChatStream::new()),
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
            ProviderKind::OpenAiCompatible | ProviderKind::Anthropic | ProviderKind::InBrowser => {
                error_from_response(status, body).with_retry_after(seconds)
            }
            // The header wins; without one, Gemini's `RetryInfo` in the body gives the wait.
            ProviderKind::Gemini => match seconds {
                Some(_) => gemini::error_from_response(status, body).with_retry_after(seconds),
                None => gemini::error_from_response(status, body),
            },
        }
    }

    /// The request that lists the models this provider's key may use (Settings' model list
    /// and "Test connection"). The key goes only in this provider's own header.
    pub fn models_request(&self) -> HttpRequest {
        match self.kind {
            ProviderKind::OpenAiCompatible | ProviderKind::InBrowser => {
                crate::openai::models_request(&self.base_url, self.key())
            }
            ProviderKind::Anthropic => anthropic::models_request(&self.base_url, self.key()),
            ProviderKind::Gemini => gemini::models_request(&self.base_url, self.key()),
        }
    }

    /// The models in a successful answer to [`Provider::models_request`], with what the list
    /// reports about each (Anthropic's list reports no capabilities; its entries read as
    /// OpenAI's do, by `data[].id`).
    pub fn parse_models(&self, body: &str) -> Result<Vec<ModelEntry>, ProviderError> {
        match self.kind {
            ProviderKind::OpenAiCompatible | ProviderKind::InBrowser => {
                crate::openai::parse_model_entries(body)
            }
            ProviderKind::Anthropic => Ok(crate::openai::parse_model_entries(body)?
                .into_iter()
                .map(|m| ModelEntry::new(m.id, Default::default()))
                .collect()),
            ProviderKind::Gemini => gemini::parse_model_entries(body),
        }
    }

    /// Whether a refused request means "this model or server does not take `tools`", so auto
    /// mode retries the step prompt-based.
    pub fn rejects_tools(&self, status: u16, body: &str) -> bool {
        match self.kind {
            ProviderKind::OpenAiCompatible | ProviderKind::InBrowser => {
                crate::openai::rejects_tools(status, body)
            }
            // Every Messages API model takes `tools`; a 400 that mentions them is about a
            // schema or a block, which prompt mode would not fix but would hide.
            ProviderKind::Anthropic => false,
            // Gemini models take function declarations, except Gemma served by the same API.
            ProviderKind::Gemini => gemini::rejects_tools(status, body),
        }
    }
}

#[cfg(test)]
mod tests;
