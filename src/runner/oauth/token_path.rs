//! The two questions the MCP fetch path (`runner::mcp::link`) asks before and after a request:
//! which `Authorization` value it carries, and what to send again after the server refused it.
//! Both are answered by the server's machine (`AuthMachine::access`, `handle_unauthorized_at`,
//! `handle_forbidden`); this only makes the machine when one is needed and waits for its answer.
//!
//! On every MCP request, so it costs nothing for a server that never signs in: no machine, no
//! stored record, no IO (one look at localStorage's key list).

use skiff_core::oauth::request_auth::Refusal;
use skiff_core::oauth::Access;

use super::hub::{self, now, with_entry};
use super::vault;

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

/// The server refused a request to `url` that carried `sent` (`request_auth::refusal` said it
/// is the sign-in's): a fresh `Authorization` value to send it again with, or `None` to hand
/// the refusal on as it is (the card then says what the user can do).
pub async fn refused(
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
