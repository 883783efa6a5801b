//! Just enough of an absolute http(s) URL to build well-known addresses, compare origins and
//! decide whether a URL lies inside a resource. Core takes no URL crate; every function here
//! returns `None` rather than guessing on input it does not understand.

/// An absolute `http` or `https` URL split into the parts OAuth discovery works with. The
/// scheme and host are lower-cased and a default port dropped; the path and query are kept
/// exactly as written (RFC 3986 §6.2.1: they are compared as strings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpUrl {
    pub scheme: String,
    /// `host[:port]`, lower-cased, default port removed.
    pub authority: String,
    /// Starts with `/` or is empty.
    pub path: String,
    /// Without the `?`.
    pub query: Option<String>,
}

impl HttpUrl {
    /// Parse `s`, refusing anything but absolute http(s) URLs with a host. A fragment is
    /// dropped (it never reaches a server). Userinfo is refused: a URL that carries a password
    /// is not one a token or a discovery request should go to.
    pub fn parse(s: &str) -> Option<HttpUrl> {
        let s = s.trim();
        let (scheme, rest) = s.split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return None;
        }
        let rest = rest.split('#').next().unwrap_or("");
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(end);
        if authority.is_empty()
            || authority.contains('@')
            || authority
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || c == '\\')
        {
            return None;
        }
        let mut authority = authority.to_ascii_lowercase();
        let default = if scheme == "http" { ":80" } else { ":443" };
        if let Some(stripped) = authority.strip_suffix(default) {
            authority = stripped.to_string();
        }
        let (path, query) = match tail.split_once('?') {
            Some((p, q)) => (p.to_string(), Some(q.to_string())),
            None => (tail.to_string(), None),
        };
        Some(HttpUrl {
            scheme,
            authority,
            path,
            query,
        })
    }

    pub fn origin(&self) -> String {
        format!("{}://{}", self.scheme, self.authority)
    }

    /// The path with its terminating slash removed (RFC 8414 §3.1 and RFC 9728 §3.1 both say
    /// a terminating slash after the host is removed before the well-known string goes in).
    pub fn trimmed_path(&self) -> &str {
        self.path.trim_end_matches('/')
    }

    /// The URL as text, without a fragment.
    pub fn as_string(&self) -> String {
        match &self.query {
            Some(q) => format!("{}{}?{}", self.origin(), self.path, q),
            None => format!("{}{}", self.origin(), self.path),
        }
    }

    /// `origin + well_known + path (+ ?query)`: the well-known string inserted between the
    /// host and the path, as RFC 8414 §3.1 and RFC 9728 §3.1 both define it.
    pub fn with_well_known_inserted(&self, well_known: &str) -> String {
        let mut out = format!("{}{}{}", self.origin(), well_known, self.trimmed_path());
        if let Some(q) = &self.query {
            out.push('?');
            out.push_str(q);
        }
        out
    }

    /// Whether `other` lies inside this URL taken as a resource: same origin, and this path a
    /// prefix of the other's on a segment boundary (`/mcp` covers `/mcp` and `/mcp/x`, not
    /// `/mcpx`). This is the rule the MCP SDKs apply to a protected resource's `resource` and
    /// the one Skiff applies before attaching a token.
    pub fn contains(&self, other: &HttpUrl) -> bool {
        if self.origin() != other.origin() {
            return false;
        }
        let mine = self.trimmed_path();
        let theirs = other.trimmed_path();
        mine.is_empty()
            || theirs == mine
            || theirs
                .strip_prefix(mine)
                .is_some_and(|rest| rest.starts_with('/'))
    }
}

/// Whether the host is loopback, where browsers (and the MCP spec's "localhost or HTTPS" rule)
/// accept plain http.
pub fn is_loopback(url: &HttpUrl) -> bool {
    let host = match url.authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => url.authority.split(':').next().unwrap_or(""),
    };
    host == "localhost" || host.ends_with(".localhost") || host.starts_with("127.") || host == "::1"
}

/// Whether `url` is acceptable for an authorization server endpoint: https, or http on
/// loopback (OAuth 2.1 §1.5, MCP "Communication Security").
pub fn is_secure_endpoint(url: &HttpUrl) -> bool {
    url.scheme == "https" || is_loopback(url)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn splits_and_normalises_scheme_host_and_default_port() {
        let u = HttpUrl::parse(" HTTPS://MCP.Example.com:443/Public/MCP?x=1#frag ").unwrap();
        assert_eq!(u.scheme, "https");
        assert_eq!(u.authority, "mcp.example.com");
        assert_eq!(u.path, "/Public/MCP");
        assert_eq!(u.query.as_deref(), Some("x=1"));
        assert_eq!(u.as_string(), "https://mcp.example.com/Public/MCP?x=1");
        assert_eq!(
            HttpUrl::parse("http://127.0.0.1:8080").unwrap().origin(),
            "http://127.0.0.1:8080"
        );
    }

    #[test]
    fn refuses_what_is_not_an_absolute_http_url() {
        for bad in [
            "",
            "mcp.example.com",
            "/relative",
            "ftp://x/y",
            "https://",
            "https://user:pw@host/",
            "https://ho st/",
            "javascript://x/%0aalert(1)",
            "https://a\\b/",
        ] {
            assert_eq!(HttpUrl::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn contains_is_same_origin_and_segment_prefix() {
        let r = HttpUrl::parse("https://a.com/mcp").unwrap();
        let yes = [
            "https://a.com/mcp",
            "https://A.com:443/mcp/",
            "https://a.com/mcp/x?q",
        ];
        let no = [
            "https://a.com/mcpx",
            "https://a.com/",
            "http://a.com/mcp",
            "https://a.com:8443/mcp",
            "https://b.com/mcp",
        ];
        for y in yes {
            assert!(r.contains(&HttpUrl::parse(y).unwrap()), "{y}");
        }
        for n in no {
            assert!(!r.contains(&HttpUrl::parse(n).unwrap()), "{n}");
        }
        let root = HttpUrl::parse("https://a.com/").unwrap();
        assert!(root.contains(&HttpUrl::parse("https://a.com/any/thing").unwrap()));
    }

    #[test]
    fn loopback_and_secure_endpoints() {
        for ok in [
            "https://x.com/t",
            "http://localhost:9000/t",
            "http://127.0.0.1/t",
            "http://[::1]:8000/t",
        ] {
            assert!(is_secure_endpoint(&HttpUrl::parse(ok).unwrap()), "{ok}");
        }
        assert!(!is_secure_endpoint(
            &HttpUrl::parse("http://x.com/t").unwrap()
        ));
        assert!(!is_secure_endpoint(
            &HttpUrl::parse("http://localhost.evil.com/t").unwrap()
        ));
    }

    proptest! {
        #[test]
        fn parse_never_panics(s in "\\PC*") {
            let _ = HttpUrl::parse(&s);
        }
    }
}
