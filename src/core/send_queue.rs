//! Messages typed while an answer streams, held until that answer ends.
//!
//! Enter during an answer used to do nothing and say nothing. Now the message waits here,
//! shown as queued with a Cancel, one entry per conversation (a second Enter adds a paragraph
//! and its files to the same entry: one follow-up, not a burst of turns). Files attached
//! meanwhile wait with the words: their bytes are stored already, the entry holds records.
//! When the conversation's turn ends, the view asks [`SendQueue::take_when_idle`] with the
//! status of the answer that ended:
//! - it finished → the queued message is sent;
//! - the user stopped it, or it failed or was interrupted → nothing is sent behind the user's
//!   back: the words go back to the message box and the files back beside it, with a sentence
//!   saying why.
//!
//! Pure data: it never sends, never touches the DOM, and never decides which conversation is
//! open (the view passes the ids).

use crate::records::attachment::Attachment;
use crate::records::message::MessageStatus;

/// One queued message: its words and the files attached to it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Queued {
    pub text: String,
    pub files: Vec<Attachment>,
}

impl Queued {
    /// What the queued bar shows: the words, then the files' names on a line of their own.
    pub fn shown(&self) -> String {
        let names: Vec<&str> = self.files.iter().map(|a| a.name.as_str()).collect();
        match (self.text.is_empty(), names.is_empty()) {
            (_, true) => self.text.clone(),
            (true, false) => format!("+ {}", names.join(", ")),
            (false, false) => format!("{}\n+ {}", self.text, names.join(", ")),
        }
    }
}

/// The message to send, or to put back into the message box with the reason shown beside it.
#[derive(Debug, Clone, PartialEq)]
pub enum QueueOutcome {
    Send(Queued),
    BackToDraft {
        queued: Queued,
        reason: &'static str,
    },
}

pub const STOPPED_REASON: &str =
    "You stopped the answer, so your queued message was not sent. It is back in the box.";
pub const FAILED_REASON: &str =
    "The answer did not finish, so your queued message was not sent. It is back in the box.";

#[derive(Debug, Clone, Default, PartialEq)]
pub struct SendQueue {
    /// `(conversation id, message)`, at most one entry per conversation.
    entries: Vec<(String, Queued)>,
}

impl SendQueue {
    /// Queue `text` and `files` for `conv_id`; a message already queued there gets the text
    /// as a new paragraph and the files it does not hold yet. Blank text without files is
    /// ignored.
    pub fn push(&mut self, conv_id: &str, text: &str, files: Vec<Attachment>) {
        let text = text.trim_end();
        let text = if text.trim().is_empty() { "" } else { text };
        if text.is_empty() && files.is_empty() {
            return;
        }
        let at = match self.entries.iter().position(|(id, _)| id == conv_id) {
            Some(at) => at,
            None => {
                self.entries.push((conv_id.to_string(), Queued::default()));
                self.entries.len() - 1
            }
        };
        let queued = &mut self.entries[at].1;
        if !text.is_empty() {
            if !queued.text.is_empty() {
                queued.text.push_str("\n\n");
            }
            queued.text.push_str(text);
        }
        for f in files {
            if !queued.files.iter().any(|x| x.hash == f.hash) {
                queued.files.push(f);
            }
        }
    }

    /// What is queued for `conv_id`.
    pub fn get(&self, conv_id: &str) -> Option<&Queued> {
        self.entries
            .iter()
            .find(|(id, _)| id == conv_id)
            .map(|(_, q)| q)
    }

