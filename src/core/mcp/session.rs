//! `McpSession`: one MCP client session as a sans-IO state machine, whatever the transport.
//!
//! Like quinn-proto or h2, it performs no IO and reads no clock: the caller feeds it what
//! arrived (`handle_message`), what failed (`request_failed`, `transport_lost`,
//! `session_expired`) and the current time, and drains `poll_output` for messages to send,
//! streams to abort and events to show. `next_deadline` says when to call `handle_timeout`.
//!
//! It must never send a tool call twice: a call in flight when the connection drops or the
//! session expires fails with an error that says so, and only requests that were never sent
//! (queued while connecting) or that are safe to repeat (list pages) go out after a reconnect.
//!
//! The handshake (era probe, `initialize`) lives here; request bookkeeping is in
//! `session_requests`, lists in `session_lists`.

use crate::small_map::SmallMap;
use std::collections::VecDeque;

use crate::mcp::model::{Implementation, ServerCapabilities};
use serde_json::{json, Value};

use super::elicit;
use super::era::{self, Era, EraCache, ProbeVerdict};
use super::error::McpError;
use super::kind_map::KindMap;
use super::messages::{self, Incoming, ListKind, RequestId, RpcError};
use super::param_headers::{self, Declaration};
use super::session_lists::ListOp;
use super::session_types::{Output, Phase, SendKind, SendMeta, SessionConfig, SessionEvent};
use super::types_2026::{self, DISCOVER_METHOD};

/// What a pending request is for.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum PendingKind {
    /// The modern probe during connect.
    Probe,
    Initialize,
    ListPage(ListKind),
    /// A caller's request; `tool` marks `tools/call`, which is never re-sent.
    User {
        tool: bool,
    },
    /// Periodic health check (`ping`, or `server/discover` in the modern era, which has no ping).
    Health,
    /// `subscriptions/listen`: open until the server or the transport ends it.
    Listen,
    /// A caller's `resources/subscribe` or `resources/unsubscribe` in the modern era, never
    /// sent: it waits for the server to acknowledge the listen stream carrying the new filter
    /// (`session_subs`). The URI is in its params.
    Filter {
        subscribe: bool,
    },
    /// The `ping` that confirms a session kept across a reload before anything else uses it
    /// (`resume`).
    Resume,
}

#[derive(Debug, Clone)]
pub(super) struct Pending {
    pub method: String,
    pub params: Option<Value>,
    pub kind: PendingKind,
    pub sent_ms: f64,
    pub deadline: Option<f64>,
    pub hard_deadline: Option<f64>,
    /// Modern versions this request was rejected with, so a retry cannot loop.
    pub versions_tried: Vec<String>,
    /// Already sent again once after the server refused it for an expired session.
    pub resent: bool,
}

/// A caller's request waiting for the session to become ready.
#[derive(Debug, Clone)]
pub(super) struct Queued {
    pub id: RequestId,
    pub method: String,
    pub params: Option<Value>,
    pub tool: bool,
    pub deadline: f64,
    /// Waiting to be sent a second (and last) time after an expired session refused it.
    pub resent: bool,
}

