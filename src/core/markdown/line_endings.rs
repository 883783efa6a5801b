//! Line endings as the rest of the markdown module sees them: `\n` only.
//!
//! CommonMark ends a line at LF, CR or CRLF. The block bookkeeping (`blocks.rs`, the tail's
//! complete lines in `streaming.rs`) looks for `\n` alone, so a bare CR (`"_\n`\r````"`) ended
//! a line for the parser but not for the cuts, and streaming split a paragraph that rendering
//! the whole text kept in one (found by the property tests). Turning every ending into `\n`
//! before anything is parsed keeps the two in step; the HTML is the same, since CommonMark
//! treats the three endings alike.
//!
//! A delta may end between the CR and the LF of a CRLF: the CR becomes `\n` at once (the line
//! is complete), and an LF opening the next delta is then dropped, as the SSE decoder does.

use std::borrow::Cow;

/// Whole text with every CRLF and bare CR turned into `\n`.
pub(crate) fn normalize(text: &str) -> Cow<'_, str> {
    if text.contains('\r') {
        Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// [`normalize`] for text arriving in deltas.
#[derive(Debug, Default, Clone)]
pub(crate) struct LineEndings {
    /// The last delta ended with a CR: an LF opening the next one belongs to it.
    after_cr: bool,
}

impl LineEndings {
    pub(crate) fn push<'a>(&mut self, delta: &'a str) -> Cow<'a, str> {
        let delta = if self.after_cr && !delta.is_empty() {
            self.after_cr = false;
            delta.strip_prefix('\n').unwrap_or(delta)
        } else {
            delta
        };
        if !delta.is_empty() {
            self.after_cr = delta.ends_with('\r');
        }
        normalize(delta)
    }
}

#[cfg(test)]
mod tests {
    use super::{normalize, LineEndings};
    use crate::markdown::to_html::{render, render_blocks, HtmlStream as StreamingMarkdown};

    /// Regression (property tests, shrunk): a bare CR ended the line `` ` `` for the parser
    /// but not for the block cuts, so the paragraph `_`/`` ` `` came out as two.
    #[test]
    fn a_bare_cr_ends_a_line_for_the_cuts_as_for_the_parser() {
        let doc = "_\n`\r````";
        assert_eq!(render(doc), "<p>_\n`</p>\n<pre><code></code></pre>\n");
        assert_eq!(render_blocks(doc).concat(), render(doc));
        for split in ["_\n`\r", "_\n`", "_"] {
            let mut md = StreamingMarkdown::new();
            let mut blocks = md.push(split).finished;
            blocks.extend(md.push(&doc[split.len()..]).finished);
            blocks.extend(md.finish());
            assert_eq!(blocks, render_blocks(doc), "split after {split:?}");
        }
    }

    #[test]
    fn every_ending_becomes_lf() {
        assert_eq!(normalize("a\r\nb\rc\nd\r\r\n"), "a\nb\nc\nd\n\n");
        assert!(matches!(normalize("a\nb"), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn a_crlf_split_between_deltas_is_one_ending() {
        let mut e = LineEndings::default();
        let pieces = ["a\r", "", "\nb\r", "\r", "\n", "\n", "c\r\n", "\nd"];
        let out: String = pieces.iter().map(|p| e.push(p).into_owned()).collect();
        assert_eq!(out, normalize(&pieces.concat()));
    }
}
