//! How a turn ended, and what its last message keeps of that.
//!
//! The machine ends a turn with a [`TurnEnd`]; the runner only writes what it maps to into the
//! message: its status, and for the step limit a typed [`FinishReason`] the UI reads to offer
//! Continue. The step limit used to be the string `"step_limit"` in the provider's
//! `finish_reason` field; it is stored as exactly that string still, so a conversation saved
//! before (or by an older tab) keeps its Continue button.

use crate::records::finish_reason::FinishReason;
use crate::records::message::MessageStatus;

/// Why a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnEnd {
    /// The model answered without calling a tool.
    Answered,
    /// The step limit was reached with tool results the model has not seen.
    StepLimit,
    /// The user pressed Stop.
    Stopped,
    /// The model request failed; the sentence says why, for the user.
    Failed(String),
}

impl TurnEnd {
    /// The status of the turn's last message.
    pub fn message_status(&self) -> MessageStatus {
        match self {
            TurnEnd::Answered | TurnEnd::StepLimit => MessageStatus::Done,
            TurnEnd::Stopped => MessageStatus::Stopped,
            TurnEnd::Failed(sentence) => MessageStatus::Error(sentence.clone()),
        }
    }

    /// What the last message records about the end beyond its status (the provider's own
    /// reason stays otherwise).
    pub fn finish_reason(&self) -> Option<FinishReason> {
        match self {
            TurnEnd::StepLimit => Some(FinishReason::StepLimit),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_end_maps_to_the_message_it_leaves() {
        assert_eq!(TurnEnd::Answered.message_status(), MessageStatus::Done);
        assert_eq!(TurnEnd::Answered.finish_reason(), None);
        assert_eq!(TurnEnd::StepLimit.message_status(), MessageStatus::Done);
        assert_eq!(
            TurnEnd::StepLimit.finish_reason(),
            Some(FinishReason::StepLimit)
        );
        assert_eq!(TurnEnd::Stopped.message_status(), MessageStatus::Stopped);
        assert_eq!(
            TurnEnd::Failed("No answer.".into()).message_status(),
            MessageStatus::Error("No answer.".into())
        );
    }
}
