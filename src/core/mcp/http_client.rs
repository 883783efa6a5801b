//! One MCP server over HTTP: an `McpSession` wired to Streamable HTTP, with the spec's fallback
//! to the deprecated HTTP+SSE transport, still sans-IO.
//!
//! The platform adapter only performs `ClientAction::Fetch`es, reports each exchange's head,
//! body chunks, end or failure under its token, calls `handle_timeout` at `next_deadline`, and
//! shows the `Event`s. Every decision (era, fallback, session expiry, resumption) is made here
//! or below, where native tests reach it.

use std::collections::VecDeque;

use super::config::TransportChoice;
use super::era::Era;
use super::http_common::{HttpAction, HttpTarget, Token, TransportEvent};
use super::kept_session::{self, KeptSession};
use super::legacy_sse::LegacySse;
use super::session::McpSession;
use super::session_types::{Output, Phase, SessionConfig, SessionEvent};
use super::streamable_http::StreamableHttp;
use crate::http::HttpRequest;

#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum ClientAction {
    Fetch {
        token: Token,
        request: HttpRequest,
        streaming: bool,
    },
    Abort(Token),
    Event(SessionEvent),
}

#[derive(Debug)]
enum Transport {
    Streamable(StreamableHttp),
    Sse(LegacySse),
}

pub struct HttpClient {
    session: McpSession,
    target: HttpTarget,
    choice: TransportChoice,
    transport: Transport,
    actions: VecDeque<ClientAction>,
}

impl HttpClient {
    /// `choice` is `Auto`, `StreamableHttp` or `Sse` (WebSocket is not HTTP).
    pub fn new(target: HttpTarget, choice: TransportChoice, mut config: SessionConfig) -> Self {
        // HTTP+SSE predates the modern era: a probe there could only time out.
        config.legacy_only |= choice == TransportChoice::Sse;
        let transport = match choice {
            TransportChoice::Sse => Transport::Sse(LegacySse::new(target.clone())),
            _ => Transport::Streamable(StreamableHttp::new(target.clone())),
        };
        HttpClient {
            session: McpSession::new(config),
            target,
            choice,
            transport,
            actions: VecDeque::new(),
        }
    }

    pub fn session(&self) -> &McpSession {
        &self.session
    }

    /// For requests (`call_tool`, `list_tools`, `cancel`, ...); call `pump` afterwards.
    pub fn session_mut(&mut self) -> &mut McpSession {
        &mut self.session
    }

    /// Whether the deprecated HTTP+SSE transport is in use.
    pub fn uses_legacy_sse(&self) -> bool {
        matches!(self.transport, Transport::Sse(_))
    }

    pub fn poll_action(&mut self) -> Option<ClientAction> {
        self.actions.pop_front()
    }

    /// Connect, or reconnect after a failure.
    pub fn connect(&mut self, now_ms: f64) {
        if let Transport::Sse(sse) = &mut self.transport {
            sse.close();
            let mut fresh = LegacySse::new(self.target.clone());
            fresh.open();
            *sse = fresh;
        }
        self.session.connect(now_ms);
        self.pump(now_ms);
    }

    /// Connect by taking up a session kept across a reload (`kept_session::plan` said so):
    /// no handshake, one `ping` to confirm it, and a fresh `initialize` if the server no
    /// longer knows it. Only Streamable HTTP has a session to take up; over HTTP+SSE (its
    /// session dies with its GET stream) this is a plain `connect`.
    pub fn resume(&mut self, kept: &KeptSession, now_ms: f64) {
        let Transport::Streamable(t) = &mut self.transport else {
            return self.connect(now_ms);
        };
        t.resume(&kept.session_id, kept.protocol_version());
        let first = kept_session::first_id(kept, now_ms);
        self.session.resume(&kept.initialize, first, now_ms);
        self.pump(now_ms);
    }

    /// The record a reloaded page needs to take up this session (`kept_session`): only a
    /// ready legacy-era Streamable HTTP session with an `Mcp-Session-Id` has one.
    pub fn keepable(&self) -> Option<KeptSession> {
        let Transport::Streamable(t) = &self.transport else {
            return None;
        };
        let session_id = t.session_id()?.to_string();
        let (initialize, next_id) = self.session.keepable()?;
        Some(KeptSession {
            url: self.target.url.clone(),
            session_id,
            initialize,
            next_id,
        })
    }

    pub fn close(&mut self, now_ms: f64) {
        self.close_and(true, now_ms);
    }

    /// Leave without ending the session on the server (no DELETE): a reloaded page takes it
    /// up again. HTTP+SSE's session ends with its stream whatever is sent, so it just closes.
    pub fn close_keeping_session(&mut self, now_ms: f64) {
        self.close_and(false, now_ms);
    }

    fn close_and(&mut self, delete: bool, now_ms: f64) {
        self.session.close(now_ms);
        match &mut self.transport {
            Transport::Streamable(t) if delete => t.close(),
            Transport::Streamable(t) => t.close_keeping_session(),
            Transport::Sse(t) => t.close(),
        }
        self.pump(now_ms);
    }

