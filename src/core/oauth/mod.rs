//! OAuth 2.1 for remote MCP servers, as the MCP authorization spec (revisions 2025-11-25 and
//! 2026-07-28) describes it for a public client: discovery from a 401, client identity (a
//! pre-registered id, a Client ID Metadata Document, or dynamic registration), the
//! authorization code flow with PKCE S256 and the `resource` indicator, the token endpoint,
//! refresh, step-up on `insufficient_scope`, and sign-out with revocation; and the grants that
//! need no browser window (`grant`): client credentials with a secret or a signed assertion,
//! cross-app access through the organisation's identity provider, and a workload's own JWT; and
//! DPoP proofs for sender-constrained tokens (`dpop`).
//!
//! It exists so that every protocol decision (which URL to try next, whether a document may be
//! trusted, what a callback means, when to refresh) is plain Rust that `cargo test` checks
//! natively against exact URLs and form bodies. The runner (`runner::oauth`) only performs
//! what `AuthMachine` asks: fetch, open a popup, seal and store, resend. What an MCP answer
//! means for its request (`request_auth`), where a sign-in is kept (`stored`), the card's
//! sentence (`status_text`) and the Account dialog (`account`) are decided here too.
//!
//! Architecture Invariant: nothing here performs IO, reads a clock, draws randomness or
//! computes a digest. Random bytes and SHA-256 digests come in as arguments (the page has
//! `crypto.getRandomValues` and WebCrypto), time comes in as `now_ms`. A token is only ever
//! handed out for a URL inside the resource it was issued for (`credentials::Credentials::
//! covers`).

pub mod account;
pub mod authorize;
pub mod client;
pub mod credentials;
pub mod discovery;
pub mod dpop;
pub mod error;
pub mod form;
pub mod grant;
pub mod grant_requests;
pub mod jwt;
pub mod machine;
mod machine_dpop;
mod machine_grants;
mod machine_steps;
pub mod machine_types;
pub mod metadata;
pub mod pkce;
pub mod request_auth;
pub mod status_text;
pub mod stored;
pub mod token;
pub mod url;
pub mod www_authenticate;

pub use error::OAuthError;
pub use machine::AuthMachine;
pub use machine_types::{Access, AppIdentity, AuthCommand, AuthSetup, AuthStatus, FetchFailure};

#[cfg(test)]
mod machine_dpop_tests;
#[cfg(test)]
mod machine_grants_tests;
#[cfg(test)]
mod machine_tests;
