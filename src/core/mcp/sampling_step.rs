//! A server's sampling request as the page's providers take it, and the model's answer as
//! the server takes it back (MCP 2025-11-25 with SEP-1577's tools).
//!
//! Why the conversation's own types: the page already sends `records::message::Message`s with their
//! `ToolCallRecord`s through every provider's wire format (OpenAI-compatible `tool_calls` and
//! `tool` messages, Anthropic `tool_use` and `tool_result` blocks, Gemini `functionCall` and
//! `functionResponse` parts). A server's tool exchange mapped onto them reaches each provider
//! in its own words with no codec of its own, and the sampling runner stays a few lines.
//!
//! Skiff never runs these tools: the model's calls go back to the server as `tool_use`
//! blocks, the server runs them and asks again with `tool_result` blocks.
//!
//! Pure: no IO.

use serde_json::{json, Map, Value};

use super::sampling::{
    invalid, result, MediaKind, Part, Role, SamplingError, SamplingRequest, Tool, ToolChoice, Turn,
};
use crate::provider::ChatParams;
use crate::records::message::{self, Message};
use crate::records::tool_call::ToolCallRecord;
use crate::records::tool_mode::ToolMode;
use crate::tools::spec::ToolSpec;

/// What the page runs through the user's model, exactly as the user approved it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SampleCall {
    pub system: String,
    pub messages: Vec<Message>,
    pub tools: Vec<Tool>,
    pub tool_choice: ToolChoice,
    pub max_tokens: u32,
    pub temperature: Option<f32>,
    pub stop_sequences: Vec<String>,
}

/// The model's answer to an approved request, as the sampling runner hands it back.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SampledAnswer {
    pub text: String,
    /// The model that answered.
    pub model: String,
    /// The provider's finish reason, in its own words.
    pub finish: Option<String>,
    /// The tool calls it asked for (never run by Skiff).
    pub calls: Vec<SampledCall>,
}

/// One call the model asked for: its id, tool name and arguments (JSON text, as models send
/// them).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SampledCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// SEP-1577's balance rule: an assistant message with `tool_use` blocks is followed by a user
/// message of `tool_result` blocks only, one for each call (matched by id), before any other
/// message; and a `tool_result` answers a call of the message right before it. A server that
/// breaks it would have the model read results of calls it never made.
pub(super) fn check_tool_pairs(turns: &[Turn]) -> Result<(), SamplingError> {
    let mut open: Vec<&str> = Vec::new();
    for (i, t) in turns.iter().enumerate() {
        let at = format!("message {}", i + 1);
        let results: Vec<&str> = t
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::ToolResult { tool_use_id, .. } => Some(tool_use_id.as_str()),
                _ => None,
            })
            .collect();
        if !results.is_empty() && results.len() != t.parts.len() {
            return Err(invalid(format!(
                "{at} mixes tool results with other content; tool results come alone"
            )));
        }
        if let Some(id) = results.iter().find(|id| !open.contains(id)) {
            return Err(invalid(format!(
                "{at} has a tool result for \u{201c}{id}\u{201d}, which the message before \
                 it did not call"
            )));
        }
        if let Some(id) = open.iter().find(|id| !results.contains(id)) {
            return Err(invalid(format!(
                "{at} does not answer the tool call \u{201c}{id}\u{201d} of the message before it"
            )));
        }
        open = t
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::ToolUse { id, .. } => Some(id.as_str()),
                _ => None,
            })
            .collect();
    }
    match open.first() {
        Some(id) => Err(invalid(format!(
            "the last message calls the tool \u{201c}{id}\u{201d}; its result must follow \
             before the model can answer"
        ))),
        None => Ok(()),
    }
}

