use super::*;
use serde_json::json;

fn tool(execution: Value) -> Tool {
    serde_json::from_value(
        json!({"name": "t", "inputSchema": {"type": "object"}, "execution": execution}),
    )
    .unwrap()
}

fn update(status: &str, interval: Option<f64>) -> TaskUpdate {
    let mut v = json!({"taskId": "t1", "status": status, "statusMessage": format!("{status}…"),
        "createdAt": "2025-11-25T10:00:00Z", "lastUpdatedAt": "2025-11-25T10:00:00Z", "ttl": 300000});
    if let Some(ms) = interval {
        v["pollInterval"] = json!(ms);
    }
    parse_task(&v).unwrap()
}

#[test]
fn a_tool_is_called_as_its_server_and_declaration_allow_or_not_offered() {
    assert_eq!(
        task_support(&tool(json!({"taskSupport": "required"}))),
        TaskSupport::Required
    );
    assert_eq!(
        task_support(&tool(json!({"taskSupport": "optional"}))),
        TaskSupport::Optional
    );
    assert_eq!(task_support(&tool(json!({}))), TaskSupport::Forbidden);
    assert_eq!(task_support(&tool(json!("junk"))), TaskSupport::Forbidden);
    assert_eq!(task_support(&tool(Value::Null)), TaskSupport::Forbidden);

    let caps = json!({"tasks": {"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}}});
    assert!(server_runs_tool_tasks(&caps));
    assert!(!server_runs_tool_tasks(&json!({"tasks": {"list": {}}})));
    assert!(!server_runs_tool_tasks(&json!({"tools": {}})));

    use CallMode::*;
    assert_eq!(call_mode(TaskSupport::Forbidden, true), Ok(Direct));
    assert_eq!(call_mode(TaskSupport::Optional, false), Ok(Direct));
    assert_eq!(call_mode(TaskSupport::Optional, true), Ok(Task));
    assert_eq!(call_mode(TaskSupport::Required, true), Ok(Task));
    assert_eq!(call_mode(TaskSupport::Required, false), Err(Unsupported));
    assert!(Unsupported.to_string().contains("not offered"));
}

#[test]
fn wire_shapes_follow_the_spec() {
    let mut p = json!({"name": "simulate-research-query", "arguments": {"topic": "x"}});
    augment(&mut p);
    assert_eq!(p["task"], json!({}));
    assert_eq!(params("abc"), json!({"taskId": "abc"}));
    // server-everything's CreateTaskResult, as sent.
    let created_result = json!({"task": {"taskId": "9f1", "status": "working", "ttl": 300000,
        "createdAt": "2026-11-29T11:00:00.000Z", "lastUpdatedAt": "2026-11-29T11:00:00.000Z",
        "pollInterval": 1000}});
    let u = created(&created_result).unwrap();
    assert_eq!(
        (u.id.as_str(), u.status, u.poll_interval_ms),
        ("9f1", TaskStatus::Working, Some(1000.0))
    );
    assert_eq!(
        created(&json!({"content": []})),
        None,
        "a plain result is no task"
    );
    assert_eq!(parse_task(&json!({"status": "working"})), None);
}

#[test]
fn follower_polls_at_the_interval_and_fetches_the_result_once() {
    let mut f = TaskFollow::created(update("working", Some(1000.0)), 0.0);
    assert_eq!(f.next_deadline(), Some(1000.0));
    assert_eq!(f.poll(999.0), None);
    assert_eq!(f.poll(1000.0), Some(FollowStep::Get));
    assert_eq!(f.poll(5000.0), None, "one tasks/get at a time");
    assert_eq!(f.next_deadline(), None);
    f.get_answered(Some(update("working", None)), 1200.0);
    assert_eq!(f.next_deadline(), Some(2200.0));
    // Input required: tasks/result carries the server's questions; polling goes on.
    assert!(f.apply(update("input_required", None), 1500.0));
    assert_eq!(f.poll(1500.0), Some(FollowStep::Result));
    assert_eq!(f.poll(2500.0), Some(FollowStep::Get));
    assert!(f.get_answered(Some(update("completed", None)), 2600.0));
    assert_eq!(
        f.poll(99_999.0),
        None,
        "the result was already asked for; nothing more to poll"
    );
    assert_eq!(f.next_deadline(), None);
    // Final stays final.
    assert!(!f.apply(update("working", None), 3000.0));
    assert_eq!(f.status(), TaskStatus::Completed);
}

#[test]
fn completion_seen_first_fetches_the_result_and_intervals_are_clamped() {
    let mut f = TaskFollow::created(update("working", Some(5.0)), 0.0);
    assert_eq!(f.next_deadline(), Some(MIN_POLL_MS));
    // A status notification brings the result forward without waiting for the poll.
    assert!(f.apply(update("completed", None), 10.0));
    assert_eq!(f.poll(10.0), Some(FollowStep::Result));
    assert_eq!(f.poll(10.0), None);

    let mut slow = TaskFollow::created(update("working", Some(3_600_000.0)), 0.0);
    assert_eq!(slow.next_deadline(), Some(MAX_POLL_MS));
    assert_eq!(slow.poll(MAX_POLL_MS), Some(FollowStep::Get));
    // A failed tasks/get is tried again at the next interval.
    assert!(!slow.get_answered(None, MAX_POLL_MS + 1.0));
    assert_eq!(slow.next_deadline(), Some(2.0 * MAX_POLL_MS + 1.0));
    // Another task's update changes nothing.
    let mut other = update("completed", None);
    other.id = "zzz".into();
    assert!(!slow.apply(other, 0.0));
}

#[test]
fn a_resumed_task_is_asked_for_at_once_and_never_created_again() {
    let mut f = TaskFollow::resume("t1".into(), 50.0);
    assert_eq!(f.poll(50.0), Some(FollowStep::Get));
    assert!(f.get_answered(Some(update("working", Some(1000.0))), 60.0));
    assert_eq!(f.message(), Some("working…"));
    assert_eq!(f.next_deadline(), Some(1060.0));
}
