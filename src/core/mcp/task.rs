//! Tool calls that run as MCP tasks (the 2025-11-25 "tasks" utility, SEP-1686): which tools
//! can be called here at all and how, what a task-augmented `tools/call` and the `tasks/*`
//! requests carry, and when a follower asks what (`TaskFollow`).
//!
//! A tool declares `execution.taskSupport`: `forbidden` (the default) is called as before,
//! `optional` is called as a task when the server announces task-augmented `tools/call`
//! (`capabilities.tasks.requests.tools.call`): then Stop can cancel it and a reload can follow
//! it again; `required` can only be called as a task, so on a server that does not announce
//! them it is never offered to the model ([`call_mode`]).
//!
//! The follower polls `tasks/get` at the server's `pollInterval` (a status notification only
//! brings the next step forward: the spec says requestors must not rely on them), fetches
//! `tasks/result` once the task is final or needs input (the server's questions travel on
//! that request's stream), and never calls the tool again.
//!
//! Nothing here performs IO or reads a clock: the supervisor feeds it answers and `now`.

use serde_json::{json, Value};

use crate::mcp::model::Tool;
use crate::records::task::TaskStatus;

pub const GET_METHOD: &str = "tasks/get";
pub const RESULT_METHOD: &str = "tasks/result";
pub const CANCEL_METHOD: &str = "tasks/cancel";
pub const STATUS_NOTIFICATION: &str = "notifications/tasks/status";

/// Polling faster than this burdens the server; a server asking for less still gets this.
pub const MIN_POLL_MS: f64 = 250.0;
/// A server asking for slower polling than this would leave the card stale for too long.
pub const MAX_POLL_MS: f64 = 30_000.0;
/// When the server suggests no interval.
pub const DEFAULT_POLL_MS: f64 = 1_000.0;

/// A tool's `execution.taskSupport`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    Forbidden,
    Optional,
    Required,
}

crate::names::named_enum!(TaskSupport, "task support", {
    Forbidden => "forbidden",
    Optional => "optional",
    Required => "required",
});

/// What `tool` declares; absent or unreadable is the spec's default, `forbidden`.
pub fn task_support(tool: &Tool) -> TaskSupport {
    tool.execution
        .as_ref()
        .and_then(|e| e.get("taskSupport"))
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
        .unwrap_or(TaskSupport::Forbidden)
}

/// The server announces task-augmented `tools/call` (`capabilities.tasks.requests.tools.call`).
/// Without it a client must not augment a tool call (spec, "Capabilities").
pub fn server_runs_tool_tasks(capabilities: &Value) -> bool {
    capabilities
        .pointer("/tasks/requests/tools/call")
        .is_some_and(Value::is_object)
}

/// How a tool is called here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallMode {
    /// A plain `tools/call` whose answer is the result.
    Direct,
    /// A task-augmented `tools/call`, then `tasks/get` … `tasks/result`.
    Task,
}

/// Why a tool cannot be called here: it is not offered to the model, and the settings say so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported;

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "This tool only runs as a task, and its server does not announce task-augmented tool calls, so it is not offered to the model.",
        )
    }
}

/// The one decision of how (and whether) a tool is called.
pub fn call_mode(support: TaskSupport, server_runs_tasks: bool) -> Result<CallMode, Unsupported> {
    match (support, server_runs_tasks) {
        (TaskSupport::Forbidden, _) | (TaskSupport::Optional, false) => Ok(CallMode::Direct),
        (TaskSupport::Optional | TaskSupport::Required, true) => Ok(CallMode::Task),
        (TaskSupport::Required, false) => Err(Unsupported),
    }
}

/// Make `tools/call` params task-augmented. No `ttl`: the server keeps the task as long as it
/// chooses, and the follower reads what it chose.
pub fn augment(params: &mut Value) {
    if let Some(p) = params.as_object_mut() {
        p.insert("task".into(), json!({}));
    }
}

/// The params of `tasks/get`, `tasks/result` and `tasks/cancel`.
pub fn params(task_id: &str) -> Value {
    json!({ "taskId": task_id })
}

/// A task as the server reported it (`CreateTaskResult.task`, a `tasks/get` or `tasks/cancel`
/// result, or a status notification's params).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskUpdate {
    pub id: String,
    pub status: TaskStatus,
    pub message: Option<String>,
    pub poll_interval_ms: Option<f64>,
}

