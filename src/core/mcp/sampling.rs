//! `sampling/createMessage`: a server asking the user's model for a completion (MCP
//! 2025-11-25, with SEP-1577's tools; deprecated but still specified in 2026-07-28).
//!
//! What this decides, so the approval card and the runner decide nothing:
//! - whether the request is well formed ([`SamplingRequest::parse`]): a server's params are
//!   untrusted, and a malformed one is answered with a JSON-RPC error carrying a sentence,
//!   never a panic or a silent default for `maxTokens`;
//! - which of the user's models serves it ([`pick_model`]): the server's name hints are
//!   substrings matched in order against the models the user has, the user's choice for
//!   sampling otherwise; a hint never reaches a model the user did not configure;
//! - how often a server may ask ([`Limiter`]): a server that floods the user with approval
//!   cards is refused with a sentence once over its budget;
//! - the result the server gets back ([`result`]), with the stop reason in the protocol's
//!   words.
//!
//! Pure: no IO, no clock (time is an argument).

use std::fmt;

use serde::Serialize;
use serde_json::{json, Map, Value};

/// Requests one server may make in [`WINDOW_MS`]: a human approves each, so more is a flood.
pub const PER_WINDOW: usize = 5;
pub const WINDOW_MS: f64 = 60_000.0;

/// One piece of a sampling message.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    /// Base64 image or audio, as sent.
    Media {
        kind: MediaKind,
        mime: String,
        data: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: Map<String, Value>,
    },
    ToolResult {
        tool_use_id: String,
        content: Vec<Part>,
        is_error: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    Image,
    Audio,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub role: Role,
    pub parts: Vec<Part>,
}

/// A tool the server offers the model (never run by Skiff: a call goes back to the server).
/// Serialized in the protocol's words, as the host `sample` argument carries it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    pub name: String,
    pub description: String,
    pub input_schema: Map<String, Value>,
}

/// `toolChoice.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoice {
    #[default]
    Auto,
    None,
    /// The model must call some tool.
    Required,
}

/// `includeContext`; anything but `none` asks for other servers' context, which Skiff does
/// not give (it would hand one server what another said).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IncludeContext {
    #[default]
    None,
    ThisServer,
    AllServers,
}

/// A parsed, checked `sampling/createMessage`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SamplingRequest {
    pub messages: Vec<Turn>,
    pub system_prompt: String,
    pub max_tokens: u32,
    pub temperature: Option<f32>,
    pub stop_sequences: Vec<String>,
    /// Model name hints, in the server's order of preference.
    pub hints: Vec<String>,
    /// cost, speed, intelligence priorities (0–1) when given.
    pub priorities: [Option<f32>; 3],
    pub include_context: IncludeContext,
    pub tools: Vec<Tool>,
    pub tool_choice: ToolChoice,
}

/// Why a request is refused; the JSON-RPC error message the server receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SamplingError {
    Invalid(String),
    Flood { per_minute: usize },
    Declined,
}

impl SamplingError {
    /// The JSON-RPC error code: invalid params, or the user's refusal (-1, as the
    /// specification's example gives for a rejected request).
    pub fn code(&self) -> i64 {
        match self {
            SamplingError::Invalid(_) => -32602,
            SamplingError::Flood { .. } | SamplingError::Declined => -1,
        }
    }
}

impl fmt::Display for SamplingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SamplingError::Invalid(why) => write!(f, "Invalid sampling request: {why}"),
            SamplingError::Flood { per_minute } => write!(
                f,
                "Too many sampling requests: at most {per_minute} a minute are shown to the user."
            ),
            SamplingError::Declined => f.write_str("User rejected sampling request"),
        }
    }
}

pub(super) fn invalid(why: impl Into<String>) -> SamplingError {
    SamplingError::Invalid(why.into())
}

fn text_of<'a>(v: &'a Value, key: &str, at: &str) -> Result<&'a str, SamplingError> {
    v.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| invalid(format!("{at} has no {key} string")))
}

