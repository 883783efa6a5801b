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
    fn join_url_tolerates_slashes_and_spaces() {
        assert_eq!(join_url(" http://a/v1/ ", "/models"), "http://a/v1/models");
        assert_eq!(
            join_url("http://a/v1", "chat/completions"),
            "http://a/v1/chat/completions"
        );
    }
}