    /// The user cancelled: the entry is removed and handed back (for the box).
    pub fn cancel(&mut self, conv_id: &str) -> Option<Queued> {
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
        let queued = self.cancel(conv_id)?;
        Some(match last {
            None | Some(MessageStatus::Done) => QueueOutcome::Send(queued),
            Some(MessageStatus::Stopped) => QueueOutcome::BackToDraft {
                queued,
                reason: STOPPED_REASON,
            },
            Some(_) => QueueOutcome::BackToDraft {
                queued,
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
    } else if queued.is_empty() {
        draft.to_string()
    } else {
        format!("{queued}\n\n{draft}")
    }
}

/// The files beside the message box after queued files come back: those already there, then
/// the returning ones not among them.
pub fn back_beside_draft(pending: &mut Vec<Attachment>, files: Vec<Attachment>) {
    for f in files {
        if !pending.iter().any(|x| x.hash == f.hash) {
            pending.push(f);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> Queued {
        Queued {
            text: text.into(),
            files: Vec::new(),
        }
    }

    fn file(name: &str, hash: &str) -> Attachment {
        Attachment {
            name: name.into(),
            mime: "image/png".into(),
            size: 4,
            hash: hash.into(),
            w: 1,
            h: 1,
            ow: 1,
            oh: 1,
            data: None,
        }
    }

    #[test]
    fn a_finished_answer_sends_the_queued_text() {
        let mut s = SendQueue::default();
        s.push("a", "and then?  \n", Vec::new());
        assert_eq!(s.get("a"), Some(&q("and then?")));
        assert_eq!(
            s.take_when_idle("a", Some(&MessageStatus::Done)),
            Some(QueueOutcome::Send(q("and then?")))
        );
        assert_eq!(s.get("a"), None);
        assert_eq!(s.take_when_idle("a", Some(&MessageStatus::Done)), None);
    }

    #[test]
    fn a_second_enter_adds_a_paragraph_to_the_same_entry() {
        let mut s = SendQueue::default();
        s.push("a", "first", Vec::new());
        s.push("b", "other conversation", Vec::new());
        s.push("a", "second", Vec::new());
        s.push("a", "   ", Vec::new());
        assert_eq!(s.get("a"), Some(&q("first\n\nsecond")));
        assert_eq!(s.get("b"), Some(&q("other conversation")));
    }

    #[test]
    fn files_wait_with_the_words_once_each() {
        let mut s = SendQueue::default();
        s.push("a", "  ", vec![file("cat.png", "1")]);
        assert_eq!(s.get("a").map(Queued::shown).as_deref(), Some("+ cat.png"));
        s.push(
            "a",
            "look",
            vec![file("cat.png", "1"), file("dog.png", "2")],
        );
        let queued = s.get("a").cloned().unwrap_or_default();
        assert_eq!(queued.text, "look");
        assert_eq!(queued.shown(), "look\n+ cat.png, dog.png");
        assert_eq!(
            s.take_when_idle("a", Some(&MessageStatus::Stopped)),
            Some(QueueOutcome::BackToDraft {
                queued,
                reason: STOPPED_REASON
            })
        );
        let mut pending = vec![file("dog.png", "2"), file("new.png", "3")];
        back_beside_draft(
            &mut pending,
            vec![file("cat.png", "1"), file("dog.png", "2")],
        );
        let names: Vec<&str> = pending.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["dog.png", "new.png", "cat.png"]);
        assert_eq!(back_into_draft("", "typed"), "typed");
    }

    #[test]
    fn stop_and_failure_put_the_text_back_instead_of_sending() {
        let mut s = SendQueue::default();
        s.push("a", "x", Vec::new());
        assert_eq!(
            s.take_when_idle("a", Some(&MessageStatus::Stopped)),
            Some(QueueOutcome::BackToDraft {
                queued: q("x"),
                reason: STOPPED_REASON
            })
        );
        for status in [
            MessageStatus::Error("boom".into()),
            MessageStatus::Interrupted,
        ] {
            s.push("a", "y", Vec::new());
            assert_eq!(
                s.take_when_idle("a", Some(&status)),
                Some(QueueOutcome::BackToDraft {
                    queued: q("y"),
                    reason: FAILED_REASON
                })
            );
        }
    }

    #[test]
    fn an_answer_streaming_elsewhere_keeps_the_entry() {
        let mut s = SendQueue::default();
        s.push("a", "x", Vec::new());
        assert_eq!(s.take_when_idle("a", Some(&MessageStatus::Streaming)), None);
        assert_eq!(s.get("a"), Some(&q("x")));
        assert_eq!(
            s.take_when_idle("a", None),
            Some(QueueOutcome::Send(q("x")))
        );
    }

    #[test]
    fn cancel_and_deleted_conversations() {
        let mut s = SendQueue::default();
        s.push("a", "x", Vec::new());
        s.push("b", "y", Vec::new());
        assert_eq!(s.cancel("a"), Some(q("x")));
        assert_eq!(s.cancel("a"), None);
        s.retain_conversations(|id| id != "b");
        assert_eq!(s.get("b"), None);
    }

    #[test]
    fn text_coming_back_goes_before_what_was_typed_since() {
        assert_eq!(back_into_draft("queued", ""), "queued");
        assert_eq!(back_into_draft("queued", " \n"), "queued");
        assert_eq!(back_into_draft("queued", "new"), "queued\n\nnew");
    }
}
