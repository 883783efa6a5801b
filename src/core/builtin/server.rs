//! The built-in tools as a JSON-RPC MCP server: messages in, messages out.
//!
//! It exists so the built-in tools reach the model through the very code path remote servers
//! use (`McpSession` over the in-page transport): the handshake, the tool index, approvals,
//! cancellation and the settings page's "try" form all treat it as one more server, and a bug
//! in that path shows up here too instead of hiding behind a shortcut.
//!
//! It speaks the legacy era only (the in-page session runs `legacy_only`): `initialize`,
//! `notifications/initialized`, `ping`, `tools/list`, `tools/call`. Errors follow JSON-RPC 2.0
//! (-32700 for unparsable JSON, -32600 for a malformed request, -32601 for unknown methods,
//! -32602 for bad params and unknown tools); a tool's bad arguments are an `isError` result,
//! as MCP asks, so the model can correct itself. It never reads the clock: the page passes
//! `now_ms` and its time-zone offset with each message.

use serde_json::{json, Map, Value};

use super::memory::MemoryBook;
use super::tools::{self, Clock, Features};
use crate::mcp::era::LEGACY_VERSIONS;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;

pub const SERVER_NAME: &str = "skiff-builtin";
pub const SERVER_TITLE: &str = "Built-in tools";

const INSTRUCTIONS: &str = "Tools built into Skiff, running in the page with no server. The memory tools keep short notes in this browser across conversations: search them before answering anything that may depend on what the user said before, save durable facts and preferences the user shares (one fact per memory), and delete what the user asks you to forget. current_time gives the user's local date and time.";

/// What one message produced.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Handled {
    /// Serialized JSON-RPC messages to send back (none for a notification).
    pub replies: Vec<String>,
    /// The book was changed and should be saved.
    pub book_changed: bool,
}

/// Protocol state of one connection. The book is not kept here but passed with each message,
/// so edits made elsewhere (Settings, another tab) are seen by the very next call.
#[derive(Debug, Clone, Default)]
pub struct BuiltinServer {
    version: Option<String>,
}

