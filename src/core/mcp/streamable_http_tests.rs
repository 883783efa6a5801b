//! Streamable HTTP transport, driven with captured responses.

use serde_json::Value;

use super::*;
use crate::mcp::http_common::HttpAction;
use crate::mcp::session_types::{SendKind, SendMeta};
use crate::mcp::test_support::exchange;

fn meta(method: &str, id: Option<i64>, era: Option<Era>, version: Option<&str>) -> SendMeta {
    SendMeta {
        kind: if id.is_some() {
            SendKind::Request
        } else {
            SendKind::Notification
        },
        id: id.map(RequestId::Number),
        method: method.into(),
        name: None,
        protocol_version: version.map(str::to_string),
        era,
        long_lived: false,
        param_headers: Vec::new(),
    }
}

fn actions(t: &mut StreamableHttp) -> Vec<HttpAction> {
    std::iter::from_fn(|| t.poll_action()).collect()
}

fn fetched(acts: &[HttpAction]) -> Vec<(Token, HttpRequest)> {
    acts.iter()
        .filter_map(|a| match a {
            HttpAction::Fetch { token, request, .. } => Some((*token, request.clone())),
            _ => None,
        })
        .collect()
}

fn events(acts: Vec<HttpAction>) -> Vec<TransportEvent> {
    acts.into_iter()
        .filter_map(|a| match a {
            HttpAction::Deliver(e) => Some(e),
            _ => None,
        })
        .collect()
}

fn target() -> HttpTarget {
    let mut t = HttpTarget::new("http://127.0.0.1:3001/mcp");
    t.headers
        .push(("Authorization".into(), "Bearer secret".into()));
    t
}

/// Send `m` and answer it with the captured exchange, body split at `split`.
fn answer(
    t: &mut StreamableHttp,
    m: &SendMeta,
    x: &crate::mcp::test_support::Exchange,
    split: usize,
) -> Vec<TransportEvent> {
    t.send(x.request_body.clone(), m);
    let (token, _) = fetched(&actions(t)).pop().expect("a fetch");
    t.on_head(token, x.status, &x.headers);
    let split = split.min(x.body.len());
    t.on_chunk(token, &x.body[..split]);
    t.on_chunk(token, &x.body[split..]);
    t.on_end(token, 0.0);
    events(actions(t))
}

#[test]
fn requests_carry_the_headers_each_era_needs() {
    let x = exchange("everything-http", "01-initialize").expect("capture");
    let mut t = StreamableHttp::new(HttpTarget {
        proxy: Some("http://127.0.0.1:8080".into()),
        ..target()
    });
    t.send(
        x.request_body.clone(),
        &meta("initialize", Some(1), Some(Era::Legacy), None),
    );
    let (tok, init) = fetched(&actions(&mut t)).remove(0);
    assert_eq!(init.method, Method::Post);
    assert_eq!(init.url, "http://127.0.0.1:8080/http://127.0.0.1:3001/mcp");
    assert_eq!(
        init.header("accept"),
        Some("application/json, text/event-stream")
    );
    assert_eq!(init.header("content-type"), Some("application/json"));
    assert_eq!(init.header("authorization"), Some("Bearer secret"));
    assert_eq!(init.header("mcp-session-id"), None);
    assert_eq!(init.header("mcp-protocol-version"), None);
    t.on_head(tok, x.status, &x.headers);
    let sid = header(&x.headers, "mcp-session-id").expect("captured session id");
    assert_eq!(t.session_id(), Some(sid));

    t.send(
        "{}".into(),
        &meta("tools/list", Some(2), Some(Era::Legacy), Some("2025-11-25")),
    );
    let (_, list) = fetched(&actions(&mut t)).remove(0);
    assert_eq!(list.header("mcp-session-id"), Some(sid));
    assert_eq!(list.header("mcp-protocol-version"), Some("2025-11-25"));
    assert_eq!(
        list.header("mcp-method"),
        None,
        "legacy servers get no Mcp-Method"
    );

    let mut t = StreamableHttp::new(target());
    let mut m = meta("tools/call", Some(3), Some(Era::Modern), Some("2026-07-28"));
    m.name = Some("wetter-für-köln".into());
    t.send("{}".into(), &m);
    let (tok, call) = fetched(&actions(&mut t)).remove(0);
    assert_eq!(call.header("mcp-method"), Some("tools/call"));
    assert_eq!(
        call.header("mcp-name"),
        Some(header_value("wetter-für-köln").as_str())
    );
    assert!(call.header("mcp-name").unwrap().starts_with("=?base64?"));
    assert_eq!(call.header("mcp-protocol-version"), Some("2026-07-28"));
    // A modern answer that carries a session id does not make us echo it.
    t.on_head(
        tok,
        200,
        &[
            ("Mcp-Session-Id".into(), "x".into()),
            ("Content-Type".into(), "application/json".into()),
        ],
    );
    assert_eq!(t.session_id(), None);
}

