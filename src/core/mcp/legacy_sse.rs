//! The deprecated HTTP+SSE transport (protocol 2024-11-05), sans-IO.
//!
//! The client opens a GET event stream; the server's first event is `endpoint`, whose data is
//! the URL (often relative, e.g. `/message?sessionId=…`) to POST messages to. POSTs are
//! answered 202 and every response arrives on the stream. Messages sent before `endpoint`
//! arrives wait for it.
//!
//! Each POST is its own HTTP request, which a server may handle out of order: what the session
//! sends after `notifications/initialized` waits until that POST is answered, as over
//! Streamable HTTP (`streamable_http.rs` says why).
//!
//! Skiff falls back to this transport only per the spec's back-compat rule (the first
//! `initialize` POST refused with 400/404/405). When that fallback fails too, the error keeps
//! both causes: the first one is usually what the user must fix.

use crate::small_map::SmallMap;
use std::collections::VecDeque;

use crate::http::{HttpRequest, Method};
use crate::sse::SseDecoder;

use super::error::McpError;
use super::http_common::{
    describe_fetch_failure, header, snippet, HttpAction, HttpTarget, Token, TransportEvent,
};
use super::messages::RequestId;
use super::session_types::SendMeta;

#[derive(Debug)]
struct Post {
    request_id: Option<RequestId>,
    status: u16,
    body: Vec<u8>,
}

#[derive(Debug)]
pub struct LegacySse {
    target: HttpTarget,
    /// Absolute endpoint URL (before any proxy prefix).
    endpoint: Option<String>,
    stream: Option<Token>,
    stream_ok: bool,
    decoder: SseDecoder,
    queued: Vec<(String, SendMeta)>,
    /// The `notifications/initialized` POST while unanswered, and what waits for it.
    gate: Option<Token>,
    held: Vec<(String, SendMeta)>,
    posts: SmallMap<Token, Post>,
    /// Set when this transport is the fallback from Streamable HTTP: that failure is kept so a
    /// failure here reports both.
    fallback_from: Option<McpError>,
    next_token: Token,
    actions: VecDeque<HttpAction>,
}

impl LegacySse {
    pub fn new(target: HttpTarget) -> Self {
        LegacySse {
            target,
            endpoint: None,
            stream: None,
            stream_ok: false,
            decoder: SseDecoder::new(),
            queued: Vec::new(),
            gate: None,
            held: Vec::new(),
            posts: SmallMap::new(),
            fallback_from: None,
            next_token: 1_000_000,
            actions: VecDeque::new(),
        }
    }

    /// Open as the fallback after Streamable HTTP failed with `streamable_error`.
    pub fn fallback(target: HttpTarget, streamable_error: McpError) -> Self {
        let mut t = LegacySse::new(target);
        t.fallback_from = Some(streamable_error);
        t
    }

    pub fn endpoint(&self) -> Option<&str> {
        self.endpoint.as_deref()
    }

    pub fn poll_action(&mut self) -> Option<HttpAction> {
        self.actions.pop_front()
    }

    fn token(&mut self) -> Token {
        let t = self.next_token;
        self.next_token += 1;
        t
    }

    fn with_custom_headers(&self, mut headers: Vec<(String, String)>) -> Vec<(String, String)> {
        headers.extend(self.target.headers.iter().cloned());
        headers
    }

    /// Open the event stream.
    pub fn open(&mut self) {
        let token = self.token();
        self.stream = Some(token);
        self.stream_ok = false;
        self.endpoint = None;
        self.decoder = SseDecoder::new();
        let request = HttpRequest {
            method: Method::Get,
            url: self.target.fetch_url(&self.target.url),
            headers: self.with_custom_headers(vec![("Accept".into(), "text/event-stream".into())]),
            body: None,
        };
        self.actions.push_back(HttpAction::Fetch {
            token,
            request,
            streaming: true,
        });
    }

