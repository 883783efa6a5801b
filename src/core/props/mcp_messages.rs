//! MCP JSON-RPC parsing and the session that acts on it, on generated messages: arbitrary
//! text, arbitrary JSON trees, and real message shapes with wrong-typed or missing members,
//! fed to an `McpSession` in each phase a test can reach in a few messages. Nothing panics,
//! everything the session sends is a JSON-RPC object, and its deadlines stay numbers.

use std::collections::HashSet;

use proptest::prelude::*;
use serde_json::{json, Map, Value};

use super::json_gen::{shaped, value};
use super::{config, json_gen, sample};
use crate::mcp::messages::{classify, parse_incoming, Incoming};
use crate::mcp::{McpSession, Output, RequestId, SessionConfig, SessionEvent};

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
    r#"{"tools":[{"name":"echo","inputSchema":{"type":"object"}},{"name":42}]}"#,
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
        1 => (0i64..12).prop_map(|n| Value::from(n as f64)),
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

/// A well-formed answer to one of the first requests a session sends, with a result of a
/// shape the session decodes (mutated): what gets past the envelope into the session.
fn answer() -> impl Strategy<Value = Value> {
    ((1i64..8), shaped(PAYLOADS))
        .prop_map(|(id, result)| json!({"jsonrpc": "2.0", "id": id, "result": result}))
}

/// Text as a transport hands it over: a message, a batch, any JSON, nesting deeper than the
/// parser allows, numbers too big for any integer type, or not JSON at all.
pub(super) fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => message().prop_map(|v| v.to_string()),
        4 => answer().prop_map(|v| v.to_string()),
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

/// A session and what it has done: the ids of every request it sent, and every event.
struct Harness {
    s: McpSession,
    asked: HashSet<RequestId>,
    events: Vec<SessionEvent>,
}

impl Harness {
    /// Takes the session's outputs; fails if it sends anything but a JSON-RPC object, or
    /// reports an answer or progress for a request it never sent.
    fn drain(&mut self) -> Result<Vec<Value>, TestCaseError> {
        let mut sent = Vec::new();
        while let Some(o) = self.s.poll_output() {
            match o {
                Output::Send(body, _) => {
                    let v: Value = serde_json::from_str(&body).map_err(|e| {
                        TestCaseError::fail(format!("sent invalid JSON ({e}): {body}"))
                    })?;
                    prop_assert_eq!(v.get("jsonrpc"), Some(&json!("2.0")), "sent {}", body);
                    if let (Some(id), Some(_)) = (v.get("id"), v.get("method")) {
                        let id = serde_json::from_value(id.clone()).map_err(|e| {
                            TestCaseError::fail(format!("sent an odd id ({e}): {body}"))
                        })?;
                        self.asked.insert(id);
                    }
                    sent.push(v);
                }
                Output::Abort(_) => {}
                Output::Event(e) => {
                    match &e {
                        SessionEvent::Response { id, .. } => {
                            prop_assert!(self.asked.contains(id), "answer to unsent {:?}", id)
                        }
                        SessionEvent::Progress { id, progress, .. } => {
                            prop_assert!(self.asked.contains(id), "progress of unsent {:?}", id);
                            prop_assert!(progress.is_finite());
                        }
                        _ => {}
                    }
                    self.events.push(e);
                }
            }
        }
        Ok(sent)
    }
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

fn session_at(start: Start) -> Result<Harness, TestCaseError> {
    let now = 1_000.0;
    let mut h = Harness {
        s: McpSession::new(session_config(matches!(start, Start::Initializing))),
        asked: HashSet::new(),
        events: Vec::new(),
    };
    match start {
        Start::Idle => {}
        Start::Discovering | Start::Initializing => h.s.connect(now),
        Start::ReadyModern => {
            h.s.connect(now);
            let probe = id_of(&h.drain()?, "server/discover");
            let discovered = serde_json::from_str(PAYLOADS[0]).unwrap_or_default();
            h.s.handle_message(&reply(&probe, discovered), now);
            prop_assert!(h.s.phase().is_ready(), "{:?}", h.s.phase());
            h.s.call_tool("echo", None, true, now);
        }
        Start::ReadyLegacy | Start::Closed => {
            h.s.connect(now);
            let probe = id_of(&h.drain()?, "server/discover");
            let refused = json!({"jsonrpc": "2.0", "id": probe,
                "error": {"code": -32000, "message": "Bad Request: Server not initialized"}});
            h.s.handle_message(&refused.to_string(), now);
            let init = id_of(&h.drain()?, "initialize");
            let initialized = serde_json::from_str(PAYLOADS[1]).unwrap_or_default();
            h.s.handle_message(&reply(&init, initialized), now);
            prop_assert!(h.s.phase().is_ready(), "{:?}", h.s.phase());
            h.s.call_tool("echo", None, true, now);
            h.s.read_resource("file:///a", now);
            if let Start::Closed = start {
                h.s.close(now);
            }
        }
    }
    h.drain()?;
    h.events.clear();
    Ok(h)
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

    /// The envelope reads an id as the id type itself does (`1.0` is `1`), so an answer
    /// is matched to its request whatever the server's JSON encoder did with the number.
    #[test]
    fn messages_read_ids_as_request_ids_do(v in message()) {
        let expected = v.get("id").and_then(RequestId::from_json_value);
        let got = match classify(v) {
            Incoming::Response { id, .. } | Incoming::Request { id, .. } => Some(id),
            Incoming::Error { id, .. } => id,
            Incoming::Notification { .. } | Incoming::Invalid(_) => return Ok(()),
        };
        prop_assert_eq!(got, expected);
    }

    /// A session in any reachable phase, handed a run of generated messages, with the
    /// clock moving and timers firing in between.
    #[test]
    fn a_session_survives_any_messages(start in start(), steps in steps()) {
        run_session(start, &steps)?;
    }
}

type Step = (String, u32, bool);

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec((text(), 0u32..3_000, any::<bool>()), 1..8)
}