pub struct McpSession {
    pub(super) config: SessionConfig,
    pub(super) phase: Phase,
    pub(super) outputs: VecDeque<Output>,
    pub(super) next_id: i64,
    pub(super) pending: SmallMap<RequestId, Pending>,
    pub(super) queued: Vec<Queued>,
    pub(super) lists: KindMap<ListOp>,
    /// Negotiated (or, while probing, attempted) era and version.
    pub(super) era: Option<Era>,
    pub(super) version: Option<String>,
    pub(super) tried_modern: bool,
    pub(super) tried_legacy: bool,
    pub(super) probe_versions: Vec<String>,
    pub(super) expiries_in_handshake: u32,
    pub(super) next_health_ms: Option<f64>,
    /// When each list last started, and re-lists waiting for `RELIST_GAP_MS` to pass.
    pub(super) list_started: KindMap<f64>,
    pub(super) relist_at: KindMap<f64>,
    /// Requests the server made of us in the current one-second window, and whether the log
    /// was told that the excess is ignored.
    pub(super) asks: (f64, u32),
    pub(super) asks_limited: bool,
    /// `elicitation/create` requests waiting for the user, by the server's request id. While
    /// any is open, caller requests do not time out: the server is waiting for the user too.
    pub(super) elicits: Vec<RequestId>,
    /// Each listed tool's `Mcp-Param-*` declarations, or why the tool cannot be called
    /// (a broken declaration: the server would refuse the call for a missing header).
    pub(super) param_decls: Vec<(String, Result<Vec<Declaration>, String>)>,
    /// The server's capabilities as it sent them, for the MCP module (it reads what the page
    /// does not type, such as `resources.subscribe` and `completions`).
    pub(super) caps_json: Value,
    /// Modern requests waiting for the answers to their questions (`session_mrtr`), and the
    /// retries sent: (retry id, the caller's id, round).
    pub(super) rounds: Vec<super::session_mrtr::Round>,
    pub(super) retries: Vec<(RequestId, RequestId, u32)>,
    /// Modern era: the resource URIs the listen filter asks updates for (`session_subs`), and
    /// whether the server acknowledged the stream now open.
    pub(super) resource_subs: Vec<String>,
    pub(super) listen_acked: bool,
    /// The server's `initialize` result as it came (legacy era), kept with the session across
    /// a reload (`kept_session`).
    pub(super) init_result: Value,
    /// This session was kept from before the page loaded, not made by this page.
    pub(super) resumed: bool,
}

/// How many requests (pings, sampling, roots, ...) a server may make of us per second. Each
/// answer costs a message (over HTTP a whole POST); a server asking 1,000 times a second kept
/// the page's main thread busy for seconds. Beyond this, requests are left unanswered.
pub const MAX_SERVER_ASKS_PER_S: u32 = 20;

/// What Skiff can answer when a server asks (both eras: `initialize`, and every modern
/// request's `_meta`): elicitation (form and URL), sampling with tools, roots.
pub fn client_capabilities() -> Value {
    json!({
        "elicitation": elicit::client_capability(),
        "sampling": { "tools": {} },
        "roots": { "listChanged": true },
    })
}

/// Server requests the session holds for the page to answer (`Action::Ask`).
pub const SAMPLING_METHOD: &str = "sampling/createMessage";
pub const ROOTS_METHOD: &str = "roots/list";

impl McpSession {
    pub fn new(config: SessionConfig) -> Self {
        McpSession {
            resource_subs: config.resource_subscriptions.clone(),
            listen_acked: false,
            init_result: Value::Null,
            resumed: false,
            config,
            phase: Phase::Idle,
            outputs: VecDeque::new(),
            next_id: 1,
            pending: SmallMap::new(),
            queued: Vec::new(),
            lists: KindMap::default(),
            era: None,
            caps_json: Value::Null,
            rounds: Vec::new(),
            retries: Vec::new(),
            version: None,
            tried_modern: false,
            tried_legacy: false,
            probe_versions: Vec::new(),
            expiries_in_handshake: 0,
            next_health_ms: None,
            list_started: KindMap::default(),
            relist_at: KindMap::default(),
            asks: (f64::NEG_INFINITY, 0),
            asks_limited: false,
            elicits: Vec::new(),
            param_decls: Vec::new(),
        }
    }

    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// The negotiated era, once ready.
    pub fn era(&self) -> Option<Era> {
        self.phase.is_ready().then_some(self.era).flatten()
    }

    /// The negotiated protocol version, once ready.
    pub fn protocol_version(&self) -> Option<&str> {
        if self.phase.is_ready() {
            self.version.as_deref()
        } else {
            None
        }
    }

    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    /// Tool calls sent and not yet answered; `shutdown()` waits for these.
    pub fn tool_calls_in_flight(&self) -> usize {
        self.pending
            .values()
            .filter(|p| p.kind == PendingKind::User { tool: true })
            .count()
            + self.queued.iter().filter(|q| q.tool).count()
    }

    pub fn poll_output(&mut self) -> Option<Output> {
        self.outputs.pop_front()
    }

