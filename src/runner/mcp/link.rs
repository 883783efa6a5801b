//! The IO that feeds a server's connection: the streamed fetches of the HTTP transports, the
//! session DELETE nobody waits for, and the WebSocket's event forwarder.
//!
//! Every task tags what it reports with the `LinkId` of the connection that started it; the
//! core supervisor ignores reports about a link it already dropped, so nothing of a dead
//! connection reaches the next one. Nothing here decides anything.

use futures::channel::{mpsc, oneshot};
use futures::StreamExt;
use skiff_core::http::HttpRequest;
use skiff_core::mcp::http_common::Token;
use skiff_core::mcp::LinkId;
use skiff_core::oauth::dpop::{NONCE_HEADER, PROOF_HEADER};
use skiff_core::oauth::request_auth::{Refusal, RequestAuth, Verdict};
use wasm_bindgen_futures::spawn_local;

use super::driver::Msg;
use crate::platform::abort::AbortHandle;
use crate::platform::fetch::{self, FetchError};
use crate::platform::websocket::WsEvent;
use crate::runner::oauth;

/// What a fetch reported, for `HttpClient::on_head/on_chunk/on_end/on_fetch_error`.
pub(super) enum FetchEv {
    Head {
        status: u16,
        headers: Vec<(String, String)>,
    },
    Chunk(Vec<u8>),
    End,
    /// The browser's own words only: the core adds the diagnosis (CORS, mixed content).
    Error(String),
    /// A redirect of a request carrying credentials was not followed.
    RedirectRefused {
        to: Option<String>,
    },
}

fn browser_detail(e: FetchError) -> String {
    match e {
        FetchError::Network(d) | FetchError::Stream(d) | FetchError::Browser(d) => d,
        FetchError::Aborted => "the request was stopped".into(),
        other @ FetchError::RedirectRefused { .. } => other.to_string(),
    }
}

/// Perform one exchange, streaming its body back to the driver chunk by chunk. An abort we
/// asked for is silent: the core already knows.
pub(super) fn spawn_fetch(
    tx: mpsc::UnboundedSender<Msg>,
    link: LinkId,
    token: Token,
    mut request: HttpRequest,
    abort: AbortHandle,
    server: String,
) {
    spawn_local(async move {
        let report = |ev: FetchEv| tx.unbounded_send(Msg::Fetch { link, token, ev }).is_ok();
        // OAuth (issue 10) sits below the session, like a fetch interceptor: the server's
        // sign-in (`runner::oauth`, deciding in `core::oauth`) gives the header and, after a
        // refusal, a fresh one; `RequestAuth` says whether to send again (once: a 401 or 403
        // means the server did not run it). The session never sees a refused token.
        if let Some(value) = oauth::authorization(&server, &request.url).await {
            set_authorization(&mut request, Some(value));
        }
        let mut auth = RequestAuth::new();
        let mut response = loop {
            // A DPoP-bound token goes with a fresh proof on every send, resends included (one
            // `jti` per proof, RFC 9449 §4.2); a Bearer token with none.
            let proved = attach_proof(&server, &mut request).await;
            let response = match fetch::send(&request, Some(&abort)).await {
                Ok(r) => r,
                Err(FetchError::Aborted) => return,
                Err(FetchError::RedirectRefused { to }) => {
                    report(FetchEv::RedirectRefused { to });
                    return;
                }
                Err(e) => {
                    report(FetchEv::Error(browser_detail(e)));
                    return;
                }
            };
            let challenge = response.header("www-authenticate").map(str::to_string);
            let challenge = challenge.as_deref();
            if proved {
                let nonce = response.header(NONCE_HEADER).map(str::to_string);
                if let Some(n) = nonce.as_deref() {
                    oauth::nonce(&server, &request.url, n).await;
                }
                // The server wants its nonce in the proof (401 `use_dpop_nonce`): send the
                // request again, once, with a proof carrying it. A tool call still runs at
                // most once: a 401 is the server refusing the request before accepting it, so
                // it did not run; `nonce_retry` answers only a 401, and `answer` below keeps
                // the rule for every other refusal.
                if auth
                    .nonce_retry(response.status, challenge, nonce.as_deref())
                    .is_some()
                {
                    continue;
                }
            }
            match auth.answer(response.status, challenge) {
                Verdict::Deliver => break response,
                // The resent request was refused too: the sign-in learns that its grant gives
                // tokens this server refuses; the answer goes to the session as it is.
                Verdict::Report(r) => {
                    let _ = ask_fresh(&server, &request, r, challenge).await;
                    break response;
                }
                Verdict::AskFresh(r) => match ask_fresh(&server, &request, r, challenge).await {
                    Some(v) => set_authorization(&mut request, Some(v)),
                    None => break response,
                },
            }
        };
        let head = FetchEv::Head {
            status: response.status,
            headers: response.headers.clone(),
        };
        if !report(head) {
            return;
        }
        loop {
            match response.next_chunk().await {
                Ok(Some(bytes)) => {
                    if !report(FetchEv::Chunk(bytes)) {
                        return;
                    }
                }
                Ok(None) => {
                    report(FetchEv::End);
                    return;
                }
                Err(FetchError::Aborted) => return,
                Err(e) => {
                    report(FetchEv::Error(browser_detail(e)));
                    return;
                }
            }
        }
    });
}

/// The sign-in's answer to `request`'s refusal: a fresh `Authorization` value, or none.
async fn ask_fresh(
    server: &str,
    request: &HttpRequest,
    refusal: Refusal,
    challenge: Option<&str>,
) -> Option<String> {
    let sent = request.header("authorization");
    oauth::refused(server, &request.url, refusal, challenge, sent).await
}

/// Put a fresh DPoP proof on `request` when its `Authorization` is a DPoP-bound token
/// (`runner::oauth::proof`; any earlier proof goes); whether it carries one now.
async fn attach_proof(server: &str, request: &mut HttpRequest) -> bool {
    request
        .headers
        .retain(|(n, _)| !n.eq_ignore_ascii_case(PROOF_HEADER));
    let Some(authorization) = request.header("authorization").map(str::to_string) else {
        return false;
    };
    let method = request.method.as_str();
    match oauth::proof(server, method, &request.url, &authorization).await {
        Some(proof) => {
            request.headers.push((PROOF_HEADER.into(), proof));
            true
        }
        None => false,
    }
}

fn set_authorization(request: &mut HttpRequest, value: Option<String>) {
    if let Some(v) = value {
        request
            .headers
            .retain(|(n, _)| !n.eq_ignore_ascii_case("authorization"));
        request.headers.push(("Authorization".into(), v));
    }
}

/// Perform a request whose answer nobody reads (the session DELETE on disconnect); `done`
/// fires when it finished either way. Sent with `keepalive`, so a goodbye sent from
/// `pagehide` still reaches the server after the page is gone.
pub(super) fn spawn_detached_fetch(request: HttpRequest) -> oneshot::Receiver<()> {
    let (done, finished) = oneshot::channel();
    spawn_local(async move {
        if let Ok(response) = fetch::send_keepalive(&request).await {
            let _ = response.text().await;
        }
        let _ = done.send(());
    });
    finished
}

/// Forward a socket's events to the driver, tagged with its link.
pub(super) fn forward_ws(
    tx: mpsc::UnboundedSender<Msg>,
    link: LinkId,
    mut events: mpsc::UnboundedReceiver<WsEvent>,
) {
    spawn_local(async move {
        while let Some(ev) = events.next().await {
            if tx.unbounded_send(Msg::Ws { link, ev }).is_err() {
                return;
            }
        }
    });
}
