//! Compaction: a model-written summary that stands in for the older part of a conversation.
//!
//! A [`Memory`] covers the messages up to and including `through`; requests then carry the
//! summary (as a recap in the system text) and only the messages after it, while the user
//! still sees — and exports — every original message. It is written:
//! - automatically when the next request would otherwise leave messages out (the context
//!   budget is full), so a long or tool-heavy chat keeps its thread instead of forgetting it;
//! - as NextChat's running memory when that setting is on: whenever more than a threshold of
//!   characters has not been summarized yet;
//! - on demand ("Compact now").
//!
//! The newest exchange is never summarized: it stays verbatim so the model sees the question
//! it is answering in the user's words.

use crate::records::memory::Memory;
use crate::records::message::{Message, MessageStatus, Role};

use super::context::{self, Plan};

/// The instruction that asks for a summary (NextChat's wording).
pub const SUMMARY_PROMPT: &str =
    "Summarize the discussion briefly in 200 words or less to use as a prompt for future context.";

/// How the summary opens in the system text (NextChat's wording).
pub const RECAP_LEAD: &str = "This is a summary of the chat history as a recap: ";

/// Characters of not-yet-summarized text after which running memory summarizes (NextChat's
/// `compressMessageLengthThreshold`).
pub const DEFAULT_THRESHOLD_CHARS: u32 = 1000;

/// Characters of each message a summary request carries.
const MESSAGE_CHARS: usize = 4000;

/// The recap of `memory` that goes in the system text.
pub fn recap(memory: &Memory) -> String {
    format!("{RECAP_LEAD}{}", memory.text.trim())
}

/// Why a summary is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The next request would leave older messages out.
    Budget,
    /// Running memory: the unsummarized text passed the threshold.
    Threshold,
    /// The user asked.
    Asked,
}

/// The index just after what requests may no longer carry: the clear-context mark, or what a
/// memory (still after the mark) covers, whichever is later; and whether the memory counts.
pub fn start(
    history: &[Message],
    cleared_after: Option<&str>,
    memory: Option<&Memory>,
) -> (usize, bool) {
    let cleared = context::start_after_mark(history, cleared_after);
    let covered = memory.map_or(0, |m| context::start_after_mark(history, Some(&m.through)));
    if covered > cleared {
        (covered, true)
    } else {
        (cleared, false)
    }
}

/// The range of `history` a new summary would cover (`from..to`), or `None` when there is
/// nothing to add: from the start (see [`start`]) up to, not including, the newest question.
pub fn span(
    history: &[Message],
    cleared_after: Option<&str>,
    memory: Option<&Memory>,
) -> Option<(usize, usize)> {
    let (from, _) = start(history, cleared_after, memory);
    let to = history.iter().rposition(|m| m.role == Role::User)?;
    (to > from).then_some((from, to))
}

/// Whether to summarize now, after a turn: `next` is the plan of the next request (planned as
/// if a question followed), `running` is NextChat's memory setting with its threshold.
pub fn due(
    history: &[Message],
    cleared_after: Option<&str>,
    memory: Option<&Memory>,
    next: &Plan,
    auto_compact: bool,
    running: Option<u32>,
) -> Option<Reason> {
    let (from, to) = span(history, cleared_after, memory)?;
    if auto_compact && next.dropped > 0 {
        return Some(Reason::Budget);
    }
    let threshold = running?;
    let chars: usize = history[from..to]
        .iter()
        .filter(|m| !matches!(m.status, MessageStatus::Error(_)))
        .map(|m| m.content.chars().count())
        .sum();
    (chars > threshold as usize).then_some(Reason::Threshold)
}

