//! Runners: the thin async loops that perform what core asks (fetch, timers, abort) and write
//! the results into stores. They own no UI and no wire format: formats are decoded in
//! `skiff-core`, state lives in `stores`. When a runner grows a decision worth testing, that
//! decision belongs in core.

pub mod agent;
pub mod attach;
pub mod backup;
pub mod builtin;
pub mod chat;
pub mod compact;
pub mod mcp;
pub mod mcp_resources;
pub mod models;
pub mod oauth;
pub mod prompts;
pub mod request_view;
pub mod sampling;
pub mod send_path;
pub mod side_request;
mod step;
pub mod task_resume;
pub mod title;