    /// Start (or restart) the connection: era probe or handshake, per the cache.
    pub fn connect(&mut self, now_ms: f64) {
        self.drop_handshake_requests();
        self.tried_modern = false;
        self.tried_legacy = false;
        self.expiries_in_handshake = 0;
        self.next_health_ms = None;
        self.relist_at.clear();
        let first = if self.config.legacy_only {
            Era::Legacy
        } else {
            era::first_attempt(self.config.era_cache.as_ref())
        };
        match first {
            Era::Modern => {
                let first = self.preferred_modern();
                self.start_probe(first, now_ms);
            }
            Era::Legacy => self.start_initialize(now_ms),
        }
    }

    /// The modern version to probe with: the cached one if it is still ours, else our first.
    fn preferred_modern(&self) -> String {
        let cached = self
            .config
            .era_cache
            .as_ref()
            .filter(|c| c.era == Era::Modern)
            .map(|c| c.version.clone())
            .filter(|v| self.config.modern_versions.contains(v));
        cached
            .or_else(|| self.config.modern_versions.first().cloned())
            .unwrap_or_else(|| "2026-07-28".to_string())
    }

    pub(super) fn alloc_id(&mut self) -> RequestId {
        let id = RequestId::Number(self.next_id);
        self.next_id += 1;
        id
    }

    pub(super) fn emit(&mut self, mut event: SessionEvent) {
        // The answer to a multi round-trip retry is the caller's, under its first id.
        if let SessionEvent::Response { id, .. } = &mut event {
            if let Some(at) = self.retries.iter().position(|(r, _, _)| r == id) {
                *id = self.retries.remove(at).1;
            }
        }
        self.outputs.push_back(Output::Event(event));
    }

    pub(super) fn set_phase(&mut self, phase: Phase) {
        if !phase.is_ready() {
            // Nobody is left to answer: the request belonged to the session that ended.
            self.drop_asks();
            self.drop_rounds();
        }
        if self.phase != phase {
            self.phase = phase.clone();
            self.emit(SessionEvent::StateChanged(phase));
        }
    }

    /// The server's capabilities as it sent them (`Null` before the handshake).
    pub fn capabilities_json(&self) -> &Value {
        &self.caps_json
    }

    pub(super) fn client_info(&self) -> Value {
        json!({"name": self.config.client_name, "version": self.config.client_version})
    }

