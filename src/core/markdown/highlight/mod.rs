//! Syntax colouring for finished fenced code blocks.
//!
//! Hand-written on purpose: syntect and tree-sitter carry grammars measured in megabytes, far
//! beyond the page budget, while a chat answer only needs comments, strings, keywords, numbers
//! and (for markup and diffs) tags and changed lines to stand out. One small lexer reads a
//! table per language (`languages.rs`); markup and diffs have their own few lines each.
//!
//! Output is the block's text as text nodes, with runs wrapped in `<span class="hl-…">` from
//! the fixed set in [`Class`]. It must never emit anything else, and joining the text of the
//! nodes must give back the input exactly (a property test holds it to that). It is applied only to finished blocks: the streaming tail stays plain, so a
//! growing block costs nothing extra per token.

mod languages;

#[cfg(test)]
mod tests;

use languages::{syntax_for, Lang, Syntax};

use super::node::{Attr, Class as NodeClass, MdNode, Tag};

/// `html` with the colour spans removed: what the streaming tail (never coloured) shows for
/// the same text. Tests compare mid-stream output with whole renders through it.
#[cfg(test)]
pub(crate) fn without_highlight(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        if rest.starts_with("<span class=\"hl-") || rest.starts_with("</span>") {
            rest = &rest[rest.find('>').map_or(rest.len(), |e| e + 1)..];
        } else {
            out.push('<');
            rest = &rest[1..];
        }
    }
    out.push_str(rest);
    out
}

/// The colour classes; `style/main.css` gives each a colour for light and dark themes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    Keyword,
    Literal,
    String,
    Number,
    Comment,
    /// Preprocessor lines, diff headers, TOML sections.
    Meta,
    /// Object keys (JSON, YAML, TOML).
    Key,
    Tag,
    Attribute,
    Added,
    Removed,
}

impl Class {
    #[cfg(test)]
    pub(crate) const ALL: [Class; 11] = [
        Class::Keyword,
        Class::Literal,
        Class::String,
        Class::Number,
        Class::Comment,
        Class::Meta,
        Class::Key,
        Class::Tag,
        Class::Attribute,
        Class::Added,
        Class::Removed,
    ];

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Class::Keyword => "hl-kw",
            Class::Literal => "hl-lit",
            Class::String => "hl-str",
            Class::Number => "hl-num",
            Class::Comment => "hl-com",
            Class::Meta => "hl-meta",
            Class::Key => "hl-key",
            Class::Tag => "hl-tag",
            Class::Attribute => "hl-attr",
            Class::Added => "hl-add",
            Class::Removed => "hl-del",
        }
    }
}

/// `code` as text and colour spans for `lang`, or `None` when the language has no table (the
/// caller then shows the plain text).
pub(crate) fn highlight(lang: &str, code: &str) -> Option<Vec<MdNode>> {
    let syntax = syntax_for(lang)?;
    let mut out = Vec::new();
    let mut w = Writer {
        src: code,
        out: &mut out,
        plain_from: 0,
    };
    match syntax {
        Syntax::Code(table) => lex_code(&mut w, table),
        Syntax::Markup => lex_markup(&mut w),
        Syntax::Diff => lex_diff(&mut w),
    }
    w.flush(code.len());
    Some(out)
}

/// Accumulates plain text between tokens and writes spans. Every position handed to it is a
/// char boundary: tokens start and end only at ASCII bytes or at the end of the text.
struct Writer<'a> {
    src: &'a str,
    out: &'a mut Vec<MdNode>,
    plain_from: usize,
}

impl Writer<'_> {
    fn flush(&mut self, to: usize) {
        if to > self.plain_from {
            let text = &self.src[self.plain_from..to];
            match self.out.last_mut() {
                Some(MdNode::Text(last)) => last.push_str(text),
                _ => self.out.push(MdNode::Text(text.to_owned())),
            }
        }
        self.plain_from = self.plain_from.max(to);
    }

    fn span(&mut self, class: Class, from: usize, to: usize) {
        if to <= from {
            return;
        }
        self.flush(from);
        self.out.push(MdNode::el(
            Tag::Span,
            vec![Attr::Class(NodeClass::Highlight(class))],
            vec![MdNode::Text(self.src[from..to].to_owned())],
        ));
        self.plain_from = to;
    }
}

fn is_ident_byte(b: u8, extra: &[u8]) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || extra.contains(&b)
}

fn line_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |i| from + i)
}

