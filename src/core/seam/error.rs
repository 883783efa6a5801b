//! What can go wrong talking to a provider, and the sentence a user reads.
//!
//! Error bodies differ per server: OpenAI and OpenRouter send `{"error":{"message",...}}`,
//! llama.cpp `{"error":{"code","message","type"}}`, Ollama `{"error":"..."}`, vLLM
//! `{"object":"error","message":...}`, Anthropic `{"type":"error","error":{"type","message"}}`,
//! FastAPI-style gateways `{"detail":...}`, and reverse proxies an HTML page.
//! `error_from_response` finds the human part in any of them, which is why it serves every
//! provider kind (`Provider::error_from_response` is where a kind would differ). It must never
//! echo a whole HTML page or a megabyte body into the UI: details are cut short.

use std::fmt;

use serde_json::Value;

/// Longest provider-supplied detail we show, in characters.
const MAX_DETAIL_CHARS: usize = 300;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderError {
    /// 401 or 403: the key is missing, wrong, or lacks access.
    Unauthorized { status: u16, detail: String },
    /// 402, or a 429 whose code says the quota or credit is spent (waiting will not help).
    QuotaExceeded { status: u16, detail: String },
    /// 404: wrong base URL or unknown model.
    NotFound { detail: String },
    /// 429: too many requests. `retry_after` is in seconds, when the caller read the header.
    RateLimited {
        detail: String,
        retry_after: Option<u64>,
    },
    /// 5xx.
    Server { status: u16, detail: String },
    /// The server refused the request because it does not fit the model's context window
    /// (OpenAI's `context_length_exceeded`, llama.cpp's `exceed_context_size_error`,
    /// Anthropic's "prompt is too long", ...). The same request can never succeed, so this is
    /// not retryable: clearing the context or a smaller budget is the way out.
    ContextTooLong { status: u16, detail: String },
    /// Any other non-success status (400, 413, 422, ...).
    Http { status: u16, detail: String },
    /// The request never got an HTTP answer (DNS, refused, aborted).
    Network(String),
    /// The model worker that runs the in-browser model could not start (its module was never
    /// stored for offline use, or the browser refused it); the browser's words.
    ModelWorker(String),
    /// The server answered, but its CORS headers do not let this page read the answer (the
    /// runner tells this from [`ProviderError::Network`] by reaching the server without
    /// CORS). `server` is its origin, `page` this page's, `headers` the request headers the
    /// server must list in `Access-Control-Allow-Headers` ([`crate::http::HttpRequest::
    /// cors_headers`]). Retrying cannot help until the server's settings change.
    CorsRefused {
        server: String,
        page: String,
        headers: Vec<String>,
    },
    /// An answer had started and then nothing arrived for this many seconds; the request was
    /// given up (what arrived is kept).
    Stalled { after_s: u32 },
    /// The browser says it has no network, so nothing was sent. An installed Skiff opens and
    /// shows everything offline; only talking to a provider needs the network.
    Offline,
    /// The browser reports no network and a server on this machine or the local network,
    /// tried anyway, did not answer; `server` is its origin.
    OfflineUnanswered { server: String },
    /// The body ended before the provider marked the answer whole (`[DONE]` or a
    /// `finish_reason`; Anthropic's `message_stop`).
    StreamCut,
    /// The body could not be read in the provider's format.
    Malformed(String),
    /// The answer had been arriving in the provider's format, then a piece of it could not
    /// be read: the address and the API are right (what came before proves it), so the
    /// sentence must not send the user to the base URL. What arrived is kept.
    MalformedMidAnswer(String),
    /// The server reported an error inside a 200 response (an `{"error":..}` chunk, an
    /// `error` event).
    InStream(String),
    /// The provider withheld or cut the answer on a policy of its own (Gemini's safety,
    /// recitation and blocklist reasons, a refused prompt); holds the provider's reason as a
    /// sentence. Retrying the same message is unlikely to help, rephrasing may.
    Blocked(String),
    /// The base URL typed in Settings is unusable; holds what was typed.
    InvalidBaseUrl(String),
    /// The provider answered the request (which carries the key) with a redirect, which Skiff
    /// does not follow: the browser would resend the key wherever it points. `to` is where it
    /// pointed, when the browser tells (with manual redirects it does not).
    RedirectRefused { to: Option<String> },
}

impl ProviderError {
    /// Attach the `Retry-After` delay read by the caller (only meaningful for `RateLimited`).
    pub fn with_retry_after(self, seconds: Option<u64>) -> Self {
        match self {
            ProviderError::RateLimited { detail, .. } => ProviderError::RateLimited {
                detail,
                retry_after: seconds,
            },
            other => other,
        }
    }

