//! The values `McpSession` takes and hands back: its configuration, its phases, the events it
//! reports and the outputs a transport must act on. Kept apart from the state machine so the
//! store and the transports can read them without wading through its logic.

use crate::mcp::model::{Implementation, ServerCapabilities, Tool};
use serde_json::Value;

use super::era::{self, Era, EraCache};
use super::error::McpError;
use super::messages::{ListKind, RequestId};

/// How a session behaves. Times are milliseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionConfig {
    pub client_name: String,
    pub client_version: String,
    /// Modern versions we speak, preferred first.
    pub modern_versions: Vec<String>,
    /// Legacy versions we speak, preferred first.
    pub legacy_versions: Vec<String>,
    /// How long a request may wait for its answer; progress notifications extend it.
    pub request_timeout_ms: f64,
    /// The most a request may take even while progress keeps arriving.
    pub max_request_ms: f64,
    /// Health check period once connected; `None` disables it.
    pub ping_interval_ms: Option<f64>,
    /// List tools/resources/prompts on connect and on `list_changed`.
    pub auto_list: bool,
    /// What a previous connection detected; decides which era is tried first.
    pub era_cache: Option<EraCache>,
    /// Modern era only: ask for log notifications at this level (`_meta` logLevel).
    pub log_level: Option<String>,
    /// Safety stop for servers whose cursors never end.
    pub max_list_pages: usize,
    /// The transport has no modern binding (WebSocket, `mcp[ws]<2`): skip the modern probe and
    /// speak the legacy `initialize` handshake only.
    pub legacy_only: bool,
    /// Modern era: the resource URIs to ask updates for on the first listen stream (the
    /// supervisor carries them from the session before, so a reconnect keeps them).
    pub resource_subscriptions: Vec<String>,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            client_name: "skiff".into(),
            client_version: env!("CARGO_PKG_VERSION").into(),
            modern_versions: era::default_modern(),
            legacy_versions: era::default_legacy(),
            request_timeout_ms: 60_000.0,
            max_request_ms: 600_000.0,
            ping_interval_ms: Some(30_000.0),
            auto_list: true,
            era_cache: None,
            log_level: None,
            max_list_pages: 100,
            legacy_only: false,
            resource_subscriptions: Vec::new(),
        }
    }
}

/// Where the session is.
// `Ready` carries the server's capabilities; phases change a handful of times per connection,
// so the size is not worth a box every consumer must see through.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    Idle,
    /// Modern probe (`server/discover`) in flight.
    Discovering,
    /// Legacy `initialize` handshake in flight.
    Initializing,
    Ready {
        version: String,
        era: Era,
        server_info: Option<Implementation>,
        capabilities: ServerCapabilities,
        instructions: Option<String>,
    },
    Failed(McpError),
}

impl Phase {
    pub fn is_ready(&self) -> bool {
        matches!(self, Phase::Ready { .. })
    }

    pub fn is_connecting(&self) -> bool {
        matches!(self, Phase::Discovering | Phase::Initializing)
    }
}

/// What happened, for the store and the UI.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum SessionEvent {
    StateChanged(Phase),
    /// The era/version differs from the configured cache: persist this.
    EraDetected(EraCache),
    ToolsListed(Vec<Tool>),
    ResourcesListed(Vec<Value>),
    ResourceTemplatesListed(Vec<Value>),
    PromptsListed(Vec<Value>),
    ListFailed {
        kind: ListKind,
        error: McpError,
    },
    /// Entries of a list that did not decode; the rest of the list was still delivered.
    ListEntriesSkipped {
        kind: ListKind,
        entries: Vec<String>,
    },
    /// The answer to `call_tool`, `request` (`read_resource`) or `ping`.
    Response {
        id: RequestId,
        method: String,
        result: Result<Value, McpError>,
    },
    Progress {
        id: RequestId,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    /// `notifications/message` from the server.
    Log {
        level: String,
        logger: Option<String>,
        data: Value,
    },
    HealthOk {
        rtt_ms: f64,
        at_ms: f64,
    },
    /// The periodic health check failed; the store treats this like a lost transport.
    HealthFailed {
        error: McpError,
        at_ms: f64,
    },
    /// Something odd the server did that changed nothing (a late answer, an invalid message).
    Notice(String),
    /// The held request `id` (`Ask`) can no longer be answered (the session ended).
    ElicitGone {
        id: RequestId,
    },
    /// The server asks `method` (elicitation, sampling, roots) and waits; answer with
    /// `answer_ask(id)`. Withdrawn with `ElicitGone` when the session ends. `raw` is the
    /// message's text for an elicitation (its form's field order).
    Ask {
        id: RequestId,
        method: String,
        params: Value,
        raw: Option<String>,
    },
    /// A notification for the MCP module (`notifications/resources/updated`).
    Notified {
        method: String,
        params: Value,
    },
}

/// What kind of JSON-RPC message is being sent; HTTP transports expect 202 for the last two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SendKind {
    Request,
    Notification,
    Response,
}

/// Everything a transport needs to send a message correctly.
#[derive(Debug, Clone, PartialEq)]
pub struct SendMeta {
    pub kind: SendKind,
    /// The request id, for requests.
    pub id: Option<RequestId>,
    /// The JSON-RPC method (empty for responses); Streamable HTTP mirrors it in `Mcp-Method`.
    pub method: String,
    /// `params.name` or `params.uri`, mirrored in `Mcp-Name` by modern Streamable HTTP.
    pub name: Option<String>,
    /// Value of the `MCP-Protocol-Version` header: `None` before a version is negotiated.
    pub protocol_version: Option<String>,
    pub era: Option<Era>,
    /// Opens a stream that stays open (`subscriptions/listen`): no timeout at transport level.
    pub long_lived: bool,
    /// `Mcp-Param-*` headers a modern `tools/call` mirrors from its arguments
    /// (`mcp::param_headers`); empty otherwise.
    pub param_headers: Vec<(String, String)>,
}

/// What the caller must do next.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// Send this serialized JSON-RPC message.
    Send(String, SendMeta),
    /// Stop reading the transport stream that carries this request's answer (it was cancelled
    /// or timed out). On modern Streamable HTTP closing that stream *is* the cancellation.
    Abort(RequestId),
    Event(SessionEvent),
}
