//! `Supervisor`: one MCP server's connection over its whole life, as a sans-IO machine in the
//! shape of quinn-proto's `Endpoint` (the `McpSession` below it is the `Connection`).
//!
//! It decides everything a browser driver used to decide by itself: whether the server is
//! wanted, when to connect, reconnect or give up (core's `Backoff` schedule), how long a
//! handshake may take, what the status line says (derived from the session's phase and the
//! transport), which requests wait for a WebSocket to open, and which error each pending call
//! gets when a connection goes away. Every transport (Streamable HTTP and HTTP+SSE through
//! `HttpClient`, WebSocket, in-page) sits behind one `Link` enum.
//!
//! `handle_*` take what happened (a user intent, an IO report tagged with its `LinkId`, or the
//! time); `poll_action` hands back what to do, in order; `poll_timeout` is the minimum of one
//! timer table (reconnect, handshake) and the link's own deadline. It never performs IO, never
//! reads a clock, and never re-sends a tool call: a call in flight when a connection is lost
//! fails with an error that says whether it may have run.

use crate::small_map::SmallMap;
use std::collections::{HashMap, VecDeque};

use super::backoff::{Backoff, ConnectStep, Decision, HealthStatus};
use super::config::TransportChoice;
use super::error::McpError;
use super::http_client::{ClientAction, HttpClient};
use super::http_common::HttpTarget;
use super::kept_session::{self, OnLeave, Start};
use super::messages::RequestId;
use super::session::McpSession;
use super::session_types::{Phase, SessionConfig};
use super::supervisor_link::Link;
use super::supervisor_tasks::{Role, Tasks};
use super::supervisor_types::{Action, CallKey, ElicitKey, LinkId, Request, ServerKind, Setup};
use super::task::CallMode;

/// How long connecting may take, from the first byte sent to a ready session. A server that
/// accepts the connection and never answers the handshake would otherwise show "connecting"
/// until each of the era probes timed out on its own (200 s and more, measured).
pub const HANDSHAKE_TIMEOUT_MS: f64 = 20_000.0;

/// A connection that stayed up this long counts as a success: the next loss starts the
/// schedule from 1 s again. A server that accepts and then drops every connection at once
/// gets the same growing waits as one that refuses them.
pub const STABLE_AFTER_MS: f64 = 10_000.0;

/// The timers of the table whose minimum, with the link's own deadline, is `poll_timeout`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Timer {
    Reconnect = 0,
    Handshake = 1,
}

#[derive(Debug, Default)]
struct Timers([Option<f64>; 2]);

impl Timers {
    fn set(&mut self, t: Timer, at: f64) {
        self.0[t as usize] = Some(at);
    }
    fn clear(&mut self, t: Timer) {
        self.0[t as usize] = None;
    }
    fn get(&self, t: Timer) -> Option<f64> {
        self.0[t as usize]
    }
    /// Whether `t` is due at `now`; clears it so it fires once.
    fn take_due(&mut self, t: Timer, now: f64) -> bool {
        if self.get(t).is_some_and(|at| at <= now) {
            self.clear(t);
            true
        } else {
            false
        }
    }
    fn min(&self) -> Option<f64> {
        self.0.iter().flatten().copied().reduce(f64::min)
    }
}

struct Slot {
    key: CallKey,
    tool: bool,
    role: Role,
}

