//! One decoder type for every provider's stream, so the runner's read loop is written once.
//!
//! Each variant is a provider's own incremental decoder with the same contract (see
//! `openai::ChatStream`): events decoded before a bad chunk are never lost, a failed decoder
//! stays failed, and only the provider's own end marker makes an answer whole, so `finish`
//! on a body cut short is `StreamCut`, never a silently shortened answer. This type adds no
//! behaviour of its own; it must stay a plain dispatch.

use super::{ProviderError, StreamEvent};
use crate::anthropic::AnthropicStream;
use crate::gemini::GeminiStream;
use crate::openai::ChatStream;

/// The stream decoder a [`super::Provider`] hands out for one request.
#[derive(Debug)]
pub enum Decoder {
    OpenAiCompatible(ChatStream),
    Anthropic(AnthropicStream),
    Gemini(GeminiStream),
}

impl Decoder {
    /// Decode the next chunk of the response body.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<StreamEvent>, ProviderError> {
        match self {
            Decoder::OpenAiCompatible(d) => d.feed(bytes),
            Decoder::Anthropic(d) => d.feed(bytes),
            Decoder::Gemini(d) => d.feed(bytes),
        }
    }

    /// End of the body: the last events, or why the answer is not whole.
    pub fn finish(&mut self) -> Result<Vec<StreamEvent>, ProviderError> {
        match self {
            Decoder::OpenAiCompatible(d) => d.finish(),
            Decoder::Anthropic(d) => d.finish(),
            Decoder::Gemini(d) => d.finish(),
        }
    }

    /// Whether the provider has marked the answer whole.
    pub fn is_complete(&self) -> bool {
        match self {
            Decoder::OpenAiCompatible(d) => d.is_complete(),
            Decoder::Anthropic(d) => d.is_complete(),
            Decoder::Gemini(d) => d.is_complete(),
        }
    }
}
