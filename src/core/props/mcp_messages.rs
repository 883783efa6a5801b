//! MCP JSON-RPC parsing and the session that acts on it, on generated messages: arbitrary
//! text, arbitrary JSON trees, and real message shapes with wrong-typed or missing members,
//! fed to an `McpSession` in each phase a test can reach in a few messages. Nothing panics,
//! everything the session sends is a JSON-RPC object, and its deadlines stay numbers.

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use super::json_gen::{shaped, value};
use super::{config, json_gen};
use crate::mcp::messages::{classify, parse_incoming, Incoming};
use crate::mcp::{McpSession, Output, SessionConfig};

/// Methods a server sends or answers, and a few it should not.
const METHODS: &[&str] = &[
    "ping",
    "initialize",
    "server/discover",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "roots/list",
    "sampling/createMessage",
    "elicitation/create",
    "notifications/progress",
    "notifications/message",
    "notifications/cancelled",
    "notifications/tools/list_changed",
    "notifications/resources/list_changed",
    "notifications/prompts/list_changed",
    "notifications/initialized",
    "",
    "nope/unknown",
];

/// Results and params shaped like the ones the session decodes.
const PAYLOADS: &[&str] = &[
    r#"{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{"listChanged":true},"resources":{},"prompts":{}},"serverInfo":{"name":"s","version":"1"},"instructions":"be nice"}"#,
    r#"{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true},"prompts":{},"logging":{}},"serverInfo":{"name":"s","version":"1"}}"#,
    r#"{"tools":[{"name":"echo","description":"d","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}},{"name":"add","inputSchema":{"type":"object"}}],"nextCursor":"c2"}"#,
    r#"{"resources":[{"uri":"file:///a","name":"a","mimeType":"text/plain"}],"nextCursor":null}"#,
    r#"{"resourceTemplates":[{"uriTemplate":"file:///{x}","name":"t"}]}"#,
    r#"{"prompts":[{"name":"p","arguments":[{"name":"x","required":true}]}]}"#,
    r#"{"content":[{"type":"text","text":"hi"},{"type":"image","data":"AAAA","mimeType":"image/png"}],"structuredContent":{"a":1},"isError":false}"#,
    r#"{"resultType":"input_required","inputRequests":{}}"#,
    r#"{"progressToken":3,"progress":0.5,"total":1,"message":"half"}"#,
    r#"{"level":"error","logger":"l","data":{"x":1}}"#,
    r#"{"requestId":3,"reason":"why"}"#,
    r#"{"code":-32602,"message":"Unsupported protocol version","data":{"supported":["2025-11-25"],"requested":"2026-07-28"}}"#,
    r#"{"code":-32000,"message":"Bad Request: Server not initialized"}"#,
    r#"{}"#,
];

/// An id that may match a pending request (the session numbers them from 1), or be of a
/// type JSON-RPC forbids.
fn id() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => (0i64..12).prop_map(Value::from),
        1 => prop::sample::select(vec!["1", "2", "abc", ""]).prop_map(Value::from),
        1 => json_gen::leaf(),
    ]
}

fn payload() -> impl Strategy<Value = Value> {
    prop_oneof![3 => shaped(PAYLOADS), 1 => value(3)]
}

/// A message with any subset of the JSON-RPC members, each of a fitting or a wrong type.
fn message() -> impl Strategy<Value = Value> {
    let method = prop_oneof![
        4 => prop::sample::select(METHODS).prop_map(Value::from),
        1 => json_gen::leaf(),
    ];
    (
        prop::option::weighted(0.9, Just(json!("2.0"))),
        prop::option::weighted(0.8, id()),
        prop::option::weighted(0.5, method),
        prop::option::weighted(0.5, payload()),
        prop::option::weighted(0.5, payload()),
        prop::option::weighted(0.2, payload()),
    )
        .prop_map(|(jsonrpc, id, method, params, result, error)| {
            let mut m = Map::new();
            for (k, v) in [
                ("jsonrpc", jsonrpc),
                ("id", id),
                ("method", method),
                ("params", params),
                ("result", result),
                ("error", error),
            ] {
                if let Some(v) = v {
                    m.insert(k.into(), v);
                }
            }
            Value::Object(m)
        })
}

/// Text as a transport hands it over: a message, a batch, any JSON, nesting deeper than the
/// parser allows, numbers too big for any integer type, or not JSON at all.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => message().prop_map(|v| v.to_string()),
        2 => prop::collection::vec(message(), 0..4).prop_map(|v| Value::Array(v).to_string()),
        1 => value(4).prop_map(|v| v.to_string()),
        1 => any::<String>(),
        1 => (0usize..300).prop_map(|n| format!("{}{}", "[".repeat(n), "]".repeat(n))),
        1 => (0usize..300).prop_map(|n| format!("{}1{}", "{\"id\":".repeat(n), "}".repeat(n))),
        1 => prop::sample::select(vec![
            r#"{"jsonrpc":"2.0","id":1e999,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":-0,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1.0,"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"result":{}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1e308,"total":-1e308}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":1e400,"message":5}}"#,
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":99999999999999999999,"message":"x"}}"#,
        ])
        .prop_map(str::to_string),
    ]
}

