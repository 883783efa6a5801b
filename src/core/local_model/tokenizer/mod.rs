//! Text ↔ token ids for a GGUF model, from the vocabulary in its header, giving the same ids
//! llama.cpp gives (checked against ids captured from llama.cpp in
//! `tests/fixtures/local_model/`).
//!
//! Two tokenizer families, chosen by `tokenizer.ggml.model`:
//! - "gpt2": byte-level BPE with merges ([`bpe`]), words split first by the rule that
//!   `tokenizer.ggml.pre` names ([`pretokenize`]);
//! - "llama": SentencePiece-style BPE with scores and byte fallback ([`spm`]).
//!
//! Before either runs, special tokens are cut out of the text ([`special`]). The worker builds a
//! `Tokenizer` once per model (16 ms natively for Gemma's 262,144 tokens) and keeps it; encoding
//! a 3,500-token prompt then takes about 1.5 ms natively.
//!
//! Not here: the chat template (`super::template`), BOS placement policy beyond
//! [`Tokenizer::encode_prompt`], and anything about sampling.

mod bpe;
mod pretokenize;
mod special;
mod spm;
mod vocab;

use super::gguf::{GgufHeader, MetaArray};
use super::info::UnsupportedModel;
use bpe::Bpe;
use pretokenize::PreTokenizer;
use special::{Piece, SpecialMatcher};
use spm::Spm;
use vocab::{Vocab, BYTE, CONTROL, NORMAL, UNKNOWN, USER_DEFINED};

enum Kind {
    Bpe(Bpe),
    Spm(Spm),
}

pub struct Tokenizer {
    vocab: Vocab,
    kind: Kind,
    specials: SpecialMatcher,
    bos: Option<u32>,
    eos: Option<u32>,
    add_bos: bool,
    /// Sorted ids that end generation.
    end_of_generation: Vec<u32>,
}

/// Texts llama.cpp treats as end-of-turn tokens when the GGUF names none
/// (`tokenizer.ggml.eot_token_id`), in llama-vocab.cpp's order.
const EOT_TEXTS: &[&str] = &[
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "<|end_of_text|>",
    "<EOT>",
    "_<EOT>",
    "[EOT]",
    "<｜end▁of▁sentence｜>",
    "<end_of_utterance>",
];

/// Texts whose tokens end generation in llama.cpp, whatever the GGUF says.
const EOG_TEXTS: &[&str] = &[
    "<|eot_id|>",
    "<|im_end|>",
    "<|end|>",
    "<|return|>",
    "<|call|>",
    "<|flush|>",
    "<|calls|>",
    "<end_of_turn>",
    "<|endoftext|>",
    "</s>",
    "<|eom_id|>",
    "<EOT>",
    "_<EOT>",
    "[EOT]",
    "[EOS]",
    "<|end_of_text|>",
    "<end_of_utterance>",
    "<eos>",
    "<turn|>",
    "<|tool_response>",
    "<｜end▁of▁sentence｜>",
    "[e~[",
];

/// Fill-in-the-middle tokens llama.cpp recognises by text. The pad, repo and separator kinds
/// also end generation (a code model that emits them has left the answer).
const FIM_PRE: &[&str] = &[
    "<|fim_prefix|>",
    "<fim-prefix>",
    "<fim_prefix>",
    "<｜fim▁begin｜>",
    "<PRE>",
    "▁<PRE>",
    "<|code_prefix|>",
    "<|prefix|>",
];
const FIM_SUF: &[&str] = &[
    "<|fim_suffix|>",
    "<fim-suffix>",
    "<fim_suffix>",
    "<｜fim▁hole｜>",
    "<SUF>",
    "▁<SUF>",
    "<|code_suffix|>",
    "<|suffix|>",
];
const FIM_MID: &[&str] = &[
    "<|fim_middle|>",
    "<fim-middle>",
    "<fim_middle>",
    "<｜fim▁end｜>",
    "<MID>",
    "▁<MID>",
    "<|code_middle|>",
    "<|middle|>",
];
const FIM_PAD: &[&str] = &["<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"];
const FIM_REP: &[&str] = &[
    "<|fim_repo|>",
    "<|repo_name|>",
    "<fim-repo>",
    "<REPO>",
    "<reponame>",
];
const FIM_SEP: &[&str] = &["<|file_sep|>"];

