//! The supervisor driven with time passed in: the exact reconnect schedule, give-up, heal,
//! the handshake timeout, the WebSocket handshake queue, coalesced re-lists, the limit on what
//! a server may ask, the resend-once rule for a session that expired, and each transport.

use serde_json::{json, Map, Value};

use super::*;
use crate::mcp::backoff::HealthStatus;
use crate::mcp::config::ServerConfig;
use crate::mcp::http_common::Token;
use crate::mcp::supervisor_types::WsReport;

/// A supervisor and everything it asked for, in order.
struct Rig {
    sup: Supervisor,
    now: f64,
    seen: Vec<Action>,
}

fn setup(url: &str, attempts: Option<u32>) -> Setup {
    let mut config = ServerConfig::new("s1", "server", url);
    config.max_attempts = attempts;
    config.ping_interval_ms = None;
    Setup {
        config,
        era_cache: None,
        page_is_https: false,
    }
}

impl Rig {
    fn new(kind: ServerKind, url: &str, attempts: Option<u32>) -> Self {
        Rig {
            sup: Supervisor::new(kind, setup(url, attempts)),
            now: 0.0,
            seen: Vec::new(),
        }
    }

    fn ws() -> Self {
        Rig::new(ServerKind::Remote, "ws://127.0.0.1:9/mcp", None)
    }

    fn take(&mut self) -> Vec<Action> {
        let mut out = Vec::new();
        while let Some(a) = self.sup.poll_action() {
            out.push(a);
        }
        self.seen.extend(out.iter().cloned());
        out
    }

    /// Advance to `at` and fire the timer if it is due.
    fn at(&mut self, at: f64) -> Vec<Action> {
        self.now = at;
        if self.sup.poll_timeout().is_some_and(|t| t <= at) {
            self.sup.handle_timeout(at);
        }
        self.take()
    }

    fn status(&self) -> Option<HealthStatus> {
        self.seen.iter().rev().find_map(|a| match a {
            Action::Status(s) => Some(s.clone()),
            _ => None,
        })
    }

    fn logs(&self) -> Vec<String> {
        self.seen
            .iter()
            .filter_map(|a| match a {
                Action::Log(l) => Some(l.clone()),
                _ => None,
            })
            .collect()
    }

    /// The WebSocket opens and the server answers `initialize`: returns the link.
    fn ws_ready(&mut self, caps: Value) -> LinkId {
        self.take();
        let link = opened_socket(&self.seen)
            .and(self.seen.iter().rev().find_map(|a| match a {
                Action::OpenSocket { link, .. } => Some(*link),
                _ => None,
            }))
            .expect("OpenSocket");
        self.sup.handle_ws(
            link,
            WsReport::Open {
                protocol: "mcp".into(),
            },
            self.now,
        );
        let init = frames(&self.take(), "initialize").remove(0);
        self.sup.handle_ws(
            link,
            WsReport::Text(init_result(&init["id"], caps)),
            self.now,
        );
        link
    }
}

fn opened_socket(actions: &[Action]) -> Option<LinkId> {
    actions.iter().find_map(|a| match a {
        Action::OpenSocket { link, .. } => Some(*link),
        _ => None,
    })
}

fn frames(actions: &[Action], method: &str) -> Vec<Value> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::SendFrame { text, .. } => serde_json::from_str::<Value>(text).ok(),
            _ => None,
        })
        .filter(|v| method.is_empty() || v["method"] == method)
        .collect()
}

fn init_result(id: &Value, caps: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2025-06-18",
        "capabilities": caps, "serverInfo": {"name": "srv", "version": "1"}}})
    .to_string()
}

fn replies(actions: &[Action]) -> Vec<(CallKey, Result<Value, McpError>)> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Reply { key, result } => Some((*key, result.clone())),
            _ => None,
        })
        .collect()
}

fn tool(name: &str) -> Request {
    Request::Tool {
        name: name.into(),
        args: Map::new(),
    }
}

fn refused(link: LinkId) -> WsReport {
    let _ = link;
    WsReport::Closed {
        code: 1006,
        reason: String::new(),
        was_clean: false,
    }
}

/// Fail every attempt before the socket opens; return the waits between attempts.
fn waits_while_refused(r: &mut Rig, attempts: usize) -> Vec<f64> {
    let mut waits = Vec::new();
    let mut link = opened_socket(&r.take()).expect("first attempt");
    for _ in 0..attempts {
        r.sup.handle_ws(link, refused(link), r.now);
        r.take();
        let Some(next) = r.sup.poll_timeout() else {
            break;
        };
        waits.push(next - r.now);
        // Nothing happens a millisecond early.
        assert!(opened_socket(&r.at(next - 1.0)).is_none());
        link = opened_socket(&r.at(next)).expect("reconnects when due");
    }
    waits
}

#[test]
fn the_reconnect_schedule_is_exactly_1_2_4_8_16_then_30_seconds() {
    let mut r = Rig::ws();
    r.sup.handle_connect(0.0);
    let waits = waits_while_refused(&mut r, 8);
    assert_eq!(
        waits,
        [1e3, 2e3, 4e3, 8e3, 16e3, 30e3, 30e3, 30e3],
        "{:?}",
        r.logs()
    );
    assert!(matches!(r.status(), Some(HealthStatus::Connecting { .. })));
    assert!(r
        .logs()
        .contains(&"Reconnecting in 1.0 s (attempt 1).".to_string()));
    assert!(r
        .logs()
        .contains(&"Failed again, the same way.".to_string()));
}

#[test]
fn it_gives_up_after_the_configured_attempts_and_retry_now_starts_over() {
    let mut r = Rig::new(ServerKind::Remote, "ws://127.0.0.1:9/mcp", Some(2));
    r.sup.handle_connect(0.0);
    let waits = waits_while_refused(&mut r, 3);
    assert_eq!(waits, [1e3, 2e3]);
    match r.status() {
        Some(HealthStatus::Error { message }) => {
            assert!(
                message.contains("Gave up after 2 reconnect attempts"),
                "{message}"
            );
        }
        s => panic!("{s:?}"),
    }
    assert_eq!(r.sup.poll_timeout(), None, "no timer after giving up");
    r.sup.handle_retry_now(10_000.0);
    assert!(opened_socket(&r.take()).is_some(), "retry now connects");
    // The browser coming back online also restarts a given-up server.
    let mut r = Rig::new(ServerKind::Remote, "ws://127.0.0.1:9/mcp", Some(0));
    r.sup.handle_connect(0.0);
    let link = opened_socket(&r.take()).unwrap();
    r.sup.handle_ws(link, refused(link), 0.0);
    r.take();
    assert!(matches!(r.status(), Some(HealthStatus::Error { .. })));
    r.sup.handle_online(5.0);
    assert!(opened_socket(&r.take()).is_some());
}

