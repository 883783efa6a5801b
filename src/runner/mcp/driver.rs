//! One task per MCP server: a thin loop around core's `Supervisor`. It hands the supervisor
//! what happened (commands from the runner, fetch and socket reports, its one timer) and
//! performs what it asks: fetches, aborts, sockets, in-page messages, writes to the server's
//! `ServerLive` signals, replies to callers.
//!
//! Everything that happens to a server arrives as a `Msg` on the task's channel, so only this
//! task touches the supervisor: no shared mutable state, no re-entrancy. User callbacks
//! (progress) run here too and may safely call back into the runner, which only sends
//! messages. It must never decide anything itself (reconnects, health, which error a call
//! gets): that belongs in the supervisor, where native tests reach it.

use skiff_core::records::task::TaskRef;
use skiff_core::small_map::SmallMap;

use futures::channel::{mpsc, oneshot};
use futures::future::{join_all, select};
use futures::StreamExt;
use gloo_timers::callback::Timeout;
use leptos::prelude::{RwSignal, Set};
use serde_json::{json, Value};
use skiff_core::http::{HttpRequest, Method};
use skiff_core::mcp::ask_ui::roots_key;
use skiff_core::mcp::config::ServerConfig;
use skiff_core::mcp::elicit::COMPLETE_NOTIFICATION;
use skiff_core::mcp::held_ask::HeldAsk;
use skiff_core::mcp::http_common::Token;
use skiff_core::mcp::icon::{self, IconSource};
use skiff_core::mcp::kept_session;
use skiff_core::mcp::session::ROOTS_METHOD;
use skiff_core::mcp::{
    Action, CallKey, ElicitKey, LinkId, McpError, ServerKind, Setup, Supervisor, WsReport,
};
use wasm_bindgen_futures::spawn_local;

use super::in_page::InPageServer;
use super::link::{forward_ws, spawn_detached_fetch, spawn_fetch, FetchEv};
use crate::platform::abort::AbortHandle;
use crate::platform::websocket::{WebSocket, WsEvent};
use crate::platform::{clock, fetch, online, popup, storage};
use crate::stores::mcp::{AskEvent, McpStore, ServerLive};
use crate::stores::notices::{Level, MCP_DOWN_KEY};

pub(super) use skiff_core::mcp::Request as Req;

/// The notification of a subscribed resource's change.
const RESOURCE_UPDATED: &str = "notifications/resources/updated";

/// How long a disconnect waits for the server to acknowledge the session DELETE.
const CLOSE_WAIT_MS: u32 = 2_000;

pub(super) type Reply = oneshot::Sender<Result<Value, McpError>>;
pub(super) type Progress = Box<dyn Fn(f64, Option<f64>, Option<String>)>;
/// Hears the task behind a tool call each time it is created or changes status.
pub(super) type OnTask = Box<dyn Fn(TaskRef)>;

