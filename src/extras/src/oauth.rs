//! Signing in to remote MCP servers (issue 10): `skiff_core::oauth::AuthMachine`, one per
//! server, exported to `page/oauth.js`, which performs what it asks (fetch, popup, WebCrypto,
//! the encrypted store) and answers the page's `auth-header` / `auth-401` questions.
//!
//! Thin on purpose: values cross as JSON strings and every decision (what to fetch, whether a
//! callback is trusted, when to refresh, what the card says) is the machine's or
//! `skiff_core::oauth::view`'s, tested natively. Never put a token into anything shown: the
//! commands carry it only where the page must store or send it.

use serde::Deserialize;
use serde_json::{json, Value};
use skiff_core::oauth::client::{metadata_document, AppIdentity};
use skiff_core::oauth::credentials::Credentials;
use skiff_core::oauth::grant::{GrantSetup, SignInMethod};
use skiff_core::oauth::jwt::{parse_private_key, SigningAlg};
use skiff_core::oauth::machine_types::PendingAuthorization;
use skiff_core::oauth::pkce::{Verifier, VERIFIER_BYTES};
use skiff_core::oauth::view::{dialog_html, status_sentence, DialogView, GrantFields};
use skiff_core::oauth::{Access, AuthCommand, AuthMachine, AuthSetup, FetchFailure};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen::prelude::*;

/// What `oauth.js` knows about a server when it creates its machine.
#[derive(Deserialize)]
struct SetupJson {
    server_url: String,
    /// `document.baseURI` of the page.
    page_base: String,
    /// The build wrote the Client ID Metadata Document (SKIFF_PUBLIC_URL) and it is served.
    #[serde(default)]
    metadata_written: bool,
    #[serde(default)]
    client_id: Option<String>,
    #[serde(default)]
    client_secret: Option<String>,
    #[serde(default)]
    proxy: Option<String>,
    #[serde(default)]
    stored: Option<Credentials>,
    #[serde(default)]
    pending: Option<PendingAuthorization>,
    #[serde(default)]
    legacy_fallback: bool,
    /// "browser", "application" or "cross_app" (`SignInMethod::parse`).
    #[serde(default)]
    method: String,
    /// The stored private key's algorithm ("ES256", "RS256"), read by `oauth_key_alg`.
    #[serde(default)]
    key_alg: Option<SigningAlg>,
    #[serde(default)]
    idp_token_endpoint: Option<String>,
    #[serde(default)]
    idp_client_id: Option<String>,
    #[serde(default)]
    id_token: Option<String>,
}

/// The Account dialog's sign-in choice as `oauth.js` reads it from its store.
#[derive(Deserialize, Default)]
struct GrantJson {
    #[serde(default)]
    method: String,
    #[serde(default)]
    key_saved: bool,
    #[serde(default)]
    idp_token_endpoint: Option<String>,
    #[serde(default)]
    idp_client_id: Option<String>,
    #[serde(default)]
    id_token_saved: bool,
    #[serde(default)]
    notice: Option<String>,
}

impl GrantJson {
    /// A value that does not parse shows the defaults: the dialog still opens.
    fn read(json: &str) -> GrantJson {
        serde_json::from_str(json).unwrap_or_default()
    }

    fn fields(&self) -> GrantFields<'_> {
        GrantFields {
            method: SignInMethod::parse(&self.method),
            key_saved: self.key_saved,
            idp_token_endpoint: self.idp_token_endpoint.as_deref(),
            idp_client_id: self.idp_client_id.as_deref(),
            id_token_saved: self.id_token_saved,
            notice: self.notice.as_deref(),
        }
    }
}

/// One server's sign-in.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub struct OAuthServer {
    m: AuthMachine,
}

