//! Task-augmented tool calls through the supervisor, with server-everything's shapes
//! (`simulate-research-query`, `execution.taskSupport: required`): created, polled at the
//! server's interval, the result fetched once; Stop as `tasks/cancel`; a reload's follower
//! that never calls the tool; and a required tool refused where the server runs no tasks.

use serde_json::{json, Value};

use super::*;

const TASK_CAPS: &str = r#"{"tools": {"listChanged": true}, "tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}}"#;

fn say(r: &mut Rig, link: LinkId, v: Value, at: f64) -> Vec<Action> {
    r.now = at;
    r.sup.handle_ws(link, WsReport::Text(v.to_string()), at);
    r.take()
}

/// Connected over a WebSocket, tools listed (one task tool, one plain).
fn ready(caps: &str) -> (Rig, LinkId) {
    let mut r = Rig::ws();
    r.sup.handle_connect(0.0);
    let link = r.ws_ready(serde_json::from_str(caps).unwrap());
    let list = frames(&r.take(), "tools/list").remove(0);
    say(
        &mut r,
        link,
        json!({"jsonrpc": "2.0", "id": list["id"], "result": {"tools": [
            {"name": "simulate-research-query", "inputSchema": {"type": "object"},
             "execution": {"taskSupport": "required"}},
            {"name": "echo", "inputSchema": {"type": "object"}}
        ]}}),
        1.0,
    );
    (r, link)
}

fn task(id: &str, status: &str, message: &str) -> Value {
    json!({"taskId": id, "status": status, "statusMessage": message, "ttl": 300000,
        "createdAt": "2026-11-29T11:00:00Z", "lastUpdatedAt": "2026-11-29T11:00:00Z",
        "pollInterval": 1000})
}

fn tasks(actions: &[Action]) -> Vec<(CallKey, String, &'static str)> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Task { key, task } => Some((*key, task.id.clone(), task.status.as_str())),
            _ => None,
        })
        .collect()
}

#[test]
fn a_task_tool_is_created_polled_at_its_interval_and_its_result_fetched_once() {
    let (mut r, link) = ready(TASK_CAPS);
    r.sup
        .handle_request(7, tool("simulate-research-query"), 2.0);
    let call = frames(&r.take(), "tools/call").remove(0);
    assert_eq!(call["params"]["task"], json!({}), "task-augmented");
    let a = say(
        &mut r,
        link,
        json!({"jsonrpc": "2.0", "id": call["id"], "result": {"task": task("T", "working", "Gathering sources...")}}),
        3.0,
    );
    assert_eq!(tasks(&a), [(7, "T".to_string(), "working")]);
    assert!(replies(&a).is_empty(), "a task is not the result");
    assert_eq!(
        r.sup.poll_timeout(),
        Some(1003.0),
        "the server's pollInterval"
    );
    assert!(frames(&r.at(1002.0), "tasks/get").is_empty());
    let get = frames(&r.at(1003.0), "tasks/get").remove(0);
    assert_eq!(get["params"], json!({"taskId": "T"}));
    let a = say(
        &mut r,
        link,
        json!({"jsonrpc": "2.0", "id": get["id"], "result": task("T", "working", "Analyzing content...")}),
        1010.0,
    );
    assert_eq!(
        tasks(&a),
        [(7, "T".to_string(), "working")],
        "the message changed"
    );
    let get = frames(&r.at(2010.0), "tasks/get").remove(0);
    let a = say(
        &mut r,
        link,
        json!({"jsonrpc": "2.0", "id": get["id"], "result": task("T", "completed", "done")}),
        2020.0,
    );
    let result = frames(&a, "tasks/result").remove(0);
    assert_eq!(result["params"], json!({"taskId": "T"}));
    assert!(frames(&a, "tools/call").is_empty(), "never called twice");
    let report = json!({"content": [{"type": "text", "text": "# Research Report"}]});
    let a = say(
        &mut r,
        link,
        json!({"jsonrpc": "2.0", "id": result["id"], "result": report}),
        2030.0,
    );
    assert_eq!(replies(&a), [(7, Ok(report))]);
    assert!(
        frames(&r.at(60_000.0), "").is_empty(),
        "nothing more to poll"
    );
}

