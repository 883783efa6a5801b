//! One agent step as an Anthropic Messages request: `POST {base}/messages`, streaming.
//!
//! The conversation is the same one `openai::step_request` sends, reshaped for the rules of this
//! API (each one answers 400 when broken):
//! - the system prompt is the top-level `system` string, never a message (a `System` message in
//!   the history joins it);
//! - `user` and `assistant` turns alternate strictly, so consecutive turns of one role merge;
//! - a native call is a `tool_use` block of the assistant turn, and its result a `tool_result`
//!   block of the very next user turn, all results of one step in one turn, in the model's
//!   order, before any text of that turn;
//! - `max_tokens` is required.
//!
//! Extended thinking (`ChatParams::thinking_budget`) adds `thinking: {"type":"enabled",
//! "budget_tokens": N}`, and the API then adds rules of its own, each a 400 when broken:
//! `budget_tokens` is at least 1024 and below `max_tokens` (so a small `max_tokens` is
//! raised: the answer room the user chose comes on top of the budget), `temperature` and
//! `top_k` must be left out, and `top_p` must lie in 0.95–1. A tool loop that continues with
//! thinking on must give back the thinking of the assistant turn that holds the `tool_use`,
//! first in that turn and exactly as signed, so those turns replay their `Message::thinking`,
//! but only when this request thinks and the message came from this request's model (the
//! API refuses another model's signature); a message without signed thinking replays none.
//!
//! History is replayed in the mode of the request being built, as `openai::step_request` does: calls
//! made in prompt mode (or any calls when tools are off) go back as text blocks.

use serde::Serialize;
use serde_json::{Map, Value};

use super::{API_VERSION, DEFAULT_MAX_TOKENS};
use crate::http::{join_url, HttpRequest, Method};
use crate::records::message::{Message, Role};
use crate::records::thought::Thought;
use crate::records::tool_call::ToolCallRecord;
use crate::records::tool_mode::ToolMode;
use crate::seam::piece::Piece;
use crate::seam::{ChatParams, StepContext};
use crate::tools::prompt;
use crate::tools::result;
use crate::tools::spec::ToolSpec;

/// Image types the API accepts in an `image` block; others would fail the whole request.
const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/// `POST {base}/messages` (base like `https://api.anthropic.com/v1`), streaming, with `tools`
/// in native mode.
pub fn step_request(
    base_url: &str,
    api_key: Option<&str>,
    params: &ChatParams,
    ctx: &StepContext<'_>,
) -> HttpRequest {
    let tools = match ctx.mode {
        ToolMode::Native => ctx.tools.iter().map(wire_tool).collect(),
        ToolMode::Prompt | ToolMode::Off => Vec::new(),
    };
    let answer_room = params
        .max_tokens
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_MAX_TOKENS);
    let budget = params
        .thinking_budget
        .filter(|n| *n > 0)
        .map(|n| n.max(MIN_THINKING_BUDGET));
    let model = params.model.trim();
    let tool_choice =
        (params.tool_required && !tools.is_empty()).then_some(ToolChoice { kind: "any" });
    let body = StepBody {
        model,
        max_tokens: match budget {
            Some(b) if answer_room <= b => b.saturating_add(answer_room),
            _ => answer_room,
        },
        thinking: budget.map(|budget_tokens| Thinking {
            kind: "enabled",
            budget_tokens,
        }),
        system: ctx.joined_system_prompt(),
        messages: messages(ctx, budget.is_some().then_some(model)),
        tools,
        tool_choice,
        stop_sequences: &params.stop,
        stream: true,
        // Anthropic takes 0–1 (OpenAI 0–2) and answers 400 outside it; a NaN would be `null`.
        // Thinking refuses any temperature.
        temperature: params
            .temperature
            .filter(|t| t.is_finite() && budget.is_none())
            .map(|t| t.clamp(0.0, 1.0)),
        top_p: params
            .top_p
            .filter(|t| t.is_finite())
            .map(|t| match budget {
                Some(_) => t.clamp(0.95, 1.0),
                None => t,
            }),
    };
    let mut headers = Vec::new();
    // A blank key sends no header, so the error says "missing key" rather than "invalid key".
    if let Some(key) = api_key.map(str::trim).filter(|k| !k.is_empty()) {
        headers.push(("x-api-key".to_string(), key.to_string()));
    }
    headers.push(("anthropic-version".to_string(), API_VERSION.to_string()));
    headers.push(("content-type".to_string(), "application/json".to_string()));
    // Without it the API refuses a request made from a web page (CORS).
    headers.push((
        "anthropic-dangerous-direct-browser-access".to_string(),
        "true".to_string(),
    ));
    HttpRequest {
        method: Method::Post,
        url: join_url(base_url, "messages"),
        headers,
        // Serializing these plain structs cannot fail; an empty body would surface as a 400.
        body: Some(serde_json::to_string(&body).unwrap_or_default()),
    }
}

