//! The models the worker can run, loaded from any `Read + Seek` over a GGUF file (an OPFS
//! sync access handle in the browser, a `File` in native tests).
//!
//! Invariant: nothing here knows about the browser; `cargo test -p skiff-worker` runs it.

mod attention;
mod gemma3;
mod int8;
mod linear;
mod llama;

use candle_core::quantized::gguf_file;
use candle_core::{Device, Tensor};
use std::fmt;
use std::io::{Read, Seek};

/// Architectures this worker runs, by GGUF `general.architecture`.
pub const ARCHITECTURES: &[&str] = &["llama", "gemma3"];

/// Why a model could not be loaded or run, in words for the person using the page.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelError {
    /// The file's architecture has no implementation here.
    Architecture(String),
    /// candle refused the file or a computation failed.
    Engine(String),
    /// The wasm heap could not grow.
    OutOfMemory,
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Architecture(a) => write!(
                f,
                "This browser can run {} models, and this file is a \"{a}\" model.",
                ARCHITECTURES.join(" and ")
            ),
            Self::Engine(e) => write!(f, "The model could not run: {e}."),
            Self::OutOfMemory => f.write_str(
                "The browser ran out of memory for this model: lower its context in Settings or pick a smaller model.",
            ),
        }
    }
}

impl std::error::Error for ModelError {}

impl From<candle_core::Error> for ModelError {
    fn from(e: candle_core::Error) -> Self {
        let text = e.to_string();
        if text.contains("memory allocation") || text.contains("out of memory") {
            Self::OutOfMemory
        } else {
            Self::Engine(text.trim_end_matches('.').to_string())
        }
    }
}

enum Net {
    Llama(llama::Llama),
    Gemma3(gemma3::Gemma3),
}

/// A loaded model with its KV cache, able to run at most `context` positions.
pub struct Model {
    net: Net,
    context: usize,
}

impl Model {
    /// Reads the GGUF index and every tensor from `reader`; `context` caps positions (RoPE
    /// tables and the KV cache are sized by it, never by the model's trained maximum).
    pub fn load<R: Read + Seek>(reader: &mut R, context: usize) -> Result<Self, ModelError> {
        let content = gguf_file::Content::read(reader)?;
        let arch = match content.metadata.get("general.architecture") {
            Some(v) => v.to_string()?.clone(),
            None => String::new(),
        };
        let device = Device::Cpu;
        let context = context.max(1);
        let net = match arch.as_str() {
            "llama" => Net::Llama(llama::Llama::load(&content, reader, context, &device)?),
            "gemma3" => Net::Gemma3(gemma3::Gemma3::load(&content, reader, context, &device)?),
            other => return Err(ModelError::Architecture(other.to_string())),
        };
        // `content` (the metadata, with the whole vocabulary) is dropped here: the
        // tokenizer lives in skiff-core's own copy, built from the header.
        Ok(Self { net, context })
    }

    pub fn context(&self) -> usize {
        self.context
    }

    /// Runs `tokens` at positions `pos..` and returns the last position's logits (f32).
    pub fn forward(&mut self, tokens: &[u32], pos: usize) -> Result<Tensor, ModelError> {
        if pos + tokens.len() > self.context {
            return Err(ModelError::Engine(format!(
                "position {} is past the context of {}",
                pos + tokens.len(),
                self.context
            )));
        }
        let logits = match &mut self.net {
            Net::Llama(m) => m.forward(tokens, pos)?,
            Net::Gemma3(m) => m.forward(tokens, pos)?,
        };
        Ok(attention::last_logits(&logits)?)
    }

    /// Forgets the KV cache.
    pub fn clear(&mut self) {
        match &mut self.net {
            Net::Llama(m) => m.clear(),
            Net::Gemma3(m) => m.clear(),
        }
    }

    /// Keeps the KV cache of positions `..end` and forgets the rest. Returns whether it
    /// could: on `false` (past what is cached, or a sliding window already dropped keys a
    /// query at `end` needs) the whole cache is cleared, never left half cut.
    pub fn truncate(&mut self, end: usize) -> bool {
        let kept = match &mut self.net {
            Net::Llama(m) => m.truncate(end),
            Net::Gemma3(m) => m.truncate(end),
        };
        if !kept {
            self.clear();
        }
        kept
    }
}
