//! JSON-RPC 2.0 envelopes as MCP uses them, and decoders for the MCP payloads Skiff reads.
//!
//! Payload types are our own, in `model` (Tool, CallToolResult, Resource, Prompt, ...); what
//! revision 2026-07-28 adds is read in `types_2026`. The envelope itself is
//! classified here from a `serde_json::Value`, because a client must survive whatever a server
//! sends: decoding never panics, unknown fields are ignored, a batch may mix good and bad
//! entries, and one malformed tool in a list must not hide the others.

use crate::mcp::model::Tool;
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

use super::error::McpError;

pub use crate::mcp::model::RequestId;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;

/// The error member of a JSON-RPC error response.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl From<RpcError> for McpError {
    fn from(e: RpcError) -> Self {
        McpError::Rpc {
            code: e.code,
            message: e.message,
            data: e.data,
        }
    }
}

/// One message received from the server.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Response {
        id: RequestId,
        result: Value,
    },
    /// `id` is `None` when the server could not tell which request failed (e.g. a parse error).
    Error {
        id: Option<RequestId>,
        error: RpcError,
    },
    Request {
        id: RequestId,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
    /// Not a JSON-RPC message; the text says why.
    Invalid(String),
}

/// Parse one transport message: a single JSON-RPC object or a batch array.
pub fn parse_incoming(text: &str) -> Vec<Incoming> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(items)) if items.is_empty() => {
            vec![Incoming::Invalid("an empty batch".into())]
        }
        Ok(Value::Array(items)) => items.into_iter().map(classify).collect(),
        Ok(v) => vec![classify(v)],
        Err(e) => vec![Incoming::Invalid(format!("not JSON: {e}"))],
    }
}

/// Classify one decoded JSON value as a JSON-RPC message.
pub fn classify(value: Value) -> Incoming {
    let Value::Object(mut obj) = value else {
        return Incoming::Invalid("a JSON-RPC message must be an object".into());
    };
    let id = obj.get("id").and_then(RequestId::from_json_value);
    let method = obj
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_string);
    if let Some(method) = method {
        let params = obj.remove("params").unwrap_or(Value::Null);
        return match id {
            Some(id) => Incoming::Request { id, method, params },
            None => Incoming::Notification { method, params },
        };
    }
    if let Some(err) = obj.remove("error") {
        return Incoming::Error {
            id,
            error: parse_rpc_error(&err),
        };
    }
    match (id, obj.remove("result")) {
        (Some(id), Some(result)) => Incoming::Response { id, result },
        (None, Some(_)) => Incoming::Invalid("a result without an id".into()),
        _ => Incoming::Invalid("neither a request, a notification nor a response".into()),
    }
}

/// Read a JSON-RPC error object, tolerating a missing or odd-typed member.
pub fn parse_rpc_error(v: &Value) -> RpcError {
    RpcError {
        code: v
            .get("code")
            .and_then(Value::as_i64)
            .unwrap_or(INTERNAL_ERROR),
        message: v
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("(no message)")
            .to_string(),
        data: v.get("data").cloned(),
    }
}

/// If `text` is a JSON-RPC error response (single, not a batch), its error.
pub fn error_body(text: &str) -> Option<RpcError> {
    match parse_incoming(text).as_slice() {
        [Incoming::Error { error, .. }] => Some(error.clone()),
        _ => None,
    }
}

pub fn id_to_value(id: &RequestId) -> Value {
    id.clone().into_json_value()
}

/// Serialize a request. `params` is omitted when `None`.
pub fn request(id: &RequestId, method: &str, params: Option<Value>) -> String {
    let mut obj = Map::new();
    obj.insert("jsonrpc".into(), json!("2.0"));
    obj.insert("id".into(), id_to_value(id));
    obj.insert("method".into(), json!(method));
    if let Some(p) = params {
        obj.insert("params".into(), p);
    }
    Value::Object(obj).to_string()
}

pub fn notification(method: &str, params: Option<Value>) -> String {
    let mut obj = Map::new();
    obj.insert("jsonrpc".into(), json!("2.0"));
    obj.insert("method".into(), json!(method));
    if let Some(p) = params {
        obj.insert("params".into(), p);
    }
    Value::Object(obj).to_string()
}

pub fn response(id: &RequestId, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id_to_value(id), "result": result}).to_string()
}

pub fn error_response(id: &RequestId, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id_to_value(id), "error": {"code": code, "message": message}})
        .to_string()
}

/// Decode a typed payload, turning a shape error into a protocol error naming `what`.
pub fn decode<T: DeserializeOwned>(value: &Value, what: &str) -> Result<T, McpError> {
    serde_json::from_value(value.clone())
        .map_err(|e| McpError::Protocol(format!("the {what} could not be read: {e}")))
}

/// One page of a `*/list` result: the items that decoded, what was skipped, and the cursor.
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    /// One line per entry that did not decode, so a broken entry is visible, not silent.
    pub skipped: Vec<String>,
    pub next_cursor: Option<String>,
}

