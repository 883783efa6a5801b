//! Deprecated HTTP+SSE transport, driven with the captured server-everything stream.

use super::*;
use crate::mcp::era::Era;
use crate::mcp::session_types::{SendKind, SendMeta};
use crate::mcp::test_support::exchange;

fn actions(t: &mut LegacySse) -> Vec<HttpAction> {
    std::iter::from_fn(|| t.poll_action()).collect()
}

fn init_meta() -> SendMeta {
    SendMeta {
        kind: SendKind::Request,
        id: Some(RequestId::Number(0)),
        method: "initialize".into(),
        name: None,
        protocol_version: None,
        era: Some(Era::Legacy),
        long_lived: false,
        param_headers: Vec::new(),
    }
}

#[test]
fn endpoint_urls_resolve_against_the_sse_url() {
    let base = "http://127.0.0.1:3002/mcp/sse?x=1";
    assert_eq!(
        resolve_url(base, "/message?sessionId=a"),
        "http://127.0.0.1:3002/message?sessionId=a"
    );
    assert_eq!(
        resolve_url(base, "message?sessionId=a"),
        "http://127.0.0.1:3002/mcp/message?sessionId=a"
    );
    assert_eq!(
        resolve_url(base, "../messages/"),
        "http://127.0.0.1:3002/messages/"
    );
    assert_eq!(
        resolve_url(base, "?sessionId=b"),
        "http://127.0.0.1:3002/mcp/sse?sessionId=b"
    );
    assert_eq!(resolve_url(base, "//other:1/m"), "http://other:1/m");
    assert_eq!(resolve_url(base, "https://x/y"), "https://x/y");
    assert_eq!(resolve_url("http://h", "m"), "http://h/m");
}

/// Drive the captured stream split at `split`; returns (POSTs made, messages delivered).
fn run(split: usize) -> (Vec<HttpRequest>, Vec<String>) {
    let x = exchange("everything-sse", "02-get-sse-stream").expect("capture");
    let mut target = HttpTarget::new("http://127.0.0.1:3002/sse");
    target
        .headers
        .push(("Authorization".into(), "Bearer t".into()));
    let first = McpError::Http {
        status: 404,
        body: "Cannot POST /sse".into(),
        hint: None,
    };
    let mut t = LegacySse::fallback(target, first);
    t.send("{\"init\":1}".into(), &init_meta());
    t.open();
    let mut acts = actions(&mut t);
    let HttpAction::Fetch {
        token,
        request,
        streaming: true,
    } = acts.remove(0)
    else {
        panic!()
    };
    assert_eq!(request.method, Method::Get);
    assert_eq!(request.header("accept"), Some("text/event-stream"));
    assert_eq!(request.header("authorization"), Some("Bearer t"));
    assert!(acts.is_empty(), "initialize waits for the endpoint");
    t.on_head(token, x.status, &x.headers);
    let split = split.min(x.body.len());
    t.on_chunk(token, &x.body[..split]);
    t.on_chunk(token, &x.body[split..]);
    let mut posts = Vec::new();
    let mut msgs = Vec::new();
    for a in actions(&mut t) {
        match a {
            HttpAction::Fetch { request, .. } => posts.push(request),
            HttpAction::Deliver(TransportEvent::Message(m)) => msgs.push(m),
            other => panic!("{other:?}"),
        }
    }
    (posts, msgs)
}

#[test]
fn captured_stream_gives_the_endpoint_then_the_answers_at_every_split() {
    let (posts, msgs) = run(usize::MAX);
    assert_eq!(posts.len(), 1);
    let post = &posts[0];
    assert_eq!(post.method, Method::Post);
    assert!(
        post.url
            .starts_with("http://127.0.0.1:3002/message?sessionId="),
        "{}",
        post.url
    );
    assert_eq!(post.body.as_deref(), Some("{\"init\":1}"));
    assert_eq!(post.header("content-type"), Some("application/json"));
    assert!(msgs.len() >= 2, "{msgs:?}");
    assert!(msgs[0].contains("\"protocolVersion\":\"2025-11-25\""));
    let len = exchange("everything-sse", "02-get-sse-stream")
        .unwrap()
        .body
        .len();
    for split in 0..=len {
        assert_eq!(
            run(split),
            (posts.clone(), msgs.clone()),
            "split at {split}"
        );
    }
}

#[test]
fn when_both_transports_fail_both_causes_are_reported() {
    let first = McpError::Http {
        status: 405,
        body: String::new(),
        hint: None,
    };
    let mut t = LegacySse::fallback(HttpTarget::new("http://h/mcp"), first);
    t.send("{}".into(), &init_meta());
    t.open();
    let HttpAction::Fetch { token, .. } = actions(&mut t).remove(0) else {
        panic!()
    };
    t.on_head(token, 404, &[]);
    let ev: Vec<_> = actions(&mut t)
        .into_iter()
        .filter_map(|a| match a {
            HttpAction::Deliver(e) => Some(e),
            _ => None,
        })
        .collect();
    let TransportEvent::RequestFailed { id, error } = &ev[0] else {
        panic!("{ev:?}")
    };
    assert_eq!(id, &RequestId::Number(0));
    let s = error.to_string();
    assert!(s.contains("HTTP 405") && s.contains("HTTP 404"), "{s}");
    assert!(matches!(
        ev[1],
        TransportEvent::TransportLost(McpError::BothTransportsFailed { .. })
    ));
}

