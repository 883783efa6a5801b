//! Decoding a Gemini `streamGenerateContent?alt=sse` body into the neutral
//! `provider::StreamEvent`s.
//!
//! Every SSE event is `data: <GenerateContentResponse>`: a slice of the answer whose first
//! candidate holds new `parts` — `text` (answer text, or a thought summary when
//! `thought: true`), `functionCall` (a whole call: name, `args` object, sometimes an `id`) —
//! plus `usageMetadata` (running totals) and, on the last slice, `finishReason`. A prompt
//! Gemini refuses comes back as `promptFeedback.blockReason` with no candidates; an error
//! after the stream began is a `data: {"error": {...}}` event.
//!
//! Calls arrive whole, so each becomes one `ToolCall` delta with a fresh index in stream
//! order; `agent::assemble` then gives calls without an id `call_<index>`, which the request
//! builder knows not to send back as an id. An `inlineData` part (an image the model made)
//! becomes one `Image` event, or a note when it is not an image the page shows
//! (`image_out`); one marked `thought` is a draft the model made while thinking and is skipped,
//! as the final image follows. Other parts (`executableCode`, bare `thoughtSignature`s) are not
//! shown yet and are skipped.
//!
//! Gemini has no end marker: only a `finishReason` makes an answer whole, and only `STOP` and
//! `MAX_TOKENS` make it one to keep as finished (`finish::Outcome`); any other reason is a
//! `Blocked` or `InStream` error carrying the reason's sentence, with the text already
//! received kept. A body that ends without a finish reason is `StreamCut`.

use serde_json::Value;

use super::finish::{BlockReason, FinishReason, Outcome};
use crate::records::message::Usage;
use crate::seam::image_out;
use crate::seam::{detail_from_json, ProviderError, StreamEvent, ToolCallDelta};
use crate::sse::SseDecoder;

/// Incremental decoder for one streamed answer.
///
/// Error contract (the same as `openai::ChatStream`): events decoded before a bad chunk are
/// never lost. If a `feed` call meets a malformed event, an error event or a refusal after it
/// already decoded events, it returns those events as `Ok` and keeps the error; the next
/// `feed` or `finish` returns it. If the bad event comes first, `feed` returns the error at
/// once. Once failed, every later call returns the same error.
#[derive(Debug)]
pub struct GeminiStream {
    sse: SseDecoder,
    /// Index of the next function call.
    next_call: u32,
    /// The latest `usageMetadata`, sent once with the finish.
    usage: Option<Usage>,
    finished: bool,
    error: Option<ProviderError>,
}

impl Default for GeminiStream {
    fn default() -> Self {
        Self::new()
    }
}

impl GeminiStream {
    pub fn new() -> Self {
        GeminiStream {
            sse: SseDecoder::new(),
            next_call: 0,
            usage: None,
            finished: false,
            error: None,
        }
    }

