//! One task per MCP server: it owns the server's connection (`Link`), performs what the core
//! asks (fetches, aborts, socket frames, one timer), routes the session's events into the
//! server's `ServerLive` signals, and reconnects after any loss on core's `Backoff` schedule.
//!
//! Everything that happens to a server arrives as a `Msg` on the task's channel: commands from
//! the runner, reports from fetch and socket tasks, timer ticks. Only this task touches the
//! state, so there is no shared mutable state and no re-entrancy; user callbacks (progress)
//! run here too and may safely call back into the runner, which only sends messages.
//!
//! It never re-sends a request by itself: a call in flight when the connection drops fails
//! with the core's error, and reconnecting builds a fresh session.

use std::collections::HashMap;

use futures::channel::{mpsc, oneshot};
use futures::future::{join_all, select};
use futures::StreamExt;
use gloo_timers::callback::Timeout;
use leptos::prelude::Set;
use serde_json::{Map, Value};
use skiff_core::mcp::backoff::{Backoff, Decision, HealthStatus};
use skiff_core::mcp::config::{ServerConfig, TransportChoice};
use skiff_core::mcp::http_client::{ClientAction, HttpClient};
use skiff_core::mcp::http_common::{HttpTarget, Token};
use skiff_core::mcp::{McpError, McpSession, Output, Phase, RequestId, SessionConfig};
use wasm_bindgen_futures::spawn_local;

use super::in_page::InPageServer;
use super::link::{forward_ws, spawn_detached_fetch, FetchEv, Link};
use crate::platform::abort::AbortHandle;
use crate::platform::websocket::{WebSocket, WsEvent, NORMAL_CLOSURE};
use crate::platform::{clock, online, storage};
use crate::stores::mcp::{McpStore, ServerLive};

mod outputs;

/// `localStorage` key of the test-only time scale for reconnect delays (see [`time_scale`]).
pub const TIME_SCALE_KEY: &str = "skiff:test-time-scale";

/// How long a disconnect waits for the server to acknowledge the session DELETE.
const CLOSE_WAIT_MS: u32 = 2_000;

pub(super) type Reply = oneshot::Sender<Result<Value, McpError>>;
pub(super) type Progress = Box<dyn Fn(f64, Option<f64>, Option<String>)>;

/// A caller's request.
pub(super) enum Req {
    Tool {
        name: String,
        args: Map<String, Value>,
    },
    ReadResource {
        uri: String,
    },
    GetPrompt {
        name: String,
        args: Option<Map<String, Value>>,
    },
    Ping,
}

pub(super) enum Msg {
    /// (Re)connect now, with the configuration as it is now; the attempt count starts over.
    Connect,
    /// Connect unless connected, connecting or waiting to reconnect.
    Ensure,
    /// Leave gracefully (DELETE / close); `done` fires once the goodbye was sent.
    Disconnect {
        done: Option<oneshot::Sender<()>>,
    },
    RetryNow,
    Online,
    Request {
        key: u64,
        req: Req,
        reply: Reply,
        progress: Option<Progress>,
    },
    Cancel {
        key: u64,
        reason: Option<String>,
    },
    Fetch {
        gen: u64,
        token: Token,
        ev: FetchEv,
    },
    Ws {
        gen: u64,
        ev: WsEvent,
    },
    Timer {
        gen: u64,
    },
    /// The server was removed: close and end the task.
    Stop,
}

struct Slot {
    key: u64,
    reply: Reply,
    progress: Option<Progress>,
    tool: bool,
}

struct Waiting {
    key: u64,
    req: Req,
    reply: Reply,
    progress: Option<Progress>,
}

pub(super) struct Driver {
    id: String,
    store: McpStore,
    live: ServerLive,
    tx: mpsc::UnboundedSender<Msg>,
    /// The configuration of the current (or last) connection.
    cfg: ServerConfig,
    in_page: Option<Box<dyn InPageServer>>,
    link: Option<Link>,
    /// Bumped whenever a link is dropped, so late reports from its IO tasks are ignored.
    gen: u64,
    aborts: HashMap<Token, AbortHandle>,
    timer: Option<Timeout>,
    timer_at: Option<f64>,
    timer_gen: u64,
    backoff: Backoff,
    /// When the scheduled reconnect happens (already scaled by the test time scale).
    reconnect_at: Option<f64>,
    /// The user wants this server connected (connect / retry / start-up), not disconnected.
    wanted: bool,
    calls: HashMap<RequestId, Slot>,
    keys: HashMap<u64, RequestId>,
    /// Requests made while the WebSocket handshake is still running.
    waiting: Vec<Waiting>,
    /// Ready, and the first `tools/list` has not finished yet.
    listing_tools: bool,
    connected_since: Option<f64>,
    /// The session failed; acted upon once the current batch of outputs is handled.
    lost: Option<McpError>,
    /// The last connection error logged, so repeated attempts do not repeat the sentence.
    last_error: Option<String>,
}