pub struct Supervisor {
    kind: ServerKind,
    pub(super) setup: Setup,
    pub(super) link: Option<Link>,
    /// The id of the current link (or of the last one, when there is none).
    pub(super) link_id: LinkId,
    backoff: Backoff,
    timers: Timers,
    /// The user wants this server connected (connect / retry / start-up), not disconnected.
    wanted: bool,
    /// The browser said it is offline and has not said it is back: a lost connection waits
    /// for `online` instead of counting failed attempts against the schedule.
    offline: bool,
    calls: SmallMap<RequestId, Slot>,
    keys: HashMap<CallKey, RequestId>,
    /// Requests made while the WebSocket handshake is still running (the WebSocket handshake
    /// queue); sent in order once it opens.
    pub(super) waiting: Vec<(CallKey, Request)>,
    /// Ready, and the first `tools/list` has not finished yet.
    listing_tools: bool,
    connected_since: Option<f64>,
    /// The connection failed; acted upon once the current batch of outputs is handled.
    pub(super) lost: Option<McpError>,
    /// The last connection error logged, so repeated attempts do not repeat the sentence.
    last_error: Option<String>,
    /// A failure notice went out (`Action::FailureNotice`) and the server has not connected
    /// since: the retries that follow are the same failure, not new ones to announce.
    failure_noticed: bool,
    shown_status: Option<HealthStatus>,
    shown_transport: Option<&'static str>,
    actions: VecDeque<Action>,
    /// Questions (`elicitation/create`) waiting for the user: the key the UI answers with,
    /// the link and the server's request id.
    pub(super) elicits: Vec<(ElicitKey, LinkId, RequestId)>,
    pub(super) next_elicit: ElicitKey,
    /// Each question asked while tool calls of ours were running, with those calls still
    /// unanswered: once the last is answered the server went on, so the question is settled
    /// (`Action::AskSettled`), answered or not.
    pub(super) asked_during: Vec<(ElicitKey, Vec<CallKey>)>,
    /// Modern era: the resource URIs the last session listened for, so the next one's first
    /// listen stream carries them (a reconnect keeps the user's subscriptions).
    resource_subs: Vec<String>,
    /// Tool calls that run as tasks (`supervisor_tasks`).
    pub(super) tasks: Tasks,
    /// The record of a session this tab kept across a reload (`kept_session`), as the page
    /// read it: offered to the first connection only.
    kept: Option<String>,
}

impl Supervisor {
    pub fn new(kind: ServerKind, setup: Setup) -> Self {
        Supervisor {
            kind,
            backoff: Backoff::new(setup.config.max_attempts),
            setup,
            link: None,
            link_id: 0,
            timers: Timers::default(),
            wanted: false,
            offline: false,
            calls: SmallMap::new(),
            keys: HashMap::new(),
            waiting: Vec::new(),
            listing_tools: false,
            connected_since: None,
            lost: None,
            last_error: None,
            failure_noticed: false,
            shown_status: None,
            shown_transport: None,
            actions: VecDeque::new(),
            elicits: Vec::new(),
            next_elicit: 1,
            asked_during: Vec::new(),
            resource_subs: Vec::new(),
            tasks: Tasks::default(),
            kept: None,
        }
    }

    /// The record this tab kept for the server's session before the page reloaded (read from
    /// `kept_session::storage_key`); the first connection decides whether to take it up.
    pub fn offer_kept_session(&mut self, raw: Option<String>) {
        self.kept = raw;
    }

    /// The server's settings as they are now; used from the next connect on.
    pub fn set_setup(&mut self, setup: Setup) {
        self.setup = setup;
    }

