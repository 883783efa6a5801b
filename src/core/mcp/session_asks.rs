//! The session's side of requests a server makes of us and waits on (elicitation, sampling,
//! roots): each stays open until answered (`answer_ask`) or the session ends, while
//! everything else keeps flowing. Requests of ours in flight meanwhile do not time out: the
//! server is waiting for the user as much as we are, and their timers start again when the
//! user has answered.
//!
//! It never decides what the answer is: the MCP surfaces (`mcp::ask_ui`, `ui::mcp`) check the request,
//! asks the user and answers; the page answers roots from what the user stored.

use serde_json::Value;

use super::messages::{self, RequestId};
use super::session::{McpSession, Pending, PendingKind};
use super::session_types::SessionEvent;

impl McpSession {
    pub(super) fn on_ask(&mut self, id: RequestId, method: &str, params: Value, raw: Option<&str>) {
        if !self.elicits.contains(&id) {
            self.elicits.push(id.clone());
        }
        self.emit(SessionEvent::Ask {
            id,
            method: method.to_string(),
            params,
            raw: raw.map(str::to_string),
        });
    }

    /// The held request `id` was answered: `Err((code, message))` is sent as a JSON-RPC
    /// error. Returns false when it is no longer open (the session ended, or it was answered
    /// already): nothing is sent then.
    pub fn answer_ask(
        &mut self,
        id: &RequestId,
        answer: Result<Value, (i64, String)>,
        now_ms: f64,
    ) -> bool {
        if self.elicits.contains(id)
            && self
                .rounds
                .iter()
                .any(|r| r.waiting.iter().any(|(_, i)| i == id))
        {
            self.elicits.retain(|e| e != id);
            self.answer_round(id, answer, now_ms);
            self.resume_timers(now_ms);
            return true;
        }
        let Some(at) = self.elicits.iter().position(|e| e == id) else {
            return false;
        };
        self.elicits.remove(at);
        self.send_response(match answer {
            Ok(result) => messages::response(id, result),
            Err((code, message)) => messages::error_response(id, code, &message),
        });
        self.resume_timers(now_ms);
        true
    }

    /// The wait for the user does not count against the requests' timeouts.
    fn resume_timers(&mut self, now_ms: f64) {
        if self.elicits.is_empty() {
            let timeout = self.config.request_timeout_ms;
            for p in self.pending.values_mut() {
                if let (PendingKind::User { .. }, Some(d)) = (&p.kind, p.deadline) {
                    p.deadline = Some(d.max(now_ms + timeout));
                }
            }
        }
    }

    /// Requests waiting for an answer.
    pub fn open_asks(&self) -> &[RequestId] {
        &self.elicits
    }

    pub(super) fn paused_for_user(&self, p: &Pending) -> bool {
        !self.elicits.is_empty() && matches!(p.kind, PendingKind::User { .. })
    }

    pub(super) fn drop_asks(&mut self) {
        for id in std::mem::take(&mut self.elicits) {
            self.emit(SessionEvent::ElicitGone { id });
        }
    }
}

#[cfg(test)]
#[path = "session_asks_tests.rs"]
mod tests;
