//! The transport reports of `Supervisor`: what a fetch, a WebSocket or the in-page server
//! reported, each tagged with the `LinkId` it belongs to. Reports about a link that is gone
//! are ignored here, so nothing of a dead connection can reach the next one.

use super::error::McpError;
use super::http_client::HttpClient;
use super::http_common::Token;
use super::supervisor::Supervisor;
use super::supervisor_link::Link;
use super::supervisor_types::{LinkId, WsReport};

impl Supervisor {
    fn http(&mut self, link: LinkId) -> Option<&mut HttpClient> {
        match self.link.as_mut() {
            Some(Link::Http(c)) if link == self.link_id => Some(c),
            _ => None,
        }
    }

    pub fn handle_fetch_head(
        &mut self,
        link: LinkId,
        token: Token,
        status: u16,
        headers: &[(String, String)],
        now: f64,
    ) {
        if let Some(c) = self.http(link) {
            c.on_head(token, status, headers, now);
            self.finish(now);
        }
    }

    pub fn handle_fetch_chunk(&mut self, link: LinkId, token: Token, bytes: &[u8], now: f64) {
        if let Some(c) = self.http(link) {
            c.on_chunk(token, bytes, now);
            self.finish(now);
        }
    }

    pub fn handle_fetch_end(&mut self, link: LinkId, token: Token, now: f64) {
        if let Some(c) = self.http(link) {
            c.on_end(token, now);
            self.finish(now);
        }
    }

    /// The browser's own words only: the core adds the diagnosis (CORS, mixed content).
    pub fn handle_fetch_error(&mut self, link: LinkId, token: Token, message: &str, now: f64) {
        if let Some(c) = self.http(link) {
            c.on_fetch_error(token, message, now);
            self.finish(now);
        }
    }

    /// The platform refused to follow a redirect of a request carrying credentials; `to` is
    /// where it pointed, when the browser revealed it.
    pub fn handle_fetch_redirect_refused(
        &mut self,
        link: LinkId,
        token: Token,
        to: Option<String>,
        now: f64,
    ) {
        if let Some(c) = self.http(link) {
            c.on_redirect_refused(token, to, now);
            self.finish(now);
        }
    }

    pub fn handle_ws(&mut self, link: LinkId, report: WsReport, now: f64) {
        let open = match self.link.as_ref() {
            Some(Link::Ws { open, .. }) if link == self.link_id => *open,
            _ => return,
        };
        match report {
            WsReport::Open { protocol } => {
                if let Some(Link::Ws { session, open }) = self.link.as_mut() {
                    *open = true;
                    session.connect(now);
                }
                let sub = if protocol.is_empty() {
                    "no subprotocol".to_string()
                } else {
                    format!("subprotocol {protocol}")
                };
                self.log(format!("WebSocket open ({sub})."));
                for (key, req) in std::mem::take(&mut self.waiting) {
                    self.handle_request(key, req, now);
                }
            }
            WsReport::Text(text) => {
                if let Some(link) = self.link.as_mut() {
                    link.session_mut().handle_message(&text, now);
                }
            }
            WsReport::Binary(len) => self.log(format!(
                "Ignored a binary WebSocket frame ({len} bytes); MCP sends text frames."
            )),
            WsReport::Error => self.log("The WebSocket reported an error."),
            WsReport::Closed {
                code,
                reason,
                was_clean,
            } => {
                let reason = if reason.is_empty() {
                    String::new()
                } else {
                    format!(": {reason}")
                };
                if open {
                    let why = format!(
                        "the WebSocket closed with code {code}{reason}{}",
                        if was_clean {
                            ""
                        } else {
                            ", without a closing handshake"
                        }
                    );
                    self.lose_transport(&why, now);
                } else {
                    self.lost = Some(McpError::Network {
                        message: format!("the WebSocket handshake failed (code {code}{reason})"),
                        // A browser shows a page nothing of a refused handshake, not even
                        // a 401, so a server that wants a sign-in looks like this too; say
                        // it, since a WebSocket from a page cannot carry the token at all.
                        hint: Some("The server may be down, may not serve WebSocket MCP at this URL, refused this page's origin, or require a sign-in: a browser cannot send an Authorization header on a WebSocket, so a server that needs OAuth must be added by its HTTP address.".into()),
                    });
                }
            }
            WsReport::Failed(message) if open => self.lose_transport(&message, now),
            WsReport::Failed(message) => {
                self.lost = Some(McpError::Network {
                    message,
                    hint: None,
                })
            }
        }
        self.finish(now);
    }

    /// A message the in-page server sent back.
    pub fn handle_in_page_message(&mut self, link: LinkId, text: &str, now: f64) {
        if link != self.link_id {
            return;
        }
        if let Some(Link::InPage { session }) = self.link.as_mut() {
            session.handle_message(text, now);
            self.finish(now);
        }
    }
}
