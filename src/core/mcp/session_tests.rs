//! `McpSession` driven with captured traffic (tests/fixtures/mcp/captured) and with messages
//! written from the specification's examples, on a fake clock.

use serde_json::{json, Value};

use super::era::{Era, EraCache};
use super::error::McpError;
use super::messages::{ListKind, RequestId};
use super::session::McpSession;
use super::session_lists::RELIST_GAP_MS;
use super::session_types::{Phase, SessionConfig, SessionEvent};
use super::test_support::{drain, exchange, Drained};
use crate::sse::SseDecoder;

fn config() -> SessionConfig {
    SessionConfig {
        request_timeout_ms: 5_000.0,
        ping_interval_ms: None,
        ..SessionConfig::default()
    }
}

/// The JSON-RPC messages in a captured body (SSE or plain JSON).
fn messages_in(body: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(body);
    if text.trim_start().starts_with('{') {
        return vec![text.into_owned()];
    }
    let mut d = SseDecoder::new();
    d.feed(body)
        .into_iter()
        .filter(|e| !e.data.trim().is_empty())
        .map(|e| e.data)
        .collect()
}

/// Re-address a captured answer to the id our session used.
fn readdress(msg: &str, id: &Value) -> String {
    let mut v: Value = serde_json::from_str(msg).expect("captured JSON");
    if v.get("id").is_some() {
        v["id"] = id.clone();
    }
    v.to_string()
}

fn result_msg(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

fn error_msg(id: &Value, code: i64, message: &str, data: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message, "data": data}})
        .to_string()
}

fn ready(events: &[SessionEvent]) -> Option<(String, Era, Option<String>)> {
    events.iter().find_map(|e| match e {
        SessionEvent::StateChanged(Phase::Ready {
            version,
            era,
            server_info,
            ..
        }) => Some((
            version.clone(),
            *era,
            server_info.as_ref().map(|s| s.name.clone()),
        )),
        _ => None,
    })
}

fn tools_listed(events: &[SessionEvent]) -> Option<Vec<String>> {
    events.iter().find_map(|e| match e {
        SessionEvent::ToolsListed(t) => Some(t.iter().map(|t| t.name.to_string()).collect()),
        _ => None,
    })
}

fn responses(events: &[SessionEvent]) -> Vec<(RequestId, Result<Value, McpError>)> {
    events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Response { id, result, .. } => Some((id.clone(), result.clone())),
            _ => None,
        })
        .collect()
}

fn rid(v: &Value) -> RequestId {
    RequestId::Number(v.as_i64().expect("numeric id"))
}

/// Connect a legacy server: probe refused like server-everything refuses it, then initialize.
fn legacy_ready(s: &mut McpSession, now: f64) -> Drained {
    s.connect(now);
    let d = drain(s);
    let probe = d.id_of("server/discover");
    s.handle_message(
        &error_msg(
            &probe,
            -32000,
            "Bad Request: Server not initialized",
            Value::Null,
        ),
        now,
    );
    let d = drain(s);
    let init = d.id_of("initialize");
    s.handle_message(
        &result_msg(
            &init,
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {"listChanged": true}},
                   "serverInfo": {"name": "srv", "version": "1"}}),
        ),
        now,
    );
    drain(s)
}

