//! The sign-in's entry points behind the token path (`token_path`) and the page's start: the
//! answers of a server's machine (`AuthMachine::access`, `handle_unauthorized_at`,
//! `handle_forbidden`, the DPoP proof of a request and the nonce of an answer), made when one
//! is needed, and the machines made at start. Everything
//! of the sign-in (the machines, WebCrypto, the store) is reached from here or from the
//! Account dialog, so these three functions are where the sign-in loads on demand: they are
//! handed out only through the split point [`engine_point`] (chunk `oauth`), and a page whose
//! servers never sign in never fetches that chunk.

use futures::future::LocalBoxFuture;
use leptos::prelude::*;
use skiff_core::oauth::request_auth::Refusal;
use skiff_core::oauth::Access;

use super::hub::{self, now, with_entry};
use super::{callback, prove, vault};
use skiff_core::oauth::request_auth::carries_tokens;
use skiff_core::oauth::stored::covering;

/// The sign-in's three entry points, as plain function pointers so they can cross the split
/// point (their code lives in the chunk; arguments are owned so the futures borrow nothing).
pub(super) struct Engine {
    pub(super) authorization: fn(String, String) -> LocalBoxFuture<'static, Option<String>>,
    #[allow(clippy::type_complexity)]
    pub(super) refused: fn(
        String,
        String,
        Refusal,
        Option<String>,
        Option<String>,
    ) -> LocalBoxFuture<'static, Option<String>>,
    pub(super) start: fn() -> LocalBoxFuture<'static, ()>,
    /// `token_path::proof`: server, method, URL, the `Authorization` value the request carries.
    pub(super) proof: fn(String, String, String, String) -> LocalBoxFuture<'static, Option<String>>,
    /// `token_path::nonce`: server, URL, the `DPoP-Nonce` its answer gave.
    pub(super) nonce: fn(&str, &str, &str),
}

static ENGINE: Engine = Engine {
    authorization: |server, url| Box::pin(async move { authorization(&server, &url).await }),
    refused: |server, url, refusal, challenge, sent| {
        Box::pin(async move {
            refused(
                &server,
                &url,
                refusal,
                challenge.as_deref(),
                sent.as_deref(),
            )
            .await
        })
    },
    start: || Box::pin(start()),
    proof: |server, method, url, authorization| {
        Box::pin(async move { proof(&server, &method, &url, &authorization).await })
    },
    nonce: |server, url, nonce| {
        with_entry(server, |e| e.machine.handle_resource_nonce(url, nonce));
    },
};

crate::split_point!(pub(super) engine_point, oauth, &'static Engine, &ENGINE);

/// The `Authorization` value a request to `url` on `server` carries, or `None` to send it
/// without one. Waits while the token is being refreshed.
async fn authorization(server: &str, url: &str) -> Option<String> {
    let signs_in =
        hub::has_entry(server) || vault::any_credentials() && hub::entry_if_stored(server).await;
    if !signs_in {
        return None;
    }
    let (waiter, answer) = hub::new_waiter(server)?;
    let access = with_entry(server, |e| e.machine.access(now(), waiter, url));
    let value = match access {
        Some(Access::Wait) => {
            hub::drive(server);
            return answer.await.ok().flatten();
        }
        Some(Access::Bearer(v)) => Some(v),
        Some(Access::Anonymous) | None => None,
    };
    hub::answer(server, waiter, None);
    hub::drive(server);
    value
}

/// The DPoP proof a request carrying `authorization` needs (the machine plans it, `prove`
/// signs it), or `None` when it needs none or the proof could not be signed (said in the
/// console; the server then refuses the request and its card says so).
async fn proof(server: &str, method: &str, url: &str, authorization: &str) -> Option<String> {
    let plan = with_entry(server, |e| {
        e.machine.resource_proof(method, url, authorization)
    })??;
    match prove::sign(&plan).await {
        Ok(proof) => Some(proof),
        Err(why) => {
            leptos::logging::warn!("Skiff: the DPoP proof for {url} could not be signed: {why}");
            None
        }
    }
}

/// `token_path::refused`.
async fn refused(
    server: &str,
    url: &str,
    refusal: Refusal,
    challenge: Option<&str>,
    sent: Option<&str>,
) -> Option<String> {
    if !hub::entry_for(server, None).await {
        return None;
    }
    let (waiter, answer) = hub::new_waiter(server)?;
    let challenge: Vec<&str> = challenge.into_iter().collect();
    let asked = with_entry(server, |e| match refusal {
        Refusal::Unauthorized => {
            e.machine
                .handle_unauthorized_at(now(), waiter, url, sent, &challenge);
            true
        }
        // `false`: not a request for more scope, an ordinary refusal.
        Refusal::Forbidden => e.machine.handle_forbidden(now(), waiter, &challenge),
    })
    .unwrap_or(false);
    if !asked {
        hub::answer(server, waiter, None);
        return None;
    }
    hub::drive(server);
    answer.await.ok().flatten()
}

/// At start: finish a sign-in that left by full-page redirect, then make the machines of
/// servers with stored credentials, so their cards say so and their tokens are refreshed on
/// time.
async fn start() {
    callback::resume().await;
    if !vault::any_credentials() {
        return;
    }
    let Some(store) = hub::host().map(|h| h.store) else {
        return;
    };
    let records = hub::records().await;
    for cfg in store.servers.get_untracked() {
        let signs_in = carries_tokens(cfg.transport, &cfg.url);
        if signs_in && covering(&records, &cfg.url).is_some() && hub::entry_for(&cfg.id, None).await
        {
            hub::drive(&cfg.id);
        }
    }
}
