//! The Streamable HTTP transport, sans-IO: it builds `HttpRequest`s for the session's messages
//! and turns the answers (status, headers, body bytes) back into `TransportEvent`s.
//!
//! Legacy era (2025-03-26 … 2025-11-25): the `Mcp-Session-Id` from the server is echoed on
//! every later request; 404 on a request carrying it means the session is gone (and, since
//! TypeScript SDK servers answer a restart with 400 "No valid session ID provided", a 400 whose
//! error mentions the session counts too); an optional GET stream carries server messages (405
//! means the server offers none); SSE streams that break are resumed with a GET carrying
//! `Last-Event-ID`, after the `retry` delay the server asked for; DELETE ends the session.
//! Modern era (2026-07-28): no session, no GET stream, no resumption; `Mcp-Method` and
//! `Mcp-Name` mirror the body.
//!
//! Back-compat (both eras' transport pages): when the first `initialize` POST fails with 400,
//! 404 or 405 and no modern JSON-RPC error, the server may be an old HTTP+SSE one, and
//! `TryLegacySse` says so.
//!
//! Order: every POST is its own HTTP request, and a server may handle a later one first. The
//! lifecycle puts `notifications/initialized` before normal operation, so what the session sends
//! after it waits until the server has answered that POST (`gate`). Without the wait,
//! server-everything answered `tools/list` with 12 tools before it had read `initialized`,
//! which registers the five that depend on the client's capabilities, and the `list_changed`
//! it sent then was lost while no GET stream was open yet (seen as a tool count that changed
//! under the user, and once stayed short for 20 s after a reload).
//!
//! It never performs IO and never retries a POST by itself: whether a request may be sent again
//! is the session's call.

use crate::small_map::SmallMap;
use std::collections::VecDeque;

use crate::http::{HttpRequest, Method};
use crate::sse::SseDecoder;

use super::era::Era;
use super::error::McpError;
use super::http_common::{
    describe_fetch_failure, header, snippet, HttpAction, HttpTarget, Token, TransportEvent,
};
use super::messages::{self, Incoming, RequestId, RpcError};
use super::session_types::{SendKind, SendMeta};
use super::types_2026;

/// The notification that ends the handshake: later messages wait until its POST is answered.
const INITIALIZED: &str = "notifications/initialized";
/// Delay before resuming a broken stream when the server gave no `retry`.
pub const DEFAULT_RETRY_MS: f64 = 1_000.0;
/// Error bodies are kept only this long; they become one line of a message.
const MAX_ERROR_BODY: usize = 4_096;

