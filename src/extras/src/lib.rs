//! Skiff's on-demand MCP module (`extras/` beside the page, built by `scripts/build-extras.sh`).
//!
//! Why a module of its own: the resource browser, template and prompt forms, the sampling
//! approval card, elicitation's question cards and the roots list are rare surfaces, and the
//! page's first load has no room for them (its budget is 800 KiB gzip). The page imports
//! `extras/extras.js` the first time the user opens one of them or a server asks for sampling
//! or input (see README.md for the contract).
//!
//! This crate is thin: every decision (what a form holds, what a request sends, what the
//! cache keeps, what to show for untrusted server text) is a `skiff_core` function tested
//! natively; here they are only exported to the module's JavaScript, which paints the HTML
//! core writes and performs the IO.

pub mod elicit;
pub mod resources;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen::prelude::*;

mod asks;

/// The module's build, for the page's diagnostics.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn extras_version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
