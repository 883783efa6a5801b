//! Decoding an Anthropic Messages stream into the neutral `provider::StreamEvent`s.
//!
//! The wire (https://platform.claude.com/docs/en/build-with-claude/streaming) is SSE whose
//! events each carry a JSON `type`: `message_start` (input token count), then per content block
//! `content_block_start`, `content_block_delta`s and `content_block_stop`, then `message_delta`
//! (stop reason, cumulative usage) and `message_stop`; `ping`s may come anywhere, and an
//! `error` event may replace the rest (e.g. `overloaded_error`, a 529 when not streaming).
//!
//! Tool input arrives as `input_json_delta` string fragments of the `tool_use` block at an
//! `index`; they become `ToolCall` deltas keyed by that index, so `agent::assemble` joins them
//! exactly as it joins OpenAI's `tool_calls[]` fragments. Fragments of other blocks (a server
//! tool such as web search) are not the client's to run and are dropped.
//!
//! Thinking arrives as `thinking_delta` text of a `thinking` block, sealed by the block's
//! `signature` (streamed as `signature_delta`, or whole in `content_block_start`); the seal is
//! emitted as `ReasoningSignature` when the block stops, so a signature split over several
//! deltas still comes out whole, after its text. A `redacted_thinking` block's opaque `data`
//! is `RedactedReasoning`. Both go back to the API when a tool loop continues
//! (`crate::thinking`, `request`).
//!
//! Every documented event type is read: `message_start` (input tokens), `content_block_start`
//! (`text`, `thinking`, `redacted_thinking`, `tool_use`), `content_block_delta` (`text_delta`,
//! `thinking_delta`, `signature_delta`, `input_json_delta`), `content_block_stop` (ends a
//! thinking block's signature), `message_delta` (stop reason, usage), `message_stop`, and
//! `error`. Deliberately ignored: `ping` (keep-alive only; the runner's silence timer already
//! counts its bytes), `citations_delta` (the cited text also arrives as `text_delta`; Skiff
//! shows no citation marks), and server-tool blocks (`server_tool_use`, `*_tool_result`),
//! which the API runs itself and which the client never answers.
//!
//! Only `message_stop` marks an answer complete: a body that ends before it is `StreamCut`,
//! never a silently shortened answer. Unknown event and delta types are ignored, as the API's
//! versioning policy asks of clients.

use serde_json::Value;

use crate::records::message::Usage;
use crate::seam::{shorten, ProviderError, StreamEvent, ToolCallDelta};
use crate::sse::{SseDecoder, SseEvent};

/// Incremental decoder for one streamed answer.
///
/// Error contract (the same as `openai::ChatStream`): events decoded before a bad chunk are
/// never lost. If a `feed` call meets a malformed event or an `error` event after it already
/// decoded events, it returns those events as `Ok` and keeps the error; the next `feed` or
/// `finish` returns it. If the bad event comes first, `feed` returns the error at once. Once
/// failed, every later call returns the same error, and nothing after the bad event is decoded.
#[derive(Debug)]
pub struct AnthropicStream {
    sse: SseDecoder,
    /// Block indices opened as client `tool_use` blocks.
    tool_blocks: Vec<u32>,
    /// The open `thinking` block: its index and the signature received so far.
    thinking_block: Option<(u32, String)>,
    /// From `message_start`; `message_delta` may restate it.
    input_tokens: Option<u32>,
    saw_stop: bool,
    error: Option<ProviderError>,
}

impl Default for AnthropicStream {
    fn default() -> Self {
        Self::new()
    }
}

impl AnthropicStream {
    pub fn new() -> Self {
        AnthropicStream {
            sse: SseDecoder::new(),
            tool_blocks: Vec::new(),
            thinking_block: None,
            input_tokens: None,
            saw_stop: false,
            error: None,
        }
    }

