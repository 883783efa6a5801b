//! The server form in Settings, read into a [`ServerConfig`] or refused with a sentence.
//!
//! The form holds text as typed; [`ServerForm::to_config`] is the only place that decides
//! whether it makes a server Skiff can reach: the URL's scheme and shape, a transport that fits
//! the scheme, `Name: value` header lines a browser will actually send, a proxy prefix, the
//! numbers, and no second server with the same name or URL. Nothing is saved until every field
//! reads correctly, and the first problem, in the order the fields are shown, is the one named.

use std::fmt;

use super::{ServerConfig, TransportChoice};
use crate::display::text;

/// Longest request timeout the form accepts: past this a hung server looks like a busy one.
const MAX_TIMEOUT_S: f64 = 3600.0;

/// The form's fields, as text, except the transport (a `<select>` of [`TransportChoice::ALL`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ServerForm {
    pub name: String,
    pub url: String,
    pub transport: TransportChoice,
    /// One `Name: value` per line.
    pub headers: String,
    pub proxy: String,
    /// Reconnect attempts; empty for no limit.
    pub max_attempts: String,
    /// Seconds; empty for the default.
    pub request_timeout_s: String,
    /// Seconds; empty for no pings.
    pub ping_interval_s: String,
}

/// Why one header line cannot be sent. Lines count from 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderLineError {
    NoColon {
        line: usize,
    },
    BadName {
        line: usize,
        name: String,
    },
    /// Fetch refuses to let a page set it, and drops it without a word.
    Forbidden {
        line: usize,
        name: String,
    },
    /// Fetch throws on a control character or a character outside Latin-1 in a value.
    BadValue {
        line: usize,
        name: String,
    },
}

impl fmt::Display for HeaderLineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderLineError::NoColon { line } => {
                write!(f, "Line {line}: expected \"Name: value\".")
            }
            HeaderLineError::BadName { line, name } => {
                write!(f, "Line {line}: \"{}\" is not a valid header name.", text::name(name))
            }
            HeaderLineError::Forbidden { line, name } => write!(
                f,
                "Line {line}: a browser does not let a page set \"{name}\", so it would never be sent."
            ),
            HeaderLineError::BadValue { line, name } => write!(
                f,
                "Line {line}: the value of \"{name}\" has a character a header cannot carry (a control character, or one outside Latin-1)."
            ),
        }
    }
}

impl std::error::Error for HeaderLineError {}

/// Why the form cannot be saved, with the sentence shown under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormError {
    /// A name with invisible or direction-changing characters (see `display::text`).
    NameHidden,
    DuplicateName {
        name: String,
    },
    UrlMissing,
    UrlScheme,
    UrlSpaces,
    UrlNoHost,
    UrlBadPort,
    DuplicateUrl {
        other: String,
    },
    /// WebSocket chosen for an http(s) URL, or an HTTP transport for a ws(s) URL.
    TransportScheme {
        transport: TransportChoice,
    },
    /// The WebSocket API has no way to send headers.
    HeadersOnWebSocket,
    Header(HeaderLineError),
    ProxyScheme,
    /// CORS does not apply to WebSocket; a proxy prefix would only break the URL.
    ProxyOnWebSocket,
    MaxAttempts,
    Timeout,
    PingInterval,
}

impl fmt::Display for FormError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormError::NameHidden => f.write_str(
                "The name contains invisible or direction-changing characters; type it plainly.",
            ),
            FormError::DuplicateName { name } => write!(
                f,
                "Another server is already named \"{}\"; choose another name.",
                text::name(name)
            ),
            FormError::UrlMissing => {
                f.write_str("Enter the server's URL, like http://127.0.0.1:3001/mcp.")
            }
            FormError::UrlScheme => {
                f.write_str("The URL must start with http://, https://, ws:// or wss://.")
            }
            FormError::UrlSpaces => f.write_str("The URL cannot contain spaces or control characters."),
            FormError::UrlNoHost => {
                f.write_str("The URL has no host after the scheme, like 127.0.0.1:3001.")
            }
            FormError::UrlBadPort => f.write_str("The URL's port must be a number up to 65535."),
            FormError::DuplicateUrl { other } => write!(
                f,
                "The server \"{}\" already has this URL.",
                text::name(other)
            ),
            FormError::TransportScheme { transport } => match transport {
                TransportChoice::WebSocket => {
                    f.write_str("WebSocket needs a ws:// or wss:// URL.")
                }
                t => write!(f, "{} needs an http:// or https:// URL.", t.label()),
            },
            FormError::HeadersOnWebSocket => f.write_str(
                "A browser cannot send headers on a WebSocket: remove them, or put a token in the URL if the server accepts one.",
            ),
            FormError::Header(e) => write!(f, "Headers: {e}"),
            FormError::ProxyScheme => f.write_str(
                "The CORS proxy prefix must be an http:// or https:// URL, like http://127.0.0.1:8089/.",
            ),
            FormError::ProxyOnWebSocket => f.write_str(
                "A WebSocket is not subject to CORS, so it needs no proxy prefix; leave it empty.",
            ),
            FormError::MaxAttempts => f.write_str(
                "Maximum attempts must be a whole number above 0, or empty for no limit.",
            ),
            FormError::Timeout => f.write_str(
                "The request timeout must be a number of seconds from 1 to 3600, or empty for 60.",
            ),
            FormError::PingInterval => f.write_str(
                "The ping interval must be a number of seconds from 1 to 3600, or empty for no pings.",
            ),
        }
    }
}