impl Tokenizer {
    pub fn from_header(header: &GgufHeader) -> Result<Tokenizer, UnsupportedModel> {
        let missing = |what: &str| UnsupportedModel::MissingTokenizer {
            missing: what.to_string(),
        };
        let model = header
            .get_str("tokenizer.ggml.model")
            .ok_or_else(|| missing("tokenizer.ggml.model"))?;
        let tokens = match header.get_array("tokenizer.ggml.tokens") {
            Some(MetaArray::String(t)) if !t.is_empty() => t,
            _ => return Err(missing("tokenizer.ggml.tokens")),
        };
        let scores = match header.get_array("tokenizer.ggml.scores") {
            Some(MetaArray::F32(s)) => Some(s.as_slice()),
            _ => None,
        };
        let types = match header.get_array("tokenizer.ggml.token_type") {
            Some(MetaArray::I32(t)) => Some(t.as_slice()),
            _ => None,
        };
        let mut vocab = Vocab::new(tokens, scores, types);
        let n = vocab.len() as u64;
        // An id outside the vocabulary is ignored, as llama.cpp does ("bad special token").
        let id_key = |key: &str| {
            header
                .get_u64(&format!("tokenizer.ggml.{key}"))
                .filter(|&id| id < n)
                .map(|id| id as u32)
        };
        let pre = header.get_str("tokenizer.ggml.pre");
        let unsupported = || UnsupportedModel::UnsupportedTokenizer {
            model: model.to_string(),
            pre: pre.map(str::to_string),
        };

        let (kind, default_add_bos) = match model {
            "gpt2" => {
                let merges = match header.get_array("tokenizer.ggml.merges") {
                    Some(MetaArray::String(m)) => m,
                    _ => return Err(missing("tokenizer.ggml.merges")),
                };
                let splitter = PreTokenizer::from_pre(pre).ok_or_else(unsupported)?;
                let llama3 = splitter == PreTokenizer::Llama3;
                // llama.cpp turns on add_bos and ignore_merges for the Llama 3 family.
                (
                    Kind::Bpe(Bpe::new(&vocab, merges, splitter, llama3)),
                    llama3,
                )
            }
            "llama" => {
                let add_space_prefix = header
                    .get_bool("tokenizer.ggml.add_space_prefix")
                    .unwrap_or(true);
                let spm = Spm::new(&vocab, add_space_prefix, id_key("unknown_token_id"));
                (Kind::Spm(spm), true)
            }
            _ => return Err(unsupported()),
        };

        // End of generation, following llama.cpp's rules (llama_vocab::impl::load): the named
        // ids, ids found by text when not named, and the fixed list of end texts. Tokens found
        // by text become control tokens, which changes whether `encode` parses them.
        // llama.cpp takes the first match in hash-map order; the lowest id is the stable choice
        // (and the one llama.cpp made for SmolLM2, whose vocabulary has two such texts).
        let by_text = |vocab: &Vocab, texts: &[&str]| -> Option<u32> {
            texts.iter().filter_map(|t| vocab.find(t.as_bytes())).min()
        };
        let named_or_found = |vocab: &mut Vocab, key: &str, texts: &[&str]| -> Option<u32> {
            if let Some(id) = id_key(key) {
                return Some(id);
            }
            let id = by_text(vocab, texts)?;
            vocab.add_attr(id, CONTROL);
            Some(id)
        };
        let eot = named_or_found(&mut vocab, "eot_token_id", EOT_TEXTS);
        let eom = named_or_found(&mut vocab, "eom_token_id", &["<|eom_id|>"]);
        named_or_found(&mut vocab, "fim_pre_token_id", FIM_PRE);
        named_or_found(&mut vocab, "fim_suf_token_id", FIM_SUF);
        named_or_found(&mut vocab, "fim_mid_token_id", FIM_MID);
        let fim_pad = named_or_found(&mut vocab, "fim_pad_token_id", FIM_PAD);
        let fim_rep = named_or_found(&mut vocab, "fim_rep_token_id", FIM_REP);
        let fim_sep = named_or_found(&mut vocab, "fim_sep_token_id", FIM_SEP);
        let eos = id_key("eos_token_id");
        let mut end_of_generation: Vec<u32> = [fim_pad, fim_rep, fim_sep, eos, eot, eom]
            .into_iter()
            .flatten()
            .collect();
        let by_eog_text: Vec<u32> = EOG_TEXTS
            .iter()
            .filter_map(|t| vocab.find(t.as_bytes()))
            .collect();
        for id in by_eog_text {
            vocab.add_attr(id, CONTROL);
            end_of_generation.push(id);
        }
        crate::order::sort(&mut end_of_generation);
        end_of_generation.dedup();

        let specials = SpecialMatcher::new(&vocab);
        Ok(Tokenizer {
            bos: id_key("bos_token_id"),
            eos,
            add_bos: header
                .get_bool("tokenizer.ggml.add_bos_token")
                .unwrap_or(default_add_bos),
            end_of_generation,
            vocab,
            kind,
            specials,
        })
    }

