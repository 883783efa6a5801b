//! Byte-level BPE (GGUF `tokenizer.ggml.model = "gpt2"`: SmolLM2, Llama 3, Qwen and most
//! recent models), as llama.cpp's `llm_tokenizer_bpe_session` does it.
//!
//! Each word from the pre-tokenizer starts as one symbol per byte (each byte stands for one
//! character of GPT-2's byte-to-unicode table, and each such character is a token), then the
//! adjacent pair with the lowest merge rank is merged, leftmost first on ties, until no pair
//! has a merge. A min-heap of candidate pairs with a stale check keeps a long word at
//! O(n log n) instead of rescanning all pairs after every merge.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ops::Range;

use super::pretokenize::PreTokenizer;
use super::vocab::{PairTable, Vocab};

const NONE: u32 = u32::MAX;

pub(super) struct Bpe {
    pub(super) pre: PreTokenizer,
    /// The token id of each byte's GPT-2 character, NONE when the vocabulary lacks it.
    byte_token: [u32; 256],
    merges: PairTable,
    /// Llama 3 style: a word that is itself a token is emitted whole, without merging.
    ignore_merges: bool,
}

/// GPT-2's byte → character table: printable Latin-1 bytes stand for themselves, the rest
/// (controls, space, DEL, NBSP, soft hyphen) for U+0100 upwards in byte order.
pub(super) fn byte_char(b: u8) -> char {
    let printable = |b: u8| matches!(b, b'!'..=b'~' | 0xA1..=0xAC | 0xAE..=0xFF);
    if printable(b) {
        return char::from(b);
    }
    let rank = (0..b).filter(|&x| !printable(x)).count() as u32;
    char::from_u32(256 + rank).unwrap_or('\u{FFFD}')
}

/// The inverse of [`byte_char`], for decoding.
pub(super) fn char_byte(c: char) -> Option<u8> {
    let code = c as u32;
    if code < 256 {
        let b = code as u8;
        return (byte_char(b) == c).then_some(b);
    }
    let rank = code.checked_sub(256)?;
    (0..=255u8)
        .filter(|&b| byte_char(b) as u32 >= 256)
        .nth(rank as usize)
}

impl Bpe {
    /// `merges` are GGUF's "left right" strings in rank order.
    pub(super) fn new(
        vocab: &Vocab,
        merges: &[String],
        pre: PreTokenizer,
        ignore_merges: bool,
    ) -> Self {
        let mut byte_token = [NONE; 256];
        for (b, slot) in byte_token.iter_mut().enumerate() {
            let mut buf = [0u8; 4];
            let text = byte_char(b as u8).encode_utf8(&mut buf);
            *slot = vocab.find(text.as_bytes()).unwrap_or(NONE);
        }
        let mut table = PairTable::with_capacity(merges.len());
        let mut joined = Vec::new();
        for (rank, merge) in merges.iter().enumerate() {
            // llama.cpp splits at the first space after the first byte.
            // (Bytes, not chars: the first character is often two bytes, like "Ġ".)
            let Some(split) = merge
                .as_bytes()
                .iter()
                .skip(1)
                .position(|&b| b == b' ')
                .map(|i| i + 1)
            else {
                continue;
            };
            let (left, right) = (&merge[..split], &merge[split + 1..]);
            joined.clear();
            joined.extend_from_slice(left.as_bytes());
            joined.extend_from_slice(right.as_bytes());
            // A merge whose parts or result are not tokens cannot produce a token; llama.cpp
            // would merge and then fall back to single bytes, which no real vocabulary needs.
            if let (Some(l), Some(r), Some(m)) = (
                vocab.find(left.as_bytes()),
                vocab.find(right.as_bytes()),
                vocab.find(&joined),
            ) {
                table.insert_first(l, r, (rank as u32, m));
            }
        }
        Bpe {
            pre,
            byte_token,
            merges: table,
            ignore_merges,
        }
    }

    /// Tokenizes one text fragment (no special tokens inside) onto `out`.
    pub(super) fn encode(&self, vocab: &Vocab, text: &str, out: &mut Vec<u32>) {
        let mut words: Vec<Range<usize>> = Vec::new();
        self.pre.split(text, &mut words);
        let mut work = Work::default();
        let mut mapped = String::new();
        for word in words {
            let bytes = &text.as_bytes()[word];
            if self.ignore_merges {
                mapped.clear();
                mapped.extend(bytes.iter().map(|&b| byte_char(b)));
                if let Some(id) = vocab.find(mapped.as_bytes()) {
                    out.push(id);
                    continue;
                }
            }
            self.encode_word(bytes, &mut work, out);
        }
    }

    fn encode_word(&self, bytes: &[u8], work: &mut Work, out: &mut Vec<u32>) {
        let n = bytes.len();
        work.ids.clear();
        work.next.clear();
        work.prev.clear();
        work.heap.clear();
        work.ids
            .extend(bytes.iter().map(|&b| self.byte_token[b as usize]));
        work.next.extend((1..=n).map(|i| i as u32));
        work.prev.extend((0..n).map(|i| (i as u32).wrapping_sub(1)));
        if let Some(last) = work.next.last_mut() {
            *last = NONE;
        }
        for i in 1..n {
            self.push_pair(work, i as u32 - 1, i as u32);
        }
        while let Some(Reverse((_, left, right, left_id, right_id))) = work.heap.pop() {
            let (l, r) = (left as usize, right as usize);
            // Stale when either side has merged since the pair was queued (llama.cpp compares
            // the texts; ids stand for texts one to one).
            if work.ids[l] != left_id || work.ids[r] != right_id || work.next[l] != right {
                continue;
            }
            let Some((_, merged)) = self.merges.get(left_id, right_id) else {
                continue;
            };
            work.ids[l] = merged;
            work.ids[r] = NONE;
            let after = work.next[r];
            work.next[l] = after;
            work.next[r] = NONE;
            if after != NONE {
                work.prev[after as usize] = left;
            }
            let before = work.prev[l];
            if before != NONE {
                self.push_pair(work, before, left);
            }
            if after != NONE {
                self.push_pair(work, left, after);
            }
        }
        let mut i = if n > 0 { 0 } else { NONE };
        while i != NONE {
            let id = work.ids[i as usize];
            // A byte whose GPT-2 character is not in the vocabulary has no token at all;
            // llama.cpp drops it the same way.
            if id != NONE {
                out.push(id);
            }
            i = work.next[i as usize];
        }
    }

    fn push_pair(&self, work: &mut Work, left: u32, right: u32) {
        let (l, r) = (work.ids[left as usize], work.ids[right as usize]);
        if l == NONE || r == NONE {
            return;
        }
        if let Some((rank, _)) = self.merges.get(l, r) {
            work.heap.push(Reverse((rank, left, right, l, r)));
        }
    }
}

/// A queued merge: (rank, left, right, left id, right id), lowest rank then leftmost first.
type Candidate = Reverse<(u32, u32, u32, u32, u32)>;

/// Buffers reused across the words of one call.
#[derive(Default)]
struct Work {
    ids: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    heap: BinaryHeap<Candidate>,
}