#[test]
fn a_refused_handshake_says_a_websocket_cannot_carry_a_sign_in() {
    let mut r = Rig::new(ServerKind::Remote, "ws://127.0.0.1:9/mcp", Some(0));
    r.sup.handle_connect(0.0);
    let link = opened_socket(&r.take()).unwrap();
    r.sup.handle_ws(link, refused(link), 0.0);
    r.take();
    match r.status() {
        Some(HealthStatus::Error { message }) => assert!(
            message.contains("cannot send an Authorization header on a WebSocket"),
            "{message}"
        ),
        s => panic!("{s:?}"),
    }
}

#[test]
fn a_killed_server_fails_the_call_in_flight_once_and_heals_on_restart() {
    let mut r = Rig::ws();
    r.sup.handle_connect(0.0);
    let link = r.ws_ready(json!({"tools": {}}));
    let list = frames(&r.take(), "tools/list").remove(0);
    r.sup.handle_ws(
        link,
        WsReport::Text(
            json!({"jsonrpc": "2.0", "id": list["id"], "result": {"tools": [{"name": "slow", "inputSchema": {}}]}})
                .to_string(),
        ),
        1.0,
    );
    let a = r.take();
    assert!(
        a.contains(&Action::Status(HealthStatus::Connected { since_ms: 0.0 })),
        "{a:?}"
    );
    assert!(
        a.contains(&Action::Transport("WebSocket"))
            || r.seen.contains(&Action::Transport("WebSocket"))
    );
    r.sup.handle_request(7, tool("slow"), 2.0);
    assert_eq!(frames(&r.take(), "tools/call").len(), 1);
    // Killed: the call says it may have run, and is never sent again.
    r.sup.handle_ws(link, refused(link), 3.0);
    let a = r.take();
    match &replies(&a)[..] {
        [(7, Err(e))] => assert!(e.tool_may_have_run(), "{e:?}"),
        other => panic!("{other:?}"),
    }
    assert!(a.contains(&Action::DropLink(link)));
    assert!(matches!(
        r.status(),
        Some(HealthStatus::Reconnecting { at_ms, attempt: 1, .. }) if at_ms == 1_003.0
    ));
    // Reports about the dead link change nothing.
    r.sup.handle_ws(link, WsReport::Text("{}".into()), 4.0);
    assert!(r.take().is_empty());
    // Restarted: the reconnect heals with a fresh session.
    r.at(1_003.0);
    r.now = 1_003.0;
    r.ws_ready(json!({}));
    r.take();
    assert!(matches!(r.status(), Some(HealthStatus::Connected { .. })));
    let calls: usize = r
        .seen
        .iter()
        .filter(|a| matches!(a, Action::SendFrame { text, .. } if text.contains("tools/call")))
        .count();
    assert_eq!(calls, 1, "the tool call went out exactly once");
}