    /// Token ids for `text`, without BOS (see [`Tokenizer::add_bos`]). With `parse_special`,
    /// control tokens written in the text (`<|im_start|>`, `<start_of_turn>`) become those
    /// tokens, as llama.cpp's `special=True`; without it they are tokenized as plain text,
    /// which is what untrusted text (a user's message) needs.
    pub fn encode(&self, text: &str, parse_special: bool) -> Vec<u32> {
        let pieces = self.specials.partition(&self.vocab, text, parse_special);
        let mut out = Vec::with_capacity(text.len() / 3 + 4);
        let mut after_special = true;
        for piece in pieces {
            match piece {
                Piece::Token(id) => {
                    out.push(id);
                    after_special = true;
                }
                Piece::Text(range) => {
                    let fragment = &text[range];
                    match &self.kind {
                        Kind::Bpe(bpe) => bpe.encode(&self.vocab, fragment, &mut out),
                        Kind::Spm(spm) => {
                            spm.encode(&self.vocab, fragment, after_special, &mut out)
                        }
                    }
                    after_special = false;
                }
            }
        }
        out
    }

    /// Token ids for a prompt rendered by [`super::ChatTemplate::render`]: special tokens
    /// parsed, and BOS first when the model wants one and the template did not already write
    /// it (Gemma's template starts with `<bos>`; SmolLM2 wants none). This is what
    /// llama-cpp-python's chat completion feeds the model for these templates.
    pub fn encode_prompt(&self, rendered: &str) -> Vec<u32> {
        let mut ids = self.encode(rendered, true);
        if let Some(bos) = self.add_bos() {
            if ids.first() != Some(&bos) {
                ids.insert(0, bos);
            }
        }
        ids
    }

    /// The BOS id to put before a prompt, when the model asks for one
    /// (`tokenizer.ggml.add_bos_token`, default per tokenizer family as in llama.cpp).
    pub fn add_bos(&self) -> Option<u32> {
        if self.add_bos {
            self.bos
        } else {
            None
        }
    }

    pub fn bos(&self) -> Option<u32> {
        self.bos
    }

    pub fn eos(&self) -> Option<u32> {
        self.eos
    }

    /// The bytes a generated token contributes to the answer. Bytes, not a string: one
    /// character can span several tokens (byte fallback, or a BPE token holding half of an
    /// emoji), so the caller assembles UTF-8 across tokens. Control tokens contribute nothing;
    /// user-defined ones (Gemma's `<table>`, runs of spaces) their text.
    pub fn token_bytes(&self, id: u32) -> Vec<u8> {
        let attr = self.vocab.attr(id);
        let text = self.vocab.text(id);
        if attr & (CONTROL | UNKNOWN) != 0 {
            return Vec::new();
        }
        if attr & USER_DEFINED != 0 {
            return text.to_vec();
        }
        match &self.kind {
            Kind::Spm(_) if attr & BYTE != 0 => parse_byte_token(text).into_iter().collect(),
            Kind::Spm(_) if attr & NORMAL != 0 => {
                let s = String::from_utf8_lossy(text);
                s.replace('\u{2581}', " ").into_bytes()
            }
            Kind::Bpe(_) if attr & NORMAL != 0 => {
                let s = String::from_utf8_lossy(text);
                let mut out = Vec::with_capacity(s.len());
                for c in s.chars() {
                    match bpe::char_byte(c) {
                        Some(b) => out.push(b),
                        // Not a GPT-2 byte character: keep it as written rather than lose it.
                        None => out.extend_from_slice(c.encode_utf8(&mut [0u8; 4]).as_bytes()),
                    }
                }
                out
            }
            // Unused and undefined tokens decode to nothing, as in llama.cpp.
            _ => Vec::new(),
        }
    }

    /// Whether generation stops at this token (EOS, end of turn, `<|im_end|>`,
    /// `<end_of_turn>`, and the rest of llama.cpp's list).
    pub fn is_end_of_generation(&self, id: u32) -> bool {
        self.end_of_generation.binary_search(&id).is_ok()
    }

    /// Every end-of-generation id, sorted.
    pub fn end_of_generation(&self) -> &[u32] {
        &self.end_of_generation
    }

    pub fn vocab_size(&self) -> usize {
        self.vocab.len()
    }

    /// The token's text as stored in the model (with "▁" or GPT-2 byte characters), for
    /// diagnostics.
    pub fn token_text(&self, id: u32) -> String {
        String::from_utf8_lossy(self.vocab.text(id)).into_owned()
    }
}

/// `<0xNN>` → NN.
fn parse_byte_token(text: &[u8]) -> Option<u8> {
    let hex = text.strip_prefix(b"<0x")?.strip_suffix(b">")?;
    let hex = std::str::from_utf8(hex).ok()?;
    u8::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
#[path = "tokenizer_tests.rs"]
mod tests;