/// Decode one page; each entry is decoded on its own.
pub fn decode_page<T: DeserializeOwned>(result: &Value, field: &str) -> Result<Page<T>, McpError> {
    let Some(list) = result.get(field).and_then(Value::as_array) else {
        return Err(McpError::Protocol(format!(
            "the list result has no `{field}` array"
        )));
    };
    let mut items = Vec::with_capacity(list.len());
    let mut skipped = Vec::new();
    for (i, entry) in list.iter().enumerate() {
        match serde_json::from_value::<T>(entry.clone()) {
            Ok(t) => items.push(t),
            Err(e) => {
                let name = entry.get("name").and_then(Value::as_str).unwrap_or("?");
                skipped.push(format!("{field}[{i}] ({name}): {e}"));
            }
        }
    }
    let next_cursor = result
        .get("nextCursor")
        .and_then(Value::as_str)
        .filter(|c| !c.is_empty())
        .map(str::to_string);
    Ok(Page {
        items,
        skipped,
        next_cursor,
    })
}

/// A page whose entries stay JSON (checked by the MCP module that reads them): only objects
/// are kept, so a list of strings or numbers cannot pass for entries.
fn raw_page(result: &Value, field: &str) -> Result<Page<Value>, McpError> {
    let Some(list) = result.get(field).and_then(Value::as_array) else {
        return Err(McpError::Protocol(format!(
            "the list result has no `{field}` array"
        )));
    };
    let (items, odd): (Vec<Value>, Vec<Value>) = list.iter().cloned().partition(Value::is_object);
    Ok(Page {
        items,
        skipped: odd
            .iter()
            .map(|e| format!("{field}: {e} is not an object"))
            .collect(),
        next_cursor: result
            .get("nextCursor")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(str::to_string),
    })
}

/// Which `*/list` method, with its result field and the rmcp type of its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ListKind {
    Tools,
    Resources,
    ResourceTemplates,
    Prompts,
}

impl ListKind {
    pub fn method(self) -> &'static str {
        match self {
            ListKind::Tools => "tools/list",
            ListKind::Resources => "resources/list",
            ListKind::ResourceTemplates => "resources/templates/list",
            ListKind::Prompts => "prompts/list",
        }
    }

    pub fn field(self) -> &'static str {
        match self {
            ListKind::Tools => "tools",
            ListKind::Resources => "resources",
            ListKind::ResourceTemplates => "resourceTemplates",
            ListKind::Prompts => "prompts",
        }
    }
}

/// Items accumulated across pages, typed per list.
#[derive(Debug, Clone, PartialEq)]
/// Tools are typed (the page calls them); resources, templates and prompts stay the server's
/// JSON, which the on-demand MCP surfaces (`mcp::res_ui`) decode: typing them here cost the page their
/// deserializers for lists it never reads.
pub enum ListItems {
    Tools(Vec<Tool>),
    Resources(Vec<Value>),
    ResourceTemplates(Vec<Value>),
    Prompts(Vec<Value>),
}

