//! A plain description of an HTTP request, built by the provider codecs and performed by
//! `platform::fetch`. Keeping it a value lets tests compare requests byte for byte.

/// HTTP method; only what Skiff sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Delete => "DELETE",
        }
    }
}

/// A request ready to be performed. `headers` keeps insertion order so tests are stable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: Method,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
}

impl HttpRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether this request carries something that must never leave the origin it was meant
    /// for: a key, a token, a session id or any header the user configured. The platform sends
    /// such requests with `redirect: "manual"`, so a redirect to another origin cannot carry
    /// them there (a browser following a redirect keeps custom headers). Only the protocol's
    /// own harmless headers allow a redirect to be followed.
    pub fn carries_credentials(&self) -> bool {
        const HARMLESS: [&str; 6] = [
            "accept",
            "content-type",
            "mcp-protocol-version",
            "mcp-method",
            "mcp-name",
            "last-event-id",
        ];
        self.headers
            .iter()
            .any(|(k, _)| !HARMLESS.iter().any(|h| k.eq_ignore_ascii_case(h)))
    }

    /// The headers a server must allow by name (`Access-Control-Allow-Headers`) before a
    /// browser sends this request cross-origin: all but the CORS-safelisted ones (Fetch
    /// standard), lower-cased, in order. `Content-Type` is safelisted only for the three
    /// form and text types.
    pub fn cors_headers(&self) -> Vec<String> {
        self.headers
            .iter()
            .filter(|(k, v)| {
                let k = k.to_ascii_lowercase();
                let form = [
                    "application/x-www-form-urlencoded",
                    "multipart/form-data",
                    "text/plain",
                ]
                .iter()
                .any(|t| v.trim().to_ascii_lowercase().starts_with(t));
                !(matches!(
                    k.as_str(),
                    "accept" | "accept-language" | "content-language"
                ) || (k == "content-type" && form))
            })
            .map(|(k, _)| k.to_ascii_lowercase())
            .collect()
    }
}

/// The origin (`scheme://host[:port]`, lower-cased) of an absolute http(s) URL, or `None`
/// when `url` is not one. Default ports are dropped so `https://a:443` and `https://a` match.
pub fn origin_of(url: &str) -> Option<String> {
    let url = url.trim();
    let (scheme, rest) = url.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return None;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    // Userinfo is not part of the origin.
    let host_port = authority
        .rsplit_once('@')
        .map(|(_, h)| h)
        .unwrap_or(authority);
    if host_port.is_empty() {
        return None;
    }
    let mut host_port = host_port.to_ascii_lowercase();
    let default = if scheme == "http" { ":80" } else { ":443" };
    if let Some(stripped) = host_port.strip_suffix(default) {
        host_port = stripped.to_string();
    }
    Some(format!("{scheme}://{host_port}"))
}

/// Join a user-typed base URL and a path, tolerating a trailing slash on the base and
/// surrounding whitespace, which users paste all the time.
pub fn join_url(base: &str, path: &str) -> String {
    let base = base.trim().trim_end_matches('/');
    let path = path.trim_start_matches('/');
    format!("{base}/{path}")
}

/// Whether a browser on an https page refuses to fetch `url` as mixed content. Browsers treat
/// loopback (`localhost`, `127.x`, `[::1]`) as trustworthy, so local servers are fine.
pub fn blocked_as_mixed_content(page_is_https: bool, url: &str) -> bool {
    let lower = url.trim().to_ascii_lowercase();
    let Some(rest) = lower.strip_prefix("http://") else {
        return false;
    };
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = host.rsplit_once('@').map(|(_, h)| h).unwrap_or(host);
    let loopback =
        host.starts_with("localhost") || host.starts_with("127.") || host.starts_with("[::1]");
    page_is_https && !loopback
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixed_content_only_for_remote_plain_http_from_https() {
        assert!(blocked_as_mixed_content(true, "http://example.com/v1"));
        assert!(blocked_as_mixed_content(
            true,
            " HTTP://user@10.0.0.2:8080/v1"
        ));
        assert!(!blocked_as_mixed_content(true, "http://127.0.0.1:8080/v1"));
        assert!(!blocked_as_mixed_content(true, "http://localhost:11434/v1"));
        assert!(!blocked_as_mixed_content(true, "http://[::1]:1234/v1"));
        assert!(!blocked_as_mixed_content(true, "https://example.com/v1"));
        assert!(!blocked_as_mixed_content(false, "http://example.com/v1"));
    }

    #[test]
    fn keys_tokens_and_custom_headers_count_as_credentials() {
        let mut r = HttpRequest {
            method: Method::Post,
            url: "http://a/mcp".into(),
            headers: vec![
                ("Content-Type".into(), "application/json".into()),
                ("Accept".into(), "text/event-stream".into()),
                ("MCP-Protocol-Version".into(), "2025-06-18".into()),
            ],
            body: None,
        };
        assert!(!r.carries_credentials());
        for name in ["Authorization", "x-api-key", "Mcp-Session-Id", "X-Custom"] {
            r.headers.push((name.into(), "v".into()));
            assert!(r.carries_credentials(), "{name}");
            r.headers.pop();
        }
    }

    #[test]
    fn origins_compare_scheme_host_and_port() {
        assert_eq!(
            origin_of("http://127.0.0.1:3001/sse").as_deref(),
            Some("http://127.0.0.1:3001")
        );
        assert_eq!(
            origin_of("HTTPS://User@Example.com:443/x?y").as_deref(),
            Some("https://example.com")
        );
        assert_ne!(
            origin_of("http://127.0.0.1:3001/a"),
            origin_of("http://127.0.0.1:3002/a")
        );
        assert_eq!(origin_of("/relative"), None);
        assert_eq!(origin_of("ftp://x/y"), None);
    }

    #[test]
    fn join_url_tolerates_slashes_and_spaces() {
        assert_eq!(join_url(" http://a/v1/ ", "/models"), "http://a/v1/models");
        assert_eq!(
            join_url("http://a/v1", "chat/completions"),
            "http://a/v1/chat/completions"
        );
    }
}
