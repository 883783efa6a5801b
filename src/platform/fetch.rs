//! Performs a `skiff_core::http::HttpRequest` with the browser's `fetch` and exposes the
//! response body as a pull-based stream of raw byte chunks.
//!
//! Why: provider replies arrive as long-lived streams (SSE), and the decoding lives in
//! `skiff-core`, which wants bytes exactly as they came off the wire. So this module hands
//! out chunks untouched — it must never decode text, split lines, retry, or interpret
//! status codes; it only reports *how* the transport failed.

use skiff_core::chunk_load::ChunkLoadFailure;
use std::fmt;

use js_sys::{Array, Reflect, Uint8Array};
use skiff_core::http::HttpRequest;
use skiff_core::provider::IN_BROWSER_BASE;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Headers, ReadableStreamDefaultReader, RequestInit, RequestMode, RequestRedirect, Response,
    ResponseType,
};

use super::abort::AbortHandle;
use super::{js_error_name, js_error_text};

crate::split_point!(
    local_model_point,
    local_model,
    fn(&str, &str, Option<web_sys::AbortSignal>) -> js_sys::Promise,
    super::local_model::fetch
);

/// How a request failed at the transport level. HTTP error statuses are *not* errors here:
/// a 401 is a successful exchange whose body the caller reads with [`StreamingResponse::text`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchError {
    /// The [`AbortHandle`] fired (the user pressed Stop).
    Aborted,
    /// `fetch` rejected before any response arrived. Browsers deliberately hide the reason
    /// (a bare `TypeError: Failed to fetch`), so the detail is the browser's text only.
    Network(String),
    /// The response started but its body broke off before the end.
    Stream(String),
    /// The browser refused to even build the request (bad URL, bad header value, no window).
    Browser(String),
    /// The server answered a request carrying credentials with a redirect, which was not
    /// followed (see [`send`]). `to` is where it pointed when the browser reveals it; with
    /// manual redirects it does not, so this is `None` in practice.
    RedirectRefused { to: Option<String> },
}

impl fmt::Display for FetchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FetchError::Aborted => write!(f, "The request was stopped before it finished."),
            FetchError::Network(detail) => write!(
                f,
                "The server could not be reached. The usual causes are: the server is down or \
                 the address is wrong, the server does not allow requests from this page (CORS), \
                 or it uses http:// while this page is on https:// (mixed content). Check the \
                 server URL and its CORS settings, then try again. (Browser said: {detail})"
            ),
            FetchError::Stream(detail) => write!(
                f,
                "The connection broke while the reply was still arriving, so it is incomplete. \
                 Try again; if it keeps happening, check your network or the server. \
                 (Browser said: {detail})"
            ),
            FetchError::Browser(detail) => write!(
                f,
                "The browser refused to send the request: {detail}. Fix the setting mentioned \
                 and try again."
            ),
            FetchError::RedirectRefused { to } => {
                write!(f, "The server tried to redirect the request elsewhere")?;
                match to {
                    Some(to) => write!(f, " (to {to})")?,
                    None => write!(f, " (the browser does not reveal where to)")?,
                }
                write!(
                    f,
                    "; it was not followed, because the request carries a key, token or custom \
                     headers that must not leave the server's origin. Use the final URL instead."
                )
            }
        }
    }
}

impl std::error::Error for FetchError {}

/// A response whose status and headers have arrived and whose body is read chunk by chunk.
/// Dropping it before the end cancels the body so the connection is released.
#[derive(Debug)]
pub struct StreamingResponse {
    pub status: u16,
    pub ok: bool,
    /// The `Content-Type` header, or empty when the server sent none (or CORS hid it).
    pub content_type: String,
    /// Response headers as the browser exposes them: names lower-cased, and only
    /// CORS-safelisted ones plus those listed in `Access-Control-Expose-Headers`.
    pub headers: Vec<(String, String)>,
    reader: Option<ReadableStreamDefaultReader>,
    /// A `read()` still in flight when a `next_chunk` future was dropped (e.g. it lost a
    /// `select!` against a timer). Kept so its chunk is delivered by the next call instead
    /// of being lost — this makes `next_chunk` cancel-safe.
    pending: Option<JsFuture>,
    abort: Option<AbortHandle>,
    /// `Some` once the body ended, so later calls repeat the outcome instead of touching
    /// a released reader.
    ended: Option<Result<(), FetchError>>,
}