    pub fn poll_action(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    /// When `handle_timeout` must next be called.
    pub fn poll_timeout(&self) -> Option<f64> {
        let link = self.link.as_ref().and_then(Link::next_deadline);
        let tasks = self.link.as_ref().and(self.tasks.next_deadline());
        [self.timers.min(), link, tasks]
            .into_iter()
            .flatten()
            .reduce(f64::min)
    }

    /// Whether a connection (or an attempt) exists.
    pub fn has_link(&self) -> bool {
        self.link.is_some()
    }

    // -------------------------------------------------------------------------------------
    // user intents

    /// (Re)connect now with the current setup; the attempt count starts over.
    pub fn handle_connect(&mut self, now: f64) {
        self.wanted = true;
        self.backoff = Backoff::new(self.setup.config.max_attempts);
        self.start_connect(now);
    }

    /// Connect unless connected, connecting or waiting to reconnect.
    pub fn handle_ensure(&mut self, now: f64) {
        self.wanted = true;
        if self.link.is_none() && self.timers.get(Timer::Reconnect).is_none() {
            self.backoff = Backoff::new(self.setup.config.max_attempts);
            self.start_connect(now);
        }
    }

    /// Skip the wait of a scheduled reconnect, or try again after giving up.
    pub fn handle_retry_now(&mut self, now: f64) {
        self.wanted = true;
        if self.link.is_none() {
            self.backoff.retry_now(now);
            self.start_connect(now);
        }
    }

    /// The browser came back online.
    pub fn handle_online(&mut self, now: f64) {
        let was_offline = std::mem::take(&mut self.offline);
        if !self.wanted || self.link.is_some() {
            return;
        }
        if self.backoff.online(now) || was_offline {
            self.log("The browser is back online: reconnecting now.");
            self.backoff = Backoff::new(self.setup.config.max_attempts);
            self.start_connect(now);
        }
    }

    /// The browser went offline. A live connection may survive a short outage, so it is left
    /// alone (a lost one reports itself); a scheduled reconnect is dropped, because it would
    /// only fail: the server waits for `online`, shown as offline rather than as failing.
    /// A server in the page or on this machine or the local network needs no network, so
    /// for it "offline" changes nothing: it keeps its connection and its retries.
    pub fn handle_offline(&mut self, _now: f64) {
        if self.kind == ServerKind::InPage || self.setup.config.reachable_offline() {
            if self.wanted {
                self.log("The browser is offline; this server is on this computer or the local network, so Skiff keeps using it.");
            }
            return;
        }
        self.offline = true;
        if !self.wanted {
            return;
        }
        self.log("The browser is offline.");
        if self.link.is_none() && self.timers.get(Timer::Reconnect).is_some() {
            self.timers.clear(Timer::Reconnect);
            self.backoff.take_due(f64::INFINITY);
            self.set_status(HealthStatus::Offline);
        }
    }

    /// Leave gracefully (DELETE / close); calls in flight fail as cancelled; no reconnect.
    pub fn handle_disconnect(&mut self, now: f64) {
        self.disconnect(true, OnLeave::Delete, now);
    }

    /// The page is going away (`pagehide`, not into the back-forward cache): leave like
    /// `handle_disconnect`, except that a Streamable HTTP session with a task on it is left
    /// open and kept for the reloaded page (`kept_session::on_leave`).
    pub fn handle_leave_page(&mut self, now: f64) {
        let tasks = self.tasks.follows.len()
            + self
                .calls
                .values()
                .filter(|s| s.role == Role::TaskCreate)
                .count();
        self.disconnect(true, kept_session::on_leave(tasks), now);
    }

    /// The server was removed: leave, without touching its (gone) status.
    pub fn handle_remove(&mut self, now: f64) {
        self.disconnect(false, OnLeave::Delete, now);
    }

    pub fn handle_request(&mut self, key: CallKey, req: Request, now: f64) {
        let mode = match &req {
            Request::Tool { name, .. } if self.link.is_some() => match self.tool_mode(name) {
                Ok(mode) => Some(mode),
                Err(_) => {
                    return self.push(Action::Reply {
                        key,
                        result: Err(McpError::TaskRequired),
                    })
                }
            },
            _ => None,
        };
        match self.link.as_mut() {
            None => self.push(Action::Reply {
                key,
                result: Err(McpError::NotConnected),
            }),
            Some(Link::Ws { open: false, .. }) => self.waiting.push((key, req)),
            Some(link) => {
                let session = link.session_mut();
                let mode = mode.unwrap_or(CallMode::Direct);
                let (id, tool, role) = match req {
                    Request::Tool { name, args } => {
                        let role = match mode {
                            CallMode::Task => Role::TaskCreate,
                            CallMode::Direct => Role::Caller,
                        };
                        (
                            session.call_tool_as(&name, Some(args), true, mode, now),
                            true,
                            role,
                        )
                    }
                    Request::Raw { method, params } => {
                        (session.request(&method, params, now), false, Role::Caller)
                    }
                    Request::Ping => (session.ping(now), false, Role::Caller),
                    Request::FollowTask { task_id } => {
                        self.follow_task(key, task_id, now);
                        self.finish(now);
                        return;
                    }
                };
                self.keys.insert(key, id.clone());
                self.calls.insert(id, Slot { key, tool, role });
                self.finish(now);
            }
        }
    }

    /// Cancel a caller's request; its reply becomes `McpError::Cancelled`. Unknown or finished
    /// keys are ignored.
    pub fn handle_cancel(&mut self, key: CallKey, reason: Option<String>, now: f64) {
        if let Some(pos) = self.waiting.iter().position(|(k, _)| *k == key) {
            self.waiting.remove(pos);
            self.push(Action::Reply {
                key,
                result: Err(McpError::Cancelled { reason }),
            });
            return;
        }
        if self.cancel_task(key, reason.clone(), now) {
            self.finish(now);
            return;
        }
        let Some(id) = self.keys.get(&key).cloned() else {
            return;
        };
        if let Some(link) = self.link.as_mut() {
            link.session_mut().cancel(&id, reason.as_deref(), now);
            self.finish(now);
        }
    }

    pub fn handle_timeout(&mut self, now: f64) {
        if self.timers.take_due(Timer::Handshake, now) && self.link.is_some() {
            let error = McpError::HandshakeTimeout {
                after_ms: HANDSHAKE_TIMEOUT_MS as u64,
            };
            self.lose_transport(&error.cause(), now);
            self.settle(now);
            // The session's own "connection lost" is less precise than what happened.
            self.lost = Some(error);
        }
        if let Some(link) = self.link.as_mut() {
            if link.next_deadline().is_some_and(|d| d <= now) {
                link.handle_timeout(now);
            }
        }
        self.poll_tasks(now);
        self.finish(now);
        if self.timers.take_due(Timer::Reconnect, now) {
            self.start_connect(now);
        }
    }

    // -------------------------------------------------------------------------------------
    // connecting and losing

    pub(super) fn push(&mut self, a: Action) {
        self.actions.push_back(a);
    }

    pub(super) fn log(&mut self, line: impl Into<String>) {
        self.push(Action::Log(line.into()));
    }

    fn session_config(&self, legacy_only: bool) -> SessionConfig {
        let cfg = &self.setup.config;
        let timeout = cfg.request_timeout_ms.max(1) as f64;
        let defaults = SessionConfig::default();
        SessionConfig {
            request_timeout_ms: timeout,
            max_request_ms: defaults.max_request_ms.max(timeout),
            ping_interval_ms: cfg.ping_interval_ms.filter(|p| *p > 0).map(|p| p as f64),
            era_cache: self.setup.era_cache.clone(),
            legacy_only,
            resource_subscriptions: self.resource_subs.clone(),
            ..defaults
        }
    }

    fn start_connect(&mut self, now: f64) {
        self.abandon("the connection was restarted", now);
        self.timers.clear(Timer::Reconnect);
        // Clears Backoff's own pending retry, so `online` only fires while one is waiting.
        self.backoff.take_due(f64::INFINITY);
        self.lost = None;
        self.link_id += 1;
        let id = self.link_id;
        let link = match self.kind {
            ServerKind::InPage => {
                let mut config = self.session_config(true);
                config.ping_interval_ms = None;
                config.era_cache = None;
                let mut session = McpSession::new(config);
                session.connect(now);
                Link::InPage { session }
            }
            ServerKind::Remote => {
                let cfg = self.setup.config.clone();
                self.log(format!("Connecting to {} …", cfg.url));
                match cfg.effective_transport() {
                    TransportChoice::WebSocket => {
                        if !cfg.headers.is_empty() {
                            self.log("Browsers cannot send custom headers on a WebSocket; this server's headers are not sent. Put a token in the URL if the server accepts one.");
                        }
                        if cfg.proxy.as_deref().is_some_and(|p| !p.trim().is_empty()) {
                            self.log("The CORS proxy is not used for WebSocket servers (WebSockets are not subject to CORS).");
                        }
                        self.push(Action::OpenSocket {
                            link: id,
                            url: cfg.url.trim().to_string(),
                            protocols: vec!["mcp".into()],
                        });
                        Link::Ws {
                            session: McpSession::new(self.session_config(true)),
                            open: false,
                        }
                    }
                    choice => {
                        let target = HttpTarget {
                            url: cfg.url.trim().to_string(),
                            headers: cfg.headers.clone(),
                            proxy: cfg.proxy.clone().filter(|p| !p.trim().is_empty()),
                            page_is_https: self.setup.page_is_https,
                        };
                        let mut client =
                            HttpClient::new(target, choice, self.session_config(false));
                        match kept_session::plan(self.kept.take().as_deref(), &cfg.url, choice) {
                            Start::Resume(kept) => {
                                self.log(format!(
                                    "Taking up the session this tab kept across the reload ({}).",
                                    kept.session_id
                                ));
                                client.resume(&kept, now);
                            }
                            Start::Fresh { why } => {
                                if let Some(why) = why {
                                    self.log(why);
                                }
                                client.connect(now);
                            }
                        }
                        Link::Http(Box::new(client))
                    }
                }
            }
        };
        self.link = Some(link);
        self.timers
            .set(Timer::Handshake, now + HANDSHAKE_TIMEOUT_MS);
        self.finish(now);
    }

    /// Tell the session its transport is gone (if it is still alive).
    pub(super) fn lose_transport(&mut self, why: &str, now: f64) {
        if let Some(link) = self.link.as_mut() {
            if !matches!(link.session().phase(), Phase::Failed(_) | Phase::Idle) {
                link.session_mut().transport_lost(why, now);
            }
        }
    }

    /// Drop the current link on purpose (reconnect): its in-flight requests fail the way a
    /// lost connection fails them, and nothing is re-sent.
    fn abandon(&mut self, reason: &str, now: f64) {
        if self.link.is_none() {
            return;
        }
        self.lose_transport(reason, now);
        self.settle(now);
        self.teardown(&McpError::ConnectionLost {
            reason: reason.to_string(),
            in_flight_tool: true,
        });
        self.lost = None;
    }

    /// Handle the link's pending events without sending anything (it is going away).
    fn settle(&mut self, now: f64) {
        let Some(link) = self.link.as_mut() else {
            return;
        };
        let mut actions = Vec::new();
        let mut events = Vec::new();
        link.drain(self.link_id, now, true, &mut actions, &mut events);
        self.actions.extend(actions);
        for e in events {
            self.on_event(e, now);
        }
    }

    /// Forget the link and everything tied to it. Calls still unanswered fail with `error`
    /// (a tool call keeps whether it may have run); requests never sent cannot have run.
    fn teardown(&mut self, error: &McpError) {
        if let Some(link) = self.link.as_ref() {
            self.resource_subs = link.session().resource_subscriptions().to_vec();
        }
        if self.link.take().is_some() {
            self.push(Action::DropLink(self.link_id));
        }
        self.drop_elicits();
        self.timers.clear(Timer::Handshake);
        self.listing_tools = false;
        self.connected_since = None;
        let mut calls: Vec<Slot> = self
            .calls
            .drain()
            .map(|(_, s)| s)
            // A follower's own requests answer nobody; the follower itself is told below.
            .filter(|s| matches!(s.role, Role::Caller | Role::TaskCreate))
            .collect();
        crate::order::sort_by_key(&mut calls, |s| s.key);
        let followed = self.fail_tasks(error);
        self.actions.extend(followed);
        for slot in calls {
            let result = Err(for_call(error, slot.tool));
            self.push(Action::Reply {
                key: slot.key,
                result,
            });
        }
        self.keys.clear();
        for (key, _) in std::mem::take(&mut self.waiting) {
            self.push(Action::Reply {
                key,
                result: Err(for_call(error, false)),
            });
        }
    }

    /// The connection failed or dropped: schedule the reconnect, or give up.
    fn on_lost(&mut self, error: McpError, now: f64) {
        let stable = self
            .connected_since
            .is_some_and(|since| now - since >= STABLE_AFTER_MS);
        if stable {
            self.backoff.on_success();
        }
        self.teardown(&error);
        let text = error.to_string();
        if self.last_error.as_deref() == Some(text.as_str()) {
            self.log("Failed again, the same way.");
        } else {
            self.log(text.clone());
            self.last_error = Some(text);
        }
        if self.wanted && self.offline && !retry_cannot_help(&error) {
            self.timers.clear(Timer::Reconnect);
            self.log("Offline: reconnecting when the network is back.");
            self.set_status(HealthStatus::Offline);
            return;
        }
        self.notice_failure(&error);
        if !self.wanted || retry_cannot_help(&error) {
            self.timers.clear(Timer::Reconnect);
            self.set_status(HealthStatus::Error {
                message: error.to_string(),
            });
            return;
        }
        match self.backoff.on_failure(now) {
            Decision::RetryAt { at_ms, attempt } => {
                self.timers.set(Timer::Reconnect, at_ms);
                self.set_status(HealthStatus::Reconnecting {
                    at_ms,
                    attempt,
                    why: error.to_string(),
                });
                self.log(format!(
                    "Reconnecting in {} (attempt {attempt}).",
                    describe_delay(at_ms - now)
                ));
            }
            Decision::GiveUp => {
                self.timers.clear(Timer::Reconnect);
                let tries = self.backoff.failures().saturating_sub(1);
                let message = format!(
                    "{error} Gave up after {tries} reconnect attempt{}; press \"Retry now\" to try again.",
                    if tries == 1 { "" } else { "s" }
                );
                self.log(message.clone());
                self.set_status(HealthStatus::Error { message });
            }
        }
    }

    /// Tell the user outside Settings, once per failure: the first time a server the user
    /// wants connected fails to connect or drops, not at each retry after it. Offline, a
    /// disconnect the user asked for and in-page servers are no news.
    fn notice_failure(&mut self, error: &McpError) {
        if self.failure_noticed || !self.wanted || self.kind == ServerKind::InPage {
            return;
        }
        self.failure_noticed = true;
        let name = &self.setup.config.name;
        let next = if retry_cannot_help(error) {
            "Fix it in Settings → MCP servers."
        } else {
            "Skiff keeps trying; Settings → MCP servers says why and shows each attempt."
        };
        // Only the error's first sentence: the rest (what CORS must allow, say) is on the
        // server's card, and a notice must not cover the page. The error may quote the server;
        // shown neutralised like the status line.
        let error = error.to_string();
        let first = match error.find(". ") {
            Some(end) => &error[..=end],
            None => error.as_str(),
        };
        let sentence = format!("MCP server “{name}” is not available: {first} {next}");
        self.push(Action::FailureNotice(
            crate::display::text::prose(&sentence).into_owned(),
        ));
    }

    fn disconnect(&mut self, report: bool, leave: OnLeave, now: f64) {
        self.wanted = false;
        self.timers.clear(Timer::Reconnect);
        self.backoff.take_due(f64::INFINITY);
        let had_link = self.link.is_some();
        let id = self.link_id;
        let mut events = Vec::new();
        match self.link.as_mut() {
            Some(Link::Http(c)) => {
                // Read before closing: a closed session has nothing left to keep.
                let kept = match leave {
                    OnLeave::Keep => c.keepable(),
                    OnLeave::Delete => None,
                };
                match &kept {
                    Some(_) => c.close_keeping_session(now),
                    None => c.close(now),
                }
                if kept.is_some() {
                    self.actions.push_back(Action::Log(
                        "Left without ending the session: a task runs on it, and the reloaded page follows it there.".into(),
                    ));
                }
                self.actions
                    .push_back(Action::KeepSession(kept.as_ref().map(kept_session::encode)));
                while let Some(a) = c.poll_action() {
                    match a {
                        ClientAction::Fetch { request, .. } => {
                            self.actions.push_back(Action::Goodbye(request))
                        }
                        ClientAction::Abort(token) => {
                            self.actions.push_back(Action::Abort { link: id, token })
                        }
                        ClientAction::Event(e) => events.push(e),
                    }
                }
            }
            Some(Link::Ws { session, .. }) => {
                session.close(now);
                self.actions.push_back(Action::CloseSocket {
                    link: id,
                    code: 1000,
                    reason: "client disconnect".into(),
                });
            }
            Some(Link::InPage { session }) => session.close(now),
            None => {}
        }
        if let Some(link @ (Link::Ws { .. } | Link::InPage { .. })) = self.link.as_mut() {
            let mut unsent = Vec::new();
            link.drain(id, now, true, &mut unsent, &mut events);
        }
        for e in events {
            self.on_event(e, now);
        }
        self.teardown(&McpError::Cancelled {
            reason: Some("disconnected".into()),
        });
        self.lost = None;
        if report {
            self.set_status(HealthStatus::Idle);
            if had_link {
                self.log("Disconnected.");
            }
        }
    }

    /// Drain the link until it is quiet, act on a failure, and bring the status up to date.
    pub(super) fn finish(&mut self, now: f64) {
        while let Some(link) = self.link.as_mut() {
            let mut actions = Vec::new();
            let mut events = Vec::new();
            link.drain(self.link_id, now, false, &mut actions, &mut events);
            if actions.is_empty() && events.is_empty() {
                break;
            }
            self.actions.extend(actions);
            for e in events {
                self.on_event(e, now);
            }
        }
        if let Some(error) = self.lost.take() {
            self.on_lost(error, now);
        }
        self.refresh_status(now);
    }

    pub(super) fn set_status(&mut self, status: HealthStatus) {
        if self.shown_status.as_ref() != Some(&status) {
            self.shown_status = Some(status.clone());
            self.push(Action::Status(status));
        }
    }

    fn refresh_status(&mut self, now: f64) {
        let Some(link) = self.link.as_ref() else {
            return;
        };
        let status = match link {
            Link::Ws { open: false, .. } => HealthStatus::Connecting {
                step: ConnectStep::OpeningSocket,
            },
            _ => match link.session().phase() {
                Phase::Discovering => HealthStatus::Connecting {
                    step: ConnectStep::Discovering,
                },
                Phase::Initializing => HealthStatus::Connecting {
                    step: match link {
                        Link::Http(c) if c.uses_legacy_sse() => ConnectStep::OpeningSse,
                        _ => ConnectStep::Initializing,
                    },
                },
                Phase::Ready { .. } if self.listing_tools => HealthStatus::Connecting {
                    step: ConnectStep::ListingTools,
                },
                Phase::Ready { .. } => HealthStatus::Connected {
                    since_ms: self.connected_since.unwrap_or(now),
                },
                Phase::Idle | Phase::Failed(_) => return,
            },
        };
        let label = link.label();
        if self.shown_transport != Some(label) {
            self.shown_transport = Some(label);
            self.push(Action::Transport(label));
        }
        self.set_status(status);
    }

    // -------------------------------------------------------------------------------------
    // for supervisor_events

    pub(super) fn ready(&mut self, auto_list_tools: bool, now: f64) {
        self.timers.clear(Timer::Handshake);
        self.last_error = None;
        if std::mem::take(&mut self.failure_noticed) {
            self.push(Action::Recovered);
        }
        self.connected_since = Some(now);
        self.listing_tools = auto_list_tools;
    }

    pub(super) fn link_label(&self) -> &'static str {
        self.link.as_ref().map(Link::label).unwrap_or("?")
    }

