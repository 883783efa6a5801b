//! Decoding a streamed chat completion into the provider-neutral `provider::StreamEvent`s.
//!
//! The wire is OpenAI's `chat.completion.chunk` over SSE, as served (with variations) by
//! OpenAI, OpenRouter, llama.cpp, Ollama, LM Studio, vLLM, Groq and Moonshot:
//! - thinking arrives as `delta.reasoning_content` (llama.cpp, DeepSeek, Moonshot, xAI) or
//!   `delta.reasoning` (OpenRouter);
//! - usage arrives in a last chunk with `choices: []` (OpenAI `include_usage`, llama.cpp),
//!   on the finish chunk (Groq), inside the choice (Moonshot), or on every chunk as running
//!   totals (xAI) — so `Usage` may be emitted more than once and the last one wins;
//! - errors after the 200 status arrive as a chunk with an `error` field (OpenRouter, OpenAI,
//!   llama.cpp, vLLM's `{"object":"error"}`), or an `event: error` SSE event;
//! - native tool calls arrive as `delta.tool_calls[]` fragments keyed by `index`, which
//!   Gemini's OpenAI endpoint leaves out, and whose `arguments` a few servers send as a JSON
//!   object rather than a string (see `ToolIndexer`);
//! - images the model made arrive whole as `delta.images[]` (or `message.images[]` in a whole
//!   answer) entries `{"type":"image_url","image_url":{"url":"data:image/png;base64,…"}}`
//!   (OpenRouter); each becomes an `Image` event or a note (`image_out`).
//!
//! Every chunk is parsed exactly once, so the cost is linear in the stream. This module must
//! never mistake a cut stream for a finished one: only `[DONE]` or a `finish_reason` marks an
//! answer complete, and `finish` reports `StreamCut` otherwise.

use serde::Deserialize;
use serde_json::Value;

use crate::records::message::Usage;
use crate::seam::image_out;
use crate::seam::{detail_from_json, ProviderError, StreamEvent, ToolCallDelta};
use crate::sse::{SseDecoder, SseEvent};

#[derive(Debug)]
enum Mode {
    /// Only whitespace seen so far (held in `lead`).
    Undecided,
    Sse,
    /// The body starts with `{`: the server ignored `stream: true` and sent one JSON answer.
    Json,
}

/// Incremental decoder for one streamed answer.
///
/// Error contract: events decoded before a bad chunk are never lost. If a `feed` call meets a
/// malformed chunk or an in-stream error after it already decoded events, it returns those
/// events as `Ok` and keeps the error; the next `feed` or `finish` returns it. If the bad chunk
/// comes first, `feed` returns the error at once. Once failed, every later call returns the same
/// error, and nothing after the bad chunk is decoded.
#[derive(Debug)]
pub struct ChatStream {
    mode: Mode,
    lead: Vec<u8>,
    sse: SseDecoder,
    json_body: Vec<u8>,
    saw_done: bool,
    saw_finish: bool,
    /// A chunk was read in the format: a bad one after it is a broken answer, not a wrong
    /// address or API.
    read_a_chunk: bool,
    error: Option<ProviderError>,
    tools: ToolIndexer,
}

impl Default for ChatStream {
    fn default() -> Self {
        Self::new()
    }
}

impl ChatStream {
    pub fn new() -> Self {
        ChatStream {
            mode: Mode::Undecided,
            lead: Vec::new(),
            sse: SseDecoder::new(),
            json_body: Vec::new(),
            saw_done: false,
            saw_finish: false,
            read_a_chunk: false,
            error: None,
            tools: ToolIndexer::default(),
        }
    }