    /// Serialize and queue a request for sending, with the era's decorations.
    pub(super) fn send_request(&mut self, id: &RequestId, method: &str, params: Option<Value>) {
        let name = params
            .as_ref()
            .and_then(|p| p.get("name").or_else(|| p.get("uri")))
            .and_then(Value::as_str)
            .filter(|_| matches!(method, "tools/call" | "prompts/get" | "resources/read"))
            .map(str::to_string);
        let params = match (self.era, self.version.as_deref()) {
            (Some(Era::Modern), Some(v)) => Some(types_2026::with_request_meta(
                params,
                v,
                &self.client_info(),
                self.config.log_level.as_deref(),
            )),
            _ => params,
        };
        // A modern `tools/call` mirrors the arguments its tool declares into headers.
        let param_headers = match (&name, self.era, &params) {
            (Some(tool), Some(Era::Modern), Some(p)) if method == "tools/call" => self
                .param_decls
                .iter()
                .find(|(n, _)| n == tool)
                .and_then(|(_, d)| d.as_ref().ok())
                .zip(p.get("arguments").and_then(Value::as_object))
                .map(|(d, args)| param_headers::headers_for(d, args))
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let body = messages::request(id, method, params);
        let meta = SendMeta {
            param_headers,
            kind: SendKind::Request,
            id: Some(id.clone()),
            method: method.to_string(),
            name,
            protocol_version: self.header_version(method),
            era: self.era,
            long_lived: method == types_2026::LISTEN_METHOD,
        };
        self.outputs.push_back(Output::Send(body, meta));
    }

    pub(super) fn send_notification(&mut self, method: &str, params: Option<Value>) {
        let body = messages::notification(method, params);
        let meta = SendMeta {
            kind: SendKind::Notification,
            id: None,
            method: method.to_string(),
            name: None,
            protocol_version: self.header_version(method),
            era: self.era,
            long_lived: false,
            param_headers: Vec::new(),
        };
        self.outputs.push_back(Output::Send(body, meta));
    }

    pub(super) fn send_response(&mut self, body: String) {
        let meta = SendMeta {
            kind: SendKind::Response,
            id: None,
            method: String::new(),
            name: None,
            protocol_version: self.header_version(""),
            era: self.era,
            long_lived: false,
            param_headers: Vec::new(),
        };
        self.outputs.push_back(Output::Send(body, meta));
    }

    /// `MCP-Protocol-Version` is sent once a version is negotiated (legacy) and always in the
    /// modern era, where it must equal the `_meta` version.
    fn header_version(&self, method: &str) -> Option<String> {
        match self.era {
            Some(Era::Modern) => self.version.clone(),
            Some(Era::Legacy)
                if method != "initialize" && (self.phase.is_ready() || self.resumed) =>
            {
                self.version.clone()
            }
            Some(Era::Legacy) if method == "notifications/initialized" => self.version.clone(),
            _ => None,
        }
    }

    pub(super) fn track(
        &mut self,
        id: RequestId,
        method: &str,
        params: Option<Value>,
        kind: PendingKind,
        now_ms: f64,
    ) {
        let deadline = match kind {
            PendingKind::Listen => None,
            _ => Some(now_ms + self.config.request_timeout_ms),
        };
        let hard_deadline = deadline.map(|_| now_ms + self.config.max_request_ms);
        self.pending.insert(
            id,
            Pending {
                method: method.to_string(),
                params,
                kind,
                sent_ms: now_ms,
                deadline,
                hard_deadline,
                versions_tried: Vec::new(),
                resent: false,
            },
        );
    }

    fn start_probe(&mut self, version: String, now_ms: f64) {
        self.tried_modern = true;
        self.era = Some(Era::Modern);
        self.version = Some(version.clone());
        self.probe_versions.push(version);
        self.set_phase(Phase::Discovering);
        let id = self.alloc_id();
        self.send_request(&id, DISCOVER_METHOD, None);
        self.track(id, DISCOVER_METHOD, None, PendingKind::Probe, now_ms);
    }

    pub(super) fn start_initialize(&mut self, now_ms: f64) {
        self.tried_legacy = true;
        // A fresh handshake makes a session of this page's own.
        self.resumed = false;
        self.era = Some(Era::Legacy);
        self.version = None;
        self.set_phase(Phase::Initializing);
        let version = self
            .config
            .legacy_versions
            .first()
            .cloned()
            .unwrap_or_else(|| "2025-11-25".to_string());
        let params = json!({
            "protocolVersion": version,
            "capabilities": client_capabilities(),
            "clientInfo": self.client_info(),
        });
        let id = self.alloc_id();
        self.send_request(&id, "initialize", Some(params.clone()));
        self.track(
            id,
            "initialize",
            Some(params),
            PendingKind::Initialize,
            now_ms,
        );
    }

    /// The modern probe did not find a modern server.
    fn fall_back_to_legacy(&mut self, why: McpError, now_ms: f64) {
        if self.tried_legacy {
            self.fail(why);
        } else {
            self.start_initialize(now_ms);
        }
    }

    /// `initialize` failed: re-probe modern if the cached era was legacy, else give up.
    fn initialize_failed(&mut self, why: McpError, now_ms: f64) {
        if self.tried_modern || self.config.legacy_only {
            self.fail(why);
        } else {
            let v = self.preferred_modern();
            self.start_probe(v, now_ms);
        }
    }

    pub(super) fn fail(&mut self, error: McpError) {
        self.drop_handshake_requests();
        self.next_health_ms = None;
        let queued = std::mem::take(&mut self.queued);
        for q in queued {
            self.emit(SessionEvent::Response {
                id: q.id,
                method: q.method,
                result: Err(error.clone()),
            });
        }
        let waiting = self.waiting_lists();
        for kind in waiting {
            self.lists.remove(&kind);
            self.emit(SessionEvent::ListFailed {
                kind,
                error: error.clone(),
            });
        }
        self.set_phase(Phase::Failed(error));
    }

    fn drop_handshake_requests(&mut self) {
        self.pending.retain(|_, p| {
            !matches!(
                p.kind,
                PendingKind::Probe | PendingKind::Initialize | PendingKind::Resume
            )
        });
        self.probe_versions.clear();
    }

    fn become_ready(
        &mut self,
        era: Era,
        version: String,
        server_info: Option<Implementation>,
        capabilities: ServerCapabilities,
        instructions: Option<String>,
        now_ms: f64,
    ) {
        self.era = Some(era);
        self.version = Some(version.clone());
        self.expiries_in_handshake = 0;
        let cached = self.config.era_cache.as_ref();
        if cached.map(|c| (c.era, c.version.as_str())) != Some((era, version.as_str())) {
            let cache = EraCache {
                era,
                version: version.clone(),
                detected_at_ms: now_ms,
            };
            self.config.era_cache = Some(cache.clone());
            self.emit(SessionEvent::EraDetected(cache));
        }
        self.set_phase(Phase::Ready {
            version,
            era,
            server_info,
            capabilities: capabilities.clone(),
            instructions,
        });
        self.next_health_ms = self.config.ping_interval_ms.map(|p| now_ms + p);
        self.flush_queue(now_ms);
        self.after_ready(&capabilities, now_ms);
    }

    /// One JSON-RPC message (or a batch) arrived from the server.
    pub fn handle_message(&mut self, text: &str, now_ms: f64) {
        for msg in messages::parse_incoming(text) {
            match msg {
                Incoming::Response { id, result } => self.on_result(id, result, now_ms),
                Incoming::Error {
                    id: Some(id),
                    error,
                } => self.on_error(id, error, now_ms),
                Incoming::Error { id: None, error } => self.emit(SessionEvent::Notice(format!(
                    "The server reported an error not tied to a request: {} (code {}).",
                    error.message, error.code
                ))),
                Incoming::Request { id, method, params } => {
                    self.on_server_request(id, &method, params, text, now_ms)
                }
                Incoming::Notification { method, params } => {
                    self.on_notification(&method, &params, now_ms)
                }
                Incoming::Invalid(why) => self.emit(SessionEvent::Notice(format!(
                    "Ignored a message from the server: {why}."
                ))),
            }
        }
    }

    fn on_server_request(
        &mut self,
        id: RequestId,
        method: &str,
        params: Value,
        raw: &str,
        now_ms: f64,
    ) {
        if now_ms - self.asks.0 >= 1_000.0 {
            self.asks = (now_ms, 0);
        }
        self.asks.1 += 1;
        if self.asks.1 > MAX_SERVER_ASKS_PER_S {
            if !self.asks_limited {
                self.asks_limited = true;
                self.emit(SessionEvent::Notice(format!(
                    "The server asked more than {MAX_SERVER_ASKS_PER_S} requests (such as `{method}`) within one second; Skiff leaves the excess unanswered so the page stays responsive. This is said once per connection."
                )));
            }
            return;
        }
        let body = match method {
            "ping" => messages::response(&id, json!({})),
            // Held until answered (`answer_ask`): the MCP module asks the user (elicitation,
            // sampling) or the page reads the stored answer (roots). The session keeps
            // serving everything else meanwhile. An elicitation keeps its text: the form's
            // fields follow the schema's order, which parsed JSON does not keep.
            elicit::CREATE_METHOD => return self.on_ask(id, method, params, Some(raw)),
            SAMPLING_METHOD | ROOTS_METHOD => return self.on_ask(id, method, params, None),
            // We declare no other client capability, so nothing else may be asked of us.
            _ => messages::error_response(&id, messages::METHOD_NOT_FOUND, "Method not found"),
        };
        self.send_response(body);
    }

    fn on_notification(&mut self, method: &str, params: &Value, now_ms: f64) {
        match method {
            "notifications/progress" => self.on_progress(params, now_ms),
            "notifications/message" => {
                let log = messages::parse_log(params);
                self.emit(SessionEvent::Log {
                    level: log.level,
                    logger: log.logger,
                    data: log.data,
                });
            }
            "notifications/tools/list_changed" => self.relist(ListKind::Tools, now_ms),
            elicit::COMPLETE_NOTIFICATION => self.emit(SessionEvent::Notified {
                method: method.to_string(),
                params: params.clone(),
            }),
            "notifications/prompts/list_changed" => self.relist(ListKind::Prompts, now_ms),
            "notifications/resources/updated" | super::task::STATUS_NOTIFICATION => {
                self.emit(SessionEvent::Notified {
                    method: method.to_string(),
                    params: params.clone(),
                })
            }
            "notifications/resources/list_changed" => {
                self.relist(ListKind::Resources, now_ms);
                self.relist(ListKind::ResourceTemplates, now_ms);
            }
            types_2026::LISTEN_ACK => self.on_listen_ack(params),
            _ => {}
        }
    }

    pub(super) fn relist(&mut self, kind: ListKind, now_ms: f64) {
        if self.config.auto_list && self.phase.is_ready() {
            self.list_changed(kind, now_ms);
        }
    }

    fn on_result(&mut self, id: RequestId, result: Value, now_ms: f64) {
        let Some(p) = self.pending.remove(&id) else {
            self.late(&id);
            return;
        };
        match p.kind {
            PendingKind::Probe => {
                let (m, l) = (&self.config.modern_versions, &self.config.legacy_versions);
                match era::judge_discover_result(&result, m, l) {
                    ProbeVerdict::Modern { version, info } => {
                        self.caps_json = result["capabilities"].clone();
                        self.become_ready(
                            Era::Modern,
                            version,
                            info.server_info,
                            info.capabilities,
                            info.instructions,
                            now_ms,
                        )
                    }
                    ProbeVerdict::RetryWith(v) => self.start_probe(v, now_ms),
                    ProbeVerdict::Legacy => self.fall_back_to_legacy(
                        McpError::Protocol("the server/discover result was not usable".into()),
                        now_ms,
                    ),
                    ProbeVerdict::Incompatible(e) => self.fail(e),
                }
            }
            PendingKind::Initialize => self.on_initialize_result(&result, now_ms),
            PendingKind::Resume => {
                let kept = std::mem::take(&mut self.init_result);
                self.ready_from_initialize(&kept, false, now_ms)
            }
            PendingKind::ListPage(kind) => self.on_list_page(kind, &result, now_ms),
            PendingKind::Health => self.health_ok(p.sent_ms, now_ms),
            // The server closed the stream on purpose (shutting down, say).
            PendingKind::Listen => self.listen_ended(None),
            // Never sent, so no answer can be addressed to it.
            PendingKind::Filter { .. } => {}
            PendingKind::User { tool } => {
                if types_2026::result_type(&result) == "input_required" {
                    return self.on_input_required(id, p.method, p.params, tool, &result, now_ms);
                }
                self.emit(SessionEvent::Response {
                    id,
                    method: p.method,
                    result: Ok(result),
                });
            }
        }
    }

    fn on_initialize_result(&mut self, result: &Value, now_ms: f64) {
        self.ready_from_initialize(result, true, now_ms);
    }

    /// Become ready on the server's `initialize` result: one just received (`handshake`: say
    /// `initialized`) or the one kept with a resumed session (the server heard it already).
    fn ready_from_initialize(&mut self, result: &Value, handshake: bool, now_ms: f64) {
        let Some(version) = result.get("protocolVersion").and_then(Value::as_str) else {
            let e = McpError::Protocol("the initialize result has no protocolVersion".into());
            self.initialize_failed(e, now_ms);
            return;
        };
        if let Err(e) = era::judge_initialize_version(version, &self.config.legacy_versions) {
            self.fail(e);
            return;
        }
        self.caps_json = result["capabilities"].clone();
        self.init_result = result.clone();
        let capabilities = serde_json::from_value(self.caps_json.clone()).unwrap_or_default();
        let server_info = result
            .get("serverInfo")
            .and_then(|s| serde_json::from_value(s.clone()).ok());
        let instructions = result
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_string);
        self.version = Some(version.to_string());
        if handshake {
            self.send_notification("notifications/initialized", None);
        }
        self.become_ready(
            Era::Legacy,
            version.to_string(),
            server_info,
            capabilities,
            instructions,
            now_ms,
        );
    }