impl StreamingResponse {
    /// The next non-empty chunk of body bytes, exactly as received (a chunk may end in the
    /// middle of a UTF-8 character). `Ok(None)` once the body has ended cleanly.
    /// Cancel-safe: dropping the returned future loses no bytes.
    pub async fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, FetchError> {
        if let Some(outcome) = &self.ended {
            return outcome.clone().map(|()| None);
        }
        if self.is_aborted() {
            return Err(self.fail(FetchError::Aborted));
        }
        let Some(reader) = self.reader.clone() else {
            // No body at all (204, HEAD): that is an empty body, not an error.
            self.end();
            return Ok(None);
        };
        loop {
            let read = self
                .pending
                .get_or_insert_with(|| JsFuture::from(reader.read()));
            let outcome = read.await;
            self.pending = None;
            let result = match outcome {
                Ok(result) => result,
                Err(e) => {
                    let err = self.classify_body_error(&e);
                    return Err(self.fail(err));
                }
            };
            let done = Reflect::get(&result, &JsValue::from_str("done"))
                .ok()
                .and_then(|v| v.as_bool())
                .unwrap_or(true);
            if done {
                self.end();
                return Ok(None);
            }
            let value = Reflect::get(&result, &JsValue::from_str("value")).unwrap_or_default();
            match value.dyn_into::<Uint8Array>() {
                // Some streams yield empty chunks; callers treat `Some` as progress.
                Ok(bytes) if bytes.length() == 0 => continue,
                Ok(bytes) => return Ok(Some(bytes.to_vec())),
                Err(other) => {
                    let err = FetchError::Stream(format!(
                        "the body produced a non-byte chunk ({})",
                        js_error_text(&other)
                    ));
                    return Err(self.fail(err));
                }
            }
        }
    }

