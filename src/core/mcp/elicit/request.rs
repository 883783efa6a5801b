//! `elicitation/create` params in, `{action, content}` out.

use serde_json::{json, Map, Value};

use super::form::FormModel;
use super::url::UrlAsk;

#[derive(Debug, Clone, PartialEq)]
pub enum ElicitKind {
    Form(FormModel),
    Url(UrlAsk),
}

/// One question a server asks, ready to show.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitRequest {
    /// The server's message (untrusted text: render as text).
    pub message: String,
    pub kind: ElicitKind,
}

/// The three answers the spec defines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElicitAction {
    Accept,
    Decline,
    Cancel,
}

impl ElicitAction {
    pub fn as_str(self) -> &'static str {
        match self {
            ElicitAction::Accept => "accept",
            ElicitAction::Decline => "decline",
            ElicitAction::Cancel => "cancel",
        }
    }
}

/// The user's answer: `content` only with a form accepted.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitAnswer {
    pub action: ElicitAction,
    pub content: Option<Map<String, Value>>,
}

impl ElicitAnswer {
    pub fn accept(content: Option<Map<String, Value>>) -> Self {
        ElicitAnswer {
            action: ElicitAction::Accept,
            content,
        }
    }

    pub fn decline() -> Self {
        ElicitAnswer {
            action: ElicitAction::Decline,
            content: None,
        }
    }

    pub fn cancel() -> Self {
        ElicitAnswer {
            action: ElicitAction::Cancel,
            content: None,
        }
    }

    /// The JSON-RPC result.
    pub fn to_result(&self) -> Value {
        let mut r = json!({ "action": self.action.as_str() });
        if let (ElicitAction::Accept, Some(c)) = (self.action, &self.content) {
            r["content"] = Value::Object(c.clone());
        }
        r
    }
}

/// Read `elicitation/create` params. `mode` absent means form (the 2025-06-18 shape).
pub fn parse_create(params: &Value) -> Result<ElicitRequest, String> {
    let message = params
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let mode = params.get("mode").and_then(Value::as_str).unwrap_or("form");
    let kind = match mode {
        "form" => {
            let schema = params
                .get("requestedSchema")
                .cloned()
                .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
            ElicitKind::Form(FormModel::from_schema(&schema)?)
        }
        "url" => {
            let url = params
                .get("url")
                .and_then(Value::as_str)
                .ok_or("a URL-mode request has no `url`")?;
            let id = params
                .get("elicitationId")
                .and_then(Value::as_str)
                .unwrap_or("");
            ElicitKind::Url(UrlAsk::new(url, id).map_err(|r| r.to_string())?)
        }
        other => return Err(format!("the mode `{other}` is not one Skiff knows")),
    };
    Ok(ElicitRequest { message, kind })
}