/// Feeds `steps` to a session that starts at `start`, the clock moving and timers firing in
/// between; returns the events it reported.
fn run_session(start: Start, steps: &[Step]) -> Result<Vec<SessionEvent>, TestCaseError> {
    let mut h = session_at(start)?;
    let mut now = 1_000.0;
    for (text, wait, timeout) in steps {
        now += f64::from(*wait);
        h.s.handle_message(text, now);
        h.drain()?;
        if *timeout {
            if let Some(at) = h.s.next_deadline() {
                prop_assert!(at.is_finite(), "deadline {} after {:?}", at, text);
                now = now.max(at);
                h.s.handle_timeout(now);
                h.drain()?;
            }
        }
        let _ = h.s.tool_calls_in_flight();
    }
    if let Some(at) = h.s.next_deadline() {
        prop_assert!(at.is_finite(), "deadline {}", at);
    }
    Ok(h.events)
}

#[test]
fn generated_messages_reach_every_kind_of_event() {
    let mut seen = std::collections::BTreeSet::new();
    for (start, steps) in sample((start(), steps()), 600) {
        let events = run_session(start, &steps).unwrap_or_else(|e| panic!("{e}"));
        for e in events {
            let name = format!("{e:?}");
            seen.insert(name.split(['(', ' ', '{']).next().unwrap_or("").to_string());
        }
    }
    for name in [
        "StateChanged",
        "ToolsListed",
        "ListFailed",
        "ListEntriesSkipped",
        "Response",
        "Progress",
        "Log",
        "Notice",
    ] {
        assert!(seen.contains(name), "no {name} in {seen:?}");
    }
}

#[test]
fn generated_messages_are_of_every_kind() {
    let mut seen = std::collections::BTreeSet::new();
    for m in sample(message(), 300) {
        let name = format!("{:?}", classify(m));
        seen.insert(name.split(['(', ' ', '{']).next().unwrap_or("").to_string());
    }
    assert_eq!(seen.len(), 5, "{seen:?}");
}
