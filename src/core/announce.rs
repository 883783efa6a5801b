//! What screen readers hear when an answer ends, through the page's polite live region.
//!
//! Announced once per turn, when it ends, never per token: a live region updated on every
//! flush would read fragments over the user's own navigation. The sentence says how the answer
//! ended and, when it finished, its opening words, so a listener can decide whether to read on.
//! Pure: the UI says when a turn ended and hands over the last answer's status and text.

use crate::records::message::MessageStatus;

/// How much of a finished answer is read out, in characters.
pub const PREVIEW_CHARS: usize = 150;

/// The announcement for an answer that ended with `status` and `content`; `None` while it
/// is still being written.
pub fn turn_ended(status: &MessageStatus, content: &str) -> Option<String> {
    Some(match status {
        MessageStatus::Streaming => return None,
        MessageStatus::Done => match preview(content, PREVIEW_CHARS) {
            p if p.is_empty() => "Answer finished.".to_string(),
            p => format!("Answer finished: {p}"),
        },
        MessageStatus::Stopped => "Answer stopped.".to_string(),
        MessageStatus::Interrupted => "Answer interrupted.".to_string(),
        MessageStatus::Error(sentence) => format!("Answer failed: {sentence}"),
    })
}

/// The first `max` characters of `text` as one line: runs of whitespace become one space,
/// markdown's emphasis, code and heading marks are dropped (a screen reader would spell them),
/// and a cut falls on a word boundary with "…".
pub fn preview(text: &str, max: usize) -> String {
    let cleaned: String = text
        .chars()
        .filter(|c| !matches!(c, '*' | '`' | '#'))
        .collect();
    let words: Vec<&str> = cleaned.split_whitespace().collect();
    let mut out = String::new();
    for word in words {
        let needed = usize::from(!out.is_empty()) + word.chars().count();
        if out.chars().count() + needed > max {
            if out.is_empty() {
                // One word longer than the whole preview: cut inside it.
                out = word.chars().take(max).collect();
            }
            out.push('…');
            return out;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finished_answer_is_announced_with_its_opening() {
        assert_eq!(
            turn_ended(&MessageStatus::Done, "Hello **there**,\n\n  friend."),
            Some("Answer finished: Hello there, friend.".to_string())
        );
        assert_eq!(
            turn_ended(&MessageStatus::Done, "  \n"),
            Some("Answer finished.".to_string())
        );
    }

    #[test]
    fn nothing_while_streaming() {
        assert_eq!(turn_ended(&MessageStatus::Streaming, "partial"), None);
    }

    #[test]
    fn other_endings_say_how_it_ended() {
        assert_eq!(
            turn_ended(&MessageStatus::Stopped, "partial"),
            Some("Answer stopped.".to_string())
        );
        assert_eq!(
            turn_ended(&MessageStatus::Interrupted, ""),
            Some("Answer interrupted.".to_string())
        );
        assert_eq!(
            turn_ended(
                &MessageStatus::Error("The server refused the key.".into()),
                "x"
            ),
            Some("Answer failed: The server refused the key.".to_string())
        );
    }

    #[test]
    fn long_answers_are_cut_on_a_word_with_an_ellipsis() {
        let long = "word ".repeat(100);
        let p = preview(&long, PREVIEW_CHARS);
        assert!(p.ends_with("word…"), "{p}");
        assert!(p.chars().count() <= PREVIEW_CHARS + 1);
        assert!(p.chars().count() > PREVIEW_CHARS - 6);
        // Exactly at the limit: no ellipsis.
        let exact = "a".repeat(PREVIEW_CHARS);
        assert_eq!(preview(&exact, PREVIEW_CHARS), exact);
        // One giant word is cut inside it, on a character boundary.
        let giant = "é".repeat(400);
        let p = preview(&giant, 10);
        assert_eq!(p, format!("{}…", "é".repeat(10)));
    }

    #[test]
    fn code_and_heading_marks_are_not_spelled() {
        assert_eq!(
            preview("# Title\n```rust\nfn main() {}\n```", 150),
            "Title rust fn main() {}"
        );
    }
}