fn reply_ok(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn reply_err(id: Value, code: i64, message: impl Into<String>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
}

impl BuiltinServer {
    pub fn new() -> Self {
        Self::default()
    }

    /// The version agreed in `initialize`, if it happened.
    pub fn protocol_version(&self) -> Option<&str> {
        self.version.as_deref()
    }

    fn features(&self) -> Features {
        self.version
            .as_deref()
            .map(Features::for_version)
            .unwrap_or(Features::ALL)
    }

    /// Handle one serialized JSON-RPC message (or batch) from the client.
    pub fn handle(
        &mut self,
        message_json: &str,
        book: &mut MemoryBook,
        now_ms: f64,
        tz_offset_minutes: i32,
    ) -> Handled {
        let clock = Clock {
            now_ms,
            tz_offset_minutes,
        };
        let mut out = Handled::default();
        let message: Value = match serde_json::from_str(message_json) {
            Ok(v) => v,
            Err(e) => {
                let reply = reply_err(Value::Null, PARSE_ERROR, format!("Parse error: {e}"));
                out.replies.push(reply.to_string());
                return out;
            }
        };
        let reply = match message {
            // JSON-RPC 2.0 batches (MCP 2025-03-26 allowed them): one array of replies.
            Value::Array(items) if items.is_empty() => Some(reply_err(
                Value::Null,
                INVALID_REQUEST,
                "Invalid request: an empty batch",
            )),
            Value::Array(items) => {
                let replies: Vec<Value> = items
                    .into_iter()
                    .filter_map(|m| self.one(m, book, clock, &mut out.book_changed))
                    .collect();
                (!replies.is_empty()).then_some(Value::Array(replies))
            }
            other => self.one(other, book, clock, &mut out.book_changed),
        };
        out.replies.extend(reply.map(|r| r.to_string()));
        out
    }

    /// One message; `None` when nothing is to be sent back (notifications, responses).
    fn one(
        &mut self,
        message: Value,
        book: &mut MemoryBook,
        clock: Clock,
        changed: &mut bool,
    ) -> Option<Value> {
        let Value::Object(msg) = message else {
            return Some(reply_err(
                Value::Null,
                INVALID_REQUEST,
                "Invalid request: not a JSON object",
            ));
        };
        let id = match msg.get("id") {
            None => None,
            Some(v @ (Value::String(_) | Value::Number(_))) => Some(v.clone()),
            Some(_) => {
                return Some(reply_err(
                    Value::Null,
                    INVALID_REQUEST,
                    "Invalid request: the id must be a string or a number",
                ))
            }
        };
        if msg.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Some(reply_err(
                id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "Invalid request: jsonrpc must be \"2.0\"",
            ));
        }
        let Some(method) = msg.get("method").and_then(Value::as_str) else {
            // A response to a request of ours: this server sends none, so there is nothing
            // to match it with.
            if id.is_some() && (msg.contains_key("result") || msg.contains_key("error")) {
                return None;
            }
            return Some(reply_err(
                id.unwrap_or(Value::Null),
                INVALID_REQUEST,
                "Invalid request: no method",
            ));
        };
        // Notifications (initialized, cancelled, …) need no answer; calls finish within the
        // message that started them, so there is nothing to cancel.
        let id = id?;
        let params = match msg.get("params") {
            None | Some(Value::Null) => None,
            Some(Value::Object(p)) => Some(p),
            Some(_) => {
                return Some(reply_err(
                    id,
                    INVALID_PARAMS,
                    "Invalid params: params must be an object",
                ))
            }
        };
        let result = match method {
            "initialize" => Ok(self.initialize(params)),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({"tools": tools::list(self.features())})),
            "tools/call" => self.call(params, book, clock, changed),
            other => Err((METHOD_NOT_FOUND, format!("Method not found: {other}"))),
        };
        Some(match result {
            Ok(result) => reply_ok(id, result),
            Err((code, message)) => reply_err(id, code, message),
        })
    }

    fn initialize(&mut self, params: Option<&Map<String, Value>>) -> Value {
        let asked = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str);
        // Answer with the client's version when we speak it, else our latest (the spec's
        // rule; the client then decides whether it can go on).
        let version = asked
            .filter(|v| LEGACY_VERSIONS.contains(v))
            .unwrap_or(LEGACY_VERSIONS[0])
            .to_string();
        self.version = Some(version.clone());
        json!({
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": {
                "name": SERVER_NAME,
                "title": SERVER_TITLE,
                "version": env!("CARGO_PKG_VERSION"),
            },
            "instructions": INSTRUCTIONS,
        })
    }

    fn call(
        &self,
        params: Option<&Map<String, Value>>,
        book: &mut MemoryBook,
        clock: Clock,
        changed: &mut bool,
    ) -> Result<Value, (i64, String)> {
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            return Err((
                INVALID_PARAMS,
                "Invalid params: tools/call needs the tool's name".to_string(),
            ));
        };
        let empty = Map::new();
        let args = match params.and_then(|p| p.get("arguments")) {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(a)) => a,
            Some(_) => {
                return Ok(self.tool_result(Err("The arguments must be a JSON object.".to_string())))
            }
        };
        let Some(outcome) = tools::call(name, args, book, clock) else {
            return Err((INVALID_PARAMS, format!("Unknown tool: {name}")));
        };
        *changed |= outcome.book_changed;
        Ok(self.tool_result(outcome.result))
    }

    fn tool_result(&self, result: Result<tools::Success, String>) -> Value {
        match result {
            Ok(s) => {
                let mut r = json!({
                    "content": [{"type": "text", "text": s.text}],
                    "isError": false,
                });
                if self.features().structured {
                    r["structuredContent"] = s.structured;
                }
                r
            }
            Err(sentence) => json!({
                "content": [{"type": "text", "text": sentence}],
                "isError": true,
            }),
        }
    }
}