/// The summary request's messages: the previous summary (if any) as context, the messages to
/// cover (errors and empty turns left out, each cut short), then the instruction. Returns the
/// id of the last message covered with them.
pub fn request_messages(
    history: &[Message],
    (from, to): (usize, usize),
    previous: Option<&Memory>,
    now_ms: f64,
) -> Option<(Vec<Message>, String)> {
    let through = history.get(to.checked_sub(1)?)?.id.clone();
    let mut out = Vec::new();
    if let Some(m) = previous.filter(|m| !m.text.trim().is_empty()) {
        out.push(Message::new(
            "memory".into(),
            Role::System,
            recap(m),
            now_ms,
        ));
    }
    for m in &history[from..to] {
        if matches!(m.status, MessageStatus::Error(_))
            || m.content.trim().is_empty()
            || m.role == Role::System
        {
            continue;
        }
        let content: String = m.content.chars().take(MESSAGE_CHARS).collect();
        out.push(Message::new(m.id.clone(), m.role, content, m.created_ms));
    }
    out.push(Message::new(
        "summary-request".into(),
        Role::User,
        SUMMARY_PROMPT.into(),
        now_ms,
    ));
    Some((out, through))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::context::{plan, Limits};

    fn chat(pairs: usize, chars: usize) -> Vec<Message> {
        (0..pairs)
            .flat_map(|i| {
                [
                    Message::new(format!("u{i}"), Role::User, "q".repeat(chars), 0.0),
                    Message::new(format!("a{i}"), Role::Assistant, "a".repeat(chars), 0.0),
                ]
            })
            .collect()
    }

    #[test]
    fn a_full_budget_asks_for_compaction_of_all_but_the_newest_exchange() {
        let h = chat(6, 400);
        let mut next = h.clone();
        next.push(Message::new("draft".into(), Role::User, String::new(), 0.0));
        let p = plan(&next, None, &Limits::new(700, 32, Some(100)), 0, 1000);
        assert!(p.dropped > 0);
        assert_eq!(due(&h, None, None, &p, true, None), Some(Reason::Budget));
        assert_eq!(due(&h, None, None, &p, false, None), None);
        assert_eq!(span(&h, None, None), Some((0, 10)));
        let (msgs, through) = request_messages(&h, (0, 10), None, 5.0).expect("a request");
        assert_eq!(through, "a4");
        assert_eq!(msgs.len(), 11);
        assert_eq!(
            msgs.last().map(|m| m.content.as_str()),
            Some(SUMMARY_PROMPT)
        );
    }

    #[test]
    fn running_memory_follows_the_threshold_and_starts_after_the_last_summary() {
        let h = chat(3, 300);
        let quiet = Plan {
            first: 0,
            cleared: 0,
            dropped: 0,
            fixed_tokens: 0,
            tool_tokens: 0,
            message_tokens: 0,
            budget: 1000,
        };
        // u0 a0 u1 a1 = 1200 characters before the newest question u2.
        assert_eq!(
            due(&h, None, None, &quiet, true, Some(1000)),
            Some(Reason::Threshold)
        );
        assert_eq!(due(&h, None, None, &quiet, true, Some(2000)), None);
        assert_eq!(due(&h, None, None, &quiet, true, None), None);
        let mem = Memory {
            text: "Earlier: greetings.".into(),
            through: "a0".into(),
        };
        // Only u1 a1 are new: 600 characters.
        assert_eq!(due(&h, None, Some(&mem), &quiet, true, Some(1000)), None);
        assert_eq!(span(&h, None, Some(&mem)), Some((2, 4)));
        let (msgs, through) = request_messages(&h, (2, 4), Some(&mem), 0.0).expect("a request");
        assert_eq!(through, "a1");
        assert_eq!(msgs[0].role, Role::System);
        assert_eq!(
            msgs[0].content,
            "This is a summary of the chat history as a recap: Earlier: greetings."
        );
        assert_eq!(
            msgs.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(),
            ["memory", "u1", "a1", "summary-request"]
        );
    }

    #[test]
    fn the_later_of_the_clear_mark_and_the_memory_decides_what_is_carried() {
        let h = chat(3, 10);
        let mem = Memory {
            text: "s".into(),
            through: "a0".into(),
        };
        assert_eq!(start(&h, None, Some(&mem)), (2, true));
        assert_eq!(
            start(&h, Some("a1"), Some(&mem)),
            (4, false),
            "cleared after the summary: it no longer counts"
        );
        assert_eq!(start(&h, Some("u0"), Some(&mem)), (2, true));
        // Nothing before the newest question: nothing to summarize.
        assert_eq!(span(&h[..1], None, None), None);
    }
}