    /// Decode the next chunk of the response body. See the type's error contract.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<StreamEvent>, ProviderError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if let Mode::Undecided = self.mode {
            match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
                None => {
                    self.lead.extend_from_slice(bytes);
                    return Ok(Vec::new());
                }
                Some(b'{') => self.mode = Mode::Json,
                Some(_) => {
                    self.mode = Mode::Sse;
                    let lead = std::mem::take(&mut self.lead);
                    let early = self.sse.feed(&lead);
                    // Whitespace alone cannot complete an event with data.
                    debug_assert!(early.is_empty());
                }
            }
        }
        match self.mode {
            Mode::Json => {
                self.json_body.extend_from_slice(bytes);
                Ok(Vec::new())
            }
            _ => {
                let sse_events = self.sse.feed(bytes);
                self.decode_events(sse_events)
            }
        }
    }

    /// End of the body. `Err(StreamCut)` unless `[DONE]` or a `finish_reason` arrived; a kept
    /// error is returned first. For a plain JSON body, this is where it is decoded.
    pub fn finish(&mut self) -> Result<Vec<StreamEvent>, ProviderError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        match self.mode {
            Mode::Json => {
                let body = String::from_utf8_lossy(&self.json_body).into_owned();
                match parse_completion_body(&body) {
                    Ok(events) => {
                        self.saw_done = true;
                        Ok(events)
                    }
                    Err(e) => {
                        self.error = Some(e.clone());
                        Err(e)
                    }
                }
            }
            Mode::Undecided | Mode::Sse => {
                // Per the SSE spec, an event without its closing blank line is dropped.
                self.sse.finish();
                if self.is_complete() {
                    Ok(Vec::new())
                } else {
                    Err(ProviderError::StreamCut)
                }
            }
        }
    }

    /// Whether `[DONE]` or a `finish_reason` has arrived: the answer is whole.
    pub fn is_complete(&self) -> bool {
        self.saw_done || self.saw_finish
    }

    fn decode_events(
        &mut self,
        sse_events: Vec<SseEvent>,
    ) -> Result<Vec<StreamEvent>, ProviderError> {
        let mut out = Vec::new();
        for ev in sse_events {
            if self.saw_done {
                break; // nothing after [DONE] belongs to this answer
            }
            if let Err(e) = self.decode_event(&ev, &mut out) {
                self.error = Some(e.clone());
                return if out.is_empty() { Err(e) } else { Ok(out) };
            }
        }
        Ok(out)
    }

    fn decode_event(
        &mut self,
        ev: &SseEvent,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), ProviderError> {
        let data = ev.data.trim();
        if ev.event == "error" {
            let detail = match serde_json::from_str::<Value>(data) {
                Ok(v) => detail_from_json(&v),
                Err(_) => data.to_string(),
            };
            return Err(ProviderError::InStream(detail));
        }
        if data.is_empty() {
            return Ok(());
        }
        if data == "[DONE]" {
            self.saw_done = true;
            out.push(StreamEvent::Done);
            return Ok(());
        }
        let chunk: Chunk = serde_json::from_str(data).map_err(|e| {
            let detail = format!("a stream chunk was not valid JSON ({e})");
            if self.read_a_chunk {
                ProviderError::MalformedMidAnswer(detail)
            } else {
                ProviderError::Malformed(detail)
            }
        })?;
        self.read_a_chunk = true;
        let finished = chunk.events(out, &mut self.tools)?;
        self.saw_finish |= finished;
        Ok(())
    }
}

/// Decode a whole non-streamed answer (`"object":"chat.completion"`), for servers that ignore
/// `stream: true`. Returns the events a stream would have produced, ending with `Done`.
pub fn parse_completion_body(body: &str) -> Result<Vec<StreamEvent>, ProviderError> {
    let chunk: Chunk = serde_json::from_str(body.trim())
        .map_err(|e| ProviderError::Malformed(format!("the answer was not valid JSON ({e})")))?;
    if chunk.choices.as_ref().is_none_or(|c| c.is_empty())
        && chunk.error.is_none()
        && !chunk.is_vllm_error()
    {
        return Err(ProviderError::Malformed(
            "the answer held no choices".to_string(),
        ));
    }
    let mut out = Vec::new();
    chunk.events(&mut out, &mut ToolIndexer::default())?;
    out.push(StreamEvent::Done);
    Ok(out)
}

