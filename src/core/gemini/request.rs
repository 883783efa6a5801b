//! One agent step as a Gemini request: `POST {base}/models/{model}:streamGenerateContent?alt=sse`.
//!
//! The conversation is the one `openai::step_request` sends, reshaped for this API:
//! - the key goes in the `x-goog-api-key` header, which Gemini's CORS preflight allows, and
//!   never in the URL (a `?key=` would land in logs and the browser's history of requests);
//! - the system prompt is `systemInstruction` (a `System` message in the history joins it);
//! - turns are `contents` with the roles `user` and `model`; consecutive turns of one role
//!   merge, and a turn is never empty (the API refuses a content without parts);
//! - a native call is a `functionCall` part of the model turn, and its result a
//!   `functionResponse` part of the next user turn, in the same order and with the same
//!   name: older Gemini versions give calls no id, so name and position are what pair them;
//!   an id is sent only where Gemini gave one;
//! - each model step of the current turn carries a thought signature on its first call,
//!   which Gemini 3 requires. Skiff does not store the signatures Gemini sends, so it sends
//!   the value Gemini documents for calls whose signature the client does not have.
//!
//! History is replayed in the mode of the request being built, as the other builders do:
//! calls made in prompt mode (or any calls when tools are off) go back as text.

use serde::Serialize;
use serde_json::{Map, Value};

use super::schema;
use crate::http::{join_url, HttpRequest, Method};
use crate::records::message::{Message, Role};
use crate::records::tool_mode::ToolMode;
use crate::seam::piece::Piece;
use crate::seam::{ChatParams, StepContext};
use crate::tools::prompt;
use crate::tools::result;
use crate::tools::spec::ToolSpec;

/// Image types Gemini reads as `inlineData`; others would fail the request.
const IMAGE_TYPES: [&str; 5] = [
    "image/png",
    "image/jpeg",
    "image/webp",
    "image/heic",
    "image/heif",
];

/// The thought signature Gemini's documentation gives for function calls the client has no
/// signature for (https://ai.google.dev/gemini-api/docs/thought-signatures, FAQ).
pub const SKIP_SIGNATURE: &str = "skip_thought_signature_validator";

/// `POST {base}/models/{model}:streamGenerateContent?alt=sse` (base like
/// `https://generativelanguage.googleapis.com/v1beta`), with `tools` in native mode.
pub fn step_request(
    base_url: &str,
    api_key: Option<&str>,
    params: &ChatParams,
    ctx: &StepContext<'_>,
) -> HttpRequest {
    let declarations: Vec<Declaration> = match ctx.mode {
        ToolMode::Native => ctx.tools.iter().map(declaration).collect(),
        ToolMode::Prompt | ToolMode::Off => Vec::new(),
    };
    let system = ctx.joined_system_prompt();
    // `ANY`: the model must call one of the declared functions (an MCP server's sampling
    // request with `toolChoice: required`).
    let tool_config = (params.tool_required && !declarations.is_empty())
        .then(|| serde_json::json!({"functionCallingConfig": {"mode": "ANY"}}));
    let body = Body {
        system_instruction: (!system.is_empty()).then(|| Content {
            role: None,
            parts: vec![Part::text(system)],
        }),
        contents: contents(ctx),
        tools: if declarations.is_empty() {
            Vec::new()
        } else {
            vec![Tool {
                function_declarations: declarations,
            }]
        },
        tool_config,
        generation_config: GenerationConfig {
            stop_sequences: params.stop.clone(),
            // Gemini takes 0–2, as OpenAI does; a NaN would be `null`.
            temperature: params.temperature.filter(|t| t.is_finite()),
            top_p: params.top_p.filter(|t| t.is_finite()),
            max_output_tokens: params.max_tokens.filter(|n| *n > 0),
            thinking_config: thinking_config(params),
        },
    };
    let mut headers = Vec::new();
    // A blank key sends no header, so Gemini's answer says "missing key", not "invalid key".
    if let Some(key) = api_key.map(str::trim).filter(|k| !k.is_empty()) {
        headers.push(("x-goog-api-key".to_string(), key.to_string()));
    }
    headers.push(("content-type".to_string(), "application/json".to_string()));
    HttpRequest {
        method: Method::Post,
        url: join_url(
            base_url,
            &format!(
                "models/{}:streamGenerateContent?alt=sse",
                model_path(&params.model)
            ),
        ),
        headers,
        // Serializing these plain structs cannot fail; an empty body would surface as a 400.
        body: Some(serde_json::to_string(&body).unwrap_or_default()),
    }
}

