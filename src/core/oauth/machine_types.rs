//! The values `AuthMachine` takes and hands back: how a server is set up (`AuthSetup`), what a
//! fetch failure was (`FetchFailure`), what an MCP request may carry (`Access`), what the page
//! must do (`AuthCommand`) and what the server card shows (`AuthStatus`). Kept apart from the
//! machine so the runner and the UI can read them without wading through its logic.

use serde::{Deserialize, Serialize};

use super::client::ClientIdentity;
use super::credentials::Credentials;
use super::dpop::ProofPlan;
use super::error::OAuthError;
use super::grant::GrantSetup;
use super::jwt::SigningAlg;
use crate::http::HttpRequest;

pub use super::client::AppIdentity;

/// Identifies one fetch the machine asked for; its answer comes back with it.
pub type FetchId = u64;

/// Identifies one MCP request that asked for a token (chosen by the caller).
pub type WaiterId = u64;

/// One MCP server as the sign-in sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthSetup {
    /// The MCP endpoint URL as configured.
    pub server_url: String,
    pub app: AppIdentity,
    /// A client id the user registered with the authorization server and entered.
    pub client_id: Option<String>,
    /// The secret registered with that client id, for a confidential client (else `None`).
    pub client_secret: Option<String>,
    /// The CORS proxy prefix set for this server; discovery, registration, token and
    /// revocation requests go through it (the authorization page itself never does).
    pub proxy: Option<String>,
    /// Credentials loaded from the store at start.
    pub stored: Option<Credentials>,
    /// An authorization request in flight when the page left for a full-page redirect, read
    /// back from session storage so the callback can be checked after the reload.
    pub pending: Option<PendingAuthorization>,
    /// Fall back to the 2025-03-26 discovery when every resource metadata address answers
    /// "not here" (the server's origin as authorization server, then its default endpoints),
    /// as the MCP SDKs do and the conformance suite's 2025-03-26 scenarios expect. Off, such a
    /// server is `OAuthError::NoResourceMetadata`.
    pub legacy_fallback: bool,
    /// How the user chose to sign in, and what that needs beyond the client id and secret.
    pub grant: GrantSetup,
}

/// Why a fetch got no HTTP answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchFailure {
    /// The browser blocked the answer (no CORS headers). The platform tells this apart from a
    /// plain network failure when it can (see the runner); otherwise it reports `Network`.
    Cors,
    /// Offline, refused, DNS, TLS: the platform's message.
    Network(String),
    /// The request was not sent: its DPoP proof could not be signed (WebCrypto's words).
    Proof(String),
}

/// What an MCP request may carry, answered by `AuthMachine::access`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    /// Send it with this `Authorization` header value.
    Bearer(String),
    /// Send it without credentials: none exist for this URL (and none ever go elsewhere).
    Anonymous,
    /// A refresh is running: hold the request until `AuthCommand::Resume` (or `Fail`) names it.
    Wait,
}

/// Everything an authorization request needs to be finished, recorded before the user leaves
/// for the authorization server (2026-07-28 "Authorization Response Validation": the issuer
/// is recorded with the verifier and the state). Serializable so a full-page redirect can keep
/// it in session storage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingAuthorization {
    pub issuer: String,
    pub iss_required: bool,
    pub resource: String,
    pub token_endpoint: String,
    #[serde(default)]
    pub revocation_endpoint: Option<String>,
    pub client: ClientIdentity,
    pub redirect_uri: String,
    pub scopes: Vec<String>,
    pub verifier: String,
    pub state: String,
    pub authorization_url: String,
    /// The authorization server binds tokens to a key (`dpop::wanted`): the code exchange
    /// carries a DPoP proof. Absent in a request saved before DPoP: then it does not.
    #[serde(default)]
    pub dpop: bool,
}

/// What the page must do, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum AuthCommand {
    /// Perform this request (GET a metadata document, POST a form or a registration) and
    /// report `handle_response(id, status, body)` or `handle_fetch_failed(id, failure)`.
    Fetch { id: FetchId, request: HttpRequest },
    /// `Fetch` with a DPoP proof (RFC 9449 §5) in its `DPoP` header, signed as `proof` says:
    /// report `handle_proved_response(id, status, body, DPoP-Nonce header)`, or
    /// `handle_fetch_failed` (also when the proof could not be signed). A nonce refusal comes
    /// back as this command again with the same `id` and the nonce in `proof`.
    FetchWithProof {
        id: FetchId,
        request: HttpRequest,
        proof: ProofPlan,
    },
    /// Draw `pkce::VERIFIER_BYTES` random bytes, make `pkce::Verifier::from_random`, SHA-256
    /// its `as_str()` with WebCrypto, draw 16 more bytes for `pkce::state_from_random`, and
    /// call `handle_pkce`.
    PreparePkce,
    /// Show the authorization server's page (popup, or full-page redirect when popups are
    /// blocked, after saving `pending` to session storage). The answer comes to the redirect
    /// URI; hand its URL to `handle_callback`.
    OpenAuthorization {
        url: String,
        pending: PendingAuthorization,
    },
    /// Draw `jwt::JTI_BYTES` random bytes and call `handle_assertion_random(id, bytes)`, which
    /// gives the bytes to sign; sign them with the stored private key (`alg`, WebCrypto) and
    /// call `handle_signature(id, Ok(signature))`, or `Err(message)` when that fails.
    Sign { id: FetchId, alg: SigningAlg },
    /// The popup or saved pending request is finished with; close it / forget it.
    CloseAuthorization,
    /// Persist (encrypted) the credentials, replacing any for the same server.
    Store(Credentials),
    /// Remove stored credentials for this issuer and resource.
    Delete { issuer: String, resource: String },
    /// Send (again) the MCP request `waiter` with this `Authorization` value.
    Resume {
        waiter: WaiterId,
        authorization: String,
    },
    /// The MCP request `waiter` cannot be authorized; fail it with this error.
    Fail { waiter: WaiterId, error: OAuthError },
    /// What the server card shows.
    Status(AuthStatus),
    /// A sign-in the user started (or came back to after a full-page redirect) finished with
    /// no request waiting for it: (re)connect the server now, since its last connection was
    /// refused. A request that waited is sent again with the token instead, so no reconnect
    /// then.
    Connect,
}

/// What the server card shows about signing in.
#[derive(Debug, Clone, PartialEq)]
pub enum AuthStatus {
    /// No credentials, and the server has not asked for any.
    SignedOut,
    /// The server asked; Skiff is reading its metadata and registering.
    Preparing,
    /// Everything is ready: the user presses Sign in (the popup needs a click).
    SignInRequired {
        issuer: String,
        scopes: Vec<String>,
    },
    /// The authorization server's page is open.
    WaitingForUser {
        issuer: String,
    },
    /// The code is being exchanged for a token.
    Exchanging,
    SignedIn {
        issuer: String,
        scopes: Vec<String>,
        expires_at_ms: Option<f64>,
    },
    Failed(OAuthError),
}

impl AuthStatus {
    /// The name stored strings and CSS classes use.
    pub fn as_str(&self) -> &'static str {
        match self {
            AuthStatus::SignedOut => "signed-out",
            AuthStatus::Preparing => "preparing",
            AuthStatus::SignInRequired { .. } => "sign-in-required",
            AuthStatus::WaitingForUser { .. } => "waiting-for-user",
            AuthStatus::Exchanging => "exchanging",
            AuthStatus::SignedIn { .. } => "signed-in",
            AuthStatus::Failed(_) => "failed",
        }
    }
}
