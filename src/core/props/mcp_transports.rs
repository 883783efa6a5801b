//! The MCP HTTP transports on generated response bodies: whatever a server streams back,
//! split anywhere, the Streamable HTTP and HTTP+SSE transports never panic and hand the
//! session the same messages, failures and follow-up requests as for the body in one piece.

use proptest::prelude::*;

use super::mcp_messages::text;
use super::{bytes_from, chunk, config, cuts, sample};
use crate::mcp::era::Era;
use crate::mcp::http_common::{HttpAction, HttpTarget, Token};
use crate::mcp::legacy_sse::{resolve_url, LegacySse};
use crate::mcp::streamable_http::StreamableHttp;
use crate::mcp::{RequestId, SendKind, SendMeta};

const URL: &str = "http://127.0.0.1:3001/mcp";

const NOISE: &[&str] = &[
    "\n",
    "\r\n",
    "\r",
    "\n\n",
    ":",
    " ",
    "data:",
    "data: ",
    "event: message\n",
    "id: 7\n",
    "retry: 10\n",
    "retry: 99999999999999999999\n",
    "{",
    "}",
    "é",
    "\u{FEFF}",
];

const ENDPOINTS: &[&str] = &[
    "/messages?session=1",
    "messages",
    "?s=2",
    "http://127.0.0.1:3001/m",
    "//evil.example/x",
    "javascript:alert(1)",
    "",
    " ",
    "http://[::1",
    "../../../x",
    "é😊",
];

/// An SSE body of JSON-RPC messages (and endpoint announcements), with ids, retries and
/// noise between them.
fn sse_body() -> impl Strategy<Value = Vec<u8>> {
    let message = (
        prop::option::of(0u32..20),
        prop::sample::select(vec!["message", "message", "endpoint", "ping", ""]),
        prop_oneof![
            3 => text(),
            1 => prop::sample::select(ENDPOINTS).prop_map(str::to_string),
        ],
    )
        .prop_map(|(id, event, data)| {
            let mut f = String::new();
            if let Some(id) = id {
                f.push_str(&format!("id: {id}\n"));
            }
            if !event.is_empty() {
                f.push_str(&format!("event: {event}\n"));
            }
            for line in data.split('\n') {
                f.push_str(&format!("data: {line}\n"));
            }
            f.push('\n');
            f.into_bytes()
        });
    let frame = prop_oneof![4 => message, 1 => bytes_from(NOISE, 4)];
    prop::collection::vec(frame, 0..6).prop_map(|f| f.concat())
}

/// A body of either kind a POST may get: an event stream, or JSON text.
fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        2 => sse_body(),
        1 => text().prop_map(String::into_bytes),
        1 => any::<Vec<u8>>(),
    ]
}

fn head() -> impl Strategy<Value = (u16, Vec<(String, String)>)> {
    let status = prop::sample::select(vec![200u16, 200, 200, 202, 400, 401, 404, 405, 500]);
    let content_type = prop::sample::select(vec![
        "text/event-stream",
        "text/event-stream; charset=utf-8",
        "application/json",
        "text/html",
        "",
    ]);
    let session = prop::option::of(prop::sample::select(vec!["s1", "", "é"]));
    (status, content_type, session).prop_map(|(status, ct, session)| {
        let mut headers = Vec::new();
        if !ct.is_empty() {
            headers.push(("Content-Type".to_string(), ct.to_string()));
        }
        if let Some(s) = session {
            headers.push(("Mcp-Session-Id".to_string(), s.to_string()));
        }
        (status, headers)
    })
}

fn meta(method: &str, era: Option<Era>) -> SendMeta {
    SendMeta {
        kind: SendKind::Request,
        id: Some(RequestId::Number(1)),
        method: method.into(),
        name: None,
        protocol_version: era.map(|e| match e {
            Era::Modern => "2026-07-28".to_string(),
            Era::Legacy => "2025-11-25".to_string(),
        }),
        era,
        long_lived: false,
        param_headers: Vec::new(),
    }
}

fn fetches(actions: &[HttpAction]) -> Vec<Token> {
    actions
        .iter()
        .filter_map(|a| match a {
            HttpAction::Fetch { token, .. } => Some(*token),
            _ => None,
        })
        .collect()
}

