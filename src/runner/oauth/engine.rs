//! The sign-in's entry points behind the token path (`token_path`) and the page's start: the
//! answers of a server's machine (`AuthMachine::access`, `handle_unauthorized_at`,
//! `handle_forbidden`), made when one is needed, and the machines made at start. Everything
//! of the sign-in (the machines, WebCrypto, the store) is reached from here or from the
//! Account dialog, so these three functions are where the sign-in can load on demand.

use leptos::prelude::*;
use skiff_core::oauth::request_auth::Refusal;
use skiff_core::oauth::Access;

use super::hub::{self, now, with_entry};
use super::{callback, vault};
use skiff_core::oauth::request_auth::carries_tokens;
use skiff_core::oauth::stored::covering;

/// The `Authorization` value a request to `url` on `server` carries, or `None` to send it
/// without one. Waits while the token is being refreshed.
pub async fn authorization(server: &str, url: &str) -> Option<String> {
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

/// `token_path::refused`.
pub(super) async fn refused(
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
pub(super) async fn start() {
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
