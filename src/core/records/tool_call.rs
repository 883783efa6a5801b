//! What a tool call looks like once it is part of a conversation: the stored record the UI
//! renders as a card, the agent machine updates, and the wire builders turn back into what the
//! model receives. Plain data (serde), so a reload shows the whole exchange.
//!
//! The raw MCP result is kept whole for the user; what the model receives is derived from it
//! when a request is built (`tools::result::for_model`), with the truncation limit in force
//! then.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::task::{TaskRef, TaskStatus};

/// Where one call stands. Final states: `Done`, `Error`, `Cancelled`, `Denied`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum ToolCallStatus {
    /// Parsed from the model's answer; nothing decided yet.
    Pending,
    /// Waiting for the user to allow or deny it.
    AwaitingApproval,
    /// Sent to the server.
    Running,
    /// The server answered (the result may still be `isError: true`, see `ToolCallRecord::is_error`).
    Done,
    /// It could not run or failed: the sentence says why (invalid arguments, unknown tool,
    /// server unreachable, JSON-RPC error). Passed to the model so it can correct itself.
    Error(String),
    /// Stopped by the user (or the page) before it finished.
    Cancelled,
    /// The user (or a "never" rule) refused it.
    Denied,
}

impl ToolCallStatus {
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            ToolCallStatus::Done
                | ToolCallStatus::Error(_)
                | ToolCallStatus::Cancelled
                | ToolCallStatus::Denied
        )
    }
}

/// Latest `notifications/progress` of a running call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolProgress {
    pub progress: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// One tool call inside an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRecord {
    /// The provider's call id (native), or one Skiff made (prompt-based: `mcp-<step>-<n>`).
    pub id: String,
    /// The name the model used (the tool index's exposed name, or whatever it invented).
    pub name: String,
    /// The server that serves it; `None` when the model named a tool no server has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_id: Option<String>,
    /// The server's display name at the time of the call (the card shows it after a removal).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub server_name: String,
    /// The tool's own name on its server (what `tools/call` sends).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tool_name: String,
    /// The arguments exactly as the model wrote them (a JSON object's text, or not JSON at all).
    pub arguments: String,
    /// Where the call stands. This and the times, progress and result below change only
    /// through the transition methods (`start`, `finish`, `deny`, …), which keep them in step.
    status: ToolCallStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    started_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ended_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    progress: Option<ToolProgress>,
    /// The raw `CallToolResult` JSON, shown in full to the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
    /// The MCP task the call runs as, once the server created one: a reload follows this
    /// task (`tasks/get`, `tasks/result`) and never sends the call again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    task: Option<TaskRef>,
}

impl ToolCallRecord {
    pub fn new(id: String, name: String, arguments: String) -> Self {
        ToolCallRecord {
            id,
            name,
            server_id: None,
            server_name: String::new(),
            tool_name: String::new(),
            arguments,
            status: ToolCallStatus::Pending,
            started_ms: None,
            ended_ms: None,
            progress: None,
            result: None,
            task: None,
        }
    }

    /// The MCP task behind this call, if it runs as one.
    pub fn task(&self) -> Option<&TaskRef> {
        self.task.as_ref()
    }

    /// Still running as a task a page can follow again after a reload. A task that reached a
    /// final state whose result was not fetched yet counts: `tasks/result` still has it.
    pub fn is_resumable_task(&self) -> bool {
        self.status == ToolCallStatus::Running && self.task.is_some()
    }

    /// Where the call stands.
    pub fn status(&self) -> &ToolCallStatus {
        &self.status
    }

    /// When it was sent to its server.
    pub fn started_ms(&self) -> Option<f64> {
        self.started_ms
    }

    /// When it reached a final state (unknown for one a closed page interrupted).
    pub fn ended_ms(&self) -> Option<f64> {
        self.ended_ms
    }

    /// The last `notifications/progress` while it ran.
    pub fn progress(&self) -> Option<&ToolProgress> {
        self.progress.as_ref()
    }

    /// The raw `CallToolResult` JSON, once it finished.
    pub fn result(&self) -> Option<&Value> {
        self.result.as_ref()
    }

    /// Put a record straight into a state, for tests of what is built from records.
    #[cfg(test)]
    pub(crate) fn set_for_test(&mut self, status: ToolCallStatus, result: Option<Value>) {
        self.status = status;
        self.result = result;
    }

    /// The server answered with `isError: true`.
    pub fn is_error(&self) -> bool {
        matches!(self.status, ToolCallStatus::Error(_))
            || self
                .result
                .as_ref()
                .and_then(|r| r.get("isError"))
                .and_then(Value::as_bool)
                .unwrap_or(false)
    }

