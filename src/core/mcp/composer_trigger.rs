//! Which MCP picker the message box opens as the user types: `/name` at the very start opens
//! the prompt picker, `@word` right before the caret the resource picker. Decided here so the
//! composer only asks and the pickers (`ui::mcp`) only show.

/// Which picker the typed sign opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// `/` at the start: the prompt picker.
    Slash,
    /// `@` starting the word at the caret: the resource picker.
    Mention,
}

/// The picker to open and the text typed after its sign. `before_caret` is the box's text up
/// to the caret.
pub fn trigger(before_caret: &str) -> Option<(Trigger, &str)> {
    if let Some(rest) = before_caret.strip_prefix('/') {
        // A prompt's name has no spaces; "/usr/bin is ..." stops being a command at the space.
        if !rest.contains(char::is_whitespace) {
            return Some((Trigger::Slash, rest));
        }
    }
    let word_start = before_caret.rfind(char::is_whitespace).map_or(0, |i| {
        i + before_caret[i..].chars().next().map_or(1, char::len_utf8)
    });
    let word = &before_caret[word_start..];
    // "me@example.com" is an address, not a mention: the sign must start the word.
    word.strip_prefix('@').map(|q| (Trigger::Mention, q))
}

#[cfg(test)]
mod tests {
    use super::{trigger, Trigger::*};

    #[test]
    fn slash_at_the_start_and_at_words_before_the_caret() {
        assert_eq!(trigger("/"), Some((Slash, "")));
        assert_eq!(trigger("/summar"), Some((Slash, "summar")));
        assert_eq!(trigger("/usr/bin is"), None);
        assert_eq!(trigger("see /x"), None);
        assert_eq!(trigger("@"), Some((Mention, "")));
        assert_eq!(trigger("read @readme"), Some((Mention, "readme")));
        assert_eq!(trigger("line\n@rés"), Some((Mention, "rés")));
        assert_eq!(trigger("mail me@example.com"), None);
        assert_eq!(trigger("@done "), None);
        assert_eq!(trigger("plain text"), None);
        assert_eq!(trigger(""), None);
    }
}
