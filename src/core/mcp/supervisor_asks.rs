//! The supervisor's side of requests a server waits on (elicitation, sampling, roots): each
//! one a session opens gets a key that outlives JSON-RPC ids (a reconnect reuses them), the
//! page answers by that key, and every request of a link that goes away is withdrawn
//! (`ElicitGone`) so no card waits forever for a session that cannot hear the answer.

use serde_json::Value;

use super::messages::RequestId;
use super::supervisor::Supervisor;
use super::supervisor_types::{Action, CallKey, ElicitKey};

impl Supervisor {
    pub(super) fn ask_opened(
        &mut self,
        id: RequestId,
        method: String,
        params: Value,
        raw: Option<String>,
    ) {
        let key = self.next_elicit;
        self.next_elicit += 1;
        self.elicits.push((key, self.link_id, id));
        let during = self.running_tool_calls();
        if !during.is_empty() {
            self.asked_during.push((key, during));
        }
        self.emit(Action::Ask {
            key,
            method,
            params,
            raw,
        });
    }

    pub(super) fn elicit_gone(&mut self, id: &RequestId) {
        let link = self.link_id;
        if let Some(at) = self
            .elicits
            .iter()
            .position(|(_, l, i)| *l == link && i == id)
        {
            let (key, _, _) = self.elicits.remove(at);
            self.emit(Action::ElicitGone { key });
        }
    }

    /// The caller's request `call` was answered: a question asked while it ran, whose calls
    /// are now all answered, is settled. The server went on, so a URL step's card that waits
    /// for the server's word (which it need not send) has had it.
    pub(super) fn settle_asks(&mut self, call: CallKey) {
        let mut settled = Vec::new();
        self.asked_during.retain_mut(|(key, calls)| {
            calls.retain(|c| *c != call);
            if calls.is_empty() {
                settled.push(*key);
            }
            !calls.is_empty()
        });
        for key in settled {
            self.emit(Action::AskSettled { key });
        }
    }

    /// Withdraw every open request (the link is gone).
    pub(super) fn drop_elicits(&mut self) {
        self.asked_during.clear();
        for (key, _, _) in std::mem::take(&mut self.elicits) {
            self.push(Action::ElicitGone { key });
        }
    }

    /// The page answered the held request `key` (see [`Action::Ask`]). An answer to a
    /// request withdrawn meanwhile is dropped (its card is already gone or going).
    pub fn handle_ask_answer(
        &mut self,
        key: ElicitKey,
        answer: Result<Value, (i64, String)>,
        now: f64,
    ) {
        let Some(at) = self.elicits.iter().position(|(k, _, _)| *k == key) else {
            return;
        };
        let (_, link, id) = self.elicits.remove(at);
        if link != self.link_id {
            return;
        }
        if let Some(l) = self.link.as_mut() {
            l.session_mut().answer_ask(&id, answer, now);
            self.finish(now);
        }
    }

    /// Send the server a notification of ours (`notifications/roots/list_changed`).
    pub fn handle_notify(&mut self, method: &str, now: f64) {
        if let Some(l) = self.link.as_mut() {
            l.session_mut().notify(method);
            self.finish(now);
        }
    }
}
