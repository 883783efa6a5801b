//! One agent step as an OpenAI-compatible chat completions request: the conversation so far,
//! with its tool calls and results, in the shape the step's tool mode needs.
//!
//! History is replayed in the mode of the request being built, not the mode it was made in:
//! a conversation that started with native calls must still read right to a model that only
//! understands prompt-based blocks (after an auto-mode fallback, or a change of model).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::http::HttpRequest;
use crate::openai::request::chat_request_with_tools;
use crate::records::message::{Message, Role};
use crate::records::tool_call::ToolCallRecord;
use crate::records::tool_mode::ToolMode;
use crate::seam::piece::Piece;
use crate::seam::{ChatParams, StepContext};
use crate::tools::prompt;
use crate::tools::result;
use crate::tools::spec::ToolSpec;

/// `POST {base}/chat/completions`, streaming, with `tools` in native mode.
pub fn step_request(
    base_url: &str,
    api_key: Option<&str>,
    params: &ChatParams,
    ctx: &StepContext<'_>,
) -> HttpRequest {
    let native_tools: Vec<WireTool> = match ctx.mode {
        ToolMode::Native => ctx.tools.iter().map(wire_tool).collect(),
        ToolMode::Prompt | ToolMode::Off => Vec::new(),
    };
    chat_request_with_tools(base_url, api_key, params, &messages(ctx), &native_tools)
}

/// Whether an error answer means "this model/server does not take `tools`", so auto mode falls
/// back to prompt-based tool use.
pub fn rejects_tools(status: u16, body: &str) -> bool {
    let text = body.to_ascii_lowercase();
    let has = |needles: &[&str]| needles.iter().any(|n| text.contains(n));
    // llama.cpp says it with a 500 (`"type":"server_error"`), so its two sentences are the
    // only ones trusted from a 5xx; any other server fault says nothing about tools.
    let llama_cpp = has(&[
        "tools param requires --jinja flag",
        "unsupported param: tools",
    ]);
    if status >= 500 {
        return status == 500 && llama_cpp;
    }
    // Auth, a wrong URL or model, timeouts and rate limits are not about tools.
    if !(400..500).contains(&status) || matches!(status, 401 | 403 | 404 | 408 | 429) {
        return false;
    }
    llama_cpp
        // Ollama: "registry.ollama.ai/library/gemma3:4b does not support tools".
        || has(&["does not support tools", "does not support tool calling"])
        // vLLM started without a tool parser.
        || has(&["--enable-auto-tool-choice"])
        // OpenAI-style validators rejecting the field itself.
        || has(&["unrecognized request argument supplied: tools"])
        // Pydantic-based servers forbidding the `tools` field itself (not a field inside it,
        // which means a schema detail, nor `messages[..].tool_calls`).
        || (text.contains("extra inputs are not permitted")
            && has(&[
                "\"body\",\"tools\"]",
                "\"body\", \"tools\"]",
                "('body', 'tools')",
                "field: 'tools',",
                "field: 'tools'\"",
            ]))
        || has(&[
            "tools are not supported",
            "tools is not supported",
            "tools not supported",
            "tool calling is not supported",
            "tool use is not supported",
            "function calling is not supported",
            "does not support function calling",
        ])
}

#[derive(Debug, Serialize)]
struct WireMessage {
    role: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<String>,
    content: Content,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<WireToolCall>,
}

