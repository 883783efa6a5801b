//! What a tool call looks like once it is part of a conversation: the stored record the UI
//! renders as a card, the agent machine updates, and the wire builders turn back into what the
//! model receives. Plain data (serde), so a reload shows the whole exchange.
//!
//! The raw MCP result is kept whole for the user; what the model receives is derived from it
//! when a request is built (`result::for_model`), with the truncation limit in force then.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How tool calls travel in one model request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolMode {
    /// The provider's own function calling (`tools` in the request, `tool_calls` back).
    Native,
    /// Tools described in the system prompt; calls are fenced ```` ```json:mcp:{server} ````
    /// blocks in the answer, results go back as ```` ```json:mcp-response:{server} ```` blocks.
    Prompt,
    /// No tools are offered.
    Off,
}

/// The user's choice per model; `Auto` tries native and falls back to prompt-based when the
/// provider rejects `tools` (the result is remembered per model).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolModeSetting {
    #[default]
    Auto,
    Native,
    Prompt,
    Off,
}

/// Where one call stands. Final states: `Done`, `Error`, `Cancelled`, `Denied`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum ToolCallStatus {
    /// Parsed from the model's answer; nothing decided yet.
    Pending,
    /// Waiting for the user to allow or deny it.
    AwaitingApproval,
    /// Sent to the server.
    Running,
    /// The server answered (the result may still be `isError: true`, see `ToolCallRecord::is_error`).
    Done,
    /// It could not run or failed: the sentence says why (invalid arguments, unknown tool,
    /// server unreachable, JSON-RPC error). Passed to the model so it can correct itself.
    Error(String),
    /// Stopped by the user (or the page) before it finished.
    Cancelled,
    /// The user (or a "never" rule) refused it.
    Denied,
}

impl ToolCallStatus {
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            ToolCallStatus::Done
                | ToolCallStatus::Error(_)
                | ToolCallStatus::Cancelled
                | ToolCallStatus::Denied
        )
    }
}

/// Latest `notifications/progress` of a running call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolProgress {
    pub progress: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// One tool call inside an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRecord {
    /// The provider's call id (native), or one Skiff made (prompt-based: `mcp-<step>-<n>`).
    pub id: String,
    /// The name the model used (the tool index's exposed name, or whatever it invented).
    pub name: String,
    /// The server that serves it; `None` when the model named a tool no server has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_id: Option<String>,
    /// The server's display name at the time of the call (the card shows it after a removal).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub server_name: String,
    /// The tool's own name on its server (what `tools/call` sends).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tool_name: String,
    /// The arguments exactly as the model wrote them (a JSON object's text, or not JSON at all).
    pub arguments: String,
    pub status: ToolCallStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<ToolProgress>,
    /// The raw `CallToolResult` JSON, shown in full to the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
}

impl ToolCallRecord {
    pub fn new(id: String, name: String, arguments: String) -> Self {
        ToolCallRecord {
            id,
            name,
            server_id: None,
            server_name: String::new(),
            tool_name: String::new(),
            arguments,
            status: ToolCallStatus::Pending,
            started_ms: None,
            ended_ms: None,
            progress: None,
            result: None,
        }
    }

    /// The server answered with `isError: true`.
    pub fn is_error(&self) -> bool {
        matches!(self.status, ToolCallStatus::Error(_))
            || self
                .result
                .as_ref()
                .and_then(|r| r.get("isError"))
                .and_then(Value::as_bool)
                .unwrap_or(false)
    }

    /// Milliseconds from start to end, once both are known.
    pub fn duration_ms(&self) -> Option<f64> {
        Some(self.ended_ms? - self.started_ms?).filter(|d| *d >= 0.0)
    }
}

crate::display::names::named_enum!(ToolMode, "tool mode", {
    Native => "native",
    Prompt => "prompt",
    Off => "off",
});

impl ToolMode {
    /// How a sentence names the mode: "Auto found that llama works with {label}."
    pub fn label(self) -> &'static str {
        match self {
            ToolMode::Native => "native function calling",
            ToolMode::Prompt => "prompt-based tools",
            ToolMode::Off => "no tools",
        }
    }
}

crate::display::names::named_enum!(ToolModeSetting, "tool mode", {
    Auto => "auto",
    Native => "native",
    Prompt => "prompt",
    Off => "off",
});

impl ToolModeSetting {
    /// What the tool-mode `<select>` says.
    pub fn label(self) -> &'static str {
        match self {
            ToolModeSetting::Auto => "Auto (native, falling back to prompt-based)",
            ToolModeSetting::Native => "Native function calling",
            ToolModeSetting::Prompt => "Prompt-based (for models without tool support)",
            ToolModeSetting::Off => "Off",
        }
    }
}

impl ToolCallStatus {
    /// The status's stored name (`kind`), also its name in the page.
    pub fn as_str(&self) -> &'static str {
        match self {
            ToolCallStatus::Pending => "pending",
            ToolCallStatus::AwaitingApproval => "awaiting_approval",
            ToolCallStatus::Running => "running",
            ToolCallStatus::Done => "done",
            ToolCallStatus::Error(_) => "error",
            ToolCallStatus::Cancelled => "cancelled",
            ToolCallStatus::Denied => "denied",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn record_round_trips_and_omits_empty_fields() {
        let mut r =
            ToolCallRecord::new("call_1".into(), "echo".into(), r#"{"message":"hi"}"#.into());
        let j = serde_json::to_string(&r).unwrap();
        assert_eq!(
            j,
            r#"{"id":"call_1","name":"echo","arguments":"{\"message\":\"hi\"}","status":{"kind":"pending"}}"#
        );
        r.status = ToolCallStatus::Error("bad".into());
        r.result = Some(json!({"content": [], "isError": true}));
        let back: ToolCallRecord =
            serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back, r);
        assert!(back.is_error());
    }

    #[test]
    fn is_error_reads_the_result_flag() {
        let mut r = ToolCallRecord::new("c".into(), "t".into(), "{}".into());
        r.status = ToolCallStatus::Done;
        r.result = Some(json!({"content": [{"type": "text", "text": "x"}]}));
        assert!(!r.is_error());
        r.result = Some(json!({"content": [], "isError": true}));
        assert!(r.is_error());
        r.started_ms = Some(10.0);
        r.ended_ms = Some(35.0);
        assert_eq!(r.duration_ms(), Some(25.0));
    }
}

#[cfg(test)]
mod name_tests {
    use super::*;

    #[test]
    fn status_names_are_the_stored_kinds() {
        for s in [
            ToolCallStatus::Pending,
            ToolCallStatus::AwaitingApproval,
            ToolCallStatus::Running,
            ToolCallStatus::Done,
            ToolCallStatus::Error("x".into()),
            ToolCallStatus::Cancelled,
            ToolCallStatus::Denied,
        ] {
            assert_eq!(serde_json::to_value(&s).unwrap()["kind"], s.as_str());
        }
        for m in ToolMode::ALL {
            assert_eq!(serde_json::to_value(m).unwrap(), m.as_str());
        }
    }
}