pub(super) enum Msg {
    /// (Re)connect now, with the configuration as it is now; the attempt count starts over.
    Connect,
    /// Connect unless connected, connecting or waiting to reconnect.
    Ensure,
    /// Leave gracefully (DELETE / close); `done` fires once the goodbye was sent.
    Disconnect {
        done: Option<oneshot::Sender<()>>,
    },
    /// The page is going away: leave, keeping a session a task runs on (no DELETE).
    LeavePage,
    RetryNow,
    Online,
    Offline,
    Request {
        key: u64,
        req: Req,
        reply: Reply,
        progress: Option<Progress>,
        on_task: Option<OnTask>,
    },
    Cancel {
        key: u64,
        reason: Option<String>,
    },
    Fetch {
        link: LinkId,
        token: Token,
        ev: FetchEv,
    },
    Ws {
        link: LinkId,
        ev: WsEvent,
    },
    Timer {
        gen: u64,
    },
    /// The page answered the server's held request `key` (sampling, roots).
    AskAnswer {
        key: ElicitKey,
        answer: Result<Value, (i64, String)>,
    },
    Notify(&'static str),
    /// The server was removed: close and end the task.
    Stop,
}

pub(super) struct Driver {
    id: String,
    store: McpStore,
    live: ServerLive,
    tx: mpsc::UnboundedSender<Msg>,
    /// The in-page server's name and the server itself, for built-in servers.
    in_page: Option<(String, Box<dyn InPageServer>)>,
    sup: Supervisor,
    /// The configuration last handed to the supervisor (a removed server keeps its last one).
    config: ServerConfig,
    callers: SmallMap<CallKey, (Reply, Option<Progress>, Option<OnTask>)>,
    aborts: SmallMap<(LinkId, Token), AbortHandle>,
    sockets: SmallMap<LinkId, WebSocket>,
    /// Session DELETEs sent by the current batch of actions (awaited by `Disconnect`).
    goodbyes: Vec<oneshot::Receiver<()>>,
    timer: Option<Timeout>,
    timer_at: Option<f64>,
    timer_gen: u64,
}

impl Driver {
    pub fn new(
        id: &str,
        store: McpStore,
        tx: mpsc::UnboundedSender<Msg>,
        in_page: Option<(String, Box<dyn InPageServer>)>,
    ) -> Self {
        let (kind, config) = match &in_page {
            Some((name, _)) => (ServerKind::InPage, ServerConfig::new(id, name, "")),
            None => (
                ServerKind::Remote,
                store
                    .server(id)
                    .unwrap_or_else(|| ServerConfig::new(id, id, "")),
            ),
        };
        let live = store.live_for(id).unwrap_or_default();
        let setup = Setup {
            config: config.clone(),
            era_cache: None,
            page_is_https: online::page_is_https(),
        };
        let mut sup = Supervisor::new(kind, setup);
        if kind == ServerKind::Remote {
            // The session this tab kept before a reload; the supervisor decides whether
            // to take it up.
            sup.offer_kept_session(popup::session_get(&kept_session::storage_key(id)));
        }
        Driver {
            id: id.to_string(),
            store,
            live,
            tx,
            in_page,
            sup,
            config,
            callers: SmallMap::new(),
            aborts: SmallMap::new(),
            sockets: SmallMap::new(),
            goodbyes: Vec::new(),
            timer: None,
            timer_at: None,
            timer_gen: 0,
        }
    }

    pub async fn run(mut self, mut rx: mpsc::UnboundedReceiver<Msg>) {
        while let Some(msg) = rx.next().await {
            if !self.handle(msg) {
                break;
            }
        }
    }

    /// Configured servers are re-read each time, so an edit takes effect on (re)connect.
    fn refresh_setup(&mut self) {
        if self.in_page.is_none() {
            if let Some(cfg) = self.store.server(&self.id) {
                self.config = cfg;
            }
        }
        if let Some(live) = self.store.live_for(&self.id) {
            self.live = live;
        }
        self.sup.set_setup(Setup {
            config: self.config.clone(),
            era_cache: self
                .in_page
                .is_none()
                .then(|| self.store.era_cache(&self.id))
                .flatten(),
            page_is_https: online::page_is_https(),
        });
    }

