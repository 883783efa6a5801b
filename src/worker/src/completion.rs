//! One chat completion from prompt tokens to the last SSE event: runs the generation step by
//! step and decides when it ends (end-of-generation token, stop string, max_tokens, full
//! context). Time is an argument (`now_ms`), so tests need no clock.

use crate::generate::{Generation, LogitsSource, SamplingParams, Step};
use crate::model::ModelError;
use crate::sse::{FinishReason, SseWriter, Timings};
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
    text: TextOut,
    sse: SseWriter,
    max_tokens: usize,
    started_ms: f64,
    first_token_ms: Option<f64>,
    /// Tokens generated that count as output (the end-of-generation token does not).
    produced: usize,
    ignore_eos: bool,
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
        Self {
            generation: Generation::new(prompt, params),
            text: TextOut::new(stop),
            sse,
            max_tokens: max_tokens.unwrap_or(usize::MAX),
            started_ms: now_ms,
            first_token_ms: None,
            produced: 0,
            ignore_eos,
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

    /// Runs one prompt chunk or one token.
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
        let step = self.generation.step(model)?;
        let now = now_ms();
        match step {
            Step::Prefill { .. } => Ok(Progress::default()),
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
            prompt_n: self.generation.prompt_len(),
            prompt_ms: first - self.started_ms,
            predicted_n: self.produced,
            predicted_ms: now - first,
        };
        let mut sse = self.sse.delta(&text).unwrap_or_default();
        sse.push_str(&self.sse.finish(reason, &timings));
        Progress { sse, done: true }
    }
}