/// Where the current line started and what precedes the lexer on it, updated as the lexer moves
/// forward so that asking costs nothing per token (scanning back from each token would be
/// quadratic on a long line).
#[derive(Default)]
struct LineState {
    scanned_to: usize,
    /// Only spaces and tabs so far on this line.
    blank: bool,
    /// Only spaces, tabs and YAML list dashes so far on this line.
    blank_or_dash: bool,
}

impl LineState {
    fn advance(&mut self, bytes: &[u8], to: usize) {
        if self.scanned_to == 0 {
            self.blank = true;
            self.blank_or_dash = true;
        }
        for &b in &bytes[self.scanned_to.min(to)..to] {
            match b {
                b'\n' => {
                    self.blank = true;
                    self.blank_or_dash = true;
                }
                b' ' | b'\t' => {}
                b'-' => self.blank = false,
                _ => {
                    self.blank = false;
                    self.blank_or_dash = false;
                }
            }
        }
        self.scanned_to = self.scanned_to.max(to);
    }
}

/// Whether, after spaces and tabs, `bytes[at..]` starts with `c`.
fn followed_by(bytes: &[u8], at: usize, c: u8) -> bool {
    bytes[at..]
        .iter()
        .find(|&&b| b != b' ' && b != b'\t')
        .is_some_and(|&b| b == c)
}

/// End of a string opened at `at` by `quote` (`len` quote bytes), just past its closing quote
/// or at the end of the text. Single-quote-char strings also end at a newline, so one stray
/// quote does not colour the rest of the block.
fn string_end(bytes: &[u8], at: usize, quote: u8, len: usize, escapes: bool) -> usize {
    let mut i = at + len;
    while i < bytes.len() {
        let b = bytes[i];
        if escapes && b == b'\\' {
            i += 2;
            continue;
        }
        if b == b'\n' && len == 1 && quote != b'`' {
            return i;
        }
        if b == quote && bytes[i..].iter().take(len).all(|&c| c == quote) && i + len <= bytes.len()
        {
            return i + len;
        }
        i += 1;
    }
    bytes.len()
}

/// A Rust char literal at `at` (`'a'`, `'\n'`, `'\u{1F600}'`), or `None` for a lifetime.
fn char_literal_end(src: &str, at: usize) -> Option<usize> {
    let rest = &src[at + 1..];
    let mut chars = rest.char_indices();
    match chars.next()? {
        (_, '\\') => {
            let close = rest.get(1..)?.find('\'')?;
            (close < 10).then_some(at + 1 + 1 + close + 1)
        }
        (_, '\'') | (_, '\n') => None,
        (_, c) => {
            let after = c.len_utf8();
            (rest.as_bytes().get(after) == Some(&b'\'')).then_some(at + 1 + after + 1)
        }
    }
}