#[test]
fn a_frozen_server_is_not_answering_within_the_ping_interval_and_its_timeout() {
    // A server stopped with SIGSTOP keeps its socket open: nothing fails, nothing answers.
    let mut r = Rig::ws();
    let mut s = setup("ws://127.0.0.1:9/mcp", None);
    s.config.ping_interval_ms = Some(30_000);
    s.config.request_timeout_ms = 60_000;
    r.sup.set_setup(s);
    r.sup.handle_connect(0.0);
    let link = r.ws_ready(json!({}));
    r.take();
    assert!(matches!(r.status(), Some(HealthStatus::Connected { .. })));
    r.sup.handle_request(7, tool("slow"), 1_000.0);
    r.take();
    assert_eq!(frames(&r.at(30_000.0), "ping").len(), 1);
    r.at(39_999.0);
    assert!(matches!(r.status(), Some(HealthStatus::Connected { .. })));
    let a = r.at(40_000.0);
    assert!(a.contains(&Action::DropLink(link)), "{a:?}");
    assert!(
        matches!(
            r.status(),
            Some(HealthStatus::Reconnecting { attempt: 1, .. })
        ),
        "{:?}",
        r.status()
    );
    assert!(
        r.logs().iter().any(|l| l.contains("not answering")),
        "{:?}",
        r.logs()
    );
    let notice = failure_notices(&r);
    assert!(
        notice.len() == 1 && notice[0].contains("not answering"),
        "{notice:?}"
    );
    // The call in flight says it may have run, and why.
    match &replies(&a)[..] {
        [(7, Err(e))] => {
            assert!(e.tool_may_have_run(), "{e:?}");
            assert!(e.to_string().contains("not answering"), "{e}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn accept_then_abnormal_close_gets_the_same_backoff_as_a_refusal() {
    let mut r = Rig::ws();
    r.sup.handle_connect(0.0);
    let mut waits = Vec::new();
    for _ in 0..4 {
        // Accepted, handshake done, then dropped at once: no tight loop.
        let link = r.ws_ready(json!({}));
        r.take();
        assert!(matches!(r.status(), Some(HealthStatus::Connected { .. })));
        r.sup.handle_ws(link, refused(link), r.now + 5.0);
        r.take();
        let next = r.sup.poll_timeout().expect("a reconnect is scheduled");
        waits.push(next - (r.now + 5.0));
        r.at(next);
        // `at` took the OpenSocket action; give it back to `ws_ready` via `seen`.
        let link = r.seen.iter().rev().find_map(|a| match a {
            Action::OpenSocket { link, .. } => Some(*link),
            _ => None,
        });
        r.sup.handle_ws(
            link.unwrap(),
            WsReport::Open {
                protocol: "mcp".into(),
            },
            r.now,
        );
        let init = frames(&r.take(), "initialize").remove(0);
        r.sup.handle_ws(
            link.unwrap(),
            WsReport::Text(init_result(&init["id"], json!({}))),
            r.now,
        );
        // Drop again straight after.
        r.sup
            .handle_ws(link.unwrap(), refused(link.unwrap()), r.now + 5.0);
        r.take();
        let next = r.sup.poll_timeout().expect("a reconnect is scheduled");
        waits.push(next - (r.now + 5.0));
        r.now = next;
        r.sup.handle_timeout(next);
    }
    assert_eq!(&waits[..6], [1e3, 2e3, 4e3, 8e3, 16e3, 30e3]);
    // A connection that stayed up starts the schedule over.
    let mut r = Rig::ws();
    r.sup.handle_connect(0.0);
    let link = r.ws_ready(json!({}));
    r.take();
    r.sup.handle_ws(link, refused(link), STABLE_AFTER_MS + 1.0);
    r.take();
    assert_eq!(r.sup.poll_timeout(), Some(STABLE_AFTER_MS + 1_001.0));
}

#[test]
fn a_handshake_that_never_answers_times_out_with_a_sentence_and_backs_off() {
    for url in ["http://127.0.0.1:9/mcp", "ws://127.0.0.1:9/mcp"] {
        let mut r = Rig::new(ServerKind::Remote, url, None);
        r.sup.handle_connect(0.0);
        let a = r.take();
        if let Some(link) = opened_socket(&a) {
            r.sup.handle_ws(
                link,
                WsReport::Open {
                    protocol: "mcp".into(),
                },
                10.0,
            );
        } else if let Some(Action::Fetch { link, token, .. }) =
            a.iter().find(|a| matches!(a, Action::Fetch { .. }))
        {
            // Accepted: the head of an event stream, then silence.
            let sse = [("content-type".to_string(), "text/event-stream".to_string())];
            r.sup.handle_fetch_head(*link, *token, 200, &sse, 10.0);
        }
        r.take();
        assert_eq!(r.sup.poll_timeout(), Some(HANDSHAKE_TIMEOUT_MS), "{url}");
        assert!(r.at(HANDSHAKE_TIMEOUT_MS - 1.0).is_empty());
        let a = r.at(HANDSHAKE_TIMEOUT_MS);
        assert!(
            a.iter().any(|a| matches!(a, Action::DropLink(_))),
            "{url}: {a:?}"
        );
        let log = r.logs().join("\n");
        assert!(
            log.contains("did not finish the MCP handshake within 20 s"),
            "{url}: {log}"
        );
        assert!(
            matches!(r.status(), Some(HealthStatus::Reconnecting { attempt: 1, at_ms, .. }) if at_ms == HANDSHAKE_TIMEOUT_MS + 1_000.0),
            "{url}: {:?}",
            r.status()
        );
    }
}

#[test]
fn requests_wait_for_the_websocket_to_open_and_go_out_after_the_handshake() {
    let mut r = Rig::ws();
    r.sup.handle_connect(0.0);
    let link = opened_socket(&r.take()).unwrap();
    r.sup.handle_request(1, tool("echo"), 1.0);
    r.sup.handle_request(2, Request::Ping, 1.0);
    r.sup.handle_request(3, tool("cancelled"), 1.0);
    r.sup.handle_cancel(3, Some("stop".into()), 1.5);
    let a = r.take();
    assert!(
        frames(&a, "").is_empty(),
        "nothing is sent before the socket opens"
    );
    assert!(matches!(
        &replies(&a)[..],
        [(3, Err(McpError::Cancelled { .. }))]
    ));
    assert!(matches!(
        r.status(),
        Some(HealthStatus::Connecting {
            step: crate::mcp::backoff::ConnectStep::OpeningSocket
        })
    ));
    r.sup.handle_ws(
        link,
        WsReport::Open {
            protocol: "mcp".into(),
        },
        2.0,
    );
    let a = r.take();
    let sent: Vec<Value> = frames(&a, "");
    assert_eq!(
        sent.len(),
        1,
        "only the handshake before it finishes: {sent:?}"
    );
    r.sup.handle_ws(
        link,
        WsReport::Text(init_result(&sent[0]["id"], json!({}))),
        3.0,
    );
    let a = r.take();
    let methods: Vec<Value> = frames(&a, "").iter().map(|f| f["method"].clone()).collect();
    assert_eq!(
        methods,
        [
            json!("notifications/initialized"),
            json!("tools/call"),
            json!("ping")
        ]
    );
    let call = frames(&a, "tools/call").remove(0);
    r.sup.handle_ws(
        link,
        WsReport::Text(
            json!({"jsonrpc": "2.0", "id": call["id"], "result": {"content": []}}).to_string(),
        ),
        4.0,
    );
    assert_eq!(replies(&r.take()), [(1, Ok(json!({"content": []})))]);
    // Requests still waiting when the socket never opens fail without claiming they ran.
    let mut r = Rig::ws();
    r.sup.handle_connect(0.0);
    let link = opened_socket(&r.take()).unwrap();
    r.sup.handle_request(9, tool("echo"), 1.0);
    r.sup.handle_ws(link, refused(link), 2.0);
    match &replies(&r.take())[..] {
        [(9, Err(e))] => assert!(!e.tool_may_have_run(), "{e:?}"),
        other => panic!("{other:?}"),
    }
}

/// An in-page server that answers the handshake and counts `tools/list`.
fn counting_in_page() -> (Rig, LinkId) {
    let mut r = Rig::new(ServerKind::InPage, "", None);
    r.sup.handle_connect(0.0);
    let link = serve_in_page(&mut r);
    (r, link)
}

/// Answer what the supervisor sent to the in-page server until it is quiet; returns the link.
fn serve_in_page(r: &mut Rig) -> LinkId {
    let mut link = 0;
    loop {
        let sent: Vec<(LinkId, Value)> = r
            .take()
            .into_iter()
            .filter_map(|a| match a {
                Action::ToInPage { link, text } => Some((link, serde_json::from_str(&text).ok()?)),
                _ => None,
            })
            .collect();
        if sent.is_empty() {
            return link;
        }
        for (l, msg) in sent {
            link = l;
            let answer = match msg["method"].as_str() {
                Some("initialize") => {
                    init_result(&msg["id"], json!({"tools": {"listChanged": true}}))
                }
                Some("tools/list") => {
                    json!({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": []}}).to_string()
                }
                _ => continue,
            };
            r.sup.handle_in_page_message(l, &answer, r.now);
        }
    }
}

#[test]
fn a_list_changed_flood_is_coalesced_to_one_relist_a_second() {
    let (mut r, link) = counting_in_page();
    assert!(
        matches!(r.status(), Some(HealthStatus::Connected { .. })),
        "{:?}",
        r.seen
    );
    assert!(r.sup.has_link());
    let lists_before = r
        .seen
        .iter()
        .filter(|a| matches!(a, Action::ToInPage { text, .. } if text.contains("tools/list")))
        .count();
    // 500 notifications a second for 3 s.
    let changed = r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#;
    for i in 0..1_500 {
        r.now = 10.0 + f64::from(i) * 2.0;
        if r.sup.poll_timeout().is_some_and(|t| t <= r.now) {
            r.sup.handle_timeout(r.now);
        }
        r.sup.handle_in_page_message(link, changed, r.now);
        serve_in_page(&mut r);
    }
    r.now = 10_000.0;
    if r.sup.poll_timeout().is_some_and(|t| t <= r.now) {
        r.sup.handle_timeout(r.now);
    }
    serve_in_page(&mut r);
    let lists = r
        .seen
        .iter()
        .filter(|a| matches!(a, Action::ToInPage { text, .. } if text.contains("tools/list")))
        .count()
        - lists_before;
    assert!(
        (3..=5).contains(&lists),
        "{lists} re-lists for 1,500 notifications in 3 s"
    );
    assert_eq!(
        r.sup.poll_timeout(),
        None,
        "nothing left pending after the flood"
    );
}

#[test]
fn a_ping_flood_is_answered_up_to_the_limit_and_said_once() {
    let mut r = Rig::ws();
    r.sup.handle_connect(0.0);
    let link = r.ws_ready(json!({}));
    r.take();
    for i in 0..1_000 {
        let ping = json!({"jsonrpc": "2.0", "id": format!("p{i}"), "method": "ping"}).to_string();
        r.sup
            .handle_ws(link, WsReport::Text(ping), 100.0 + f64::from(i));
    }
    let answered = frames(&r.take(), "").len();
    assert_eq!(answered, 20, "answers in 1 s");
    let said: Vec<String> = r
        .logs()
        .into_iter()
        .filter(|l| l.contains("leaves the excess unanswered"))
        .collect();
    assert_eq!(said.len(), 1, "{said:?}");
    // The next second is answered again.
    let ping = json!({"jsonrpc": "2.0", "id": "later", "method": "ping"}).to_string();
    r.sup.handle_ws(link, WsReport::Text(ping), 1_200.0);
    assert_eq!(frames(&r.take(), "").len(), 1);
    assert!(matches!(r.status(), Some(HealthStatus::Connected { .. })));
}

// ---------------------------------------------------------------------------------------
// Streamable HTTP: a legacy server with sessions, restarted

/// One fetch the supervisor asked for.
struct Sent {
    link: LinkId,
    token: Token,
    method: crate::http::Method,
    session: Option<String>,
    last_event_id: Option<String>,
    body: Value,
}

fn fetches(actions: &[Action]) -> Vec<Sent> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Fetch {
                link,
                token,
                request,
            } => Some(Sent {
                link: *link,
                token: *token,
                method: request.method,
                session: request.header("mcp-session-id").map(str::to_string),
                last_event_id: request.header("last-event-id").map(str::to_string),
                body: serde_json::from_str(request.body.as_deref().unwrap_or("null"))
                    .unwrap_or(Value::Null),
            }),
            _ => None,
        })
        .collect()
}

fn json_head(session: &str) -> Vec<(String, String)> {
    vec![
        ("content-type".into(), "application/json".into()),
        ("mcp-session-id".into(), session.into()),
    ]
}

impl Rig {
    fn answer(&mut self, f: &Sent, status: u16, headers: &[(String, String)], body: &str) {
        self.sup
            .handle_fetch_head(f.link, f.token, status, headers, self.now);
        if !body.is_empty() {
            self.sup
                .handle_fetch_chunk(f.link, f.token, body.as_bytes(), self.now);
        }
        self.sup.handle_fetch_end(f.link, f.token, self.now);
    }

    /// Answer everything sent until the server is idle with session `sid`; returns the open
    /// GET stream.
    fn http_serve(&mut self, sid: &str, mut pending: Vec<Sent>) -> Option<Sent> {
        let mut get = None;
        while let Some(f) = pending.pop() {
            let method = f.body["method"].as_str().unwrap_or("").to_string();
            match (f.method, method.as_str()) {
                (crate::http::Method::Get, _) => {
                    let sse = [("content-type".to_string(), "text/event-stream".to_string())];
                    self.sup
                        .handle_fetch_head(f.link, f.token, 200, &sse, self.now);
                    get = Some(f);
                }
                (_, "server/discover") => self.answer(&f, 404, &[], "Not Found"),
                (_, "initialize") => {
                    let body = init_result(&f.body["id"], json!({}));
                    self.answer(&f, 200, &json_head(sid), &body);
                }
                (_, "tools/call") => {
                    let body = json!({"jsonrpc": "2.0", "id": f.body["id"], "result": {"content": [{"type": "text", "text": sid}]}}).to_string();
                    self.answer(&f, 200, &json_head(sid), &body);
                }
                _ => self.answer(&f, 202, &[], ""),
            }
            pending.extend(fetches(&self.take()));
        }
        get
    }
}

fn no_session_body() -> &'static str {
    r#"{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}"#
}

#[test]
fn streamable_http_connects_and_a_quick_restart_while_idle_reinitializes_at_once() {
    let mut r = Rig::new(ServerKind::Remote, "http://127.0.0.1:9/mcp", None);
    r.sup.handle_connect(0.0);
    let first = fetches(&r.take());
    let get = r
        .http_serve("old", first)
        .expect("a GET stream after the handshake");
    assert!(r.seen.contains(&Action::Transport("Streamable HTTP")));
    assert!(matches!(r.status(), Some(HealthStatus::Connected { .. })));
    // The server is killed: the GET stream breaks; it is back before the resume.
    r.now = 5_000.0;
    r.sup
        .handle_fetch_error(get.link, get.token, "network error", r.now);
    r.take();
    let due = r.sup.poll_timeout().expect("the GET stream is resumed");
    assert!(due <= r.now + 1_000.0, "resumed within a second: {due}");
    let resumed = fetches(&r.at(due));
    assert_eq!(resumed.len(), 1);
    assert_eq!(resumed[0].session.as_deref(), Some("old"));
    // The restarted server forgot the session (server-everything answers 400).
    r.answer(
        &resumed[0],
        400,
        &[("content-type".into(), "application/json".into())],
        no_session_body(),
    );
    let again = fetches(&r.take());
    assert_eq!(
        again[0].body["method"], "initialize",
        "re-initialized at once"
    );
    assert_eq!(again[0].session, None);
    r.http_serve("new", again);
    assert!(matches!(r.status(), Some(HealthStatus::Connected { .. })));
    // A tool call now uses the new session and works.
    r.sup.handle_request(1, tool("echo"), r.now);
    let call = fetches(&r.take());
    assert_eq!(call[0].session.as_deref(), Some("new"));
    r.http_serve("new", call);
    assert_eq!(
        replies(&r.seen)[0].1.as_ref().unwrap()["content"][0]["text"],
        "new"
    );
}

#[test]
fn a_call_refused_for_an_expired_session_is_sent_once_more_on_the_new_one() {
    let mut r = Rig::new(ServerKind::Remote, "http://127.0.0.1:9/mcp", None);
    r.sup.handle_connect(0.0);
    let first = fetches(&r.take());
    r.http_serve("old", first);
    r.now = 100.0;
    r.sup.handle_request(1, tool("write"), r.now);
    let call = fetches(&r.take()).remove(0);
    assert_eq!(call.body["method"], "tools/call");
    // Refused: the session is gone (404), so the call never ran.
    r.answer(&call, 404, &[], "Session not found");
    let next = fetches(&r.take());
    assert_eq!(next.len(), 1);
    assert_eq!(next[0].body["method"], "initialize");
    assert!(
        replies(&r.seen).is_empty(),
        "no error for a call that will be re-sent"
    );
    r.http_serve("new", next);
    let sent: Vec<&Action> = r.seen.iter().filter(|a| matches!(a, Action::Fetch { request, .. } if request.body.as_deref().is_some_and(|b| b.contains("tools/call")))).collect();
    assert_eq!(
        sent.len(),
        2,
        "sent twice in all: once refused, once on the new session"
    );
    assert_eq!(
        replies(&r.seen)[0].1.as_ref().unwrap()["content"][0]["text"],
        "new"
    );

    // Refused again on the new session: it fails, saying it did not run.
    r.sup.handle_request(2, tool("write"), r.now);
    let call = fetches(&r.take()).remove(0);
    r.answer(&call, 404, &[], "");
    let init = fetches(&r.take());
    let init_id = init[0].body["id"].clone();
    let resent = {
        r.answer(
            &init[0],
            200,
            &json_head("third"),
            &init_result(&init_id, json!({})),
        );
        let mut sent = fetches(&r.take());
        // The call waits until the server has answered `initialized` (streamable_http.rs).
        let at = sent
            .iter()
            .position(|f| f.body["method"] == "notifications/initialized")
            .expect("initialized");
        let initialized = sent.remove(at);
        assert!(!sent.iter().any(|f| f.body["method"] == "tools/call"));
        r.answer(&initialized, 202, &[], "");
        sent.extend(fetches(&r.take()));
        sent
    };
    let resent_call = resent
        .into_iter()
        .find(|f| f.body["method"] == "tools/call")
        .unwrap();
    r.answer(&resent_call, 404, &[], "");
    r.take();
    let rep = replies(&r.seen);
    let (_, last) = rep
        .iter()
        .find(|(k, _)| *k == 2)
        .expect("a reply for call 2");
    assert_eq!(
        last,
        &Err(McpError::SessionExpired {
            in_flight_tool: false
        })
    );
}

/// A tool call is running (its answer's stream open, one event with an id in it), the server
/// dies and a new one serves the URL before the page resumes: both streams (the call's and
/// the GET stream) are resumed at once, and the new server refuses both for the session it
/// never knew. `call_first` says whose refusal arrives first. Returns the rig and how many
/// times `tools/call` went out.
fn restart_during_a_call(call_first: bool) -> (Rig, usize) {
    let mut r = Rig::new(ServerKind::Remote, "http://127.0.0.1:9/mcp", None);
    r.sup.handle_connect(0.0);
    let first = fetches(&r.take());
    let get = r.http_serve("old", first).expect("a GET stream");
    r.now = 1_000.0;
    r.sup.handle_request(1, tool("slow"), r.now);
    let call = fetches(&r.take()).remove(0);
    assert_eq!(call.body["method"], "tools/call");
    let sse = [
        ("content-type".to_string(), "text/event-stream".to_string()),
        ("mcp-session-id".to_string(), "old".to_string()),
    ];
    r.sup
        .handle_fetch_head(call.link, call.token, 200, &sse, r.now);
    let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
        "params": {"progressToken": call.body["id"], "progress": 1, "total": 10}});
    let event = format!("id: ev-1\nevent: message\ndata: {progress}\n\n");
    r.sup
        .handle_fetch_chunk(call.link, call.token, event.as_bytes(), r.now);
    r.take();
    // Killed 3 s in: both streams break.
    r.now = 4_000.0;
    r.sup
        .handle_fetch_error(call.link, call.token, "network error", r.now);
    r.sup
        .handle_fetch_error(get.link, get.token, "network error", r.now);
    r.take();
    let due = r.sup.poll_timeout().expect("the streams are resumed");
    let resumes = fetches(&r.at(due));
    assert_eq!(resumes.len(), 2, "both streams resumed at once");
    assert!(resumes
        .iter()
        .all(|f| f.method == crate::http::Method::Get && f.session.as_deref() == Some("old")));
    // The call's resume carries the id of the last event its stream delivered.
    let (call_resume, get_resume) = match resumes[0].last_event_id.as_deref() {
        Some("ev-1") => (&resumes[0], &resumes[1]),
        _ => (&resumes[1], &resumes[0]),
    };
    assert_eq!(call_resume.last_event_id.as_deref(), Some("ev-1"));
    let json = [("content-type".to_string(), "application/json".to_string())];
    let order = if call_first {
        [call_resume, get_resume]
    } else {
        [get_resume, call_resume]
    };
    for f in order {
        r.answer(f, 400, &json, no_session_body());
    }
    let next = fetches(&r.take());
    r.http_serve("new", next);
    r.take();
    let calls = r
        .seen
        .iter()
        .filter(|a| matches!(a, Action::Fetch { request, .. } if request.body.as_deref().is_some_and(|b| b.contains("tools/call"))))
        .count();
    (r, calls)
}