#[derive(Debug)]
enum Body {
    /// Head not seen yet.
    Pending,
    Json(Vec<u8>),
    Sse(SseDecoder),
    /// Non-2xx: collected for the error message.
    Error(Vec<u8>),
    Ignore,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Purpose {
    Post,
    GetStream,
    /// GET with `Last-Event-ID` resuming the stream of `resumes` request.
    Resume,
    Delete,
}

#[derive(Debug)]
struct Exchange {
    purpose: Purpose,
    request_id: Option<RequestId>,
    method: String,
    era: Option<Era>,
    sent_session: bool,
    status: u16,
    body: Body,
    answered: bool,
    /// The `initialize` POST itself, kept so it can be re-sent over HTTP+SSE.
    replay: Option<(String, SendMeta)>,
    /// A GET that resumes a stream with `Last-Event-ID` (the server replays what was missed).
    resumes: bool,
    /// The `Mcp-Param-*` header names this POST carried: if the browser refuses to send it,
    /// the server's CORS rules are likely not to allow them.
    param_headers: Vec<String>,
}

#[derive(Debug, Clone)]
struct ResumeWait {
    at_ms: f64,
    request_id: Option<RequestId>,
    last_event_id: String,
}

/// Streamable HTTP client state for one server.
#[derive(Debug)]
pub struct StreamableHttp {
    target: HttpTarget,
    session_id: Option<String>,
    /// A POST has succeeded: the endpoint is a Streamable HTTP one, no more legacy fallback.
    established: bool,
    next_token: Token,
    exchanges: SmallMap<Token, Exchange>,
    resumes: Vec<ResumeWait>,
    get_stream: Option<Token>,
    get_unsupported: bool,
    /// A GET stream was opened on the current session: a later 400/404 to a GET carrying it
    /// means the server forgot the session (it restarted), not that it offers no GET stream.
    get_worked: bool,
    protocol_version: Option<String>,
    last_retry_ms: Option<f64>,
    /// The `notifications/initialized` POST while its answer has not come: later messages
    /// wait in `held`, in order, until it has (see the module doc).
    gate: Option<Token>,
    held: VecDeque<(String, SendMeta)>,
    actions: VecDeque<HttpAction>,
}

impl StreamableHttp {
    pub fn new(target: HttpTarget) -> Self {
        StreamableHttp {
            target,
            session_id: None,
            established: false,
            next_token: 1,
            exchanges: SmallMap::new(),
            resumes: Vec::new(),
            get_stream: None,
            get_unsupported: false,
            get_worked: false,
            protocol_version: None,
            last_retry_ms: None,
            gate: None,
            held: VecDeque::new(),
            actions: VecDeque::new(),
        }
    }

    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// Carry session `session_id` (negotiated `protocol_version`) kept across a reload on every
    /// request, as if this client had made it (`kept_session`). The endpoint is known to be a
    /// Streamable HTTP one, so no refusal falls back to HTTP+SSE; a 404 for the session is the
    /// usual expired session.
    pub fn resume(&mut self, session_id: &str, protocol_version: Option<&str>) {
        self.session_id = Some(session_id.to_string());
        self.protocol_version = protocol_version.map(str::to_string);
        self.established = true;
    }

    pub fn poll_action(&mut self) -> Option<HttpAction> {
        self.actions.pop_front()
    }

    fn deliver(&mut self, e: TransportEvent) {
        self.actions.push_back(HttpAction::Deliver(e));
    }

    fn token(&mut self) -> Token {
        let t = self.next_token;
        self.next_token += 1;
        t
    }

    fn base_request(&self, method: Method, accept: &str) -> HttpRequest {
        let mut headers = vec![("Accept".to_string(), accept.to_string())];
        if let Some(v) = &self.protocol_version {
            headers.push(("MCP-Protocol-Version".into(), v.clone()));
        }
        if let Some(s) = &self.session_id {
            headers.push(("Mcp-Session-Id".into(), s.clone()));
        }
        for (k, v) in &self.target.headers {
            headers.push((k.clone(), v.clone()));
        }
        HttpRequest {
            method,
            url: self.target.fetch_url(&self.target.url),
            headers,
            body: None,
        }
    }

    /// POST one JSON-RPC message from the session (after the `initialized` POST is answered,
    /// if it is still out).
    pub fn send(&mut self, body: String, meta: &SendMeta) {
        if meta.method == "initialize" {
            // A new handshake never carries the old session (the spec's 404 rule), and what
            // waited for the old one's `initialized` belonged to it.
            self.session_id = None;
            self.protocol_version = None;
            self.gate = None;
            self.held.clear();
        } else if self.gate.is_some() {
            self.held.push_back((body, meta.clone()));
            return;
        } else if meta.protocol_version.is_some() {
            self.protocol_version = meta.protocol_version.clone();
        }
        let mut req = self.base_request(Method::Post, "application/json, text/event-stream");
        req.headers
            .insert(1, ("Content-Type".into(), "application/json".into()));
        if meta.era == Some(Era::Modern) {
            if !meta.method.is_empty() {
                req.headers
                    .push(("Mcp-Method".into(), header_value(&meta.method)));
            }
            if let Some(name) = &meta.name {
                req.headers.push(("Mcp-Name".into(), header_value(name)));
            }
            req.headers.extend(meta.param_headers.iter().cloned());
        }
        req.body = Some(body.clone());
        let token = self.token();
        self.exchanges.insert(
            token,
            Exchange {
                purpose: Purpose::Post,
                request_id: meta.id.clone(),
                method: meta.method.clone(),
                era: meta.era,
                sent_session: self.session_id.is_some(),
                status: 0,
                body: Body::Pending,
                answered: meta.kind != SendKind::Request,
                replay: (meta.method == "initialize").then(|| (body.clone(), meta.clone())),
                resumes: false,
                param_headers: if meta.era == Some(Era::Modern) {
                    meta.param_headers.iter().map(|(k, _)| k.clone()).collect()
                } else {
                    Vec::new()
                },
            },
        );
        if meta.method == INITIALIZED {
            self.gate = Some(token);
        }
        self.actions.push_back(HttpAction::Fetch {
            token,
            request: req,
            streaming: true,
        });
    }

