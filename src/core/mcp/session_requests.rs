//! Caller requests, time and connection loss for `McpSession`: tool calls, resource reads,
//! prompts, ping, cancellation, timeouts, the periodic health check, and what happens to
//! pending work when the transport or the server's session goes away.

use serde_json::{json, Map, Value};

use super::era::Era;
use super::error::McpError;
use super::messages::{self, ListKind, RequestId};
use super::session::{McpSession, PendingKind, Queued};
use super::session_types::{Output, Phase, SessionEvent};
use super::task::{self, CallMode};
use super::types_2026;
use crate::mcp::model::ServerCapabilities;

/// How many times the server may expire a session before it is ready again.
const MAX_EXPIRIES_IN_HANDSHAKE: u32 = 3;

/// How long the periodic health check waits for its answer (at most the request timeout).
/// A ping costs a server nothing, so a live one answers in milliseconds; a frozen one (a
/// stopped process keeps its socket open, so nothing else fails) is then noticed within the
/// ping interval plus this, not plus the request timeout a slow tool may need (77 s with the
/// defaults, measured).
pub(crate) const PING_TIMEOUT_MS: f64 = 10_000.0;

impl McpSession {
    /// Call a tool. With `progress`, the server may send `notifications/progress`, reported as
    /// `SessionEvent::Progress` for this id (and each one extends the timeout).
    pub fn call_tool(
        &mut self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        progress: bool,
        now_ms: f64,
    ) -> RequestId {
        self.call_tool_as(name, arguments, progress, CallMode::Direct, now_ms)
    }

    /// `call_tool`, task-augmented when `mode` says so (`mcp::task`): the answer is then a
    /// `CreateTaskResult`, which the supervisor follows to the tool's result.
    pub fn call_tool_as(
        &mut self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        progress: bool,
        mode: CallMode,
        now_ms: f64,
    ) -> RequestId {
        let id = self.alloc_id();
        // A tool whose `x-mcp-header` declarations are broken cannot be called over modern
        // Streamable HTTP (the server refuses a call without its headers): say why instead.
        if self.era == Some(Era::Modern) {
            let broken = self.param_decls.iter().find(|(n, _)| n == name);
            if let Some((_, Err(why))) = broken {
                // Worded inside "not valid MCP (…)." by the error, so without its own period.
                let error = McpError::Protocol(why.trim_end_matches('.').to_string());
                self.emit(SessionEvent::Response {
                    id: id.clone(),
                    method: "tools/call".into(),
                    result: Err(error),
                });
                return id;
            }
        }
        let mut params = json!({ "name": name, "arguments": arguments.unwrap_or_default() });
        if progress {
            // The id doubles as the progress token: unique for this session's lifetime.
            params["_meta"] = json!({ "progressToken": messages::id_to_value(&id) });
        }
        if mode == CallMode::Task {
            task::augment(&mut params);
        }
        self.user_request(id.clone(), "tools/call", Some(params), true, now_ms);
        id
    }

    pub fn read_resource(&mut self, uri: &str, now_ms: f64) -> RequestId {
        self.request("resources/read", Some(json!({ "uri": uri })), now_ms)
    }

    /// Any other request a caller makes (`resources/read`, `resources/subscribe`,
    /// `completion/complete`, `prompts/get`, ...): the MCP module builds the params; the
    /// session adds the era's decorations and never re-sends it after a connection loss.
    pub fn request(&mut self, method: &str, params: Option<Value>, now_ms: f64) -> RequestId {
        let id = self.alloc_id();
        self.user_request(id.clone(), method, params, false, now_ms);
        id
    }

    /// Tell the server something (`notifications/roots/list_changed`); dropped while no
    /// session is ready, since a new session asks afresh.
    pub fn notify(&mut self, method: &str) {
        if matches!(self.phase, Phase::Ready { .. }) {
            self.send_notification(method, None);
        }
    }

    /// An explicit ping (the "test" button). The modern era removed `ping`; `server/discover`
    /// is the cheapest request every modern server must answer, so it stands in.
    pub fn ping(&mut self, now_ms: f64) -> RequestId {
        let id = self.alloc_id();
        let method = self.ping_method();
        self.user_request(id.clone(), method, None, false, now_ms);
        id
    }

