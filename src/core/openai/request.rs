//! Building the HTTP requests Skiff sends to an OpenAI-compatible server, and checking the base
//! URL a user typed. Requests are plain values so tests can compare them byte for byte; this
//! file must never decide policy (which messages to send, which model) — callers pass that in.

use serde::Serialize;

use crate::http::{join_url, HttpRequest, Method};
use crate::records::message::{Message, Role};
use crate::seam::{ChatParams, ProviderError};

/// One message as it goes on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WireMessage {
    pub role: Role,
    pub content: String,
}

impl From<&Message> for WireMessage {
    /// Only role and visible text travel: reasoning is never sent back to the model.
    fn from(m: &Message) -> Self {
        WireMessage {
            role: m.role,
            content: m.content.clone(),
        }
    }
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
struct ChatBody<'a, M, T> {
    #[serde(skip_serializing_if = "str::is_empty")]
    model: &'a str,
    messages: &'a [M],
    #[serde(skip_serializing_if = "<[T]>::is_empty")]
    tools: &'a [T],
    stream: bool,
    stream_options: StreamOptions,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    /// Only for models that reason; left out when unset, since servers and models that do not
    /// reason may refuse the field.
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning_effort: Option<&'static str>,
    /// `"required"` when the model must call a tool (an MCP server's sampling request).
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<&'static str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop: &'a [String],
}

/// `POST {base}/chat/completions` asking for a stream with a final usage chunk.
/// `base_url` should come from [`validate_base_url`].
pub fn chat_request(
    base_url: &str,
    api_key: Option<&str>,
    params: &ChatParams,
    messages: &[WireMessage],
) -> HttpRequest {
    chat_request_with_tools::<_, ()>(base_url, api_key, params, messages, &[])
}

/// The same request with any message shape and `tools` (left out when empty): the agent
/// loop's steps (`openai::step_request`) share every other rule with a plain chat.
pub(crate) fn chat_request_with_tools<M: Serialize, T: Serialize>(
    base_url: &str,
    api_key: Option<&str>,
    params: &ChatParams,
    messages: &[M],
    tools: &[T],
) -> HttpRequest {
    let body = ChatBody {
        model: params.model.trim(),
        messages,
        tools,
        stream: true,
        stream_options: StreamOptions {
            include_usage: true,
        },
        // A NaN would serialize as `null`, which servers reject; leave it to the server.
        temperature: params.temperature.filter(|t| t.is_finite()),
        top_p: params.top_p.filter(|t| t.is_finite()),
        max_tokens: params.max_tokens,
        reasoning_effort: params.reasoning_effort.map(|e| e.as_str()),
        tool_choice: (params.tool_required && !tools.is_empty()).then_some("required"),
        stop: &params.stop,
    };
    let mut headers = vec![
        ("Content-Type".to_string(), "application/json".to_string()),
        ("Accept".to_string(), "text/event-stream".to_string()),
    ];
    push_auth(&mut headers, api_key);
    HttpRequest {
        method: Method::Post,
        url: join_url(base_url, "chat/completions"),
        headers,
        // Serializing these plain structs cannot fail; an empty body would surface as a 400.
        body: Some(serde_json::to_string(&body).unwrap_or_default()),
    }
}

/// `GET {base}/models`.
pub fn models_request(base_url: &str, api_key: Option<&str>) -> HttpRequest {
    let mut headers = vec![("Accept".to_string(), "application/json".to_string())];
    push_auth(&mut headers, api_key);
    HttpRequest {
        method: Method::Get,
        url: join_url(base_url, "models"),
        headers,
        body: None,
    }
}

/// Local servers need no key; sending `Bearer ` with nothing after it makes some proxies
/// answer 401, so a blank key sends no header at all.
fn push_auth(headers: &mut Vec<(String, String)>, api_key: Option<&str>) {
    if let Some(key) = api_key.map(str::trim).filter(|k| !k.is_empty()) {
        headers.push(("Authorization".to_string(), format!("Bearer {key}")));
    }
}