/// What converting each tool's schema left out, as log sentences (see `schema`).
pub fn schema_notes(tools: &[ToolSpec]) -> Vec<String> {
    tools
        .iter()
        .flat_map(|t| {
            schema::to_gemini(&t.object_schema())
                .dropped
                .into_iter()
                .map(|d| d.sentence(&t.exposed_name))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The model id as a path segment: Gemini's own listing names models `models/x`, which users
/// paste; anything outside the URL-safe characters is percent-encoded so it cannot change
/// the path.
fn model_path(model: &str) -> String {
    let id = model.trim();
    let id = id.strip_prefix("models/").unwrap_or(id);
    let mut out = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Body {
    #[serde(skip_serializing_if = "Option::is_none")]
    system_instruction: Option<Content>,
    contents: Vec<Content>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_config: Option<Value>,
    #[serde(skip_serializing_if = "GenerationConfig::is_empty")]
    generation_config: GenerationConfig,
}

#[derive(Debug, Serialize)]
struct Content {
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'static str>,
    parts: Vec<Part>,
}

/// A `Part`: exactly one of its data fields is set.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct Part {
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    inline_data: Option<Blob>,
    #[serde(skip_serializing_if = "Option::is_none")]
    function_call: Option<FunctionCall>,
    #[serde(skip_serializing_if = "Option::is_none")]
    function_response: Option<FunctionResponse>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thought_signature: Option<&'static str>,
}

impl Part {
    fn text(text: String) -> Part {
        Part {
            text: Some(text),
            ..Part::default()
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Blob {
    mime_type: String,
    data: String,
}

#[derive(Debug, Serialize)]
struct FunctionCall {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    name: String,
    args: Map<String, Value>,
}

#[derive(Debug, Serialize)]
struct FunctionResponse {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<String>,
    name: String,
    response: Map<String, Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Tool {
    function_declarations: Vec<Declaration>,
}

#[derive(Serialize)]
struct Declaration {
    name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    parameters: Option<Map<String, Value>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GenerationConfig {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    stop_sequences: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking_config: Option<ThinkingConfig>,
}

impl GenerationConfig {
    fn is_empty(&self) -> bool {
        self.stop_sequences.is_empty()
            && self.temperature.is_none()
            && self.top_p.is_none()
            && self.max_output_tokens.is_none()
            && self.thinking_config.is_none()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ThinkingConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    include_thoughts: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking_budget: Option<u32>,
}

/// `thinkingConfig`, sent only where it cannot be refused: Gemini answers 400 when a model
/// that does not think is given a budget (or asked for thoughts), so it goes only when the
/// user set a budget (their word that the model thinks) or the profile knows the model
/// reasons. Thought summaries (`includeThoughts`) are asked for whenever the model thinks; a
/// budget of 0 turns thinking off (Flash models), and then there are no thoughts to include.
fn thinking_config(params: &ChatParams) -> Option<ThinkingConfig> {
    match params.thinking_budget {
        Some(0) => Some(ThinkingConfig {
            include_thoughts: None,
            thinking_budget: Some(0),
        }),
        Some(n) => Some(ThinkingConfig {
            include_thoughts: Some(true),
            thinking_budget: Some(n),
        }),
        None if params.reasoning_model => Some(ThinkingConfig {
            include_thoughts: Some(true),
            thinking_budget: None,
        }),
        None => None,
    }
}

fn declaration(spec: &ToolSpec) -> Declaration {
    let converted = schema::to_gemini(&spec.object_schema()).schema;
    // Gemini refuses an OBJECT schema without properties ("should be non-empty for OBJECT
    // type"); a tool that takes no arguments is declared without `parameters`.
    let has_properties = converted
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    Declaration {
        name: spec.exposed_name.clone(),
        description: spec.description.clone(),
        parameters: has_properties.then_some(converted),
    }
}

fn contents(ctx: &StepContext<'_>) -> Vec<Content> {
    // The current turn starts at the last user message; Gemini 3 checks signatures only there.
    let turn_start = ctx.history.iter().rposition(|m| m.role == Role::User);
    let mut out = Vec::new();
    for (i, m) in ctx.history.iter().enumerate() {
        let role = match m.role {
            Role::System => continue, // already in `systemInstruction`
            Role::User => "user",
            Role::Assistant => "model",
        };
        if let Some(pieces) = crate::seam::piece::pieces(m) {
            push(&mut out, role, pieces.into_iter().map(part).collect());
        } else if m.tool_calls.is_empty() {
            // Reasoning never goes back; a blank turn (a failed answer) says nothing.
            push(&mut out, role, text_parts(&m.content));
        } else if ctx.mode == ToolMode::Native && m.tool_mode == Some(ToolMode::Native) {
            let current = turn_start.is_none_or(|start| i > start);
            push_native_exchange(&mut out, m, ctx, current);
        } else {
            push_prompt_exchange(&mut out, m, ctx);
        }
    }
    out
}

fn part(p: Piece<'_>) -> Part {
    let inline = |mime: &str, data| Part {
        inline_data: Some(Blob {
            mime_type: mime.to_string(),
            data,
        }),
        ..Part::default()
    };
    match p {
        Piece::Text(text) => Part::text(text),
        Piece::Image { mime, base64 } => inline(mime, base64),
        Piece::Pdf { base64, .. } => inline("application/pdf", base64),
    }
}

/// Append parts as a `role` turn, joining the previous turn when it has the same role.
fn push(out: &mut Vec<Content>, role: &'static str, parts: Vec<Part>) {
    if parts.is_empty() {
        return;
    }
    match out.last_mut() {
        Some(last) if last.role == Some(role) => last.parts.extend(parts),
        _ => out.push(Content {
            role: Some(role),
            parts,
        }),
    }
}

fn text_parts(text: &str) -> Vec<Part> {
    if text.trim().is_empty() {
        Vec::new()
    } else {
        vec![Part::text(text.to_string())]
    }
}

fn push_native_exchange(out: &mut Vec<Content>, m: &Message, ctx: &StepContext<'_>, current: bool) {
    let mut parts = text_parts(&m.content);
    for (n, record) in m.tool_calls.iter().enumerate() {
        // `args` must be an object; the call's error result already told the model what was
        // wrong with arguments that were not one.
        let args = match serde_json::from_str::<Value>(&record.arguments) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        };
        parts.push(Part {
            function_call: Some(FunctionCall {
                id: gemini_id(&record.id),
                name: record.name.clone(),
                args,
            }),
            thought_signature: (current && n == 0).then_some(SKIP_SIGNATURE),
            ..Part::default()
        });
    }
    push(out, "model", parts);
    let mut results = Vec::new();
    let mut images = Vec::new();
    for record in &m.tool_calls {
        let r = result::for_model(record, ctx.result_char_limit);
        let mut response = Map::new();
        // Gemini's documented keys: `output` for a result, `error` for a failure.
        let key = if r.is_error { "error" } else { "output" };
        response.insert(key.into(), Value::String(r.text));
        results.push(Part {
            function_response: Some(FunctionResponse {
                id: gemini_id(&record.id),
                name: record.name.clone(),
                response,
            }),
            ..Part::default()
        });
        if ctx.vision {
            images.extend(
                r.images
                    .into_iter()
                    .filter(|i| IMAGE_TYPES.contains(&i.mime.as_str()))
                    .map(|i| Part {
                        inline_data: Some(Blob {
                            mime_type: i.mime,
                            data: i.data,
                        }),
                        ..Part::default()
                    }),
            );
        }
    }
    // Every response first, in call order (Gemini pairs them by position), then the images.
    results.extend(images);
    push(out, "user", results);
}

/// The id to send with a call and its response: `None` for the `call_<n>` ids Skiff makes up
/// when a provider gave none (`agent::assemble`), which Gemini never issued.
fn gemini_id(id: &str) -> Option<String> {
    let made_up = id
        .strip_prefix("call_")
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
    (!made_up && !id.is_empty()).then(|| id.to_string())
}

fn push_prompt_exchange(out: &mut Vec<Content>, m: &Message, ctx: &StepContext<'_>) {
    let mut pieces = Vec::new();
    if !m.content.trim().is_empty() {
        pieces.push(m.content.clone());
    }
    // An answer made in prompt mode already holds its blocks; any other lacks them.
    if m.tool_mode != Some(ToolMode::Prompt) {
        pieces.extend(m.tool_calls.iter().map(prompt::call_block));
    }
    push(out, "model", text_parts(&pieces.join("\n\n")));
    push(
        out,
        "user",
        text_parts(&prompt::response_turn(&m.tool_calls, ctx.result_char_limit)),
    );
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