    fn on_error(&mut self, id: RequestId, error: RpcError, now_ms: f64) {
        let Some(p) = self.pending.remove(&id) else {
            self.late(&id);
            return;
        };
        match p.kind {
            PendingKind::Probe => {
                let (m, l) = (&self.config.modern_versions, &self.config.legacy_versions);
                match era::judge_discover_error(&error, m, l, &self.probe_versions) {
                    ProbeVerdict::RetryWith(v) => self.start_probe(v, now_ms),
                    ProbeVerdict::Legacy | ProbeVerdict::Modern { .. } => {
                        self.fall_back_to_legacy(error.into(), now_ms)
                    }
                    ProbeVerdict::Incompatible(e) => self.fail(e),
                }
            }
            PendingKind::Initialize => self.initialize_failed(error.into(), now_ms),
            // The server answered, but not as a live session does: start afresh.
            PendingKind::Resume => self.resume_refused(error.into(), now_ms),
            PendingKind::ListPage(kind) => self.list_failed(kind, error.into()),
            // Any JSON-RPC answer proves the server is alive, even "method not found".
            PendingKind::Health => self.health_ok(p.sent_ms, now_ms),
            PendingKind::Listen => self.listen_ended(Some(error.into())),
            PendingKind::Filter { .. } => {}
            PendingKind::User { .. } => self.user_error(id, p, error, now_ms),
        }
    }