    /// Reads the rest of the body as text (invalid UTF-8 replaced), for error bodies and
    /// small non-streaming replies.
    pub async fn text(mut self) -> Result<String, FetchError> {
        let mut bytes = Vec::new();
        while let Some(chunk) = self.next_chunk().await? {
            bytes.extend_from_slice(&chunk);
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Case-insensitive header lookup (first value).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn is_aborted(&self) -> bool {
        self.abort.as_ref().is_some_and(AbortHandle::is_aborted)
    }

    fn classify_body_error(&self, e: &JsValue) -> FetchError {
        if self.is_aborted() || js_error_name(e).as_deref() == Some("AbortError") {
            FetchError::Aborted
        } else {
            FetchError::Stream(js_error_text(e))
        }
    }

    /// Records a clean end of body; the reader is released with it.
    fn end(&mut self) {
        self.reader = None;
        self.pending = None;
        self.ended = Some(Ok(()));
    }

    /// Records a failure so later calls repeat it, and hands it back for returning.
    fn fail(&mut self, err: FetchError) -> FetchError {
        self.reader = None;
        self.pending = None;
        self.ended = Some(Err(err.clone()));
        err
    }
}

impl Drop for StreamingResponse {
    fn drop(&mut self) {
        if self.ended.is_none() {
            if let Some(reader) = self.reader.take() {
                // Awaiting the promise (instead of ignoring it) keeps a rejected cancel from
                // surfacing as an "Uncaught (in promise)" console error.
                let cancelled = JsFuture::from(reader.cancel());
                wasm_bindgen_futures::spawn_local(async move {
                    let _ = cancelled.await;
                });
            }
        }
    }
}

/// Whether the server at `url` answers a request that needs no CORS (`mode: "no-cors"`, a
/// plain GET without credentials, whose answer the page cannot read). Asked after a request
/// failed with no answer: a server that answers this is up, so CORS refused the other.
/// Mixed content and a dead server fail this too. Stop (`abort`) ends it like the request.
pub async fn reachable(url: &str, abort: Option<&AbortHandle>) -> bool {
    let Some(window) = web_sys::window() else {
        return false;
    };
    let init = RequestInit::new();
    init.set_mode(RequestMode::NoCors);
    init.set_credentials(web_sys::RequestCredentials::Omit);
    if let Some(abort) = abort {
        init.set_signal(Some(&abort.signal()));
    }
    JsFuture::from(window.fetch_with_str_and_init(url, &init))
        .await
        .is_ok()
}

/// This page's origin (`https://host[:port]`), for sentences about what a server must allow.
pub fn page_origin() -> String {
    web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_default()
}

/// Performs `req`. Resolves once the status line and headers arrived; the body is then
/// pulled with [`StreamingResponse::next_chunk`]. HTTP error statuses resolve `Ok`.
pub async fn send(
    req: &HttpRequest,
    abort: Option<&AbortHandle>,
) -> Result<StreamingResponse, FetchError> {
    send_with(req, abort, false).await
}

/// [`send`] with `keepalive`: the browser delivers the request even if the page unloads
/// meanwhile (an MCP session's DELETE from `pagehide`). Bodies are limited to 64 KiB.
pub async fn send_keepalive(req: &HttpRequest) -> Result<StreamingResponse, FetchError> {
    send_with(req, None, true).await
}

async fn send_with(
    req: &HttpRequest,
    abort: Option<&AbortHandle>,
    keepalive: bool,
) -> Result<StreamingResponse, FetchError> {
    let window = web_sys::window().ok_or_else(|| {
        FetchError::Browser("this page has no window to send requests from".to_string())
    })?;
    // Validate up front: `fetch` reports a malformed URL as the same TypeError as an
    // unreachable server, which would send the user hunting for a CORS problem.
    if web_sys::Url::new(&req.url).is_err() {
        return Err(FetchError::Browser(format!(
            "\"{}\" is not a valid URL (it should look like https://api.example.com/v1)",
            req.url
        )));
    }

    let headers = Headers::new().map_err(|e| FetchError::Browser(js_error_text(&e)))?;
    for (name, value) in &req.headers {
        headers.append(name, value).map_err(|_| {
            FetchError::Browser(format!(
                "the header \"{name}\" has a name or value a browser cannot send \
                 (often a stray space, line break or non-ASCII character in a pasted API key)"
            ))
        })?;
    }

    let init = RequestInit::new();
    init.set_method(req.method.as_str());
    init.set_mode(RequestMode::Cors);
    // A browser following a redirect resends custom headers (keys, tokens) to wherever it
    // points, another origin included: requests that carry any are never redirected.
    if req.carries_credentials() {
        init.set_redirect(RequestRedirect::Manual);
    }
    init.set_headers(&headers);
    if keepalive {
        // web-sys has no setter for it; RequestInit is a plain dictionary object.
        let _ = js_sys::Reflect::set(&init, &JsValue::from_str("keepalive"), &JsValue::TRUE);
    }
    if let Some(body) = &req.body {
        init.set_body(&JsValue::from_str(body));
    }
    if let Some(abort) = abort {
        init.set_signal(Some(&abort.signal()));
    }

    // The in-browser model answers under its own address, through the model worker.
    // Its bridge (and the worker's message types) is a chunk fetched on first use: a page that
    // never runs a model never loads it.
    let pending = match req.url.strip_prefix(IN_BROWSER_BASE) {
        Some(path) => match local_model_point().await {
            Ok(fetch) => fetch(
                path,
                req.body.as_deref().unwrap_or_default(),
                abort.map(AbortHandle::signal),
            ),
            Err(_) => {
                let why = ChunkLoadFailure {
                    surface: "The model in this page",
                    online: super::online::is_online(),
                };
                return Err(FetchError::Network(why.to_string()));
            }
        },
        None => window.fetch_with_str_and_init(&req.url, &init),
    };
    let response = match JsFuture::from(pending).await {
        Ok(r) => r,
        Err(e) => {
            let aborted = abort.is_some_and(AbortHandle::is_aborted);
            return Err(match js_error_name(&e).as_deref() {
                _ if aborted => FetchError::Aborted,
                Some("AbortError") => FetchError::Aborted,
                Some("TypeError") => FetchError::Network(js_error_text(&e)),
                _ => FetchError::Browser(js_error_text(&e)),
            });
        }
    };
    let response: Response = response.dyn_into().map_err(|v| {
        FetchError::Browser(format!(
            "fetch returned something that is not a response ({})",
            js_error_text(&v)
        ))
    })?;

    if response.type_() == ResponseType::Opaqueredirect {
        // The browser hides the Location of an opaque redirect; say so rather than guess.
        return Err(FetchError::RedirectRefused { to: None });
    }

    let headers = collect_headers(&response.headers());
    let content_type = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    let reader = response.body().map(|stream| {
        stream
            .get_reader()
            .unchecked_into::<ReadableStreamDefaultReader>()
    });

    Ok(StreamingResponse {
        status: response.status(),
        ok: response.ok(),
        content_type,
        headers,
        reader,
        pending: None,
        abort: abort.cloned(),
        ended: None,
    })
}

fn collect_headers(headers: &Headers) -> Vec<(String, String)> {
    headers
        .entries()
        .into_iter()
        .filter_map(Result::ok)
        .filter_map(|pair| {
            let pair: Array = pair.dyn_into().ok()?;
            Some((pair.get(0).as_string()?, pair.get(1).as_string()?))
        })
        .collect()
}