#[test]
fn a_call_whose_resumed_stream_is_refused_after_a_restart_is_never_sent_again() {
    for call_first in [true, false] {
        let (r, calls) = restart_during_a_call(call_first);
        assert_eq!(
            calls, 1,
            "call_first={call_first}: the call went out once, whichever refusal came first"
        );
        let rep = replies(&r.seen);
        let (_, result) = rep
            .iter()
            .find(|(k, _)| *k == 1)
            .unwrap_or_else(|| panic!("call_first={call_first}: the call has an answer"));
        let error = result.as_ref().expect_err("the call fails");
        assert!(
            error.tool_may_have_run(),
            "call_first={call_first}: {error:?}"
        );
        assert!(
            error.to_string().contains("did not send it again"),
            "call_first={call_first}: {error}"
        );
        assert!(
            matches!(r.status(), Some(HealthStatus::Connected { .. })),
            "call_first={call_first}: connected to the new server"
        );
    }
}

#[test]
fn an_in_page_server_connects_without_the_network() {
    let (r, _) = counting_in_page();
    assert!(r.seen.contains(&Action::Transport("in-page")));
    assert!(!r
        .seen
        .iter()
        .any(|a| matches!(a, Action::Fetch { .. } | Action::OpenSocket { .. })));
    assert!(r
        .seen
        .iter()
        .any(|a| matches!(a, Action::Tools(t) if t.is_empty())));
}