    /// The `initialized` POST was answered (or failed, or the session went): send what waited.
    fn open_gate(&mut self) {
        self.gate = None;
        for (body, meta) in std::mem::take(&mut self.held) {
            self.send(body, &meta);
        }
    }

    /// Whether exchange `token` is the `initialized` POST that later messages wait for.
    fn release_if_gate(&mut self, token: Token) {
        if self.gate == Some(token) {
            self.open_gate();
        }
    }

    /// Open the optional GET stream for server-initiated messages (legacy era only).
    pub fn open_get_stream(&mut self) {
        if self.get_unsupported || self.get_stream.is_some() {
            return;
        }
        self.fetch_get(Purpose::GetStream, None, None);
    }

    fn fetch_get(
        &mut self,
        purpose: Purpose,
        request_id: Option<RequestId>,
        last_id: Option<String>,
    ) {
        let mut req = self.base_request(Method::Get, "text/event-stream");
        let resumes = last_id.is_some();
        if let Some(id) = last_id {
            req.headers.push(("Last-Event-ID".into(), id));
        }
        let token = self.token();
        if purpose == Purpose::GetStream {
            self.get_stream = Some(token);
        }
        self.exchanges.insert(
            token,
            Exchange {
                purpose,
                answered: request_id.is_none(),
                request_id,
                method: String::new(),
                era: Some(Era::Legacy),
                sent_session: self.session_id.is_some(),
                status: 0,
                body: Body::Pending,
                replay: None,
                resumes,
                param_headers: Vec::new(),
            },
        );
        self.actions.push_back(HttpAction::Fetch {
            token,
            request: req,
            streaming: true,
        });
    }

    /// Stop waiting for `id` (cancelled or timed out): abort the stream carrying its answer.
    pub fn abort_request(&mut self, id: &RequestId) {
        let tokens: Vec<Token> = self
            .exchanges
            .iter()
            .filter(|(_, e)| e.request_id.as_ref() == Some(id))
            .map(|(t, _)| *t)
            .collect();
        for t in tokens {
            self.exchanges.remove(&t);
            self.actions.push_back(HttpAction::Abort(t));
        }
        self.resumes.retain(|r| r.request_id.as_ref() != Some(id));
        // Never sent: it only leaves the queue.
        self.held.retain(|(_, m)| m.id.as_ref() != Some(id));
    }

    /// Leave: abort every exchange and DELETE the session if there is one.
    pub fn close(&mut self) {
        self.close_and(true);
    }

    /// Leave without ending the session on the server: a reloaded page takes it up again
    /// (`kept_session`). Every exchange is aborted; no DELETE is sent.
    pub fn close_keeping_session(&mut self) {
        self.close_and(false);
    }

