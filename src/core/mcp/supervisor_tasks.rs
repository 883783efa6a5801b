//! Tool calls that run as MCP tasks, for `Supervisor`: how each tool call goes out
//! (`mcp::task::call_mode` over the tool's declaration and the server's capabilities), the
//! task a `tools/call` created followed to its result (`TaskFollow` decides when to ask what),
//! Stop as `tasks/cancel`, and a task known only by its id (after a reload) followed again.
//!
//! The caller sees one call: progress, then `Action::Task` whenever the task's status changes,
//! then one `Action::Reply` with the tool's `CallToolResult`. A tool is never called twice:
//! a follower only ever sends `tasks/*` requests.

use std::collections::HashMap;

use serde_json::Value;

use super::error::McpError;
use super::messages::RequestId;
use super::supervisor::Supervisor;
use super::supervisor_types::{Action, CallKey};
use super::task::{self, CallMode, FollowStep, TaskFollow, TaskSupport, TaskUpdate, Unsupported};
use crate::mcp::model::Tool;
use crate::records::task::{TaskRef, TaskStatus};

/// What a request of the supervisor's own is for, so its answer goes to the right place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    /// A caller's request: its answer is the reply.
    Caller,
    /// A task-augmented `tools/call`: its answer is (usually) a task to follow.
    TaskCreate,
    /// A follower's `tasks/get` or `tasks/result`.
    Task(FollowStep),
    /// `tasks/cancel`, sent on Stop; its answer changes nothing.
    TaskCancel,
}

/// One task followed for the caller `key`.
#[derive(Debug)]
pub(super) struct Follow {
    pub(super) key: CallKey,
    pub(super) task: TaskFollow,
}

/// The task state of one `Supervisor`.
#[derive(Debug, Default)]
pub(super) struct Tasks {
    /// `execution.taskSupport` of each tool of the last `tools/list`.
    support: HashMap<String, TaskSupport>,
    pub(super) follows: Vec<Follow>,
    /// Task-augmented calls cancelled before the server answered: the task they create is
    /// cancelled as soon as its id is known.
    pub(super) cancel_on_create: Vec<RequestId>,
}

impl Tasks {
    pub(super) fn tools_listed(&mut self, tools: &[Tool]) {
        self.support = tools
            .iter()
            .map(|t| (t.name.to_string(), task::task_support(t)))
            .collect();
    }

    pub(super) fn next_deadline(&self) -> Option<f64> {
        self.follows
            .iter()
            .filter_map(|f| f.task.next_deadline())
            .reduce(f64::min)
    }
}

fn task_ref(f: &TaskFollow) -> TaskRef {
    TaskRef {
        id: f.id().to_string(),
        status: f.status(),
        message: f.message().map(str::to_string),
    }
}

impl Supervisor {
    /// How a call of tool `name` goes out on the current session.
    pub(super) fn tool_mode(&self, name: &str) -> Result<CallMode, Unsupported> {
        let support = self
            .tasks
            .support
            .get(name)
            .copied()
            .unwrap_or(TaskSupport::Forbidden);
        let runs_tasks = self
            .link
            .as_ref()
            .is_some_and(|l| task::server_runs_tool_tasks(l.session().capabilities_json()));
        task::call_mode(support, runs_tasks)
    }

    /// Follow task `task_id` for caller `key` (a reload found its call still running).
    pub(super) fn follow_task(&mut self, key: CallKey, task_id: String, now: f64) {
        self.tasks.follows.push(Follow {
            key,
            task: TaskFollow::resume(task_id, now),
        });
        self.poll_tasks(now);
    }

    /// Send what each follower wants now.
    pub(super) fn poll_tasks(&mut self, now: f64) {
        let Some(link) = self.link.as_mut() else {
            return;
        };
        let mut sent = Vec::new();
        for f in &mut self.tasks.follows {
            while let Some(step) = f.task.poll(now) {
                let method = match step {
                    FollowStep::Get => task::GET_METHOD,
                    FollowStep::Result => task::RESULT_METHOD,
                };
                let id = link
                    .session_mut()
                    .request(method, Some(task::params(f.task.id())), now);
                sent.push((id, f.key, Role::Task(step)));
            }
        }
        for (id, key, role) in sent {
            self.track_own(id, key, role);
        }
    }