    /// A caller's request got a JSON-RPC error. In the modern era an unsupported-version error
    /// means the server rejected the request before running it, so re-sending it with a
    /// version it offers is safe, even for a tool call.
    fn user_error(&mut self, id: RequestId, mut p: Pending, error: RpcError, now_ms: f64) {
        if let (Some(Era::Modern), Some(u)) = (self.era, types_2026::unsupported_version(&error)) {
            if let Some(v) = self.version.clone() {
                p.versions_tried.push(v);
            }
            let untried: Vec<String> = self
                .config
                .modern_versions
                .iter()
                .filter(|v| !p.versions_tried.contains(v))
                .cloned()
                .collect();
            if let Some(v) = era::pick_version(&untried, &u.supported) {
                self.version = Some(v);
                self.send_request(&id, &p.method, p.params.clone());
                p.deadline = Some(now_ms + self.config.request_timeout_ms);
                self.pending.insert(id, p);
                return;
            }
        }
        self.emit(SessionEvent::Response {
            id,
            method: p.method,
            result: Err(error.into()),
        });
    }

    fn late(&mut self, id: &RequestId) {
        self.emit(SessionEvent::Notice(format!(
            "Ignored an answer to request {id:?}, which is no longer waiting (cancelled or timed out)."
        )));
    }