    fn close_and(&mut self, delete: bool) {
        let mut tokens: Vec<Token> = self.exchanges.keys().copied().collect();
        crate::order::sort(&mut tokens);
        for t in tokens {
            self.actions.push_back(HttpAction::Abort(t));
        }
        self.exchanges.clear();
        self.resumes.clear();
        self.get_stream = None;
        // The session is leaving: what waited for the handshake is not sent.
        self.gate = None;
        self.held.clear();
        if delete && self.session_id.is_some() {
            let req = self.base_request(Method::Delete, "application/json, text/event-stream");
            let token = self.token();
            self.exchanges.insert(
                token,
                Exchange {
                    purpose: Purpose::Delete,
                    request_id: None,
                    method: String::new(),
                    era: Some(Era::Legacy),
                    sent_session: true,
                    status: 0,
                    body: Body::Ignore,
                    answered: true,
                    replay: None,
                    resumes: false,
                    param_headers: Vec::new(),
                },
            );
            self.actions.push_back(HttpAction::Fetch {
                token,
                request: req,
                streaming: false,
            });
        }
        self.session_id = None;
        self.protocol_version = None;
    }

    /// The response head of exchange `token` arrived.
    pub fn on_head(&mut self, token: Token, status: u16, headers: &[(String, String)]) {
        self.on_head_inner(token, status, headers);
        // After the session id is read: what waited goes out carrying it.
        self.release_if_gate(token);
    }

    fn on_head_inner(&mut self, token: Token, status: u16, headers: &[(String, String)]) {
        let Some(ex) = self.exchanges.get_mut(&token) else {
            return;
        };
        ex.status = status;
        let ok = (200..300).contains(&status);
        if ok && ex.era != Some(Era::Modern) {
            if let Some(sid) = header(headers, "mcp-session-id").filter(|s| !s.is_empty()) {
                self.session_id = Some(sid.to_string());
            }
        }
        let content_type = header(headers, "content-type")
            .unwrap_or("")
            .to_ascii_lowercase();
        ex.body = if !ok {
            Body::Error(Vec::new())
        } else if status == 202 || ex.purpose == Purpose::Delete {
            Body::Ignore
        } else if content_type.starts_with("text/event-stream") {
            Body::Sse(SseDecoder::new())
        } else {
            Body::Json(Vec::new())
        };
        if ok && ex.purpose == Purpose::Post {
            self.established = true;
        }
        if ok && ex.purpose == Purpose::GetStream && ex.sent_session {
            self.get_worked = true;
        }
        // A fresh notification stream (not a resumed one, whose missed events the server
        // replays): whatever the server announced before it existed was dropped.
        if ok && ex.purpose == Purpose::GetStream && !ex.resumes && matches!(ex.body, Body::Sse(_))
        {
            self.deliver(TransportEvent::ListenerOpened);
        }
    }

    /// Body bytes of exchange `token`.
    pub fn on_chunk(&mut self, token: Token, bytes: &[u8]) {
        let Some(ex) = self.exchanges.get_mut(&token) else {
            return;
        };
        let mut messages = Vec::new();
        match &mut ex.body {
            Body::Json(buf) => buf.extend_from_slice(bytes),
            Body::Error(buf) => {
                let room = MAX_ERROR_BODY.saturating_sub(buf.len());
                buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
            }
            Body::Sse(dec) => {
                for ev in dec.feed(bytes) {
                    if ev.event == "message" && !ev.data.trim().is_empty() {
                        messages.push(ev.data);
                    }
                }
                if let Some(r) = dec.retry_ms() {
                    self.last_retry_ms = Some(r as f64);
                }
            }
            Body::Pending | Body::Ignore => {}
        }
        for m in messages {
            if answers(&m, ex.request_id.as_ref()) {
                ex.answered = true;
            }
            self.actions
                .push_back(HttpAction::Deliver(TransportEvent::Message(m)));
        }
    }

