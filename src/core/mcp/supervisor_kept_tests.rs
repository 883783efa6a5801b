//! A Streamable HTTP session kept across a reload (`kept_session`), through the supervisor
//! with server-everything's shapes: the reloaded page takes the session up with one `ping`
//! (no `initialize`), follows the task on it and gets the result; a server that forgot the
//! session (404) gets a fresh `initialize` and the follower asks there; a corrupt record is a
//! fresh start; leaving the page keeps the session only while a task runs on it.

use serde_json::{json, Value};

use super::*;
use crate::mcp::kept_session::{self, KeptSession};

const URL: &str = "http://127.0.0.1:9/mcp";
const TASK_CAPS: &str = r#"{"tools": {"listChanged": true}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}"#;

fn kept(session_id: &str, next_id: i64) -> KeptSession {
    KeptSession {
        url: URL.into(),
        session_id: session_id.into(),
        initialize: json!({"protocolVersion": "2025-11-25",
            "capabilities": serde_json::from_str::<Value>(TASK_CAPS).unwrap(),
            "serverInfo": {"name": "mcp-servers/everything", "version": "2.0.0"}}),
        next_id,
    }
}

fn methods(sent: &[Sent]) -> Vec<String> {
    sent.iter()
        .map(|f| match f.method {
            crate::http::Method::Get => "GET".to_string(),
            crate::http::Method::Delete => "DELETE".to_string(),
            _ => f.body["method"].as_str().unwrap_or("?").to_string(),
        })
        .collect()
}

fn kept_records(actions: &[Action]) -> Vec<Option<KeptSession>> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::KeepSession(raw) => Some(raw.as_deref().map(|r| {
                match kept_session::plan(Some(r), URL, TransportChoice::Auto) {
                    kept_session::Start::Resume(k) => k,
                    other => panic!("a record that does not resume: {other:?}"),
                }
            })),
            _ => None,
        })
        .collect()
}

fn ok(f: &Sent, sid: &str, result: Value) -> (u16, Vec<(String, String)>, String) {
    let body = json!({"jsonrpc": "2.0", "id": f.body["id"], "result": result}).to_string();
    (200, json_head(sid), body)
}

fn task(id: &str, status: &str) -> Value {
    json!({"taskId": id, "status": status, "ttl": 300000, "pollInterval": 1000,
        "createdAt": "2026-11-29T11:00:00Z", "lastUpdatedAt": "2026-11-29T11:00:00Z"})
}

impl Rig {
    fn reply(&mut self, f: &Sent, (status, head, body): (u16, Vec<(String, String)>, String)) {
        self.answer(f, status, &head, &body);
    }