#[test]
fn disconnect_says_goodbye_cancels_calls_and_schedules_nothing() {
    let mut r = Rig::new(ServerKind::Remote, "http://127.0.0.1:9/mcp", None);
    r.sup.handle_connect(0.0);
    let first = fetches(&r.take());
    r.http_serve("sid", first);
    r.sup.handle_request(4, tool("slow"), 1.0);
    r.take();
    r.sup.handle_disconnect(2.0);
    let a = r.take();
    let goodbye = a.iter().find_map(|a| match a {
        Action::Goodbye(req) => Some(req.clone()),
        _ => None,
    });
    assert_eq!(goodbye.map(|g| g.method), Some(crate::http::Method::Delete));
    assert!(matches!(
        &replies(&a)[..],
        [(4, Err(McpError::Cancelled { .. }))]
    ));
    assert_eq!(r.status(), Some(HealthStatus::Idle));
    assert_eq!(r.sup.poll_timeout(), None);
    assert!(r.logs().contains(&"Disconnected.".to_string()));
    // Not wanted: ensure connects again, a request without a link is "not connected".
    r.sup.handle_request(5, Request::Ping, 3.0);
    assert_eq!(replies(&r.take()), [(5, Err(McpError::NotConnected))]);
}

#[test]
fn offline_waits_for_online_instead_of_spending_the_schedule() {
    let mut r = Rig::new(ServerKind::Remote, "wss://mcp.example.com/mcp", Some(3));
    r.sup.handle_connect(0.0);
    let link = r.ws_ready(json!({}));
    r.take();
    assert!(matches!(r.status(), Some(HealthStatus::Connected { .. })));

    // The network goes: a connection that is still up is left alone.
    r.now = 1_000.0;
    r.sup.handle_offline(r.now);
    r.take();
    assert!(matches!(r.status(), Some(HealthStatus::Connected { .. })));

    // It drops: no reconnect is scheduled, the row says offline, and nothing is attempted
    // however long the outage lasts.
    r.sup.handle_ws(link, refused(link), r.now);
    r.take();
    assert_eq!(r.status(), Some(HealthStatus::Offline));
    assert_eq!(r.sup.poll_timeout(), None, "no timer while offline");
    assert!(opened_socket(&r.at(600_000.0)).is_none());
    assert!(r
        .logs()
        .iter()
        .any(|l| l.contains("reconnecting when the network is back")));

    // Back online: one attempt at once, with the whole schedule (3 attempts) still ahead.
    r.now = 600_000.0;
    r.sup.handle_online(r.now);
    let link = opened_socket(&r.take()).expect("reconnects on online");
    r.sup.handle_ws(link, refused(link), r.now);
    r.take();
    assert!(
        matches!(
            r.status(),
            Some(HealthStatus::Reconnecting { at_ms, attempt: 1, ref why })
                if at_ms == 601_000.0 && !why.is_empty()
        ),
        "{:?}",
        r.status()
    );
}