    /// Exchange `token` ended normally.
    pub fn on_end(&mut self, token: Token, now_ms: f64) {
        self.release_if_gate(token);
        let Some(ex) = self.exchanges.remove(&token) else {
            return;
        };
        if self.get_stream == Some(token) {
            self.get_stream = None;
        }
        let mut ex = ex;
        match std::mem::replace(&mut ex.body, Body::Ignore) {
            Body::Json(buf) => {
                let text = String::from_utf8_lossy(&buf).into_owned();
                let answered = answers(&text, ex.request_id.as_ref());
                if !text.trim().is_empty() {
                    self.deliver(TransportEvent::Message(text));
                }
                if let (Some(id), false) = (ex.request_id, answered) {
                    self.deliver(TransportEvent::RequestFailed {
                        id,
                        error: McpError::Protocol(
                            "the HTTP answer held no response to the request".into(),
                        ),
                    });
                }
            }
            Body::Sse(dec) => {
                self.sse_ended(ex.purpose, ex.request_id, ex.answered, ex.era, dec, now_ms)
            }
            Body::Error(buf) => self.http_error(ex, &buf),
            Body::Pending | Body::Ignore => {}
        }
    }

    fn sse_ended(
        &mut self,
        purpose: Purpose,
        request_id: Option<RequestId>,
        answered: bool,
        era: Option<Era>,
        dec: SseDecoder,
        now_ms: f64,
    ) {
        let retry = dec.retry_ms().map(|r| r as f64).or(self.last_retry_ms);
        // 2026-07-28 dropped resumption; earlier revisions allow it with or without a session.
        let resumable = era != Some(Era::Modern);
        let last_id = dec.last_event_id().map(str::to_string);
        match (purpose, answered, last_id) {
            // The answer came: the stream did its job.
            (Purpose::Post | Purpose::Resume, true, _) => {}
            (Purpose::Post | Purpose::Resume, false, Some(last)) if resumable => {
                self.resumes.push(ResumeWait {
                    at_ms: now_ms + retry.unwrap_or(DEFAULT_RETRY_MS),
                    request_id,
                    last_event_id: last,
                });
            }
            (Purpose::Post | Purpose::Resume, false, _) => {
                if let Some(id) = request_id {
                    self.deliver(TransportEvent::RequestFailed {
                        id,
                        error: McpError::ConnectionLost {
                            reason: "the response stream ended before the answer".into(),
                            in_flight_tool: false,
                        },
                    });
                }
            }
            (Purpose::GetStream, _, last) if resumable => {
                // The server closed its stream; "poll" it again after `retry`.
                self.resumes.push(ResumeWait {
                    at_ms: now_ms + retry.unwrap_or(DEFAULT_RETRY_MS),
                    request_id: None,
                    last_event_id: last.unwrap_or_default(),
                });
            }
            _ => {}
        }
    }

    fn http_error(&mut self, ex: Exchange, body: &[u8]) {
        let status = ex.status;
        let text = String::from_utf8_lossy(body).into_owned();
        let rpc = messages::error_body(&text);
        if ex.purpose == Purpose::GetStream || ex.purpose == Purpose::Delete {
            if ex.purpose == Purpose::GetStream {
                // A server restarted while we were idle answers the resumed GET with 404 (the
                // spec) or 400 (TypeScript SDK servers): re-initialize now rather than look
                // connected until the next request fails.
                let forgotten = status == 404 || (status == 400 && self.get_worked);
                if forgotten && ex.sent_session {
                    self.session_expired(None);
                } else {
                    // 405: the server offers no GET stream, which is fine; anything else we
                    // also stop asking for.
                    self.get_unsupported = true;
                }
            }
            return;
        }
        let mentions_session = rpc
            .as_ref()
            .is_some_and(|e| e.message.to_ascii_lowercase().contains("session"));
        if ex.sent_session && (status == 404 || (status == 400 && mentions_session)) {
            // Only a refused POST of the request itself proves it never ran, so only that
            // may be sent again. A refused *resume* of its stream says nothing of the kind:
            // the request was accepted before the stream broke and may have run (a server
            // restarted meanwhile forgot the session, not the work it did), so it fails with
            // the session.
            let refused = match ex.purpose {
                Purpose::Post => ex.request_id.clone(),
                _ => None,
            };
            self.session_expired(refused);
            return;
        }
        if status == 401 || status == 403 {
            return self.fail_exchange(ex.request_id, McpError::Auth { status });
        }
        let modern = rpc
            .as_ref()
            .is_some_and(|e| types_2026::is_modern_error_code(e.code));
        if !self.established && matches!(status, 400 | 404 | 405) && !modern {
            if let Some((body, meta)) = ex.replay {
                self.deliver(TransportEvent::TryLegacySse {
                    streamable_error: http_error(status, &text, None),
                    initialize: body,
                    meta,
                });
                return;
            }
        }
        match (rpc, ex.request_id) {
            (Some(e), Some(id)) => {
                // The JSON-RPC error is the real answer; give it the request's id, since
                // servers often send `id: null` here.
                self.deliver(TransportEvent::Message(with_id(&id, &e)));
            }
            (_, id) => {
                let hint = (status == 400 && !ex.sent_session && ex.era == Some(Era::Legacy) && ex.method != "initialize").then(|| {
                    "If this server uses sessions, it may not expose the Mcp-Session-Id header to web pages (Access-Control-Expose-Headers).".to_string()
                });
                self.fail_exchange(id, http_error(status, &text, hint));
            }
        }
    }

