//! `\(…\)` and `\[…\]`, the other way models write math.
//!
//! CommonMark reads `\(` as an escaped parenthesis, so the parser never sees these as math. Before
//! parsing, each balanced pair outside code, raw HTML and dollar math is replaced by `$$…$$`,
//! which has exactly the same length: every byte offset the streaming splitter and the block
//! layout compute stays valid for the original text, and the LaTeX between the delimiters is
//! untouched. The parser reports both as display math; the starts of the pairs that were `\(`
//! are returned so the writer can render those inline.
//!
//! This must never change a byte outside the four delimiter bytes of a pair, nor pair
//! delimiters across a blank line (that would join two paragraphs' worth of text into one
//! formula).

use std::ops::Range;

use pulldown_cmark::{Event, Tag};

use crate::markdown::render::parser;

/// The rewritten text and the byte offsets where inline pairs (`\(`) start, ascending; `None`
/// when `md` has no pair to rewrite.
pub(crate) fn rewrite(md: &str) -> Option<(String, Vec<usize>)> {
    if !md.contains("\\(") && !md.contains("\\[") {
        return None;
    }
    let literal = literal_ranges(md);
    let in_literal = |at: usize| literal.iter().any(|r| r.contains(&at));
    let bytes = md.as_bytes();
    let mut out = bytes.to_vec();
    let mut inline = Vec::new();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let close = match bytes[i + 1] {
            b'(' => b')',
            b'[' => b']',
            // `\\` is an escaped backslash: the next byte starts fresh.
            _ => {
                i += 2;
                continue;
            }
        };
        if in_literal(i) {
            i += 2;
            continue;
        }
        match closing(bytes, i + 2, close) {
            Some(end) if !in_literal(end) => {
                out[i] = b'$';
                out[i + 1] = b'$';
                out[end] = b'$';
                out[end + 1] = b'$';
                if close == b')' {
                    inline.push(i);
                }
                i = end + 2;
            }
            _ => i += 2,
        }
    }
    if inline.is_empty() && out == bytes {
        return None;
    }
    // Only ASCII bytes were replaced by ASCII bytes.
    String::from_utf8(out).ok().map(|s| (s, inline))
}

/// Where `\` + `close` closes a pair opened before `from`, skipping `\\` and other escapes,
/// giving up at a blank line.
fn closing(bytes: &[u8], from: usize, close: u8) -> Option<usize> {
    let mut i = from;
    let mut line_blank = false;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if bytes.get(i + 1) == Some(&close) => return Some(i),
            b'\\' => {
                i += 2;
                line_blank = false;
                continue;
            }
            b'\n' if line_blank => return None,
            b'\n' => line_blank = true,
            b' ' | b'\t' | b'\r' => {}
            _ => line_blank = false,
        }
        i += 1;
    }
    None
}

/// Byte ranges whose text is shown as written: code, raw HTML, and math already in dollars.
fn literal_ranges(md: &str) -> Vec<Range<usize>> {
    parser(md, None)
        .into_offset_iter()
        .filter(|(event, _)| {
            matches!(
                event,
                Event::Start(Tag::CodeBlock(_) | Tag::HtmlBlock)
                    | Event::Code(_)
                    | Event::Html(_)
                    | Event::InlineHtml(_)
                    | Event::InlineMath(_)
                    | Event::DisplayMath(_)
            )
        })
        .map(|(_, range)| range)
        .collect()
}
