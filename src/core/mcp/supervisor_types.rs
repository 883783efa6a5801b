//! The values `Supervisor` takes and hands back: what a server is (`Setup`), what a caller asks
//! (`Request`), what a WebSocket reported (`WsReport`) and what the browser must do (`Action`).
//! Kept apart from the machine so the driver can read them without wading through its logic.

use crate::mcp::model::Tool;
use serde_json::{Map, Value};

use super::backoff::HealthStatus;
use super::config::ServerConfig;
use super::era::{Era, EraCache};
use super::error::McpError;
use super::http_common::Token;
use crate::http::HttpRequest;

/// Identifies one connection attempt. Everything the browser reports about IO carries the link
/// it was started for; reports about an older link are ignored, so nothing of a dead
/// connection can reach the next one.
pub type LinkId = u64;

/// Identifies one caller's request for its whole life (a JSON-RPC id is per session and a
/// reconnect would reuse it).
pub type CallKey = u64;

/// Identifies one question a server asked the user, for the UI's answer.
pub type ElicitKey = u64;

/// How the server is reached, read again at every connect so an edit takes effect on
/// reconnect.
#[derive(Debug, Clone, PartialEq)]
pub struct Setup {
    pub config: ServerConfig,
    /// What a previous connection detected (decides which era is tried first).
    pub era_cache: Option<EraCache>,
    /// Whether the page itself is served over https (mixed-content diagnosis).
    pub page_is_https: bool,
}

/// A server living in the page (built-in tools) or one reached over the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerKind {
    Remote,
    InPage,
}

/// A caller's request.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    Tool {
        name: String,
        args: Map<String, Value>,
    },
    /// Any other request, params as the MCP module built them (`resources/read`,
    /// `prompts/get`, `completion/complete`, `resources/subscribe`, ...).
    Raw {
        method: String,
        params: Option<Value>,
    },
    Ping,
    /// Follow a task a tool call created before the page reloaded (`tasks/get` …
    /// `tasks/result`); the tool itself is never called again.
    FollowTask {
        task_id: String,
    },
}

/// What the browser's WebSocket reported.
#[derive(Debug, Clone, PartialEq)]
pub enum WsReport {
    Open {
        protocol: String,
    },
    Text(String),
    Binary(usize),
    Error,
    Closed {
        code: u16,
        reason: String,
        was_clean: bool,
    },
    /// The socket could not be created at all (bad URL, blocked port) or could not send.
    Failed(String),
}

/// What the browser must do next, in order.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Perform this exchange and report its head, chunks and end (or error) under `token`.
    Fetch {
        link: LinkId,
        token: Token,
        request: HttpRequest,
    },
    /// Stop reading exchange `token`.
    Abort {
        link: LinkId,
        token: Token,
    },
    /// Perform a request whose answer nobody reads (the session DELETE on disconnect).
    Goodbye(HttpRequest),
    OpenSocket {
        link: LinkId,
        url: String,
        protocols: Vec<String>,
    },
    SendFrame {
        link: LinkId,
        text: String,
    },
    CloseSocket {
        link: LinkId,
        code: u16,
        reason: String,
    },
    /// Hand this message to the in-page server; feed each answer to `handle_in_page_message`.
    ToInPage {
        link: LinkId,
        text: String,
    },
    /// Everything of `link` still running (fetches, the socket) can be stopped and forgotten.
    DropLink(LinkId),
    Status(HealthStatus),
    /// Say outside Settings that this server failed (once per failure, see
    /// `Supervisor::notice_failure`); the sentence names the server.
    FailureNotice(String),
    /// The server connected again after a [`Action::FailureNotice`]: the notice is stale.
    Recovered,
    /// What the status line calls the transport ("Streamable HTTP", "WebSocket", ...).
    Transport(&'static str),
    Log(String),
    /// The server answered something at this time.
    Checked(f64),
    Negotiated {
        era: Era,
        version: String,
        server_info: Option<String>,
        instructions: Option<String>,
        /// The server's icon, if one may be shown (`mcp::icon::pick`).
        icon: Option<crate::mcp::icon::IconSource>,
        /// The server's capabilities as it sent them, for the MCP module (subscribe,
        /// completions).
        capabilities: Value,
    },
    Tools(Vec<Tool>),
    /// Resources, templates and prompts: the server's JSON, for the MCP module.
    Resources(Vec<Value>),
    ResourceTemplates(Vec<Value>),
    Prompts(Vec<Value>),
    /// Persist what era this server speaks.
    EraDetected(EraCache),
    /// Keep this record (`kept_session::encode`) for this tab under
    /// `kept_session::storage_key`, or remove the one kept (`None`): the session a reloaded
    /// page takes up again.
    KeepSession(Option<String>),
    /// The answer to a caller's request.
    Reply {
        key: CallKey,
        result: Result<Value, McpError>,
    },
    /// The task behind tool call `key` was created or changed status (store it with the call).
    Task {
        key: CallKey,
        task: crate::records::task::TaskRef,
    },
    Progress {
        key: CallKey,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    /// The request `key` (`Ask`) can no longer be answered (its connection ended).
    ElicitGone {
        key: ElicitKey,
    },
    /// Every tool call that was running when the server asked `key` has been answered: the
    /// server went on (a URL step it asked for is over even if it never says so).
    AskSettled {
        key: ElicitKey,
    },
    /// The server asks `method` (`elicitation/create`, `sampling/createMessage`,
    /// `roots/list`) and waits; answer with `handle_ask_answer(key)`. `raw` is an
    /// elicitation's message text (its form's field order).
    Ask {
        key: ElicitKey,
        method: String,
        params: Value,
        raw: Option<String>,
    },
    /// A notification the MCP module follows (`notifications/resources/updated`,
    /// `notifications/elicitation/complete`).
    Notified {
        method: String,
        params: Value,
    },
}