    pub fn on_head(
        &mut self,
        token: Token,
        status: u16,
        headers: &[(String, String)],
        now_ms: f64,
    ) {
        match &mut self.transport {
            Transport::Streamable(t) => t.on_head(token, status, headers),
            Transport::Sse(t) => t.on_head(token, status, headers),
        }
        self.pump(now_ms);
    }

    pub fn on_chunk(&mut self, token: Token, bytes: &[u8], now_ms: f64) {
        match &mut self.transport {
            Transport::Streamable(t) => t.on_chunk(token, bytes),
            Transport::Sse(t) => t.on_chunk(token, bytes),
        }
        self.pump(now_ms);
    }

    pub fn on_end(&mut self, token: Token, now_ms: f64) {
        match &mut self.transport {
            Transport::Streamable(t) => t.on_end(token, now_ms),
            Transport::Sse(t) => t.on_end(token),
        }
        self.pump(now_ms);
    }

    pub fn on_fetch_error(&mut self, token: Token, message: &str, now_ms: f64) {
        match &mut self.transport {
            Transport::Streamable(t) => t.on_fetch_error(token, message, now_ms),
            Transport::Sse(t) => t.on_fetch_error(token, message),
        }
        self.pump(now_ms);
    }

    pub fn on_redirect_refused(&mut self, token: Token, to: Option<String>, now_ms: f64) {
        match &mut self.transport {
            Transport::Streamable(t) => t.on_redirect_refused(token, to),
            Transport::Sse(t) => t.on_redirect_refused(token, to),
        }
        self.pump(now_ms);
    }

    pub fn next_deadline(&self) -> Option<f64> {
        let transport = match &self.transport {
            Transport::Streamable(t) => t.next_deadline(),
            Transport::Sse(_) => None,
        };
        [self.session.next_deadline(), transport]
            .into_iter()
            .flatten()
            .reduce(f64::min)
    }

    pub fn handle_timeout(&mut self, now_ms: f64) {
        self.session.handle_timeout(now_ms);
        if let Transport::Streamable(t) = &mut self.transport {
            t.handle_timeout(now_ms);
        }
        self.pump(now_ms);
    }

    /// Move everything the session and the transport produced until both are quiet.
    pub fn pump(&mut self, now_ms: f64) {
        loop {
            let mut moved = false;
            while let Some(out) = self.session.poll_output() {
                moved = true;
                self.route_output(out);
            }
            while let Some(action) = self.poll_transport() {
                moved = true;
                match action {
                    HttpAction::Fetch {
                        token,
                        request,
                        streaming,
                    } => self.actions.push_back(ClientAction::Fetch {
                        token,
                        request,
                        streaming,
                    }),
                    HttpAction::Abort(t) => self.actions.push_back(ClientAction::Abort(t)),
                    HttpAction::Deliver(e) => self.route_event(e, now_ms),
                }
            }
            if !moved {
                break;
            }
        }
    }

    fn poll_transport(&mut self) -> Option<HttpAction> {
        match &mut self.transport {
            Transport::Streamable(t) => t.poll_action(),
            Transport::Sse(t) => t.poll_action(),
        }
    }

    fn route_output(&mut self, out: Output) {
        match (out, &mut self.transport) {
            (Output::Send(body, meta), Transport::Streamable(t)) => t.send(body, &meta),
            (Output::Send(body, meta), Transport::Sse(t)) => t.send(body, &meta),
            (Output::Abort(id), Transport::Streamable(t)) => t.abort_request(&id),
            // HTTP+SSE answers share one stream: nothing to abort per request.
            (Output::Abort(_), Transport::Sse(_)) => {}
            (Output::Event(e), transport) => {
                if let (
                    SessionEvent::StateChanged(Phase::Ready {
                        era: Era::Legacy, ..
                    }),
                    Transport::Streamable(t),
                ) = (&e, transport)
                {
                    t.open_get_stream();
                }
                self.actions.push_back(ClientAction::Event(e));
            }
        }
    }

