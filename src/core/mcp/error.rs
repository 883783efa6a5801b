//! Every way talking to an MCP server can fail, as one typed enum whose `Display` is a sentence a
//! user can act on.
//!
//! The settings page shows these verbatim next to a server's status dot, and the agent loop hands
//! them to the model as tool errors, so each message says what happened and, where we know it,
//! what to do. It must never leak a Rust type name or a bare status code without context.

use std::fmt;

use serde_json::Value;

/// Why a request, a connection attempt or a transport failed.
#[derive(Debug, Clone, PartialEq)]
pub enum McpError {
    /// No answer before the deadline.
    Timeout { method: String, after_ms: u64 },
    /// Cancelled on our side (user pressed stop, or the caller gave up).
    Cancelled { reason: Option<String> },
    /// The connection dropped while the request was in flight. A tool call in that state may or
    /// may not have run on the server; it is never sent again automatically.
    ConnectionLost {
        reason: String,
        in_flight_tool: bool,
    },
    /// The server forgot our session (restart, expiry). A new session is being set up.
    SessionExpired { in_flight_tool: bool },
    /// A request was made while no connection exists.
    NotConnected,
    /// The server answered with a JSON-RPC error.
    Rpc {
        code: i64,
        message: String,
        data: Option<Value>,
    },
    /// No protocol version both sides speak.
    UnsupportedVersion {
        ours: Vec<String>,
        theirs: Vec<String>,
    },
    /// The server broke the protocol (malformed message, wrong shape).
    Protocol(String),
    /// An HTTP status we cannot use, with the start of the body.
    Http {
        status: u16,
        body: String,
        hint: Option<String>,
    },
    /// 401 or 403: the server wants credentials we did not send, or refused them.
    Auth { status: u16 },
    /// The request never got an HTTP answer (offline, refused, CORS, mixed content).
    Network {
        message: String,
        hint: Option<String>,
    },
    /// Streamable HTTP failed in a way that allowed the old HTTP+SSE transport, and that failed
    /// too: both causes are kept, since the first is usually the real one.
    BothTransportsFailed {
        streamable: Box<McpError>,
        sse: Box<McpError>,
    },
    /// The browser could not send a `tools/call` carrying these `Mcp-Param-*` headers, most
    /// likely because the server's CORS rules do not allow them.
    HeadersNotAllowed { headers: Vec<String> },
    /// A paginated list did not end (a server returning cursors forever, or repeating one).
    EndlessPagination { method: String, pages: usize },
    /// The connection was accepted but the MCP handshake did not finish in time.
    HandshakeTimeout { after_ms: u64 },
    /// A legacy HTTP+SSE server named a message endpoint on another origin than its SSE URL.
    /// Following it would send the server's custom headers (its credentials) to that origin.
    EndpointElsewhere {
        sse_origin: String,
        endpoint: String,
    },
    /// The server answered a request that carries credentials with a redirect, which Skiff
    /// does not follow: the browser would resend the headers to wherever it points. `to` is
    /// where it pointed, when the browser tells (with manual redirects it usually does not).
    RedirectRefused { to: Option<String> },
    /// A modern-era resource subscription (`resourceSubscriptions` in the listen filter) that
    /// did not take; `uri` is the resource's.
    Subscription {
        uri: String,
        why: SubscriptionRefusal,
    },
    /// A tool that only runs as a task (`execution.taskSupport: required`), on a server that
    /// does not announce task-augmented tool calls (`mcp::task::call_mode`).
    TaskRequired,
    /// The task behind a tool call ended without a result: the server cancelled it, or no
    /// longer knows it (its session ended with a reloaded page). It may have run.
    TaskLost { task_id: String, reason: String },
}

/// Why a modern-era subscription did not take.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubscriptionRefusal {
    /// The request named no resource (`params.uri` missing or not a string).
    NoUri,
    /// The server does not declare `resources.subscribe`.
    NotOffered,
    /// The server acknowledged the new filter without this URI.
    NotHonoured,
    /// The listen stream ended (or was refused) before the server acknowledged it.
    StreamEnded,
}

impl McpError {
    /// Whether the error happened to a tool call that may have run on the server.
    pub fn tool_may_have_run(&self) -> bool {
        matches!(
            self,
            McpError::ConnectionLost {
                in_flight_tool: true,
                ..
            } | McpError::SessionExpired {
                in_flight_tool: true
            } | McpError::TaskLost { .. }
        )
    }