    /// Returns false when the task must end.
    fn handle(&mut self, msg: Msg) -> bool {
        let now = clock::now_ms();
        let mut done = None;
        let mut keep = true;
        match msg {
            Msg::Connect => {
                self.refresh_setup();
                self.sup.handle_connect(now);
            }
            Msg::Ensure => {
                self.refresh_setup();
                self.sup.handle_ensure(now);
            }
            Msg::RetryNow => {
                self.refresh_setup();
                self.sup.handle_retry_now(now);
            }
            Msg::Online => {
                self.refresh_setup();
                self.sup.handle_online(now);
            }
            Msg::Offline => self.sup.handle_offline(now),
            Msg::Disconnect { done: d } => {
                done = d;
                self.sup.handle_disconnect(now);
            }
            Msg::LeavePage => self.sup.handle_leave_page(now),
            Msg::Request {
                key,
                req,
                reply,
                progress,
                on_task,
            } => {
                self.callers.insert(key, (reply, progress, on_task));
                self.sup.handle_request(key, req, now);
            }
            Msg::Cancel { key, reason } => self.sup.handle_cancel(key, reason, now),
            Msg::AskAnswer { key, answer } => self.sup.handle_ask_answer(key, answer, now),
            Msg::Notify(method) => self.sup.handle_notify(method, now),
            Msg::Fetch { link, token, ev } => match ev {
                FetchEv::Head { status, headers } => self
                    .sup
                    .handle_fetch_head(link, token, status, &headers, now),
                FetchEv::Chunk(bytes) => self.sup.handle_fetch_chunk(link, token, &bytes, now),
                FetchEv::End => {
                    self.aborts.remove(&(link, token));
                    self.sup.handle_fetch_end(link, token, now);
                }
                FetchEv::Error(message) => {
                    self.aborts.remove(&(link, token));
                    self.sup.handle_fetch_error(link, token, &message, now);
                }
                FetchEv::RedirectRefused { to } => {
                    self.aborts.remove(&(link, token));
                    self.sup.handle_fetch_redirect_refused(link, token, to, now);
                }
            },
            Msg::Ws { link, ev } => self.sup.handle_ws(link, ws_report(ev), now),
            Msg::Timer { gen } if gen == self.timer_gen => {
                self.timer = None;
                self.timer_at = None;
                self.refresh_setup();
                self.sup.handle_timeout(now);
            }
            Msg::Timer { .. } => {}
            Msg::Stop => {
                // The live entry is gone or taken over by a replacement task: leave it alone.
                self.sup.handle_remove(now);
                self.store.notices.clear_key(&failure_key(&self.id));
                keep = false;
            }
        }
        self.perform(now, keep);
        if keep {
            self.rearm(now);
        } else {
            self.timer = None;
        }
        let goodbyes = std::mem::take(&mut self.goodbyes);
        if let Some(done) = done {
            spawn_local(async move {
                let all = Box::pin(join_all(goodbyes));
                let cap = Box::pin(clock::sleep_ms(CLOSE_WAIT_MS));
                let _ = select(all, cap).await;
                let _ = done.send(());
            });
        }
        keep
    }