    /// Milliseconds from start to end, once both are known.
    pub fn duration_ms(&self) -> Option<f64> {
        Some(self.ended_ms? - self.started_ms?).filter(|d| *d >= 0.0)
    }

    // Transitions. Status and timestamps change only here, together, and only along the
    // lifecycle (Pending → AwaitingApproval → Running → a final state); a transition that does
    // not apply (a double click, a late answer after Stop) changes nothing and returns `false`.

    /// Waiting for the user's decision.
    pub fn ask(&mut self) -> bool {
        self.to(ToolCallStatus::AwaitingApproval, |s| {
            *s == ToolCallStatus::Pending
        })
    }

    /// Sent to its server at `now_ms`.
    pub fn start(&mut self, now_ms: f64) -> bool {
        let moved = self.to(ToolCallStatus::Running, |s| {
            matches!(
                s,
                ToolCallStatus::Pending | ToolCallStatus::AwaitingApproval
            )
        });
        if moved {
            self.started_ms = Some(now_ms);
        }
        moved
    }

    /// `notifications/progress` while it runs; ignored in any other state.
    pub fn report_progress(&mut self, progress: ToolProgress) -> bool {
        if self.status != ToolCallStatus::Running {
            return false;
        }
        self.progress = Some(progress);
        true
    }

    /// The server created (or reported on) the task this running call runs as. A call that
    /// is not running, or that already runs as another task, keeps what it has.
    pub fn report_task(&mut self, id: &str, status: TaskStatus, message: Option<String>) -> bool {
        if self.status != ToolCallStatus::Running || self.task.as_ref().is_some_and(|t| t.id != id)
        {
            return false;
        }
        let next = TaskRef {
            id: id.to_string(),
            status,
            message,
        };
        if self.task.as_ref() == Some(&next) {
            return false;
        }
        self.task = Some(next);
        true
    }

    /// The server answered with this raw `CallToolResult` (`isError: true` included).
    pub fn finish(&mut self, result: Value, now_ms: f64) -> bool {
        let moved = self.end(ToolCallStatus::Done, now_ms, |s| {
            *s == ToolCallStatus::Running
        });
        if moved {
            self.result = Some(result);
        }
        moved
    }

    /// It could not run, or failed without a result: `sentence` says why, to the user and to
    /// the model.
    pub fn fail(&mut self, sentence: String, now_ms: f64) -> bool {
        self.end(ToolCallStatus::Error(sentence), now_ms, |s| !s.is_final())
    }

    /// Refused by the user or a "never" rule, before it ran.
    pub fn deny(&mut self, now_ms: f64) -> bool {
        self.end(ToolCallStatus::Denied, now_ms, |s| {
            matches!(
                s,
                ToolCallStatus::Pending | ToolCallStatus::AwaitingApproval
            )
        })
    }

    /// Stopped by the user before it finished (running, or still waiting).
    pub fn cancel(&mut self, now_ms: f64) -> bool {
        self.end(ToolCallStatus::Cancelled, now_ms, |s| !s.is_final())
    }

    /// Left unfinished by a page that closed: nobody will finish or approve it, and when it
    /// ended is unknown, so no end time is invented.
    pub fn interrupt(&mut self, sentence: &str) -> bool {
        self.to(ToolCallStatus::Error(sentence.to_string()), |s| {
            !s.is_final()
        })
    }

    fn end(
        &mut self,
        status: ToolCallStatus,
        now_ms: f64,
        allowed_from: impl Fn(&ToolCallStatus) -> bool,
    ) -> bool {
        let moved = self.to(status, allowed_from);
        if moved {
            self.ended_ms = Some(now_ms);
        }
        moved
    }

    fn to(
        &mut self,
        status: ToolCallStatus,
        allowed_from: impl Fn(&ToolCallStatus) -> bool,
    ) -> bool {
        if !allowed_from(&self.status) {
            return false;
        }
        self.status = status;
        true
    }
}

