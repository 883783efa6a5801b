//! SentencePiece-style BPE (GGUF `tokenizer.ggml.model = "llama"`: Gemma, Llama 2, Mistral),
//! as llama.cpp's `llm_tokenizer_spm_session` does it.
//!
//! Spaces become "▁" (and with `add_space_prefix` a "▁" leads the fragment), the text starts as
//! one symbol per UTF-8 character, and the adjacent pair whose concatenation is the token with
//! the highest score is merged, leftmost first on ties, until no concatenation is a token. A
//! max-heap of candidate pairs with a size check for staleness keeps this O(n log n), which
//! matters because the whole fragment (not word by word) is one sequence. What remains and is
//! not a token falls back to byte tokens `<0xNN>`.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::vocab::Vocab;

const NONE: u32 = u32::MAX;
const SPACE: &str = "\u{2581}";

pub(super) struct Spm {
    pub(super) add_space_prefix: bool,
    /// The token for each byte when a character is not in the vocabulary: `<0xNN>`, else the
    /// byte itself as a one-byte token, else the unknown token, else nothing.
    byte_token: [u32; 256],
}

impl Spm {
    pub(super) fn new(vocab: &Vocab, add_space_prefix: bool, unknown: Option<u32>) -> Self {
        let mut byte_token = [NONE; 256];
        for (b, slot) in byte_token.iter_mut().enumerate() {
            let hex = format!("<0x{b:02X}>");
            *slot = vocab
                .find(hex.as_bytes())
                .or_else(|| vocab.find(&[b as u8]))
                .or(unknown)
                .unwrap_or(NONE);
        }
        Spm {
            add_space_prefix,
            byte_token,
        }
    }

    /// Tokenizes one text fragment (no special tokens inside) onto `out`. `after_special`
    /// says whether the fragment starts the input or follows a special token, where llama.cpp
    /// adds the space prefix.
    pub(super) fn encode(
        &self,
        vocab: &Vocab,
        text: &str,
        after_special: bool,
        out: &mut Vec<u32>,
    ) {
        let mut escaped = String::with_capacity(text.len() + 8);
        if self.add_space_prefix && after_special {
            escaped.push_str(SPACE);
        }
        for c in text.chars() {
            if c == ' ' {
                escaped.push_str(SPACE);
            } else {
                escaped.push(c);
            }
        }
        let bytes = escaped.as_bytes();

        // Symbols: start byte, length in bytes, and links. Merged-away symbols get length 0.
        let mut start: Vec<u32> = Vec::with_capacity(escaped.len());
        for (i, _) in escaped.char_indices() {
            start.push(i as u32);
        }
        let n = start.len();
        let mut len: Vec<u32> = (0..n)
            .map(|i| start.get(i + 1).copied().unwrap_or(bytes.len() as u32) - start[i])
            .collect();
        let mut next: Vec<u32> = (1..=n as u32).collect();
        if let Some(last) = next.last_mut() {
            *last = NONE;
        }
        let mut prev: Vec<u32> = (0..n as u32).map(|i| i.wrapping_sub(1)).collect();

        let mut heap = BinaryHeap::new();
        let try_pair = |heap: &mut BinaryHeap<Bigram>, len: &[u32], left: u32, right: u32| {
            if left == NONE || right == NONE {
                return;
            }
            let from = start[left as usize] as usize;
            let size = (len[left as usize] + len[right as usize]) as usize;
            if let Some(id) = vocab.find(&bytes[from..from + size]) {
                heap.push(Bigram {
                    score: vocab.score(id),
                    left,
                    right,
                    size: size as u32,
                });
            }
        };
        for i in 1..n as u32 {
            try_pair(&mut heap, &len, i - 1, i);
        }
        while let Some(b) = heap.pop() {
            let (l, r) = (b.left as usize, b.right as usize);
            if len[l] == 0 || len[r] == 0 || len[l] + len[r] != b.size {
                continue;
            }
            len[l] += len[r];
            len[r] = 0;
            next[l] = next[r];
            if next[r] != NONE {
                prev[next[r] as usize] = b.left;
            }
            try_pair(&mut heap, &len, prev[l], b.left);
            try_pair(&mut heap, &len, b.left, next[l]);
        }

        let mut i = if n > 0 { 0 } else { NONE };
        while i != NONE {
            let from = start[i as usize] as usize;
            let piece = &bytes[from..from + len[i as usize] as usize];
            match vocab.find(piece) {
                Some(id) => out.push(id),
                // Only a single character can be left that is not a token (every merge made
                // a token), so llama.cpp's `rev_merge` re-segmentation never applies here.
                None => out.extend(
                    piece
                        .iter()
                        .map(|&b| self.byte_token[b as usize])
                        .filter(|&t| t != NONE),
                ),
            }
            i = next[i as usize];
        }
    }
}

/// A candidate merge. Ordered for a max-heap as llama.cpp's comparator: higher score first,
/// then the leftmost pair.
struct Bigram {
    score: f32,
    left: u32,
    right: u32,
    size: u32,
}

impl PartialEq for Bigram {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Bigram {}
impl PartialOrd for Bigram {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Bigram {
    fn cmp(&self, other: &Self) -> Ordering {
        self.score
            .total_cmp(&other.score)
            .then_with(|| other.left.cmp(&self.left))
            .then_with(|| other.right.cmp(&self.right))
    }
}