    /// Perform everything the supervisor asks until it is quiet. `show`: write to the live
    /// signals (not after `Stop`, when they belong to nobody or to a replacement task).
    fn perform(&mut self, now: f64, show: bool) {
        while let Some(action) = self.sup.poll_action() {
            match action {
                Action::Fetch {
                    link,
                    token,
                    request,
                } => match AbortHandle::new() {
                    Ok(handle) => {
                        self.aborts.insert((link, token), handle.clone());
                        let server = self.id.clone();
                        spawn_fetch(self.tx.clone(), link, token, request, handle, server);
                    }
                    Err(e) => self
                        .sup
                        .handle_fetch_error(link, token, &e.to_string(), now),
                },
                Action::Abort { link, token } => {
                    if let Some(h) = self.aborts.remove(&(link, token)) {
                        h.abort();
                    }
                }
                Action::Goodbye(request) => self.goodbyes.push(spawn_detached_fetch(request)),
                Action::OpenSocket {
                    link,
                    url,
                    protocols,
                } => {
                    let protocols: Vec<&str> = protocols.iter().map(String::as_str).collect();
                    match WebSocket::connect(&url, &protocols) {
                        Ok(mut socket) => {
                            if let Some(events) = socket.take_events() {
                                forward_ws(self.tx.clone(), link, events);
                            }
                            self.sockets.insert(link, socket);
                        }
                        Err(e) => self
                            .sup
                            .handle_ws(link, WsReport::Failed(e.to_string()), now),
                    }
                }
                Action::SendFrame { link, text } => {
                    let sent = match self.sockets.get(&link) {
                        Some(socket) => socket.send_text(&text).map_err(|e| e.to_string()),
                        None => Err("the WebSocket is gone".to_string()),
                    };
                    if let Err(why) = sent {
                        self.sup.handle_ws(link, WsReport::Failed(why), now);
                    }
                }
                Action::CloseSocket { link, code, reason } => {
                    if let Some(socket) = self.sockets.remove(&link) {
                        socket.close(code, &reason);
                    }
                }
                Action::ToInPage { link, text } => {
                    let answers = match self.in_page.as_mut() {
                        Some((_, server)) => server.handle(&text),
                        None => Vec::new(),
                    };
                    for answer in answers {
                        self.sup.handle_in_page_message(link, &answer, now);
                    }
                }
                Action::DropLink(link) => {
                    self.aborts.retain(|(l, _), h| {
                        if *l == link {
                            h.abort();
                        }
                        *l != link
                    });
                    // Dropping the socket closes it and detaches its handlers.
                    self.sockets.remove(&link);
                }
                Action::Task { key, task } => {
                    if let Some(f) = self.callers.get(&key).and_then(|c| c.2.as_ref()) {
                        f(task);
                    }
                }
                Action::Reply { key, result } => {
                    if let Some((reply, ..)) = self.callers.remove(&key) {
                        let _ = reply.send(result);
                    }
                }
                Action::Progress {
                    key,
                    progress,
                    total,
                    message,
                } => {
                    if let Some(f) = self.callers.get(&key).and_then(|c| c.1.as_ref()) {
                        f(progress, total, message);
                    }
                }
                Action::ElicitGone { key } if show => self.store.inbox.about_ask(AskEvent::Gone {
                    server: self.id.clone(),
                    key,
                }),
                Action::AskSettled { key } if show => {
                    self.store.inbox.about_ask(AskEvent::Settled {
                        server: self.id.clone(),
                        key,
                    })
                }
                // Roots are stored by the roots editor as the answer itself, so the runner
                // answers without any surface; sampling and elicitation wait for the user's
                // card (`ui::mcp::asks`).
                Action::Ask {
                    key,
                    method,
                    params,
                    raw,
                } if show => {
                    if method == ROOTS_METHOD {
                        let stored = storage::get(&roots_key(&self.id));
                        let roots = stored
                            .ok()
                            .flatten()
                            .and_then(|s| serde_json::from_str(&s).ok())
                            .unwrap_or_else(|| json!({"roots": []}));
                        let _ = self.tx.unbounded_send(Msg::AskAnswer {
                            key,
                            answer: Ok(roots),
                        });
                    } else {
                        self.store.inbox.held(HeldAsk {
                            server: self.id.clone(),
                            name: self
                                .store
                                .server_name(&self.id)
                                .unwrap_or_else(|| self.id.clone()),
                            key,
                            method,
                            params,
                            raw: raw.unwrap_or_default(),
                        });
                    }
                }
                Action::Notified { method, params } if show => match method.as_str() {
                    RESOURCE_UPDATED => {
                        if let Some(uri) = params.get("uri").and_then(Value::as_str) {
                            self.store.inbox.updated(&self.id, uri);
                        }
                    }
                    COMPLETE_NOTIFICATION => self.store.inbox.about_ask(AskEvent::Completed {
                        server: self.id.clone(),
                        params,
                    }),
                    _ => {}
                },
                Action::FailureNotice(text) if show => {
                    let key = failure_key(&self.id);
                    self.store
                        .notices
                        .push_keyed(Level::Warning, text, Some(&key));
                }
                Action::Recovered if show => self.store.notices.clear_key(&failure_key(&self.id)),
                Action::EraDetected(cache) if show => {
                    self.store.set_era_cache(&self.id, Some(cache))
                }
                // Also after `Stop`: a removed server's session must not outlive it.
                Action::KeepSession(record) => {
                    let key = kept_session::storage_key(&self.id);
                    match record {
                        // A tab that cannot keep it starts a fresh session after a reload.
                        Some(text) => {
                            let _ = popup::session_set(&key, &text);
                        }
                        None => popup::session_remove(&key),
                    }
                }
                other if show => self.show(other),
                _ => {}
            }
        }
    }