    /// A short cause to embed in another sentence ("The connection to the server was lost
    /// (…)"), where the full sentence, with its own advice, would nest and mislead: CORS advice
    /// is wrong for a server that was answering a moment ago.
    pub fn cause(&self) -> String {
        match self {
            McpError::Network { message, .. } => format!("the server stopped answering: {message}"),
            McpError::ConnectionLost { reason, .. } => reason.clone(),
            McpError::Http { status, .. } => format!("HTTP {status}"),
            McpError::Timeout { method, after_ms } => {
                format!("{method} got no answer in {} s", after_ms / 1000)
            }
            McpError::HandshakeTimeout { after_ms } => {
                format!("the handshake got no answer in {} s", after_ms / 1000)
            }
            other => other.to_string().trim_end_matches('.').to_string(),
        }
    }

    /// Whether this is Skiff refusing to send credentials to another origin (an endpoint
    /// elsewhere, a redirect): the same settings meet it again, so it is shown, not retried.
    pub fn refuses_to_leave_origin(&self) -> bool {
        match self {
            McpError::EndpointElsewhere { .. } | McpError::RedirectRefused { .. } => true,
            McpError::BothTransportsFailed { sse, .. } => sse.refuses_to_leave_origin(),
            _ => false,
        }
    }

    /// The JSON-RPC error code, when the server sent one.
    pub fn rpc_code(&self) -> Option<i64> {
        match self {
            McpError::Rpc { code, .. } => Some(*code),
            _ => None,
        }
    }
}

const NOT_RESENT: &str = "The tool call may or may not have run on the server; Skiff did not send it again. Check the server's state before retrying.";

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            McpError::Timeout { method, after_ms } => write!(
                f,
                "The server did not answer `{method}` within {} s. It may be overloaded or stuck; try again, or raise the timeout in the server's settings.",
                crate::format::decimal(*after_ms as f64 / 1000.0)
            ),
            McpError::Cancelled { reason: Some(r) } => write!(f, "The request was cancelled ({r})."),
            McpError::Cancelled { reason: None } => write!(f, "The request was cancelled."),
            McpError::ConnectionLost { reason, in_flight_tool } => {
                write!(f, "The connection to the server was lost ({reason}).")?;
                if *in_flight_tool {
                    write!(f, " {NOT_RESENT}")?;
                }
                Ok(())
            }
            McpError::SessionExpired { in_flight_tool } => {
                write!(f, "The server ended the session (it probably restarted); Skiff is opening a new one.")?;
                if *in_flight_tool {
                    write!(f, " {NOT_RESENT}")?;
                }
                Ok(())
            }
            McpError::NotConnected => write!(
                f,
                "This MCP server is not connected. Enable it or press \"retry now\" in Settings."
            ),
            McpError::Rpc { code, message, .. } => {
                write!(f, "The server answered with an error: {message} (code {code}).")
            }
            McpError::UnsupportedVersion { ours, theirs } => write!(
                f,
                "The server speaks MCP {} but Skiff speaks {}; there is no version in common. Update the server or Skiff.",
                list_or_unknown(theirs),
                ours.join(", ")
            ),
            McpError::Protocol(detail) => write!(
                f,
                "The server sent something that is not valid MCP ({detail})."
            ),
            McpError::Http { status, body, hint } => {
                write!(f, "The server answered HTTP {status}")?;
                let body = body.trim();
                if !body.is_empty() {
                    write!(f, ": {body}")?;
                }
                write!(f, ".")?;
                if let Some(h) = hint {
                    write!(f, " {h}")?;
                }
                Ok(())
            }
            // Both ways in, as the user can act on them: "Add or fix the Authorization header"
            // alone read as a contradiction beside the card's "Sign in required".
            McpError::Auth { status } => write!(
                f,
                "The server refused access (HTTP {status}): it wants to know who you are. Sign \
                 in if it offers a sign-in (Account on its card), or add its Authorization \
                 header in this server's settings."
            ),
            McpError::Network { message, hint } => {
                write!(f, "Could not reach the server ({message}).")?;
                if let Some(h) = hint {
                    write!(f, " {h}")?;
                }
                Ok(())
            }
            McpError::BothTransportsFailed { streamable, sse } => write!(
                f,
                "Neither MCP transport worked. Streamable HTTP: {streamable} Legacy HTTP+SSE: {sse}"
            ),
            McpError::EndlessPagination { method, pages } => write!(
                f,
                "The server kept returning more pages for `{method}` (stopped after {pages}); its pagination looks broken."
            ),
            McpError::HandshakeTimeout { after_ms } => write!(
                f,
                "The server accepted the connection but did not finish the MCP handshake within {} s. It may be stuck, or this URL may not be an MCP endpoint; Skiff keeps retrying.",
                after_ms / 1000
            ),
            McpError::EndpointElsewhere { sse_origin, endpoint } => write!(
                f,
                "The server at {sse_origin} told Skiff to send its messages to {endpoint}, another origin. Skiff refused, because that would send this server's headers (its keys or tokens) elsewhere. Use the message URL the server's own origin serves, or fix the server."
            ),
            McpError::HeadersNotAllowed { headers } => write!(
                f,
                "The browser could not send this call: the tool needs the header{} {}, which the server's CORS settings most likely do not allow. Its operator must list {} in Access-Control-Allow-Headers; the server's other tools are not affected.",
                if headers.len() == 1 { "" } else { "s" },
                headers.join(", "),
                if headers.len() == 1 { "it" } else { "them" }
            ),
            McpError::TaskRequired => write!(f, "{}", crate::mcp::task::Unsupported),
            McpError::TaskLost { task_id, reason } => write!(
                f,
                "The task behind this call ({task_id}) ended without a result: {reason}. {NOT_RESENT}"
            ),
            McpError::RedirectRefused { to } => {
                write!(f, "The server tried to redirect the request elsewhere")?;
                match to {
                    Some(to) => write!(f, " (to {to})")?,
                    None => write!(f, " (the browser does not reveal where to)")?,
                }
                write!(f, "; Skiff did not follow, because the request carries this server's headers (keys or tokens) that must not leave its origin. Use the final URL in the server's settings.")
            }
            McpError::Subscription { uri, why } => match why {
                SubscriptionRefusal::NoUri => write!(f, "A subscription must name the resource's URI (params.uri)."),
                SubscriptionRefusal::NotOffered => write!(f, "This server does not offer resource subscriptions, so Skiff cannot follow {uri}."),
                SubscriptionRefusal::NotHonoured => write!(f, "The server acknowledged the subscriptions without {uri}, so it will not say when that resource changes."),
                SubscriptionRefusal::StreamEnded => write!(f, "The server closed its notification stream before confirming the subscription to {uri}. Try again; if it keeps happening, the server may not support subscriptions."),
            },
        }
    }
}