#[test]
fn going_offline_during_the_backoff_drops_the_pending_attempt_and_online_resumes() {
    let mut r = Rig::new(ServerKind::Remote, "wss://mcp.example.com/mcp", None);
    r.sup.handle_connect(0.0);
    let link = opened_socket(&r.take()).expect("first attempt");
    r.sup.handle_ws(link, refused(link), 0.0);
    r.take();
    assert!(matches!(
        r.status(),
        Some(HealthStatus::Reconnecting { .. })
    ));
    r.sup.handle_offline(500.0);
    r.take();
    assert_eq!(r.status(), Some(HealthStatus::Offline));
    assert!(
        opened_socket(&r.at(60_000.0)).is_none(),
        "no attempt while offline"
    );
    r.sup.handle_online(60_000.0);
    assert!(
        opened_socket(&r.take()).is_some(),
        "online reconnects at once"
    );
}

#[test]
fn offline_changes_nothing_for_a_server_on_this_computer() {
    // Wi-Fi off, an MCP server on 127.0.0.1: it stays in use and its retries go on.
    let mut r = Rig::ws();
    r.sup.handle_connect(0.0);
    let link = opened_socket(&r.take()).expect("first attempt");
    r.sup.handle_offline(100.0);
    r.sup.handle_ws(link, refused(link), 200.0);
    r.take();
    assert!(
        matches!(r.status(), Some(HealthStatus::Reconnecting { .. })),
        "{:?}",
        r.status()
    );
    assert!(
        opened_socket(&r.at(60_000.0)).is_some(),
        "retries while offline"
    );
    assert!(r.logs().iter().any(|l| l.contains("keeps using it")));
}