fn command_json(c: AuthCommand, now_ms: f64) -> Value {
    match c {
        AuthCommand::Fetch { id, request } => json!({
            "op": "fetch",
            "id": id,
            "method": request.method.as_str(),
            "url": request.url,
            "headers": request.headers,
            "body": request.body,
        }),
        AuthCommand::PreparePkce => json!({ "op": "pkce" }),
        AuthCommand::Sign { id, alg } => json!({ "op": "sign", "id": id, "alg": alg.as_str() }),
        AuthCommand::OpenAuthorization { url, pending } => {
            json!({ "op": "open", "url": url, "pending": pending })
        }
        AuthCommand::CloseAuthorization => json!({ "op": "close" }),
        AuthCommand::Store(c) => json!({ "op": "store", "credentials": c }),
        AuthCommand::Delete { issuer, resource } => {
            json!({ "op": "delete", "issuer": issuer, "resource": resource })
        }
        AuthCommand::Resume {
            waiter,
            authorization,
        } => json!({ "op": "resume", "waiter": waiter, "authorization": authorization }),
        AuthCommand::Fail { waiter, error } => {
            json!({ "op": "fail", "waiter": waiter, "error": error.to_string() })
        }
        AuthCommand::Status(s) => json!({
            "op": "status",
            "state": s.as_str(),
            "sentence": status_sentence(&s, now_ms),
        }),
    }
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
impl OAuthServer {
    /// `setup`: JSON of `SetupJson`. Fails with a sentence when it does not parse.
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen(constructor))]
    pub fn new(setup: &str) -> Result<OAuthServer, String> {
        let s: SetupJson = serde_json::from_str(setup).map_err(|e| e.to_string())?;
        let m = AuthMachine::new(AuthSetup {
            server_url: s.server_url,
            app: AppIdentity::for_page(&s.page_base, s.metadata_written),
            client_id: s.client_id,
            client_secret: s.client_secret,
            proxy: s.proxy,
            stored: s.stored,
            pending: s.pending,
            legacy_fallback: s.legacy_fallback,
            grant: GrantSetup {
                method: SignInMethod::parse(&s.method),
                key_alg: s.key_alg,
                idp_token_endpoint: s.idp_token_endpoint,
                idp_client_id: s.idp_client_id,
                id_token: s.id_token,
            },
        });
        Ok(OAuthServer { m })
    }

    /// `{"kind": "bearer", "value"}`, `{"kind": "anonymous"}` or `{"kind": "wait"}`.
    pub fn access(&mut self, now_ms: f64, waiter: f64, url: &str) -> String {
        match self.m.access(now_ms, waiter as u64, url) {
            Access::Bearer(v) => json!({ "kind": "bearer", "value": v }),
            Access::Anonymous => json!({ "kind": "anonymous" }),
            Access::Wait => json!({ "kind": "wait" }),
        }
        .to_string()
    }

    pub fn unauthorized(
        &mut self,
        now_ms: f64,
        waiter: f64,
        url: &str,
        sent: Option<String>,
        challenge: Option<String>,
    ) {
        let headers: Vec<&str> = challenge.as_deref().into_iter().collect();
        self.m
            .handle_unauthorized_at(now_ms, waiter as u64, url, sent.as_deref(), &headers);
    }

    /// `false`: an ordinary 403, not a request for more scope.
    pub fn forbidden(&mut self, now_ms: f64, waiter: f64, challenge: Option<String>) -> bool {
        let headers: Vec<&str> = challenge.as_deref().into_iter().collect();
        self.m.handle_forbidden(now_ms, waiter as u64, &headers)
    }

    pub fn sign_in(&mut self, now_ms: f64) {
        self.m.sign_in(now_ms);
    }

    pub fn sign_out(&mut self, now_ms: f64) {
        self.m.sign_out(now_ms);
    }

    pub fn closed(&mut self, now_ms: f64) {
        self.m.handle_authorization_closed(now_ms);
    }

    pub fn timeout(&mut self, now_ms: f64) {
        self.m.handle_timeout(now_ms);
    }

    pub fn next_timeout(&self) -> Option<f64> {
        self.m.poll_timeout()
    }

    /// The PKCE verifier from 32 random bytes; the page digests it and calls `pkce`.
    pub fn verifier(random: &[u8]) -> Result<String, String> {
        let bytes: [u8; VERIFIER_BYTES] = random
            .try_into()
            .map_err(|_| format!("a verifier needs {VERIFIER_BYTES} random bytes"))?;
        Ok(Verifier::from_random(&bytes).as_str().to_string())
    }

    pub fn pkce(
        &mut self,
        now_ms: f64,
        verifier: &[u8],
        sha256: &[u8],
        state_random: &[u8],
    ) -> Result<(), String> {
        let bytes: [u8; VERIFIER_BYTES] = verifier
            .try_into()
            .map_err(|_| "bad verifier bytes".to_string())?;
        let digest: [u8; 32] = sha256
            .try_into()
            .map_err(|_| "a SHA-256 digest is 32 bytes".to_string())?;
        let pkce = Verifier::from_random(&bytes).with_digest(&digest);
        let state = skiff_core::oauth::pkce::state_from_random(state_random);
        self.m.handle_pkce(now_ms, pkce, state);
        Ok(())
    }

    /// The bytes to sign for the assertion `id` asked for (`op: "sign"`), its `jti` from
    /// `random`; `None` when nothing waits on `id`.
    pub fn assertion(&mut self, now_ms: f64, id: f64, random: &[u8]) -> Option<String> {
        self.m.handle_assertion_random(now_ms, id as u64, random)
    }

    /// WebCrypto's signature over `assertion`'s bytes, or `error` (its message) when it failed.
    pub fn signature(&mut self, now_ms: f64, id: f64, signature: &[u8], error: Option<String>) {
        let result = match &error {
            Some(e) => Err(e.as_str()),
            None => Ok(signature),
        };
        self.m.handle_signature(now_ms, id as u64, result);
    }

    pub fn callback(&mut self, now_ms: f64, url: &str) {
        self.m.handle_callback(now_ms, url);
    }

    pub fn response(&mut self, now_ms: f64, id: f64, status: u16, body: &str) {
        self.m.handle_response(now_ms, id as u64, status, body);
    }

    /// `cors`: the browser blocked the answer (told apart by the page with a no-cors probe).
    pub fn fetch_failed(&mut self, now_ms: f64, id: f64, cors: bool, message: &str) {
        let failure = if cors {
            FetchFailure::Cors
        } else {
            FetchFailure::Network(message.to_string())
        };
        self.m.handle_fetch_failed(now_ms, id as u64, failure);
    }

    /// Everything the page must do now, as a JSON array (`command_json`).
    pub fn poll(&mut self, now_ms: f64) -> String {
        let mut out = Vec::new();
        while let Some(c) = self.m.poll_command() {
            out.push(command_json(c, now_ms));
        }
        Value::Array(out).to_string()
    }

    /// `{state, sentence}` of the last status, or null.
    pub fn status(&self, now_ms: f64) -> String {
        match self.m.status() {
            Some(s) => json!({ "state": s.as_str(), "sentence": status_sentence(s, now_ms) }),
            None => Value::Null,
        }
        .to_string()
    }

    pub fn signed_in(&self) -> bool {
        self.m.credentials().is_some()
    }

    /// The Account dialog's inner HTML. `grant`: JSON of `GrantJson`. As many arguments as
    /// the dialog has facts: wasm-bindgen exports no struct arguments from here.
    #[allow(clippy::too_many_arguments)]
    pub fn dialog(
        &self,
        server_name: &str,
        websocket: bool,
        client_id: Option<String>,
        secret_saved: bool,
        proxy: Option<String>,
        now_ms: f64,
        grant: &str,
    ) -> String {
        let grant = GrantJson::read(grant);
        dialog_html(&DialogView {
            server_name,
            websocket,
            status: self.m.status(),
            credentials: self.m.credentials(),
            client_id: client_id.as_deref(),
            secret_saved,
            proxy: proxy.as_deref(),
            now_ms,
            grant: grant.fields(),
        })
    }
}

