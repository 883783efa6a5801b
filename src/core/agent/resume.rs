//! Tool calls a reloaded page finds still running as MCP tasks: which ones this page follows
//! again, and how a follower's outcome settles the stored call. The turn that started them is
//! over (its page closed), so the result lands on the card and in the conversation the model
//! reads next; the tool itself is never called again.

use serde_json::Value;

use super::call_error;
use crate::mcp::McpError;
use crate::records::message::{Message, MessageStatus};
use crate::records::tool_call::ToolCallRecord;

/// One task to follow: where its call is stored and what to ask its server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskToFollow {
    pub message_id: String,
    pub call_id: String,
    pub server_id: String,
    pub task_id: String,
}

/// The calls of `messages` running as tasks that no turn follows: a streaming message's
/// calls belong to the turn streaming it (in this tab or another one).
pub fn tasks_to_follow(messages: &[Message]) -> Vec<TaskToFollow> {
    messages
        .iter()
        .filter(|m| m.status != MessageStatus::Streaming)
        .flat_map(|m| {
            m.tool_calls.iter().filter_map(move |c| {
                let task = c.task().filter(|_| c.is_resumable_task())?;
                Some(TaskToFollow {
                    message_id: m.id.clone(),
                    call_id: c.id.clone(),
                    server_id: c.server_id.clone()?,
                    task_id: task.id.clone(),
                })
            })
        })
        .collect()
}

/// A follower's outcome, on the stored call: the tool's result, or the sentence of why there
/// is none (which says it may have run). Returns whether the call changed.
pub fn settle(call: &mut ToolCallRecord, outcome: Result<Value, McpError>, now_ms: f64) -> bool {
    match outcome {
        Ok(result) => call.finish(result, now_ms),
        Err(e) => call.fail(call_error::sentence(&e), now_ms),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::message::Role;
    use crate::records::task::TaskStatus;
    use crate::records::tool_call::ToolCallStatus;
    use serde_json::json;

    fn task_call(id: &str, server: Option<&str>) -> ToolCallRecord {
        let mut c = ToolCallRecord::new(id.into(), "research".into(), "{}".into());
        c.server_id = server.map(str::to_string);
        c.start(1.0);
        c.report_task(&format!("task-{id}"), TaskStatus::Working, None);
        c
    }

    #[test]
    fn a_reloaded_page_follows_only_the_tasks_no_turn_follows() {
        let mut interrupted = Message::new("m1".into(), Role::Assistant, String::new(), 0.0);
        interrupted.status = MessageStatus::Interrupted;
        let mut plain = ToolCallRecord::new("p".into(), "echo".into(), "{}".into());
        plain.start(1.0);
        interrupted.tool_calls = vec![task_call("a", Some("s1")), plain, task_call("b", None)];
        let mut streaming = Message::new("m2".into(), Role::Assistant, String::new(), 0.0);
        streaming.status = MessageStatus::Streaming;
        streaming.tool_calls = vec![task_call("c", Some("s1"))];
        assert_eq!(
            tasks_to_follow(&[interrupted, streaming]),
            [TaskToFollow {
                message_id: "m1".into(),
                call_id: "a".into(),
                server_id: "s1".into(),
                task_id: "task-a".into(),
            }]
        );
    }

    #[test]
    fn the_outcome_settles_the_call_once() {
        let mut c = task_call("a", Some("s1"));
        assert!(settle(&mut c, Ok(json!({"content": []})), 9.0));
        assert_eq!(*c.status(), ToolCallStatus::Done);
        assert!(!settle(&mut c, Ok(json!({})), 10.0));
        let mut lost = task_call("b", Some("s1"));
        let gone = McpError::TaskLost {
            task_id: "task-b".into(),
            reason: "the server answered “Task not found”".into(),
        };
        assert!(settle(&mut lost, Err(gone), 9.0));
        match lost.status() {
            ToolCallStatus::Error(s) => assert!(s.contains("did not send it again"), "{s}"),
            other => panic!("{other:?}"),
        }
    }
}
