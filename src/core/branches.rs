//! Branches: the continuations a user moved away from, kept rather than deleted.
//!
//! Editing a question and sending it again, regenerating an answer, or switching to another
//! continuation stashes the messages from that point on as a [`Branch`] keyed by the message
//! it follows; the conversation's `messages` is always the path on screen (what requests
//! carry, what search and export read first). Siblings at a point are the message on screen
//! there and every branch that follows the same message, ordered by when their first message
//! was written ("‹ 2/3 ›"). A branch stashed with deeper branches inside keeps them: those are
//! keyed by message ids inside it and show again when it is back on screen.

use crate::records::branch::Branch;
use crate::records::message::Message;

/// The id of the message before index `at` (the point siblings at `at` share).
fn fork_point(messages: &[Message], at: usize) -> Option<String> {
    at.checked_sub(1)
        .and_then(|i| messages.get(i))
        .map(|m| m.id.clone())
}

/// Moves `messages[at..]` into a new branch. Returns whether anything was stashed.
pub fn stash_tail(messages: &mut Vec<Message>, branches: &mut Vec<Branch>, at: usize) -> bool {
    if at >= messages.len() {
        return false;
    }
    let after = fork_point(messages, at);
    let tail = messages.split_off(at);
    branches.push(Branch {
        after,
        messages: tail,
    });
    true
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Candidate {
    OnScreen,
    Stashed(usize),
}

/// The siblings at `at`, oldest first: the one on screen and the stashed ones.
fn candidates(messages: &[Message], branches: &[Branch], at: usize) -> Vec<Candidate> {
    let Some(current) = messages.get(at) else {
        return Vec::new();
    };
    let after = fork_point(messages, at);
    let mut all: Vec<(f64, &str, Candidate)> =
        vec![(current.created_ms, &current.id, Candidate::OnScreen)];
    for (i, b) in branches.iter().enumerate() {
        if b.after == after {
            if let Some(first) = b.messages.first() {
                all.push((first.created_ms, &first.id, Candidate::Stashed(i)));
            }
        }
    }
    crate::order::sort_by(&mut all, |a, b| {
        a.0.total_cmp(&b.0).then_with(|| a.1.cmp(b.1))
    });
    all.into_iter().map(|(_, _, c)| c).collect()
}

/// "‹ pos/count ›" at `at` (pos 1-based), or `None` when the message there has no sibling.
pub fn siblings(messages: &[Message], branches: &[Branch], at: usize) -> Option<(usize, usize)> {
    let all = candidates(messages, branches, at);
    if all.len() < 2 {
        return None;
    }
    let pos = all.iter().position(|c| *c == Candidate::OnScreen)?;
    Some((pos + 1, all.len()))
}

/// Every point on screen that has siblings: (message id, pos, count), for the whole path.
pub fn all_siblings(messages: &[Message], branches: &[Branch]) -> Vec<(String, usize, usize)> {
    if branches.is_empty() {
        return Vec::new();
    }
    (0..messages.len())
        .filter_map(|i| {
            siblings(messages, branches, i).map(|(p, n)| (messages[i].id.clone(), p, n))
        })
        .collect()
}

/// Shows the sibling at 1-based position `to` at `at`: the tail on screen is stashed and the
/// chosen branch's messages take its place. Returns false (and changes nothing) when there is
/// no such sibling or it is already on screen.
pub fn switch(
    messages: &mut Vec<Message>,
    branches: &mut Vec<Branch>,
    at: usize,
    to: usize,
) -> bool {
    let all = candidates(messages, branches, at);
    let Some(Candidate::Stashed(index)) = to.checked_sub(1).and_then(|i| all.get(i)).copied()
    else {
        return false;
    };
    let chosen = branches.remove(index);
    stash_tail(messages, branches, at);
    messages.extend(chosen.messages);
    true
}

/// Deletes `messages[at..]`, the message at `at` and what followed it on screen, with every
/// branch that hangs from the deleted messages (they cannot be reached any more). When the
/// message had siblings, the one ordered just before it (else just after) takes its place, so
/// deleting one version of an answer shows another rather than none. Returns how many
/// messages were deleted, branches included (for the confirmation's sentence, [`deletes`]).
pub fn delete_from(messages: &mut Vec<Message>, branches: &mut Vec<Branch>, at: usize) -> usize {
    if at >= messages.len() {
        return 0;
    }
    let all = candidates(messages, branches, at);
    let pos = all.iter().position(|c| *c == Candidate::OnScreen);
    let heir = pos
        .and_then(|p| {
            p.checked_sub(1)
                .and_then(|q| all.get(q))
                .or_else(|| all.get(p + 1))
        })
        .and_then(|c| match c {
            Candidate::Stashed(i) => branches.get(*i).and_then(|b| b.messages.first()),
            Candidate::OnScreen => None,
        })
        .map(|m| m.id.clone());
    let removed = messages.split_off(at);
    let mut count = removed.len();
    let mut gone: Vec<String> = removed.into_iter().map(|m| m.id).collect();
    // Branches hanging from a deleted message, and from messages inside those, transitively.
    loop {
        let before = branches.len();
        let mut i = 0;
        while i < branches.len() {
            if branches[i].after.as_ref().is_some_and(|a| gone.contains(a)) {
                let b = branches.remove(i);
                count += b.messages.len();
                gone.extend(b.messages.into_iter().map(|m| m.id));
            } else {
                i += 1;
            }
        }
        if branches.len() == before {
            break;
        }
    }
    if let Some(heir) = heir {
        if let Some(i) = branches
            .iter()
            .position(|b| b.messages.first().is_some_and(|m| m.id == heir))
        {
            messages.extend(branches.remove(i).messages);
        }
    }
    count
}

/// How many messages [`delete_from`] at `at` would delete, branches hanging from them
/// included, without deleting anything.
pub fn deletes(messages: &[Message], branches: &[Branch], at: usize) -> usize {
    delete_from(&mut messages.to_vec(), &mut branches.to_vec(), at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::message::Role;

    fn m(id: &str, role: Role, t: f64) -> Message {
        Message::new(id.into(), role, id.into(), t)
    }

    fn ids(ms: &[Message]) -> Vec<&str> {
        ms.iter().map(|m| m.id.as_str()).collect()
    }

    #[test]
    fn deleting_takes_what_followed_and_the_branches_hanging_from_it() {
        // u1 a1 u2 a2, with a2's older version a2x stashed, and an edit of u2 (u2e a2e) stashed.
        let mut ms = vec![
            m("u1", Role::User, 1.0),
            m("a1", Role::Assistant, 2.0),
            m("u2", Role::User, 3.0),
            m("a2", Role::Assistant, 5.0),
        ];
        let mut bs = vec![
            Branch {
                after: Some("u2".into()),
                messages: vec![m("a2x", Role::Assistant, 4.0)],
            },
            Branch {
                after: Some("a1".into()),
                messages: vec![m("u2e", Role::User, 6.0), m("a2e", Role::Assistant, 7.0)],
            },
        ];
        // Deleting a2 brings its sibling a2x on screen.
        assert_eq!(deletes(&ms, &bs, 3), 1);
        assert_eq!(delete_from(&mut ms, &mut bs, 3), 1);
        assert_eq!(ids(&ms), ["u1", "a1", "u2", "a2x"]);
        assert_eq!(siblings(&ms, &bs, 3), None);
        // Deleting u2 takes a2x with it, and the edited question u2e (newer) takes its place.
        assert_eq!(delete_from(&mut ms, &mut bs, 2), 2);
        assert_eq!(ids(&ms), ["u1", "a1", "u2e", "a2e"]);
        assert!(bs.is_empty());
        // Deleting from the first message empties the conversation; out of range deletes nothing.
        assert_eq!(delete_from(&mut ms, &mut bs, 9), 0);
        assert_eq!(delete_from(&mut ms, &mut bs, 0), 4);
        assert!(ms.is_empty() && bs.is_empty());
    }

    #[test]
    fn deleting_counts_nested_branches_and_leaves_unrelated_ones() {
        let mut ms = vec![
            m("u1", Role::User, 1.0),
            m("a1", Role::Assistant, 2.0),
            m("u2", Role::User, 3.0),
            m("a2", Role::Assistant, 4.0),
        ];
        let mut bs = vec![
            // An older answer to u1, with its own follow-up and a branch inside that.
            Branch {
                after: Some("u1".into()),
                messages: vec![m("a1x", Role::Assistant, 1.5), m("u3", Role::User, 1.6)],
            },
            Branch {
                after: Some("u3".into()),
                messages: vec![m("a3", Role::Assistant, 1.7)],
            },
            // Hangs from a2: deleted with it.
            Branch {
                after: Some("a2".into()),
                messages: vec![m("u4", Role::User, 8.0)],
            },
        ];
        let before = (ms.clone(), bs.clone());
        assert_eq!(deletes(&ms, &bs, 2), 3, "u2, a2 and u4");
        assert_eq!((ms.clone(), bs.clone()), before, "counting changes nothing");
        assert_eq!(delete_from(&mut ms, &mut bs, 2), 3);
        assert_eq!(ids(&ms), ["u1", "a1"]);
        assert_eq!(bs.len(), 2, "a1x's branch and the one inside it stay");
        // Deleting a1 brings a1x (older) on screen, with the branch inside it reachable again.
        assert_eq!(delete_from(&mut ms, &mut bs, 1), 1);
        assert_eq!(ids(&ms), ["u1", "a1x", "u3"]);
        assert_eq!(bs.len(), 1);
        assert_eq!(bs[0].after.as_deref(), Some("u3"));
    }

    #[test]
    fn regenerate_keeps_the_old_answer_as_a_sibling_and_switching_brings_it_back() {
        let mut ms = vec![m("u1", Role::User, 1.0), m("a1", Role::Assistant, 2.0)];
        let mut bs = Vec::new();
        // Regenerate a1: stash it, a new answer follows u1.
        assert!(stash_tail(&mut ms, &mut bs, 1));
        ms.push(m("a1b", Role::Assistant, 3.0));
        assert_eq!(siblings(&ms, &bs, 1), Some((2, 2)));
        assert_eq!(siblings(&ms, &bs, 0), None);
        // Back to the first answer.
        assert!(switch(&mut ms, &mut bs, 1, 1));
        assert_eq!(ids(&ms), ["u1", "a1"]);
        assert_eq!(siblings(&ms, &bs, 1), Some((1, 2)));
        assert!(!switch(&mut ms, &mut bs, 1, 1), "already on screen");
        assert!(!switch(&mut ms, &mut bs, 1, 9), "no such sibling");
        assert!(switch(&mut ms, &mut bs, 1, 2));
        assert_eq!(ids(&ms), ["u1", "a1b"]);
        assert_eq!(bs.len(), 1);
    }

    #[test]
    fn an_edited_question_keeps_the_old_continuation_with_its_own_branches() {
        let mut ms = vec![
            m("u1", Role::User, 1.0),
            m("a1", Role::Assistant, 2.0),
            m("u2", Role::User, 3.0),
            m("a2", Role::Assistant, 4.0),
        ];
        let mut bs = Vec::new();
        // Regenerate a2 first: a branch deep inside the old continuation.
        stash_tail(&mut ms, &mut bs, 3);
        ms.push(m("a2b", Role::Assistant, 5.0));
        // Now edit u1 and resend: everything from u1 is stashed.
        stash_tail(&mut ms, &mut bs, 0);
        ms.push(m("u1b", Role::User, 6.0));
        ms.push(m("a1c", Role::Assistant, 7.0));
        assert_eq!(siblings(&ms, &bs, 0), Some((2, 2)));
        assert_eq!(all_siblings(&ms, &bs), vec![("u1b".to_string(), 2, 2)]);
        // Back to the original question: its continuation shows, with a2's sibling.
        assert!(switch(&mut ms, &mut bs, 0, 1));
        assert_eq!(ids(&ms), ["u1", "a1", "u2", "a2b"]);
        assert_eq!(
            all_siblings(&ms, &bs),
            vec![("u1".to_string(), 1, 2), ("a2b".to_string(), 2, 2)]
        );
        // Nothing was lost: every message ever written is on screen or in a branch.
        let mut all: Vec<String> = ms.iter().map(|m| m.id.clone()).collect();
        all.extend(
            bs.iter()
                .flat_map(|b| b.messages.iter().map(|m| m.id.clone())),
        );
        crate::order::sort(&mut all);
        assert_eq!(all, ["a1", "a1c", "a2", "a2b", "u1", "u1b", "u2"]);
    }

    #[test]
    fn branches_round_trip_and_older_records_have_none() {
        let b = Branch {
            after: None,
            messages: vec![m("x", Role::User, 1.0)],
        };
        let json = serde_json::to_string(&b).unwrap_or_default();
        assert_eq!(serde_json::from_str::<Branch>(&json).ok(), Some(b));
        let c: crate::records::conversation::Conversation = serde_json::from_str(
            r#"{"id":"c","title":"t","created_ms":0,"updated_ms":0,"messages":[]}"#,
        )
        .expect("a record without branches reads");
        assert!(c.branches.is_empty());
    }
}
