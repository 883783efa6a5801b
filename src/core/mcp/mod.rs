//! Skiff's MCP client core: everything about talking to MCP servers that does not touch the
//! browser.
//!
//! It exists so that the hard parts (both protocol eras, version negotiation, Streamable HTTP
//! sessions and resumption, the deprecated HTTP+SSE fallback, reconnect schedules, tool-name
//! conflicts) are plain Rust that `cargo test` drives natively with recorded traffic and a fake
//! clock. The platform adapters only move bytes: they perform the `HttpRequest`s built here,
//! feed back statuses, headers and body chunks, and set the timers `next_deadline` asks for.
//!
//! Nothing here may perform IO, read a clock, spawn a task or depend on a browser API. The MCP
//! payload types are owned in `model` (rmcp's client cannot run in a browser, and its model
//! cost build time and page bytes for ten structs).

pub mod ask_ui;
pub mod backoff;
pub mod composer_trigger;
pub mod config;
pub mod down_badge;
pub mod elicit;
mod envelope;
pub mod era;
pub mod error;
pub mod held_ask;
pub mod http_client;
pub mod http_common;
pub mod icon;
pub mod kept_session;
mod kind_map;
pub mod legacy_sse;
pub mod messages;
pub mod model;
pub mod param_headers;
pub mod prompt_result;
pub mod res_ui;
pub mod resource_cache;
pub mod roots;
pub mod sampling;
pub mod sampling_step;
pub mod session;
mod session_asks;
mod session_lists;
pub mod session_mrtr;
mod session_requests;
mod session_resume;
mod session_subs;
pub mod session_types;
pub mod streamable_http;
pub mod supervisor;
mod supervisor_asks;
mod supervisor_events;
mod supervisor_link;
mod supervisor_reports;
mod supervisor_tasks;
pub mod supervisor_types;
pub mod task;
pub mod tool_index;
pub mod types_2026;
pub mod uri_template;

pub use era::{Era, EraCache};
pub use error::{McpError, SubscriptionRefusal};
pub use messages::{ListKind, RequestId};
pub use session::McpSession;
pub use session_types::{Output, Phase, SendKind, SendMeta, SessionConfig, SessionEvent};
pub use supervisor::Supervisor;
pub use supervisor_types::{
    Action, CallKey, ElicitKey, LinkId, Request, ServerKind, Setup, WsReport,
};

#[cfg(test)]
mod session_subs_tests;
#[cfg(test)]
mod session_tests;
#[cfg(test)]
mod test_support;
