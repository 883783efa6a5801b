//! The conversation pipeline: what one request says besides the user's words, and how much of
//! the conversation it carries.
//!
//! - [`template`]: the system template (date, time, model, how to write math) and the input
//!   template a user message is wrapped in, filled from plain values (no clock here: the
//!   runner passes the time in).
//! - [`context`]: which recent messages a request carries — at most a history count, within a
//!   token budget derived from the model's context window, oldest dropped first, never
//!   starting on an answer without its question, nothing from before a "clear context" mark.
//! - [`gauge`]: the composer's "how full is the next request" in words.
//! - [`search`]: every conversation's titles and messages, with a snippet per match.
//! - [`tokens`]: the estimate the budget and the composer's gauge are counted in.
//! - [`memory`]: compaction, a summary that stands in for older messages.
//! - [`title`]: the auto-title request's prompt and the cleaning of what the model answers.
//! - [`export`]: one conversation as Markdown or as JSON; [`import`] reads ours and
//!   llama.cpp web UI's back, adding only.
//! - [`instructions`]: MCP servers' instructions, sent with their tools, framed as theirs.
//! - [`llamacpp`]: llama.cpp web UI's message tree, out and in, branches kept.
//! - [`request`]: the above assembled for one request, in the documented order.
//!
//! Everything here is a pure function of its arguments, tested natively; the runner performs
//! what it decides and the UI shows it. Nothing here sends, stores or reads a clock.

pub mod backup;
#[cfg(test)]
mod backup_tests;
pub mod context;
pub mod export;
pub mod gauge;
pub mod import;
pub mod instructions;
pub mod llamacpp;
pub mod memory;
pub mod request;
pub mod search;
pub mod template;
pub mod title;
pub mod tokens;

#[cfg(test)]
mod context_tests;
#[cfg(test)]
mod import_tests;
#[cfg(test)]
mod request_tests;
#[cfg(test)]
mod template_tests;
