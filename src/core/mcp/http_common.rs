//! Pieces both HTTP transports share: the per-server target (URL, custom headers, CORS proxy),
//! the actions a transport asks the platform to perform, the events it reports back, and the
//! sentence for a fetch that failed before any HTTP answer.

use crate::http::HttpRequest;

use super::error::McpError;
use super::messages::RequestId;
use super::session_types::SendMeta;

/// One server as the HTTP transports see it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HttpTarget {
    pub url: String,
    /// Custom headers (e.g. `Authorization`), sent on every request.
    pub headers: Vec<(String, String)>,
    /// CORS proxy prefix; the real URL is appended to it.
    pub proxy: Option<String>,
    /// Whether the page runs on https (for the mixed-content diagnosis).
    pub page_is_https: bool,
}

impl HttpTarget {
    pub fn new(url: &str) -> Self {
        HttpTarget {
            url: url.trim().to_string(),
            ..Default::default()
        }
    }

    /// The URL to fetch for `url`, through the proxy if one is set.
    pub fn fetch_url(&self, url: &str) -> String {
        match self
            .proxy
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            None => url.to_string(),
            // `?url=`-style proxies take the URL as is; path-style ones (cors-anywhere) need
            // exactly one slash between prefix and URL.
            Some(p) if p.ends_with('=') || p.ends_with('?') || p.ends_with('/') => {
                format!("{p}{url}")
            }
            Some(p) => format!("{p}/{url}"),
        }
    }
}

/// Opaque handle for one HTTP exchange, chosen by the transport.
pub type Token = u64;

/// What the platform must do.
#[derive(Debug, Clone, PartialEq)]
pub enum HttpAction {
    /// Perform this request and report its head, body chunks and end (or failure) under
    /// `token`. `streaming` bodies (SSE) must be fed as they arrive, not at the end.
    Fetch {
        token: Token,
        request: HttpRequest,
        streaming: bool,
    },
    /// Stop the exchange `token` (its answer is no longer wanted).
    Abort(Token),
    /// Hand this to the session / the connection logic.
    Deliver(TransportEvent),
}

/// What the transport learned, for the session.
#[derive(Debug, Clone, PartialEq)]
pub enum TransportEvent {
    /// A JSON-RPC message for `McpSession::handle_message`.
    Message(String),
    /// For `McpSession::request_failed`.
    RequestFailed {
        id: RequestId,
        error: McpError,
    },
    /// For `McpSession::session_expired_refusing`: `refused` is the request whose POST the
    /// server refused for the expired session, so it never ran.
    SessionExpired {
        refused: Option<RequestId>,
    },
    /// The first `initialize` POST was refused the way an old HTTP+SSE server refuses it:
    /// switch to `LegacySse` and send the pending `initialize` (given back here) there.
    TryLegacySse {
        streamable_error: McpError,
        initialize: String,
        meta: SendMeta,
    },
    /// For `McpSession::transport_lost`.
    TransportLost(McpError),
    /// For `McpSession::listener_opened`: the server's notification stream is open.
    ListenerOpened,
    Notice(String),
}

/// Header names Skiff may send besides the CORS-safelisted ones; a server must allow them in
/// `Access-Control-Allow-Headers` or the browser blocks the request before it leaves.
pub fn custom_header_names(target: &HttpTarget) -> Vec<String> {
    let mut names: Vec<String> = ["content-type", "mcp-protocol-version", "mcp-session-id"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for (k, _) in &target.headers {
        let k = k.to_ascii_lowercase();
        if !names.contains(&k) {
            names.push(k);
        }
    }
    names
}

/// Turn a fetch that failed without an HTTP answer (the browser's bare "Failed to fetch") into
/// an error naming the likely cause.
pub fn describe_fetch_failure(target: &HttpTarget, url: &str, message: &str) -> McpError {
    let hint = if crate::http::blocked_as_mixed_content(target.page_is_https, url) {
        "This page is served over https and the server over plain http: the browser blocks that as mixed content. Use an https URL for the server (or an https CORS proxy).".to_string()
    } else {
        let proxy = if target.proxy.is_some() {
            " Check that the CORS proxy is running."
        } else {
            " If the server cannot be changed, set a CORS proxy for it in Settings."
        };
        format!(
            "The server may be down, or it does not allow this page's origin (CORS): it must answer the preflight with Access-Control-Allow-Origin and allow the request headers {}, and expose Mcp-Session-Id with Access-Control-Expose-Headers.{proxy}",
            custom_header_names(target).join(", ")
        )
    };
    McpError::Network {
        message: message.trim().to_string(),
        hint: Some(hint),
    }
}

/// The start of an error body, for a one-line message.
pub fn snippet(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 300 {
        let cut: String = one_line.chars().take(300).collect();
        format!("{cut}…")
    } else {
        one_line
    }
}

/// Case-insensitive header lookup in a response head.
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proxy_prefix_forms() {
        let mut t = HttpTarget::new("http://h/mcp");
        assert_eq!(t.fetch_url("http://h/mcp"), "http://h/mcp");
        t.proxy = Some("http://127.0.0.1:8080".into());
        assert_eq!(
            t.fetch_url("http://h/mcp"),
            "http://127.0.0.1:8080/http://h/mcp"
        );
        t.proxy = Some("http://127.0.0.1:8080/".into());
        assert_eq!(
            t.fetch_url("http://h/mcp"),
            "http://127.0.0.1:8080/http://h/mcp"
        );
        t.proxy = Some("https://p/?url=".into());
        assert_eq!(t.fetch_url("http://h/mcp"), "https://p/?url=http://h/mcp");
    }

    #[test]
    fn fetch_failures_name_the_likely_cause() {
        let mut t = HttpTarget::new("http://example.com/mcp");
        t.headers.push(("Authorization".into(), "Bearer x".into()));
        let cors = describe_fetch_failure(&t, &t.url.clone(), "Failed to fetch").to_string();
        assert!(
            cors.contains("mcp-session-id") && cors.contains("authorization"),
            "{cors}"
        );
        assert!(cors.contains("Expose-Headers"), "{cors}");
        t.page_is_https = true;
        let mixed = describe_fetch_failure(&t, &t.url.clone(), "Failed to fetch").to_string();
        assert!(mixed.contains("mixed content"), "{mixed}");
        // Browsers let https pages call http://127.0.0.1, so that is not mixed content.
        let local = describe_fetch_failure(&t, "http://127.0.0.1:3001/mcp", "Failed to fetch");
        assert!(!local.to_string().contains("mixed content"));
    }
}
