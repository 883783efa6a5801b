//! Multi round-trip requests (MCP 2026-07-28, "MRTR"): a modern server does not send
//! `elicitation/create`, `sampling/createMessage` or `roots/list` of its own; it answers a
//! `tools/call`, `prompts/get` or `resources/read` with `resultType: "input_required"`, its
//! questions under `inputRequests` (by key) and an opaque `requestState`. The client answers
//! each question and sends the original request again, as a new request, with the answers
//! under `inputResponses` and the state echoed.
//!
//! Each question goes out as the same `SessionEvent::Ask` a legacy server's request does, so
//! the user sees the same elicitation and sampling cards and the page answers roots the same
//! way; only what happens to the answer differs. The caller keeps waiting on its first id:
//! every answer to a retry is reported under it. The number of rounds is capped, so a server
//! that asks forever ends the call with a sentence instead of looping.

use serde_json::{Map, Value};

use super::error::McpError;
use super::messages::RequestId;
use super::session::McpSession;
use super::session_types::SessionEvent;

/// Rounds one request may take before it fails: a server asking again after every answer.
pub const MAX_ROUNDS: u32 = 8;

/// One request waiting for the answers to its questions.
#[derive(Debug, Clone)]
pub(super) struct Round {
    /// The caller's id: every answer is reported under it.
    pub origin: RequestId,
    pub method: String,
    /// The request's params as the caller sent them (no answers of an earlier round).
    pub params: Option<Value>,
    pub tool: bool,
    pub state: Option<Value>,
    /// Each question's key and the id its `Ask` carries.
    pub waiting: Vec<(String, RequestId)>,
    pub answers: Map<String, Value>,
    pub round: u32,
}

impl McpSession {
    /// `result` (of the request `id`, sent as `method` with `params`) is `input_required`.
    pub(super) fn on_input_required(
        &mut self,
        id: RequestId,
        method: String,
        params: Option<Value>,
        tool: bool,
        result: &Value,
        now_ms: f64,
    ) {
        let origin = self.origin_of(&id);
        let round = self
            .retries
            .iter()
            .find(|(_, o, _)| *o == origin)
            .map_or(0, |r| r.2);
        self.retries.retain(|(_, o, _)| *o != origin);
        let requests = result.get("inputRequests").and_then(Value::as_object);
        let state = result.get("requestState").filter(|s| !s.is_null()).cloned();
        let fail = |s: &mut McpSession, why: String| {
            s.emit(SessionEvent::Response {
                id: origin.clone(),
                method: method.clone(),
                result: Err(McpError::Protocol(why)),
            })
        };
        if round + 1 >= MAX_ROUNDS {
            return fail(
                self,
                format!(
                    "the server kept asking for more input during `{method}` ({MAX_ROUNDS} rounds)"
                ),
            );
        }
        if requests.is_none_or(Map::is_empty) && state.is_none() {
            return fail(
                self,
                format!("the server asked for input during `{method}` without saying what"),
            );
        }
        // The params of the request as the caller made it: answers are per round.
        let mut params = params;
        if let Some(Value::Object(p)) = &mut params {
            p.remove("inputResponses");
            p.remove("requestState");
        }
        let mut r = Round {
            origin,
            method,
            params,
            tool,
            state,
            waiting: Vec::new(),
            answers: Map::new(),
            round: round + 1,
        };
        for (key, ask) in requests.into_iter().flatten() {
            let ask_id = RequestId::String(format!("input:{}:{key}", self.next_id).into());
            self.next_id += 1;
            r.waiting.push((key.clone(), ask_id.clone()));
            let asked = ask
                .get("method")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let params = ask.get("params").cloned().unwrap_or(Value::Null);
            self.on_ask(ask_id, asked, params, None);
        }
        if r.waiting.is_empty() {
            // Only state to hand back (a step that finished elsewhere): retry at once.
            return self.retry_round(r, now_ms);
        }
        self.rounds.push(r);
    }

    /// `answer_ask` for a question of a round: true when `id` was one.
    pub(super) fn answer_round(
        &mut self,
        id: &RequestId,
        answer: Result<Value, (i64, String)>,
        now_ms: f64,
    ) -> bool {
        let Some(at) = self
            .rounds
            .iter()
            .position(|r| r.waiting.iter().any(|(_, i)| i == id))
        else {
            return false;
        };
        let r = &mut self.rounds[at];
        let Some(w) = r.waiting.iter().position(|(_, i)| i == id) else {
            return false;
        };
        let (key, _) = r.waiting.remove(w);
        match answer {
            Ok(v) => {
                r.answers.insert(key, v);
            }
            Err((_, message)) => {
                // A refused question ends the request: there is no answer to send back.
                let r = self.rounds.remove(at);
                self.withdraw(&r);
                self.emit(SessionEvent::Response {
                    id: r.origin,
                    method: r.method,
                    result: Err(McpError::Cancelled {
                        reason: Some(format!(
                            "the input the server asked for was not given ({message})"
                        )),
                    }),
                });
                return true;
            }
        }
        if self.rounds[at].waiting.is_empty() {
            let r = self.rounds.remove(at);
            self.retry_round(r, now_ms);
        }
        true
    }

    fn retry_round(&mut self, r: Round, now_ms: f64) {
        let mut params = match r.params {
            Some(Value::Object(p)) => p,
            _ => Map::new(),
        };
        if !r.answers.is_empty() {
            params.insert("inputResponses".into(), Value::Object(r.answers));
        }
        if let Some(s) = r.state {
            params.insert("requestState".into(), s);
        }
        let id = self.alloc_id();
        self.retries.push((id.clone(), r.origin, r.round));
        self.user_request(id, &r.method, Some(Value::Object(params)), r.tool, now_ms);
    }

    /// Questions of a round that can no longer be answered leave the page.
    fn withdraw(&mut self, r: &Round) {
        for (_, id) in &r.waiting {
            self.elicits.retain(|e| e != id);
            self.emit(SessionEvent::ElicitGone { id: id.clone() });
        }
    }

    /// The caller's id for `id` (itself unless `id` is a retry).
    pub(super) fn origin_of(&self, id: &RequestId) -> RequestId {
        self.retries
            .iter()
            .find(|(r, _, _)| r == id)
            .map_or_else(|| id.clone(), |(_, o, _)| o.clone())
    }

    /// The session ended: requests waiting for answers fail like those in flight.
    pub(super) fn drop_rounds(&mut self) {
        for r in std::mem::take(&mut self.rounds) {
            self.emit(SessionEvent::Response {
                id: r.origin,
                method: r.method,
                result: Err(McpError::ConnectionLost {
                    reason: "the connection ended while the server waited for input".into(),
                    in_flight_tool: r.tool,
                }),
            });
        }
    }
}
