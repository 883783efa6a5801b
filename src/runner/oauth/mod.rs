//! Signing in to remote MCP servers with OAuth (issue 10): the thin loop that performs
//! `skiff_core::oauth::AuthMachine`, one machine per server that asked for a sign-in or has
//! stored credentials.
//!
//! The machine decides everything (which metadata to fetch, who Skiff is to the server, whether
//! a callback is trusted, when to refresh, what a 401 or 403 means for the request, what the
//! card says); this performs: fetch (`platform::fetch`, through the CORS proxy the machine put
//! in the URL), random bytes, SHA-256, signatures and sealing (`platform::webcrypto`), the
//! sign-in window and the way back from it (`callback`), the sealed store (`vault`).
//!
//! - `token_path` is on every MCP request (`runner::mcp::link`), in the page's first load, and
//!   small: it reaches the rest only through `engine` (three entry points: a request to a
//!   server that signs in, a refused request, the start of a page that has credentials);
//! - `account` serves the Account dialog and loads with it.
//!
//! Architecture Invariant: a token is never logged, shown or put anywhere but an
//! `Authorization` header to a URL its resource covers (the machine's `access`) and its sealed
//! record; this module decides no retry, refresh or give-up of its own.

pub mod account;
mod callback;
mod engine;
mod hub;
mod perform;
mod prove;
mod token_path;
mod vault;

use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen_futures::spawn_local;

pub use token_path::{authorization, nonce, proof, refused};

use crate::stores::mcp::McpStore;
use crate::stores::notices::Notices;

/// Start the sign-in at page start (before any MCP server connects): finish a sign-in that
/// left by full-page redirect, and make the machines of servers with stored credentials, so
/// their cards say so and their tokens are refreshed on time. `connect` (re)connects a server.
pub fn install(store: McpStore, notices: Notices, connect: impl Fn(&str) + 'static) {
    hub::install(hub::Host {
        store,
        notices,
        connect: Rc::new(connect),
        revision: RwSignal::new(0),
    });
    vault::retire_old_keys();
    // Only a page that signs in to something loads the sign-in at start.
    if vault::any_credentials() || callback::returned() {
        spawn_local(async {
            if let Some(engine) = token_path::engine().await {
                (engine.start)().await;
            }
        });
    }
}

/// Changes whenever what the Account dialog shows may have changed (read it to re-render).
pub fn revision() -> Signal<u64> {
    hub::host().map_or_else(|| Signal::stored(0), |h| h.revision.into())
}
