//! One generation, step by step: prefill the prompt in chunks, then sample one token per
//! step. The browser loop yields to its event loop between steps, so an abort arrives within
//! one token; tests call `step` in a plain loop.
//!
//! Never decides when to stop on text (stop strings, end-of-generation tokens, max_tokens):
//! `completion.rs` does, because it sees the decoded text.

use crate::model::{Model, ModelError};
use candle_core::Tensor;
use candle_transformers::generation::{LogitsProcessor, Sampling};

/// What a generation needs from a model: logits for tokens at positions, and how many
/// positions there are. `Model` is the real one; tests script their own.
pub trait LogitsSource {
    fn forward(&mut self, tokens: &[u32], pos: usize) -> Result<Tensor, ModelError>;
    fn context(&self) -> usize;
}

impl LogitsSource for Model {
    fn forward(&mut self, tokens: &[u32], pos: usize) -> Result<Tensor, ModelError> {
        Model::forward(self, tokens, pos)
    }
    fn context(&self) -> usize {
        Model::context(self)
    }
}

/// Prompt tokens run per forward pass: bounds the attention matrix (heads × chunk × context
/// floats) so a long prompt does not need hundreds of MB at once, and lets the loop yield.
/// 128 keeps prompt-reading progress and an abort within a second or two of a slow device.
pub const PREFILL_CHUNK: usize = 128;

/// How many recent tokens the repeat penalty looks at (llama.cpp's default window).
pub const REPEAT_LAST_N: usize = 64;

/// The sampling knobs of an OpenAI-style request, already defaulted.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingParams {
    /// 0 means greedy.
    pub temperature: f64,
    pub top_p: Option<f64>,
    pub top_k: Option<usize>,
    /// Tokens less likely than `min_p` × the likeliest one are never drawn (llama.cpp's
    /// `min_p`); `None` or 0 means off.
    pub min_p: Option<f64>,
    /// 1.0 means off.
    pub repeat_penalty: f32,
    pub seed: u64,
}

// llama.cpp's server defaults (temperature 0.8, top-k 40, top-p 0.95, min-p 0.05): sampling from
// the whole vocabulary at 0.8 let a 135M model wander off into nonsense on a newcomer's first
// question ("La Famille-SulCOCA…" for the capital of France). Without min-p, SmolLM2-135M was
// right on 39 of 80 sampled one-fact answers where llama.cpp, with it, was right on 49
// (8 questions × 10 seeds, the same prompt): the unlikely tail it cuts is where a small model's
// wrong-language openings live.
impl Default for SamplingParams {
    fn default() -> Self {
        Self {
            temperature: 0.8,
            top_p: Some(0.95),
            top_k: Some(40),
            min_p: Some(0.05),
            repeat_penalty: 1.0,
            seed: 0,
        }
    }
}

impl SamplingParams {
    /// candle's sampling mode for these knobs.
    pub fn sampling(&self) -> Sampling {
        if self.temperature <= 0.0 || self.top_k == Some(1) {
            return Sampling::ArgMax;
        }
        let temperature = self.temperature;
        let top_p = self.top_p.filter(|p| *p > 0.0 && *p < 1.0);
        let top_k = self.top_k.filter(|k| *k > 0);
        match (top_k, top_p) {
            (None, None) => Sampling::All { temperature },
            (Some(k), None) => Sampling::TopK { k, temperature },
            (None, Some(p)) => Sampling::TopP { p, temperature },
            (Some(k), Some(p)) => Sampling::TopKThenTopP { k, p, temperature },
        }
    }
}

/// Masks the logits of tokens less likely than `min_p` × the likeliest one, as llama.cpp's
/// min-p sampler does: `p_i ≥ min_p · p_max` is `logit_i − logit_max ≥ ln(min_p)` at
/// temperature 1, which is where llama.cpp's chain applies it (before the temperature).
/// The likeliest token always stays.
pub fn mask_below_min_p(logits: &mut [f32], min_p: f64) {
    if !(min_p > 0.0 && min_p < 1.0) {
        return;
    }
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if !max.is_finite() {
        return;
    }
    let floor = max + (min_p as f32).ln();
    for l in logits.iter_mut() {
        if *l < floor {
            *l = f32::NEG_INFINITY;
        }
    }
}

