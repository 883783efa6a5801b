//! Messages typed while an answer streams, held until that answer ends.
//!
//! Enter during an answer used to do nothing and say nothing. Now the text waits here, shown
//! as queued with a Cancel, one entry per conversation (a second Enter adds a paragraph to the
//! same entry: one follow-up, not a burst of turns). When the conversation's turn ends, the
//! view asks [`SendQueue::take_when_idle`] with the status of the answer that ended:
//! - it finished → the queued text is sent;
//! - the user stopped it, or it failed or was interrupted → nothing is sent behind the user's
//!   back: the text goes back to the message box with a sentence saying why.
//!
//! Pure data: it never sends, never touches the DOM, and never decides which conversation is
//! open (the view passes the ids).

use crate::chat::MessageStatus;

/// The text to send, or to put back into the message box with the reason shown beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueOutcome {
    Send(String),
    BackToDraft { text: String, reason: &'static str },
}

pub const STOPPED_REASON: &str =
    "You stopped the answer, so your queued message was not sent. It is back in the box.";
pub const FAILED_REASON: &str =
    "The answer did not finish, so your queued message was not sent. It is back in the box.";

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SendQueue {
    /// `(conversation id, text)`, at most one entry per conversation.
    entries: Vec<(String, String)>,
}

impl SendQueue {
    /// Queue `text` for `conv_id`; text already queued there gets it as a new paragraph.
    /// Blank text is ignored.
    pub fn push(&mut self, conv_id: &str, text: &str) {
        let text = text.trim_end();
        if text.trim().is_empty() {
            return;
        }
        match self.entries.iter_mut().find(|(id, _)| id == conv_id) {
            Some((_, queued)) => {
                queued.push_str("\n\n");
                queued.push_str(text);
            }
            None => self.entries.push((conv_id.to_string(), text.to_string())),
        }
    }

    /// What is queued for `conv_id`.
    pub fn get(&self, conv_id: &str) -> Option<&str> {
        self.entries
            .iter()
            .find(|(id, _)| id == conv_id)
            .map(|(_, t)| t.as_str())
    }

    /// The user cancelled: the entry is removed and its text handed back (for the box).
    pub fn cancel(&mut self, conv_id: &str) -> Option<String> {
        let at = self.entries.iter().position(|(id, _)| id == conv_id)?;
        Some(self.entries.remove(at).1)
    }

    /// `conv_id` has no turn running; `last` is the status of its newest message (`None` when
    /// it has none). Takes the entry out when there is something to do with it; a conversation
    /// that still streams (in another tab) keeps its entry.
    pub fn take_when_idle(
        &mut self,
        conv_id: &str,
        last: Option<&MessageStatus>,
    ) -> Option<QueueOutcome> {
        if matches!(last, Some(MessageStatus::Streaming)) {
            return None;
        }
        let text = self.cancel(conv_id)?;
        Some(match last {
            None | Some(MessageStatus::Done) => QueueOutcome::Send(text),
            Some(MessageStatus::Stopped) => QueueOutcome::BackToDraft {
                text,
                reason: STOPPED_REASON,
            },
            Some(_) => QueueOutcome::BackToDraft {
                text,
                reason: FAILED_REASON,
            },
        })
    }

    /// Drops the entries of conversations that no longer exist (deleted here or elsewhere).
    pub fn retain_conversations(&mut self, exists: impl Fn(&str) -> bool) {
        self.entries.retain(|(id, _)| exists(id));
    }
}

/// The message box after queued text comes back: the queued text first (it was typed first),
/// then whatever the user has typed since, so nothing is lost.
pub fn back_into_draft(queued: &str, draft: &str) -> String {
    if draft.trim().is_empty() {
        queued.to_string()
    } else {
        format!("{queued}\n\n{draft}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_answer_sends_the_queued_text() {
        let mut q = SendQueue::default();
        q.push("a", "and then?  \n");
        assert_eq!(q.get("a"), Some("and then?"));
        assert_eq!(
            q.take_when_idle("a", Some(&MessageStatus::Done)),
            Some(QueueOutcome::Send("and then?".into()))
        );
        assert_eq!(q.get("a"), None);
        assert_eq!(q.take_when_idle("a", Some(&MessageStatus::Done)), None);
    }

    #[test]
    fn a_second_enter_adds_a_paragraph_to_the_same_entry() {
        let mut q = SendQueue::default();
        q.push("a", "first");
        q.push("b", "other conversation");
        q.push("a", "second");
        q.push("a", "   ");
        assert_eq!(q.get("a"), Some("first\n\nsecond"));
        assert_eq!(q.get("b"), Some("other conversation"));
    }

    #[test]
    fn stop_and_failure_put_the_text_back_instead_of_sending() {
        let mut q = SendQueue::default();
        q.push("a", "x");
        assert_eq!(
            q.take_when_idle("a", Some(&MessageStatus::Stopped)),
            Some(QueueOutcome::BackToDraft {
                text: "x".into(),
                reason: STOPPED_REASON
            })
        );
        for status in [
            MessageStatus::Error("boom".into()),
            MessageStatus::Interrupted,
        ] {
            q.push("a", "y");
            assert_eq!(
                q.take_when_idle("a", Some(&status)),
                Some(QueueOutcome::BackToDraft {
                    text: "y".into(),
                    reason: FAILED_REASON
                })
            );
        }
    }

    #[test]
    fn an_answer_streaming_elsewhere_keeps_the_entry() {
        let mut q = SendQueue::default();
        q.push("a", "x");
        assert_eq!(q.take_when_idle("a", Some(&MessageStatus::Streaming)), None);
        assert_eq!(q.get("a"), Some("x"));
        assert_eq!(
            q.take_when_idle("a", None),
            Some(QueueOutcome::Send("x".into()))
        );
    }

    #[test]
    fn cancel_and_deleted_conversations() {
        let mut q = SendQueue::default();
        q.push("a", "x");
        q.push("b", "y");
        assert_eq!(q.cancel("a"), Some("x".into()));
        assert_eq!(q.cancel("a"), None);
        q.retain_conversations(|id| id != "b");
        assert_eq!(q.get("b"), None);
    }

    #[test]
    fn text_coming_back_goes_before_what_was_typed_since() {
        assert_eq!(back_into_draft("queued", ""), "queued");
        assert_eq!(back_into_draft("queued", " \n"), "queued");
        assert_eq!(back_into_draft("queued", "new"), "queued\n\nnew");
    }
}