    pub(super) fn auto_list(&self) -> bool {
        self.link
            .as_ref()
            .is_some_and(|l| l.session().config().auto_list)
    }

    pub(super) fn tools_listed(&mut self) {
        self.listing_tools = false;
    }

    pub(super) fn set_lost(&mut self, error: McpError) {
        self.lost = Some(error);
    }

    pub(super) fn health_failed(&mut self, why: &str, now: f64) {
        self.lose_transport(why, now);
    }

    /// The caller and role of an answered request; forgets it.
    pub(super) fn answered(&mut self, id: &RequestId) -> Option<(CallKey, Role)> {
        let slot = self.calls.remove(id)?;
        if self.keys.get(&slot.key) == Some(id) {
            self.keys.remove(&slot.key);
        }
        Some((slot.key, slot.role))
    }

    /// Track a request the supervisor made itself for caller `key` (a follower's, a cancel).
    pub(super) fn track_own(&mut self, id: RequestId, key: CallKey, role: Role) {
        self.calls.insert(
            id,
            Slot {
                key,
                tool: false,
                role,
            },
        );
    }

    /// The task-augmented `tools/call` of caller `key` still waiting for its task, if any.
    pub(super) fn creating(&mut self, key: CallKey) -> Option<RequestId> {
        let id = self.keys.get(&key)?.clone();
        let slot = self.calls.get(&id)?;
        (slot.role == Role::TaskCreate).then(|| {
            self.keys.remove(&key);
            id
        })
    }