    /// Whether retrying the same request later may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            ProviderError::RateLimited { .. }
                | ProviderError::Server { .. }
                | ProviderError::Network(_)
                | ProviderError::ModelWorker(_)
                | ProviderError::Offline
                | ProviderError::OfflineUnanswered { .. }
                | ProviderError::Stalled { .. }
                | ProviderError::StreamCut
                | ProviderError::MalformedMidAnswer(_)
                | ProviderError::InStream(_)
        )
    }
}

/// A request that got no HTTP answer, as the user reads it. `detail` is the browser's words;
/// `reached` whether the server answered a request that needs no CORS (the runner's probe).
/// When it did, the server is up and its CORS settings are what refused this page, so the
/// sentence names what it must allow instead of listing every possible cause.
pub fn unanswered(
    req: &crate::http::HttpRequest,
    page_origin: &str,
    reached: bool,
    online: bool,
    detail: String,
) -> ProviderError {
    if req.url.starts_with(super::IN_BROWSER_BASE) {
        return ProviderError::ModelWorker(detail);
    }
    if !online {
        // Only a local address is tried offline (`Provider::refusal_before_send`), and with
        // no network the probe cannot tell CORS from a server that is down.
        let server = crate::http::origin_of(&req.url).unwrap_or_else(|| req.url.clone());
        return ProviderError::OfflineUnanswered { server };
    }
    match crate::http::origin_of(&req.url) {
        Some(server) if reached => ProviderError::CorsRefused {
            server,
            page: page_origin.to_string(),
            headers: req.cors_headers(),
        },
        _ => ProviderError::Network(detail),
    }
}

/// Parse a `Retry-After` header given in delta-seconds. (The HTTP-date form needs a clock,
/// which this crate does not have; such values give `None`.)
pub fn parse_retry_after(value: &str) -> Option<u64> {
    let v = value.trim();
    if v.is_empty() || !v.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    v.parse().ok()
}

/// How a context-too-long sentence starts. Messages keep only the sentence of their error, so
/// the page recognizes this one by its lead to offer "leave older messages out" instead of a
/// plain Retry, which cannot succeed.
pub const CONTEXT_TOO_LONG_LEAD: &str =
    "The conversation is too long for this model's context window";

/// Whether a stored error sentence says the request did not fit the context window.
pub fn is_context_too_long_sentence(sentence: &str) -> bool {
    sentence.starts_with(CONTEXT_TOO_LONG_LEAD)
}

/// Classify a non-success HTTP response from its status and body.
pub fn error_from_response(status: u16, body: &str) -> ProviderError {
    let parsed = ErrorBody::read(body);
    let detail = parsed.detail;
    match status {
        401 | 403 => ProviderError::Unauthorized { status, detail },
        402 => ProviderError::QuotaExceeded { status, detail },
        404 => ProviderError::NotFound { detail },
        429 if parsed.quota => ProviderError::QuotaExceeded { status, detail },
        429 => ProviderError::RateLimited {
            detail,
            retry_after: None,
        },
        500..=599 => ProviderError::Server { status, detail },
        _ if parsed.too_long => ProviderError::ContextTooLong { status, detail },
        _ => ProviderError::Http { status, detail },
    }
}

/// Whether an error body says the request did not fit the context window: the codes servers
/// use for it, or the phrases of those that have no code.
fn says_too_long(v: Option<&Value>, text: &str) -> bool {
    const CODES: &[&str] = &[
        "context_length_exceeded",
        "exceed_context_size_error",
        "string_above_max_length",
    ];
    const PHRASES: &[&str] = &[
        "maximum context length",
        "context length exceeded",
        "exceeds the available context",
        "exceed_context_size",
        "prompt is too long",
        "input token count",
        "too many tokens",
        "reduce the length of the messages",
    ];
    let code = v.is_some_and(|v| {
        ["/error/code", "/error/type", "/code", "/type"]
            .iter()
            .filter_map(|p| v.pointer(p).and_then(Value::as_str))
            .any(|c| CODES.contains(&c))
    });
    let lower = text.to_ascii_lowercase();
    code || PHRASES.iter().any(|p| lower.contains(p))
}