#[test]
fn a_stream_ending_later_is_a_lost_transport_and_post_errors_fail_the_request() {
    let mut t = LegacySse::new(HttpTarget::new("http://h/sse"));
    t.open();
    let HttpAction::Fetch { token, .. } = actions(&mut t).remove(0) else {
        panic!()
    };
    t.on_head(
        token,
        200,
        &[("content-type".into(), "text/event-stream".into())],
    );
    t.on_chunk(token, b"event: endpoint\ndata: /message?sessionId=1\n\n");
    assert_eq!(t.endpoint(), Some("http://h/message?sessionId=1"));
    t.send("{}".into(), &init_meta());
    let HttpAction::Fetch { token: post, .. } = actions(&mut t).remove(0) else {
        panic!()
    };
    t.on_head(post, 404, &[]);
    t.on_chunk(post, b"Session not found");
    t.on_end(post);
    t.on_end(token);
    let ev: Vec<_> = actions(&mut t)
        .into_iter()
        .filter_map(|a| match a {
            HttpAction::Deliver(e) => Some(e),
            _ => None,
        })
        .collect();
    assert!(matches!(
        &ev[0],
        TransportEvent::RequestFailed {
            error: McpError::Http { status: 404, .. },
            ..
        }
    ));
    assert!(matches!(
        &ev[1],
        TransportEvent::TransportLost(McpError::ConnectionLost { .. })
    ));
}

#[test]
fn an_endpoint_on_another_origin_is_refused_and_nothing_is_posted_there() {
    for reference in [
        "http://127.0.0.1:4999/message?sessionId=a",
        "//evil.example/message",
        "https://127.0.0.1:3002/message",
    ] {
        let mut target = HttpTarget::new("http://127.0.0.1:3002/sse");
        target.headers.push(("X-Secret".into(), "s3cret".into()));
        let mut t = LegacySse::new(target);
        t.send("{\"init\":1}".into(), &init_meta());
        t.open();
        let HttpAction::Fetch { token, .. } = actions(&mut t).remove(0) else {
            panic!()
        };
        t.on_head(
            token,
            200,
            &[("content-type".into(), "text/event-stream".into())],
        );
        t.on_chunk(
            token,
            format!("event: endpoint\ndata: {reference}\n\n").as_bytes(),
        );
        let acts = actions(&mut t);
        assert!(
            !acts.iter().any(|a| matches!(a, HttpAction::Fetch { .. })),
            "{reference}: nothing may be sent to the other origin: {acts:?}"
        );
        assert!(acts.contains(&HttpAction::Abort(token)), "{acts:?}");
        let lost = acts.iter().find_map(|a| match a {
            HttpAction::Deliver(TransportEvent::TransportLost(e)) => Some(e.clone()),
            _ => None,
        });
        let Some(McpError::EndpointElsewhere { sse_origin, .. }) = lost else {
            panic!("{reference}: {acts:?}")
        };
        assert_eq!(sse_origin, "http://127.0.0.1:3002");
        assert_eq!(t.endpoint(), None);
    }
}

#[test]
fn posts_after_initialized_wait_until_it_is_accepted() {
    let mut t = LegacySse::new(HttpTarget::new("http://127.0.0.1:3002/sse"));
    t.open();
    let HttpAction::Fetch { token: stream, .. } = actions(&mut t).remove(0) else {
        panic!()
    };
    t.on_head(
        stream,
        200,
        &[("Content-Type".into(), "text/event-stream".into())],
    );
    t.on_chunk(stream, b"event: endpoint\ndata: /message?sessionId=s\n\n");
    let meta = |method: &str, id: Option<i64>| SendMeta {
        kind: if id.is_some() {
            SendKind::Request
        } else {
            SendKind::Notification
        },
        id: id.map(RequestId::Number),
        method: method.into(),
        ..init_meta()
    };
    t.send(
        "initialized".into(),
        &meta("notifications/initialized", None),
    );
    t.send("list".into(), &meta("tools/list", Some(1)));
    let bodies = |acts: Vec<HttpAction>| -> Vec<(Token, String)> {
        acts.into_iter()
            .filter_map(|a| match a {
                HttpAction::Fetch { token, request, .. } => {
                    Some((token, request.body.unwrap_or_default()))
                }
                _ => None,
            })
            .collect()
    };
    let sent = bodies(actions(&mut t));
    assert_eq!(
        sent.iter().map(|(_, b)| b.as_str()).collect::<Vec<_>>(),
        ["initialized"]
    );
    t.on_head(sent[0].0, 202, &[]);
    let sent = bodies(actions(&mut t));
    assert_eq!(
        sent.iter().map(|(_, b)| b.as_str()).collect::<Vec<_>>(),
        ["list"]
    );
}
