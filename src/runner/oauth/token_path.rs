//! The two questions the MCP fetch path (`runner::mcp::link`) asks before and after a request:
//! which `Authorization` value it carries, and what to send again after the server refused it
//! (`core::oauth::request_auth` says when to ask). The server's machine answers (`engine`).
//!
//! On every MCP request, so it costs nothing for a server that never signs in: no machine, no
//! stored record, no IO beyond one look at localStorage's key list, and none of the sign-in's
//! code runs: it stays in an on-demand chunk (`engine::engine_point`) until a server refuses a
//! request or credentials are stored.

use skiff_core::chunk_load::ChunkLoadFailure;
use skiff_core::oauth::request_auth::Refusal;

use super::engine::{engine_point, Engine};
use super::{hub, vault};
use crate::platform::online;

/// The sign-in's code, fetched on first use. When it cannot be fetched the user is told where
/// they look for notices, and the request goes on without a token (its refusal then says what
/// the server wanted).
pub(super) async fn engine() -> Option<&'static Engine> {
    match engine_point().await {
        Ok(engine) => Some(engine),
        Err(_) => {
            let why = ChunkLoadFailure {
                surface: "The sign-in to MCP servers",
                online: online::is_online(),
            };
            hub::notify(why.to_string());
            None
        }
    }
}

/// The `Authorization` value a request to `url` on `server` carries, or `None` to send it
/// without one. Waits while the token is being refreshed.
pub async fn authorization(server: &str, url: &str) -> Option<String> {
    if !hub::has_entry(server) && !vault::any_credentials() {
        return None;
    }
    let engine = engine().await?;
    (engine.authorization)(server.to_string(), url.to_string()).await
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
    let engine = engine().await?;
    (engine.refused)(
        server.to_string(),
        url.to_string(),
        refusal,
        challenge.map(str::to_string),
        sent.map(str::to_string),
    )
    .await
}

/// The `DPoP` header value for a request (method, URL as fetched) that carries
/// `authorization`, when that is a DPoP-bound token (`Authorization: DPoP …`): a fresh proof
/// each call (one `jti` per request, RFC 9449 §4.2). `None` for any other value.
pub async fn proof(server: &str, method: &str, url: &str, authorization: &str) -> Option<String> {
    skiff_core::oauth::dpop::bound_token(authorization)?;
    let engine = engine().await?;
    (engine.proof)(
        server.to_string(),
        method.to_string(),
        url.to_string(),
        authorization.to_string(),
    )
    .await
}

/// A server's answer to a request to `url` that carried a proof gave this `DPoP-Nonce`: its
/// next proofs carry it (RFC 9449 §9).
pub async fn nonce(server: &str, url: &str, nonce: &str) {
    if let Some(engine) = engine().await {
        (engine.nonce)(server, url, nonce);
    }
}
