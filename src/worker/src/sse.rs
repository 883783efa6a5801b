//! Server-sent events exactly as an OpenAI-compatible server streams a chat completion,
//! with llama.cpp server's `timings` on the last chunk, so the page's OpenAI stream decoder
//! reads this worker like any server. Before the first token it streams what it is doing,
//! so the chat can show it: `prompt_progress` chunks as llama.cpp's server sends them with
//! `return_progress`, and `load_progress` chunks (ours; llama.cpp answers 503 while loading)
//! while the model file is read into memory.

use serde_json::json;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinishReason {
    Stop,
    Length,
}

impl FinishReason {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Stop => "stop",
            Self::Length => "length",
        }
    }
}

/// How long the prompt and the answer took, as llama.cpp's server reports them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Timings {
    /// Prompt tokens read this time (the rest came from the cache: `cache_n`).
    pub prompt_n: usize,
    pub cache_n: usize,
    pub prompt_ms: f64,
    pub predicted_n: usize,
    pub predicted_ms: f64,
}

fn per_second(n: usize, ms: f64) -> f64 {
    if ms > 0.0 {
        n as f64 * 1000.0 / ms
    } else {
        0.0
    }
}

/// Where reading the prompt stands (llama.cpp's `prompt_progress`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PromptProgress {
    pub total: usize,
    pub cache: usize,
    /// Tokens in the cache so far, the reused ones included.
    pub processed: usize,
    pub time_ms: f64,
}

/// Writes the `data:` events of one completion.
#[derive(Debug, Clone)]
pub struct SseWriter {
    id: String,
    model: String,
}

impl SseWriter {
    pub fn new(request_id: u64, model: &str) -> Self {
        Self {
            id: format!("chatcmpl-skiff-{request_id}"),
            model: model.to_string(),
        }
    }

    fn event(&self, delta: serde_json::Value, finish: Option<FinishReason>) -> serde_json::Value {
        json!({
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": self.model,
            "choices": [{
                "index": 0,
                "delta": delta,
                "finish_reason": finish.map(FinishReason::as_str),
            }],
        })
    }

    /// One content chunk; empty text gives no event (nothing to show yet).
    pub fn delta(&self, text: &str) -> Option<String> {
        if text.is_empty() {
            return None;
        }
        let ev = self.event(json!({ "content": text }), None);
        Some(format!("data: {ev}\n\n"))
    }

    /// A chunk with no text that says how far reading the prompt is: `processed` of `total`
    /// prompt tokens are in the cache, `cache` of them were reused, after `time_ms`.
    pub fn prompt_progress(&self, p: &PromptProgress) -> String {
        let mut ev = self.event(json!({}), None);
        ev["prompt_progress"] = json!({
            "total": p.total,
            "cache": p.cache,
            "processed": p.processed,
            "time_ms": p.time_ms,
        });
        format!("data: {ev}\n\n")
    }

    /// A chunk with no text that says how much of the model file is read into memory.
    pub fn load_progress(&self, loaded: u64, total: u64, time_ms: f64) -> String {
        let mut ev = self.event(json!({}), None);
        ev["load_progress"] = json!({ "loaded": loaded, "total": total, "time_ms": time_ms });
        format!("data: {ev}\n\n")
    }

    /// The last chunk (with the finish reason, usage and timings), then `[DONE]`.
    pub fn finish(&self, reason: FinishReason, t: &Timings) -> String {
        let mut ev = self.event(json!({}), Some(reason));
        ev["usage"] = json!({
            "prompt_tokens": t.cache_n + t.prompt_n,
            "completion_tokens": t.predicted_n,
            "total_tokens": t.cache_n + t.prompt_n + t.predicted_n,
        });
        ev["timings"] = json!({
            "cache_n": t.cache_n,
            "prompt_n": t.prompt_n,
            "prompt_ms": t.prompt_ms,
            "prompt_per_second": per_second(t.prompt_n, t.prompt_ms),
            "predicted_n": t.predicted_n,
            "predicted_ms": t.predicted_ms,
            "predicted_per_second": per_second(t.predicted_n, t.predicted_ms),
        });
        format!("data: {ev}\n\ndata: [DONE]\n\n")
    }
}