impl ToolCallStatus {
    /// The status's stored name (`kind`), also its name in the page.
    pub fn as_str(&self) -> &'static str {
        match self {
            ToolCallStatus::Pending => "pending",
            ToolCallStatus::AwaitingApproval => "awaiting_approval",
            ToolCallStatus::Running => "running",
            ToolCallStatus::Done => "done",
            ToolCallStatus::Error(_) => "error",
            ToolCallStatus::Cancelled => "cancelled",
            ToolCallStatus::Denied => "denied",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn record_round_trips_and_omits_empty_fields() {
        let mut r =
            ToolCallRecord::new("call_1".into(), "echo".into(), r#"{"message":"hi"}"#.into());
        let j = serde_json::to_string(&r).unwrap();
        assert_eq!(
            j,
            r#"{"id":"call_1","name":"echo","arguments":"{\"message\":\"hi\"}","status":{"kind":"pending"}}"#
        );
        assert!(r.fail("bad".into(), 3.0));
        let back: ToolCallRecord =
            serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
        assert_eq!(back, r);
        assert!(back.is_error());
        assert_eq!(back.ended_ms, Some(3.0));
    }

    #[test]
    fn is_error_reads_the_result_flag() {
        let mut r = ToolCallRecord::new("c".into(), "t".into(), "{}".into());
        assert!(r.start(10.0));
        assert!(r.finish(json!({"content": [{"type": "text", "text": "x"}]}), 35.0));
        assert!(!r.is_error());
        assert_eq!(r.duration_ms(), Some(25.0));
        let mut r = ToolCallRecord::new("c".into(), "t".into(), "{}".into());
        r.start(0.0);
        r.finish(json!({"content": [], "isError": true}), 1.0);
        assert!(r.is_error());
    }

    #[test]
    fn transitions_follow_the_lifecycle_and_stamp_their_times() {
        let mut r = ToolCallRecord::new("c".into(), "t".into(), "{}".into());
        assert!(
            !r.finish(json!({}), 1.0),
            "a call that never ran has no result"
        );
        assert!(r.ask());
        assert!(!r.ask(), "asked once");
        assert!(r.start(5.0));
        assert_eq!((r.started_ms, r.ended_ms), (Some(5.0), None));
        assert!(!r.start(6.0), "started once");
        assert!(!r.deny(6.0), "a running call can no longer be refused");
        assert!(r.report_progress(ToolProgress {
            progress: 1.0,
            total: Some(2.0),
            message: None
        }));
        assert!(r.cancel(9.0));
        assert_eq!(r.status, ToolCallStatus::Cancelled);
        assert_eq!(r.duration_ms(), Some(4.0));
        // Final states stay final: a late answer, a denial, an interruption change nothing.
        assert!(!r.finish(json!({}), 10.0));
        assert!(!r.fail("late".into(), 10.0));
        assert!(!r.interrupt("closed"));
        assert!(!r.report_progress(ToolProgress {
            progress: 2.0,
            total: None,
            message: None
        }));
        assert_eq!(
            (r.status.clone(), r.ended_ms),
            (ToolCallStatus::Cancelled, Some(9.0))
        );

        let mut waiting = ToolCallRecord::new("w".into(), "t".into(), "{}".into());
        waiting.ask();
        assert!(waiting.deny(3.0));
        assert_eq!((waiting.started_ms, waiting.ended_ms), (None, Some(3.0)));

        let mut orphan = ToolCallRecord::new("o".into(), "t".into(), "{}".into());
        orphan.start(1.0);
        assert!(orphan.interrupt("closed"));
        assert_eq!(orphan.status, ToolCallStatus::Error("closed".into()));
        assert_eq!(orphan.ended_ms, None, "when it ended is unknown");
    }

    #[test]
    fn a_task_is_kept_with_its_running_call_and_stored() {
        let mut r = ToolCallRecord::new("c".into(), "research".into(), "{}".into());
        assert!(
            !r.report_task("t1", TaskStatus::Working, None),
            "only a running call has a task"
        );
        r.start(1.0);
        assert!(r.report_task("t1", TaskStatus::Working, Some("Gathering".into())));
        assert!(!r.report_task("t1", TaskStatus::Working, Some("Gathering".into())));
        assert!(
            !r.report_task("t2", TaskStatus::Completed, None),
            "one call, one task"
        );
        assert!(r.is_resumable_task());
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(
            j["task"],
            json!({"id": "t1", "status": "working", "message": "Gathering"})
        );
        let back: ToolCallRecord = serde_json::from_value(j).unwrap();
        assert_eq!(back, r);
        // Completed on the server, result not fetched yet: tasks/result still has it.
        assert!(r.report_task("t1", TaskStatus::Completed, None));
        assert!(r.is_resumable_task());
        r.finish(json!({"content": []}), 5.0);
        assert!(!r.is_resumable_task());
    }
}

#[cfg(test)]
mod name_tests {
    use super::*;
    use crate::records::tool_mode::ToolMode;

    #[test]
    fn status_names_are_the_stored_kinds() {
        for s in [
            ToolCallStatus::Pending,
            ToolCallStatus::AwaitingApproval,
            ToolCallStatus::Running,
            ToolCallStatus::Done,
            ToolCallStatus::Error("x".into()),
            ToolCallStatus::Cancelled,
            ToolCallStatus::Denied,
        ] {
            assert_eq!(serde_json::to_value(&s).unwrap()["kind"], s.as_str());
        }
        for m in ToolMode::ALL {
            assert_eq!(serde_json::to_value(m).unwrap(), m.as_str());
        }
    }
}