impl Driver {
    pub fn new(
        id: &str,
        store: McpStore,
        tx: mpsc::UnboundedSender<Msg>,
        in_page: Option<(String, Box<dyn InPageServer>)>,
    ) -> Self {
        let (cfg, in_page) = match in_page {
            Some((name, server)) => (ServerConfig::new(id, &name, ""), Some(server)),
            None => (
                store
                    .server(id)
                    .unwrap_or_else(|| ServerConfig::new(id, id, "")),
                None,
            ),
        };
        let live = store.live_for(id).unwrap_or_default();
        Driver {
            id: id.to_string(),
            store,
            live,
            tx,
            backoff: Backoff::new(cfg.max_attempts),
            cfg,
            in_page,
            link: None,
            gen: 0,
            aborts: HashMap::new(),
            timer: None,
            timer_at: None,
            timer_gen: 0,
            reconnect_at: None,
            wanted: false,
            calls: HashMap::new(),
            keys: HashMap::new(),
            waiting: Vec::new(),
            listing_tools: false,
            connected_since: None,
            lost: None,
            last_error: None,
        }
    }

    pub async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Msg>) {
        while let Some(msg) = rx.next().await {
            if !self.handle(msg) {
                break;
            }
        }
    }

    /// Returns false when the task must end.
    fn handle(&mut self, msg: Msg) -> bool {
        let now = clock::now_ms();
        match msg {
            Msg::Connect => {
                self.wanted = true;
                self.refresh_config();
                self.backoff = Backoff::new(self.cfg.max_attempts);
                self.start_connect(now);
            }
            Msg::Ensure => {
                self.wanted = true;
                if self.link.is_none() && self.reconnect_at.is_none() {
                    self.refresh_config();
                    self.backoff = Backoff::new(self.cfg.max_attempts);
                    self.start_connect(now);
                }
            }
            Msg::Disconnect { done } => self.disconnect(done, true, now),
            Msg::RetryNow => {
                self.wanted = true;
                if self.link.is_none() {
                    self.backoff.retry_now(now);
                    self.refresh_config();
                    self.start_connect(now);
                }
            }
            Msg::Online => {
                if self.wanted && self.link.is_none() && self.backoff.online(now) {
                    self.log("The browser is back online: reconnecting now.");
                    self.start_connect(now);
                }
            }
            Msg::Request {
                key,
                req,
                reply,
                progress,
            } => self.request(key, req, reply, progress, now),
            Msg::Cancel { key, reason } => self.cancel(key, reason, now),
            Msg::Fetch { gen, token, ev } if gen == self.gen => self.on_fetch(token, ev, now),
            Msg::Ws { gen, ev } if gen == self.gen => self.on_ws(ev, now),
            Msg::Fetch { .. } | Msg::Ws { .. } => {}
            Msg::Timer { gen } if gen == self.timer_gen => self.on_timer(now),
            Msg::Timer { .. } => {}
            Msg::Stop => {
                // The live entry is gone or taken over by a replacement task: leave it alone.
                self.disconnect(None, false, now);
                self.timer = None;
                return false;
            }
        }
        true
    }

    fn log(&self, line: impl Into<String>) {
        self.live.push_log(line);
    }

    /// Configured servers are re-read at each connect, so an edit takes effect on reconnect.
    fn refresh_config(&mut self) {
        if self.in_page.is_none() {
            if let Some(cfg) = self.store.server(&self.id) {
                self.cfg = cfg;
            }
        }
        if let Some(live) = self.store.live_for(&self.id) {
            self.live = live;
        }
    }

    fn session_config(&self, legacy_only: bool) -> SessionConfig {
        let timeout = self.cfg.request_timeout_ms.max(1) as f64;
        let defaults = SessionConfig::default();
        SessionConfig {
            request_timeout_ms: timeout,
            max_request_ms: defaults.max_request_ms.max(timeout),
            ping_interval_ms: self
                .cfg
                .ping_interval_ms
                .filter(|p| *p > 0)
                .map(|p| p as f64),
            era_cache: self.store.era_cache(&self.id),
            legacy_only,
            ..defaults
        }
    }

    // ---------------------------------------------------------------------------------------
    // connecting and losing

    fn start_connect(&mut self, now: f64) {
        self.abandon("the connection was restarted", now);
        self.reconnect_at = None;
        // Clears Backoff's own pending retry, so `online` only fires while one is waiting.
        self.backoff.take_due(f64::INFINITY);
        self.lost = None;
        if self.in_page.is_some() {
            let mut config = self.session_config(true);
            config.ping_interval_ms = None;
            config.era_cache = None;
            let mut session = McpSession::new(config);
            session.connect(now);
            self.link = Some(Link::InPage { session });
        } else {
            self.log(format!("Connecting to {} …", self.cfg.url));
            match self.cfg.effective_transport() {
                TransportChoice::WebSocket => self.open_socket(),
                choice => {
                    let target = HttpTarget {
                        url: self.cfg.url.trim().to_string(),
                        headers: self.cfg.headers.clone(),
                        proxy: self.cfg.proxy.clone().filter(|p| !p.trim().is_empty()),
                        page_is_https: online::page_is_https(),
                    };
                    let mut client = HttpClient::new(target, choice, self.session_config(false));
                    client.connect(now);
                    self.link = Some(Link::Http(Box::new(client)));
                }
            }
        }
        if let Some(link) = &self.link {
            self.live.transport.set(Some(link.label().to_string()));
        }
        self.drain(now);
    }

    fn open_socket(&mut self) {
        if !self.cfg.headers.is_empty() {
            self.log("Browsers cannot send custom headers on a WebSocket; this server's headers are not sent. Put a token in the URL if the server accepts one.");
        }
        if self
            .cfg
            .proxy
            .as_deref()
            .is_some_and(|p| !p.trim().is_empty())
        {
            self.log("The CORS proxy is not used for WebSocket servers (WebSockets are not subject to CORS).");
        }
        match WebSocket::connect(self.cfg.url.trim(), &["mcp"]) {
            Ok(mut socket) => {
                if let Some(events) = socket.take_events() {
                    forward_ws(self.tx.clone(), self.gen, events);
                }
                let session = McpSession::new(self.session_config(true));
                self.link = Some(Link::Ws {
                    session,
                    socket,
                    open: false,
                });
            }
            Err(e) => {
                self.lost = Some(McpError::Network {
                    message: e.to_string(),
                    hint: None,
                });
            }
        }
    }

    /// Drop the current link on purpose (reconnect, disconnect): its in-flight requests fail
    /// the way a lost connection fails them, and nothing is re-sent.
    fn abandon(&mut self, reason: &str, now: f64) {
        if let Some(link) = self.link.as_mut() {
            let phase_ok = !matches!(link.session().phase(), Phase::Failed(_) | Phase::Idle);
            if phase_ok {
                link.session_mut().transport_lost(reason, now);
                self.drain_events_only(now);
            }
        }
        self.teardown(&McpError::ConnectionLost {
            reason: reason.to_string(),
            in_flight_tool: true,
        });
        self.lost = None;
    }

    /// Handle the session's pending outputs without sending anything (the link is going away).
    fn drain_events_only(&mut self, now: f64) {
        let mut events = Vec::new();
        match self.link.as_mut() {
            Some(Link::Http(c)) => {
                c.pump(now);
                while let Some(a) = c.poll_action() {
                    match a {
                        ClientAction::Event(e) => events.push(e),
                        ClientAction::Abort(t) => {
                            if let Some(h) = self.aborts.remove(&t) {
                                h.abort();
                            }
                        }
                        ClientAction::Fetch { .. } => {}
                    }
                }
            }
            Some(link) => {
                while let Some(out) = link.session_mut().poll_output() {
                    if let Output::Event(e) = out {
                        events.push(e);
                    }
                }
            }
            None => {}
        }
        for e in events {
            self.on_event(e, now);
        }
    }

    /// Forget the link and everything tied to it. Calls still unanswered fail with `error`.
    fn teardown(&mut self, error: &McpError) {
        self.gen += 1;
        for (_, h) in self.aborts.drain() {
            h.abort();
        }
        self.link = None;
        self.listing_tools = false;
        self.connected_since = None;
        for (_, slot) in self.calls.drain() {
            let e = match error {
                McpError::ConnectionLost { reason, .. } => McpError::ConnectionLost {
                    reason: reason.clone(),
                    in_flight_tool: slot.tool,
                },
                other => other.clone(),
            };
            let _ = slot.reply.send(Err(e));
        }
        self.keys.clear();
        // Never sent, so they cannot have run.
        let unsent = match error {
            McpError::ConnectionLost { reason, .. } => McpError::ConnectionLost {
                reason: reason.clone(),
                in_flight_tool: false,
            },
            other => other.clone(),
        };
        for w in self.waiting.drain(..) {
            let _ = w.reply.send(Err(unsent.clone()));
        }
    }

    /// The connection failed or dropped: schedule the reconnect, or give up.
    fn on_lost(&mut self, error: McpError, now: f64) {
        self.teardown(&error);
        let text = error.to_string();
        if self.last_error.as_deref() == Some(text.as_str()) {
            self.log("Failed again, the same way.");
        } else {
            self.log(text.clone());
            self.last_error = Some(text);
        }
        if !self.wanted {
            self.live.set_status(HealthStatus::Error {
                message: error.to_string(),
            });
            return;
        }
        if retry_cannot_help(&error) {
            self.reconnect_at = None;
            self.live.set_status(HealthStatus::Error {
                message: error.to_string(),
            });
            return;
        }
        match self.backoff.on_failure(now) {
            Decision::RetryAt { at_ms, attempt } => {
                let at = now + (at_ms - now).max(0.0) * time_scale();
                self.reconnect_at = Some(at);
                self.live
                    .set_status(HealthStatus::Reconnecting { at_ms: at, attempt });
                self.log(format!(
                    "Reconnecting in {} (attempt {attempt}).",
                    describe_delay(at - now)
                ));
            }
            Decision::GiveUp => {
                self.reconnect_at = None;
                let tries = self.backoff.failures().saturating_sub(1);
                let message = format!(
                    "{error} Gave up after {tries} reconnect attempt{}; press \"Retry now\" to try again.",
                    if tries == 1 { "" } else { "s" }
                );
                self.log(message.clone());
                self.live.set_status(HealthStatus::Error { message });
            }
        }
    }

    /// `report`: show the outcome in the server's status and log.
    fn disconnect(&mut self, done: Option<oneshot::Sender<()>>, report: bool, now: f64) {
        self.wanted = false;
        self.reconnect_at = None;
        self.backoff.take_due(f64::INFINITY);
        let had_link = self.link.is_some();
        let mut goodbyes = Vec::new();
        let mut events = Vec::new();
        match self.link.as_mut() {
            Some(Link::Http(c)) => {
                c.close(now);
                while let Some(a) = c.poll_action() {
                    match a {
                        ClientAction::Fetch { request, .. } => {
                            goodbyes.push(spawn_detached_fetch(request))
                        }
                        ClientAction::Abort(t) => {
                            if let Some(h) = self.aborts.remove(&t) {
                                h.abort();
                            }
                        }
                        ClientAction::Event(e) => events.push(e),
                    }
                }
            }
            Some(Link::Ws {
                session, socket, ..
            }) => {
                session.close(now);
                while let Some(out) = session.poll_output() {
                    if let Output::Event(e) = out {
                        events.push(e);
                    }
                }
                socket.close(NORMAL_CLOSURE, "client disconnect");
            }
            Some(Link::InPage { session }) => {
                session.close(now);
                while let Some(out) = session.poll_output() {
                    if let Output::Event(e) = out {
                        events.push(e);
                    }
                }
            }
            None => {}
        }
        for e in events {
            self.on_event(e, now);
        }
        self.teardown(&McpError::Cancelled {
            reason: Some("disconnected".into()),
        });
        self.lost = None;
        if report {
            self.live.set_status(HealthStatus::Idle);
            if had_link {
                self.log("Disconnected.");
            }
        }
        self.rearm(now);
        if let Some(done) = done {
            spawn_local(async move {
                let all = Box::pin(join_all(goodbyes));
                let cap = Box::pin(clock::sleep_ms(CLOSE_WAIT_MS));
                let _ = select(all, cap).await;
                let _ = done.send(());
            });
        }
    }

    // ---------------------------------------------------------------------------------------
    // requests

    fn request(&mut self, key: u64, req: Req, reply: Reply, progress: Option<Progress>, now: f64) {
        match self.link.as_mut() {
            None => {
                let _ = reply.send(Err(McpError::NotConnected));
            }
            Some(Link::Ws { open: false, .. }) => self.waiting.push(Waiting {
                key,
                req,
                reply,
                progress,
            }),
            Some(link) => {
                let session = link.session_mut();
                let (id, tool) = match req {
                    Req::Tool { name, args } => {
                        (session.call_tool(&name, Some(args), true, now), true)
                    }
                    Req::ReadResource { uri } => (session.read_resource(&uri, now), false),
                    Req::GetPrompt { name, args } => (session.get_prompt(&name, args, now), false),
                    Req::Ping => (session.ping(now), false),
                };
                self.keys.insert(key, id.clone());
                self.calls.insert(
                    id,
                    Slot {
                        key,
                        reply,
                        progress,
                        tool,
                    },
                );
                self.drain(now);
            }
        }
    }

    fn cancel(&mut self, key: u64, reason: Option<String>, now: f64) {
        if let Some(pos) = self.waiting.iter().position(|w| w.key == key) {
            let w = self.waiting.remove(pos);
            let _ = w.reply.send(Err(McpError::Cancelled { reason }));
            return;
        }
        let Some(id) = self.keys.get(&key).cloned() else {
            return;
        };
        if let Some(link) = self.link.as_mut() {
            link.session_mut().cancel(&id, reason.as_deref(), now);
            self.drain(now);
        }
    }

    // ---------------------------------------------------------------------------------------
    // IO reports

    fn on_fetch(&mut self, token: Token, ev: FetchEv, now: f64) {
        let Some(Link::Http(client)) = self.link.as_mut() else {
            return;
        };
        match ev {
            FetchEv::Head { status, headers } => client.on_head(token, status, &headers, now),
            FetchEv::Chunk(bytes) => client.on_chunk(token, &bytes, now),
            FetchEv::End => {
                self.aborts.remove(&token);
                client.on_end(token, now);
            }
            FetchEv::Error(message) => {
                self.aborts.remove(&token);
                client.on_fetch_error(token, &message, now);
            }
        }
        self.drain(now);
    }

    fn on_ws(&mut self, ev: WsEvent, now: f64) {
        let open = match self.link.as_ref() {
            Some(Link::Ws { open, .. }) => *open,
            _ => return,
        };
        match ev {
            WsEvent::Open { protocol } => {
                if let Some(Link::Ws { session, open, .. }) = self.link.as_mut() {
                    *open = true;
                    session.connect(now);
                }
                let sub = if protocol.is_empty() {
                    "no subprotocol".to_string()
                } else {
                    format!("subprotocol {protocol}")
                };
                self.log(format!("WebSocket open ({sub})."));
                for w in std::mem::take(&mut self.waiting) {
                    self.request(w.key, w.req, w.reply, w.progress, now);
                }
            }
            WsEvent::Text(text) => {
                if let Some(link) = self.link.as_mut() {
                    link.session_mut().handle_message(&text, now);
                }
            }
            WsEvent::Binary(bytes) => self.log(format!(
                "Ignored a binary WebSocket frame ({} bytes); MCP sends text frames.",
                bytes.len()
            )),
            WsEvent::Error => self.log("The WebSocket reported an error."),
            WsEvent::Closed {
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
                    if let Some(link) = self.link.as_mut() {
                        link.session_mut().transport_lost(&why, now);
                    }
                } else {
                    self.lost = Some(McpError::Network {
                        message: format!("the WebSocket handshake failed (code {code}{reason})"),
                        hint: Some("The server may be down, may not serve WebSocket MCP at this URL, or refused this page's origin.".into()),
                    });
                }
            }
        }
        self.drain(now);
    }

    fn on_timer(&mut self, now: f64) {
        self.timer = None;
        self.timer_at = None;
        if let Some(link) = self.link.as_mut() {
            link.handle_timeout(now);
        }
        if self.reconnect_at.is_some_and(|t| t <= now) {
            self.reconnect_at = None;
            self.refresh_config();
            self.start_connect(now);
            return;
        }
        self.drain(now);
    }
}

fn describe_delay(ms: f64) -> String {
    if ms < 1_000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.1} s", ms / 1_000.0)
    }
}

/// Failures a reconnect cannot fix: wrong credentials and no common protocol version. The
/// status shows the error until the user edits the server or presses "Retry now".
fn retry_cannot_help(error: &McpError) -> bool {
    matches!(
        error,
        McpError::Auth { .. } | McpError::UnsupportedVersion { .. }
    )
}

/// Test-only: reconnect delays are multiplied by `localStorage["skiff:test-time-scale"]`
/// (a positive number; default 1.0, so never on unless a test sets it). E2E tests set e.g.
/// 0.05 to see the 1-2-4-8 s schedule in 50-100-200-400 ms. The status line shows the scaled
/// time, so what it says is what happens.
pub fn time_scale() -> f64 {
    storage::get(TIME_SCALE_KEY)
        .ok()
        .flatten()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|f| f.is_finite() && *f > 0.0)
        .unwrap_or(1.0)
}