    pub fn send(&mut self, body: String, meta: &SendMeta) {
        let Some(endpoint) = self.endpoint.clone() else {
            self.queued.push((body, meta.clone()));
            return;
        };
        if self.gate.is_some() {
            self.held.push((body, meta.clone()));
            return;
        }
        let mut headers = vec![("Content-Type".into(), "application/json".into())];
        if let Some(v) = &meta.protocol_version {
            headers.push(("MCP-Protocol-Version".into(), v.clone()));
        }
        let request = HttpRequest {
            method: Method::Post,
            url: self.target.fetch_url(&endpoint),
            headers: self.with_custom_headers(headers),
            body: Some(body),
        };
        let token = self.token();
        self.posts.insert(
            token,
            Post {
                request_id: meta.id.clone(),
                status: 0,
                body: Vec::new(),
            },
        );
        if meta.method == "notifications/initialized" {
            self.gate = Some(token);
        }
        self.actions.push_back(HttpAction::Fetch {
            token,
            request,
            streaming: false,
        });
    }

    pub fn close(&mut self) {
        if let Some(t) = self.stream.take() {
            self.actions.push_back(HttpAction::Abort(t));
        }
        self.endpoint = None;
        self.gate = None;
        self.held.clear();
    }

    /// Exchange `token` was answered or failed: if it was the `initialized` POST, what waited
    /// for it is sent now, in order.
    fn release_if_gate(&mut self, token: Token) {
        if self.gate != Some(token) {
            return;
        }
        self.gate = None;
        for (body, meta) in std::mem::take(&mut self.held) {
            self.send(body, &meta);
        }
    }

    pub fn on_head(&mut self, token: Token, status: u16, headers: &[(String, String)]) {
        if self.stream == Some(token) {
            let ok = (200..300).contains(&status);
            let sse = header(headers, "content-type")
                .is_some_and(|c| c.to_ascii_lowercase().starts_with("text/event-stream"));
            if ok && sse {
                self.stream_ok = true;
            } else {
                let error = if status == 401 || status == 403 {
                    McpError::Auth { status }
                } else if !ok {
                    McpError::Http {
                        status,
                        body: String::new(),
                        hint: None,
                    }
                } else {
                    McpError::Protocol("the SSE URL did not answer with an event stream".into())
                };
                self.stream = None;
                self.actions.push_back(HttpAction::Abort(token));
                self.stream_failed(error);
            }
        } else if let Some(p) = self.posts.get_mut(&token) {
            p.status = status;
            self.release_if_gate(token);
        }
    }

    pub fn on_chunk(&mut self, token: Token, bytes: &[u8]) {
        if self.stream == Some(token) && self.stream_ok {
            for ev in self.decoder.feed(bytes) {
                match ev.event.as_str() {
                    "endpoint" => {
                        let url = resolve_url(&self.target.url, ev.data.trim());
                        let ours = crate::http::origin_of(&self.target.url);
                        if ours.is_none() || crate::http::origin_of(&url) != ours {
                            // Custom headers go with every POST: never to another origin.
                            let error = McpError::EndpointElsewhere {
                                sse_origin: ours.unwrap_or_else(|| self.target.url.clone()),
                                endpoint: url,
                            };
                            self.stream = None;
                            self.actions.push_back(HttpAction::Abort(token));
                            self.stream_failed(error);
                            return;
                        }
                        self.endpoint = Some(url);
                        for (body, meta) in std::mem::take(&mut self.queued) {
                            self.send(body, &meta);
                        }
                    }
                    "message" if !ev.data.trim().is_empty() => self
                        .actions
                        .push_back(HttpAction::Deliver(TransportEvent::Message(ev.data))),
                    _ => {}
                }
            }
        } else if let Some(p) = self.posts.get_mut(&token) {
            if p.body.len() < 4096 {
                p.body.extend_from_slice(bytes);
            }
        }
    }