    /// The tool calls of ours running now: a question the server asks meanwhile belongs to
    /// one of them.
    pub(super) fn running_tool_calls(&self) -> Vec<CallKey> {
        self.calls
            .values()
            .filter(|s| s.tool)
            .map(|s| s.key)
            .collect()
    }

    pub(super) fn call_key(&self, id: &RequestId) -> Option<CallKey> {
        self.calls.get(id).map(|s| s.key)
    }

    pub(super) fn emit(&mut self, a: Action) {
        self.push(a);
    }
}

/// The error a pending call gets when its connection goes away: a tool call keeps whether it
/// may have run.
fn for_call(error: &McpError, tool: bool) -> McpError {
    match error {
        McpError::ConnectionLost { reason, .. } => McpError::ConnectionLost {
            reason: reason.clone(),
            in_flight_tool: tool,
        },
        other => other.clone(),
    }
}

fn describe_delay(ms: f64) -> String {
    if ms < 1_000.0 {
        format!("{} ms", crate::format::fixed(ms, 0))
    } else {
        format!("{} s", crate::format::fixed(ms / 1_000.0, 1))
    }
}

/// Failures a reconnect cannot fix: wrong credentials and no common protocol version. The
/// status shows the error until the user edits the server or presses "Retry now".
/// Failures that the same settings will meet again: retrying would only repeat them (and a
/// refusal to send credentials elsewhere must stay visible, not turn into a countdown).
fn retry_cannot_help(error: &McpError) -> bool {
    matches!(
        error,
        McpError::Auth { .. } | McpError::UnsupportedVersion { .. }
    ) || error.refuses_to_leave_origin()
}

#[cfg(test)]
#[path = "supervisor_tests.rs"]
mod tests;
