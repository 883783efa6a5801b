//! The resource browser, the `@` picker, template forms and subscriptions (issue 13 items
//! 1–4): every decision the page's resource surfaces (`ui::mcp::resources`) and their runner
//! (`runner::mcp_resources`) make, as plain Rust tested natively.
//!
//! - [`store`]: the mcpResource store: each server's resource and template lists as last
//!   seen, the content cache (`resource_cache`'s rules), subscriptions, and how it is stored
//!   (a versioned localStorage value that is never overwritten when it cannot be read).
//! - [`read`]: what a `resources/read` result becomes (parts, size limits, `ttlMs`), and the
//!   sentence that says what an update changed.
//! - [`search`]: the `@` picker's search over every server and the cache, and the `@query` in
//!   the composer's text.
//! - [`form`]: a resource template's form (RFC 6570 variables), its validation and URI.
//! - [`view`]: what the browser, preview, form and picker show (server names and
//!   descriptions through `display::text`), as view-models.
//!
//! Architecture Invariant: no IO, no clock (time is `now_ms`) and no markup; the runner
//! performs the requests, IndexedDB and localStorage writes that these functions decide.

pub mod form;
pub mod read;
pub mod search;
pub mod store;
pub mod view;

#[cfg(test)]
mod tests;
