//! The word splitters that run before byte-level BPE, hand-written after llama.cpp's
//! `unicode_regex_split_custom_gpt2` / `_llama3` (no regex engine: this crate is compiled into
//! a size-budgeted page).
//!
//! Which one runs is chosen by the GGUF's `tokenizer.ggml.pre`, as llama.cpp chooses its regex
//! list:
//! - `Gpt2` ("gpt-2", "gpt2" and friends): `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+|
//!   ?[^\s\p{L}\p{N}]+|\s+(?!\S)`.
//! - `DigitsThenGpt2` ("smollm", "starcoder", "refact", "command-r", "codeshell", "exaone",
//!   "minerva-7b"): first every `\p{N}` character becomes its own piece, then the GPT-2 rule
//!   runs inside each piece. The pieces matter beyond digits: `\s+(?!\S)` looks ahead only
//!   within a piece, so "x  12" splits as "x", "  ", "1", "2" (not "x", " ", " 12").
//! - `Llama3` ("llama-bpe", "llama3", "llama-v3", "falcon3"): llama.cpp's adapted Llama 3 rule
//!   `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|
//!   \s*[\r\n]+|\s+(?!\S)|\s+`. No fixture model uses it; it follows llama.cpp's code line by line.
//!
//! Unicode classes use the standard library: a letter is `is_alphabetic() && !is_numeric()`,
//! a number `is_numeric()` (Nd, Nl, No, exactly `\p{N}`), whitespace `is_whitespace()` (the
//! same 25 code points llama.cpp lists). `is_alphabetic` is the Alphabetic property, which also
//! covers some combining marks (Other_Alphabetic, e.g. Devanagari vowel signs) and circled
//! letters that llama.cpp classes as marks or symbols; in those scripts a word may split
//! differently from llama.cpp. The fixtures (Latin with accents, CJK, Hangul, Cyrillic, emoji)
//! agree exactly.

use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PreTokenizer {
    Gpt2,
    DigitsThenGpt2,
    Llama3,
}

impl PreTokenizer {
    /// The splitter for a `tokenizer.ggml.pre` value, or `None` when llama.cpp would use a rule
    /// this file does not implement.
    pub(super) fn from_pre(pre: Option<&str>) -> Option<Self> {
        Some(match pre {
            // llama.cpp treats a missing `pre` as "default" (its own four-regex list, with a
            // loud warning); GGUFs that old with BPE vocabularies are GPT-2 style in practice.
            None | Some("gpt-2" | "gpt2" | "phi-2" | "roberta-bpe" | "mpt" | "olmo" | "jais") => {
                PreTokenizer::Gpt2
            }
            Some(
                "smollm" | "starcoder" | "refact" | "command-r" | "codeshell" | "exaone"
                | "minerva-7b",
            ) => PreTokenizer::DigitsThenGpt2,
            Some("llama-bpe" | "llama3" | "llama-v3" | "falcon3") => PreTokenizer::Llama3,
            Some(_) => return None,
        })
    }