/// One chunk, or one whole answer (which has `message` where a chunk has `delta`). Text fields
/// are kept as `Value` because servers send `null`, strings, or arrays of parts.
#[derive(Deserialize)]
struct Chunk {
    choices: Option<Vec<Choice>>,
    usage: Option<Value>,
    error: Option<Value>,
    object: Option<Value>,
    message: Option<Value>,
}

#[derive(Deserialize)]
struct Choice {
    index: Option<u64>,
    delta: Option<Delta>,
    message: Option<Delta>,
    finish_reason: Option<Value>,
    usage: Option<Value>,
}

#[derive(Deserialize)]
struct Delta {
    content: Option<Value>,
    reasoning_content: Option<Value>,
    reasoning: Option<Value>,
    /// Kept loose: entries with missing or null fields, or object `arguments`, are real.
    tool_calls: Option<Value>,
    images: Option<Value>,
}

impl Chunk {
    fn is_vllm_error(&self) -> bool {
        self.object.as_ref().and_then(Value::as_str) == Some("error")
    }

    /// Append this chunk's events; returns whether it carried a `finish_reason`.
    fn events(
        self,
        out: &mut Vec<StreamEvent>,
        tools: &mut ToolIndexer,
    ) -> Result<bool, ProviderError> {
        if let Some(err) = self.error.as_ref().filter(|e| !e.is_null()) {
            return Err(ProviderError::InStream(detail_from_json(err)));
        }
        if self.is_vllm_error() {
            let detail = self
                .message
                .as_ref()
                .map(detail_from_json)
                .unwrap_or_default();
            return Err(ProviderError::InStream(detail));
        }
        let mut finished = false;
        let mut usage = self.usage;
        // With `n > 1` there would be several choices; Skiff asks for one and shows index 0.
        if let Some(choice) = self
            .choices
            .and_then(|cs| cs.into_iter().find(|c| c.index.unwrap_or(0) == 0))
        {
            if let Some(d) = choice.delta.or(choice.message) {
                let reasoning = d
                    .reasoning_content
                    .as_ref()
                    .map(text_of)
                    .filter(|s| !s.is_empty())
                    .or_else(|| d.reasoning.as_ref().map(text_of))
                    .unwrap_or_default();
                if !reasoning.is_empty() {
                    out.push(StreamEvent::Reasoning(reasoning));
                }
                let content = d.content.as_ref().map(text_of).unwrap_or_default();
                if !content.is_empty() {
                    out.push(StreamEvent::Content(content));
                }
                if let Some(Value::Array(images)) = &d.images {
                    for entry in images {
                        let url = entry
                            .pointer("/image_url/url")
                            .and_then(Value::as_str)
                            .unwrap_or("");
                        out.push(image_out::from_data_url(url));
                    }
                }
                if let Some(Value::Array(entries)) = &d.tool_calls {
                    for (position, entry) in entries.iter().enumerate() {
                        if let Some(delta) = tools.delta(entry, position) {
                            out.push(StreamEvent::ToolCall(delta));
                        }
                    }
                }
            }
            if let Some(reason) = choice.finish_reason.as_ref().and_then(Value::as_str) {
                if !reason.is_empty() {
                    out.push(StreamEvent::Finish(reason.to_string()));
                    finished = true;
                }
            }
            if usage.as_ref().is_none_or(Value::is_null) {
                usage = choice.usage;
            }
        }
        if let Some(u) = usage.as_ref().and_then(usage_of) {
            out.push(StreamEvent::Usage(u));
        }
        Ok(finished)
    }
}