fn part(v: &Value, at: &str) -> Result<Part, SamplingError> {
    let kind = text_of(v, "type", at)?;
    Ok(match kind {
        "text" => Part::Text(text_of(v, "text", at)?.to_string()),
        "image" | "audio" => Part::Media {
            kind: if kind == "image" {
                MediaKind::Image
            } else {
                MediaKind::Audio
            },
            mime: text_of(v, "mimeType", at)?.to_string(),
            data: text_of(v, "data", at)?.to_string(),
        },
        "tool_use" => Part::ToolUse {
            id: text_of(v, "id", at)?.to_string(),
            name: text_of(v, "name", at)?.to_string(),
            input: v
                .get("input")
                .and_then(Value::as_object)
                .cloned()
                .ok_or_else(|| invalid(format!("{at} has no input object")))?,
        },
        "tool_result" => Part::ToolResult {
            tool_use_id: text_of(v, "toolUseId", at)?.to_string(),
            content: parts(v.get("content"), at)?,
            is_error: v.get("isError").and_then(Value::as_bool).unwrap_or(false),
        },
        other => {
            return Err(invalid(format!(
                "{at} has a content type \u{201c}{other}\u{201d} Skiff cannot send"
            )))
        }
    })
}

/// `content` is one block or (SEP-1577) an array of them.
fn parts(v: Option<&Value>, at: &str) -> Result<Vec<Part>, SamplingError> {
    match v {
        Some(Value::Array(items)) => items.iter().map(|p| part(p, at)).collect(),
        Some(one @ Value::Object(_)) => Ok(vec![part(one, at)?]),
        _ => Err(invalid(format!("{at} has no content"))),
    }
}

impl SamplingRequest {
    pub fn parse(params: &Value) -> Result<SamplingRequest, SamplingError> {
        let messages = params
            .get("messages")
            .and_then(Value::as_array)
            .filter(|m| !m.is_empty())
            .ok_or_else(|| invalid("messages must be a non-empty array"))?;
        let mut turns = Vec::with_capacity(messages.len());
        for (i, m) in messages.iter().enumerate() {
            let at = format!("message {}", i + 1);
            let role = match m.get("role").and_then(Value::as_str) {
                Some("user") => Role::User,
                Some("assistant") => Role::Assistant,
                _ => return Err(invalid(format!("{at} has no role user or assistant"))),
            };
            let parts = parts(m.get("content"), &at)?;
            // SEP-1577: tool results are the user's, tool uses the assistant's.
            let misplaced = parts.iter().any(|p| match p {
                Part::ToolUse { .. } => role != Role::Assistant,
                Part::ToolResult { .. } => role != Role::User,
                _ => false,
            });
            if misplaced {
                return Err(invalid(format!("{at} has a tool block in the wrong role")));
            }
            turns.push(Turn { role, parts });
        }
        super::sampling_step::check_tool_pairs(&turns)?;
        let max_tokens = params
            .get("maxTokens")
            .and_then(Value::as_u64)
            .filter(|n| *n > 0)
            .ok_or_else(|| invalid("maxTokens must be a positive whole number"))?;
        let prefs = params.get("modelPreferences");
        let priority = |k: &str| {
            prefs
                .and_then(|p| p.get(k))
                .and_then(Value::as_f64)
                .filter(|v| (0.0..=1.0).contains(v))
                .map(|v| v as f32)
        };
        let hints = prefs
            .and_then(|p| p.get("hints"))
            .and_then(Value::as_array)
            .map(|hs| {
                hs.iter()
                    .filter_map(|h| h.get("name").and_then(Value::as_str))
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let tools = match params.get("tools") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(ts)) => ts
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let at = format!("tool {}", i + 1);
                    Ok(Tool {
                        name: text_of(t, "name", &at)?.to_string(),
                        description: t
                            .get("description")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                        input_schema: t
                            .get("inputSchema")
                            .and_then(Value::as_object)
                            .cloned()
                            .ok_or_else(|| invalid(format!("{at} has no inputSchema object")))?,
                    })
                })
                .collect::<Result<_, SamplingError>>()?,
            Some(_) => return Err(invalid("tools must be an array")),
        };
        let tool_choice = match params
            .get("toolChoice")
            .and_then(|c| c.get("mode"))
            .and_then(Value::as_str)
        {
            None | Some("auto") => ToolChoice::Auto,
            Some("none") => ToolChoice::None,
            Some("required") => ToolChoice::Required,
            Some(other) => {
                return Err(invalid(format!(
                    "toolChoice mode \u{201c}{other}\u{201d} is unknown"
                )))
            }
        };
        Ok(SamplingRequest {
            messages: turns,
            system_prompt: params
                .get("systemPrompt")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            max_tokens: u32::try_from(max_tokens).unwrap_or(u32::MAX),
            temperature: params
                .get("temperature")
                .and_then(Value::as_f64)
                .filter(|t| t.is_finite())
                .map(|t| t as f32),
            stop_sequences: params
                .get("stopSequences")
                .and_then(Value::as_array)
                .map(|s| {
                    s.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default(),
            hints,
            priorities: [
                priority("costPriority"),
                priority("speedPriority"),
                priority("intelligencePriority"),
            ],
            include_context: match params.get("includeContext").and_then(Value::as_str) {
                Some("thisServer") => IncludeContext::ThisServer,
                Some("allServers") => IncludeContext::AllServers,
                _ => IncludeContext::None,
            },
            tools,
            tool_choice,
        })
    }
}

