//! The vocabulary: every token's text, score and attributes, and a text → id index.
//!
//! Texts live in one byte arena with offsets, and the index is an open-addressing table of ids
//! hashed by text: for Gemma's 262,144 tokens that is about 4 MiB in all, against ~15 MiB for a
//! `HashMap<String, u32>` with a `String` per token, and it compiles no hashbrown table into
//! the worker. Built once per model; lookups are a hash and usually one comparison.

/// Token attributes, the same bits as llama.cpp's `llama_token_attr`, because the tokenizer's
/// choices (which tokens are parsed out of text, which decode to nothing) follow llama.cpp's.
pub(super) const UNKNOWN: u8 = 1 << 0;
pub(super) const UNUSED: u8 = 1 << 1;
pub(super) const NORMAL: u8 = 1 << 2;
pub(super) const CONTROL: u8 = 1 << 3;
pub(super) const USER_DEFINED: u8 = 1 << 4;
pub(super) const BYTE: u8 = 1 << 5;

const EMPTY: u32 = u32::MAX;

pub(super) struct Vocab {
    arena: Vec<u8>,
    /// `offsets[i]..offsets[i + 1]` is token i's text.
    offsets: Vec<u32>,
    scores: Vec<f32>,
    attrs: Vec<u8>,
    slots: Vec<u32>,
}

impl Vocab {
    /// `types` are GGUF token types (1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused,
    /// 6 byte); missing or short arrays mean "normal", and missing scores mean 0, as in
    /// llama.cpp.
    pub(super) fn new(tokens: &[String], scores: Option<&[f32]>, types: Option<&[i32]>) -> Self {
        let total: usize = tokens.iter().map(|t| t.len().max(1)).sum();
        let mut arena = Vec::with_capacity(total);
        let mut offsets = Vec::with_capacity(tokens.len() + 1);
        offsets.push(0u32);
        for (i, t) in tokens.iter().enumerate() {
            if t.is_empty() {
                // llama.cpp renames empty tokens so that every text is distinct and non-empty.
                arena.extend_from_slice(format!("[EMPTY_{i}]").as_bytes());
            } else {
                arena.extend_from_slice(t.as_bytes());
            }
            offsets.push(arena.len() as u32);
        }
        let scores = (0..tokens.len())
            .map(|i| scores.and_then(|s| s.get(i)).copied().unwrap_or(0.0))
            .collect();
        let attrs = (0..tokens.len())
            .map(|i| match types.and_then(|t| t.get(i)) {
                None | Some(1) => NORMAL,
                Some(2) => UNKNOWN,
                Some(3) => CONTROL,
                Some(4) => USER_DEFINED,
                Some(5) => UNUSED,
                Some(6) => BYTE,
                Some(_) => 0,
            })
            .collect();

        let capacity = (tokens.len() * 2).next_power_of_two().max(16);
        let mut vocab = Vocab {
            arena,
            offsets,
            scores,
            attrs,
            slots: vec![EMPTY; capacity],
        };
        for id in 0..tokens.len() as u32 {
            vocab.insert(id);
        }
        vocab
    }

    fn insert(&mut self, id: u32) {
        let mask = self.slots.len() - 1;
        let text = self.text(id);
        let mut slot = hash(text) as usize & mask;
        loop {
            match self.slots[slot] {
                EMPTY => {
                    self.slots[slot] = id;
                    return;
                }
                // A duplicate text keeps its first id; later ones are reachable only by id.
                other if self.text(other) == text => return,
                _ => slot = (slot + 1) & mask,
            }
        }
    }

    pub(super) fn find(&self, text: &[u8]) -> Option<u32> {
        let mask = self.slots.len() - 1;
        let mut slot = hash(text) as usize & mask;
        loop {
            match self.slots[slot] {
                EMPTY => return None,
                id if self.text(id) == text => return Some(id),
                _ => slot = (slot + 1) & mask,
            }
        }
    }

    pub(super) fn len(&self) -> usize {
        self.attrs.len()
    }

    pub(super) fn text(&self, id: u32) -> &[u8] {
        let i = id as usize;
        match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.arena[a as usize..b as usize],
            _ => &[],
        }
    }

    pub(super) fn score(&self, id: u32) -> f32 {
        self.scores.get(id as usize).copied().unwrap_or(0.0)
    }

    pub(super) fn attr(&self, id: u32) -> u8 {
        self.attrs.get(id as usize).copied().unwrap_or(0)
    }

    pub(super) fn add_attr(&mut self, id: u32, bits: u8) {
        if let Some(a) = self.attrs.get_mut(id as usize) {
            *a |= bits;
        }
    }
}

/// FNV-1a: token texts are short, and the table's keys come from the model file, not from the
/// user's text, so a keyed hash buys nothing here.
fn hash(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// An open-addressing map from a pair of token ids to a value, for BPE merges
/// ((left, right) → (rank, merged id)); same reasoning as the text index.
pub(super) struct PairTable {
    keys: Vec<u64>,
    values: Vec<(u32, u32)>,
}

impl PairTable {
    pub(super) fn with_capacity(n: usize) -> Self {
        let capacity = (n * 2).next_power_of_two().max(16);
        PairTable {
            keys: vec![u64::MAX; capacity],
            values: vec![(0, 0); capacity],
        }
    }

    /// Inserts unless the pair is present (the first merge of a pair has the lowest rank and
    /// wins, as in llama.cpp's `bpe_ranks.emplace`).
    pub(super) fn insert_first(&mut self, left: u32, right: u32, value: (u32, u32)) {
        let key = pair_key(left, right);
        let mask = self.keys.len() - 1;
        let mut slot = mix(key) as usize & mask;
        loop {
            if self.keys[slot] == u64::MAX {
                self.keys[slot] = key;
                self.values[slot] = value;
                return;
            }
            if self.keys[slot] == key {
                return;
            }
            slot = (slot + 1) & mask;
        }
    }

    pub(super) fn get(&self, left: u32, right: u32) -> Option<(u32, u32)> {
        let key = pair_key(left, right);
        let mask = self.keys.len() - 1;
        let mut slot = mix(key) as usize & mask;
        loop {
            if self.keys[slot] == u64::MAX {
                return None;
            }
            if self.keys[slot] == key {
                return Some(self.values[slot]);
            }
            slot = (slot + 1) & mask;
        }
    }
}

fn pair_key(left: u32, right: u32) -> u64 {
    (u64::from(left) << 32) | u64::from(right)
}

/// A 64-bit finalizer (from MurmurHash3) so that consecutive ids spread over the table.
fn mix(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}