impl std::error::Error for FormError {}

/// Request headers a page cannot set (the Fetch standard's forbidden request-header names);
/// `Proxy-` and `Sec-` prefixes are forbidden too.
const FORBIDDEN_HEADERS: [&str; 21] = [
    "accept-charset",
    "accept-encoding",
    "access-control-request-headers",
    "access-control-request-method",
    "connection",
    "content-length",
    "cookie",
    "cookie2",
    "date",
    "dnt",
    "expect",
    "host",
    "keep-alive",
    "origin",
    "referer",
    "set-cookie",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "via",
];

/// Read the header box: one `Name: value` per line, blank lines ignored. Every line a browser
/// would refuse or silently drop is refused here, with its line number, so a typo never loses
/// an `Authorization` header without a word.
pub fn read_header_lines(text: &str) -> Result<Vec<(String, String)>, HeaderLineError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line_no = n + 1;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(HeaderLineError::NoColon { line: line_no });
        };
        let name = name.trim();
        let valid = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b));
        if !valid {
            return Err(HeaderLineError::BadName {
                line: line_no,
                name: name.to_string(),
            });
        }
        let lower = name.to_ascii_lowercase();
        if FORBIDDEN_HEADERS.contains(&lower.as_str())
            || lower.starts_with("proxy-")
            || lower.starts_with("sec-")
        {
            return Err(HeaderLineError::Forbidden {
                line: line_no,
                name: name.to_string(),
            });
        }
        let value = value.trim();
        if value
            .chars()
            .any(|c| (c < ' ' && c != '\t') || c == '\u{7f}' || c > '\u{ff}')
        {
            return Err(HeaderLineError::BadValue {
                line: line_no,
                name: name.to_string(),
            });
        }
        out.push((name.to_string(), value.to_string()));
    }
    Ok(out)
}

enum Scheme {
    Http,
    Ws,
}

/// The URL's scheme, after checking the URL has one Skiff speaks, a host, and nothing a
/// fetch would choke on.
fn check_url(url: &str) -> Result<Scheme, FormError> {
    if url.is_empty() {
        return Err(FormError::UrlMissing);
    }
    let lower = url.to_ascii_lowercase();
    let (scheme, rest) = if let Some(r) = lower.strip_prefix("https://") {
        (Scheme::Http, r)
    } else if let Some(r) = lower.strip_prefix("http://") {
        (Scheme::Http, r)
    } else if let Some(r) = lower.strip_prefix("wss://") {
        (Scheme::Ws, r)
    } else if let Some(r) = lower.strip_prefix("ws://") {
        (Scheme::Ws, r)
    } else {
        return Err(FormError::UrlScheme);
    };
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(FormError::UrlSpaces);
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = if let Some(v6) = host_port.strip_prefix('[') {
        match v6.split_once(']') {
            Some((h, tail)) => (h, tail.strip_prefix(':')),
            None => return Err(FormError::UrlNoHost),
        }
    } else {
        match host_port.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host_port, None),
        }
    };
    if host.is_empty() {
        return Err(FormError::UrlNoHost);
    }
    if let Some(p) = port {
        // An empty port ("host:") means the default, as the URL standard reads it.
        let valid =
            p.is_empty() || (p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u16>().is_ok());
        if !valid {
            return Err(FormError::UrlBadPort);
        }
    }
    Ok(scheme)
}

/// Two URLs name the same server when they differ only in the case of the scheme and host,
/// or a trailing slash.
pub(super) fn same_url(a: &str, b: &str) -> bool {
    fn key(u: &str) -> String {
        let u = u.trim().trim_end_matches('/');
        match u.split_once("://") {
            Some((scheme, rest)) => {
                let (authority, path) =
                    rest.split_at(rest.find(['/', '?', '#']).unwrap_or(rest.len()));
                format!(
                    "{}://{}{path}",
                    scheme.to_ascii_lowercase(),
                    authority.to_ascii_lowercase()
                )
            }
            None => u.to_string(),
        }
    }
    key(a) == key(b)
}

