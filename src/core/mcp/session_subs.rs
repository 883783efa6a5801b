//! Resource subscriptions in the modern era (2026-07-28), where `resources/subscribe` is gone:
//! the client asks for `notifications/resources/updated` by listing the URIs in the
//! `resourceSubscriptions` of its `subscriptions/listen` filter.
//!
//! A listen stream's filter cannot be changed, so a (un)subscribe opens a new stream with the
//! new set and closes the old one (closing a modern response stream is its cancellation). The
//! caller's `resources/subscribe` / `resources/unsubscribe` keeps its legacy shape: the MCP
//! module sends the same request in both eras, and the session answers `{}` once the server
//! acknowledges the new stream (`notifications/subscriptions/acknowledged`, its first frame),
//! or an error naming the URI when the acknowledgement leaves it out. The set outlives the
//! session (the supervisor seeds the next one through `SessionConfig`), so a reconnect's
//! first listen stream already carries it.

use serde_json::{json, Value};

use super::era::Era;
use super::error::{McpError, SubscriptionRefusal};
use super::messages::{self, RequestId};
use super::session::{McpSession, PendingKind};
use super::session_types::{Output, Phase, SessionEvent};
use super::types_2026;
use crate::mcp::model::ServerCapabilities;

const SUBSCRIBE_METHOD: &str = "resources/subscribe";
const UNSUBSCRIBE_METHOD: &str = "resources/unsubscribe";

impl McpSession {
    /// The resource URIs this session asks a modern server to report updates for.
    pub fn resource_subscriptions(&self) -> &[String] {
        &self.resource_subs
    }

    /// Whether a caller's request is a (un)subscription this session turns into a filter
    /// change: only on a ready modern session (the legacy era sends it as it is).
    pub(super) fn is_filter_change(&self, method: &str) -> bool {
        self.era == Some(Era::Modern)
            && self.phase.is_ready()
            && matches!(method, SUBSCRIBE_METHOD | UNSUBSCRIBE_METHOD)
    }

    fn ready_caps(&self) -> ServerCapabilities {
        match &self.phase {
            Phase::Ready { capabilities, .. } => capabilities.clone(),
            _ => ServerCapabilities::default(),
        }
    }

    /// The open listen stream's request id (there is at most one).
    fn current_listen(&self) -> Option<RequestId> {
        self.pending
            .iter()
            .find(|(_, p)| p.kind == PendingKind::Listen)
            .map(|(id, _)| id.clone())
    }