/// Gives every `tool_calls[]` entry the index the assembler joins it by.
///
/// An explicit `index` is used as sent. Without one (Gemini's OpenAI endpoint, some proxies),
/// the entry's position in its array would merge two calls that arrive one per chunk, each at
/// position 0, into one call with glued arguments; so a new id gets a fresh index, a known id
/// its earlier one, and an entry with no id continues the call last started at its position.
#[derive(Debug, Default)]
struct ToolIndexer {
    /// Every index handed out or seen, so a fresh one never collides.
    used: Vec<u32>,
    /// Id → index of calls that came without an index.
    by_id: Vec<(String, u32)>,
    /// Position in the array → index of the call last started there without an index.
    by_position: Vec<Option<u32>>,
}

impl ToolIndexer {
    fn delta(&mut self, entry: &Value, position: usize) -> Option<ToolCallDelta> {
        let entry = entry.as_object()?;
        let function = entry.get("function").and_then(Value::as_object);
        let text = |v: Option<&Value>| {
            v.and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let id = text(entry.get("id"));
        // A name outside `function` is not OpenAI's shape, but costs nothing to accept.
        let name = text(function.and_then(|f| f.get("name"))).or_else(|| text(entry.get("name")));
        let arguments = match function.and_then(|f| f.get("arguments")) {
            Some(Value::String(s)) => s.clone(),
            None | Some(Value::Null) => String::new(),
            // Some servers send the arguments as a JSON object; what the model meant is its text.
            Some(v) => v.to_string(),
        };
        if id.is_none() && name.is_none() && arguments.is_empty() {
            return None; // e.g. `{"index":0,"function":{"arguments":""}}` on a finish chunk
        }
        let explicit = entry
            .get("index")
            .and_then(Value::as_u64)
            .and_then(|i| u32::try_from(i).ok());
        let index = match explicit {
            Some(i) => i,
            None => self.implicit_index(id.as_deref(), position),
        };
        if !self.used.contains(&index) {
            self.used.push(index);
        }
        Some(ToolCallDelta {
            index,
            id,
            name,
            arguments,
        })
    }

    fn implicit_index(&mut self, id: Option<&str>, position: usize) -> u32 {
        let position_index = u32::try_from(position).unwrap_or(u32::MAX);
        if let Some(id) = id {
            if let Some((_, i)) = self.by_id.iter().find(|(known, _)| known == id) {
                return *i;
            }
            let mut fresh = position_index;
            while self.used.contains(&fresh) && fresh < u32::MAX {
                fresh += 1;
            }
            self.by_id.push((id.to_string(), fresh));
            if self.by_position.len() <= position {
                self.by_position.resize(position + 1, None);
            }
            self.by_position[position] = Some(fresh);
            return fresh;
        }
        self.by_position
            .get(position)
            .copied()
            .flatten()
            .unwrap_or(position_index)
    }
}

/// Text of a content-like field: a string, or the `text` of each part of an array.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.as_str().or_else(|| p.get("text").and_then(Value::as_str)))
            .collect(),
        _ => String::new(),
    }
}

fn usage_of(v: &Value) -> Option<Usage> {
    let count = |k: &str| {
        let x = v.get(k)?;
        x.as_u64()
            .or_else(|| {
                x.as_f64()
                    .filter(|f| f.is_finite() && *f >= 0.0)
                    .map(|f| f as u64)
            })
            .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
    };
    let prompt = count("prompt_tokens");
    let completion = count("completion_tokens");
    let total = count("total_tokens");
    if prompt.is_none() && completion.is_none() && total.is_none() {
        return None; // e.g. `"usage":{}` from some proxies
    }
    let prompt_tokens = prompt.unwrap_or(0);
    let completion_tokens = completion.unwrap_or(0);
    Some(Usage {
        prompt_tokens,
        completion_tokens,
        total_tokens: total.unwrap_or(prompt_tokens.saturating_add(completion_tokens)),
    })
}

#[cfg(test)]
#[path = "stream_tests.rs"]
mod tests;