    /// Decode the next chunk of the response body. See the type's error contract.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<StreamEvent>, ProviderError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let sse_events = self.sse.feed(bytes);
        let mut out = Vec::new();
        for ev in sse_events {
            if self.saw_stop {
                break; // nothing after `message_stop` belongs to this answer
            }
            if let Err(e) = self.decode_event(&ev, &mut out) {
                self.error = Some(e.clone());
                return if out.is_empty() { Err(e) } else { Ok(out) };
            }
        }
        Ok(out)
    }

    /// End of the body: `Err(StreamCut)` unless `message_stop` arrived; a kept error first.
    pub fn finish(&mut self) -> Result<Vec<StreamEvent>, ProviderError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        // Per the SSE rules, an event without its closing blank line is dropped.
        self.sse.finish();
        if self.saw_stop {
            Ok(Vec::new())
        } else {
            Err(ProviderError::StreamCut)
        }
    }

    /// Whether `message_stop` has arrived: the answer is whole.
    pub fn is_complete(&self) -> bool {
        self.saw_stop
    }

    fn decode_event(
        &mut self,
        ev: &SseEvent,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), ProviderError> {
        let data = ev.data.trim();
        if data.is_empty() {
            if ev.event == "error" {
                return Err(ProviderError::InStream(String::new()));
            }
            return Ok(());
        }
        let v: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            // An error event is an error even when its body is not JSON (a proxy's text).
            Err(_) if ev.event == "error" => {
                return Err(ProviderError::InStream(shorten(data)));
            }
            Err(e) => {
                return Err(ProviderError::Malformed(format!(
                    "a stream event was not valid JSON ({e})"
                )))
            }
        };
        // The JSON `type` is authoritative; the SSE event name repeats it.
        let kind = v
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(ev.event.as_str());
        match kind {
            "message_start" => {
                if let Some(n) = v.pointer("/message/usage").and_then(input_tokens_of) {
                    self.input_tokens = Some(n);
                }
            }
            "content_block_start" => self.block_start(&v, out),
            "content_block_delta" => self.block_delta(&v, out),
            "content_block_stop" => self.block_stop(&v, out),
            "message_delta" => self.message_delta(&v, out),
            "message_stop" => {
                self.saw_stop = true;
                out.push(StreamEvent::Done);
            }
            "error" => return Err(ProviderError::InStream(error_detail(&v))),
            // `ping`, and types added after this was written.
            _ => {}
        }
        Ok(())
    }

    fn block_start(&mut self, v: &Value, out: &mut Vec<StreamEvent>) {
        let Some(block) = v.get("content_block") else {
            return;
        };
        match block.get("type").and_then(Value::as_str) {
            Some("tool_use") => {
                let Some(index) = index_of(v) else {
                    return; // without an index no fragment could be joined to it
                };
                if !self.tool_blocks.contains(&index) {
                    self.tool_blocks.push(index);
                }
                // The API opens with `input: {}` and streams the input; a server that sends
                // the whole input here instead must not lose it.
                let arguments = match block.get("input") {
                    Some(Value::Object(m)) if !m.is_empty() => {
                        serde_json::to_string(m).unwrap_or_default()
                    }
                    _ => String::new(),
                };
                out.push(StreamEvent::ToolCall(ToolCallDelta {
                    index,
                    id: text_field(block, "id"),
                    name: text_field(block, "name"),
                    arguments,
                }));
            }
            Some("text") => push_text(out, block, "text", StreamEvent::Content),
            Some("thinking") => {
                push_text(out, block, "thinking", StreamEvent::Reasoning);
                if let Some(index) = index_of(v) {
                    let signature = text_field(block, "signature").unwrap_or_default();
                    self.thinking_block = Some((index, signature));
                }
            }
            Some("redacted_thinking") => {
                if let Some(data) = text_field(block, "data") {
                    out.push(StreamEvent::RedactedReasoning(data));
                }
            }
            _ => {}
        }
    }

    /// The end of a thinking block seals its text with the signature it received; a block
    /// that got none seals nothing (`thinking::ThoughtLog` then drops its text from replay).
    fn block_stop(&mut self, v: &Value, out: &mut Vec<StreamEvent>) {
        let open = self.thinking_block.as_ref().map(|(i, _)| *i);
        if open.is_some() && index_of(v) == open {
            if let Some((_, signature)) = self.thinking_block.take() {
                if !signature.is_empty() {
                    out.push(StreamEvent::ReasoningSignature(signature));
                }
            }
        }
    }

    fn block_delta(&mut self, v: &Value, out: &mut Vec<StreamEvent>) {
        let Some(delta) = v.get("delta") else {
            return;
        };
        match delta.get("type").and_then(Value::as_str) {
            Some("text_delta") => push_text(out, delta, "text", StreamEvent::Content),
            Some("thinking_delta") => push_text(out, delta, "thinking", StreamEvent::Reasoning),
            Some("signature_delta") => {
                let piece = delta.get("signature").and_then(Value::as_str);
                if let (Some((open, signature)), Some(piece)) = (&mut self.thinking_block, piece) {
                    if index_of(v) == Some(*open) {
                        signature.push_str(piece);
                    }
                }
            }
            Some("input_json_delta") => {
                let Some(index) = index_of(v).filter(|i| self.tool_blocks.contains(i)) else {
                    return; // a server tool's input, or a block never opened as `tool_use`
                };
                let fragment = delta
                    .get("partial_json")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if !fragment.is_empty() {
                    out.push(StreamEvent::ToolCall(ToolCallDelta {
                        index,
                        id: None,
                        name: None,
                        arguments: fragment.to_string(),
                    }));
                }
            }
            // `citations_delta` (see the module doc), later additions.
            _ => {}
        }
    }

    fn message_delta(&mut self, v: &Value, out: &mut Vec<StreamEvent>) {
        if let Some(reason) = v
            .pointer("/delta/stop_reason")
            .and_then(Value::as_str)
            .filter(|r| !r.is_empty())
        {
            out.push(StreamEvent::Finish(reason.to_string()));
        }
        let Some(usage) = v.get("usage") else {
            return;
        };
        // Counts here are cumulative; some answers (server tools) restate the input count.
        if let Some(n) = input_tokens_of(usage) {
            self.input_tokens = Some(n);
        }
        let output = count(usage, "output_tokens");
        if output.is_none() && self.input_tokens.is_none() {
            return;
        }
        let prompt_tokens = self.input_tokens.unwrap_or(0);
        let completion_tokens = output.unwrap_or(0);
        out.push(StreamEvent::Usage(Usage {
            prompt_tokens,
            completion_tokens,
            total_tokens: prompt_tokens.saturating_add(completion_tokens),
        }));
    }
}