    /// The answer to a request the supervisor made for caller `key`.
    pub(super) fn route_answer(
        &mut self,
        id: &RequestId,
        key: CallKey,
        role: Role,
        result: Result<Value, McpError>,
        now: f64,
    ) {
        match role {
            Role::Caller => self.emit(Action::Reply { key, result }),
            Role::TaskCreate => self.on_created(id, key, result, now),
            Role::Task(step) => self.on_step(key, step, result, now),
            // Stop already answered the caller; the server's word on the cancel ends nothing.
            Role::TaskCancel => return,
        }
        // The call is over once no task of it is followed any more: a question the server
        // asked while it ran is settled (see `settle_asks`).
        if !self.tasks.follows.iter().any(|f| f.key == key) {
            self.settle_asks(key);
        }
    }

    fn on_created(
        &mut self,
        id: &RequestId,
        key: CallKey,
        result: Result<Value, McpError>,
        now: f64,
    ) {
        let created = result.as_ref().ok().and_then(task::created);
        if let Some(at) = self.tasks.cancel_on_create.iter().position(|r| r == id) {
            self.tasks.cancel_on_create.remove(at);
            if let Some(u) = created {
                self.send_cancel(key, &u.id, now);
            }
            return;
        }
        match created {
            Some(u) => {
                let task = TaskFollow::created(u, now);
                self.emit(Action::Task {
                    key,
                    task: task_ref(&task),
                });
                self.tasks.follows.push(Follow { key, task });
                self.poll_tasks(now);
            }
            // An `optional` tool may answer at once; an error is the call's error.
            None => self.emit(Action::Reply { key, result }),
        }
    }

    fn on_step(
        &mut self,
        key: CallKey,
        step: FollowStep,
        result: Result<Value, McpError>,
        now: f64,
    ) {
        let Some(at) = self.tasks.follows.iter().position(|f| f.key == key) else {
            return; // cancelled meanwhile
        };
        // A reloaded page that took up the kept session asks on the session that created
        // the task; one that could not asks on a new session.
        let same_session = self
            .link
            .as_ref()
            .is_some_and(|l| l.session().was_resumed());
        match (step, result) {
            (FollowStep::Result, result) => {
                let f = self.tasks.follows.remove(at);
                let result = result.map_err(|e| lost_unless_transport(&f.task, same_session, e));
                self.emit(Action::Reply { key, result });
            }
            (FollowStep::Get, Ok(v)) => {
                let update = task::parse_task(&v);
                self.apply_update(at, update, true, now);
            }
            // The server does not know the task (any more): nothing will finish it.
            (FollowStep::Get, Err(e @ McpError::Rpc { .. })) => {
                let f = self.tasks.follows.remove(at);
                let result = Err(lost_unless_transport(&f.task, same_session, e));
                self.emit(Action::Reply { key, result });
            }
            // A slow or failed poll: ask again at the next interval.
            (FollowStep::Get, Err(_)) => self.apply_update(at, None, true, now),
        }
        self.poll_tasks(now);
    }

    /// A status for follower `at`, from `tasks/get` (`answered_get`) or a notification.
    fn apply_update(
        &mut self,
        at: usize,
        update: Option<TaskUpdate>,
        answered_get: bool,
        now: f64,
    ) {
        let f = &mut self.tasks.follows[at];
        let changed = if answered_get {
            f.task.get_answered(update, now)
        } else {
            update.is_some_and(|u| f.task.apply(u, now))
        };
        let key = f.key;
        if changed {
            let task = task_ref(&f.task);
            self.emit(Action::Task { key, task });
        }
        if self.tasks.follows[at].task.status() == TaskStatus::Cancelled {
            let f = self.tasks.follows.remove(at);
            let reason = f
                .task
                .message()
                .map(|m| format!("the server cancelled it ({m})"))
                .unwrap_or_else(|| "the server cancelled it".into());
            self.emit(Action::Reply {
                key,
                result: Err(McpError::TaskLost {
                    task_id: f.task.id().to_string(),
                    reason,
                }),
            });
        }
    }

