//! The in-memory transport's seam: an MCP server that lives in the page (built-in tools), reached
//! through the same `McpSession` as remote servers, so requests, cancellation, timeouts, the
//! tool index and the settings page treat it exactly like any other server.
//!
//! The contract is the legacy handshake (the session runs with `legacy_only`): the server must
//! answer `initialize` (protocolVersion one of `skiff_core::mcp::era::LEGACY_VERSIONS`), and
//! then `tools/list`, `tools/call` and whatever its capabilities announce. It is never pinged.

/// An MCP server running inside the page.
pub trait InPageServer {
    /// Every JSON-RPC message the session sends (requests, notifications, responses), one at a
    /// time, serialized. Return the messages the server sends back, serialized: usually one
    /// response for a request and none for a notification; notifications (progress, log,
    /// `list_changed`) may come before the response.
    fn handle(&mut self, message_json: &str) -> Vec<String>;
}

impl<F> InPageServer for F
where
    F: FnMut(&str) -> Vec<String>,
{
    fn handle(&mut self, message_json: &str) -> Vec<String> {
        self(message_json)
    }
}