    /// Answers the lists a ready session sends (tools with one task tool); returns what else
    /// was sent, in order.
    fn serve_lists(&mut self, sid: &str, mut sent: Vec<Sent>) -> Vec<Sent> {
        let mut other = Vec::new();
        while !sent.is_empty() {
            let f = sent.remove(0);
            let method = f.body["method"].as_str().unwrap_or("").to_string();
            match method.as_str() {
                "tools/list" => {
                    let tools = json!({"tools": [{"name": "simulate-research-query",
                        "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}]});
                    self.reply(&f, ok(&f, sid, tools));
                }
                "resources/list" | "resources/templates/list" | "prompts/list" => {
                    let key = match method.as_str() {
                        "resources/list" => "resources",
                        "resources/templates/list" => "resourceTemplates",
                        _ => "prompts",
                    };
                    self.reply(&f, ok(&f, sid, json!({ key: [] })));
                }
                "notifications/initialized" => self.answer(&f, 202, &[], ""),
                _ => other.push(f),
            }
            sent.extend(fetches(&self.take()));
        }
        other
    }
}

#[test]
fn a_reloaded_page_takes_up_the_kept_session_and_follows_the_task_on_it() {
    let mut r = Rig::new(ServerKind::Remote, URL, None);
    r.sup
        .offer_kept_session(Some(kept_session::encode(&kept("S1", 40))));
    r.sup.handle_connect(0.0);
    // One ping on the kept session, with its version: no probe, no initialize.
    let first = fetches(&r.take());
    assert_eq!(methods(&first), ["ping"]);
    assert_eq!(first[0].session.as_deref(), Some("S1"));
    assert!(
        first[0].body["id"].as_i64().unwrap() >= 40,
        "ids go on from where the old page stopped: {}",
        first[0].body
    );
    assert!(r.logs().iter().any(|l| l.contains("Taking up the session")));
    // The follower asks while the ping is out: it waits for the session.
    r.sup.handle_request(
        5,
        Request::FollowTask {
            task_id: "T".into(),
        },
        1.0,
    );
    assert!(
        fetches(&r.take()).is_empty(),
        "nothing before the ping's answer"
    );
    r.now = 2.0;
    r.reply(&first[0], ok(&first[0], "S1", json!({})));
    let a = r.take();
    assert!(a.iter().any(|x| matches!(x, Action::Negotiated { .. })));
    assert_eq!(kept_records(&a).len(), 1, "the session is kept again");
    let sent = fetches(&a);
    assert!(
        !methods(&sent)
            .iter()
            .any(|m| m == "initialize" || m == "notifications/initialized"),
        "{:?}",
        methods(&sent)
    );
    assert!(sent.iter().all(|f| f.session.as_deref() == Some("S1")));
    let rest = r.serve_lists("S1", sent);
    let get = rest
        .iter()
        .find(|f| f.body["method"] == "tasks/get")
        .expect("tasks/get");
    assert_eq!(get.body["params"], json!({"taskId": "T"}));
    assert_eq!(
        get.session.as_deref(),
        Some("S1"),
        "on the session that made it"
    );
    assert!(
        rest.iter().any(|f| f.method == crate::http::Method::Get),
        "the GET stream"
    );
    r.now = 3.0;
    r.reply(get, ok(get, "S1", task("T", "completed")));
    let result = fetches(&r.take()).remove(0);
    assert_eq!(result.body["method"], "tasks/result");
    assert_eq!(result.session.as_deref(), Some("S1"));
    let report = json!({"content": [{"type": "text", "text": "# Research Report: glaciers"}]});
    r.reply(&result, ok(&result, "S1", report.clone()));
    assert_eq!(replies(&r.take()), [(5, Ok(report))]);
    assert!(!methods(&fetches(&r.seen)).iter().any(|m| m == "tools/call"));
}

/// A reloaded page offered the kept session `session_id`: its ping is out (returned) and a
/// follower of task "T" (request 5) waits for the session.
fn following_on_kept(session_id: &str, next_id: i64) -> (Rig, Sent) {
    let mut r = Rig::new(ServerKind::Remote, URL, None);
    r.sup
        .offer_kept_session(Some(kept_session::encode(&kept(session_id, next_id))));
    r.sup.handle_connect(0.0);
    let ping = fetches(&r.take()).remove(0);
    r.sup.handle_request(
        5,
        Request::FollowTask {
            task_id: "T".into(),
        },
        1.0,
    );
    r.take();
    (r, ping)
}

#[test]
fn a_server_that_forgot_the_session_gets_a_fresh_initialize_and_the_follower_asks_there() {
    let (mut r, ping) = following_on_kept("OLD", 9);
    // The spec's expired session.
    r.answer(&ping, 404, &[], "Session not found");
    let a = r.take();
    let init = fetches(&a);
    assert_eq!(methods(&init), ["initialize"]);
    assert_eq!(
        init[0].session, None,
        "a new session never carries the old id"
    );
    r.reply(
        &init[0],
        (
            200,
            json_head("NEW"),
            init_result(
                &init[0].body["id"],
                serde_json::from_str(TASK_CAPS).unwrap(),
            ),
        ),
    );
    let a = r.take();
    let records = kept_records(&a);
    assert_eq!(records.len(), 1);
    assert_eq!(
        records[0].as_ref().map(|k| k.session_id.as_str()),
        Some("NEW")
    );
    let rest = r.serve_lists("NEW", fetches(&a));
    let get = rest
        .iter()
        .find(|f| f.body["method"] == "tasks/get")
        .expect("tasks/get");
    assert_eq!(get.session.as_deref(), Some("NEW"));
    r.reply(
        get,
        (
            200,
            json_head("NEW"),
            json!({"jsonrpc": "2.0", "id": get.body["id"], "error": {"code": -32602, "message": "Task not found: T"}}).to_string(),
        ),
    );
    let a = r.take();
    let sentence = match &replies(&a)[..] {
        [(5, Err(e))] => e.to_string(),
        other => panic!("{other:?}"),
    };
    assert!(sentence.contains("new session"), "{sentence}");
    assert!(sentence.contains("Task not found"), "{sentence}");
    assert!(!methods(&fetches(&r.seen)).iter().any(|m| m == "tools/call"));
}

#[test]
fn a_record_that_does_not_read_or_names_another_server_means_a_fresh_start() {
    for raw in [
        "{not json".to_string(),
        kept_session::encode(&KeptSession {
            url: "http://127.0.0.1:8/mcp".into(),
            ..kept("S1", 1)
        }),
    ] {
        let mut r = Rig::new(ServerKind::Remote, URL, None);
        r.sup.offer_kept_session(Some(raw));
        r.sup.handle_connect(0.0);
        let first = fetches(&r.take());
        assert_eq!(methods(&first), ["server/discover"], "the usual lifecycle");
        assert_eq!(first[0].session, None);
        assert!(
            r.logs()
                .iter()
                .any(|l| l.contains("starting a new session")),
            "{:?}",
            r.logs()
        );
    }
}

#[test]
fn the_record_is_offered_to_the_first_connection_only() {
    let mut r = Rig::new(ServerKind::Remote, URL, None);
    r.sup
        .offer_kept_session(Some(kept_session::encode(&kept("S1", 1))));
    r.sup.handle_connect(0.0);
    assert_eq!(methods(&fetches(&r.take())), ["ping"]);
    r.sup.handle_connect(10.0);
    assert_eq!(methods(&fetches(&r.take())), ["server/discover"]);
}

/// A fresh connection (no record) to a legacy server, ready, tools listed.
fn fresh_ready(r: &mut Rig) {
    r.sup.handle_connect(0.0);
    let mut sent = fetches(&r.take());
    let probe = sent.remove(0);
    r.answer(&probe, 404, &[], "Not Found");
    let init = fetches(&r.take()).remove(0);
    r.reply(
        &init,
        (
            200,
            json_head("S"),
            init_result(&init.body["id"], serde_json::from_str(TASK_CAPS).unwrap()),
        ),
    );
    let a = r.take();
    assert!(matches!(&kept_records(&a)[..], [Some(k)] if k.session_id == "S"));
    r.serve_lists("S", fetches(&a));
}

#[test]
fn leaving_the_page_keeps_the_session_only_while_a_task_runs_on_it() {
    // No task: the session is ended and forgotten.
    let mut r = Rig::new(ServerKind::Remote, URL, None);
    fresh_ready(&mut r);
    r.sup.handle_leave_page(100.0);
    let a = r.take();
    assert!(a
        .iter()
        .any(|x| matches!(x, Action::Goodbye(req) if req.method == crate::http::Method::Delete)));
    assert_eq!(kept_records(&a), [None]);

    // A task being created, then followed: no DELETE, the record keeps the ids used so far.
    for created in [false, true] {
        let mut r = Rig::new(ServerKind::Remote, URL, None);
        fresh_ready(&mut r);
        r.now = 50.0;
        r.sup
            .handle_request(7, tool("simulate-research-query"), r.now);
        let call = fetches(&r.take()).remove(0);
        assert_eq!(call.body["params"]["task"], json!({}));
        if created {
            r.reply(&call, ok(&call, "S", json!({"task": task("T", "working")})));
            r.take();
        }
        r.sup.handle_leave_page(100.0);
        let a = r.take();
        assert!(
            !a.iter().any(|x| matches!(x, Action::Goodbye(_))),
            "no DELETE"
        );
        let records = kept_records(&a);
        let [Some(k)] = &records[..] else {
            panic!("{records:?}")
        };
        assert_eq!(k.session_id, "S");
        let used = call.body["id"].as_i64().unwrap();
        assert!(k.next_id > used, "ids go on after {used}: {}", k.next_id);
    }

    // The user's own Disconnect always ends the session.
    let mut r = Rig::new(ServerKind::Remote, URL, None);
    fresh_ready(&mut r);
    r.sup
        .handle_request(7, tool("simulate-research-query"), 50.0);
    r.take();
    r.sup.handle_disconnect(100.0);
    let a = r.take();
    assert!(a.iter().any(|x| matches!(x, Action::Goodbye(_))));
    assert_eq!(kept_records(&a), [None]);
}

#[test]
fn a_task_the_kept_session_no_longer_knows_says_so_without_blaming_a_new_session() {
    let (mut r, ping) = following_on_kept("S1", 40);
    r.reply(&ping, ok(&ping, "S1", json!({})));
    let sent = fetches(&r.take());
    let rest = r.serve_lists("S1", sent);
    let get = rest
        .iter()
        .find(|f| f.body["method"] == "tasks/get")
        .expect("tasks/get");
    assert_eq!(get.session.as_deref(), Some("S1"));
    r.reply(
        get,
        (
            200,
            json_head("S1"),
            json!({"jsonrpc": "2.0", "id": get.body["id"], "error": {"code": -32602, "message": "Task not found: T"}}).to_string(),
        ),
    );
    let sentence = match &replies(&r.take())[..] {
        [(5, Err(e))] => e.to_string(),
        other => panic!("{other:?}"),
    };
    assert!(sentence.contains("same session"), "{sentence}");
    assert!(!sentence.contains("new session"), "{sentence}");
    assert!(sentence.contains("Task not found"), "{sentence}");
}