    /// The transport could not deliver request `id` or could not get its answer (an HTTP
    /// error status, a stream that ended early). For the modern probe this is how a legacy
    /// server shows itself: a 4xx without a modern JSON-RPC error body.
    pub fn request_failed(&mut self, id: &RequestId, error: McpError, now_ms: f64) {
        let Some(p) = self.pending.remove(id) else {
            return;
        };
        match p.kind {
            PendingKind::Probe => match error {
                McpError::Auth { .. } | McpError::Network { .. } => self.fail(error),
                other => self.fall_back_to_legacy(other, now_ms),
            },
            PendingKind::Initialize => match error {
                McpError::Http { .. } | McpError::Protocol(_) => {
                    self.initialize_failed(error, now_ms)
                }
                other => self.fail(other),
            },
            PendingKind::Resume => match error {
                // No server to talk to, or a sign-in to do: the connection fails as a
                // handshake would (its reconnect starts afresh).
                McpError::Auth { .. } | McpError::Network { .. } => self.fail(error),
                other => self.resume_refused(other, now_ms),
            },
            PendingKind::ListPage(kind) => self.list_failed(kind, error),
            PendingKind::Health => self.health_failed(error, now_ms),
            PendingKind::Listen => self.listen_ended(Some(error)),
            PendingKind::Filter { .. } => self.emit(SessionEvent::Response {
                id: id.clone(),
                method: p.method,
                result: Err(error),
            }),
            PendingKind::User { tool } => {
                let error = match error {
                    McpError::ConnectionLost { reason, .. } => McpError::ConnectionLost {
                        reason,
                        in_flight_tool: tool,
                    },
                    other => other,
                };
                self.emit(SessionEvent::Response {
                    id: id.clone(),
                    method: p.method,
                    result: Err(error),
                });
            }
        }
    }
}