#[test]
fn legacy_handshake_with_server_everything_capture() {
    let (Some(probe_x), Some(init_x), Some(list_x)) = (
        exchange("everything-http", "18-modern-probe-discover"),
        exchange("everything-http", "01-initialize"),
        exchange("everything-http", "04-tools-list"),
    ) else {
        panic!("captures missing under tests/fixtures/mcp/captured/everything-http");
    };
    let mut s = McpSession::new(config());
    s.connect(0.0);
    let d = drain(&mut s);
    assert_eq!(d.methods(), ["server/discover"]);
    let (probe, meta) = &d.sent[0];
    assert_eq!(
        probe["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(meta.protocol_version.as_deref(), Some("2026-07-28"));
    assert_eq!(s.phase(), &Phase::Discovering);

    // server-everything answers 400 with a -32000 error and id null; the transport re-addresses it.
    assert_eq!(probe_x.status, 400);
    let body = String::from_utf8_lossy(&probe_x.body).into_owned();
    s.handle_message(&readdress(&body, &probe["id"]), 10.0);
    let d = drain(&mut s);
    assert_eq!(d.methods(), ["initialize"]);
    let (init, meta) = &d.sent[0];
    assert_eq!(init["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(
        init["params"]["capabilities"],
        json!({"elicitation": {"form": {}, "url": {}}, "sampling": {"tools": {}},
            "roots": {"listChanged": true}}),
        "both elicitation modes are declared, nothing else"
    );
    assert_eq!(
        meta.protocol_version, None,
        "no version header before negotiation"
    );
    assert_eq!(s.phase(), &Phase::Initializing);

    for m in messages_in(&init_x.body) {
        s.handle_message(&readdress(&m, &init["id"]), 20.0);
    }
    let d = drain(&mut s);
    assert_eq!(
        ready(&d.events),
        Some((
            "2025-11-25".into(),
            Era::Legacy,
            Some("mcp-servers/everything".into())
        ))
    );
    assert!(d
        .events
        .iter()
        .any(|e| matches!(e, SessionEvent::EraDetected(c) if c.era == Era::Legacy)));
    // initialized first, then the automatic lists the capabilities allow.
    assert_eq!(d.methods()[0], "notifications/initialized");
    assert_eq!(d.sent[0].1.protocol_version.as_deref(), Some("2025-11-25"));
    assert!(d.methods().contains(&"tools/list".to_string()));
    assert!(d.methods().contains(&"prompts/list".to_string()));
    let list_id = d.id_of("tools/list");
    for m in messages_in(&list_x.body) {
        s.handle_message(&readdress(&m, &list_id), 30.0);
    }
    let d = drain(&mut s);
    let tools = tools_listed(&d.events).expect("tools listed");
    assert_eq!(tools.len(), 13, "{tools:?}");
    assert!(tools.contains(&"echo".to_string()));
}

/// A session that connected and got `body` (a captured `server/discover` answer) at `at`,
/// and what it did next.
fn discovered(body: &[u8], at: f64) -> (McpSession, Drained) {
    let mut s = McpSession::new(config());
    s.connect(0.0);
    let probe = drain(&mut s).id_of("server/discover");
    s.handle_message(&readdress(&String::from_utf8_lossy(body), &probe), at);
    let d = drain(&mut s);
    (s, d)
}

#[test]
fn modern_handshake_and_pagination_with_python_sdk_capture() {
    let (Some(disc), Some(p1), Some(p2), Some(call)) = (
        exchange("modern-python", "01-modern-discover"),
        exchange("modern-python", "02-modern-tools-list"),
        exchange("modern-python", "03-modern-tools-list-page2"),
        exchange("modern-python", "11-modern-tools-call-progress"),
    ) else {
        panic!("captures missing under tests/fixtures/mcp/captured/modern-python");
    };
    let (mut s, d) = discovered(&disc.body, 5.0);
    assert_eq!(
        ready(&d.events),
        Some((
            "2026-07-28".into(),
            Era::Modern,
            Some("skiff-modern-test-server".into())
        ))
    );
    assert!(!d
        .methods()
        .contains(&"notifications/initialized".to_string()));
    // list_changed in the modern era needs a subscriptions/listen stream.
    let listen = d
        .sent
        .iter()
        .find(|(v, _)| v["method"] == "subscriptions/listen")
        .expect("listen");
    assert!(listen.1.long_lived);
    assert_eq!(
        listen.0["params"]["notifications"]["toolsListChanged"],
        true
    );
    let (page1, meta) = d
        .sent
        .iter()
        .find(|(v, _)| v["method"] == "tools/list")
        .unwrap();
    assert_eq!(
        page1["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert_eq!(
        page1["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"],
        super::session::client_capabilities(),
        "a modern server asks (input_required) only what the client declared"
    );
    assert_eq!(meta.protocol_version.as_deref(), Some("2026-07-28"));
    assert_eq!(meta.era, Some(Era::Modern));

    s.handle_message(
        &readdress(&String::from_utf8_lossy(&p1.body), &page1["id"]),
        6.0,
    );
    let d = drain(&mut s);
    assert_eq!(tools_listed(&d.events), None, "not complete after page 1");
    let (page2, _) = &d.sent[0];
    assert_eq!(page2["params"]["cursor"], "b2Zmc2V0OjM=");
    s.handle_message(
        &readdress(&String::from_utf8_lossy(&p2.body), &page2["id"]),
        7.0,
    );
    let d = drain(&mut s);
    assert_eq!(
        tools_listed(&d.events).unwrap(),
        ["echo", "add", "slow", "image", "fail"]
    );

    // A tool call with progress, answered by the captured SSE stream.
    let mut args = serde_json::Map::new();
    args.insert("seconds".into(), json!(2));
    let id = s.call_tool("slow", Some(args), true, 100.0);
    let d = drain(&mut s);
    let (sent, meta) = &d.sent[0];
    assert_eq!(meta.name.as_deref(), Some("slow"));
    assert_eq!(sent["params"]["_meta"]["progressToken"], sent["id"]);
    let id_v = sent["id"].clone();
    for m in messages_in(&call.body) {
        let mut v: Value = serde_json::from_str(&m).unwrap();
        if v.get("params").is_some() {
            v["params"]["progressToken"] = id_v.clone();
        }
        s.handle_message(&readdress(&v.to_string(), &id_v), 200.0);
    }
    let d = drain(&mut s);
    let progress: Vec<f64> = d
        .events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Progress {
                id: pid,
                progress,
                total,
                ..
            } if *pid == id => {
                assert_eq!(*total, Some(4.0));
                Some(*progress)
            }
            _ => None,
        })
        .collect();
    assert_eq!(progress, [1.0, 2.0, 3.0, 4.0]);
    let r = responses(&d.events);
    assert_eq!(r.len(), 1);
    let result = r[0].1.as_ref().unwrap();
    assert_eq!(result["isError"], false);
}

#[test]
fn unsupported_version_error_retries_with_a_mutual_version() {
    let mut cfg = config();
    cfg.modern_versions = vec!["2027-01-01".into(), "2026-07-28".into()];
    let mut s = McpSession::new(cfg);
    s.connect(0.0);
    let d = drain(&mut s);
    let probe = d.id_of("server/discover");
    assert_eq!(d.sent[0].1.protocol_version.as_deref(), Some("2027-01-01"));
    s.handle_message(
        &error_msg(
            &probe,
            -32022,
            "Unsupported protocol version",
            json!({"supported": ["2026-07-28", "2025-11-25"], "requested": "2027-01-01"}),
        ),
        1.0,
    );
    let d = drain(&mut s);
    assert_eq!(
        d.methods(),
        ["server/discover"],
        "retried, not fallen back to initialize"
    );
    assert_eq!(
        d.sent[0].0["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    let probe2 = d.id_of("server/discover");
    s.handle_message(
        &result_msg(
            &probe2,
            json!({"supportedVersions": ["2026-07-28", "2025-11-25"], "capabilities": {}}),
        ),
        2.0,
    );
    let d = drain(&mut s);
    assert_eq!(ready(&d.events).map(|r| r.0), Some("2026-07-28".into()));

    // Same server later refusing a request's version: the request is re-sent with the one it
    // offers (it was never run), under the same id.
    let id = s.call_tool("t", None, false, 10.0);
    let d = drain(&mut s);
    let call = d.id_of("tools/call");
    s.handle_message(
        &error_msg(
            &call,
            -32022,
            "Unsupported protocol version",
            json!({"supported": ["2027-01-01"], "requested": "2026-07-28"}),
        ),
        11.0,
    );
    let d = drain(&mut s);
    assert_eq!(d.methods(), ["tools/call"]);
    assert_eq!(
        d.sent[0].0["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2027-01-01"
    );
    assert_eq!(rid(&d.sent[0].0["id"]), id);
    // And a second refusal of every version it has tried fails the call.
    s.handle_message(
        &error_msg(
            &call,
            -32022,
            "Unsupported protocol version",
            json!({"supported": ["2026-07-28"]}),
        ),
        12.0,
    );
    let d = drain(&mut s);
    assert!(d.sent.is_empty());
    assert!(matches!(
        &responses(&d.events)[0].1,
        Err(McpError::Rpc { code: -32022, .. })
    ));
}

#[test]
fn a_probe_refused_for_the_version_the_server_lists_asks_again_once() {
    // The conformance suite's request-metadata server refuses the first request whatever it
    // carries, listing the very version it refused: Skiff asks once more with it.
    let mut s = McpSession::new(config());
    s.connect(0.0);
    let probe = drain(&mut s).id_of("server/discover");
    let refusal = json!({"supported": ["2026-07-28"], "requested": "2026-07-28"});
    s.handle_message(
        &error_msg(
            &probe,
            -32022,
            "Unsupported protocol version",
            refusal.clone(),
        ),
        1.0,
    );
    let d = drain(&mut s);
    assert_eq!(d.methods(), ["server/discover"]);
    let probe2 = d.id_of("server/discover");
    assert_ne!(probe2, probe, "a new request, with its own id");
    assert_eq!(d.sent[0].1.protocol_version.as_deref(), Some("2026-07-28"));
    // A second refusal of it ends the probe.
    s.handle_message(
        &error_msg(&probe2, -32022, "Unsupported protocol version", refusal),
        2.0,
    );
    assert!(drain(&mut s).sent.is_empty());
    assert!(matches!(
        s.phase(),
        Phase::Failed(McpError::UnsupportedVersion { .. })
    ));
}

#[test]
fn no_common_version_fails_with_both_lists() {
    let mut s = McpSession::new(config());
    s.connect(0.0);
    let probe = drain(&mut s).id_of("server/discover");
    s.handle_message(
        &error_msg(
            &probe,
            -32022,
            "Unsupported protocol version",
            json!({"supported": ["2099-01-01"]}),
        ),
        1.0,
    );
    let d = drain(&mut s);
    assert!(d.sent.is_empty());
    match s.phase() {
        Phase::Failed(McpError::UnsupportedVersion { theirs, ours }) => {
            assert_eq!(theirs, &["2099-01-01"]);
            assert!(ours.contains(&"2026-07-28".to_string()));
        }
        p => panic!("{p:?}"),
    }
}

#[test]
fn probe_refused_at_http_level_falls_back_and_cached_legacy_reprobes() {
    let mut s = McpSession::new(config());
    s.connect(0.0);
    let probe = drain(&mut s).id_of("server/discover");
    let err = McpError::Http {
        status: 405,
        body: String::new(),
        hint: None,
    };
    s.request_failed(&rid(&probe), err, 1.0);
    assert_eq!(drain(&mut s).methods(), ["initialize"]);

    // Cached legacy: initialize goes first; when it is refused, the modern probe runs.
    let mut cfg = config();
    cfg.era_cache = Some(EraCache {
        era: Era::Legacy,
        version: "2025-11-25".into(),
        detected_at_ms: 0.0,
    });
    let mut s = McpSession::new(cfg);
    s.connect(0.0);
    let init = drain(&mut s).id_of("initialize");
    let err = McpError::Http {
        status: 400,
        body: "initialize is not a method".into(),
        hint: None,
    };
    s.request_failed(&rid(&init), err, 1.0);
    let d = drain(&mut s);
    assert_eq!(d.methods(), ["server/discover"]);
    s.handle_message(
        &result_msg(
            &d.id_of("server/discover"),
            json!({"supportedVersions": ["2026-07-28"], "capabilities": {}}),
        ),
        2.0,
    );
    let d = drain(&mut s);
    let cache = d.events.iter().find_map(|e| match e {
        SessionEvent::EraDetected(c) => Some(c.clone()),
        _ => None,
    });
    assert_eq!(
        cache.map(|c| (c.era, c.version)),
        Some((Era::Modern, "2026-07-28".into()))
    );
}

#[test]
fn pagination_follows_cursors_across_three_pages() {
    let mut s = McpSession::new(SessionConfig {
        auto_list: false,
        ..config()
    });
    legacy_ready(&mut s, 0.0);
    s.list_prompts(1.0);
    let mut cursors = Vec::new();
    for (page, next) in [(1, Some("c2")), (2, Some("c3")), (3, None)] {
        let d = drain(&mut s);
        assert_eq!(d.methods(), ["prompts/list"], "page {page}");
        cursors.push(d.sent[0].0["params"]["cursor"].clone());
        let mut result = json!({"prompts": [{"name": format!("p{page}")}]});
        if let Some(c) = next {
            result["nextCursor"] = json!(c);
        }
        s.handle_message(&result_msg(&d.id_of("prompts/list"), result), 2.0);
    }
    assert_eq!(cursors, [Value::Null, json!("c2"), json!("c3")]);
    let d = drain(&mut s);
    let names: Vec<String> = d
        .events
        .iter()
        .find_map(|e| match e {
            SessionEvent::PromptsListed(p) => Some(
                p.iter()
                    .map(|p| p["name"].as_str().unwrap_or_default().to_string())
                    .collect(),
            ),
            _ => None,
        })
        .expect("one event with the full list");
    assert_eq!(names, ["p1", "p2", "p3"]);
    assert!(d.sent.is_empty());
}

#[test]
fn a_repeated_cursor_stops_the_list() {
    let mut s = McpSession::new(SessionConfig {
        auto_list: false,
        ..config()
    });
    legacy_ready(&mut s, 0.0);
    s.list_tools(1.0);
    for _ in 0..2 {
        let id = drain(&mut s).id_of("tools/list");
        s.handle_message(
            &result_msg(&id, json!({"tools": [], "nextCursor": "same"})),
            2.0,
        );
    }
    let d = drain(&mut s);
    assert!(d.sent.is_empty());
    assert!(d.events.iter().any(|e| matches!(
        e,
        SessionEvent::ListFailed {
            kind: ListKind::Tools,
            error: McpError::EndlessPagination { .. }
        }
    )));
}

#[test]
fn cancel_tells_the_server_and_fails_locally_once() {
    let mut s = McpSession::new(SessionConfig {
        auto_list: false,
        ..config()
    });
    legacy_ready(&mut s, 0.0);
    let id = s.call_tool("trigger-long-running-operation", None, true, 1.0);
    let call = drain(&mut s).id_of("tools/call");
    assert!(s.cancel(&id, Some("user pressed stop"), 2.0));
    let d = drain(&mut s);
    assert_eq!(d.methods(), ["notifications/cancelled"]);
    assert_eq!(
        d.sent[0].0["params"],
        json!({"requestId": call, "reason": "user pressed stop"})
    );
    assert_eq!(d.aborted, std::slice::from_ref(&id));
    assert!(
        matches!(&responses(&d.events)[..], [(i, Err(McpError::Cancelled { reason: Some(_) }))] if *i == id)
    );
    // The server's late answer changes nothing.
    s.handle_message(&result_msg(&call, json!({"content": []})), 3.0);
    let d = drain(&mut s);
    assert!(responses(&d.events).is_empty());
    assert!(!s.cancel(&id, None, 4.0));
    assert_eq!(s.next_deadline(), None);
}

#[test]
fn a_request_times_out_exactly_at_its_deadline() {
    let mut s = McpSession::new(SessionConfig {
        auto_list: false,
        ..config()
    });
    legacy_ready(&mut s, 0.0);
    let id = s.call_tool("slow", None, false, 1_000.0);
    drain(&mut s);
    assert_eq!(s.next_deadline(), Some(6_000.0));
    s.handle_timeout(5_999.999);
    assert!(drain(&mut s).events.is_empty());
    s.handle_timeout(6_000.0);
    let d = drain(&mut s);
    assert_eq!(d.methods(), ["notifications/cancelled"]);
    match &responses(&d.events)[..] {
        [(i, Err(McpError::Timeout { method, after_ms }))] => {
            assert_eq!(i, &id);
            assert_eq!((method.as_str(), *after_ms), ("tools/call", 5_000));
        }
        r => panic!("{r:?}"),
    }
    assert_eq!(s.next_deadline(), None);
}

#[test]
fn progress_extends_the_deadline_up_to_the_hard_limit() {
    let mut s = McpSession::new(SessionConfig {
        auto_list: false,
        max_request_ms: 8_000.0,
        ..config()
    });
    legacy_ready(&mut s, 0.0);
    let id = s.call_tool("slow", None, true, 0.0);
    drain(&mut s);
    let progress = |p: f64| {
        json!({"jsonrpc": "2.0", "method": "notifications/progress",
        "params": {"progressToken": 2, "progress": p}})
        .to_string()
    };
    // Token 2 is not ours (ours is the call id): ignored.
    let ours = match &id {
        RequestId::Number(n) => *n,
        _ => unreachable!(),
    };
    assert_ne!(ours, 2);
    s.handle_message(&progress(1.0), 4_000.0);
    assert_eq!(s.next_deadline(), Some(5_000.0));
    let p = json!({"jsonrpc": "2.0", "method": "notifications/progress",
        "params": {"progressToken": ours, "progress": 1, "message": "one"}})
    .to_string();
    s.handle_message(&p, 4_000.0);
    assert_eq!(
        s.next_deadline(),
        Some(8_000.0),
        "min(4000 + 5000, hard limit 8000)"
    );
    let d = drain(&mut s);
    assert!(
        matches!(&d.events[..], [SessionEvent::Progress { message: Some(m), .. }] if m == "one")
    );
}

#[test]
fn health_check_pings_on_schedule_and_reports_failure() {
    let mut s = McpSession::new(SessionConfig {
        ping_interval_ms: Some(10_000.0),
        auto_list: false,
        ..config()
    });
    legacy_ready(&mut s, 0.0);
    assert_eq!(s.next_deadline(), Some(10_000.0));
    s.handle_timeout(10_000.0);
    let d = drain(&mut s);
    assert_eq!(d.methods(), ["ping"]);
    s.handle_message(&result_msg(&d.id_of("ping"), json!({})), 10_250.0);
    let d = drain(&mut s);
    assert_eq!(
        d.events,
        [SessionEvent::HealthOk {
            rtt_ms: 250.0,
            at_ms: 10_250.0
        }]
    );
    assert_eq!(s.next_deadline(), Some(20_250.0));
    s.handle_timeout(20_250.0);
    assert_eq!(drain(&mut s).methods(), ["ping"]);
    s.handle_timeout(25_250.0);
    let d = drain(&mut s);
    assert!(
        matches!(&d.events[..], [SessionEvent::HealthFailed { error: McpError::Timeout { .. }, at_ms }] if *at_ms == 25_250.0)
    );
}

#[test]
fn an_unanswered_health_check_fails_after_its_own_timeout_not_the_request_timeout() {
    // The defaults: a ping every 30 s, requests may take 60 s. A frozen server (stopped with
    // SIGSTOP: its socket stays open, so nothing else fails) is noticed 10 s after the ping.
    let mut s = McpSession::new(SessionConfig {
        ping_interval_ms: Some(30_000.0),
        request_timeout_ms: 60_000.0,
        auto_list: false,
        ..config()
    });
    legacy_ready(&mut s, 0.0);
    s.handle_timeout(30_000.0);
    assert_eq!(drain(&mut s).methods(), ["ping"]);
    assert_eq!(
        s.next_deadline(),
        Some(30_000.0 + super::session_requests::PING_TIMEOUT_MS)
    );
    s.handle_timeout(39_999.0);
    assert!(drain(&mut s).events.is_empty(), "not yet");
    s.handle_timeout(40_000.0);
    let d = drain(&mut s);
    assert!(
        matches!(&d.events[..], [SessionEvent::HealthFailed { error: McpError::Timeout { after_ms: 10_000, .. }, at_ms }] if *at_ms == 40_000.0),
        "{:?}",
        d.events
    );
    // A request timeout shorter than the ping timeout still bounds it.
    let mut s = McpSession::new(SessionConfig {
        ping_interval_ms: Some(1_000.0),
        request_timeout_ms: 2_000.0,
        auto_list: false,
        ..config()
    });
    legacy_ready(&mut s, 0.0);
    s.handle_timeout(1_000.0);
    drain(&mut s);
    assert_eq!(s.next_deadline(), Some(3_000.0));
}

#[test]
fn server_ping_is_answered_and_unknown_requests_get_method_not_found() {
    let mut s = McpSession::new(SessionConfig {
        auto_list: false,
        ..config()
    });
    legacy_ready(&mut s, 0.0);
    s.handle_message(r#"{"jsonrpc":"2.0","id":"srv-1","method":"ping"}"#, 1.0);
    s.handle_message(
        r#"[{"jsonrpc":"2.0","id":7,"method":"tasks/list","params":{}},
                        {"jsonrpc":"2.0","id":8,"method":"no/such"}]"#,
        1.0,
    );
    let d = drain(&mut s);
    let bodies: Vec<&Value> = d.sent.iter().map(|(v, _)| v).collect();
    assert_eq!(
        bodies[0],
        &json!({"jsonrpc": "2.0", "id": "srv-1", "result": {}})
    );
    for (b, id) in bodies[1..].iter().zip([7, 8]) {
        assert_eq!(b["id"], id);
        assert_eq!(b["error"]["code"], -32601);
    }
    assert_eq!(bodies.len(), 3);
}

#[test]
fn list_changed_relists_and_coalesces() {
    let mut s = McpSession::new(config());
    let d = legacy_ready(&mut s, 0.0);
    let first = d.id_of("tools/list");
    s.handle_message(
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
        1.0,
    );
    s.handle_message(
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
        1.0,
    );
    assert!(
        drain(&mut s).sent.is_empty(),
        "the running list is rerun, not doubled"
    );
    s.handle_message(
        &result_msg(
            &first,
            json!({"tools": [{"name": "old", "inputSchema": {}}]}),
        ),
        1_500.0,
    );
    let d = drain(&mut s);
    assert_eq!(
        tools_listed(&d.events),
        None,
        "a stale list is not reported"
    );
    let again = d.id_of("tools/list");
    s.handle_message(
        &result_msg(
            &again,
            json!({"tools": [{"name": "new", "inputSchema": {}}]}),
        ),
        1_600.0,
    );
    let d = drain(&mut s);
    assert_eq!(tools_listed(&d.events).unwrap(), ["new"]);
    // Later, with nothing running, a notification starts a fresh list.
    s.handle_message(
        r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
        3_000.0,
    );
    assert_eq!(drain(&mut s).methods(), ["tools/list"]);
}

#[test]
fn a_newly_opened_notification_stream_relists_what_can_change_once() {
    // server-everything announces tools it registers after `initialized` before the page's GET
    // stream exists, so that `list_changed` is dropped: the open stream re-lists instead.
    let mut s = McpSession::new(config());
    let d = legacy_ready(&mut s, 0.0);
    let first = d.id_of("tools/list");
    s.listener_opened(10.0);
    assert!(
        drain(&mut s).sent.is_empty(),
        "the running list reruns, not doubled"
    );
    s.handle_message(
        &result_msg(
            &first,
            json!({"tools": [{"name": "early", "inputSchema": {}}]}),
        ),
        20.0,
    );
    // What the first list found is shown at once; the re-list waits out the coalescing gap.
    assert_eq!(tools_listed(&drain(&mut s).events).unwrap(), ["early"]);
    assert_eq!(s.next_deadline(), Some(RELIST_GAP_MS));
    s.handle_timeout(RELIST_GAP_MS);
    let again = drain(&mut s).id_of("tools/list");
    s.handle_message(
        &result_msg(
            &again,
            json!({"tools": [{"name": "early", "inputSchema": {}}, {"name": "late", "inputSchema": {}}]}),
        ),
        1_100.0,
    );
    assert_eq!(
        tools_listed(&drain(&mut s).events).unwrap(),
        ["early", "late"]
    );
    assert_eq!(s.next_deadline(), None, "once, not a loop");
}

#[test]
fn a_notification_stream_relists_nothing_a_server_says_never_changes() {
    let mut s = McpSession::new(config());
    s.connect(0.0);
    let probe = drain(&mut s).id_of("server/discover");
    s.handle_message(
        &error_msg(&probe, -32000, "Server not initialized", Value::Null),
        0.0,
    );
    let init = drain(&mut s).id_of("initialize");
    s.handle_message(
        &result_msg(
            &init,
            json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                   "serverInfo": {"name": "srv", "version": "1"}}),
        ),
        0.0,
    );
    let list = drain(&mut s).id_of("tools/list");
    s.handle_message(&result_msg(&list, json!({"tools": []})), 1.0);
    drain(&mut s);
    s.listener_opened(5_000.0);
    assert!(drain(&mut s).sent.is_empty());
}

#[test]
fn expired_session_reinitializes_and_never_resends_the_tool_call() {
    let mut s = McpSession::new(config());
    let d = legacy_ready(&mut s, 0.0);
    let list = d.id_of("tools/list");
    let call = s.call_tool("write-file", None, false, 1.0);
    let d = drain(&mut s);
    let call_v = d.id_of("tools/call");
    let mut all_sent = d.sent.clone();

    s.session_expired(2.0);
    let d = drain(&mut s);
    all_sent.extend(d.sent.clone());
    assert_eq!(d.methods(), ["initialize"]);
    assert_eq!(s.phase(), &Phase::Initializing);
    match &responses(&d.events)[..] {
        [(
            id,
            Err(
                e @ McpError::SessionExpired {
                    in_flight_tool: true,
                },
            ),
        )] => {
            assert_eq!(id, &call);
            assert!(e.to_string().contains("did not send it again"));
        }
        r => panic!("{r:?}"),
    }
    // A request made while re-initializing waits for the new session.
    let later = s.read_resource("file:///a", 3.0);
    assert!(drain(&mut s).sent.is_empty());
    // The old session's answer to the list is ignored.
    s.handle_message(&result_msg(&list, json!({"tools": []})), 3.5);
    assert!(tools_listed(&drain(&mut s).events).is_none());

    let init = all_sent
        .iter()
        .rev()
        .find(|(v, _)| v["method"] == "initialize")
        .unwrap()
        .0["id"]
        .clone();
    s.handle_message(
        &result_msg(
            &init,
            json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                                  "serverInfo": {"name": "srv", "version": "2"}}),
        ),
        4.0,
    );
    let d = drain(&mut s);
    all_sent.extend(d.sent.clone());
    assert_eq!(ready(&d.events).map(|r| r.0), Some("2025-06-18".into()));
    let methods = d.methods();
    assert!(methods.contains(&"resources/read".to_string()));
    assert_eq!(rid(&d.id_of("resources/read")), later);
    assert_eq!(
        methods.iter().filter(|m| *m == "tools/list").count(),
        1,
        "{methods:?}"
    );
    let tool_calls: Vec<_> = all_sent
        .iter()
        .filter(|(v, _)| v["method"] == "tools/call")
        .collect();
    assert_eq!(tool_calls.len(), 1, "the tool call was sent exactly once");
    assert_eq!(tool_calls[0].0["id"], call_v);
}

#[test]
fn transport_loss_fails_in_flight_work_with_a_clear_error() {
    let mut s = McpSession::new(SessionConfig {
        auto_list: false,
        ..config()
    });
    legacy_ready(&mut s, 0.0);
    let call = s.call_tool("x", None, false, 1.0);
    let ping = s.ping(1.0);
    drain(&mut s);
    s.transport_lost("the SSE stream ended", 2.0);
    let d = drain(&mut s);
    let r = responses(&d.events);
    assert_eq!(r.len(), 2);
    for (id, res) in r {
        let Err(McpError::ConnectionLost {
            in_flight_tool,
            reason,
        }) = res
        else {
            panic!()
        };
        assert_eq!(reason, "the SSE stream ended");
        assert_eq!(
            in_flight_tool,
            id == call,
            "only the tool call may have run"
        );
        assert!(id == call || id == ping);
    }
    assert!(matches!(
        s.phase(),
        Phase::Failed(McpError::ConnectionLost { .. })
    ));
    // Requests while failed are refused at once; reconnecting sends only the handshake.
    let late = s.call_tool("x", None, false, 3.0);
    assert!(
        matches!(&responses(&drain(&mut s).events)[..], [(i, Err(McpError::NotConnected))] if *i == late)
    );
    s.connect(4.0);
    assert_eq!(
        drain(&mut s).methods(),
        ["initialize"],
        "cached legacy era: no probe"
    );
}

#[test]
fn requests_made_while_connecting_wait_and_time_out_if_never_ready() {
    let mut s = McpSession::new(config());
    s.connect(0.0);
    drain(&mut s);
    let id = s.call_tool("x", None, false, 100.0);
    assert_eq!(s.tool_calls_in_flight(), 1);
    assert!(drain(&mut s).sent.is_empty());
    // The probe's own deadline (5000) comes first: it times out into the legacy handshake.
    s.handle_timeout(5_000.0);
    let d = drain(&mut s);
    assert_eq!(d.methods(), ["initialize"]);
    s.handle_timeout(5_100.0);
    let d = drain(&mut s);
    assert!(matches!(&responses(&d.events)[..], [(i, Err(McpError::Timeout { .. }))] if *i == id));
    assert_eq!(s.tool_calls_in_flight(), 0);
}

fn modern_session() -> McpSession {
    let mut s = McpSession::new(config());
    s.connect(0.0);
    let probe = drain(&mut s).id_of("server/discover");
    s.handle_message(
        &result_msg(
            &probe,
            json!({"supportedVersions": ["2026-07-28"], "capabilities": {}}),
        ),
        1.0,
    );
    drain(&mut s);
    s
}

#[test]
fn input_required_asks_each_question_then_retries_with_the_answers() {
    let mut s = modern_session();
    let id = s.call_tool(
        "book",
        Some(
            json!({"room": "A"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        ),
        false,
        2.0,
    );
    let call = drain(&mut s).id_of("tools/call");
    s.handle_message(
        &result_msg(
            &call,
            json!({"resultType": "input_required", "requestState": "s1", "inputRequests": {
                "who": {"method": "elicitation/create", "params": {"message": "Name?",
                    "requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}}}},
                "where": {"method": "roots/list"}}}),
        ),
        3.0,
    );
    let d = drain(&mut s);
    assert!(d.sent.is_empty(), "nothing goes out before the answers");
    let asks: Vec<(RequestId, String)> = d
        .events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Ask { id, method, .. } => Some((id.clone(), method.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(asks.len(), 2, "{:?}", d.events);
    let by = |m: &str| {
        asks.iter()
            .find(|a| a.1 == m)
            .map(|a| a.0.clone())
            .expect(m)
    };
    let (who, roots) = (by("elicitation/create"), by("roots/list"));
    assert_eq!(
        s.next_deadline(),
        None,
        "no timeout while the user is asked"
    );

    assert!(s.answer_ask(&roots, Ok(json!({"roots": []})), 4.0));
    assert!(
        drain(&mut s).sent.is_empty(),
        "one answer of two sends nothing"
    );
    let elicit = json!({"action": "accept", "content": {"n": "Ada"}});
    assert!(s.answer_ask(&who, Ok(elicit.clone()), 5.0));
    let d = drain(&mut s);
    let [(retry, _)] = &d.sent[..] else {
        panic!("one retry: {:?}", d.sent)
    };
    assert_eq!(retry["method"], "tools/call");
    assert_ne!(retry["id"], call, "a retry is a new request");
    assert_eq!(retry["params"]["arguments"], json!({"room": "A"}));
    assert_eq!(retry["params"]["requestState"], "s1");
    assert_eq!(
        retry["params"]["inputResponses"],
        json!({"who": elicit, "where": {"roots": []}})
    );
    s.handle_message(
        &result_msg(
            &retry["id"],
            json!({"content": [{"type": "text", "text": "booked"}]}),
        ),
        6.0,
    );
    let d = drain(&mut s);
    assert!(
        matches!(&responses(&d.events)[..], [(i, Ok(r))] if *i == id && r["content"][0]["text"] == "booked"),
        "the caller gets the answer under its own id: {:?}",
        d.events
    );
}

#[test]
fn a_refused_question_ends_the_request_and_endless_rounds_stop() {
    let mut s = modern_session();
    let id = s.call_tool("ask", None, false, 2.0);
    let call = drain(&mut s).id_of("tools/call");
    let ask = json!({"resultType": "input_required", "inputRequests": {
        "q": {"method": "sampling/createMessage", "params": {"messages": [], "maxTokens": 5}}}});
    s.handle_message(&result_msg(&call, ask.clone()), 3.0);
    let d = drain(&mut s);
    let Some(SessionEvent::Ask { id: q, .. }) = d.events.first() else {
        panic!("{:?}", d.events)
    };
    assert!(s.answer_ask(q, Err((-1, "User rejected sampling request".into())), 4.0));
    let d = drain(&mut s);
    assert!(d.sent.is_empty());
    assert!(
        matches!(&responses(&d.events)[..], [(i, Err(McpError::Cancelled { reason: Some(r) }))] if *i == id && r.contains("User rejected")),
        "{:?}",
        d.events
    );

    // A server that asks again after every answer ends after MAX_ROUNDS.
    let id = s.call_tool("ask", None, false, 10.0);
    let mut call = drain(&mut s).id_of("tools/call");
    for round in 0..super::session_mrtr::MAX_ROUNDS {
        s.handle_message(&result_msg(&call, ask.clone()), 11.0);
        let d = drain(&mut s);
        if let [(i, Err(McpError::Protocol(why)))] = &responses(&d.events)[..] {
            assert_eq!(*i, id);
            assert!(why.contains("kept asking"), "{why}");
            assert_eq!(round + 1, super::session_mrtr::MAX_ROUNDS);
            return;
        }
        let Some(SessionEvent::Ask { id: q, .. }) = d.events.first() else {
            panic!("{:?}", d.events)
        };
        assert!(s.answer_ask(q, Ok(json!({"role": "assistant"})), 12.0));
        call = drain(&mut s).id_of("tools/call");
    }
    panic!("the rounds never ended");
}

#[test]
fn an_empty_input_required_is_an_error_and_a_lost_session_fails_the_waiting_call() {
    let mut s = modern_session();
    let id = s.call_tool("ask", None, false, 2.0);
    let call = drain(&mut s).id_of("tools/call");
    s.handle_message(
        &result_msg(
            &call,
            json!({"resultType": "input_required", "inputRequests": {}}),
        ),
        3.0,
    );
    let d = drain(&mut s);
    assert!(matches!(&responses(&d.events)[..], [(i, Err(McpError::Protocol(_)))] if *i == id));

    let id = s.call_tool("ask", None, false, 4.0);
    let call = drain(&mut s).id_of("tools/call");
    s.handle_message(
        &result_msg(
            &call,
            json!({"resultType": "input_required", "inputRequests": {
            "r": {"method": "roots/list"}}}),
        ),
        5.0,
    );
    drain(&mut s);
    s.transport_lost("gone", 6.0);
    let d = drain(&mut s);
    assert!(
        d.events
            .iter()
            .any(|e| matches!(e, SessionEvent::ElicitGone { .. })),
        "{:?}",
        d.events
    );
    assert!(
        matches!(&responses(&d.events)[..], [(i, Err(McpError::ConnectionLost { .. }))] if *i == id),
        "{:?}",
        d.events
    );
    // Modern ping uses server/discover (2026-07-28 removed ping).
}

/// The captured WebSocket frames of a Python `mcp[ws]` 1.x server killed mid-call and restarted.
fn ws_frames(name: &str) -> Vec<(char, String)> {
    let path = super::test_support::fixture_dir()
        .join("captured/ws-python")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("ws capture");
    text.lines()
        .filter_map(|l| {
            let (dir, rest) = l.split_at_checked(2)?;
            match dir {
                "> " => Some(('>', rest.to_string())),
                "< " => Some(('<', rest.to_string())),
                _ => None,
            }
        })
        .collect()
}

#[test]
fn websocket_server_killed_mid_call_then_restarted() {
    let frames = ws_frames("restart.frames");
    let received: Vec<&String> = frames
        .iter()
        .filter(|(d, _)| *d == '<')
        .map(|(_, m)| m)
        .collect();
    assert_eq!(received.len(), 3, "init, init, echo answer");
    let mut s = McpSession::new(SessionConfig {
        legacy_only: true,
        auto_list: false,
        ..config()
    });
    let mut sent_calls = Vec::new();
    s.connect(0.0);
    let d = drain(&mut s);
    assert_eq!(
        d.methods(),
        ["initialize"],
        "no modern probe over WebSocket"
    );
    s.handle_message(&readdress(received[0], &d.id_of("initialize")), 1.0);
    let d = drain(&mut s);
    assert_eq!(
        ready(&d.events).map(|r| r.2),
        Some(Some("skiff-ws-test-server".into()))
    );
    let slow = s.call_tool("slow", None, false, 2.0);
    sent_calls.extend(drain(&mut s).sent);
    // SIGKILL: the socket closes with 1006 and no answer.
    s.transport_lost("the WebSocket closed (code 1006)", 3.0);
    let d = drain(&mut s);
    assert!(matches!(&responses(&d.events)[..],
        [(i, Err(McpError::ConnectionLost { in_flight_tool: true, .. }))] if *i == slow));
    // Restarted: a new connection and handshake heal it; the next call works.
    s.connect(10.0);
    let d = drain(&mut s);
    sent_calls.extend(d.sent.clone());
    s.handle_message(&readdress(received[1], &d.id_of("initialize")), 11.0);
    sent_calls.extend(drain(&mut s).sent);
    let mut args = serde_json::Map::new();
    args.insert("message".into(), json!("after restart"));
    let echo = s.call_tool("echo", Some(args), false, 12.0);
    let d = drain(&mut s);
    sent_calls.extend(d.sent.clone());
    s.handle_message(&readdress(received[2], &d.id_of("tools/call")), 13.0);
    let d = drain(&mut s);
    match &responses(&d.events)[..] {
        [(i, Ok(v))] => {
            assert_eq!(i, &echo);
            assert_eq!(v["content"][0]["text"], "Echo: after restart");
        }
        r => panic!("{r:?}"),
    }
    let slow_sends = sent_calls
        .iter()
        .filter(|(v, _)| v["params"]["name"] == "slow")
        .count();
    assert_eq!(slow_sends, 1, "the interrupted call was not repeated");
}

#[test]
fn a_modern_tool_call_mirrors_declared_arguments_and_a_broken_declaration_is_refused() {
    let Some(disc) = exchange("modern-python", "01-modern-discover") else {
        panic!("captures missing under tests/fixtures/mcp/captured/modern-python");
    };
    let (mut s, d) = discovered(&disc.body, 1.0);
    let (list, _) = d
        .sent
        .iter()
        .find(|(v, _)| v["method"] == "tools/list")
        .expect("tools/list");
    let region = json!({"type": "string", "x-mcp-header": "Region"});
    let tools = json!({"tools": [
        {"name": "route", "inputSchema": {"type": "object", "properties": {"region": region, "n": {"type": "integer"}}}},
        {"name": "broken", "inputSchema": {"type": "object", "properties": {"a": {"type": "object", "x-mcp-header": "A"}}}},
        {"name": "plain", "inputSchema": {"type": "object"}}
    ]});
    s.handle_message(&result_msg(&list["id"], tools), 2.0);
    drain(&mut s);
    let args = |v: Value| v.as_object().cloned();
    s.call_tool(
        "route",
        args(json!({"region": "eu-west", "n": 3})),
        false,
        3.0,
    );
    let d = drain(&mut s);
    let (_, meta) = d
        .sent
        .iter()
        .find(|(v, _)| v["method"] == "tools/call")
        .expect("route is called");
    assert_eq!(
        meta.param_headers,
        [("Mcp-Param-Region".to_string(), "eu-west".to_string())]
    );
    s.call_tool("plain", None, false, 4.0);
    let d = drain(&mut s);
    assert!(d.sent.iter().all(|(_, m)| m.param_headers.is_empty()));
    // The server would refuse a call without the header it declared; Skiff says why at once.
    let id = s.call_tool("broken", args(json!({"a": {}})), false, 5.0);
    let d = drain(&mut s);
    assert!(
        d.sent.is_empty(),
        "nothing is sent for a tool that cannot be called"
    );
    let error = d
        .events
        .iter()
        .find_map(|e| match e {
            SessionEvent::Response {
                id: i,
                result: Err(e),
                ..
            } if *i == id => Some(e.to_string()),
            _ => None,
        })
        .expect("an error for the call");
    assert!(
        error.contains("tool broken cannot be called") && !error.contains(".)"),
        "{error}"
    );
}