/// The smallest `budget_tokens` the API takes.
const MIN_THINKING_BUDGET: u32 = 1024;

#[derive(Serialize)]
struct StepBody<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Thinking>,
    #[serde(skip_serializing_if = "String::is_empty")]
    system: String,
    messages: Vec<WireMessage>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool>,
    /// `{"type": "any"}` when the model must call a tool (an MCP server's sampling request).
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<ToolChoice>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop_sequences: &'a [String],
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f32>,
}

#[derive(Serialize)]
struct ToolChoice {
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Serialize)]
struct Thinking {
    #[serde(rename = "type")]
    kind: &'static str,
    budget_tokens: u32,
}

#[derive(Debug, Serialize)]
struct WireMessage {
    role: &'static str,
    content: Vec<Block>,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block {
    Text {
        text: String,
    },
    Image {
        source: ImageSource,
    },
    /// A PDF, read by the model page by page.
    Document {
        source: ImageSource,
    },
    ToolUse {
        id: String,
        name: String,
        input: Map<String, Value>,
    },
    ToolResult {
        tool_use_id: String,
        content: Vec<Block>,
        is_error: bool,
    },
    Thinking {
        thinking: String,
        signature: String,
    },
    RedactedThinking {
        data: String,
    },
}

#[derive(Debug, Serialize)]
struct ImageSource {
    #[serde(rename = "type")]
    kind: &'static str,
    media_type: String,
    data: String,
}

#[derive(Serialize)]
struct WireTool {
    name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    description: String,
    input_schema: Map<String, Value>,
}

fn wire_tool(spec: &ToolSpec) -> WireTool {
    let input_schema = spec.object_schema();
    WireTool {
        name: spec.exposed_name.clone(),
        description: spec.description.clone(),
        input_schema,
    }
}

/// `thinking_model`: the model of a request that thinks, whose own signed thinking goes back.
fn messages(ctx: &StepContext<'_>, thinking_model: Option<&str>) -> Vec<WireMessage> {
    let mut out = Vec::new();
    for m in ctx.history {
        let role = match m.role {
            Role::System => continue, // already in `system`
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        if let Some(pieces) = crate::seam::piece::pieces(m) {
            push(&mut out, role, pieces.into_iter().map(block).collect());
        } else if m.tool_calls.is_empty() {
            // Thinking goes back only before `tool_use`; a blank turn (a failed answer) says
            // nothing, and the API rejects empty text blocks.
            push(&mut out, role, text_blocks(&m.content));
        } else if ctx.mode == ToolMode::Native && m.tool_mode == Some(ToolMode::Native) {
            push_native_exchange(&mut out, m, ctx, thinking_model);
        } else {
            push_prompt_exchange(&mut out, m, ctx);
        }
    }
    // A request ending on the assistant's own words asks the model to continue them
    // (Continue on a stopped answer); the API refuses such a final turn when it ends in
    // whitespace.
    if let Some(last) = out.last_mut().filter(|m| m.role == "assistant") {
        if let Some(Block::Text { text }) = last.content.last_mut() {
            text.truncate(text.trim_end().len());
        }
    }
    out
}

fn block(p: Piece<'_>) -> Block {
    let source = |media_type: &str, data| ImageSource {
        kind: "base64",
        media_type: media_type.to_string(),
        data,
    };
    match p {
        Piece::Text(text) => Block::Text { text },
        Piece::Image { mime, base64 } => Block::Image {
            source: source(mime, base64),
        },
        Piece::Pdf { base64, .. } => Block::Document {
            source: source("application/pdf", base64),
        },
    }
}

/// Append blocks as a `role` turn, joining the previous turn when it has the same role.
fn push(out: &mut Vec<WireMessage>, role: &'static str, blocks: Vec<Block>) {
    if blocks.is_empty() {
        return;
    }
    match out.last_mut() {
        Some(last) if last.role == role => last.content.extend(blocks),
        _ => out.push(WireMessage {
            role,
            content: blocks,
        }),
    }
}

fn text_blocks(text: &str) -> Vec<Block> {
    if text.trim().is_empty() {
        Vec::new()
    } else {
        vec![Block::Text {
            text: text.to_string(),
        }]
    }
}

fn push_native_exchange(
    out: &mut Vec<WireMessage>,
    m: &Message,
    ctx: &StepContext<'_>,
    thinking_model: Option<&str>,
) {
    let same_model = thinking_model.is_some_and(|t| !t.is_empty() && m.model.as_deref() == Some(t));
    let mut blocks: Vec<Block> = if same_model {
        m.thinking.iter().filter_map(thinking_block).collect()
    } else {
        Vec::new()
    };
    blocks.extend(text_blocks(&m.content));
    blocks.extend(m.tool_calls.iter().map(tool_use));
    push(out, "assistant", blocks);
    let results = m
        .tool_calls
        .iter()
        .map(|record| tool_result(record, ctx))
        .collect();
    push(out, "user", results);
}

fn thinking_block(t: &Thought) -> Option<Block> {
    if !t.redacted.is_empty() {
        Some(Block::RedactedThinking {
            data: t.redacted.clone(),
        })
    } else if !t.signature.is_empty() {
        Some(Block::Thinking {
            thinking: t.text.clone(),
            signature: t.signature.clone(),
        })
    } else {
        None // nothing signed it: the API would refuse it
    }
}

fn tool_use(record: &ToolCallRecord) -> Block {
    // `input` must be an object; the call's error result already tells the model what was
    // wrong with arguments that were not one.
    let input = match serde_json::from_str::<Value>(&record.arguments) {
        Ok(Value::Object(map)) => map,
        _ => Map::new(),
    };
    Block::ToolUse {
        id: wire_id(&record.id),
        name: record.name.clone(),
        input,
    }
}

fn tool_result(record: &ToolCallRecord, ctx: &StepContext<'_>) -> Block {
    let r = result::for_model(record, ctx.result_char_limit);
    let mut content = vec![Block::Text { text: r.text }];
    if ctx.vision {
        content.extend(
            r.images
                .into_iter()
                .filter(|i| IMAGE_TYPES.contains(&i.mime.as_str()))
                .map(|i| Block::Image {
                    source: ImageSource {
                        kind: "base64",
                        media_type: i.mime,
                        data: i.data,
                    },
                }),
        );
    }
    Block::ToolResult {
        tool_use_id: wire_id(&record.id),
        content,
        is_error: r.is_error,
    }
}

/// The API only takes ids matching `^[a-zA-Z0-9_-]+$`; a call made by another provider may
/// carry other characters. Both blocks of a call map through here, so they still match. Tool
/// names obey the same charset, so the tool index's sanitizer serves.
fn wire_id(id: &str) -> String {
    crate::tools::spec::sanitize(id)
}

fn push_prompt_exchange(out: &mut Vec<WireMessage>, m: &Message, ctx: &StepContext<'_>) {
    let mut pieces = Vec::new();
    if !m.content.trim().is_empty() {
        pieces.push(m.content.clone());
    }
    // An answer made in prompt mode already holds its blocks; any other lacks them.
    if m.tool_mode != Some(ToolMode::Prompt) {
        pieces.extend(m.tool_calls.iter().map(prompt::call_block));
    }
    push(out, "assistant", text_blocks(&pieces.join("\n\n")));
    push(
        out,
        "user",
        text_blocks(&prompt::response_turn(&m.tool_calls, ctx.result_char_limit)),
    );
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