/// The human-readable part of an error payload (a whole body or one in-stream JSON value).
pub(crate) fn detail_from_json(v: &Value) -> String {
    let raw = match v {
        Value::String(s) => s.clone(),
        Value::Object(map) => {
            if let Some(inner) = map.get("error").filter(|e| !e.is_null()) {
                return detail_from_json(inner);
            }
            let text = ["message", "detail", "msg", "error_description"]
                .iter()
                .find_map(|k| map.get(*k).filter(|x| !x.is_null()));
            match text {
                Some(Value::String(s)) => s.clone(),
                Some(other) => compact(other),
                None => compact(v),
            }
        }
        Value::Null => String::new(),
        other => compact(other),
    };
    shorten(&raw)
}

struct ErrorBody {
    detail: String,
    quota: bool,
    too_long: bool,
}

impl ErrorBody {
    fn read(body: &str) -> ErrorBody {
        let trimmed = body.trim();
        if trimmed.is_empty() {
            return ErrorBody {
                detail: String::new(),
                quota: false,
                too_long: false,
            };
        }
        if let Ok(v) = serde_json::from_str::<Value>(trimmed) {
            let code_says_quota = ["code", "type"].iter().any(|k| {
                v.pointer(&format!("/error/{k}"))
                    .and_then(Value::as_str)
                    .is_some_and(|s| s == "insufficient_quota")
            });
            let detail = detail_from_json(&v);
            return ErrorBody {
                too_long: says_too_long(Some(&v), &detail),
                detail,
                quota: code_says_quota,
            };
        }
        if looks_like_html(trimmed) {
            let detail = html_title(trimmed)
                .map(|t| shorten(&t))
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| "the server answered with an HTML page".to_string());
            return ErrorBody {
                detail,
                quota: false,
                too_long: false,
            };
        }
        let text: String = trimmed.split_whitespace().collect::<Vec<_>>().join(" ");
        ErrorBody {
            too_long: says_too_long(None, &text),
            detail: shorten(&text),
            quota: false,
        }
    }
}