    fn route_event(&mut self, e: TransportEvent, now_ms: f64) {
        match e {
            TransportEvent::Message(m) => self.session.handle_message(&m, now_ms),
            TransportEvent::RequestFailed { id, error } => {
                self.session.request_failed(&id, error, now_ms)
            }
            TransportEvent::SessionExpired { refused } => self
                .session
                .session_expired_refusing(refused.as_ref(), now_ms),
            TransportEvent::TryLegacySse {
                streamable_error,
                initialize,
                meta,
            } => {
                if self.choice == TransportChoice::Auto {
                    let mut sse = LegacySse::fallback(self.target.clone(), streamable_error);
                    sse.send(initialize, &meta);
                    sse.open();
                    self.transport = Transport::Sse(sse);
                } else if let Some(id) = meta.id {
                    self.session.request_failed(&id, streamable_error, now_ms);
                }
            }
            TransportEvent::TransportLost(error) if error.refuses_to_leave_origin() => {
                self.session.transport_refused(error, now_ms)
            }
            TransportEvent::TransportLost(error) => {
                self.session.transport_lost(&error.cause(), now_ms)
            }
            TransportEvent::ListenerOpened => self.session.listener_opened(now_ms),
            TransportEvent::Notice(n) => self
                .actions
                .push_back(ClientAction::Event(SessionEvent::Notice(n))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::Method;
    use crate::mcp::test_support::exchange;
    use serde_json::{json, Value};

    fn take(c: &mut HttpClient) -> (Vec<(Token, HttpRequest)>, Vec<SessionEvent>) {
        let mut fetches = Vec::new();
        let mut events = Vec::new();
        while let Some(a) = c.poll_action() {
            match a {
                ClientAction::Fetch { token, request, .. } => fetches.push((token, request)),
                ClientAction::Event(e) => events.push(e),
                ClientAction::Abort(_) => {}
            }
        }
        (fetches, events)
    }

    fn body_json(r: &HttpRequest) -> Value {
        serde_json::from_str(r.body.as_deref().unwrap_or("null")).unwrap_or(Value::Null)
    }

    #[test]
    fn an_old_sse_server_is_reached_through_the_fallback() {
        let refused = exchange("everything-sse", "00-initial-post-to-sse").expect("capture");
        let target = HttpTarget::new("http://127.0.0.1:3002/sse");
        let config = SessionConfig {
            auto_list: false,
            ping_interval_ms: None,
            ..SessionConfig::default()
        };
        let mut c = HttpClient::new(target, TransportChoice::Auto, config);
        c.connect(0.0);
        // 1. The modern probe is refused with the captured 404 page.
        let (f, _) = take(&mut c);
        assert_eq!(body_json(&f[0].1)["method"], "server/discover");
        c.on_head(f[0].0, refused.status, &refused.headers, 1.0);
        c.on_chunk(f[0].0, &refused.body, 1.0);
        c.on_end(f[0].0, 1.0);
        // 2. So is the initialize POST: the spec's back-compat rule opens the SSE stream.
        let (f, _) = take(&mut c);
        let init = body_json(&f[0].1);
        assert_eq!(init["method"], "initialize");
        c.on_head(f[0].0, refused.status, &refused.headers, 2.0);
        c.on_chunk(f[0].0, &refused.body, 2.0);
        c.on_end(f[0].0, 2.0);
        let (f, _) = take(&mut c);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].1.method, Method::Get);
        assert!(c.uses_legacy_sse());
        // 3. The stream gives the endpoint; the same initialize is posted there.
        let sse = f[0].0;
        c.on_head(
            sse,
            200,
            &[("Content-Type".into(), "text/event-stream".into())],
            3.0,
        );
        c.on_chunk(
            sse,
            b"event: endpoint\ndata: /message?sessionId=s1\n\n",
            3.0,
        );
        let (f, _) = take(&mut c);
        assert_eq!(f[0].1.url, "http://127.0.0.1:3002/message?sessionId=s1");
        assert_eq!(body_json(&f[0].1), init);
        c.on_head(f[0].0, 202, &[], 3.0);
        c.on_end(f[0].0, 3.0);
        // 4. The answer arrives on the stream.
        let answer = json!({"jsonrpc": "2.0", "id": init["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "e", "version": "1"}}});
        c.on_chunk(
            sse,
            format!("event: message\ndata: {answer}\n\n").as_bytes(),
            4.0,
        );
        let (f, events) = take(&mut c);
        assert_eq!(body_json(&f[0].1)["method"], "notifications/initialized");
        assert!(events
            .iter()
            .any(|e| matches!(e, SessionEvent::StateChanged(Phase::Ready { .. }))));
        // 5. The stream ending later is a lost connection, reported by the session.
        c.on_end(sse, 5.0);
        assert!(matches!(c.session().phase(), Phase::Failed(_)));
    }

    #[test]
    fn a_legacy_streamable_server_gets_its_get_stream_after_the_handshake() {
        let mut c = HttpClient::new(
            HttpTarget::new("http://127.0.0.1:3001/mcp"),
            TransportChoice::StreamableHttp,
            SessionConfig {
                auto_list: false,
                ..SessionConfig::default()
            },
        );
        c.connect(0.0);
        let (f, _) = take(&mut c);
        c.on_head(f[0].0, 404, &[], 1.0);
        c.on_end(f[0].0, 1.0);
        let (f, _) = take(&mut c);
        let id = body_json(&f[0].1)["id"].clone();
        c.on_head(
            f[0].0,
            200,
            &[
                ("content-type".into(), "application/json".into()),
                ("mcp-session-id".into(), "S".into()),
            ],
            2.0,
        );
        let result = json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}});
        c.on_chunk(f[0].0, result.to_string().as_bytes(), 2.0);
        c.on_end(f[0].0, 2.0);
        let (f, _) = take(&mut c);
        let methods: Vec<_> = f
            .iter()
            .map(|(_, r)| (r.method, r.header("mcp-session-id").map(str::to_string)))
            .collect();
        assert_eq!(
            methods,
            [
                (Method::Post, Some("S".into())),
                (Method::Get, Some("S".into()))
            ]
        );
    }
}