/// Check and normalise a base URL typed by a user: trimmed, `http(s)://` with a host, no
/// query or fragment, no trailing slash. A pasted full endpoint ending in `/chat/completions`
/// is accepted and cut back to its base, since that is the most common paste.
pub fn validate_base_url(s: &str) -> Result<String, ProviderError> {
    let invalid = || ProviderError::InvalidBaseUrl(s.trim().to_string());
    let mut url = s.trim();
    let lower = url.to_ascii_lowercase();
    let scheme_len = if lower.starts_with("https://") {
        8
    } else if lower.starts_with("http://") {
        7
    } else {
        return Err(invalid());
    };
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) || url.contains(['?', '#']) {
        return Err(invalid());
    }
    url = url.trim_end_matches('/');
    let suffix = "/chat/completions";
    // `get` rather than indexing: a non-ASCII URL may not have a char boundary there.
    let cut = url.len().saturating_sub(suffix.len());
    if url
        .get(cut..)
        .is_some_and(|tail| tail.eq_ignore_ascii_case(suffix))
    {
        url = url[..cut].trim_end_matches('/');
    }
    let host = url.get(scheme_len..).unwrap_or("");
    let host = host.split('/').next().unwrap_or("");
    if host.is_empty() || host.starts_with(':') {
        return Err(invalid());
    }
    Ok(url.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msgs() -> Vec<WireMessage> {
        vec![
            WireMessage {
                role: Role::System,
                content: "Be brief.".into(),
            },
            WireMessage {
                role: Role::User,
                content: "Say \"hi\"\nplease".into(),
            },
        ]
    }

    #[test]
    fn chat_request_full() {
        let params = ChatParams {
            model: "gpt-4o-mini".into(),
            temperature: Some(0.7),
            top_p: Some(0.95),
            max_tokens: Some(256),
            ..ChatParams::default()
        };
        let req = chat_request(
            "https://api.openai.com/v1/",
            Some("  sk-test  "),
            &params,
            &msgs(),
        );
        assert_eq!(req.method, Method::Post);
        assert_eq!(req.url, "https://api.openai.com/v1/chat/completions");
        assert_eq!(
            req.headers,
            vec![
                ("Content-Type".to_string(), "application/json".to_string()),
                ("Accept".to_string(), "text/event-stream".to_string()),
                ("Authorization".to_string(), "Bearer sk-test".to_string()),
            ]
        );
        assert_eq!(
            req.body.as_deref(),
            Some(concat!(
                r#"{"model":"gpt-4o-mini","messages":[{"role":"system","content":"Be brief."},"#,
                r#"{"role":"user","content":"Say \"hi\"\nplease"}],"stream":true,"#,
                r#""stream_options":{"include_usage":true},"temperature":0.7,"top_p":0.95,"max_tokens":256}"#
            ))
        );
    }

    #[test]
    fn reasoning_effort_goes_only_when_set() {
        let body = |effort| {
            let params = ChatParams {
                model: "o4-mini".into(),
                reasoning_effort: effort,
                // A thinking budget is another kind's setting: never in this body.
                thinking_budget: Some(4096),
                ..ChatParams::default()
            };
            chat_request("http://h/v1", None, &params, &msgs()[1..])
                .body
                .unwrap()
        };
        assert_eq!(
            body(Some(crate::seam::ReasoningEffort::High)),
            concat!(
                r#"{"model":"o4-mini","messages":[{"role":"user","content":"Say \"hi\"\nplease"}],"#,
                r#""stream":true,"stream_options":{"include_usage":true},"reasoning_effort":"high"}"#
            )
        );
        assert!(!body(None).contains("reasoning"));
    }

    #[test]
    fn chat_request_minimal_omits_model_params_and_auth() {
        let params = ChatParams::default();
        for key in [None, Some(""), Some("   ")] {
            let req = chat_request("http://localhost:8080/v1", key, &params, &msgs()[1..]);
            assert_eq!(req.header("authorization"), None);
            assert_eq!(req.header("accept"), Some("text/event-stream"));
            assert_eq!(
                req.body.as_deref(),
                Some(concat!(
                    r#"{"messages":[{"role":"user","content":"Say \"hi\"\nplease"}],"#,
                    r#""stream":true,"stream_options":{"include_usage":true}}"#
                ))
            );
        }
        let blank_model = ChatParams {
            model: "  ".into(),
            temperature: Some(f32::NAN),
            ..Default::default()
        };
        let req = chat_request("http://h/v1", None, &blank_model, &[]);
        assert_eq!(
            req.body.as_deref(),
            Some(r#"{"messages":[],"stream":true,"stream_options":{"include_usage":true}}"#)
        );
    }

    #[test]
    fn wire_message_drops_reasoning() {
        let mut m = Message::new("m1".into(), Role::Assistant, "answer".into(), 0.0);
        m.reasoning = "thinking".into();
        assert_eq!(
            WireMessage::from(&m),
            WireMessage {
                role: Role::Assistant,
                content: "answer".into()
            }
        );
    }

    #[test]
    fn models_request_shape() {
        let req = models_request("http://localhost:11434/v1/", Some("k"));
        assert_eq!(req.method, Method::Get);
        assert_eq!(req.url, "http://localhost:11434/v1/models");
        assert_eq!(req.body, None);
        assert_eq!(
            req.headers,
            vec![
                ("Accept".to_string(), "application/json".to_string()),
                ("Authorization".to_string(), "Bearer k".to_string()),
            ]
        );
        assert_eq!(
            models_request("http://h", None).header("Authorization"),
            None
        );
    }

    #[test]
    fn base_url_accepts_and_normalises() {
        let ok = |s: &str| validate_base_url(s).unwrap_or_else(|e| panic!("{s}: {e}"));
        assert_eq!(
            ok("  https://api.openai.com/v1/ "),
            "https://api.openai.com/v1"
        );
        assert_eq!(ok("http://localhost:8080/v1"), "http://localhost:8080/v1");
        assert_eq!(ok("http://127.0.0.1:1234"), "http://127.0.0.1:1234");
        assert_eq!(
            ok("HTTPS://openrouter.ai/api/v1//"),
            "HTTPS://openrouter.ai/api/v1"
        );
        assert_eq!(
            ok("http://localhost:8080/v1/chat/completions"),
            "http://localhost:8080/v1"
        );
        assert_eq!(
            ok("https://x.test/v1/Chat/Completions/"),
            "https://x.test/v1"
        );
        assert_eq!(ok("http://[::1]:8080/v1"), "http://[::1]:8080/v1");
        assert_eq!(ok("https://ünï.test/v1é"), "https://ünï.test/v1é");
    }

    #[test]
    fn base_url_rejects() {
        for bad in [
            "",
            "   ",
            "localhost:8080/v1",
            "ftp://host/v1",
            "http://",
            "https:///v1",
            "http://:8080/v1",
            "http://host name/v1",
            "https://host/v1?key=1",
            "https://host/v1#frag",
            "http:///chat/completions",
            "ŋttp://host/v1",
        ] {
            match validate_base_url(bad) {
                Err(ProviderError::InvalidBaseUrl(s)) => assert_eq!(s, bad.trim()),
                other => panic!("{bad:?} gave {other:?}"),
            }
        }
    }
}