    fn ping_method(&self) -> &'static str {
        match self.era {
            Some(Era::Modern) => types_2026::DISCOVER_METHOD,
            _ => "ping",
        }
    }

    pub(super) fn user_request(
        &mut self,
        id: RequestId,
        method: &str,
        params: Option<Value>,
        tool: bool,
        now_ms: f64,
    ) {
        match &self.phase {
            Phase::Ready { .. } if self.is_filter_change(method) => {
                self.change_subscription(id, method, params, now_ms)
            }
            Phase::Ready { .. } => {
                self.send_request(&id, method, params.clone());
                self.track(id, method, params, PendingKind::User { tool }, now_ms);
            }
            Phase::Discovering | Phase::Initializing => self.queued.push(Queued {
                id,
                method: method.to_string(),
                params,
                tool,
                deadline: now_ms + self.config.request_timeout_ms,
                resent: false,
            }),
            Phase::Idle | Phase::Failed(_) => self.emit(SessionEvent::Response {
                id,
                method: method.to_string(),
                result: Err(McpError::NotConnected),
            }),
        }
    }

    /// Send the requests that waited for the session (never sent before, so this is their
    /// first and only sending).
    pub(super) fn flush_queue(&mut self, now_ms: f64) {
        for q in std::mem::take(&mut self.queued) {
            if self.is_filter_change(&q.method) {
                self.change_subscription(q.id, &q.method, q.params, now_ms);
                continue;
            }
            self.send_request(&q.id, &q.method, q.params.clone());
            self.track(
                q.id.clone(),
                &q.method,
                q.params,
                PendingKind::User { tool: q.tool },
                now_ms,
            );
            if let Some(p) = self.pending.get_mut(&q.id) {
                p.deadline = Some(q.deadline.max(now_ms));
                p.resent = q.resent;
            }
        }
    }

    pub(super) fn after_ready(&mut self, caps: &ServerCapabilities, now_ms: f64) {
        if self.config.auto_list {
            if caps.tools.is_some() {
                self.list(ListKind::Tools, now_ms);
            }
            if caps.resources.is_some() {
                self.list(ListKind::Resources, now_ms);
                self.list(ListKind::ResourceTemplates, now_ms);
            }
            if caps.prompts.is_some() {
                self.list(ListKind::Prompts, now_ms);
            }
        }
        self.start_waiting_lists(now_ms);
        // Resource subscriptions are the user's own, so they are listened for even when
        // lists are not kept.
        if self.era == Some(Era::Modern)
            && (self.config.auto_list || !self.resource_subs.is_empty())
        {
            self.open_listen(caps, now_ms);
        }
    }

    /// Cancel a caller's request: it fails locally as cancelled at once, and the server is told
    /// (`notifications/cancelled` in the legacy era; in the modern era closing the response
    /// stream is the cancellation, hence `Output::Abort`). Returns false for unknown ids.
    pub fn cancel(&mut self, id: &RequestId, reason: Option<&str>, _now_ms: f64) -> bool {
        let reason = reason.map(str::to_string);
        if let Some(pos) = self.queued.iter().position(|q| &q.id == id) {
            let q = self.queued.remove(pos);
            self.emit(SessionEvent::Response {
                id: q.id,
                method: q.method,
                result: Err(McpError::Cancelled { reason }),
            });
            return true;
        }
        let is_user = matches!(
            self.pending.get(id).map(|p| &p.kind),
            Some(PendingKind::User { .. })
        );
        if !is_user {
            return false;
        }
        let Some(p) = self.pending.remove(id) else {
            return false;
        };
        self.tell_server_cancelled(id, reason.as_deref());
        self.emit(SessionEvent::Response {
            id: id.clone(),
            method: p.method,
            result: Err(McpError::Cancelled { reason }),
        });
        true
    }

    fn tell_server_cancelled(&mut self, id: &RequestId, reason: Option<&str>) {
        if self.era == Some(Era::Legacy) {
            let mut params = json!({ "requestId": messages::id_to_value(id) });
            if let Some(r) = reason {
                params["reason"] = json!(r);
            }
            self.send_notification("notifications/cancelled", Some(params));
        }
        self.outputs.push_back(Output::Abort(id.clone()));
    }

    pub(super) fn on_progress(&mut self, params: &Value, now_ms: f64) {
        let Some(p) = messages::parse_progress(params) else {
            return;
        };
        let timeout = self.config.request_timeout_ms;
        let Some(pending) = self.pending.get_mut(&p.token) else {
            return;
        };
        if let (Some(_), Some(hard)) = (pending.deadline, pending.hard_deadline) {
            pending.deadline = Some((now_ms + timeout).min(hard));
        }
        self.emit(SessionEvent::Progress {
            id: p.token,
            progress: p.progress,
            total: p.total,
            message: p.message,
        });
    }

    /// When `handle_timeout` must next be called.
    pub fn next_deadline(&self) -> Option<f64> {
        let pending = self
            .pending
            .values()
            .filter(|p| !self.paused_for_user(p))
            .filter_map(|p| p.deadline);
        let queued = self.queued.iter().map(|q| q.deadline);
        let health = self.next_health_ms.filter(|_| self.phase.is_ready());
        pending
            .chain(queued)
            .chain(health)
            .chain(self.next_relist())
            .reduce(f64::min)
    }

    /// Fail what is due at `now_ms` (a deadline equal to `now_ms` is due) and run the health
    /// check when its period has passed.
    pub fn handle_timeout(&mut self, now_ms: f64) {
        let mut due: Vec<RequestId> = self
            .pending
            .iter()
            .filter(|(_, p)| p.deadline.is_some_and(|d| d <= now_ms) && !self.paused_for_user(p))
            .map(|(id, _)| id.clone())
            .collect();
        crate::order::sort_by_key(&mut due, |id| format!("{id:?}"));
        for id in due {
            self.request_timed_out(&id, now_ms);
        }
        let (late, keep): (Vec<Queued>, Vec<Queued>) = std::mem::take(&mut self.queued)
            .into_iter()
            .partition(|q| q.deadline <= now_ms);
        self.queued = keep;
        let waited = self.config.request_timeout_ms as u64;
        for q in late {
            self.emit(SessionEvent::Response {
                id: q.id,
                method: q.method.clone(),
                result: Err(McpError::Timeout {
                    method: q.method,
                    after_ms: waited,
                }),
            });
        }
        if self.phase.is_ready() && self.next_health_ms.is_some_and(|t| t <= now_ms) {
            self.start_health_check(now_ms);
        }
        self.start_due_relists(now_ms);
    }

    fn request_timed_out(&mut self, id: &RequestId, now_ms: f64) {
        let Some(p) = self.pending.get(id) else {
            return;
        };
        let error = McpError::Timeout {
            method: p.method.clone(),
            after_ms: (now_ms - p.sent_ms).max(0.0) as u64,
        };
        match p.kind {
            // The stdio guidance counts a probe that times out as a legacy answer.
            PendingKind::Probe
            | PendingKind::Initialize
            | PendingKind::Resume
            | PendingKind::Health => {
                self.outputs.push_back(Output::Abort(id.clone()));
                self.request_failed(id, error, now_ms);
            }
            PendingKind::ListPage(_) | PendingKind::User { .. } => {
                self.tell_server_cancelled(id, Some("timed out"));
                self.request_failed(id, error, now_ms);
            }
            // Never sent itself: only the acknowledgement it waits for is late.
            PendingKind::Filter { .. } => self.request_failed(id, error, now_ms),
            PendingKind::Listen => {}
        }
    }

    fn start_health_check(&mut self, now_ms: f64) {
        self.next_health_ms = None;
        if self.pending.values().any(|p| p.kind == PendingKind::Health) {
            return;
        }
        let id = self.alloc_id();
        let method = self.ping_method();
        self.send_request(&id, method, None);
        self.track(id.clone(), method, None, PendingKind::Health, now_ms);
        let waits = PING_TIMEOUT_MS.min(self.config.request_timeout_ms);
        if let Some(p) = self.pending.get_mut(&id) {
            p.deadline = Some(now_ms + waits);
        }
    }

    pub(super) fn health_ok(&mut self, sent_ms: f64, now_ms: f64) {
        self.emit(SessionEvent::HealthOk {
            rtt_ms: now_ms - sent_ms,
            at_ms: now_ms,
        });
        self.next_health_ms = self.config.ping_interval_ms.map(|p| now_ms + p);
    }

    pub(super) fn health_failed(&mut self, error: McpError, now_ms: f64) {
        self.emit(SessionEvent::HealthFailed {
            error,
            at_ms: now_ms,
        });
        self.next_health_ms = self.config.ping_interval_ms.map(|p| now_ms + p);
    }

    /// The transport is gone (WebSocket closed, SSE stream ended, network error). Everything
    /// in flight fails with a sentence saying so; tool calls say they may have run and are not
    /// re-sent. Reconnecting is the caller's decision (`connect` again).
    pub fn transport_lost(&mut self, reason: &str, _now_ms: f64) {
        let lost = |tool| McpError::ConnectionLost {
            reason: reason.to_string(),
            in_flight_tool: tool,
        };
        self.lose(lost);
    }

    /// The transport refused to go on (it would have sent credentials to another origin):
    /// like `transport_lost`, but everything fails with that very error, so its sentence
    /// reaches the user unchanged and the supervisor can tell that retrying cannot help.
    pub fn transport_refused(&mut self, error: McpError, _now_ms: f64) {
        self.lose(move |_| error.clone());
    }

    fn lose(&mut self, lost: impl Fn(bool) -> McpError) {
        let mut pending: Vec<_> = self.pending.drain().collect();
        crate::order::sort_by_key(&mut pending, |(id, _)| format!("{id:?}"));
        for (id, p) in pending {
            match p.kind {
                PendingKind::User { tool } => self.emit(SessionEvent::Response {
                    id,
                    method: p.method,
                    result: Err(lost(tool)),
                }),
                PendingKind::Filter { .. } => self.emit(SessionEvent::Response {
                    id,
                    method: p.method,
                    result: Err(lost(false)),
                }),
                PendingKind::ListPage(kind) => {
                    self.lists.remove(&kind);
                    self.emit(SessionEvent::ListFailed {
                        kind,
                        error: lost(false),
                    });
                }
                _ => {}
            }
        }
        self.lists.clear();
        self.fail(lost(false));
    }

    /// The server no longer knows our session (HTTP 404 on a request carrying the session id,
    /// or the equivalent 400 some servers send after a restart). A new session is set up at
    /// once; requests made meanwhile wait for it. Caller requests in flight fail (a tool call
    /// is never re-sent); list pages, which are safe to repeat, start over on the new session.
    pub fn session_expired(&mut self, now_ms: f64) {
        self.session_expired_refusing(None, now_ms);
    }

    /// `session_expired`, where the server refused request `refused` for the session it
    /// forgot. That request never ran, so it is sent once more on the new session (the spec
    /// allows exactly this); if the new session refuses it too, it fails.
    pub fn session_expired_refusing(&mut self, refused: Option<&RequestId>, now_ms: f64) {
        if self.era != Some(Era::Legacy) {
            return;
        }
        if matches!(self.phase, Phase::Initializing) {
            self.expiries_in_handshake += 1;
            if self.expiries_in_handshake >= MAX_EXPIRIES_IN_HANDSHAKE {
                self.fail(McpError::SessionExpired {
                    in_flight_tool: false,
                });
                return;
            }
        }
        let mut pending: Vec<_> = self.pending.drain().collect();
        crate::order::sort_by_key(&mut pending, |(id, _)| format!("{id:?}"));
        for (id, p) in pending {
            let PendingKind::User { tool } = p.kind else {
                continue;
            };
            if refused == Some(&id) && !p.resent {
                self.queued.push(Queued {
                    id,
                    method: p.method,
                    params: p.params,
                    tool,
                    deadline: now_ms + self.config.request_timeout_ms,
                    resent: true,
                });
                continue;
            }
            let in_flight_tool = tool && refused != Some(&id);
            self.emit(SessionEvent::Response {
                id,
                method: p.method,
                result: Err(McpError::SessionExpired { in_flight_tool }),
            });
        }
        self.reset_lists_for_new_session();
        self.next_health_ms = None;
        self.start_initialize(now_ms);
    }

    /// Leave: pending requests fail as cancelled and the phase returns to idle. The caller
    /// closes the transport (Streamable HTTP sends DELETE for the session).
    pub fn close(&mut self, _now_ms: f64) {
        let reason = Some("disconnected".to_string());
        let mut pending: Vec<_> = self.pending.drain().collect();
        crate::order::sort_by_key(&mut pending, |(id, _)| format!("{id:?}"));
        for (id, p) in pending {
            if let PendingKind::User { .. } | PendingKind::Filter { .. } = p.kind {
                self.emit(SessionEvent::Response {
                    id,
                    method: p.method,
                    result: Err(McpError::Cancelled {
                        reason: reason.clone(),
                    }),
                });
            }
        }
        for q in std::mem::take(&mut self.queued) {
            self.emit(SessionEvent::Response {
                id: q.id,
                method: q.method,
                result: Err(McpError::Cancelled {
                    reason: reason.clone(),
                }),
            });
        }
        self.lists.clear();
        self.next_health_ms = None;
        self.set_phase(Phase::Idle);
    }
}