#[test]
fn stop_cancels_the_task_with_tasks_cancel_even_before_it_exists() {
    let (mut r, link) = ready(TASK_CAPS);
    r.sup
        .handle_request(1, tool("simulate-research-query"), 2.0);
    let call = frames(&r.take(), "tools/call").remove(0);
    say(
        &mut r,
        link,
        json!({"jsonrpc": "2.0", "id": call["id"], "result": {"task": task("A", "working", "")}}),
        3.0,
    );
    r.sup
        .handle_cancel(1, Some("the user pressed Stop".into()), 4.0);
    let a = r.take();
    assert_eq!(
        frames(&a, "tasks/cancel")[0]["params"],
        json!({"taskId": "A"})
    );
    assert!(frames(&a, "notifications/cancelled").is_empty());
    assert!(matches!(
        &replies(&a)[..],
        [(1, Err(McpError::Cancelled { .. }))]
    ));
    assert!(
        frames(&r.at(10_000.0), "tasks/get").is_empty(),
        "no longer followed"
    );

    // Stop while the tools/call is still unanswered: its task is cancelled once known.
    r.sup
        .handle_request(2, tool("simulate-research-query"), 20_000.0);
    let call = frames(&r.take(), "tools/call").remove(0);
    r.sup.handle_cancel(2, None, 20_001.0);
    assert!(matches!(
        &replies(&r.take())[..],
        [(2, Err(McpError::Cancelled { .. }))]
    ));
    let a = say(
        &mut r,
        link,
        json!({"jsonrpc": "2.0", "id": call["id"], "result": {"task": task("B", "working", "")}}),
        20_002.0,
    );
    assert_eq!(
        frames(&a, "tasks/cancel")[0]["params"],
        json!({"taskId": "B"})
    );
    assert!(replies(&a).is_empty() && tasks(&a).is_empty());
}

#[test]
fn a_reloaded_page_follows_its_task_and_a_forgotten_task_says_so() {
    let (mut r, link) = ready(TASK_CAPS);
    r.sup.handle_request(
        3,
        Request::FollowTask {
            task_id: "T".into(),
        },
        5.0,
    );
    let a = r.take();
    assert!(
        frames(&a, "tools/call").is_empty(),
        "a reload never calls the tool"
    );
    let get = frames(&a, "tasks/get").remove(0);
    let a = say(
        &mut r,
        link,
        json!({"jsonrpc": "2.0", "id": get["id"], "result": task("T", "input_required", "Requesting clarification...")}),
        6.0,
    );
    assert_eq!(tasks(&a), [(3, "T".to_string(), "input_required")]);
    assert_eq!(
        frames(&a, "tasks/result").len(),
        1,
        "its questions come with tasks/result"
    );

    // A server that no longer knows the task (a new session): the call ends, may have run.
    r.sup.handle_request(
        4,
        Request::FollowTask {
            task_id: "gone".into(),
        },
        7.0,
    );
    let get = frames(&r.take(), "tasks/get").remove(0);
    let a = say(
        &mut r,
        link,
        json!({"jsonrpc": "2.0", "id": get["id"], "error": {"code": -32602, "message": "Task not found"}}),
        8.0,
    );
    match &replies(&a)[..] {
        [(4, Err(e @ McpError::TaskLost { .. }))] => {
            assert!(e.tool_may_have_run());
            let said = e.to_string();
            assert!(said.contains("Task not found"), "{said}");
            // The reader learns why: the reload's new session, and that tasks may be per session.
            assert!(said.contains("reloaded while it ran"), "{said}");
            assert!(
                said.contains("only for the session that created it"),
                "{said}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_status_notification_brings_the_result_forward_and_a_lost_connection_fails_the_follower() {
    let (mut r, link) = ready(TASK_CAPS);
    r.sup
        .handle_request(1, tool("simulate-research-query"), 2.0);
    let call = frames(&r.take(), "tools/call").remove(0);
    say(
        &mut r,
        link,
        json!({"jsonrpc": "2.0", "id": call["id"], "result": {"task": task("N", "working", "")}}),
        3.0,
    );
    let a = say(
        &mut r,
        link,
        json!({"jsonrpc": "2.0", "method": "notifications/tasks/status", "params": task("N", "completed", "")}),
        4.0,
    );
    assert_eq!(frames(&a, "tasks/result").len(), 1);
    r.sup.handle_ws(link, refused(link), 5.0);
    match &replies(&r.take())[..] {
        [(1, Err(e))] => assert!(e.tool_may_have_run(), "{e:?}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_required_task_tool_is_refused_where_the_server_runs_no_tasks() {
    let (mut r, _link) = ready(r#"{"tools": {}}"#);
    r.sup
        .handle_request(1, tool("simulate-research-query"), 2.0);
    let a = r.take();
    assert!(frames(&a, "tools/call").is_empty());
    assert_eq!(replies(&a), [(1, Err(McpError::TaskRequired))]);
    // A plain tool on the same server is called as before.
    r.sup.handle_request(2, tool("echo"), 3.0);
    let call = frames(&r.take(), "tools/call").remove(0);
    assert_eq!(call["params"].get("task"), None);
}