    fn fail_exchange(&mut self, id: Option<RequestId>, error: McpError) {
        match id {
            Some(id) => self.deliver(TransportEvent::RequestFailed { id, error }),
            None => self.deliver(TransportEvent::Notice(error.to_string())),
        }
    }

    fn session_expired(&mut self, refused: Option<RequestId>) {
        if self.session_id.take().is_some() {
            self.protocol_version = None;
            self.get_worked = false;
            let mut streams: Vec<Token> = self
                .exchanges
                .iter()
                .filter(|(_, e)| e.purpose != Purpose::Post || e.sent_session)
                .map(|(t, _)| *t)
                .collect();
            crate::order::sort(&mut streams);
            for t in streams {
                self.exchanges.remove(&t);
                self.actions.push_back(HttpAction::Abort(t));
            }
            self.get_stream = None;
            self.resumes.clear();
            self.deliver(TransportEvent::SessionExpired { refused });
        }
    }

    /// The fetch of `token` failed without an HTTP answer (network, CORS, aborted by the
    /// browser) or its body broke off.
    pub fn on_fetch_error(&mut self, token: Token, message: &str, now_ms: f64) {
        self.release_if_gate(token);
        let Some(ex) = self.exchanges.remove(&token) else {
            return;
        };
        if self.get_stream == Some(token) {
            self.get_stream = None;
        }
        if let Body::Sse(dec) = ex.body {
            // The body broke off mid-stream: same as the server closing it...
            let unanswered_post =
                matches!(ex.purpose, Purpose::Post | Purpose::Resume) && !ex.answered;
            let modern = ex.era == Some(Era::Modern);
            self.sse_ended(ex.purpose, ex.request_id, ex.answered, ex.era, dec, now_ms);
            // ...except that a modern stream cannot be resumed, so nothing else would notice a
            // dead server until the next health check (30 s later, measured): a network
            // failure mid-answer is a lost transport, and the reconnect schedule starts now.
            if modern && unanswered_post {
                self.deliver(TransportEvent::TransportLost(McpError::ConnectionLost {
                    reason: format!("the connection broke mid-answer ({message})"),
                    in_flight_tool: false,
                }));
            }
            return;
        }
        let url = self.target.url.clone();
        let error = describe_fetch_failure(&self.target, &url, message);
        self.failed_before_answer(ex, error);
    }

    /// The browser stopped a redirect of `token` (a request with credentials; redirects come
    /// before any body, so this is always a failure before an answer).
    pub fn on_redirect_refused(&mut self, token: Token, to: Option<String>) {
        self.release_if_gate(token);
        let Some(ex) = self.exchanges.remove(&token) else {
            return;
        };
        if self.get_stream == Some(token) {
            self.get_stream = None;
        }
        self.failed_before_answer(ex, McpError::RedirectRefused { to });
    }

