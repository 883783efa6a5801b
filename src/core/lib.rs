//! Skiff's sans-IO core.
//!
//! Everything here is pure Rust: no `web_sys`, no `gloo`, no clock, no randomness drawn from the
//! environment. Callers hand in bytes, records and the current time (`now_ms`), and get back
//! values, requests to perform and typed errors. That is what lets `cargo test -p skiff-core`
//! check every decoder byte for byte against captured traffic, natively, in milliseconds.
//!
//! This crate must never gain a dependency on a browser API: the compiler enforces the layer
//! boundary because this is a separate crate with no web dependencies.

#![warn(unreachable_pub)]

pub mod address;
pub mod agent;
pub mod announce;
pub mod anthropic;
pub mod attach;
pub mod base64;
pub mod branches;
pub mod builtin;
pub mod calendar;
pub mod chat_line;
pub mod chunk_load;
pub mod display;
pub mod focus_trap;
pub mod follow;
pub mod form;
pub mod format;
pub mod gemini;
pub mod http;
pub mod local_model;
pub mod markdown;
pub mod masks;
pub mod mcp;
pub mod model_panel;
pub mod names;
pub mod number;
pub mod oauth;
pub mod openai;
pub mod order;
pub mod persist;
pub mod pipeline;
pub mod profiles;
pub mod projects;
#[cfg(test)]
mod props;
pub mod provider;
pub mod records;
pub mod seam;
pub mod send_queue;
pub mod settings;
pub mod shortcuts;
pub mod sidebar;
pub mod small_map;
#[cfg(test)]
mod split_points;
pub mod sse;
pub mod thinking;
pub mod throttle;
pub mod tools;