fn list_or_unknown(v: &[String]) -> String {
    if v.is_empty() {
        "an unknown version".to_string()
    } else {
        v.join(", ")
    }
}

impl std::error::Error for McpError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_name_the_cause_and_the_next_step() {
        let e = McpError::ConnectionLost {
            reason: "stream ended".into(),
            in_flight_tool: true,
        };
        let s = e.to_string();
        assert!(
            s.contains("stream ended") && s.contains("did not send it again"),
            "{s}"
        );
        assert!(e.tool_may_have_run());
        let e = McpError::BothTransportsFailed {
            streamable: Box::new(McpError::Http {
                status: 404,
                body: "Cannot POST /sse".into(),
                hint: None,
            }),
            sse: Box::new(McpError::Auth { status: 401 }),
        };
        let s = e.to_string();
        assert!(s.contains("HTTP 404") && s.contains("HTTP 401"), "{s}");
        // Sign-in first, the header second; never only the header (issue 32).
        let a = McpError::Auth { status: 401 }.to_string();
        assert!(
            a.contains("HTTP 401")
                && matches!(
                    (a.find("Sign in"), a.find("Authorization header")),
                    (Some(x), Some(y)) if x < y
                ),
            "{a}"
        );
        let t = McpError::Timeout {
            method: "tools/call".into(),
            after_ms: 1500,
        };
        assert!(t.to_string().contains("1.5 s"), "{t}");
    }

    #[test]
    fn refusals_to_leave_the_origin_say_so() {
        let e = McpError::RedirectRefused { to: None };
        let s = e.to_string();
        assert!(
            s.contains("redirect the request elsewhere")
                && s.contains("did not follow")
                && s.contains("does not reveal"),
            "{s}"
        );
        let e = McpError::RedirectRefused {
            to: Some("http://evil.example/x".into()),
        };
        assert!(e.to_string().contains("http://evil.example/x"));
        let e = McpError::EndpointElsewhere {
            sse_origin: "http://127.0.0.1:1".into(),
            endpoint: "http://127.0.0.1:2/message".into(),
        };
        let s = e.to_string();
        assert!(s.contains("another origin") && s.contains("refused"), "{s}");
    }

    #[test]
    fn a_lost_connection_names_its_cause_without_nesting_advice() {
        let net = McpError::Network {
            message: "TypeError: Failed to fetch".into(),
            hint: None,
        };
        let lost = McpError::ConnectionLost {
            reason: net.cause(),
            in_flight_tool: true,
        };
        let text = lost.to_string();
        assert!(text.starts_with("The connection to the server was lost (the server stopped answering: TypeError: Failed to fetch)."), "{text}");
        assert!(!text.contains("CORS"), "{text}");
    }
}