/// How many leading tokens of `prompt` can be reused from a cache holding `cached`: their
/// common prefix, less the prompt's last token, which always runs again (its logits pick
/// the first new token), as llama.cpp's server does.
pub fn reusable_prefix(cached: &[u32], prompt: &[u32]) -> usize {
    let common = cached
        .iter()
        .zip(prompt)
        .take_while(|(a, b)| a == b)
        .count();
    common.min(prompt.len().saturating_sub(1))
}

/// What one step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// A prompt chunk ran; `done` of `total` prompt tokens are in the cache.
    Prefill { done: usize, total: usize },
    /// A new token was sampled.
    Token(u32),
    /// The context is full: no position is left for another token.
    ContextFull,
}

/// The state of one request's generation over a model.
pub struct Generation {
    tokens: Vec<u32>,
    prompt_len: usize,
    /// Tokens already run through the model (their keys/values are cached).
    fed: usize,
    processor: LogitsProcessor,
    repeat_penalty: f32,
    /// Set only when a token is drawn (greedy decoding has nothing to cut).
    min_p: Option<f64>,
}

impl Generation {
    /// Starts from `prompt` with an empty KV cache (the caller clears the model).
    pub fn new(prompt: Vec<u32>, params: &SamplingParams) -> Self {
        Self::resume(prompt, 0, params)
    }

    /// Starts from `prompt` whose first `cached` tokens are already in the model's KV cache
    /// (the caller cut the cache to exactly them; see [`reusable_prefix`]).
    pub fn resume(prompt: Vec<u32>, cached: usize, params: &SamplingParams) -> Self {
        let prompt_len = prompt.len();
        Self {
            tokens: prompt,
            prompt_len,
            // At least the last prompt token runs, or there would be no logits to sample.
            fed: cached.min(prompt_len.saturating_sub(1)),
            processor: LogitsProcessor::from_sampling(params.seed, params.sampling()),
            repeat_penalty: params.repeat_penalty,
            min_p: match params.sampling() {
                Sampling::ArgMax => None,
                _ => params.min_p.filter(|p| *p > 0.0 && *p < 1.0),
            },
        }
    }

    pub fn prompt_len(&self) -> usize {
        self.prompt_len
    }

    /// The tokens whose keys and values are in the model's cache now, in order: what the
    /// next request can reuse.
    pub fn fed_tokens(&self) -> &[u32] {
        &self.tokens[..self.fed]
    }

    /// Tokens generated so far.
    pub fn generated(&self) -> &[u32] {
        &self.tokens[self.prompt_len..]
    }

    /// Runs one prompt chunk, or one decode step that samples a token.
    pub fn step<M: LogitsSource>(&mut self, model: &mut M) -> Result<Step, ModelError> {
        let remaining_prompt = self.prompt_len.saturating_sub(self.fed);
        if remaining_prompt > PREFILL_CHUNK {
            let chunk = &self.tokens[self.fed..self.fed + PREFILL_CHUNK];
            model.forward(chunk, self.fed)?;
            self.fed += PREFILL_CHUNK;
            return Ok(Step::Prefill {
                done: self.fed,
                total: self.prompt_len,
            });
        }
        // The last prompt chunk, or the last sampled token, produces the next logits.
        if self.tokens.len() >= model.context() {
            return Ok(Step::ContextFull);
        }
        let input = &self.tokens[self.fed..];
        let logits = model.forward(input, self.fed)?;
        self.fed = self.tokens.len();
        let logits = if self.repeat_penalty == 1.0 {
            logits
        } else {
            let start = self.tokens.len().saturating_sub(REPEAT_LAST_N);
            candle_transformers::utils::apply_repeat_penalty(
                &logits,
                self.repeat_penalty,
                &self.tokens[start..],
            )?
        };
        let logits = match self.min_p {
            None => logits,
            Some(p) => {
                let mut values = logits.flatten_all()?.to_vec1::<f32>()?;
                mask_below_min_p(&mut values, p);
                Tensor::new(values, logits.device())?
            }
        };
        let next = self.processor.sample(&logits)?;
        self.tokens.push(next);
        Ok(Step::Token(next))
    }
}
