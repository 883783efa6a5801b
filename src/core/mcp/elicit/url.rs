//! URL mode: what the card shows before the user decides (the domain, prominently), and the
//! refusal of URLs a page must never open for a server (anything but http(s), credentials in
//! the URL).

/// A URL-mode request as the card shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct UrlAsk {
    pub url: String,
    /// The host the link goes to, shown so the user sees where before consenting.
    pub domain: String,
    /// The server's id for this interaction (`notifications/elicitation/complete` names it).
    pub elicitation_id: String,
}

/// Why a URL is not offered at all.
#[derive(Debug, Clone, PartialEq)]
pub enum UrlRefusal {
    NotHttp(String),
    HasCredentials,
    NoHost,
}

impl std::fmt::Display for UrlRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UrlRefusal::NotHttp(scheme) => write!(f, "the link uses `{scheme}:`, not http(s)"),
            UrlRefusal::HasCredentials => write!(f, "the link carries a user name or password"),
            UrlRefusal::NoHost => write!(f, "the link has no host"),
        }
    }
}

impl UrlAsk {
    pub fn new(url: &str, elicitation_id: &str) -> Result<UrlAsk, UrlRefusal> {
        let url = url.trim();
        let (scheme, rest) = url
            .split_once("://")
            .ok_or_else(|| UrlRefusal::NotHttp(url.split(':').next().unwrap_or("").to_string()))?;
        let scheme_l = scheme.to_ascii_lowercase();
        if scheme_l != "https" && scheme_l != "http" {
            return Err(UrlRefusal::NotHttp(scheme.to_string()));
        }
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        if authority.contains('@') {
            return Err(UrlRefusal::HasCredentials);
        }
        // The domain is the host without the port: what a user recognises.
        let host = if let Some(v6) = authority.strip_prefix('[') {
            format!("[{}]", v6.split(']').next().unwrap_or(""))
        } else {
            authority.split(':').next().unwrap_or("").to_string()
        };
        if host.is_empty() || host == "[]" {
            return Err(UrlRefusal::NoHost);
        }
        Ok(UrlAsk {
            url: url.to_string(),
            domain: host.to_ascii_lowercase(),
            elicitation_id: elicitation_id.to_string(),
        })
    }
}
