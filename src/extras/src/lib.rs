//! Skiff's on-demand MCP module (`extras/` beside the page, built by `scripts/build-extras.sh`).
//!
//! Only the OAuth sign-in is left here: the Account dialog, tokens and refresh, run by
//! `oauth.js` with `skiff_core::oauth`'s decisions exported below. Every other MCP surface
//! (resources, prompts, elicitation, sampling, roots) is a Leptos component of the page
//! (`ui::mcp`). The page imports `extras/extras.js` the first time a server needs a sign-in
//! (see README.md for the contract).

#[cfg(target_arch = "wasm32")]
use wasm_bindgen::prelude::*;

pub mod oauth;

/// The module's build, for the page's diagnostics.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn extras_version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
