//! Errors answered as an HTTP-like status with `{"error":{"message":…}}`, the shape
//! OpenAI-compatible servers use, so the page's provider code shows them like any server's.

use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// The body is not a chat-completions request.
    BadRequest(String),
    NoModelStored,
    UnknownModel(String),
    /// The model cannot run here (the UnsupportedModel / GGUF sentence, or our own).
    Unsupported(String),
    ImageContent,
    PromptTooLong {
        tokens: usize,
        context: usize,
    },
    OutOfMemory,
    /// Anything else that went wrong while loading or running the model.
    Engine(String),
    /// The request path is not one this worker serves.
    NotFound(String),
}

impl ApiError {
    pub fn status(&self) -> u16 {
        match self {
            Self::BadRequest(_) | Self::ImageContent | Self::PromptTooLong { .. } => 400,
            Self::NoModelStored | Self::UnknownModel(_) | Self::NotFound(_) => 404,
            Self::Unsupported(_) => 422,
            Self::OutOfMemory => 507,
            Self::Engine(_) => 500,
        }
    }

    /// The response body.
    pub fn body(&self) -> String {
        match self {
            // OpenAI's code, so the page knows it for a context refusal and offers to send
            // again without the oldest messages instead of a plain retry.
            Self::PromptTooLong { .. } => serde_json::json!({
                "error": { "message": self.to_string(), "code": "context_length_exceeded" }
            }),
            _ => serde_json::json!({ "error": { "message": self.to_string() } }),
        }
        .to_string()
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::BadRequest(why) => write!(f, "The request could not be read: {why}."),
            Self::NoModelStored => f.write_str(
                "No model is stored in this browser yet: add a GGUF file in Settings → Providers → In this browser.",
            ),
            Self::UnknownModel(id) => write!(
                f,
                "No model called \u{201c}{id}\u{201d} is stored in this browser: pick one listed in Settings → Providers → In this browser."
            ),
            Self::Unsupported(sentence) => f.write_str(sentence),
            Self::ImageContent => f.write_str(
                "This model reads text only; remove the image or pick another provider.",
            ),
            Self::PromptTooLong { tokens, context } => write!(
                f,
                "The conversation is {tokens} tokens, more than this model's context of {context} tokens set in Settings."
            ),
            Self::OutOfMemory => f.write_str(
                "The browser ran out of memory for this model: lower its context in Settings, close other tabs, or pick a smaller model.",
            ),
            Self::Engine(why) => f.write_str(why),
            Self::NotFound(path) => write!(f, "This browser's model worker does not serve {path}."),
        }
    }
}

impl From<crate::model::ModelError> for ApiError {
    fn from(e: crate::model::ModelError) -> Self {
        match e {
            crate::model::ModelError::OutOfMemory => Self::OutOfMemory,
            crate::model::ModelError::Architecture(_) => Self::Unsupported(e.to_string()),
            crate::model::ModelError::Engine(_) => Self::Engine(e.to_string()),
        }
    }
}
