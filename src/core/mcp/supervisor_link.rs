//! One live connection to an MCP server, whatever carries it: Streamable HTTP or HTTP+SSE
//! (`HttpClient`), a WebSocket, or a server in the page. All three are one enum so the
//! supervisor decides health, reconnects and teardown once for every transport.
//!
//! A `Link` lives for one connection attempt; when it is lost it is dropped whole and a new one
//! is built, so nothing of a dead session (ids, session id, half-read streams) leaks into the
//! next. It performs no IO: draining it turns the session's outputs into `Action`s.

use super::http_client::{ClientAction, HttpClient};
use super::session::McpSession;
use super::session_types::{Output, SessionEvent};
use super::supervisor_types::{Action, LinkId};

pub(super) enum Link {
    /// Boxed: the HTTP client state is far larger than a session.
    Http(Box<HttpClient>),
    Ws {
        session: McpSession,
        /// The socket's handshake finished; until then requests wait in the supervisor.
        open: bool,
    },
    InPage {
        session: McpSession,
    },
}

impl Link {
    pub(super) fn session(&self) -> &McpSession {
        match self {
            Link::Http(c) => c.session(),
            Link::Ws { session, .. } | Link::InPage { session } => session,
        }
    }

    pub(super) fn session_mut(&mut self) -> &mut McpSession {
        match self {
            Link::Http(c) => c.session_mut(),
            Link::Ws { session, .. } | Link::InPage { session } => session,
        }
    }

    pub(super) fn next_deadline(&self) -> Option<f64> {
        match self {
            Link::Http(c) => c.next_deadline(),
            other => other.session().next_deadline(),
        }
    }

    pub(super) fn handle_timeout(&mut self, now_ms: f64) {
        match self {
            Link::Http(c) => c.handle_timeout(now_ms),
            other => other.session_mut().handle_timeout(now_ms),
        }
    }

    /// What the status line calls this transport.
    pub(super) fn label(&self) -> &'static str {
        match self {
            Link::Http(c) if c.uses_legacy_sse() => "HTTP+SSE (deprecated)",
            Link::Http(_) => "Streamable HTTP",
            Link::Ws { .. } => "WebSocket",
            Link::InPage { .. } => "in-page",
        }
    }

    /// Move what the session and transport produced into `actions` (IO) and `events` (for
    /// the supervisor). With `quiet`, nothing is sent: the link is going away.
    pub(super) fn drain(
        &mut self,
        id: LinkId,
        now_ms: f64,
        quiet: bool,
        actions: &mut Vec<Action>,
        events: &mut Vec<SessionEvent>,
    ) {
        match self {
            Link::Http(c) => {
                c.pump(now_ms);
                while let Some(a) = c.poll_action() {
                    match a {
                        ClientAction::Fetch { token, request, .. } if !quiet => {
                            actions.push(Action::Fetch {
                                link: id,
                                token,
                                request,
                            })
                        }
                        ClientAction::Fetch { .. } => {}
                        ClientAction::Abort(token) => {
                            actions.push(Action::Abort { link: id, token })
                        }
                        ClientAction::Event(e) => events.push(e),
                    }
                }
            }
            Link::Ws { session, .. } => {
                while let Some(out) = session.poll_output() {
                    match out {
                        Output::Send(text, _) if !quiet => {
                            actions.push(Action::SendFrame { link: id, text })
                        }
                        // One socket carries every request: nothing to close per request; the
                        // session already sent notifications/cancelled.
                        Output::Send(..) | Output::Abort(_) => {}
                        Output::Event(e) => events.push(e),
                    }
                }
            }
            Link::InPage { session } => {
                while let Some(out) = session.poll_output() {
                    match out {
                        Output::Send(text, _) if !quiet => {
                            actions.push(Action::ToInPage { link: id, text })
                        }
                        Output::Send(..) | Output::Abort(_) => {}
                        Output::Event(e) => events.push(e),
                    }
                }
            }
        }
    }
}