    /// `notifications/tasks/status`: brings a follower's next step forward.
    pub(super) fn task_notified(&mut self, params: &Value, now: f64) {
        let Some(update) = task::parse_task(params) else {
            return;
        };
        if let Some(at) = self
            .tasks
            .follows
            .iter()
            .position(|f| f.task.id() == update.id)
        {
            self.apply_update(at, Some(update), false, now);
            self.poll_tasks(now);
        }
    }

    /// Stop for caller `key`, if it is a task (created or still being created): `tasks/cancel`
    /// (the spec's way; `notifications/cancelled` does not apply to tasks). Returns whether it was.
    pub(super) fn cancel_task(&mut self, key: CallKey, reason: Option<String>, now: f64) -> bool {
        if let Some(at) = self.tasks.follows.iter().position(|f| f.key == key) {
            let f = self.tasks.follows.remove(at);
            self.send_cancel(key, f.task.id(), now);
        } else if let Some(id) = self.creating(key) {
            self.tasks.cancel_on_create.push(id);
        } else {
            return false;
        }
        self.emit(Action::Reply {
            key,
            result: Err(McpError::Cancelled { reason }),
        });
        true
    }

    fn send_cancel(&mut self, key: CallKey, task_id: &str, now: f64) {
        if let Some(link) = self.link.as_mut() {
            let id =
                link.session_mut()
                    .request(task::CANCEL_METHOD, Some(task::params(task_id)), now);
            self.track_own(id, key, Role::TaskCancel);
        }
    }

    /// The connection went away: a follower's task may still run on the server, but nothing
    /// here can reach it any more. Each caller hears that it may have run.
    pub(super) fn fail_tasks(&mut self, error: &McpError) -> Vec<Action> {
        self.tasks.cancel_on_create.clear();
        std::mem::take(&mut self.tasks.follows)
            .into_iter()
            .map(|f| Action::Reply {
                key: f.key,
                result: Err(match error {
                    McpError::ConnectionLost { reason, .. } => McpError::ConnectionLost {
                        reason: reason.clone(),
                        in_flight_tool: true,
                    },
                    other => McpError::TaskLost {
                        task_id: f.task.id().to_string(),
                        reason: other.cause(),
                    },
                }),
            })
            .collect()
    }
}

/// A `tasks/*` request refused by the server means the task is gone for us; a transport
/// failure keeps its own words, saying that the tool may have run (it was running).
/// `same_session`: the page asks on the session that created the task (kept across a reload).
fn lost_unless_transport(task: &TaskFollow, same_session: bool, e: McpError) -> McpError {
    match e {
        McpError::Rpc { message, .. } if task.resumed() && same_session => McpError::TaskLost {
            task_id: task.id().to_string(),
            reason: format!(
                "the page was reloaded while it ran; on the same session, the server no longer \
                 knows the task (it answered “{message}”)"
            ),
        },
        // After a reload the task is asked for on a new session. The spec binds a task to the
        // context that created it, and servers commonly scope it to the session
        // (server-everything keeps one task store per session): the result is out of reach.
        McpError::Rpc { message, .. } if task.resumed() => McpError::TaskLost {
            task_id: task.id().to_string(),
            reason: format!(
                "the page was reloaded while it ran, and the server does not know the task on \
                 the new session (it answered “{message}”; a server may keep a task only for \
                 the session that created it)"
            ),
        },
        McpError::Rpc { message, .. } => McpError::TaskLost {
            task_id: task.id().to_string(),
            reason: format!("the server answered “{message}”"),
        },
        McpError::ConnectionLost { reason, .. } => McpError::ConnectionLost {
            reason,
            in_flight_tool: true,
        },
        McpError::SessionExpired { .. } => McpError::SessionExpired {
            in_flight_tool: true,
        },
        other => other,
    }
}