/// Seconds as typed, to whole milliseconds, within 1 s to an hour; `None` when empty.
fn seconds(text: &str) -> Result<Option<u64>, ()> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    match crate::number::parse_finite(t) {
        Some(s) if (1.0..=MAX_TIMEOUT_S).contains(&s) => Ok(Some((s * 1000.0).round() as u64)),
        _ => Err(()),
    }
}

fn seconds_text(ms: u64) -> String {
    crate::format::decimal(ms as f64 / 1000.0)
}

impl ServerForm {
    /// The form filled from a stored server, for editing.
    pub fn from_config(c: &ServerConfig) -> ServerForm {
        ServerForm {
            name: c.name.clone(),
            url: c.url.clone(),
            transport: c.transport,
            headers: super::format_header_lines(&c.headers),
            proxy: c.proxy.clone().unwrap_or_default(),
            max_attempts: c.max_attempts.map(|n| n.to_string()).unwrap_or_default(),
            request_timeout_s: seconds_text(c.request_timeout_ms),
            ping_interval_s: c.ping_interval_ms.map(seconds_text).unwrap_or_default(),
        }
    }

    /// The server these fields describe. `base` is the server being edited, or a new one
    /// (its id and switch are kept); `existing` is every configured server, `base` included
    /// when editing. An empty name takes the URL.
    pub fn to_config(
        &self,
        base: &ServerConfig,
        existing: &[ServerConfig],
    ) -> Result<ServerConfig, FormError> {
        let others = || {
            existing
                .iter()
                .filter(|c| c.id != base.id || base.id.is_empty())
        };
        let url = self.url.trim().to_string();
        let name_typed = self.name.trim();
        if text::has_hidden(name_typed) {
            return Err(FormError::NameHidden);
        }
        let name = if name_typed.is_empty() {
            url.clone()
        } else {
            name_typed.to_string()
        };
        if let Some(c) = others().find(|c| c.name.trim().eq_ignore_ascii_case(&name)) {
            return Err(FormError::DuplicateName {
                name: c.name.clone(),
            });
        }
        let scheme = check_url(&url)?;
        if let Some(c) = others().find(|c| same_url(&c.url, &url)) {
            return Err(FormError::DuplicateUrl {
                other: c.name.clone(),
            });
        }
        match (&scheme, self.transport) {
            (Scheme::Http, TransportChoice::WebSocket)
            | (Scheme::Ws, TransportChoice::StreamableHttp | TransportChoice::Sse) => {
                return Err(FormError::TransportScheme {
                    transport: self.transport,
                })
            }
            _ => {}
        }
        let headers = read_header_lines(&self.headers).map_err(FormError::Header)?;
        let is_ws = matches!(scheme, Scheme::Ws);
        if is_ws && !headers.is_empty() {
            return Err(FormError::HeadersOnWebSocket);
        }
        let proxy = Some(self.proxy.trim().to_string()).filter(|p| !p.is_empty());
        if let Some(p) = &proxy {
            if is_ws {
                return Err(FormError::ProxyOnWebSocket);
            }
            if !matches!(check_url(p), Ok(Scheme::Http)) {
                return Err(FormError::ProxyScheme);
            }
        }
        let max_attempts = match self.max_attempts.trim() {
            "" => None,
            n => match n.parse::<u32>() {
                Ok(v) if v > 0 => Some(v),
                _ => return Err(FormError::MaxAttempts),
            },
        };
        let request_timeout_ms = seconds(&self.request_timeout_s)
            .map_err(|()| FormError::Timeout)?
            .unwrap_or(ServerConfig::new("", "", "").request_timeout_ms);
        let ping_interval_ms = match self.ping_interval_s.trim() {
            // "0" reads as "never", as much as an empty field does.
            "0" => None,
            t => seconds(t).map_err(|()| FormError::PingInterval)?,
        };
        let mut cfg = base.clone();
        cfg.name = name;
        cfg.url = url;
        cfg.transport = self.transport;
        cfg.headers = headers;
        cfg.proxy = proxy;
        cfg.max_attempts = max_attempts;
        cfg.request_timeout_ms = request_timeout_ms;
        cfg.ping_interval_ms = ping_interval_ms;
        Ok(cfg)
    }
}

#[cfg(test)]
#[path = "form_tests.rs"]
mod tests;
