//! Why Gemini ended an answer, or refused to begin one, as typed values with a sentence a user
//! can act on.
//!
//! Gemini ends every candidate with a `finishReason`, and a prompt it will not answer at all
//! comes back with `promptFeedback.blockReason` and no candidates. Only `STOP` and
//! `MAX_TOKENS` leave an answer that may be shown as whole; every other reason means the text
//! was withheld or cut for a reason of Gemini's own, which the user must be told rather than
//! shown a silently short answer. Unknown values (the enum grows) are kept verbatim, never
//! guessed at.

/// `Candidate.finishReason`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishReason {
    /// A natural end, or a stop sequence.
    Stop,
    /// `generationConfig.maxOutputTokens` was reached.
    MaxTokens,
    Safety,
    Recitation,
    Language,
    Blocklist,
    ProhibitedContent,
    /// Sensitive personally identifiable information.
    Spii,
    MalformedFunctionCall,
    UnexpectedToolCall,
    TooManyToolCalls,
    ImageSafety,
    ImageProhibitedContent,
    ImageRecitation,
    ImageOther,
    NoImage,
    MissingThoughtSignature,
    Other,
    /// `FINISH_REASON_UNSPECIFIED`, or a value added after this was written (kept verbatim).
    Unknown(String),
}

/// What a finish reason means for the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The answer is whole (possibly cut at the token limit, which the user asked for).
    Whole,
    /// Gemini withheld or cut the answer on a policy (safety, recitation, blocklist...).
    Blocked(String),
    /// Gemini failed to finish the answer for another reason.
    Failed(String),
}

impl FinishReason {
    pub fn parse(wire: &str) -> FinishReason {
        match wire {
            "STOP" => FinishReason::Stop,
            "MAX_TOKENS" => FinishReason::MaxTokens,
            "SAFETY" => FinishReason::Safety,
            "RECITATION" => FinishReason::Recitation,
            "LANGUAGE" => FinishReason::Language,
            "BLOCKLIST" => FinishReason::Blocklist,
            "PROHIBITED_CONTENT" => FinishReason::ProhibitedContent,
            "SPII" => FinishReason::Spii,
            "MALFORMED_FUNCTION_CALL" => FinishReason::MalformedFunctionCall,
            "UNEXPECTED_TOOL_CALL" => FinishReason::UnexpectedToolCall,
            "TOO_MANY_TOOL_CALLS" => FinishReason::TooManyToolCalls,
            "IMAGE_SAFETY" => FinishReason::ImageSafety,
            "IMAGE_PROHIBITED_CONTENT" => FinishReason::ImageProhibitedContent,
            "IMAGE_RECITATION" => FinishReason::ImageRecitation,
            "IMAGE_OTHER" => FinishReason::ImageOther,
            "NO_IMAGE" => FinishReason::NoImage,
            "MISSING_THOUGHT_SIGNATURE" => FinishReason::MissingThoughtSignature,
            "OTHER" => FinishReason::Other,
            other => FinishReason::Unknown(other.to_string()),
        }
    }

    /// The wire name, which is also what `StreamEvent::Finish` carries for a whole answer.
    pub fn as_str(&self) -> &str {
        match self {
            FinishReason::Stop => "STOP",
            FinishReason::MaxTokens => "MAX_TOKENS",
            FinishReason::Safety => "SAFETY",
            FinishReason::Recitation => "RECITATION",
            FinishReason::Language => "LANGUAGE",
            FinishReason::Blocklist => "BLOCKLIST",
            FinishReason::ProhibitedContent => "PROHIBITED_CONTENT",
            FinishReason::Spii => "SPII",
            FinishReason::MalformedFunctionCall => "MALFORMED_FUNCTION_CALL",
            FinishReason::UnexpectedToolCall => "UNEXPECTED_TOOL_CALL",
            FinishReason::TooManyToolCalls => "TOO_MANY_TOOL_CALLS",
            FinishReason::ImageSafety => "IMAGE_SAFETY",
            FinishReason::ImageProhibitedContent => "IMAGE_PROHIBITED_CONTENT",
            FinishReason::ImageRecitation => "IMAGE_RECITATION",
            FinishReason::ImageOther => "IMAGE_OTHER",
            FinishReason::NoImage => "NO_IMAGE",
            FinishReason::MissingThoughtSignature => "MISSING_THOUGHT_SIGNATURE",
            FinishReason::Other => "OTHER",
            FinishReason::Unknown(s) => s,
        }
    }