impl WireMessage {
    fn text(role: &'static str, content: String) -> Self {
        WireMessage {
            role,
            tool_call_id: None,
            content: Content::Text(content),
            tool_calls: Vec::new(),
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(untagged)]
enum Content {
    Text(String),
    /// An assistant turn that only called tools.
    Null,
    Parts(Vec<Part>),
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part {
    Text {
        text: String,
    },
    ImageUrl {
        image_url: ImageUrl,
    },
    /// A PDF (OpenAI's `file` part; OpenRouter reads the same shape).
    File {
        file: Value,
    },
}

#[derive(Debug, Serialize)]
struct ImageUrl {
    url: String,
}

#[derive(Debug, Serialize)]
struct WireToolCall {
    id: String,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunctionCall,
}

#[derive(Debug, Serialize)]
struct WireFunctionCall {
    name: String,
    arguments: String,
}

#[derive(Serialize)]
struct WireTool {
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunction,
}

#[derive(Serialize)]
struct WireFunction {
    name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    description: String,
    parameters: Map<String, Value>,
}

fn wire_tool(spec: &ToolSpec) -> WireTool {
    let mut parameters = spec.object_schema();
    // OpenAI also wants `properties`, even for a tool without arguments.
    parameters
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    WireTool {
        kind: "function",
        function: WireFunction {
            name: spec.exposed_name.clone(),
            description: spec.description.clone(),
            parameters,
        },
    }
}

fn messages(ctx: &StepContext<'_>) -> Vec<WireMessage> {
    let mut out = Vec::new();
    // One system message, first: strict chat templates (llama.cpp `--jinja` with Qwen 3.x,
    // Mistral and others) refuse a second one or one after the first turn ("System message
    // must be at the beginning"). A mask's system prompts and any system message in the
    // conversation join the system text, in order, as Anthropic's and Gemini's single
    // system field already have them.
    let mut system = system_prompt(ctx);
    for m in ctx.history.iter().filter(|m| m.role == Role::System) {
        if m.content.trim().is_empty() {
            continue;
        }
        if !system.trim().is_empty() {
            system.push_str("\n\n");
        }
        system.push_str(&m.content);
    }
    if !system.trim().is_empty() {
        out.push(WireMessage::text("system", system));
    }
    for m in ctx.history.iter().filter(|m| m.role != Role::System) {
        if let Some(pieces) = crate::seam::piece::pieces(m) {
            let parts = pieces.into_iter().map(part).collect();
            out.push(WireMessage {
                role: "user",
                tool_call_id: None,
                content: Content::Parts(parts),
                tool_calls: Vec::new(),
            });
        } else if m.tool_calls.is_empty() {
            // Reasoning never goes back; a blank turn (a failed answer) says nothing.
            if !m.content.trim().is_empty() {
                out.push(WireMessage::text(m.role.as_str(), m.content.clone()));
            }
        } else if ctx.mode == ToolMode::Native && m.tool_mode == Some(ToolMode::Native) {
            push_native_exchange(&mut out, m, ctx);
        } else {
            push_prompt_exchange(&mut out, m, ctx);
        }
    }
    out
}

fn part(p: Piece<'_>) -> Part {
    match p {
        Piece::Text(text) => Part::Text { text },
        Piece::Image { mime, base64 } => Part::ImageUrl {
            image_url: ImageUrl {
                url: format!("data:{mime};base64,{base64}"),
            },
        },
        Piece::Pdf { name, base64 } => Part::File {
            file: serde_json::json!({
                "filename": name,
                "file_data": format!("data:application/pdf;base64,{base64}"),
            }),
        },
    }
}

fn system_prompt(ctx: &StepContext<'_>) -> String {
    let user = ctx.system_text();
    let section = if ctx.mode == ToolMode::Prompt && !ctx.tools.is_empty() {
        prompt::system_prompt_section(ctx.tools)
    } else {
        String::new()
    };
    [user.as_str(), section.as_str(), ctx.recap]
        .into_iter()
        .filter(|s| !s.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn push_native_exchange(out: &mut Vec<WireMessage>, m: &Message, ctx: &StepContext<'_>) {
    let content = if m.content.is_empty() {
        Content::Null
    } else {
        Content::Text(m.content.clone())
    };
    out.push(WireMessage {
        role: "assistant",
        tool_call_id: None,
        content,
        tool_calls: m.tool_calls.iter().map(wire_tool_call).collect(),
    });
    let mut images = Vec::new();
    for record in &m.tool_calls {
        let r = result::for_model(record, ctx.result_char_limit);
        out.push(WireMessage {
            role: "tool",
            tool_call_id: Some(record.id.clone()),
            content: Content::Text(r.text),
            tool_calls: Vec::new(),
        });
        images.extend(r.images);
    }
    // The `tool` role takes text only, so pictures follow in a user turn of their own.
    if ctx.vision && !images.is_empty() {
        let mut parts = vec![Part::Text {
            text: "Images returned by the tool calls above:".into(),
        }];
        parts.extend(images.into_iter().map(|i| Part::ImageUrl {
            image_url: ImageUrl {
                url: format!("data:{};base64,{}", i.mime, i.data),
            },
        }));
        out.push(WireMessage {
            role: "user",
            tool_call_id: None,
            content: Content::Parts(parts),
            tool_calls: Vec::new(),
        });
    }
}

fn wire_tool_call(record: &ToolCallRecord) -> WireToolCall {
    // Servers re-parse `arguments` (vLLM, llama.cpp's templates) and answer 400 to anything
    // but an object; the call's error result already tells the model what went wrong.
    let is_object = serde_json::from_str::<Value>(&record.arguments).is_ok_and(|v| v.is_object());
    let arguments = if is_object {
        record.arguments.clone()
    } else {
        "{}".to_string()
    };
    WireToolCall {
        id: record.id.clone(),
        kind: "function",
        function: WireFunctionCall {
            name: record.name.clone(),
            arguments,
        },
    }
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
    out.push(WireMessage::text("assistant", pieces.join("\n\n")));
    out.push(WireMessage::text(
        "user",
        prompt::response_turn(&m.tool_calls, ctx.result_char_limit),
    ));
}

#[cfg(test)]
#[path = "step_tests.rs"]
mod tests;
