//! Model-written conversation titles: when to ask, what to ask, and how to clean the answer.
//!
//! The request is small on purpose: the first exchange (or the latest few messages), each cut
//! short, plus NextChat's instruction. Models still wrap titles in quotes, bold, a "Title:"
//! lead-in or a `<think>` block, so [`clean`] strips those; an answer with nothing left keeps
//! the title the conversation had.

use crate::records::conversation::title_from_text;
use crate::records::message::{Message, MessageStatus, Role};
use crate::records::title_source::TitleSource;

/// The instruction sent after the conversation (NextChat's wording).
pub const TITLE_PROMPT: &str = "Please generate a four to five word title summarizing our conversation without any lead-in, punctuation, quotation marks, periods, symbols, bold text, or additional text. Remove enclosing quotation marks.";

/// Characters of each message the title request carries.
const MESSAGE_CHARS: usize = 1500;
/// Messages the title request carries at most (the latest ones).
const MESSAGES: usize = 4;
/// Longest title kept, in characters (cut at a word).
pub const MAX_TITLE_CHARS: usize = 60;

/// Whether to ask for a title now: automatic titles are on, the title is still the first
/// line, and the conversation has at least `after_messages` messages with a finished answer
/// among them.
pub fn due(
    messages: &[Message],
    source: TitleSource,
    enabled: bool,
    after_messages: usize,
) -> bool {
    enabled
        && source == TitleSource::FirstLine
        && messages.len() >= after_messages.max(2)
        && messages.iter().any(|m| m.role == Role::User)
        && messages.iter().any(|m| {
            m.role == Role::Assistant
                && m.status == MessageStatus::Done
                && !m.content.trim().is_empty()
        })
}

/// The messages of the title request: the latest exchanges (finished ones, no tool detail),
/// each cut short, then the instruction as a user message.
pub fn request_messages(messages: &[Message], now_ms: f64) -> Vec<Message> {
    let mut picked: Vec<Message> = messages
        .iter()
        .filter(|m| m.role != Role::System && !m.content.trim().is_empty())
        .filter(|m| !matches!(m.status, MessageStatus::Error(_) | MessageStatus::Streaming))
        .map(|m| {
            let content: String = m.content.chars().take(MESSAGE_CHARS).collect();
            Message::new(m.id.clone(), m.role, content, m.created_ms)
        })
        .collect();
    let skip = picked.len().saturating_sub(MESSAGES);
    picked.drain(..skip);
    // Keep the turns alternating: the instruction follows an answer, never a question.
    if picked.last().is_some_and(|m| m.role == Role::User) {
        picked.pop();
    }
    if picked.first().is_some_and(|m| m.role == Role::Assistant) {
        picked.remove(0);
    }
    picked.push(Message::new(
        "title-request".into(),
        Role::User,
        TITLE_PROMPT.into(),
        now_ms,
    ));
    picked
}

/// The title in a model's answer, or `None` when nothing usable is left.
pub fn clean(raw: &str) -> Option<String> {
    let text = strip_think(raw);
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let mut t = line.to_string();
    // Lead-ins such as "Title:" or "**Title**:".
    for _ in 0..2 {
        t = t
            .trim_matches(|c: char| c == '*' || c == '_' || c == '#' || c.is_whitespace())
            .to_string();
        let lower = t.to_lowercase();
        for lead in ["title:", "title -", "conversation title:"] {
            if lower.starts_with(lead) {
                t = t[lead.len()..].to_string();
                break;
            }
        }
    }
    let t: String = t
        .chars()
        .filter(|c| {
            !matches!(
                c,
                '"' | '\''
                    | '`'
                    | '*'
                    | '_'
                    | '#'
                    | '“'
                    | '”'
                    | '‘'
                    | '’'
                    | '«'
                    | '»'
                    | '「'
                    | '」'
            )
        })
        .collect();
    let t = t.trim_end_matches(|c: char| {
        c.is_ascii_punctuation() || c == '。' || c == '…' || c.is_whitespace()
    });
    let t = t.trim_start_matches(|c: char| c.is_ascii_punctuation() || c.is_whitespace());
    let t = title_from_text(t, MAX_TITLE_CHARS);
    (!t.is_empty()).then_some(t)
}

