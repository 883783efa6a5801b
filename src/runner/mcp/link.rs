//! One live connection to an MCP server, whatever carries it, and the IO that feeds it: the
//! streamed fetches of the HTTP transports and the WebSocket's event forwarder.
//!
//! A `Link` lives for one connection attempt. When it is lost it is dropped whole and a new
//! one is built, so nothing of a dead session (ids, session id, half-read streams) can leak
//! into the next. Every IO task tags what it reports with the generation of the link that
//! started it; the driver drops reports from older generations.

use futures::channel::{mpsc, oneshot};
use futures::StreamExt;
use skiff_core::http::HttpRequest;
use skiff_core::mcp::http_client::HttpClient;
use skiff_core::mcp::http_common::Token;
use skiff_core::mcp::McpSession;
use wasm_bindgen_futures::spawn_local;

use super::driver::Msg;
use crate::platform::abort::AbortHandle;
use crate::platform::fetch::{self, FetchError};
use crate::platform::websocket::{WebSocket, WsEvent};

pub(super) enum Link {
    /// Boxed: the HTTP client state is far larger than a session.
    Http(Box<HttpClient>),
    Ws {
        session: McpSession,
        socket: WebSocket,
        /// The handshake finished; until then requests wait in the driver.
        open: bool,
    },
    InPage {
        session: McpSession,
    },
}

impl Link {
    pub fn session(&self) -> &McpSession {
        match self {
            Link::Http(c) => c.session(),
            Link::Ws { session, .. } | Link::InPage { session } => session,
        }
    }

    pub fn session_mut(&mut self) -> &mut McpSession {
        match self {
            Link::Http(c) => c.session_mut(),
            Link::Ws { session, .. } | Link::InPage { session } => session,
        }
    }

    pub fn next_deadline(&self) -> Option<f64> {
        match self {
            Link::Http(c) => c.next_deadline(),
            other => other.session().next_deadline(),
        }
    }

    pub fn handle_timeout(&mut self, now_ms: f64) {
        match self {
            Link::Http(c) => c.handle_timeout(now_ms),
            other => other.session_mut().handle_timeout(now_ms),
        }
    }

    /// What the status line calls this transport.
    pub fn label(&self) -> &'static str {
        match self {
            Link::Http(c) if c.uses_legacy_sse() => "HTTP+SSE (deprecated)",
            Link::Http(_) => "Streamable HTTP",
            Link::Ws { .. } => "WebSocket",
            Link::InPage { .. } => "in-page",
        }
    }
}

/// What a fetch reported, for `HttpClient::on_head/on_chunk/on_end/on_fetch_error`.
pub(super) enum FetchEv {
    Head {
        status: u16,
        headers: Vec<(String, String)>,
    },
    Chunk(Vec<u8>),
    End,
    /// The browser's own words only: the core adds the diagnosis (CORS, mixed content).
    Error(String),
}

fn browser_detail(e: FetchError) -> String {
    match e {
        FetchError::Network(d) | FetchError::Stream(d) | FetchError::Browser(d) => d,
        FetchError::Aborted => "the request was stopped".into(),
    }
}

/// Perform one exchange, streaming its body back to the driver chunk by chunk. An abort we
/// asked for is silent: the core already knows.
pub(super) fn spawn_fetch(
    tx: mpsc::UnboundedSender<Msg>,
    gen: u64,
    token: Token,
    request: HttpRequest,
    abort: AbortHandle,
) {
    spawn_local(async move {
        let report = |ev: FetchEv| tx.unbounded_send(Msg::Fetch { gen, token, ev }).is_ok();
        let mut response = match fetch::send(&request, Some(&abort)).await {
            Ok(r) => r,
            Err(FetchError::Aborted) => return,
            Err(e) => {
                report(FetchEv::Error(browser_detail(e)));
                return;
            }
        };
        let head = FetchEv::Head {
            status: response.status,
            headers: response.headers.clone(),
        };
        if !report(head) {
            return;
        }
        loop {
            match response.next_chunk().await {
                Ok(Some(bytes)) => {
                    if !report(FetchEv::Chunk(bytes)) {
                        return;
                    }
                }
                Ok(None) => {
                    report(FetchEv::End);
                    return;
                }
                Err(FetchError::Aborted) => return,
                Err(e) => {
                    report(FetchEv::Error(browser_detail(e)));
                    return;
                }
            }
        }
    });
}

/// Perform a request whose answer nobody reads (the session DELETE on disconnect); `done`
/// fires when it finished either way.
pub(super) fn spawn_detached_fetch(request: HttpRequest) -> oneshot::Receiver<()> {
    let (done, finished) = oneshot::channel();
    spawn_local(async move {
        if let Ok(response) = fetch::send(&request, None).await {
            let _ = response.text().await;
        }
        let _ = done.send(());
    });
    finished
}

/// Forward a socket's events to the driver, tagged with the link's generation.
pub(super) fn forward_ws(
    tx: mpsc::UnboundedSender<Msg>,
    gen: u64,
    mut events: mpsc::UnboundedReceiver<WsEvent>,
) {
    spawn_local(async move {
        while let Some(ev) = events.next().await {
            if tx.unbounded_send(Msg::Ws { gen, ev }).is_err() {
                return;
            }
        }
    });
}