    fn failed_before_answer(&mut self, ex: Exchange, error: McpError) {
        match ex.purpose {
            // The browser did not send a call carrying `Mcp-Param-*` headers while the server
            // answers everything else: its CORS preflight most likely refused those headers.
            // That fails this tool, not the connection (the next health check tells which).
            Purpose::Post
                if !ex.param_headers.is_empty() && matches!(error, McpError::Network { .. }) =>
            {
                if let Some(id) = ex.request_id {
                    self.deliver(TransportEvent::RequestFailed {
                        id,
                        error: McpError::HeadersNotAllowed {
                            headers: ex.param_headers,
                        },
                    });
                }
            }
            Purpose::Post if !self.established && ex.method == types_2026::DISCOVER_METHOD => {
                // A legacy server's CORS rules may not allow the modern headers (Mcp-Method):
                // let the session fall back to `initialize`, which does not send them.
                if let Some(id) = ex.request_id {
                    self.deliver(TransportEvent::RequestFailed { id, error });
                }
            }
            Purpose::Post | Purpose::Resume => self.deliver(TransportEvent::TransportLost(error)),
            Purpose::GetStream => self.deliver(TransportEvent::TransportLost(error)),
            Purpose::Delete => {}
        }
    }

    pub fn next_deadline(&self) -> Option<f64> {
        self.resumes.iter().map(|r| r.at_ms).reduce(f64::min)
    }

    /// Resume streams whose `retry` delay has passed.
    pub fn handle_timeout(&mut self, now_ms: f64) {
        let (due, wait): (Vec<ResumeWait>, Vec<ResumeWait>) = std::mem::take(&mut self.resumes)
            .into_iter()
            .partition(|r| r.at_ms <= now_ms);
        self.resumes = wait;
        for r in due {
            let last = Some(r.last_event_id).filter(|s| !s.is_empty());
            match r.request_id {
                Some(id) => self.fetch_get(Purpose::Resume, Some(id), last),
                None => self.fetch_get(Purpose::GetStream, None, last),
            }
        }
    }
}

/// Whether `text` holds the response (result or error) to `id`.
fn answers(text: &str, id: Option<&RequestId>) -> bool {
    let Some(id) = id else { return false };
    messages::parse_incoming(text).iter().any(|m| match m {
        Incoming::Response { id: got, .. } => got == id,
        Incoming::Error { id: Some(got), .. } => got == id,
        _ => false,
    })
}

fn with_id(id: &RequestId, e: &RpcError) -> String {
    let mut v = serde_json::json!({
        "jsonrpc": "2.0",
        "id": messages::id_to_value(id),
        "error": {"code": e.code, "message": e.message},
    });
    if let Some(d) = &e.data {
        v["error"]["data"] = d.clone();
    }
    v.to_string()
}

fn http_error(status: u16, body: &str, hint: Option<String>) -> McpError {
    McpError::Http {
        status,
        body: snippet(body.as_bytes()),
        hint,
    }
}

/// A header value per the 2026-07-28 value encoding: plain when it is visible ASCII without
/// surrounding spaces, otherwise `=?base64?…?=` of its UTF-8 bytes.
pub fn header_value(v: &str) -> String {
    let visible = v.bytes().all(|b| (0x20..=0x7e).contains(&b) || b == b'\t');
    let padded = v.starts_with([' ', '\t']) || v.ends_with([' ', '\t']);
    let looks_encoded = v.starts_with("=?base64?") && v.ends_with("?=");
    let plain = !v.is_empty() && visible && !padded && !looks_encoded;
    if plain {
        v.to_string()
    } else {
        format!("=?base64?{}?=", crate::base64::base64(v.as_bytes()))
    }
}

#[cfg(test)]
#[path = "streamable_http_tests.rs"]
mod tests;