fn compact(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn looks_like_html(s: &str) -> bool {
    let head: String = s.chars().take(200).collect::<String>().to_ascii_lowercase();
    head.starts_with('<')
        && (head.contains("<html")
            || head.contains("<!doctype")
            || head.contains("<head")
            || head.contains("<body")
            || head.contains("<title"))
}

/// The `<title>` of an HTML page, whitespace collapsed. Proxy error pages (nginx, Cloudflare)
/// put the useful summary there, e.g. "502 Bad Gateway".
fn html_title(s: &str) -> Option<String> {
    let lower = s.to_ascii_lowercase();
    let open = lower.find("<title")?;
    let start = open + lower[open..].find('>')? + 1;
    let end = start + lower[start..].find("</title")?;
    let title = s.get(start..end)?;
    Some(title.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// `s` trimmed and cut to [`MAX_DETAIL_CHARS`] with an ellipsis: every decoder cuts a
/// provider's own words this way before they reach a sentence.
pub(crate) fn shorten(s: &str) -> String {
    let s = s.trim();
    if s.chars().count() <= MAX_DETAIL_CHARS {
        return s.to_string();
    }
    let cut: String = s.chars().take(MAX_DETAIL_CHARS).collect();
    let mut out = cut.trim_end().to_string();
    out.push('…');
    out
}

/// `" (HTTP 401): detail"` pieces: the detail without its final full stop, so the sentence
/// that follows can add its own.
fn with_detail(f: &mut fmt::Formatter<'_>, lead: &str, detail: &str) -> fmt::Result {
    let d = detail.trim().trim_end_matches('.');
    if d.is_empty() {
        write!(f, "{lead}.")
    } else if d.ends_with(['!', '?', '\u{2026}']) {
        write!(f, "{lead}: {d}")
    } else {
        write!(f, "{lead}: {d}.")
    }
}

impl fmt::Display for ProviderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProviderError::Unauthorized { status: 403, detail } => {
                with_detail(f, "The provider refused the request (HTTP 403)", detail)?;
                f.write_str(" Check that the API key is allowed to use this model.")
            }
            ProviderError::Unauthorized { status, detail } => {
                with_detail(f, &format!("The provider rejected the API key (HTTP {status})"), detail)?;
                f.write_str(" Check the key in Settings.")
            }
            ProviderError::QuotaExceeded { status, detail } => {
                with_detail(
                    f,
                    &format!("The provider account has no credit or quota left (HTTP {status})"),
                    detail,
                )?;
                f.write_str(" Check the plan or billing with the provider.")
            }
            ProviderError::NotFound { detail } => {
                with_detail(f, "The provider did not find that model or address (HTTP 404)", detail)?;
                f.write_str(" Check the base URL and the model name in Settings.")
            }
            ProviderError::RateLimited { detail, retry_after } => {
                with_detail(f, "Rate limited by the provider (HTTP 429)", detail)?;
                match retry_after {
                    Some(1) => f.write_str(" Wait a second and retry."),
                    Some(s) => write!(f, " Wait {s} seconds and retry."),
                    None => f.write_str(" Wait a moment and retry."),
                }
            }
            ProviderError::Server { status, detail } => {
                with_detail(f, &format!("The provider failed with a server error (HTTP {status})"), detail)?;
                f.write_str(" Retry in a moment; if it keeps failing, the service may be down.")
            }
            ProviderError::ContextTooLong { status, detail } => {
                with_detail(
                    f,
                    &format!("{CONTEXT_TOO_LONG_LEAD} (HTTP {status})"),
                    detail,
                )?;
                f.write_str(" Sending it again as it is cannot work: retry with the older messages left out, clear the context, or set the model's real context window in Settings.")
            }
            ProviderError::Http { status, detail } => {
                with_detail(f, &format!("The provider refused the request (HTTP {status})"), detail)?;
                f.write_str(" Check the model and its settings.")
            }
            ProviderError::Network(detail) => {
                with_detail(f, "Could not reach the provider", detail)?;
                f.write_str(
                    " Check the base URL, your connection, and that the server allows requests from this page (CORS).",
                )
            }
            ProviderError::CorsRefused {
                server,
                page,
                headers,
            } => {
                write!(f, "The provider at {server} answered, but its CORS settings do not let this page read the answer. The server must send Access-Control-Allow-Origin: {page} (or *)")?;
                if !headers.is_empty() {
                    write!(
                        f,
                        " and allow the headers {} (Access-Control-Allow-Headers), answering the OPTIONS preflight",
                        headers.join(", ")
                    )?;
                }
                f.write_str(". For Ollama set OLLAMA_ORIGINS; a proxy in front of the server must pass these headers on.")
            }
            ProviderError::RedirectRefused { to } => {
                f.write_str("The provider tried to redirect the request elsewhere")?;
                match to {
                    Some(to) => write!(f, " (to {to})")?,
                    None => f.write_str(" (the browser does not reveal where to)")?,
                }
                f.write_str("; Skiff did not follow, because the request carries your key. Use the final base URL in Settings (often https:// instead of http://, or a missing or extra path segment).")
            }
            ProviderError::Stalled { after_s } => write!(
                f,
                "The provider stopped sending in the middle of the answer: nothing arrived for {after_s} s, so Skiff stopped waiting. The text so far is kept; press Retry for a whole answer (Settings → Give up after silence changes the wait)."
            ),
            ProviderError::ModelWorker(detail) => {
                with_detail(f, "The in-browser model could not start", detail)?;
                f.write_str(" Reload the page while online once, so it is stored for offline use.")
            }
            ProviderError::Offline => f.write_str(
                "You are offline, so nothing was sent to the provider. Your message is kept: press Retry when the network is back.",
            ),
            ProviderError::OfflineUnanswered { server } => write!(
                f,
                "The server at {server} did not answer. The browser reports no network, so only servers on this computer or the local network can be reached: check that this one is running. Your message is kept: press Retry."
            ),
            ProviderError::StreamCut => f.write_str(
                "The connection closed before the answer was complete. Retry to get the full answer.",
            ),
            ProviderError::Malformed(detail) => {
                with_detail(f, "The provider sent a response Skiff could not read", detail)?;
                f.write_str(" Check that the base URL points to an OpenAI-compatible API.")
            }
            ProviderError::MalformedMidAnswer(detail) => {
                with_detail(
                    f,
                    "The answer broke off: the provider sent a part Skiff could not read",
                    detail,
                )?;
                f.write_str(" What arrived before it is kept; Retry to get the whole answer.")
            }
            ProviderError::InStream(detail) => {
                with_detail(f, "The provider reported an error while answering", detail)?;
                f.write_str(" Retry, or pick another model.")
            }
            ProviderError::Blocked(reason) => {
                with_detail(f, "The provider withheld the answer", reason)?;
                f.write_str(" Rephrase the message, or pick another model.")
            }
            ProviderError::InvalidBaseUrl(input) if input.trim().is_empty() => f.write_str(
                "The base URL is empty. Enter an address starting with http:// or https://, such as http://localhost:8080/v1.",
            ),
            ProviderError::InvalidBaseUrl(input) => write!(
                f,
                "\u{201c}{input}\u{201d} is not a usable base URL. Enter an address starting with http:// or https://, such as http://localhost:8080/v1."
            ),
        }
    }
}

impl std::error::Error for ProviderError {}

#[cfg(test)]
#[path = "error_tests.rs"]
mod tests;