    /// A caller's `resources/subscribe` or `resources/unsubscribe` on a modern server.
    pub(super) fn change_subscription(
        &mut self,
        id: RequestId,
        method: &str,
        params: Option<Value>,
        now_ms: f64,
    ) {
        let subscribe = method == SUBSCRIBE_METHOD;
        let uri = params
            .as_ref()
            .and_then(|p| p.get("uri"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let refuse = |uri: &str, why| McpError::Subscription {
            uri: uri.to_string(),
            why,
        };
        let Some(uri) = uri else {
            return self.answer(id, method, Err(refuse("", SubscriptionRefusal::NoUri)));
        };
        if subscribe && !types_2026::offers_subscribe(&self.ready_caps()) {
            let error = refuse(&uri, SubscriptionRefusal::NotOffered);
            return self.answer(id, method, Err(error));
        }
        let known = self.resource_subs.contains(&uri);
        if subscribe != known {
            if subscribe {
                self.resource_subs.push(uri.clone());
            } else {
                self.resource_subs.retain(|u| u != &uri);
            }
            self.reopen_listen(now_ms);
        } else if !subscribe || (self.listen_acked && self.current_listen().is_some()) {
            // Nothing changes on the server's side: the stream it acknowledged already says so.
            return self.answer(id, method, Ok(json!({})));
        } else if self.current_listen().is_none() {
            // The stream that asked for it ended (the server closed it): ask again.
            self.reopen_listen(now_ms);
        }
        if self.current_listen().is_none() {
            // No stream left to ask for anything (the last URI went and the server announces
            // no list changes): nothing will be delivered, which is what unsubscribing asks.
            return self.answer(id, method, Ok(json!({})));
        }
        let kind = PendingKind::Filter { subscribe };
        self.track(id, method, params, kind, now_ms);
    }

    fn answer(&mut self, id: RequestId, method: &str, result: Result<Value, McpError>) {
        self.emit(SessionEvent::Response {
            id,
            method: method.to_string(),
            result,
        });
    }

    /// Open the listen stream for the current filter, if there is anything to listen for and
    /// none is open. Modern servers deliver list changes and resource updates only there.
    pub(super) fn open_listen(&mut self, caps: &ServerCapabilities, now_ms: f64) {
        if self.current_listen().is_some() {
            return;
        }
        self.listen_acked = false;
        if let Some(filter) = types_2026::listen_filter(caps, &self.resource_subs) {
            let id = self.alloc_id();
            let method = types_2026::LISTEN_METHOD;
            self.send_request(&id, method, Some(filter.clone()));
            self.track(id, method, Some(filter), PendingKind::Listen, now_ms);
        }
    }

    /// Replace the listen stream with one for the current filter: the new one is asked for
    /// first, so no notification falls between the two; the old one is closed (its frames are
    /// no longer awaited, and a late acknowledgement from it is told apart by its id).
    fn reopen_listen(&mut self, now_ms: f64) {
        let old = self.current_listen();
        if let Some(id) = &old {
            self.pending.remove(id);
        }
        let caps = self.ready_caps();
        self.open_listen(&caps, now_ms);
        if let Some(id) = old {
            self.outputs.push_back(Output::Abort(id));
        }
    }

    /// `notifications/subscriptions/acknowledged`: the current stream is live with the filter
    /// it names; the (un)subscriptions waiting for it are answered.
    pub(super) fn on_listen_ack(&mut self, params: &Value) {
        let Some(current) = self.current_listen() else {
            return;
        };
        // A frame names its stream; one without a name is taken as the current stream's.
        if let Some(sid) = types_2026::subscription_id(params) {
            if sid != &messages::id_to_value(&current) {
                return;
            }
        }
        self.listen_acked = true;
        let honoured = types_2026::honoured_uris(params);
        // What the server left out is not delivered: keeping it would only ask again.
        self.resource_subs.retain(|u| honoured.contains(u));
        for (id, method, uri, subscribe) in self.take_filter_waiters() {
            let result = if subscribe && !honoured.contains(&uri) {
                Err(McpError::Subscription {
                    uri,
                    why: SubscriptionRefusal::NotHonoured,
                })
            } else {
                Ok(json!({}))
            };
            self.answer(id, &method, result);
        }
    }

    /// The current listen stream ended or failed before its acknowledgement: the
    /// (un)subscriptions waiting for it fail with `error` (with `None`, the stream ended
    /// without one), and a URI that never took is dropped from the set.
    pub(super) fn listen_ended(&mut self, error: Option<McpError>) {
        self.listen_acked = false;
        for (id, method, uri, subscribe) in self.take_filter_waiters() {
            if subscribe {
                self.resource_subs.retain(|u| u != &uri);
            }
            let e = error.clone().unwrap_or(McpError::Subscription {
                uri,
                why: SubscriptionRefusal::StreamEnded,
            });
            self.answer(id, &method, Err(e));
        }
    }

    /// The (un)subscriptions waiting for an acknowledgement, taken out. Their answers do not
    /// depend on each other, so the map's own order (deterministic: a `Vec`) is kept.
    fn take_filter_waiters(&mut self) -> Vec<(RequestId, String, String, bool)> {
        let ids: Vec<RequestId> = self
            .pending
            .iter()
            .filter(|(_, p)| matches!(p.kind, PendingKind::Filter { .. }))
            .map(|(id, _)| id.clone())
            .collect();
        ids.into_iter()
            .filter_map(|id| {
                let p = self.pending.remove(&id)?;
                let PendingKind::Filter { subscribe } = p.kind else {
                    return None;
                };
                let uri = p.params.as_ref()?.get("uri")?.as_str()?.to_string();
                Some((id, p.method, uri, subscribe))
            })
            .collect()
    }
}