#[test]
fn a_refused_redirect_stops_with_its_sentence_instead_of_retrying() {
    let mut r = Rig::new(ServerKind::Remote, "http://127.0.0.1:9/mcp", None);
    r.sup.handle_connect(0.0);
    // The modern probe, then `initialize`: both redirected.
    for _ in 0..2 {
        let f = fetches(&r.take()).remove(0);
        r.sup
            .handle_fetch_redirect_refused(f.link, f.token, None, 10.0);
    }
    r.take();
    let Some(HealthStatus::Error { message }) = r.status() else {
        panic!("{:?}", r.status())
    };
    assert!(
        message.contains("redirect the request elsewhere") && message.contains("did not follow"),
        "{message}"
    );
    assert_eq!(r.sup.poll_timeout(), None, "no reconnect is scheduled");
}

#[test]
fn questions_are_keyed_answered_on_their_link_and_withdrawn_when_it_goes() {
    let mut r = Rig::new(ServerKind::Remote, "http://127.0.0.1:9/mcp", None);
    r.sup.handle_connect(0.0);
    let first = fetches(&r.take());
    let get = r.http_serve("sid", first).expect("a GET stream");
    let ask = |id: i64| {
        format!(
            "event: message\ndata: {}\n\n",
            json!({"jsonrpc": "2.0", "id": id, "method": "elicitation/create",
                "params": {"message": "ok?", "requestedSchema": {"type": "object", "properties": {}}}})
        )
    };
    r.sup
        .handle_fetch_chunk(get.link, get.token, ask(3).as_bytes(), 10.0);
    let acts = r.take();
    let key = acts
        .iter()
        .find_map(|a| match a {
            Action::Ask {
                key, method, raw, ..
            } if method == "elicitation/create"
                && raw.as_deref().is_some_and(|r| r.contains("ok?")) =>
            {
                Some(*key)
            }
            _ => None,
        })
        .expect("an Ask action");
    r.sup
        .handle_ask_answer(key, Ok(json!({"action": "accept", "content": {}})), 20.0);
    let sent = fetches(&r.take());
    assert_eq!(sent.len(), 1);
    assert_eq!(
        sent[0].body,
        json!({"jsonrpc": "2.0", "id": 3, "result": {"action": "accept", "content": {}}})
    );
    assert_eq!(sent[0].session.as_deref(), Some("sid"));

    // A second question, then the connection drops: the card is withdrawn.
    r.sup
        .handle_fetch_chunk(get.link, get.token, ask(4).as_bytes(), 30.0);
    let key2 = r
        .take()
        .iter()
        .find_map(|a| match a {
            Action::Ask { key, .. } => Some(*key),
            _ => None,
        })
        .expect("a second Ask");
    assert_ne!(key, key2);
    r.sup.handle_disconnect(40.0);
    assert!(r.take().contains(&Action::ElicitGone { key: key2 }));
}