    pub fn on_end(&mut self, token: Token) {
        self.release_if_gate(token);
        if self.stream == Some(token) {
            self.stream = None;
            self.stream_failed(McpError::ConnectionLost {
                reason: "the server closed the SSE stream".into(),
                in_flight_tool: false,
            });
        } else if let Some(p) = self.posts.remove(&token) {
            if (200..300).contains(&p.status) {
                return;
            }
            let error = if p.status == 401 || p.status == 403 {
                McpError::Auth { status: p.status }
            } else {
                McpError::Http {
                    status: p.status,
                    body: snippet(&p.body),
                    hint: None,
                }
            };
            let event = match p.request_id {
                Some(id) => TransportEvent::RequestFailed { id, error },
                None => TransportEvent::Notice(error.to_string()),
            };
            self.actions.push_back(HttpAction::Deliver(event));
        }
    }

    pub fn on_fetch_error(&mut self, token: Token, message: &str) {
        let url = self.target.url.clone();
        let error = describe_fetch_failure(&self.target, &url, message);
        self.fetch_failed(token, error);
    }

    /// The browser stopped a redirect of `token` (a request with credentials): fail it the way
    /// a network failure would, with the sentence that says why.
    pub fn on_redirect_refused(&mut self, token: Token, to: Option<String>) {
        self.fetch_failed(token, McpError::RedirectRefused { to });
    }

    fn fetch_failed(&mut self, token: Token, error: McpError) {
        self.release_if_gate(token);
        if self.stream == Some(token) {
            self.stream = None;
            self.stream_failed(error);
        } else if self.posts.remove(&token).is_some() {
            self.actions
                .push_back(HttpAction::Deliver(TransportEvent::TransportLost(error)));
        }
    }

    /// The stream failed or ended. Before `endpoint` arrived on a fallback, the queued
    /// `initialize` fails with both transports' errors; otherwise the transport is lost.
    fn stream_failed(&mut self, error: McpError) {
        if self.endpoint.is_none() {
            if let Some(first) = self.fallback_from.clone() {
                let both = McpError::BothTransportsFailed {
                    streamable: Box::new(first),
                    sse: Box::new(error.clone()),
                };
                let ids: Vec<RequestId> = std::mem::take(&mut self.queued)
                    .into_iter()
                    .filter_map(|(_, m)| m.id)
                    .collect();
                for id in ids {
                    self.actions
                        .push_back(HttpAction::Deliver(TransportEvent::RequestFailed {
                            id,
                            error: both.clone(),
                        }));
                }
                self.actions
                    .push_back(HttpAction::Deliver(TransportEvent::TransportLost(both)));
                return;
            }
        }
        self.endpoint = None;
        self.actions
            .push_back(HttpAction::Deliver(TransportEvent::TransportLost(error)));
    }
}

/// Resolve an `endpoint` reference against the SSE URL (RFC 3986 reference forms that servers
/// actually send: absolute, scheme-relative, absolute path, relative path, query only).
pub fn resolve_url(base: &str, reference: &str) -> String {
    if reference.contains("://") {
        return reference.to_string();
    }
    let (scheme, rest) = base.split_once("://").unwrap_or(("http", base));
    if let Some(r) = reference.strip_prefix("//") {
        return format!("{scheme}://{r}");
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let origin = format!("{scheme}://{}", &rest[..authority_end]);
    let path_and_more = &rest[authority_end..];
    let path = path_and_more
        .split(['?', '#'])
        .next()
        .filter(|p| !p.is_empty())
        .unwrap_or("/");
    if reference.starts_with('/') {
        return format!("{origin}{reference}");
    }
    if reference.starts_with('?') {
        return format!("{origin}{path}{reference}");
    }
    let dir = &path[..path.rfind('/').map(|i| i + 1).unwrap_or(0)];
    let mut segments: Vec<&str> = dir.split('/').collect();
    segments.pop(); // the empty segment after the last '/'
    let (ref_path, ref_rest) = match reference.find(['?', '#']) {
        Some(i) => (&reference[..i], &reference[i..]),
        None => (reference, ""),
    };
    for seg in ref_path.split('/') {
        match seg {
            "." => {}
            ".." => {
                if segments.len() > 1 {
                    segments.pop();
                }
            }
            s => segments.push(s),
        }
    }
    format!("{origin}{}{ref_rest}", segments.join("/"))
}

#[cfg(test)]
#[path = "legacy_sse_tests.rs"]
mod tests;