    /// Appends the byte ranges of the words of `text` to `out`.
    pub(super) fn split(self, text: &str, out: &mut Vec<Range<usize>>) {
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let mut words: Vec<Range<usize>> = Vec::new();
        match self {
            PreTokenizer::Gpt2 => gpt2(&chars, 0, chars.len(), &mut words),
            PreTokenizer::Llama3 => llama3(&chars, 0, chars.len(), &mut words),
            PreTokenizer::DigitsThenGpt2 => {
                let mut start = 0;
                for (i, &(_, c)) in chars.iter().enumerate() {
                    if c.is_numeric() {
                        gpt2(&chars, start, i, &mut words);
                        words.push(i..i + 1);
                        start = i + 1;
                    }
                }
                gpt2(&chars, start, chars.len(), &mut words);
            }
        }
        // Char index ranges to byte ranges.
        let byte_at = |i: usize| chars.get(i).map_or(text.len(), |&(b, _)| b);
        out.extend(words.into_iter().map(|w| byte_at(w.start)..byte_at(w.end)));
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Letter,
    Number,
    Space,
    Other,
}

fn class(c: char) -> Class {
    if c.is_whitespace() {
        Class::Space
    } else if c.is_numeric() {
        Class::Number
    } else if c.is_alphabetic() {
        Class::Letter
    } else {
        Class::Other
    }
}

/// `' '` is special-cased by the rules (an optional leading space), other whitespace is not.
fn contraction_len(chars: &[(usize, char)], pos: usize, end: usize, fold: bool) -> usize {
    if chars[pos].1 != '\'' || pos + 1 >= end {
        return 0;
    }
    let lower = |c: char| if fold { c.to_ascii_lowercase() } else { c };
    let next = lower(chars[pos + 1].1);
    if matches!(next, 's' | 't' | 'm' | 'd') {
        return 2;
    }
    if pos + 2 < end {
        let next2 = lower(chars[pos + 2].1);
        if matches!((next, next2), ('r', 'e') | ('v', 'e') | ('l', 'l')) {
            return 3;
        }
    }
    0
}

/// llama.cpp's `unicode_regex_split_custom_gpt2` over `chars[start..end]`.
fn gpt2(chars: &[(usize, char)], start: usize, end: usize, out: &mut Vec<Range<usize>>) {
    let class_at = |i: usize| (i < end).then(|| class(chars[i].1));
    let mut pos = start;
    while pos < end {
        let from = pos;
        let c = chars[pos].1;
        let n = contraction_len(chars, pos, end, false);
        if n > 0 {
            pos += n;
            out.push(from..pos);
            continue;
        }
        // ` ?X+`: an optional single space, then a run of one class.
        let lead = if c == ' ' {
            class_at(pos + 1)
        } else {
            Some(class(c))
        };
        if let Some(k @ (Class::Letter | Class::Number | Class::Other)) = lead {
            if c == ' ' {
                pos += 1;
            }
            while class_at(pos) == Some(k) {
                pos += 1;
            }
            out.push(from..pos);
            continue;
        }
        let mut spaces = 0;
        while class_at(pos + spaces) == Some(Class::Space) {
            spaces += 1;
        }
        if spaces > 1 && pos + spaces < end {
            // `\s+(?!\S)`: leave the last space to lead the next word.
            pos += spaces - 1;
        } else if spaces > 0 {
            pos += spaces;
        } else {
            pos += 1;
        }
        out.push(from..pos);
    }
}

/// llama.cpp's `unicode_regex_split_custom_llama3` over `chars[start..end]`.
fn llama3(chars: &[(usize, char)], start: usize, end: usize, out: &mut Vec<Range<usize>>) {
    let class_at = |i: usize| (i < end).then(|| class(chars[i].1));
    let char_at = |i: usize| (i < end).then(|| chars[i].1);
    let mut pos = start;
    while pos < end {
        let from = pos;
        let c = chars[pos].1;
        let k = class(c);
        let n = contraction_len(chars, pos, end, true);
        if n > 0 {
            pos += n;
            out.push(from..pos);
            continue;
        }
        // `[^\r\n\p{L}\p{N}]?\p{L}+`
        if c != '\r'
            && c != '\n'
            && k != Class::Number
            && (k == Class::Letter || class_at(pos + 1) == Some(Class::Letter))
        {
            pos += 1;
            while class_at(pos) == Some(Class::Letter) {
                pos += 1;
            }
            out.push(from..pos);
            continue;
        }
        // `\p{N}{1,3}`
        if k == Class::Number {
            let mut run_start = pos;
            while class_at(pos) == Some(Class::Number) {
                pos += 1;
                if pos - run_start >= 3 {
                    out.push(run_start..pos);
                    run_start = pos;
                }
            }
            if pos > run_start {
                out.push(run_start..pos);
            }
            continue;
        }
        // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
        let lead = if c == ' ' { class_at(pos + 1) } else { Some(k) };
        if lead == Some(Class::Other) {
            if c == ' ' {
                pos += 1;
            }
            while class_at(pos) == Some(Class::Other) {
                pos += 1;
            }
            while matches!(char_at(pos), Some('\r' | '\n')) {
                pos += 1;
            }
            out.push(from..pos);
            continue;
        }
        let mut spaces = 0;
        let mut last_newline_end = 0;
        while class_at(pos + spaces) == Some(Class::Space) {
            if matches!(char_at(pos + spaces), Some('\r' | '\n')) {
                last_newline_end = pos + spaces + 1;
            }
            spaces += 1;
        }
        if last_newline_end > 0 {
            // `\s*[\r\n]+`
            pos = last_newline_end;
        } else if spaces > 1 && pos + spaces < end {
            pos += spaces - 1;
        } else if spaces > 0 {
            pos += spaces;
        } else {
            pos += 1;
        }
        out.push(from..pos);
    }
}
