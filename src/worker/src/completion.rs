//! One chat completion from prompt tokens to the last SSE event: runs the generation step by
//! step and decides when it ends (end-of-generation token, stop string, max_tokens, full
//! context). Time is an argument (`now_ms`), so tests need no clock.

use crate::generate::{Generation, LogitsSource, SamplingParams, Step};
use crate::model::ModelError;
use crate::sse::{FinishReason, PromptProgress, SseWriter, Timings};
use crate::text_out::TextOut;

/// What the completion needs from a tokenizer.
pub trait Vocab {
    fn token_bytes(&self, id: u32) -> Vec<u8>;
    fn is_end_of_generation(&self, id: u32) -> bool;
}

impl Vocab for skiff_core::local_model::Tokenizer {
    fn token_bytes(&self, id: u32) -> Vec<u8> {
        skiff_core::local_model::Tokenizer::token_bytes(self, id)
    }
    fn is_end_of_generation(&self, id: u32) -> bool {
        skiff_core::local_model::Tokenizer::is_end_of_generation(self, id)
    }
}

/// What one step produced: SSE text to send (possibly empty) and whether this was the end.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Progress {
    pub sse: String,
    pub done: bool,
}

pub struct Completion {
    generation: Generation,
    /// Prompt tokens reused from the previous request's cache.
    cached: usize,
    text: TextOut,
    sse: SseWriter,
    max_tokens: usize,
    started_ms: f64,
    first_token_ms: Option<f64>,
    /// Tokens generated that count as output (the end-of-generation token does not).
    produced: usize,
    ignore_eos: bool,
    /// Whether the first `prompt_progress` chunk went out (before any work).
    announced: bool,
    done: bool,
}

impl Completion {
    /// `max_tokens` of `None` means "until the context is full".
    pub fn new(
        prompt: Vec<u32>,
        params: &SamplingParams,
        max_tokens: Option<usize>,
        stop: Vec<String>,
        ignore_eos: bool,
        sse: SseWriter,
        now_ms: f64,
    ) -> Self {
        Self::resume(prompt, 0, params, max_tokens, stop, ignore_eos, sse, now_ms)
    }

    /// Like `new`, with the first `cached` prompt tokens already in the model's KV cache.
    #[allow(clippy::too_many_arguments)]
    pub fn resume(
        prompt: Vec<u32>,
        cached: usize,
        params: &SamplingParams,
        max_tokens: Option<usize>,
        stop: Vec<String>,
        ignore_eos: bool,
        sse: SseWriter,
        now_ms: f64,
    ) -> Self {
        let generation = Generation::resume(prompt, cached, params);
        Self {
            cached: generation.fed_tokens().len(),
            generation,
            text: TextOut::new(stop),
            sse,
            max_tokens: max_tokens.unwrap_or(usize::MAX),
            started_ms: now_ms,
            first_token_ms: None,
            produced: 0,
            ignore_eos,
            announced: false,
            done: false,
        }
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Token ids generated so far (tests compare them with llama.cpp's).
    pub fn generated(&self) -> &[u32] {
        self.generation.generated()
    }

    /// The tokens in the model's KV cache now (prompt and answer so far), for the next
    /// request to reuse.
    pub fn fed_tokens(&self) -> &[u32] {
        self.generation.fed_tokens()
    }

    /// Prompt tokens that came from the cache.
    pub fn cached(&self) -> usize {
        self.cached
    }

    fn prompt_progress(&self, processed: usize, now: f64) -> String {
        self.sse.prompt_progress(&PromptProgress {
            total: self.generation.prompt_len(),
            cache: self.cached,
            processed,
            time_ms: now - self.started_ms,
        })
    }

    /// Runs one prompt chunk or one token. The first call only announces the prompt (how
    /// much of it is cached), so the page can say so before the first chunk's seconds.
    pub fn step<M: LogitsSource, V: Vocab>(
        &mut self,
        model: &mut M,
        vocab: &V,
        mut now_ms: impl FnMut() -> f64,
    ) -> Result<Progress, ModelError> {
        if self.done {
            return Ok(Progress {
                sse: String::new(),
                done: true,
            });
        }
        if !self.announced {
            self.announced = true;
            return Ok(Progress {
                sse: self.prompt_progress(self.cached, now_ms()),
                done: false,
            });
        }
        let step = self.generation.step(model)?;
        let now = now_ms();
        match step {
            Step::Prefill { done, .. } => Ok(Progress {
                sse: self.prompt_progress(done, now),
                done: false,
            }),
            Step::ContextFull => Ok(self.finish(FinishReason::Length, now, String::new())),
            Step::Token(id) => {
                if self.first_token_ms.is_none() {
                    self.first_token_ms = Some(now);
                }
                if vocab.is_end_of_generation(id) && !self.ignore_eos {
                    return Ok(self.finish(FinishReason::Stop, now, String::new()));
                }
                self.produced += 1;
                let emit = self.text.push(&vocab.token_bytes(id));
                if emit.stopped {
                    return Ok(self.finish(FinishReason::Stop, now, emit.text));
                }
                if self.produced >= self.max_tokens {
                    return Ok(self.finish(FinishReason::Length, now, emit.text));
                }
                Ok(Progress {
                    sse: self.sse.delta(&emit.text).unwrap_or_default(),
                    done: false,
                })
            }
        }
    }

    fn finish(&mut self, reason: FinishReason, now: f64, mut text: String) -> Progress {
        self.done = true;
        // Whatever was held back (a partial stop string that never completed, a dangling
        // byte); empty after a stop string, which clears it.
        text.push_str(&self.text.finish());
        let first = self.first_token_ms.unwrap_or(now);
        let timings = Timings {
            cache_n: self.cached,
            prompt_n: self.generation.prompt_len() - self.cached,
            prompt_ms: first - self.started_ms,
            predicted_n: self.produced,
            predicted_ms: now - first,
        };
        let mut sse = self.sse.delta(&text).unwrap_or_default();
        sse.push_str(&self.sse.finish(reason, &timings));
        Progress { sse, done: true }
    }
}
