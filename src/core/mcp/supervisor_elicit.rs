//! The supervisor's side of elicitation: each question a session opens gets a key that
//! outlives JSON-RPC ids (a reconnect reuses them), the UI answers by that key, and every
//! question of a link that goes away is withdrawn (`ElicitGone`) so no card waits forever
//! for a session that cannot hear the answer.

use super::elicit::{ElicitAnswer, ElicitRequest};
use super::messages::RequestId;
use super::supervisor::Supervisor;
use super::supervisor_types::{Action, ElicitKey};

impl Supervisor {
    pub(super) fn elicit_opened(&mut self, id: RequestId, request: ElicitRequest) {
        let key = self.next_elicit;
        self.next_elicit += 1;
        self.elicits.push((key, self.link_id, id));
        self.log("The server asks for input; the question is shown in the chat.");
        self.emit(Action::Elicit { key, request });
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

    /// Withdraw every open question (the link is gone).
    pub(super) fn drop_elicits(&mut self) {
        for (key, _, _) in std::mem::take(&mut self.elicits) {
            self.push(Action::ElicitGone { key });
        }
    }

    /// The user answered question `key`. An answer to a question that was withdrawn meanwhile
    /// is dropped (its card is already gone or going).
    pub fn handle_elicit_answer(&mut self, key: ElicitKey, answer: ElicitAnswer, now: f64) {
        let Some(at) = self.elicits.iter().position(|(k, _, _)| *k == key) else {
            return;
        };
        let (_, link, id) = self.elicits.remove(at);
        if link != self.link_id {
            return;
        }
        if let Some(l) = self.link.as_mut() {
            let verb = answer.action.as_str();
            l.session_mut().answer_elicitation(&id, &answer, now);
            self.log(format!("Answered the server's question: {verb}."));
            self.finish(now);
        }
    }
}