/// Read a `Task` object; `None` without a task id and a status.
pub fn parse_task(v: &Value) -> Option<TaskUpdate> {
    let id = v.get("taskId")?.as_str().filter(|s| !s.is_empty())?;
    let status = TaskStatus::from_wire(v.get("status")?.as_str()?);
    Some(TaskUpdate {
        id: id.to_string(),
        status,
        message: v
            .get("statusMessage")
            .and_then(Value::as_str)
            .map(str::to_string),
        poll_interval_ms: v.get("pollInterval").and_then(Value::as_f64),
    })
}

/// The task a task-augmented `tools/call` created, or `None` when the server answered with
/// the tool's result at once (allowed for `optional` tools).
pub fn created(result: &Value) -> Option<TaskUpdate> {
    parse_task(result.get("task")?)
}

/// What a follower sends next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FollowStep {
    Get,
    Result,
}

/// One task followed to its result.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskFollow {
    id: String,
    status: TaskStatus,
    message: Option<String>,
    interval_ms: f64,
    next_get_ms: Option<f64>,
    get_in_flight: bool,
    result_sent: bool,
    /// Known only by its id, from a page before a reload: the session that created it is gone.
    resumed: bool,
}

impl TaskFollow {
    /// Follow the task a `tools/call` just created.
    pub fn created(update: TaskUpdate, now_ms: f64) -> Self {
        let mut f = TaskFollow::resume(update.id.clone(), now_ms);
        f.resumed = false;
        f.apply(update, now_ms);
        f
    }

    /// Follow a task known only by its id (after a reload): ask its status at once.
    pub fn resume(id: String, now_ms: f64) -> Self {
        TaskFollow {
            id,
            status: TaskStatus::Working,
            message: None,
            interval_ms: DEFAULT_POLL_MS,
            next_get_ms: Some(now_ms),
            get_in_flight: false,
            result_sent: false,
            resumed: true,
        }
    }

    /// Followed again after a reload, on a session other than the one that created it.
    pub fn resumed(&self) -> bool {
        self.resumed
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn status(&self) -> TaskStatus {
        self.status
    }

    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// When [`TaskFollow::poll`] has something to send.
    pub fn next_deadline(&self) -> Option<f64> {
        if self.wants_result() {
            return Some(f64::MIN);
        }
        self.next_get_ms.filter(|_| !self.get_in_flight)
    }

    fn wants_result(&self) -> bool {
        !self.result_sent
            && matches!(
                self.status,
                TaskStatus::Completed | TaskStatus::Failed | TaskStatus::InputRequired
            )
    }

    /// What to send at `now`, if anything. A `Result` is sent once; a `Get` waits for the
    /// previous one's answer.
    pub fn poll(&mut self, now_ms: f64) -> Option<FollowStep> {
        if self.wants_result() {
            self.result_sent = true;
            return Some(FollowStep::Result);
        }
        let due = self.next_get_ms.is_some_and(|at| at <= now_ms);
        if due && !self.get_in_flight && !self.status.is_terminal() {
            self.get_in_flight = true;
            self.next_get_ms = None;
            return Some(FollowStep::Get);
        }
        None
    }

    /// A `tasks/get` answer (or a status notification) for this task. Returns whether what
    /// the card shows changed. Final states stay final.
    pub fn apply(&mut self, update: TaskUpdate, now_ms: f64) -> bool {
        if update.id != self.id || self.status.is_terminal() {
            return false;
        }
        if let Some(ms) = update.poll_interval_ms {
            self.interval_ms = ms.clamp(MIN_POLL_MS, MAX_POLL_MS);
        }
        let changed = (self.status, &self.message) != (update.status, &update.message);
        self.status = update.status;
        self.message = update.message;
        if !self.get_in_flight {
            self.schedule(now_ms);
        }
        changed
    }

    /// The `tasks/get` in flight was answered (`update`) or failed (`None`: try again at the
    /// next interval; a task outlives a slow answer).
    pub fn get_answered(&mut self, update: Option<TaskUpdate>, now_ms: f64) -> bool {
        self.get_in_flight = false;
        let changed = match update {
            Some(u) => self.apply(u, now_ms),
            None => false,
        };
        self.schedule(now_ms);
        changed
    }

    fn schedule(&mut self, now_ms: f64) {
        self.next_get_ms = (!self.status.is_terminal()).then_some(now_ms + self.interval_ms);
    }
}

#[cfg(test)]
#[path = "task_tests.rs"]
mod tests;