    /// Whether the answer stands, and if not, the sentence that says why.
    pub fn outcome(&self) -> Outcome {
        let blocked = |why: &str| Outcome::Blocked(format!("{why} ({})", self.as_str()));
        let failed = |why: &str| Outcome::Failed(format!("{why} ({})", self.as_str()));
        match self {
            FinishReason::Stop | FinishReason::MaxTokens => Outcome::Whole,
            FinishReason::Safety => blocked("Gemini stopped the answer because it may break its safety rules"),
            FinishReason::Recitation => blocked("Gemini stopped the answer because it was repeating a source it may not quote at length"),
            FinishReason::Language => blocked("Gemini stopped the answer because it does not support the language asked for"),
            FinishReason::Blocklist => blocked("Gemini stopped the answer because it contained a term from a blocklist"),
            FinishReason::ProhibitedContent => blocked("Gemini stopped the answer because it may contain prohibited content"),
            FinishReason::Spii => blocked("Gemini stopped the answer because it may contain sensitive personal information"),
            FinishReason::ImageSafety | FinishReason::ImageProhibitedContent => blocked("Gemini withheld an image it made because it may break its safety rules"),
            FinishReason::ImageRecitation => blocked("Gemini withheld an image it made because it may copy a source"),
            FinishReason::MalformedFunctionCall => failed("The model wrote a tool call Gemini could not read"),
            FinishReason::UnexpectedToolCall => failed("The model called a tool that was not offered"),
            FinishReason::TooManyToolCalls => failed("The model called too many tools in a row"),
            FinishReason::MissingThoughtSignature => failed("Gemini refused the conversation because a tool call lost its thought signature"),
            FinishReason::ImageOther | FinishReason::NoImage => failed("Gemini did not produce the image it was asked for"),
            FinishReason::Other => failed("Gemini stopped the answer for an unspecified reason"),
            FinishReason::Unknown(_) => failed("Gemini stopped the answer for a reason Skiff does not know"),
        }
    }
}

/// `promptFeedback.blockReason`: the prompt itself was refused, so no answer was begun.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockReason {
    Safety,
    Blocklist,
    ProhibitedContent,
    ImageSafety,
    Other,
    /// `BLOCK_REASON_UNSPECIFIED`, or a value added after this was written (kept verbatim).
    Unknown(String),
}

impl BlockReason {
    pub fn parse(wire: &str) -> BlockReason {
        match wire {
            "SAFETY" => BlockReason::Safety,
            "BLOCKLIST" => BlockReason::Blocklist,
            "PROHIBITED_CONTENT" => BlockReason::ProhibitedContent,
            "IMAGE_SAFETY" => BlockReason::ImageSafety,
            "OTHER" => BlockReason::Other,
            other => BlockReason::Unknown(other.to_string()),
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            BlockReason::Safety => "SAFETY",
            BlockReason::Blocklist => "BLOCKLIST",
            BlockReason::ProhibitedContent => "PROHIBITED_CONTENT",
            BlockReason::ImageSafety => "IMAGE_SAFETY",
            BlockReason::Other => "OTHER",
            BlockReason::Unknown(s) => s,
        }
    }

    /// The sentence (without a final full stop) saying why nothing was answered.
    pub fn sentence(&self) -> String {
        let why = match self {
            BlockReason::Safety => {
                "Gemini refused the message because it may break its safety rules"
            }
            BlockReason::Blocklist => {
                "Gemini refused the message because it contains a term from a blocklist"
            }
            BlockReason::ProhibitedContent => {
                "Gemini refused the message because it may ask for prohibited content"
            }
            BlockReason::ImageSafety => {
                "Gemini refused the message because an image in it may break its safety rules"
            }
            BlockReason::Other | BlockReason::Unknown(_) => {
                "Gemini refused the message without saying why"
            }
        };
        format!("{why} ({})", self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_stop_and_max_tokens_leave_a_whole_answer() {
        for wire in [
            "STOP",
            "MAX_TOKENS",
            "SAFETY",
            "RECITATION",
            "LANGUAGE",
            "BLOCKLIST",
            "PROHIBITED_CONTENT",
            "SPII",
            "MALFORMED_FUNCTION_CALL",
            "UNEXPECTED_TOOL_CALL",
            "TOO_MANY_TOOL_CALLS",
            "IMAGE_SAFETY",
            "IMAGE_PROHIBITED_CONTENT",
            "IMAGE_RECITATION",
            "IMAGE_OTHER",
            "NO_IMAGE",
            "MISSING_THOUGHT_SIGNATURE",
            "OTHER",
            "FINISH_REASON_UNSPECIFIED",
            "SOMETHING_NEW",
        ] {
            let reason = FinishReason::parse(wire);
            assert_eq!(reason.as_str(), wire, "the wire name survives");
            let whole = matches!(reason.outcome(), Outcome::Whole);
            assert_eq!(whole, wire == "STOP" || wire == "MAX_TOKENS", "{wire}");
            if let Outcome::Blocked(s) | Outcome::Failed(s) = reason.outcome() {
                assert!(s.ends_with(&format!("({wire})")), "{s}");
            }
        }
        assert_eq!(
            FinishReason::parse("SAFETY").outcome(),
            Outcome::Blocked(
                "Gemini stopped the answer because it may break its safety rules (SAFETY)".into()
            )
        );
        assert_eq!(
            FinishReason::parse("MALFORMED_FUNCTION_CALL").outcome(),
            Outcome::Failed(
                "The model wrote a tool call Gemini could not read (MALFORMED_FUNCTION_CALL)"
                    .into()
            )
        );
    }

    #[test]
    fn block_reasons_name_themselves() {
        for wire in [
            "SAFETY",
            "BLOCKLIST",
            "PROHIBITED_CONTENT",
            "IMAGE_SAFETY",
            "OTHER",
            "BLOCK_REASON_UNSPECIFIED",
        ] {
            let reason = BlockReason::parse(wire);
            assert_eq!(reason.as_str(), wire);
            assert!(reason.sentence().ends_with(&format!("({wire})")));
        }
        assert_eq!(
            BlockReason::parse("PROHIBITED_CONTENT").sentence(),
            "Gemini refused the message because it may ask for prohibited content (PROHIBITED_CONTENT)"
        );
    }
}