    /// Decode the next chunk of the response body. See the type's error contract.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<StreamEvent>, ProviderError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let mut out = Vec::new();
        for ev in self.sse.feed(bytes) {
            if self.finished {
                break; // nothing after the finish reason belongs to this answer
            }
            if let Err(e) = self.decode(ev.data.trim(), &mut out) {
                self.error = Some(e.clone());
                return if out.is_empty() { Err(e) } else { Ok(out) };
            }
        }
        Ok(out)
    }

    /// End of the body: `Err(StreamCut)` unless a finish reason arrived; a kept error first.
    pub fn finish(&mut self) -> Result<Vec<StreamEvent>, ProviderError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        // Per the SSE rules, an event without its closing blank line is dropped.
        self.sse.finish();
        if self.finished {
            Ok(Vec::new())
        } else {
            Err(ProviderError::StreamCut)
        }
    }

    /// Whether a finish reason that keeps the answer has arrived.
    pub fn is_complete(&self) -> bool {
        self.finished
    }

    fn decode(&mut self, data: &str, out: &mut Vec<StreamEvent>) -> Result<(), ProviderError> {
        if data.is_empty() {
            return Ok(());
        }
        let v: Value = serde_json::from_str(data).map_err(|e| {
            ProviderError::Malformed(format!("a stream event was not valid JSON ({e})"))
        })?;
        if v.get("error").is_some_and(|e| !e.is_null()) {
            return Err(ProviderError::InStream(detail_from_json(&v)));
        }
        if let Some(u) = v.get("usageMetadata").and_then(usage_of) {
            self.usage = Some(u);
        }
        if let Some(reason) = v
            .pointer("/promptFeedback/blockReason")
            .and_then(Value::as_str)
            .filter(|r| !r.is_empty())
        {
            return Err(ProviderError::Blocked(
                BlockReason::parse(reason).sentence(),
            ));
        }
        // Skiff asks for one candidate; a server that sends more is read for the first.
        let Some(candidate) = v
            .get("candidates")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return Ok(());
        };
        let parts = candidate
            .pointer("/content/parts")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for part in parts {
            self.part(part, out);
        }
        let Some(reason) = candidate
            .get("finishReason")
            .and_then(Value::as_str)
            .filter(|r| !r.is_empty())
        else {
            return Ok(());
        };
        let reason = FinishReason::parse(reason);
        match reason.outcome() {
            Outcome::Whole => {
                out.push(StreamEvent::Finish(reason.as_str().to_string()));
                if let Some(u) = self.usage {
                    out.push(StreamEvent::Usage(u));
                }
                out.push(StreamEvent::Done);
                self.finished = true;
                Ok(())
            }
            Outcome::Blocked(sentence) => Err(ProviderError::Blocked(sentence)),
            Outcome::Failed(sentence) => Err(ProviderError::InStream(sentence)),
        }
    }

    fn part(&mut self, part: &Value, out: &mut Vec<StreamEvent>) {
        if let Some(call) = part.get("functionCall") {
            let arguments = match call.get("args") {
                Some(Value::Object(m)) => serde_json::to_string(m).unwrap_or_default(),
                // A call without arguments: the tool gets an empty object.
                _ => "{}".to_string(),
            };
            out.push(StreamEvent::ToolCall(ToolCallDelta {
                index: self.next_call,
                id: text_field(call, "id"),
                name: text_field(call, "name"),
                arguments,
            }));
            self.next_call += 1;
            return;
        }
        let thought = part.get("thought").and_then(Value::as_bool) == Some(true);
        if let Some(blob) = part.get("inlineData") {
            if !thought {
                let field = |k| blob.get(k).and_then(Value::as_str).unwrap_or("");
                out.push(image_out::from_base64(field("mimeType"), field("data")));
            }
            return;
        }
        let Some(text) = part
            .get("text")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        else {
            return;
        };
        if thought {
            out.push(StreamEvent::Reasoning(text.to_string()));
        } else {
            out.push(StreamEvent::Content(text.to_string()));
        }
    }
}

fn text_field(obj: &Value, key: &str) -> Option<String> {
    obj.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn count(obj: &Value, key: &str) -> Option<u32> {
    obj.get(key)
        .and_then(Value::as_u64)
        .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
}

/// `usageMetadata` as `Usage`: the prompt includes what tool results cost
/// (`toolUsePromptTokenCount`), the completion includes the thinking (`thoughtsTokenCount`),
/// as OpenAI counts reasoning tokens among completion tokens.
fn usage_of(meta: &Value) -> Option<Usage> {
    let prompt = [
        count(meta, "promptTokenCount"),
        count(meta, "toolUsePromptTokenCount"),
    ];
    let completion = [
        count(meta, "candidatesTokenCount"),
        count(meta, "thoughtsTokenCount"),
    ];
    let total = count(meta, "totalTokenCount");
    if prompt.iter().chain(&completion).all(Option::is_none) && total.is_none() {
        return None;
    }
    let sum = |xs: &[Option<u32>]| xs.iter().flatten().fold(0u32, |s, n| s.saturating_add(*n));
    let prompt_tokens = sum(&prompt);
    let completion_tokens = sum(&completion);
    Some(Usage {
        prompt_tokens,
        completion_tokens,
        total_tokens: total.unwrap_or_else(|| prompt_tokens.saturating_add(completion_tokens)),
    })
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
