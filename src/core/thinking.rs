//! The thinking an answer must give back: a provider that signs its model's thinking
//! (Anthropic's `thinking` blocks with a `signature`, its encrypted `redacted_thinking`)
//! refuses a tool loop that continues without it, so an answer keeps each sealed piece, in
//! order, on its `Message` (`Message::thinking`), and the request builder replays it.
//!
//! It exists apart from `Message::reasoning` (the text shown, collapsed) because what goes
//! back must be exactly what was signed, block by block, while the shown text is one string.
//! Nothing here decides *whether* thinking goes back (that is the request builder's rule:
//! same model, thinking on); this only records what came.

use crate::records::thought::Thought;
use crate::seam::StreamEvent;

/// Follows one answer's stream events and hands out each thought as it is sealed.
///
/// Thinking text waits for its seal. Visible text or a tool call ends a thinking run that got
/// none (a server that streams thinking it does not sign), so unsigned text is never joined to
/// a later seal that did not cover it.
#[derive(Debug, Default)]
pub struct ThoughtLog {
    pending: String,
}

impl ThoughtLog {
    /// The thought `ev` completes, if it completes one.
    pub fn on_event(&mut self, ev: &StreamEvent) -> Option<Thought> {
        match ev {
            StreamEvent::Reasoning(t) => {
                self.pending.push_str(t);
                None
            }
            StreamEvent::ReasoningSignature(signature) => Some(Thought::signed(
                std::mem::take(&mut self.pending),
                signature.clone(),
            )),
            StreamEvent::RedactedReasoning(data) => Some(Thought::redacted(data.clone())),
            StreamEvent::Content(_) | StreamEvent::ToolCall(_) | StreamEvent::Image(_) => {
                self.pending.clear();
                None
            }
            StreamEvent::Usage(_)
            | StreamEvent::Progress(_)
            | StreamEvent::Timings(_)
            | StreamEvent::Finish(_)
            | StreamEvent::Done => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thoughts_come_sealed_in_order_and_unsigned_text_is_dropped() {
        let mut log = ThoughtLog::default();
        let events = [
            StreamEvent::Reasoning("Let me ".into()),
            StreamEvent::Reasoning("think.".into()),
            StreamEvent::ReasoningSignature("sig-1".into()),
            StreamEvent::RedactedReasoning("ENC".into()),
            StreamEvent::Reasoning("unsigned".into()),
            StreamEvent::Content("Answer".into()),
            StreamEvent::Reasoning("more".into()),
            StreamEvent::ReasoningSignature("sig-2".into()),
            StreamEvent::Done,
        ];
        let got: Vec<Thought> = events.iter().filter_map(|e| log.on_event(e)).collect();
        assert_eq!(
            got,
            vec![
                Thought::signed("Let me think.".into(), "sig-1".into()),
                Thought::redacted("ENC".into()),
                Thought::signed("more".into(), "sig-2".into()),
            ]
        );
        assert_eq!(
            serde_json::to_string(&got[..2]).unwrap(),
            r#"[{"text":"Let me think.","signature":"sig-1"},{"redacted":"ENC"}]"#
        );
    }
}