#[test]
fn header_values_follow_the_spec_encoding_examples() {
    assert_eq!(header_value("us-west1"), "us-west1");
    assert_eq!(
        header_value("Hello, 世界"),
        "=?base64?SGVsbG8sIOS4lueVjA==?="
    );
    assert_eq!(header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
    assert_eq!(header_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
    assert_eq!(
        header_value("=?base64?literal?="),
        "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
    );
}

#[test]
fn captured_sse_answers_decode_the_same_at_every_split() {
    for (server, name, method) in [
        ("everything-http", "01-initialize", "initialize"),
        ("everything-http", "06-tools-call-progress", "tools/call"),
        (
            "modern-python",
            "11-modern-tools-call-progress",
            "tools/call",
        ),
        ("modern-python", "02-modern-tools-list", "tools/list"),
    ] {
        let x = exchange(server, name).expect("capture");
        let id = serde_json::from_str::<Value>(&x.request_body).unwrap()["id"]
            .as_i64()
            .unwrap();
        let era = if server.starts_with("modern") {
            Era::Modern
        } else {
            Era::Legacy
        };
        let m = meta(method, Some(id), Some(era), None);
        let whole = answer(&mut StreamableHttp::new(target()), &m, &x, x.body.len());
        assert!(
            matches!(whole.last(), Some(TransportEvent::Message(_))),
            "{name}: {whole:?}"
        );
        let last = match whole.last() {
            Some(TransportEvent::Message(s)) => s.clone(),
            _ => unreachable!(),
        };
        assert!(last.contains("\"result\""), "{name}: the answer comes last");
        for split in crate::split_points::split_points(&x.body) {
            let got = answer(&mut StreamableHttp::new(target()), &m, &x, split);
            assert_eq!(got, whole, "{name} split at {split}");
        }
    }
}

#[test]
fn a_restarted_server_expires_the_session_with_400_or_404() {
    for (server, init, stale, status) in [
        (
            "everything-http",
            "01-initialize",
            "25-stale-session-after-restart",
            400,
        ),
        (
            "modern-python",
            "40-legacy-initialize",
            "56-legacy-stale-session-after-restart",
            404,
        ),
    ] {
        let (i, x) = (
            exchange(server, init).unwrap(),
            exchange(server, stale).unwrap(),
        );
        assert_eq!(x.status, status);
        let mut t = StreamableHttp::new(target());
        answer(
            &mut t,
            &meta("initialize", Some(0), Some(Era::Legacy), None),
            &i,
            0,
        );
        assert!(t.session_id().is_some(), "{server}");
        let ev = answer(
            &mut t,
            &meta(
                "tools/list",
                Some(17),
                Some(Era::Legacy),
                Some("2025-11-25"),
            ),
            &x,
            3,
        );
        assert_eq!(
            ev,
            [TransportEvent::SessionExpired {
                refused: Some(RequestId::Number(17))
            }],
            "{server}"
        );
        assert_eq!(t.session_id(), None);
        t.send(
            "{}".into(),
            &meta("initialize", Some(18), Some(Era::Legacy), None),
        );
        let (_, req) = fetched(&actions(&mut t)).remove(0);
        assert_eq!(
            req.header("mcp-session-id"),
            None,
            "the new initialize carries no session"
        );
    }
    // Without a session, the same 400 is an ordinary failure, not an expiry.
    let x = exchange("everything-http", "17-no-session").unwrap();
    let ev = answer(
        &mut StreamableHttp::new(target()),
        &meta("tools/list", Some(13), Some(Era::Legacy), None),
        &x,
        0,
    );
    assert!(
        matches!(&ev[..], [TransportEvent::Message(m)] if m.contains("\"id\":13") && m.contains("-32000")),
        "{ev:?}"
    );
}

#[test]
fn error_bodies_are_readdressed_to_the_request() {
    let x = exchange("everything-http", "18-modern-probe-discover").unwrap();
    let ev = answer(
        &mut StreamableHttp::new(target()),
        &meta(
            "server/discover",
            Some(14),
            Some(Era::Modern),
            Some("2026-07-28"),
        ),
        &x,
        0,
    );
    let [TransportEvent::Message(m)] = &ev[..] else {
        panic!("{ev:?}")
    };
    let v: Value = serde_json::from_str(m).unwrap();
    assert_eq!(
        (v["id"].as_i64(), v["error"]["code"].as_i64()),
        (Some(14), Some(-32000))
    );

    let x = exchange("modern-python", "22-modern-unsupported-version").unwrap();
    let ev = answer(
        &mut StreamableHttp::new(target()),
        &meta(
            "tools/list",
            Some(22),
            Some(Era::Modern),
            Some("1900-01-01"),
        ),
        &x,
        7,
    );
    let [TransportEvent::Message(m)] = &ev[..] else {
        panic!("{ev:?}")
    };
    assert!(
        m.contains("-32022") && m.contains("\"supported\":[\"2026-07-28\"]"),
        "{m}"
    );
}

#[test]
fn first_initialize_refused_suggests_legacy_sse_only_before_success() {
    let x = exchange("everything-sse", "00-initial-post-to-sse").unwrap();
    assert_eq!(x.status, 404);
    let m = meta("initialize", Some(0), Some(Era::Legacy), None);
    let ev = answer(&mut StreamableHttp::new(target()), &m, &x, 10);
    match &ev[..] {
        [TransportEvent::TryLegacySse {
            streamable_error: McpError::Http {
                status: 404, body, ..
            },
            initialize,
            meta,
        }] => {
            assert!(body.contains("Cannot POST /sse"), "{body}");
            assert_eq!(initialize, &x.request_body);
            assert_eq!(meta, &m);
        }
        other => panic!("{other:?}"),
    }
    // After any success the endpoint is known to be Streamable HTTP: a 404 is just an error.
    let ok = exchange("everything-http", "07-ping").unwrap();
    let mut t = StreamableHttp::new(target());
    answer(
        &mut t,
        &meta("ping", Some(4), Some(Era::Legacy), None),
        &ok,
        0,
    );
    let ev = answer(&mut t, &m, &x, 0);
    assert!(
        matches!(
            &ev[..],
            [TransportEvent::RequestFailed {
                error: McpError::Http { status: 404, .. },
                ..
            }]
        ),
        "{ev:?}"
    );
}

#[test]
fn get_stream_405_is_fine_and_not_asked_again() {
    let x = exchange("modern-python", "28-modern-get").unwrap();
    let mut t = StreamableHttp::new(target());
    t.open_get_stream();
    let (tok, req) = fetched(&actions(&mut t)).remove(0);
    assert_eq!(
        (req.method, req.header("accept")),
        (Method::Get, Some("text/event-stream"))
    );
    t.on_head(tok, x.status, &x.headers);
    t.on_end(tok, 0.0);
    assert!(events(actions(&mut t)).is_empty());
    t.open_get_stream();
    assert!(actions(&mut t).is_empty());
}

#[test]
fn a_closed_get_stream_is_reopened_after_retry_with_last_event_id() {
    // The shape of the conformance suite's sse-retry scenario.
    let mut t = StreamableHttp::new(target());
    t.open_get_stream();
    let (tok, _) = fetched(&actions(&mut t)).remove(0);
    t.on_head(
        tok,
        200,
        &[("Content-Type".into(), "text/event-stream".into())],
    );
    assert_eq!(
        events(actions(&mut t)),
        [TransportEvent::ListenerOpened],
        "a fresh stream is announced, so lists announced before it are re-read"
    );
    t.on_chunk(tok, b"id: event-1\nretry: 2000\ndata: \n\n");
    t.on_end(tok, 100.0);
    assert!(
        events(actions(&mut t)).is_empty(),
        "the priming event is not a message"
    );
    assert_eq!(t.next_deadline(), Some(2_100.0));
    t.handle_timeout(2_099.9);
    assert!(actions(&mut t).is_empty());
    t.handle_timeout(2_100.0);
    let (resumed, req) = fetched(&actions(&mut t)).remove(0);
    assert_eq!(req.method, Method::Get);
    assert_eq!(req.header("last-event-id"), Some("event-1"));
    assert_eq!(t.next_deadline(), None);
    // The resumed stream replays what was missed: nothing to re-list.
    t.on_head(
        resumed,
        200,
        &[("Content-Type".into(), "text/event-stream".into())],
    );
    assert!(events(actions(&mut t)).is_empty());
}

#[test]
fn a_modern_stream_broken_by_the_network_is_a_lost_transport() {
    let mut t = StreamableHttp::new(target());
    t.send(
        "{}".into(),
        &meta("tools/call", Some(7), Some(Era::Modern), Some("2026-07-28")),
    );
    let (tok, _) = fetched(&actions(&mut t)).remove(0);
    t.on_head(
        tok,
        200,
        &[("content-type".into(), "text/event-stream".into())],
    );
    t.on_chunk(tok, b"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":7,\"progress\":1}}\n\n");
    t.on_fetch_error(tok, "network error", 10.0);
    let ev = events(actions(&mut t));
    assert!(
        matches!(
            &ev[..],
            [
                TransportEvent::Message(_),
                TransportEvent::RequestFailed { .. },
                TransportEvent::TransportLost(McpError::ConnectionLost { .. })
            ]
        ),
        "{ev:?}"
    );
}

#[test]
fn a_post_stream_cut_before_its_answer_is_resumed_or_fails() {
    let mut t = StreamableHttp::new(target());
    t.send(
        "{}".into(),
        &meta("tools/call", Some(5), Some(Era::Legacy), Some("2025-11-25")),
    );
    let (tok, _) = fetched(&actions(&mut t)).remove(0);
    t.on_head(
        tok,
        200,
        &[("content-type".into(), "text/event-stream".into())],
    );
    t.on_chunk(tok, b"id: a1\ndata: \n\nid: a2\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":5,\"progress\":1}}\n\n");
    t.on_fetch_error(tok, "network error", 50.0);
    assert_eq!(
        events(actions(&mut t)).len(),
        1,
        "the progress message only"
    );
    assert_eq!(t.next_deadline(), Some(50.0 + DEFAULT_RETRY_MS));
    t.handle_timeout(2_000.0);
    let (tok, req) = fetched(&actions(&mut t)).remove(0);
    assert_eq!(req.header("last-event-id"), Some("a2"));
    t.on_head(
        tok,
        200,
        &[("content-type".into(), "text/event-stream".into())],
    );
    t.on_chunk(
        tok,
        b"id: a3\ndata: {\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"content\":[]}}\n\n",
    );
    t.on_end(tok, 2_100.0);
    let ev = events(actions(&mut t));
    assert!(matches!(&ev[..], [TransportEvent::Message(m)] if m.contains("\"id\":5")));
    assert_eq!(t.next_deadline(), None);

    // Modern streams are not resumable: the request fails and the session decides.
    let mut t = StreamableHttp::new(target());
    t.send(
        "{}".into(),
        &meta("tools/call", Some(6), Some(Era::Modern), Some("2026-07-28")),
    );
    let (tok, _) = fetched(&actions(&mut t)).remove(0);
    t.on_head(
        tok,
        200,
        &[("content-type".into(), "text/event-stream".into())],
    );
    t.on_chunk(tok, b"id: x\ndata: \n\n");
    t.on_end(tok, 0.0);
    let ev = events(actions(&mut t));
    assert!(
        matches!(
            &ev[..],
            [TransportEvent::RequestFailed {
                error: McpError::ConnectionLost { .. },
                ..
            }]
        ),
        "{ev:?}"
    );
}

#[test]
fn network_failures_blame_the_likely_cause() {
    let mut t = StreamableHttp::new(target());
    t.send(
        "{}".into(),
        &meta(
            "server/discover",
            Some(1),
            Some(Era::Modern),
            Some("2026-07-28"),
        ),
    );
    let (tok, _) = fetched(&actions(&mut t)).remove(0);
    t.on_fetch_error(tok, "Failed to fetch", 0.0);
    let ev = events(actions(&mut t));
    assert!(
        matches!(
            &ev[..],
            [TransportEvent::RequestFailed {
                error: McpError::Network { .. },
                ..
            }]
        ),
        "a blocked probe lets the session try initialize: {ev:?}"
    );
    t.send(
        "{}".into(),
        &meta("initialize", Some(2), Some(Era::Legacy), None),
    );
    let (tok, _) = fetched(&actions(&mut t)).remove(0);
    t.on_fetch_error(tok, "Failed to fetch", 0.0);
    let ev = events(actions(&mut t));
    let [TransportEvent::TransportLost(e)] = &ev[..] else {
        panic!("{ev:?}")
    };
    let s = e.to_string();
    assert!(s.contains("CORS") && s.contains("authorization"), "{s}");
}

#[test]
fn auth_failures_and_close() {
    let mut t = StreamableHttp::new(target());
    t.send(
        "{}".into(),
        &meta("initialize", Some(1), Some(Era::Legacy), None),
    );
    let (tok, _) = fetched(&actions(&mut t)).remove(0);
    t.on_head(tok, 401, &[]);
    t.on_end(tok, 0.0);
    let ev = events(actions(&mut t));
    assert!(matches!(
        &ev[..],
        [TransportEvent::RequestFailed {
            error: McpError::Auth { status: 401 },
            ..
        }]
    ));

    let x = exchange("everything-http", "01-initialize").unwrap();
    answer(
        &mut t,
        &meta("initialize", Some(2), Some(Era::Legacy), None),
        &x,
        0,
    );
    t.close();
    let acts = actions(&mut t);
    let (_, del) = fetched(&acts).remove(0);
    assert_eq!(del.method, Method::Delete);
    assert!(del.header("mcp-session-id").is_some());
    assert_eq!(t.session_id(), None);
}

#[test]
fn a_refused_redirect_loses_the_transport_with_its_own_sentence() {
    let mut t = StreamableHttp::new(target());
    t.send(
        "{}".into(),
        &meta("initialize", Some(2), Some(Era::Legacy), None),
    );
    let (tok, req) = fetched(&actions(&mut t)).remove(0);
    assert!(
        req.carries_credentials(),
        "the custom header makes it manual"
    );
    t.on_redirect_refused(tok, None);
    let ev = events(actions(&mut t));
    let [TransportEvent::TransportLost(e)] = &ev[..] else {
        panic!("{ev:?}")
    };
    assert_eq!(e, &McpError::RedirectRefused { to: None });
    assert!(!e.to_string().contains("CORS"), "{e}");
}

#[test]
fn mcp_param_headers_go_with_a_modern_call_and_a_refused_send_fails_only_that_call() {
    let mut t = StreamableHttp::new(target());
    let mut m = meta("tools/call", Some(7), Some(Era::Modern), Some("2026-07-28"));
    m.name = Some("route".into());
    m.param_headers = vec![("Mcp-Param-Region".into(), "eu-west".into())];
    t.send("{}".into(), &m);
    let (tok, req) = fetched(&actions(&mut t)).remove(0);
    assert_eq!(req.header("Mcp-Param-Region"), Some("eu-west"));
    assert_eq!(req.header("Mcp-Name"), Some("route"));
    // The browser refused to send it (a CORS preflight that does not allow the header looks
    // like a network failure): that call fails with the header's name, the link stays.
    t.on_fetch_error(tok, "Failed to fetch", 0.0);
    let ev = events(actions(&mut t));
    let [TransportEvent::RequestFailed { error, .. }] = &ev[..] else {
        panic!("{ev:?}")
    };
    assert_eq!(
        *error,
        McpError::HeadersNotAllowed {
            headers: vec!["Mcp-Param-Region".into()]
        }
    );
    let s = error.to_string();
    assert!(
        s.contains("Mcp-Param-Region") && s.contains("Access-Control-Allow-Headers"),
        "{s}"
    );
    // A legacy session never sends them.
    let mut m = meta("tools/call", Some(8), Some(Era::Legacy), Some("2025-11-25"));
    m.param_headers = vec![("Mcp-Param-Region".into(), "eu-west".into())];
    t.send("{}".into(), &m);
    let (_, req) = fetched(&actions(&mut t)).remove(0);
    assert_eq!(req.header("Mcp-Param-Region"), None);
}

/// What was fetched, as (method, JSON-RPC method of the body) pairs.
fn sent_methods(acts: &[HttpAction]) -> Vec<(Method, String)> {
    fetched(acts)
        .into_iter()
        .map(|(_, r)| {
            let body: Value =
                serde_json::from_str(r.body.as_deref().unwrap_or("null")).unwrap_or(Value::Null);
            (r.method, body["method"].as_str().unwrap_or("").to_string())
        })
        .collect()
}

fn post(t: &mut StreamableHttp, method: &str, id: Option<i64>) {
    let body = match id {
        Some(id) => format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}"}}"#),
        None => format!(r#"{{"jsonrpc":"2.0","method":"{method}"}}"#),
    };
    t.send(
        body,
        &meta(method, id, Some(Era::Legacy), Some("2025-11-25")),
    );
}

#[test]
fn requests_after_initialized_wait_until_the_server_has_answered_it() {
    // Each POST is its own HTTP request: sent together, server-everything answered
    // tools/list before it had read `initialized` (which registers five more tools).
    let mut t = StreamableHttp::new(target());
    post(&mut t, "notifications/initialized", None);
    post(&mut t, "tools/list", Some(3));
    post(&mut t, "prompts/list", Some(4));
    let acts = actions(&mut t);
    assert_eq!(
        sent_methods(&acts),
        [(Method::Post, "notifications/initialized".to_string())]
    );
    let gate = fetched(&acts)[0].0;
    // The GET stream is not a message of the session: it opens at once.
    t.open_get_stream();
    assert_eq!(
        sent_methods(&actions(&mut t)),
        [(Method::Get, String::new())]
    );
    // A held request that is cancelled is never sent.
    post(&mut t, "resources/list", Some(5));
    t.abort_request(&RequestId::Number(5));
    assert!(fetched(&actions(&mut t)).is_empty());
    // 202: the server has handled it; the rest go, in order, with the session id.
    t.on_head(gate, 202, &[]);
    let acts = actions(&mut t);
    assert_eq!(
        sent_methods(&acts),
        [
            (Method::Post, "tools/list".to_string()),
            (Method::Post, "prompts/list".to_string())
        ]
    );
    t.on_end(gate, 1.0);
    // Nothing waits any more.
    post(&mut t, "ping", Some(6));
    assert_eq!(
        sent_methods(&actions(&mut t)),
        [(Method::Post, "ping".to_string())]
    );
}

#[test]
fn a_failed_initialized_post_releases_what_waited_and_a_new_handshake_drops_it() {
    let mut t = StreamableHttp::new(target());
    post(&mut t, "notifications/initialized", None);
    post(&mut t, "tools/list", Some(3));
    let gate = fetched(&actions(&mut t))[0].0;
    t.on_fetch_error(gate, "TypeError: Failed to fetch", 1.0);
    assert!(sent_methods(&actions(&mut t)).contains(&(Method::Post, "tools/list".to_string())));

    // A reconnect's initialize: what waited for the old session is not sent into the new one.
    post(&mut t, "notifications/initialized", None);
    post(&mut t, "tools/list", Some(7));
    actions(&mut t);
    post(&mut t, "initialize", Some(8));
    assert_eq!(
        sent_methods(&actions(&mut t)),
        [(Method::Post, "initialize".to_string())]
    );
    post(&mut t, "notifications/initialized", None);
    let gate = fetched(&actions(&mut t))[0].0;
    t.on_head(gate, 202, &[]);
    assert!(
        fetched(&actions(&mut t)).is_empty(),
        "tools/list 7 was dropped"
    );
}