fn lex_code(w: &mut Writer<'_>, lang: &Lang) {
    let src = w.src;
    let bytes = src.as_bytes();
    let mut line = LineState::default();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        line.advance(bytes, i);
        let at_line_start = line.blank_or_dash;
        if lang.section_lines && b == b'[' && line.blank {
            let end = line_end(bytes, i);
            w.span(Class::Meta, i, end);
            i = end;
            continue;
        }
        if lang.hash_directives && b == b'#' && line.blank {
            let end = line_end(bytes, i);
            w.span(Class::Meta, i, end);
            i = end;
            continue;
        }
        if let Some((open, close)) = lang.block_comment {
            if bytes[i..].starts_with(open.as_bytes()) {
                let end = src[i + open.len()..]
                    .find(close)
                    .map_or(bytes.len(), |e| i + open.len() + e + close.len());
                w.span(Class::Comment, i, end);
                i = end;
                continue;
            }
        }
        let line_comment = lang.line_comments.iter().any(|c| {
            bytes[i..].starts_with(c.as_bytes())
                && (!(lang.hash_needs_space && *c == "#")
                    || i == 0
                    || bytes[i - 1].is_ascii_whitespace())
        });
        if line_comment {
            let end = line_end(bytes, i);
            w.span(Class::Comment, i, end);
            i = end;
            continue;
        }
        if lang.char_literals && b == b'\'' {
            if let Some(end) = char_literal_end(src, i) {
                w.span(Class::String, i, end);
                i = end;
            } else {
                i += 1;
            }
            continue;
        }
        if lang.quotes.contains(&b) {
            let triple = lang.triple_quotes && bytes[i..].iter().take(3).all(|&c| c == b);
            let len = if triple && bytes.len() >= i + 3 { 3 } else { 1 };
            let end = string_end(bytes, i, b, len, lang.backslash_escapes);
            let class = if (lang.string_keys && followed_by(bytes, end, b':'))
                || lang
                    .key_before
                    .is_some_and(|k| at_line_start && followed_by(bytes, end, k))
            {
                Class::Key
            } else {
                Class::String
            };
            w.span(class, i, end);
            i = end;
            continue;
        }
        let after_ident = i > 0 && is_ident_byte(bytes[i - 1], lang.ident_extra);
        if b.is_ascii_digit() && !after_ident {
            let end = bytes[i..]
                .iter()
                .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_' || c == b'.'))
                .map_or(bytes.len(), |e| i + e);
            w.span(Class::Number, i, end);
            i = end;
            continue;
        }
        if is_ident_byte(b, lang.ident_extra) && !after_ident {
            let end = bytes[i..]
                .iter()
                .position(|&c| !is_ident_byte(c, lang.ident_extra))
                .map_or(bytes.len(), |e| i + e);
            let word = &src[i..end];
            let is = |list: &[&str]| {
                if lang.case_insensitive {
                    list.iter().any(|k| k.eq_ignore_ascii_case(word))
                } else {
                    list.contains(&word)
                }
            };
            let class = if lang
                .key_before
                .is_some_and(|k| at_line_start && followed_by(bytes, end, k))
            {
                Some(Class::Key)
            } else if is(lang.keywords) {
                Some(Class::Keyword)
            } else if is(lang.literals) {
                Some(Class::Literal)
            } else {
                None
            };
            if let Some(class) = class {
                w.span(class, i, end);
            }
            i = end;
            continue;
        }
        i += 1;
    }
}

/// HTML, XML and SVG: comments, tag names, attribute names and quoted values.
fn lex_markup(w: &mut Writer<'_>) {
    let src = w.src;
    let bytes = src.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(b"<!--") {
            let end = src[i + 4..]
                .find("-->")
                .map_or(bytes.len(), |e| i + 4 + e + 3);
            w.span(Class::Comment, i, end);
            i = end;
            continue;
        }
        let opens_tag = bytes[i] == b'<'
            && bytes
                .get(i + 1)
                .is_some_and(|&c| c.is_ascii_alphabetic() || matches!(c, b'/' | b'!' | b'?'));
        if !opens_tag {
            i += 1;
            continue;
        }
        // The name runs from the character after `<` (which may be `/`, `!` or `?`).
        let name_end = bytes[i + 2..]
            .iter()
            .position(|&c| c.is_ascii_whitespace() || c == b'>' || c == b'/')
            .map_or(bytes.len(), |e| i + 2 + e);
        w.span(Class::Tag, i, name_end);
        i = name_end;
        // Attributes up to the closing `>`.
        while i < bytes.len() && bytes[i] != b'>' {
            let c = bytes[i];
            if c == b'"' || c == b'\'' {
                let end = string_end(bytes, i, c, 1, false);
                w.span(Class::String, i, end);
                i = end;
            } else if c.is_ascii_alphabetic() {
                let end = bytes[i..]
                    .iter()
                    .position(|&c| !(c.is_ascii_alphanumeric() || matches!(c, b'-' | b':' | b'_')))
                    .map_or(bytes.len(), |e| i + e);
                w.span(Class::Attribute, i, end);
                i = end;
            } else {
                i += 1;
            }
        }
        if i < bytes.len() {
            let from = if i > 0 && bytes[i - 1] == b'/' {
                i - 1
            } else {
                i
            };
            w.span(Class::Tag, from.max(w.plain_from), i + 1);
            i += 1;
        }
    }
}

/// Unified diffs: each line coloured by its first characters.
fn lex_diff(w: &mut Writer<'_>) {
    let src = w.src;
    let mut at = 0;
    for line in src.split_inclusive('\n') {
        let body = line.strip_suffix('\n').unwrap_or(line);
        let class = if ["+++", "---", "@@", "diff ", "index "]
            .iter()
            .any(|p| body.starts_with(p))
        {
            Some(Class::Meta)
        } else if body.starts_with('+') {
            Some(Class::Added)
        } else if body.starts_with('-') {
            Some(Class::Removed)
        } else {
            None
        };
        if let Some(class) = class {
            w.span(class, at, at + body.len());
        }
        at += line.len();
    }
}