/// The text after a reasoning model's `<think>…</think>` block (an unclosed one means the
/// answer never got past thinking: nothing is left).
fn strip_think(raw: &str) -> &str {
    let trimmed = raw.trim_start();
    if let Some(rest) = trimmed.strip_prefix("<think>") {
        return rest
            .find("</think>")
            .map_or("", |end| &rest[end + "</think>".len()..]);
    }
    raw
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleaning_strips_what_models_add() {
        for (raw, want) in [
            (
                "\"Rust Borrow Checker Basics\"",
                "Rust Borrow Checker Basics",
            ),
            ("**Title:** Planning a Kyoto Trip.", "Planning a Kyoto Trip"),
            (
                "Title: “Sourdough Starter Troubleshooting”",
                "Sourdough Starter Troubleshooting",
            ),
            (
                "<think>They asked about tides.</think>\n\nOcean Tides Explained!",
                "Ocean Tides Explained",
            ),
            (
                "  # Weekly   Budget Review\nsecond line",
                "Weekly Budget Review",
            ),
            ("'Bash loop over files'.", "Bash loop over files"),
            ("「東京の天気」。", "東京の天気"),
        ] {
            assert_eq!(clean(raw).as_deref(), Some(want), "{raw:?}");
        }
        for raw in ["", "  \n ", "\"\"", "<think>never finished", "..."] {
            assert_eq!(clean(raw), None, "{raw:?}");
        }
        let long = "word ".repeat(40);
        let t = clean(&long).unwrap_or_default();
        assert!(
            t.chars().count() <= MAX_TITLE_CHARS + 1 && t.ends_with('…'),
            "{t}"
        );
    }

    fn m(id: &str, role: Role, text: &str, status: MessageStatus) -> Message {
        let mut m = Message::new(id.into(), role, text.into(), 0.0);
        m.status = status;
        m
    }

    #[test]
    fn due_after_the_first_finished_exchange_only_for_first_line_titles() {
        let q = m("u", Role::User, "How do tides work?", MessageStatus::Done);
        let streaming = m("a", Role::Assistant, "The moon", MessageStatus::Streaming);
        let done = m("a", Role::Assistant, "The moon pulls.", MessageStatus::Done);
        let failed = m("a", Role::Assistant, "", MessageStatus::Error("x".into()));
        assert!(!due(
            std::slice::from_ref(&q),
            TitleSource::FirstLine,
            true,
            2
        ));
        assert!(!due(
            &[q.clone(), streaming],
            TitleSource::FirstLine,
            true,
            2
        ));
        assert!(!due(&[q.clone(), failed], TitleSource::FirstLine, true, 2));
        let ok = [q.clone(), done.clone()];
        assert!(due(&ok, TitleSource::FirstLine, true, 2));
        assert!(!due(&ok, TitleSource::FirstLine, false, 2));
        assert!(!due(&ok, TitleSource::User, true, 2));
        assert!(!due(&ok, TitleSource::Generated, true, 2));
        assert!(!due(&ok, TitleSource::FirstLine, true, 4));
    }

    #[test]
    fn the_request_carries_the_latest_exchanges_cut_short_then_the_instruction() {
        let long = "x".repeat(5000);
        let ms = vec![
            m("u0", Role::User, "first", MessageStatus::Done),
            m("a0", Role::Assistant, &long, MessageStatus::Done),
            m("u1", Role::User, "second", MessageStatus::Done),
            m(
                "a1",
                Role::Assistant,
                "",
                MessageStatus::Error("boom".into()),
            ),
            m("u2", Role::User, "third", MessageStatus::Done),
            m("a2", Role::Assistant, "answer", MessageStatus::Done),
        ];
        let req = request_messages(&ms, 9.0);
        let ids: Vec<&str> = req.iter().map(|m| m.id.as_str()).collect();
        // Latest four usable: a0 u1 u2 a2 → opens on a question: u1 u2 a2, then the prompt.
        assert_eq!(ids, ["u1", "u2", "a2", "title-request"]);
        assert_eq!(req[3].content, TITLE_PROMPT);
        assert_eq!(req[3].role, Role::User);
        let req = request_messages(&ms[..2], 9.0);
        assert_eq!(req[1].content.chars().count(), MESSAGE_CHARS);
    }

    #[test]
    fn stored_titles_without_a_source_are_first_line_titles() {
        let s: TitleSource = serde_json::from_str("\"generated\"").unwrap_or_default();
        assert_eq!(s, TitleSource::Generated);
        assert_eq!(TitleSource::default(), TitleSource::FirstLine);
    }
}
