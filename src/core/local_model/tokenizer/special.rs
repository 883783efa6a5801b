//! Finding special tokens (`<|im_start|>`, `<start_of_turn>`, Gemma's `<table>` or runs of
//! spaces) in text before the tokenizer proper sees it, exactly as llama.cpp's
//! `tokenizer_st_partition` does.
//!
//! llama.cpp takes the special tokens longest first and, for each, splits every remaining text
//! fragment at its leftmost non-overlapping occurrences. That order matters when specials
//! overlap, so it is kept. What is not kept is its cost: it searches the text once per special
//! token (Gemma has 6,400 of them). Here one pass over the text with a byte trie finds every
//! occurrence of every special, and only those tokens that occur are then applied in
//! llama.cpp's order; tokens that never occur cannot split anything, so the result is the same.
//!
//! Control and unknown tokens are matched only when the caller asks (`parse_special`);
//! user-defined tokens always are (llama.cpp follows Hugging Face tokenizers there).

use std::ops::Range;

use super::vocab::{Vocab, CONTROL, UNKNOWN, USER_DEFINED};
use crate::order::{sort, sort_by, sort_by_key};

/// A piece of the input: text for the tokenizer proper, or a token already decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Piece {
    Text(Range<usize>),
    Token(u32),
}

const NONE: u32 = u32::MAX;

pub(super) struct SpecialMatcher {
    /// Root edges by first byte, so most positions of ordinary text cost one array read.
    root: Vec<u32>,
    /// Edges below the root, sorted by (parent node, byte) for binary search.
    edges: Vec<(u32, u8, u32)>,
    /// The special token (index into `specials`) that ends at each node, or NONE.
    ends: Vec<u32>,
    /// Special token ids in llama.cpp's order: longest text first (ties by id; llama.cpp's
    /// `std::sort` leaves ties in an unspecified order, and no real vocabulary has two equal
    /// length specials that overlap).
    specials: Vec<u32>,
}

impl SpecialMatcher {
    pub(super) fn new(vocab: &Vocab) -> Self {
        let mut specials: Vec<u32> = (0..vocab.len() as u32)
            .filter(|&id| vocab.attr(id) & (CONTROL | USER_DEFINED | UNKNOWN) != 0)
            .collect();
        sort_by(&mut specials, |&a, &b| {
            vocab
                .text(b)
                .len()
                .cmp(&vocab.text(a).len())
                .then(a.cmp(&b))
        });

        // Build the trie from the texts in byte order, so each new text shares the prefix of
        // the previous one and only its tail adds nodes.
        let mut by_text: Vec<u32> = (0..specials.len() as u32).collect();
        sort_by(&mut by_text, |&a, &b| {
            vocab
                .text(specials[a as usize])
                .cmp(vocab.text(specials[b as usize]))
        });
        let mut root = vec![NONE; 256];
        let mut edges: Vec<(u32, u8, u32)> = Vec::new();
        let mut ends: Vec<u32> = vec![NONE]; // node 0 is the root
        let mut path: Vec<u32> = Vec::new(); // nodes along the previous text
        let mut prev: &[u8] = &[];
        for &index in &by_text {
            let text = vocab.text(specials[index as usize]);
            let common = text.iter().zip(prev).take_while(|(a, b)| a == b).count();
            path.truncate(common);
            for (depth, &byte) in text.iter().enumerate().skip(common) {
                let node = ends.len() as u32;
                ends.push(NONE);
                if depth == 0 {
                    root[byte as usize] = node;
                } else {
                    edges.push((path[depth - 1], byte, node));
                }
                path.push(node);
            }
            if let Some(&last) = path.last() {
                // Equal texts (possible only with duplicate tokens) keep the earlier special.
                if ends[last as usize] == NONE {
                    ends[last as usize] = index;
                }
            }
            prev = text;
        }
        sort(&mut edges);
        SpecialMatcher {
            root,
            edges,
            ends,
            specials,
        }
    }

    fn child(&self, node: u32, byte: u8) -> Option<u32> {
        let at = self
            .edges
            .binary_search_by(|&(p, b, _)| (p, b).cmp(&(node, byte)))
            .ok()?;
        Some(self.edges[at].2)
    }

    /// Splits `text` into text pieces and special tokens.
    pub(super) fn partition(&self, vocab: &Vocab, text: &str, parse_special: bool) -> Vec<Piece> {
        let bytes = text.as_bytes();
        // Every (start, special index) where a special that may be parsed occurs.
        let mut found: Vec<(usize, u32)> = Vec::new();
        for start in 0..bytes.len() {
            let mut node = self.root[bytes[start] as usize];
            let mut at = start + 1;
            while node != NONE {
                let special = self.ends[node as usize];
                if special != NONE {
                    let id = self.specials[special as usize];
                    if parse_special || vocab.attr(id) & (CONTROL | UNKNOWN) == 0 {
                        found.push((start, special));
                    }
                }
                if at >= bytes.len() {
                    break;
                }
                node = self.child(node, bytes[at]).unwrap_or(NONE);
                at += 1;
            }
        }
        if found.is_empty() {
            return if text.is_empty() {
                Vec::new()
            } else {
                vec![Piece::Text(0..text.len())]
            };
        }

        // Apply the specials in llama.cpp's order; within one special, occurrences left to
        // right, each accepted when it lies wholly in text not yet claimed and does not overlap
        // the previous accepted occurrence of the same special.
        sort_by_key(&mut found, |&(start, special)| (special, start));
        let mut claimed = vec![false; bytes.len()];
        let mut accepted: Vec<(usize, usize, u32)> = Vec::new();
        let mut i = 0;
        while i < found.len() {
            let special = found[i].1;
            let id = self.specials[special as usize];
            let len = vocab.text(id).len();
            let mut last_end = 0;
            while i < found.len() && found[i].1 == special {
                let start = found[i].0;
                i += 1;
                let end = start + len;
                if start < last_end || claimed[start..end].iter().any(|&c| c) {
                    continue;
                }
                claimed[start..end].iter_mut().for_each(|c| *c = true);
                accepted.push((start, end, id));
                last_end = end;
            }
        }
        sort(&mut accepted);

        let mut pieces = Vec::with_capacity(accepted.len() * 2 + 1);
        let mut pos = 0;
        for (start, end, id) in accepted {
            if start > pos {
                pieces.push(Piece::Text(pos..start));
            }
            pieces.push(Piece::Token(id));
            pos = end;
        }
        if pos < text.len() {
            pieces.push(Piece::Text(pos..text.len()));
        }
        pieces
    }
}