/// The Account dialog for a server with no machine yet (it never asked for a sign-in).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn oauth_dialog_idle(
    server_name: &str,
    websocket: bool,
    client_id: Option<String>,
    secret_saved: bool,
    proxy: Option<String>,
    grant: &str,
) -> String {
    let grant = GrantJson::read(grant);
    dialog_html(&DialogView {
        server_name,
        websocket,
        status: None,
        credentials: None,
        client_id: client_id.as_deref(),
        secret_saved,
        proxy: proxy.as_deref(),
        now_ms: 0.0,
        grant: grant.fields(),
    })
}

/// Why a pasted private key cannot sign ("" when it can): shown by the dialog's Save.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn oauth_key_check(pem: &str) -> String {
    parse_private_key(pem)
        .err()
        .map_or_else(String::new, |e| e.to_string())
}

/// The key's algorithm ("ES256", "RS256"), or "" when it is not one Skiff signs with.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn oauth_key_alg(pem: &str) -> String {
    parse_private_key(pem).map_or_else(|_| String::new(), |k| k.alg.as_str().to_string())
}

/// The key's PKCS#8 DER bytes for WebCrypto's `importKey("pkcs8")` (empty when it does not
/// parse: the import then fails with WebCrypto's own message).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn oauth_key_der(pem: &str) -> Vec<u8> {
    parse_private_key(pem).map_or_else(|_| Vec::new(), |k| k.der)
}

/// Whether stored credentials (JSON) may be sent to `url`: which server they belong to at boot.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn oauth_covers(credentials: &str, url: &str) -> bool {
    serde_json::from_str::<Credentials>(credentials).is_ok_and(|c| c.covers(url))
}

/// Skiff's Client ID Metadata Document for a page at `public_url`, or "" when that address
/// cannot carry one (not https). The build calls this when `SKIFF_PUBLIC_URL` is set.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn oauth_client_metadata(public_url: &str) -> String {
    metadata_document(&AppIdentity::for_page(public_url, true)).unwrap_or_default()
}

/// The `state` of a callback URL's query, to route it to the sign-in that sent it (a wrong
/// one is still judged by that machine, which refuses it).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn oauth_callback_state(url: &str) -> Option<String> {
    let query = url.split('#').next()?.split_once('?')?.1;
    skiff_core::oauth::form::parse_pairs(query)
        .into_iter()
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v)
}
