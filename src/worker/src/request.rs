//! Reads an OpenAI chat-completions body into what a generation needs. Unknown fields are
//! ignored (the page's provider code sends what it sends to any server).

use crate::api_error::ApiError;
use crate::generate::SamplingParams;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageRole {
    System,
    User,
    Assistant,
    Tool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatMessage {
    pub role: MessageRole,
    pub content: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// The model id; empty means "the only or most recent stored model".
    pub model: String,
    pub messages: Vec<ChatMessage>,
    pub max_tokens: Option<usize>,
    pub sampling: SamplingParams,
    pub stop: Vec<String>,
    /// llama.cpp's `ignore_eos`: keep going past end-of-generation tokens (benchmarks use
    /// it to time a fixed number of tokens).
    pub ignore_eos: bool,
}

pub fn parse_chat_request(body: &str) -> Result<ChatRequest, ApiError> {
    let v: Value = serde_json::from_str(body)
        .map_err(|e| ApiError::BadRequest(format!("the body is not JSON ({e})")))?;
    let obj = v
        .as_object()
        .ok_or_else(|| ApiError::BadRequest("the body is not a JSON object".into()))?;
    let model = obj
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let raw = obj
        .get("messages")
        .and_then(Value::as_array)
        .ok_or_else(|| ApiError::BadRequest("it has no \"messages\" list".into()))?;
    let mut messages = Vec::with_capacity(raw.len());
    for m in raw {
        let role = match m.get("role").and_then(Value::as_str) {
            Some("system") | Some("developer") => MessageRole::System,
            Some("user") => MessageRole::User,
            Some("assistant") => MessageRole::Assistant,
            Some("tool") => MessageRole::Tool,
            Some(other) => {
                return Err(ApiError::BadRequest(format!(
                    "a message has the unknown role \"{other}\""
                )))
            }
            None => return Err(ApiError::BadRequest("a message has no role".into())),
        };
        messages.push(ChatMessage {
            role,
            content: content_text(m.get("content"))?,
        });
    }
    if messages.is_empty() {
        return Err(ApiError::BadRequest(
            "the \"messages\" list is empty".into(),
        ));
    }
    let num = |k: &str| obj.get(k).and_then(Value::as_f64);
    let count = |k: &str| obj.get(k).and_then(Value::as_u64).map(|n| n as usize);
    let defaults = SamplingParams::default();
    let sampling = SamplingParams {
        temperature: num("temperature").unwrap_or(defaults.temperature).max(0.0),
        top_p: num("top_p").or(defaults.top_p),
        top_k: count("top_k").or(defaults.top_k),
        min_p: num("min_p").or(defaults.min_p),
        repeat_penalty: num("repeat_penalty").map(|p| p as f32).unwrap_or(1.0),
        seed: obj
            .get("seed")
            .and_then(Value::as_u64)
            .unwrap_or(defaults.seed),
    };
    let max_tokens = count("max_completion_tokens")
        .or_else(|| count("max_tokens"))
        .filter(|n| *n > 0);
    let stop = match obj.get("stop") {
        Some(Value::String(s)) if !s.is_empty() => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    let ignore_eos = obj
        .get("ignore_eos")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    Ok(ChatRequest {
        model,
        messages,
        max_tokens,
        sampling,
        stop,
        ignore_eos,
    })
}

/// A message's text: a string, or the text parts of a parts array joined. Image (or audio,
/// file) parts are refused: these models read text only, and silently dropping the picture
/// would answer a question the user did not ask.
fn content_text(content: Option<&Value>) -> Result<String, ApiError> {
    match content {
        None | Some(Value::Null) => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(Value::Array(parts)) => {
            let mut texts = Vec::with_capacity(parts.len());
            for p in parts {
                match p.get("type").and_then(Value::as_str) {
                    Some("text") | None => {
                        if let Some(t) = p.get("text").and_then(Value::as_str) {
                            texts.push(t);
                        }
                    }
                    Some(_) => return Err(ApiError::ImageContent),
                }
            }
            // One part per line, so two parts never run their words together.
            Ok(texts.join("\n"))
        }
        Some(_) => Err(ApiError::BadRequest(
            "a message's content is neither text nor a list of parts".into(),
        )),
    }
}

/// Fills the samplers the body left out with the model's stored defaults (`ModelRecord`'s
/// `top_k`, `repeat_penalty`, `seed`): what the request says always wins.
pub fn apply_model_defaults(req: &mut ChatRequest, body: &str, record: &crate::store::ModelRecord) {
    let given = |k: &str| {
        serde_json::from_str::<Value>(body)
            .ok()
            .and_then(|v| v.get(k).map(|x| !x.is_null()))
            .unwrap_or(false)
    };
    if let (false, Some(k)) = (given("top_k"), record.top_k) {
        req.sampling.top_k = Some(k as usize);
    }
    if let (false, Some(p)) = (given("repeat_penalty"), record.repeat_penalty) {
        req.sampling.repeat_penalty = p as f32;
    }
    if let (false, Some(seed)) = (given("seed"), record.seed) {
        req.sampling.seed = seed;
    }
}