fn session_config(legacy_only: bool) -> SessionConfig {
    SessionConfig {
        request_timeout_ms: 5_000.0,
        max_list_pages: 5,
        legacy_only,
        ..SessionConfig::default()
    }
}

/// Outputs so far; panics (failing the property) if the session sends anything but a
/// JSON-RPC object.
fn drain(s: &mut McpSession) -> Vec<Value> {
    let mut sent = Vec::new();
    while let Some(o) = s.poll_output() {
        if let Output::Send(body, _) = o {
            let v: Value = serde_json::from_str(&body)
                .unwrap_or_else(|e| panic!("the session sent invalid JSON ({e}): {body}"));
            assert_eq!(v.get("jsonrpc"), Some(&json!("2.0")), "sent {body}");
            sent.push(v);
        }
    }
    sent
}

fn id_of(sent: &[Value], method: &str) -> Value {
    sent.iter()
        .rev()
        .find(|v| v["method"] == method)
        .map(|v| v["id"].clone())
        .unwrap_or_else(|| panic!("no {method} in {sent:?}"))
}

fn reply(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

/// Where a session can be after a few scripted messages.
#[derive(Debug, Clone, Copy)]
enum Start {
    Idle,
    Discovering,
    Initializing,
    ReadyModern,
    ReadyLegacy,
    Closed,
}

fn session_at(start: Start) -> McpSession {
    let now = 1_000.0;
    let mut s = McpSession::new(session_config(matches!(start, Start::Initializing)));
    match start {
        Start::Idle => {}
        Start::Discovering | Start::Initializing => s.connect(now),
        Start::ReadyModern => {
            s.connect(now);
            let probe = id_of(&drain(&mut s), "server/discover");
            s.handle_message(
                &reply(
                    &probe,
                    serde_json::from_str(PAYLOADS[0]).unwrap_or_default(),
                ),
                now,
            );
            assert!(s.phase().is_ready(), "{:?}", s.phase());
            s.call_tool("echo", None, true, now);
        }
        Start::ReadyLegacy | Start::Closed => {
            s.connect(now);
            let probe = id_of(&drain(&mut s), "server/discover");
            let refused = json!({"jsonrpc": "2.0", "id": probe,
                "error": {"code": -32000, "message": "Bad Request: Server not initialized"}});
            s.handle_message(&refused.to_string(), now);
            let init = id_of(&drain(&mut s), "initialize");
            s.handle_message(
                &reply(&init, serde_json::from_str(PAYLOADS[1]).unwrap_or_default()),
                now,
            );
            assert!(s.phase().is_ready(), "{:?}", s.phase());
            s.call_tool("echo", None, true, now);
            s.read_resource("file:///a", now);
            if let Start::Closed = start {
                s.close(now);
            }
        }
    }
    drain(&mut s);
    s
}

fn start() -> impl Strategy<Value = Start> {
    prop::sample::select(vec![
        Start::Idle,
        Start::Discovering,
        Start::Initializing,
        Start::ReadyModern,
        Start::ReadyLegacy,
        Start::Closed,
    ])
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn parsing_any_text_never_panics(text in text()) {
        let parsed = parse_incoming(&text);
        prop_assert!(!parsed.is_empty());
    }

    #[test]
    fn classifying_any_value_never_panics(v in prop_oneof![message(), value(4)]) {
        let was_object = v.is_object();
        let c = classify(v);
        if !was_object {
            prop_assert!(matches!(c, Incoming::Invalid(_)));
        }
    }

    /// A session in any reachable phase, handed a run of generated messages, with the
    /// clock moving and timers firing in between.
    #[test]
    fn a_session_survives_any_messages(
        start in start(),
        steps in prop::collection::vec((text(), 0u32..3_000, any::<bool>()), 1..8),
    ) {
        let mut s = session_at(start);
        let mut now = 1_000.0;
        for (text, wait, timeout) in &steps {
            now += f64::from(*wait);
            s.handle_message(text, now);
            drain(&mut s);
            if *timeout {
                if let Some(at) = s.next_deadline() {
                    prop_assert!(at.is_finite(), "deadline {} after {:?}", at, text);
                    now = now.max(at);
                    s.handle_timeout(now);
                    drain(&mut s);
                }
            }
            let _ = s.tool_calls_in_flight();
        }
        if let Some(at) = s.next_deadline() {
            prop_assert!(at.is_finite(), "deadline {}", at);
        }
    }
}