/// The model that serves the request: the first hint (in the server's order) that is a
/// substring of one of the user's models (case-insensitive; the first such model in the
/// user's order), else `fallback` (the user's sampling choice, or the conversation's).
pub fn pick_model<'a>(hints: &[String], available: &'a [String], fallback: &'a str) -> &'a str {
    for hint in hints {
        let hint = hint.to_lowercase();
        if let Some(m) = available.iter().find(|m| m.to_lowercase().contains(&hint)) {
            return m;
        }
    }
    fallback
}

/// How a finished answer stopped, in the protocol's words.
pub fn stop_reason(finish: Option<&str>, called_tools: bool) -> &'static str {
    if called_tools {
        return "toolUse";
    }
    match finish {
        Some("length" | "max_tokens" | "MAX_TOKENS") => "maxTokens",
        Some("stop_sequence") => "stopSequence",
        Some("refusal" | "SAFETY" | "content_filter") => "refusal",
        _ => "endTurn",
    }
}

/// The `CreateMessageResult` for an approved answer: its text (and the tool calls the model
/// made, when the request offered tools), the model that wrote it, and why it stopped.
pub fn result(
    text: &str,
    tool_uses: &[(String, String, Map<String, Value>)],
    model: &str,
    finish: Option<&str>,
) -> Value {
    let stop = stop_reason(finish, !tool_uses.is_empty());
    let content = if tool_uses.is_empty() {
        json!({"type": "text", "text": text})
    } else {
        let mut blocks = Vec::new();
        if !text.trim().is_empty() {
            blocks.push(json!({"type": "text", "text": text}));
        }
        for (id, name, input) in tool_uses {
            blocks.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
        }
        Value::Array(blocks)
    };
    json!({"role": "assistant", "content": content, "model": model, "stopReason": stop})
}

/// Per-server budget of sampling requests (a sliding window of [`WINDOW_MS`]).
#[derive(Debug, Clone, Default)]
pub struct Limiter {
    seen: Vec<(String, f64)>,
}

impl Limiter {
    /// Whether `server_id` may show another request at `now`; counts it when it may.
    pub fn admit(&mut self, server_id: &str, now_ms: f64) -> Result<(), SamplingError> {
        self.seen
            .retain(|(_, at)| now_ms - at < WINDOW_MS && *at <= now_ms);
        let recent = self.seen.iter().filter(|(s, _)| s == server_id).count();
        if recent >= PER_WINDOW {
            return Err(SamplingError::Flood {
                per_minute: PER_WINDOW,
            });
        }
        self.seen.push((server_id.to_string(), now_ms));
        Ok(())
    }
}

#[cfg(test)]
#[path = "sampling_tests.rs"]
mod tests;