    /// Write a supervisor's verdict into the server's live signals.
    fn show(&self, action: Action) {
        let live = &self.live;
        match action {
            Action::Status(status) => live.set_status(status),
            Action::Transport(label) => live.transport.set(Some(label.to_string())),
            Action::Log(line) => live.push_log(line),
            Action::Checked(at) => live.checked(at),
            Action::Negotiated {
                era,
                version,
                server_info,
                instructions,
                icon,
                capabilities,
            } => {
                live.capabilities.set(capabilities);
                live.negotiated.set(Some((era, version)));
                live.server_info.set(server_info);
                live.instructions.set(instructions);
                match icon {
                    Some(IconSource::Inline(uri)) => live.icon.set(Some(uri)),
                    Some(IconSource::Fetch(url)) => fetch_icon(live.icon, url),
                    None => live.icon.set(None),
                }
            }
            Action::Resources(r) => ServerLive::set_list(live.resources, r),
            Action::ResourceTemplates(r) => ServerLive::set_list(live.resource_templates, r),
            Action::Prompts(p) => ServerLive::set_list(live.prompts, p),
            Action::Tools(t) => ServerLive::set_list(live.tools, t),
            _ => {}
        }
    }

    /// Keep exactly one timer, at the supervisor's next deadline.
    fn rearm(&mut self, now: f64) {
        let want = self.sup.poll_timeout();
        if want == self.timer_at && (want.is_none() || self.timer.is_some()) {
            return;
        }
        self.timer_gen += 1;
        self.timer = None;
        self.timer_at = want;
        if let Some(at) = want {
            let delay = (at - now).ceil().clamp(0.0, f64::from(i32::MAX)) as u32;
            let tx = self.tx.clone();
            let gen = self.timer_gen;
            self.timer = Some(Timeout::new(delay, move || {
                let _ = tx.unbounded_send(Msg::Timer { gen });
            }));
        }
    }
}

/// Fetch a same-origin icon with no headers or credentials, and show it only if
/// `core::mcp::icon` accepts what came back; any failure just leaves the card without one.
fn fetch_icon(target: RwSignal<Option<String>>, url: String) {
    spawn_local(async move {
        let request = HttpRequest {
            method: Method::Get,
            url,
            headers: Vec::new(),
            body: None,
        };
        let Ok(mut response) = fetch::send(&request, None).await else {
            return;
        };
        let mut bytes = Vec::new();
        while let Ok(Some(chunk)) = response.next_chunk().await {
            bytes.extend_from_slice(&chunk);
            if bytes.len() > icon::MAX_FETCHED_BYTES {
                return;
            }
        }
        if response.ok {
            if let Some(uri) = icon::fetched_data_uri(&response.content_type, &bytes) {
                let _ = target.try_set(Some(uri));
            }
        }
    });
}

/// One failure notice per server: a newer one replaces it, and reconnecting withdraws it.
fn failure_key(id: &str) -> String {
    format!("{MCP_DOWN_KEY}{id}")
}

fn ws_report(ev: WsEvent) -> WsReport {
    match ev {
        WsEvent::Open { protocol } => WsReport::Open { protocol },
        WsEvent::Text(text) => WsReport::Text(text),
        WsEvent::Binary(bytes) => WsReport::Binary(bytes.len()),
        WsEvent::Error => WsReport::Error,
        WsEvent::Closed {
            code,
            reason,
            was_clean,
        } => WsReport::Closed {
            code,
            reason,
            was_clean,
        },
    }
}
