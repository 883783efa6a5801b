//! The resource browser, the `@` picker, template forms and subscriptions (issue 13 items
//! 1–4): every decision the on-demand module (`src/extras`, `resources.js`) makes, as plain
//! Rust tested natively.
//!
//! - [`store`]: the mcpResource store: each server's resource and template lists as last
//!   seen, the content cache (`resource_cache`'s rules), subscriptions, and how it is stored
//!   (a versioned localStorage value that is never overwritten when it cannot be read).
//! - [`read`]: what a `resources/read` result becomes (parts, size limits, `ttlMs`), and the
//!   sentence that says what an update changed.
//! - [`search`]: the `@` picker's search over every server and the cache, and the `@query` in
//!   the composer's text.
//! - [`form`]: a resource template's form (RFC 6570 variables), its validation and URI.
//! - [`html`]: the browser's, preview's, form's and picker's markup (`crate::html`: every value
//!   escaped; server names and descriptions through `display::text`).
//!
//! Architecture Invariant: no IO and no clock (time is `now_ms`); the module's JavaScript
//! performs the requests, IndexedDB and localStorage writes that these functions decide.

pub mod form;
pub mod html;
pub mod read;
pub mod search;
pub mod store;

#[cfg(test)]
mod tests;
