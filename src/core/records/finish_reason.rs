//! Why generation of one message ended, as the message stores it. The step limit used to be
//! the string `"step_limit"` in the provider's `finish_reason` field; it is stored as exactly
//! that string still, so a conversation saved before (or by an older tab) keeps its Continue
//! button.

use serde::{Deserialize, Serialize};

/// Why generation of one message ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum FinishReason {
    /// The provider's own word (`stop`, `length`, `tool_calls`, `end_turn`, …), kept verbatim.
    Provider(String),
    /// Skiff ended the turn here at the step limit: the last tool results have not been sent
    /// to the model, and Continue sends them.
    StepLimit,
}

/// The stored form of [`FinishReason::StepLimit`], unchanged from when it was a plain string.
const STEP_LIMIT: &str = "step_limit";

impl FinishReason {
    /// The stored text.
    pub fn as_str(&self) -> &str {
        match self {
            FinishReason::Provider(reason) => reason,
            FinishReason::StepLimit => STEP_LIMIT,
        }
    }

    /// The provider cut the answer at its token limit: OpenAI's `length`, Anthropic's
    /// `max_tokens`, Gemini's `MAX_TOKENS`.
    pub fn is_length(&self) -> bool {
        matches!(self, FinishReason::Provider(r) if matches!(r.as_str(), "length" | "max_tokens" | "MAX_TOKENS"))
    }
}

/// Reading a stored value. A provider that itself answered `"step_limit"` would read back as
/// the step limit; no provider uses that word.
impl From<String> for FinishReason {
    fn from(stored: String) -> Self {
        if stored == STEP_LIMIT {
            FinishReason::StepLimit
        } else {
            FinishReason::Provider(stored)
        }
    }
}

impl From<FinishReason> for String {
    fn from(reason: FinishReason) -> Self {
        match reason {
            FinishReason::Provider(reason) => reason,
            FinishReason::StepLimit => STEP_LIMIT.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::message::Message;

    #[test]
    fn the_step_limit_is_stored_as_it_always_was() {
        // A message saved before the reason was typed still ends at the step limit.
        let old = r#"{"id":"m","role":"assistant","content":"","created_ms":0.0,"status":{"kind":"done"},"finish_reason":"step_limit"}"#;
        let m: Message = serde_json::from_str(old).unwrap();
        assert_eq!(m.finish_reason, Some(FinishReason::StepLimit));
        assert_eq!(serde_json::to_string(&m).unwrap(), old);

        let provider = r#"{"id":"m","role":"assistant","content":"","created_ms":0.0,"status":{"kind":"done"},"finish_reason":"length"}"#;
        let m: Message = serde_json::from_str(provider).unwrap();
        assert_eq!(
            m.finish_reason,
            Some(FinishReason::Provider("length".into()))
        );
        assert!(m
            .finish_reason
            .as_ref()
            .is_some_and(FinishReason::is_length));
        assert_eq!(serde_json::to_string(&m).unwrap(), provider);
        for word in ["max_tokens", "MAX_TOKENS"] {
            assert!(FinishReason::Provider(word.into()).is_length(), "{word}");
        }
        assert!(!FinishReason::Provider("STOP".into()).is_length());
    }
}
