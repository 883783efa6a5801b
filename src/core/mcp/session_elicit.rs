//! The session's side of elicitation: an `elicitation/create` request stays open until the
//! user answers (`answer_elicitation`) or the session ends, while everything else keeps
//! flowing. Requests of ours in flight meanwhile do not time out: the server is waiting for
//! the user as much as we are, and their timers start again when the user has answered.
//!
//! It never decides what the user answers; a request it cannot show (a schema outside the
//! spec's subset, a URL a page must not open) is refused with "invalid params" at once.

use serde_json::Value;

use super::elicit::{self, ElicitAnswer, ElicitKind};
use super::messages::{self, RequestId};
use super::session::{McpSession, Pending, PendingKind};
use super::session_types::SessionEvent;

/// JSON-RPC "invalid params".
const INVALID_PARAMS: i64 = -32602;

impl McpSession {
    /// `raw`: the message's text, for the order of the form's fields.
    pub(super) fn on_elicit_create(&mut self, id: RequestId, params: Value, raw: &str) {
        match elicit::parse_create(&params) {
            Ok(mut request) => {
                if let (ElicitKind::Form(form), Some(order)) =
                    (&mut request.kind, elicit::property_order(raw))
                {
                    *form = std::mem::take(form).ordered(&order);
                }
                if !self.elicits.contains(&id) {
                    self.elicits.push(id.clone());
                }
                self.emit(SessionEvent::Elicit { id, request });
            }
            Err(why) => {
                self.emit(SessionEvent::Notice(format!(
                    "Refused the server's request for input: {why}."
                )));
                let body = messages::error_response(&id, INVALID_PARAMS, &why);
                self.send_response(body);
            }
        }
    }

    /// The user answered the question `id`. Returns false when it is no longer open (the
    /// session ended, or it was answered already): nothing is sent then.
    pub fn answer_elicitation(
        &mut self,
        id: &RequestId,
        answer: &ElicitAnswer,
        now_ms: f64,
    ) -> bool {
        let Some(at) = self.elicits.iter().position(|e| e == id) else {
            return false;
        };
        self.elicits.remove(at);
        self.send_response(messages::response(id, answer.to_result()));
        if self.elicits.is_empty() {
            // The wait for the user does not count against the requests' timeouts.
            let timeout = self.config.request_timeout_ms;
            for p in self.pending.values_mut() {
                if let (PendingKind::User { .. }, Some(d)) = (&p.kind, p.deadline) {
                    p.deadline = Some(d.max(now_ms + timeout));
                }
            }
        }
        true
    }

    /// Questions waiting for the user.
    pub fn open_elicitations(&self) -> &[RequestId] {
        &self.elicits
    }

    pub(super) fn paused_for_user(&self, p: &Pending) -> bool {
        !self.elicits.is_empty() && matches!(p.kind, PendingKind::User { .. })
    }

    pub(super) fn drop_elicitations(&mut self) {
        for id in std::mem::take(&mut self.elicits) {
            self.emit(SessionEvent::ElicitGone { id });
        }
    }

    pub(super) fn on_elicit_complete(&mut self, params: &Value) {
        if let Some(eid) = params.get("elicitationId").and_then(Value::as_str) {
            self.emit(SessionEvent::ElicitComplete {
                elicitation_id: eid.to_string(),
            });
        }
    }
}