impl ListItems {
    pub fn empty(kind: ListKind) -> Self {
        match kind {
            ListKind::Tools => ListItems::Tools(Vec::new()),
            ListKind::Resources => ListItems::Resources(Vec::new()),
            ListKind::ResourceTemplates => ListItems::ResourceTemplates(Vec::new()),
            ListKind::Prompts => ListItems::Prompts(Vec::new()),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            ListItems::Tools(v) => v.len(),
            ListItems::Resources(v) => v.len(),
            ListItems::ResourceTemplates(v) => v.len(),
            ListItems::Prompts(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Decode a page into these items; returns the skipped-entry notes and the next cursor.
    pub fn extend_from_page(
        &mut self,
        kind: ListKind,
        result: &Value,
    ) -> Result<(Vec<String>, Option<String>), McpError> {
        let field = kind.field();
        match self {
            ListItems::Tools(v) => take(v, decode_page(result, field)?),
            ListItems::Resources(v) | ListItems::ResourceTemplates(v) | ListItems::Prompts(v) => {
                take(v, raw_page(result, field)?)
            }
        }
    }
}

fn take<T>(into: &mut Vec<T>, page: Page<T>) -> Result<(Vec<String>, Option<String>), McpError> {
    into.extend(page.items);
    Ok((page.skipped, page.next_cursor))
}

/// `notifications/progress` parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressParams {
    pub token: RequestId,
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

pub fn parse_progress(params: &Value) -> Option<ProgressParams> {
    Some(ProgressParams {
        token: params
            .get("progressToken")
            .and_then(RequestId::from_json_value)?,
        progress: params.get("progress").and_then(Value::as_f64)?,
        total: params.get("total").and_then(Value::as_f64),
        message: params
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

/// `notifications/message` (logging) parameters. Read by hand: rmcp marks its logging types
/// deprecated (the feature is deprecated in 2026-07-28) and rejects unknown levels.
#[derive(Debug, Clone, PartialEq)]
pub struct LogParams {
    pub level: String,
    pub logger: Option<String>,
    pub data: Value,
}

pub fn parse_log(params: &Value) -> LogParams {
    LogParams {
        level: params
            .get("level")
            .and_then(Value::as_str)
            .unwrap_or("info")
            .to_string(),
        logger: params
            .get("logger")
            .and_then(Value::as_str)
            .map(str::to_string),
        data: params.get("data").cloned().unwrap_or(Value::Null),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::model::CallToolResult;

    #[test]
    fn classifies_every_shape_and_never_panics() {
        let all = parse_incoming(
            r#"[{"jsonrpc":"2.0","id":1,"result":{}},
                {"jsonrpc":"2.0","id":"a","method":"ping"},
                {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":2}},
                {"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}},
                {"result":{}}, 3, {"jsonrpc":"2.0"}]"#,
        );
        assert!(matches!(
            all[0],
            Incoming::Response {
                id: RequestId::Number(1),
                ..
            }
        ));
        assert!(matches!(&all[1], Incoming::Request { method, .. } if method == "ping"));
        assert!(matches!(&all[2], Incoming::Notification { .. }));
        assert!(
            matches!(&all[3], Incoming::Error { id: None, error } if error.code == PARSE_ERROR)
        );
        assert!(matches!(all[4], Incoming::Invalid(_)));
        assert!(matches!(all[5], Incoming::Invalid(_)));
        assert!(matches!(all[6], Incoming::Invalid(_)));
        for junk in ["", "[]", "{", "null", "\"x\"", "{\"id\":{},\"result\":1}"] {
            assert!(
                matches!(parse_incoming(junk)[0], Incoming::Invalid(_)),
                "{junk}"
            );
        }
    }

    /// Regression (property tests): the envelope read ids with `as_i64`, so an answer whose
    /// id a server's encoder wrote as `1.0` was "a result without an id" and its request
    /// timed out, although `RequestId` itself reads `1.0` as `1`.
    #[test]
    fn an_integral_float_id_is_the_integer_id() {
        let msg = r#"{"jsonrpc":"2.0","id":0.0,"error":{"code":-32602,"message":"m"}}"#;
        assert!(matches!(
            parse_incoming(msg)[0],
            Incoming::Error {
                id: Some(RequestId::Number(0)),
                ..
            }
        ));
        let msg = r#"{"jsonrpc":"2.0","id":3.0,"result":{}}"#;
        assert!(matches!(
            parse_incoming(msg)[0],
            Incoming::Response {
                id: RequestId::Number(3),
                ..
            }
        ));
        // Not an integer, or past 2^53: no id.
        for id in ["1.5", "1e300"] {
            let msg = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{}}}}"#);
            assert!(
                matches!(parse_incoming(&msg)[0], Incoming::Invalid(_)),
                "{id}"
            );
        }
    }

    #[test]
    fn a_broken_tool_does_not_hide_the_others() {
        let result = json!({
            "tools": [
                {"name": "echo", "inputSchema": {"type": "object"}, "unknownField": 1},
                {"name": 42},
                {"name": "add", "description": "adds", "inputSchema": {"type": "object"}}
            ],
            "nextCursor": "p2"
        });
        let page: Page<Tool> = decode_page(&result, "tools").unwrap();
        let names: Vec<_> = page.items.iter().map(|t| t.name.to_string()).collect();
        assert_eq!(names, ["echo", "add"]);
        assert_eq!(page.skipped.len(), 1);
        assert_eq!(page.next_cursor.as_deref(), Some("p2"));
        let empty_cursor = json!({"tools": [], "nextCursor": ""});
        assert_eq!(
            decode_page::<Tool>(&empty_cursor, "tools")
                .unwrap()
                .next_cursor,
            None
        );
        assert!(decode_page::<Tool>(&json!({}), "tools").is_err());
    }

    #[test]
    fn builders_round_trip() {
        let id = RequestId::Number(7);
        let s = request(&id, "tools/call", Some(json!({"name": "x"})));
        assert_eq!(
            parse_incoming(&s),
            vec![Incoming::Request {
                id: id.clone(),
                method: "tools/call".into(),
                params: json!({"name": "x"})
            }]
        );
        let e = error_response(&id, METHOD_NOT_FOUND, "Method not found");
        assert_eq!(error_body(&e).map(|e| e.code), Some(METHOD_NOT_FOUND));
        assert_eq!(
            notification("notifications/initialized", None),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#
        );
    }

    #[test]
    fn tool_results_decode_with_rmcp_types() {
        let r: CallToolResult = decode(
            &json!({"content":[{"type":"text","text":"hi"}],"isError":true,"resultType":"complete"}),
            "tool result",
        )
        .unwrap();
        assert_eq!(r.is_error, Some(true));
        assert!(
            decode::<CallToolResult>(&json!({"resultType":"input_required"}), "tool result")
                .is_err()
        );
    }
}