fn push_text(out: &mut Vec<StreamEvent>, obj: &Value, key: &str, make: fn(String) -> StreamEvent) {
    if let Some(t) = obj
        .get(key)
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
    {
        out.push(make(t.to_string()));
    }
}

fn index_of(v: &Value) -> Option<u32> {
    v.get("index")
        .and_then(Value::as_u64)
        .and_then(|i| u32::try_from(i).ok())
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

/// Everything the prompt cost: Anthropic's `input_tokens` leaves out tokens written to or read
/// from the prompt cache, which OpenAI's `prompt_tokens` (what `Usage` means) includes.
fn input_tokens_of(usage: &Value) -> Option<u32> {
    let parts = [
        count(usage, "input_tokens"),
        count(usage, "cache_creation_input_tokens"),
        count(usage, "cache_read_input_tokens"),
    ];
    if parts.iter().all(Option::is_none) {
        return None;
    }
    Some(
        parts
            .iter()
            .flatten()
            .fold(0u32, |sum, n| sum.saturating_add(*n)),
    )
}

/// `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` → its message,
/// or its type when the message is missing.
fn error_detail(v: &Value) -> String {
    let inner = v.get("error").unwrap_or(v);
    let text = match inner {
        Value::String(s) => Some(s.as_str()),
        _ => inner
            .get("message")
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .or_else(|| inner.get("type").and_then(Value::as_str)),
    };
    match text {
        Some(t) => shorten(t),
        None => shorten(&inner.to_string()),
    }
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
