//! What to do with a conversation body still in localStorage when the same page can store it
//! in IndexedDB (issue 12): decided here, performed by `stores::conversations::migrate`.
//!
//! Why a decision at all: a body can be in both places (a copy that was made but whose old key
//! could not be removed, or one written to localStorage while IndexedDB was unavailable), and
//! the two may differ. The rule never loses a message: equal copies drop the old key, differing
//! readable copies are merged message by message, and a copy that cannot be read is left where
//! it is (the page keeps reading it) rather than guessed at.
//!
//! This module must never perform IO; the store reads both copies and passes them in.

use crate::records::conversation::merge_conversations;

use super::{decode_conversation, encode_conversation};

/// One localStorage body's fate.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Write this text to IndexedDB, read it back, and remove the old key only if it matches.
    /// For a body IndexedDB lacks this is the old text exactly (unreadable ones included: they
    /// move as they are, still listed as unreadable).
    Copy(String),
    /// IndexedDB already holds exactly this body: only the old key is left to remove.
    RemoveOld,
    /// Both copies exist, differ, and one cannot be read: touch nothing (the page keeps
    /// reading the old key), and say why.
    Leave(String),
}

/// Decide for one conversation: `old` is the localStorage text, `stored` what IndexedDB holds.
pub fn decide(old: &str, stored: Option<&str>) -> Step {
    let Some(stored) = stored else {
        return Step::Copy(old.to_string());
    };
    if stored == old {
        return Step::RemoveOld;
    }
    match (decode_conversation(old), decode_conversation(stored)) {
        (Ok(old), Ok(stored)) => {
            // The copy changed last leads (title, switches); messages come from both.
            let (first, second) = if old.updated_ms > stored.updated_ms {
                (old, stored)
            } else {
                (stored, old)
            };
            let mut merged = merge_conversations(&first, &second, &[]);
            merged.updated_ms = first.updated_ms.max(second.updated_ms);
            Step::Copy(encode_conversation(&merged))
        }
        (Err(e), _) | (_, Err(e)) => Step::Leave(format!(
            "two different copies of one conversation exist and one cannot be read ({e})"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::conversation::Conversation;
    use crate::records::message::{Message, Role};

    fn conv(messages: &[(&str, &str)], updated: f64) -> Conversation {
        let mut c = Conversation::new("c1".into(), 1.0);
        c.updated_ms = updated;
        for (i, (id, text)) in messages.iter().enumerate() {
            c.messages.push(Message::new(
                (*id).into(),
                Role::User,
                (*text).into(),
                10.0 + i as f64,
            ));
        }
        c
    }

    #[test]
    fn a_body_indexeddb_lacks_is_copied_as_it_is() {
        let raw = encode_conversation(&conv(&[("m1", "hi")], 5.0));
        assert_eq!(decide(&raw, None), Step::Copy(raw.clone()));
        // Unreadable text moves unchanged: it stays listed as unreadable, never rewritten.
        assert_eq!(
            decide("{\"v\":1,\"data\":{\"id\": tru", None),
            Step::Copy("{\"v\":1,\"data\":{\"id\": tru".into())
        );
    }

    #[test]
    fn an_equal_copy_only_removes_the_old_key() {
        let raw = encode_conversation(&conv(&[("m1", "hi")], 5.0));
        assert_eq!(decide(&raw, Some(&raw)), Step::RemoveOld);
    }

    #[test]
    fn differing_copies_are_merged_and_no_message_is_lost() {
        let old = conv(
            &[("m1", "hi"), ("m2", "written while IndexedDB was away")],
            9.0,
        );
        let stored = conv(&[("m1", "hi"), ("m3", "only in IndexedDB")], 7.0);
        let Step::Copy(raw) = decide(
            &encode_conversation(&old),
            Some(&encode_conversation(&stored)),
        ) else {
            panic!("expected a copy");
        };
        let merged = decode_conversation(&raw).unwrap();
        let ids: Vec<&str> = merged.messages.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["m1", "m2", "m3"]);
        assert_eq!(merged.updated_ms, 9.0);
    }

    #[test]
    fn a_longer_copy_of_a_message_wins_whichever_side_holds_it() {
        let old = conv(&[("m1", "hi there, the whole answer")], 3.0);
        let stored = conv(&[("m1", "hi")], 8.0);
        let Step::Copy(raw) = decide(
            &encode_conversation(&old),
            Some(&encode_conversation(&stored)),
        ) else {
            panic!("expected a copy");
        };
        let merged = decode_conversation(&raw).unwrap();
        assert_eq!(merged.messages[0].content, "hi there, the whole answer");
    }

    #[test]
    fn an_unreadable_copy_that_differs_is_left_alone() {
        let good = encode_conversation(&conv(&[("m1", "hi")], 5.0));
        for (old, stored) in [("not json", good.as_str()), (good.as_str(), "not json")] {
            match decide(old, Some(stored)) {
                Step::Leave(why) => assert!(why.contains("cannot be read"), "{why}"),
                other => panic!("{other:?}"),
            }
        }
    }
}
