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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_url_tolerates_slashes_and_spaces() {
        assert_eq!(join_url(" http://a/v1/ ", "/models"), "http://a/v1/models");
        assert_eq!(
            join_url("http://a/v1", "chat/completions"),
            "http://a/v1/chat/completions"
        );
    }
}