fn failure_notices(r: &Rig) -> Vec<String> {
    r.seen
        .iter()
        .filter_map(|a| match a {
            Action::FailureNotice(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_failure_is_announced_once_until_the_server_is_back() {
    let mut r = Rig::ws();
    r.sup.handle_connect(0.0);
    waits_while_refused(&mut r, 5);
    let n = failure_notices(&r);
    assert_eq!(n.len(), 1, "five retries, one notice: {n:?}");
    assert!(
        n[0].starts_with("MCP server “server” is not available: ")
            && n[0].ends_with(
                "). Skiff keeps trying; Settings → MCP servers says why and shows each attempt."
            ),
        "{}",
        n[0]
    );
    assert!(!r.seen.contains(&Action::Recovered));
    // It answers again: the notice is withdrawn, once.
    let link = r.ws_ready(json!({}));
    r.take();
    assert_eq!(
        r.seen.iter().filter(|a| **a == Action::Recovered).count(),
        1
    );
    // A later drop is a new failure, and is announced again.
    r.now += 100_000.0;
    r.sup.handle_ws(link, refused(link), r.now);
    r.take();
    assert_eq!(failure_notices(&r).len(), 2);
}

#[test]
fn offline_a_disconnect_and_a_refusal_that_needs_the_user_are_announced_as_they_should_be() {
    // Offline: the browser's own banner says it; no server notice.
    let mut r = Rig::new(ServerKind::Remote, "wss://mcp.example.com/mcp", None);
    r.sup.handle_connect(0.0);
    let link = r.ws_ready(json!({}));
    r.sup.handle_offline(1.0);
    r.sup.handle_ws(link, refused(link), 2.0);
    r.take();
    assert!(failure_notices(&r).is_empty(), "{:?}", failure_notices(&r));
    // The user disconnected: nothing to announce.
    let mut r = Rig::new(ServerKind::Remote, "http://127.0.0.1:9/mcp", None);
    r.sup.handle_connect(0.0);
    r.take();
    r.sup.handle_disconnect(1.0);
    r.take();
    assert!(failure_notices(&r).is_empty());
    // Giving up after the configured attempts is still the one failure already announced.
    let mut r = Rig::new(ServerKind::Remote, "ws://127.0.0.1:9/mcp", Some(1));
    r.sup.handle_connect(0.0);
    waits_while_refused(&mut r, 3);
    assert!(matches!(r.status(), Some(HealthStatus::Error { .. })));
    assert_eq!(failure_notices(&r).len(), 1);
}

/// Answer a modern server's `subscriptions/listen` fetch with its stream's first frame, the
/// acknowledgement of `uris`; the stream stays open.
fn ack_listen(r: &mut Rig, listen: &Sent, uris: &[&str]) {
    let sse = [("content-type".to_string(), "text/event-stream".to_string())];
    r.sup
        .handle_fetch_head(listen.link, listen.token, 200, &sse, r.now);
    let ack = json!({"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
        "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": listen.body["id"]},
        "notifications": {"toolsListChanged": true, "resourceSubscriptions": uris}}});
    let frame = format!("event: message\ndata: {ack}\n\n");
    r.sup
        .handle_fetch_chunk(listen.link, listen.token, frame.as_bytes(), r.now);
}

/// Answer the connect in `acts` as a modern server (the Python SDK's discovery answer);
/// returns the listen fetch that follows.
fn modern_ready(r: &mut Rig, acts: &[Action]) -> Sent {
    let disc = crate::mcp::test_support::exchange("modern-python", "01-modern-discover")
        .expect("capture 01");
    let probe = fetches(acts).remove(0);
    assert_eq!(probe.body["method"], "server/discover");
    let mut body: Value = serde_json::from_slice(&disc.body).expect("JSON");
    body["id"] = probe.body["id"].clone();
    let head = [("content-type".to_string(), "application/json".to_string())];
    r.answer(&probe, 200, &head, &body.to_string());
    fetches(&r.take())
        .into_iter()
        .find(|f| f.body["method"] == "subscriptions/listen")
        .expect("a listen stream")
}

#[test]
fn a_modern_subscription_rides_the_listen_filter_and_survives_a_reconnect() {
    const COUNTER: &str = "skiff://counter";
    let mut r = Rig::new(ServerKind::Remote, "http://127.0.0.1:9/mcp", None);
    r.sup.handle_connect(0.0);
    let acts = r.take();
    let first = modern_ready(&mut r, &acts);
    assert!(first.body["params"]["notifications"]
        .get("resourceSubscriptions")
        .is_none());
    ack_listen(&mut r, &first, &[]);
    r.take();

    // The module's Subscribe, as in the legacy era.
    let subscribe = Request::Raw {
        method: "resources/subscribe".into(),
        params: Some(json!({ "uri": COUNTER })),
    };
    r.now = 1_000.0;
    r.sup.handle_request(1, subscribe, r.now);
    let acts = r.take();
    let sent = fetches(&acts);
    assert_eq!(sent.len(), 1, "only a new listen stream goes out");
    assert_eq!(sent[0].body["method"], "subscriptions/listen");
    assert_eq!(
        sent[0].body["params"]["notifications"]["resourceSubscriptions"],
        json!([COUNTER])
    );
    assert!(acts.contains(&Action::Abort {
        link: first.link,
        token: first.token
    }));
    assert!(replies(&acts).is_empty(), "answered once acknowledged");
    ack_listen(&mut r, &sent[0], &[COUNTER]);
    assert_eq!(replies(&r.take()), [(1, Ok(json!({})))]);

    // The server is killed: the stream breaks, the page reconnects, and the new session's
    // first listen stream already asks for the counter.
    r.now = 20_000.0;
    r.sup
        .handle_fetch_error(sent[0].link, sent[0].token, "network error", r.now);
    r.take();
    let due = r.sup.poll_timeout().expect("a reconnect is scheduled");
    let acts = r.at(due);
    let again = modern_ready(&mut r, &acts);
    assert_ne!(again.link, first.link);
    assert_eq!(
        again.body["params"]["notifications"]["resourceSubscriptions"],
        json!([COUNTER])
    );
}

/// A URL step asked for during a tool call is over when the call is: the server went on,
/// whether or not it ever sends `notifications/elicitation/complete` (server-everything never
/// does), so the card that said it "will continue" is told (`AskSettled`). A question asked
/// with no call of ours running, or while another still runs, is not.
#[test]
fn a_question_asked_during_tool_calls_is_settled_when_the_last_is_answered() {
    let mut r = Rig::ws();
    r.sup.handle_connect(0.0);
    let link = r.ws_ready(json!({"tools": {}}));
    r.take();
    let ask = |id: u32| {
        json!({"jsonrpc": "2.0", "id": format!("s{id}"), "method": "elicitation/create",
            "params": {"mode": "url", "url": "https://example.com/x", "elicitationId": "e", "message": "m"}})
        .to_string()
    };
    let asked = |r: &mut Rig| {
        r.take()
            .iter()
            .find_map(|a| match a {
                Action::Ask { key, .. } => Some(*key),
                _ => None,
            })
            .expect("an Ask")
    };
    // Asked with nothing running: never settled by a later call.
    r.sup.handle_ws(link, WsReport::Text(ask(1)), 1.0);
    let alone = asked(&mut r);
    r.sup.handle_request(7, tool("a"), 2.0);
    r.sup.handle_request(8, tool("b"), 2.0);
    let calls = frames(&r.take(), "tools/call");
    assert_eq!(calls.len(), 2);
    r.sup.handle_ws(link, WsReport::Text(ask(2)), 3.0);
    let during = asked(&mut r);
    r.sup
        .handle_ask_answer(during, Ok(json!({"action": "accept"})), 4.0);
    r.take();
    let answer = |id: &Value| {
        WsReport::Text(json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}}).to_string())
    };
    // One of the two calls answered: the other may still be the one that asked.
    r.sup.handle_ws(link, answer(&calls[0]["id"]), 5.0);
    let a = r.take();
    assert_eq!(replies(&a).len(), 1);
    assert!(
        !a.iter().any(|x| matches!(x, Action::AskSettled { .. })),
        "{a:?}"
    );
    r.sup.handle_ws(link, answer(&calls[1]["id"]), 6.0);
    let a = r.take();
    let reply_at = a
        .iter()
        .position(|x| matches!(x, Action::Reply { key: 8, .. }));
    let settled_at = a
        .iter()
        .position(|x| *x == Action::AskSettled { key: during });
    assert!(
        reply_at.is_some() && settled_at > reply_at,
        "the result first, then the question's end: {a:?}"
    );
    assert!(!a.contains(&Action::AskSettled { key: alone }));
    // Settled once.
    r.sup.handle_request(9, tool("c"), 7.0);
    let c = frames(&r.take(), "tools/call").remove(0);
    r.sup.handle_ws(link, answer(&c["id"]), 8.0);
    assert!(!r
        .take()
        .iter()
        .any(|x| matches!(x, Action::AskSettled { .. })));
}

#[path = "supervisor_tasks_tests.rs"]
mod tasks;

#[path = "supervisor_kept_tests.rs"]
mod kept;