/// How an image or audio block is named to the model and on the card (Skiff sends a
/// sampling request's media as text).
pub(crate) fn media_label(kind: MediaKind, mime: &str, data: &str) -> String {
    let what = match kind {
        MediaKind::Image => "Image",
        MediaKind::Audio => "Audio",
    };
    // Base64: four characters carry three bytes.
    let bytes = (data.len() as u64) / 4 * 3;
    format!("[{what}, {mime}, {}]", crate::format::human_bytes(bytes))
}

/// A message's text for the model: its text blocks, and its media named, one per line
/// (tool blocks travel as calls and results, not as text).
fn turn_text(parts: &[Part]) -> String {
    let sep = if parts.iter().all(|p| matches!(p, Part::Text(_))) {
        "\n\n"
    } else {
        "\n"
    };
    parts
        .iter()
        .filter_map(|p| match p {
            Part::Text(t) => Some(t.clone()),
            Part::Media { kind, mime, data } => Some(media_label(*kind, mime, data)),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(sep)
}

/// A content block back in the protocol's JSON (a tool result's content, for the model).
fn part_json(p: &Part) -> Value {
    match p {
        Part::Text(t) => json!({"type": "text", "text": t}),
        Part::Media { kind, mime, data } => json!({
            "type": match kind {
                MediaKind::Image => "image",
                MediaKind::Audio => "audio",
            },
            "mimeType": mime,
            "data": data,
        }),
        Part::ToolUse { id, name, input } => {
            json!({"type": "tool_use", "id": id, "name": name, "input": input})
        }
        Part::ToolResult {
            tool_use_id,
            content,
            is_error,
        } => json!({
            "type": "tool_result",
            "toolUseId": tool_use_id,
            "content": content.iter().map(part_json).collect::<Vec<_>>(),
            "isError": is_error,
        }),
    }
}

impl SampleCall {
    /// The checked request (`SamplingRequest::parse` enforced the tool pairs) as the
    /// conversation's messages: an assistant's `tool_use` blocks become its tool calls, the
    /// next user message's `tool_result` blocks those calls' results; text stays text, and
    /// images and audio are named in it (the page sends a sampling request's media as text).
    /// `edit` replaces message `i`'s text with what the user typed.
    pub fn from_request(r: &SamplingRequest, edit: Option<(usize, &str)>) -> SampleCall {
        let mut messages: Vec<Message> = Vec::with_capacity(r.messages.len());
        for (i, t) in r.messages.iter().enumerate() {
            let results: Vec<(&String, &Vec<Part>, bool)> = t
                .parts
                .iter()
                .filter_map(|p| match p {
                    Part::ToolResult {
                        tool_use_id,
                        content,
                        is_error,
                    } => Some((tool_use_id, content, *is_error)),
                    _ => None,
                })
                .collect();
            if !results.is_empty() {
                // The calls are the message before's (the pairs were checked): each gets its
                // result as a `CallToolResult`, as a tool the page ran would have.
                if let Some(prev) = messages.last_mut() {
                    for (id, content, is_error) in results {
                        if let Some(call) = prev.tool_calls.iter_mut().find(|c| &c.id == id) {
                            let body = json!({
                                "content": content.iter().map(part_json).collect::<Vec<_>>(),
                                "isError": is_error,
                            });
                            call.start(0.0);
                            call.finish(body, 0.0);
                        }
                    }
                }
                continue;
            }
            let text = match edit {
                Some((at, typed)) if at == i => typed.to_string(),
                _ => turn_text(&t.parts),
            };
            let role = match t.role {
                Role::User => message::Role::User,
                Role::Assistant => message::Role::Assistant,
            };
            let mut m = Message::new(format!("sample-{i}"), role, text, 0.0);
            for p in &t.parts {
                if let Part::ToolUse { id, name, input } = p {
                    m.tool_calls.push(ToolCallRecord::new(
                        id.clone(),
                        name.clone(),
                        Value::Object(input.clone()).to_string(),
                    ));
                }
            }
            if !m.tool_calls.is_empty() {
                m.tool_mode = Some(ToolMode::Native);
            }
            messages.push(m);
        }
        SampleCall {
            system: r.system_prompt.clone(),
            messages,
            tools: r.tools.clone(),
            tool_choice: r.tool_choice,
            max_tokens: r.max_tokens,
            temperature: r.temperature,
            stop_sequences: r.stop_sequences.clone(),
        }
    }

    /// How the tools travel: natively when there are any and the server allows calls
    /// (`toolChoice: none` sends none, so the model cannot call one); otherwise not at all,
    /// and earlier calls in the messages are replayed as text.
    pub fn tool_mode(&self) -> ToolMode {
        if self.tools.is_empty() || self.tool_choice == ToolChoice::None {
            ToolMode::Off
        } else {
            ToolMode::Native
        }
    }

    /// The offered tools as the providers' request builders read them.
    pub fn tool_specs(&self) -> Vec<ToolSpec> {
        self.tools
            .iter()
            .map(|t| ToolSpec {
                exposed_name: t.name.clone(),
                server_id: String::new(),
                server_name: String::new(),
                tool_name: t.name.clone(),
                description: t.description.clone(),
                input_schema: t.input_schema.clone(),
                read_only: false,
            })
            .collect()
    }

    /// The server's limits over the conversation's own parameters: its token cap, its
    /// temperature when given, its stop sequences, and `required` as the provider's "must call
    /// a tool".
    pub fn apply(&self, params: &mut ChatParams) {
        params.max_tokens = Some(self.max_tokens);
        if let Some(t) = self.temperature {
            params.temperature = Some(t);
        }
        params.stop.clone_from(&self.stop_sequences);
        params.tool_required =
            self.tool_mode() == ToolMode::Native && self.tool_choice == ToolChoice::Required;
    }
}

/// One call the model made, as a `tool_use` block's parts.
fn tool_use(call: &SampledCall) -> Result<(String, String, Map<String, Value>), String> {
    let (name, id) = (call.name.as_str(), call.id.as_str());
    if name.is_empty() || id.is_empty() {
        return Err(
            "Your model asked for a tool call without a name or id, so nothing was sent.".into(),
        );
    }
    let args = call.arguments.as_str();
    // Models send "" for a call without arguments.
    let input = if args.trim().is_empty() {
        Ok(Map::new())
    } else {
        match serde_json::from_str::<Value>(args) {
            Ok(Value::Object(o)) => Ok(o),
            _ => Err(()),
        }
    };
    input
        .map(|o| (id.to_string(), name.to_string(), o))
        .map_err(|()| {
            format!(
                "Your model asked to call {} with arguments that are not a JSON object, so \
             nothing was sent. Try again or deny.",
                crate::display::text::name(name)
            )
        })
}

/// The `CreateMessageResult` for the model's answer: the text, then a `tool_use` block per
/// call (`stopReason: toolUse`) when the request offered tools; a call a model made anyway
/// without being offered any is not passed on. `Err` is the sentence the card shows.
pub fn answer_result(answer: &SampledAnswer, offered: bool) -> Result<Value, String> {
    let calls = if offered {
        answer
            .calls
            .iter()
            .map(tool_use)
            .collect::<Result<Vec<_>, _>>()?
    } else {
        Vec::new()
    };
    Ok(result(
        &answer.text,
        &calls,
        &answer.model,
        answer.finish.as_deref(),
    ))
}

/// What the card shows for each call before the answer goes back: "Your model asks to call
/// X({...})", one line each.
pub fn calls_said(result: &Value) -> String {
    result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .map(|b| {
            format!(
                "\nYour model asks to call {}({})",
                crate::display::text::name(b.get("name").and_then(Value::as_str).unwrap_or("")),
                b.get("input").cloned().unwrap_or(Value::Null)
            )
        })
        .collect()
}

#[cfg(test)]
#[path = "sampling_step_tests.rs"]
mod tests;