/// One POST answered with `head` and `chunks`, then every timer the transport set, fired:
/// everything the transport asked for, in order.
fn streamable(
    method: &str,
    era: Option<Era>,
    (status, headers): &(u16, Vec<(String, String)>),
    chunks: &[&[u8]],
) -> Vec<HttpAction> {
    let mut t = StreamableHttp::new(HttpTarget::new(URL));
    let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{}}}}"#);
    t.send(body, &meta(method, era));
    let mut actions: Vec<HttpAction> = std::iter::from_fn(|| t.poll_action()).collect();
    let Some(&token) = fetches(&actions).first() else {
        return actions;
    };
    t.on_head(token, *status, headers);
    for c in chunks {
        t.on_chunk(token, c);
        actions.extend(std::iter::from_fn(|| t.poll_action()));
    }
    let mut now = 2_000.0;
    t.on_end(token, now);
    actions.extend(std::iter::from_fn(|| t.poll_action()));
    for _ in 0..3 {
        let Some(at) = t.next_deadline() else { break };
        assert!(at.is_finite(), "deadline {at}");
        now = now.max(at);
        t.handle_timeout(now);
        actions.extend(std::iter::from_fn(|| t.poll_action()));
    }
    actions
}

/// The HTTP+SSE transport: its event stream gets `chunks`; a POST it makes meanwhile is
/// answered with `post_head` and the same chunks; then the stream ends.
fn legacy((status, headers): &(u16, Vec<(String, String)>), chunks: &[&[u8]]) -> Vec<HttpAction> {
    let mut t = LegacySse::new(HttpTarget::new(URL));
    t.open();
    let mut actions: Vec<HttpAction> = std::iter::from_fn(|| t.poll_action()).collect();
    let Some(&stream) = fetches(&actions).first() else {
        return actions;
    };
    let sse = [("content-type".to_string(), "text/event-stream".to_string())];
    t.on_head(stream, 200, &sse);
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#;
    t.send(body.to_string(), &meta("tools/call", Some(Era::Legacy)));
    for c in chunks {
        t.on_chunk(stream, c);
        actions.extend(std::iter::from_fn(|| t.poll_action()));
    }
    // Answer every POST the stream's endpoint let the transport send.
    for post in fetches(&actions).into_iter().filter(|&p| p != stream) {
        t.on_head(post, *status, headers);
        for c in chunks {
            t.on_chunk(post, c);
        }
        t.on_end(post);
        actions.extend(std::iter::from_fn(|| t.poll_action()));
    }
    t.on_end(stream);
    actions.extend(std::iter::from_fn(|| t.poll_action()));
    actions
}

fn era() -> impl Strategy<Value = Option<Era>> {
    prop::option::of(prop::sample::select(vec![Era::Modern, Era::Legacy]))
}

/// Short names of what the transport asked for: `Fetch`, `Abort` or the delivered event.
fn names(actions: &[HttpAction], seen: &mut std::collections::BTreeSet<String>) {
    for a in actions {
        let name = match a {
            HttpAction::Deliver(e) => format!("{e:?}"),
            other => format!("{other:?}"),
        };
        seen.insert(name.split(['(', ' ', '{']).next().unwrap_or("").to_string());
    }
}

#[test]
fn generated_answers_reach_every_transport_event() {
    let mut seen = std::collections::BTreeSet::new();
    let method = prop::sample::select(vec!["tools/call", "initialize", "server/discover"]);
    let mut resumed = false;
    for (method, era, head, body) in sample((method, era(), head(), body()), 500) {
        let actions = streamable(method, era, &head, &[&body]);
        // A stream cut before its answer is resumed with a second request.
        resumed |= fetches(&actions).len() > 1;
        names(&actions, &mut seen);
    }
    assert!(resumed, "no stream was resumed");
    for (head, body) in sample((head(), sse_body()), 300) {
        names(&legacy(&head, &[&body]), &mut seen);
    }
    for name in [
        "Fetch",
        "Message",
        "RequestFailed",
        "TryLegacySse",
        "TransportLost",
    ] {
        assert!(seen.contains(name), "no {name} in {seen:?}");
    }
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn streamable_http_answers_decode_the_same_in_any_chunking(
        method in prop::sample::select(vec!["tools/call", "initialize", "server/discover"]),
        era in era(),
        head in head(),
        body in body(),
        cuts in cuts(),
    ) {
        let whole = streamable(method, era, &head, &[&body]);
        prop_assert_eq!(streamable(method, era, &head, &chunk(&body, &cuts)), whole);
    }

    #[test]
    fn http_sse_streams_decode_the_same_in_any_chunking(
        head in head(),
        body in sse_body(),
        cuts in cuts(),
    ) {
        let whole = legacy(&head, &[&body]);
        prop_assert_eq!(legacy(&head, &chunk(&body, &cuts)), whole);
    }

    #[test]
    fn resolving_any_endpoint_never_panics(
        base in prop_oneof![Just(URL.to_string()), ".{0,30}"],
        reference in prop_oneof![prop::sample::select(ENDPOINTS).prop_map(str::to_string), ".{0,30}"],
    ) {
        let _ = resolve_url(&base, &reference);
    }
}
