//! Where a sign-in is kept in the browser, named and shaped exactly as Skiff has kept it since
//! issue 10 (so a user signed in before this release stays signed in after it):
//!
//! - localStorage `skiff.oauth.cred.<issuer> <resource>`: one `Credentials` record per issuer
//!   and resource, as JSON, sealed (below);
//! - localStorage `skiff.oauth.<field>.<server id>`: what the Account dialog saved for a server
//!   (`ServerField`): the sign-in method, a client id, the identity provider's endpoint and
//!   client id in the clear; the client secret, the private key (PEM) and the ID token sealed;
//! - sealed = `{"v":1,"iv":<base64>,"ct":<base64>}`: AES-GCM (12-byte IV, 128-bit tag) under a
//!   non-extractable key kept in IndexedDB `skiff-oauth` / `keys` / `tokens`, with the
//!   localStorage key's UTF-8 bytes as additional data, so a record copied under another name
//!   does not decrypt and a copy of localStorage alone decrypts nothing;
//! - sessionStorage `skiff.oauth.pending` (`PendingRedirect`) while the tab is away at the
//!   authorization server after a full-page redirect, and `skiff.oauth.returned` (the callback
//!   URL) once the callback page sent it back.
//!
//! This module only names and shapes; the runner reads, writes and seals (WebCrypto). It never
//! holds a key.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::credentials::Credentials;
use super::grant::{GrantSetup, SignInMethod};
use super::jwt::parse_private_key;
use super::machine_types::{AppIdentity, AuthSetup, PendingAuthorization};
use crate::base64::{base64, unbase64};

/// Prefix of the sealed credential records (`credentials_key`).
pub const CREDENTIALS_PREFIX: &str = "skiff.oauth.cred.";

/// The localStorage key of the record for `issuer` and `resource`.
pub fn credentials_key(issuer: &str, resource: &str) -> String {
    format!("{CREDENTIALS_PREFIX}{issuer} {resource}")
}

/// The name of the DPoP key pair (a non-extractable WebCrypto P-256 `CryptoKeyPair`) that the
/// tokens of `issuer` for `resource` are bound to, in IndexedDB's `KEY_STORE` beside the
/// sealing key: one key per credential record, made at its first token request and deleted
/// with it, so two servers never see the same key.
pub fn dpop_key_name(issuer: &str, resource: &str) -> String {
    format!("dpop {issuer} {resource}")
}

/// sessionStorage: the authorization request a full-page redirect left with.
pub const PENDING_KEY: &str = "skiff.oauth.pending";
/// sessionStorage: the callback URL the callback page brought back after that redirect.
pub const RETURNED_KEY: &str = "skiff.oauth.returned";
/// The BroadcastChannel the callback page (a popup) hands its URL over.
pub const CHANNEL: &str = "skiff-oauth";
/// The popup's window name and features.
pub const POPUP_NAME: &str = "skiff-oauth";
pub const POPUP_FEATURES: &str = "popup,width=520,height=720";

/// The `<meta name>` in `index.html` that carries the page's public address when the build
/// wrote Skiff's Client ID Metadata Document for it (`scripts/write-client-metadata.mjs`).
pub const PUBLIC_URL_META: &str = "skiff-public-url";

/// Keys the JavaScript sign-in wrote that nothing reads any more (it asked the page to import
/// its module at start); removed at start so they do not linger.
pub const RETIRED_KEYS: [&str; 1] = ["skiff.extras.boot.oauth"];

/// The IndexedDB database, object store and key of the sealing key (a `CryptoKey`).
pub const KEY_DB: &str = "skiff-oauth";
pub const KEY_DB_VERSION: u32 = 1;
pub const KEY_STORE: &str = "keys";
pub const KEY_NAME: &str = "tokens";

/// The AES-GCM IV length a sealed value is written with.
pub const IV_BYTES: usize = 12;

/// One thing the Account dialog saves per server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerField {
    /// How Skiff signs in (`SignInMethod::as_str`).
    Method,
    /// A client id registered with the authorization server.
    ClientId,
    /// Its client secret (sealed).
    Secret,
    /// Its private key as a PKCS#8 PEM (sealed).
    Key,
    /// Cross-app access: the identity provider's token endpoint...
    IdpTokenEndpoint,
    /// ...Skiff's client id there...
    IdpClientId,
    /// ...and the user's ID token (sealed).
    IdToken,
}

impl ServerField {
    pub const ALL: [ServerField; 7] = [
        ServerField::Method,
        ServerField::ClientId,
        ServerField::Secret,
        ServerField::Key,
        ServerField::IdpTokenEndpoint,
        ServerField::IdpClientId,
        ServerField::IdToken,
    ];

    /// The localStorage key prefix; the server id follows it.
    pub fn prefix(self) -> &'static str {
        match self {
            ServerField::Method => "skiff.oauth.method.",
            ServerField::ClientId => "skiff.oauth.client.",
            ServerField::Secret => "skiff.oauth.secret.",
            ServerField::Key => "skiff.oauth.key.",
            ServerField::IdpTokenEndpoint => "skiff.oauth.idp.endpoint.",
            ServerField::IdpClientId => "skiff.oauth.idp.client.",
            ServerField::IdToken => "skiff.oauth.idtoken.",
        }
    }

    pub fn key(self, server_id: &str) -> String {
        format!("{}{server_id}", self.prefix())
    }

    /// Kept sealed like the tokens (and never shown back).
    pub fn sealed(self) -> bool {
        matches!(
            self,
            ServerField::Secret | ServerField::Key | ServerField::IdToken
        )
    }

    /// Sign out forgets what signs in without the user, so nothing signs in again by itself.
    pub fn forgotten_on_sign_out(self) -> bool {
        self.sealed()
    }
}

/// Why a stored value could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// The text is not a sealed envelope Skiff writes.
    NotSealed(String),
    /// WebCrypto refused to decrypt it (another browser profile's key, a copied record, a
    /// damaged value).
    DoesNotDecrypt(String),
    /// It decrypted to something that is not a credential record.
    NotARecord(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::NotSealed(why) => write!(f, "it is not a sealed value ({why})"),
            StoreError::DoesNotDecrypt(why) => write!(
                f,
                "it does not decrypt with this browser's key ({why}); it is kept as it is"
            ),
            StoreError::NotARecord(why) => write!(f, "it is not a sign-in record ({why})"),
        }
    }
}

impl std::error::Error for StoreError {}

/// A sealed value as stored: `{"v":1,"iv":…,"ct":…}` (standard base64 with padding).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sealed {
    pub v: u32,
    pub iv: String,
    pub ct: String,
}

impl Sealed {
    pub const VERSION: u32 = 1;

    pub fn new(iv: &[u8], ciphertext: &[u8]) -> Sealed {
        Sealed {
            v: Sealed::VERSION,
            iv: base64(iv),
            ct: base64(ciphertext),
        }
    }

    /// The stored text, field for field what the JavaScript store wrote.
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// The IV and the ciphertext (with its tag) of a stored text.
    pub fn parse(text: &str) -> Result<(Vec<u8>, Vec<u8>), StoreError> {
        let s: Sealed =
            serde_json::from_str(text).map_err(|e| StoreError::NotSealed(e.to_string()))?;
        if s.v != Sealed::VERSION {
            return Err(StoreError::NotSealed(format!("version {}", s.v)));
        }
        let iv = unbase64(&s.iv).ok_or_else(|| StoreError::NotSealed("its IV".into()))?;
        let ct = unbase64(&s.ct).ok_or_else(|| StoreError::NotSealed("its ciphertext".into()))?;
        if iv.len() != IV_BYTES {
            return Err(StoreError::NotSealed(format!("a {}-byte IV", iv.len())));
        }
        Ok((iv, ct))
    }
}

/// A decrypted record.
pub fn parse_record(plain: &str) -> Result<Credentials, StoreError> {
    serde_json::from_str(plain).map_err(|e| StoreError::NotARecord(e.to_string()))
}

/// The record a server at `url` signs in with: the first that covers its address.
pub fn covering<'a>(records: &'a [Credentials], url: &str) -> Option<&'a Credentials> {
    records.iter().find(|c| c.covers(url))
}

/// What a full-page redirect leaves in sessionStorage: which server, and the request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingRedirect {
    pub server: String,
    pub pending: PendingAuthorization,
}

impl PendingRedirect {
    pub fn to_text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn parse(text: &str) -> Option<PendingRedirect> {
        serde_json::from_str(text).ok()
    }
}

/// The callback page's message on `CHANNEL`: `{"kind":"callback","url":…}` as JSON text.
pub fn read_callback_message(text: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Message {
        kind: String,
        url: String,
    }
    serde_json::from_str::<Message>(text)
        .ok()
        .filter(|m| m.kind == "callback")
        .map(|m| m.url)
}

/// A server's saved fields that are kept in the clear, and which sealed ones exist.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerFields {
    pub method: SignInMethod,
    pub client_id: Option<String>,
    pub idp_token_endpoint: Option<String>,
    pub idp_client_id: Option<String>,
    pub secret_saved: bool,
    pub key_saved: bool,
    pub id_token_saved: bool,
}

fn entered(v: Option<String>) -> Option<String> {
    v.filter(|s| !s.trim().is_empty())
}

impl ServerFields {
    /// From the stored values (`get` reads one field's localStorage value; sealed ones are
    /// only checked for presence).
    pub fn read(get: impl Fn(ServerField) -> Option<String>) -> ServerFields {
        let saved = |f: ServerField| entered(get(f)).is_some();
        ServerFields {
            method: get(ServerField::Method)
                .map(|m| SignInMethod::parse(&m))
                .unwrap_or_default(),
            client_id: entered(get(ServerField::ClientId)),
            idp_token_endpoint: entered(get(ServerField::IdpTokenEndpoint)),
            idp_client_id: entered(get(ServerField::IdpClientId)),
            secret_saved: saved(ServerField::Secret),
            key_saved: saved(ServerField::Key),
            id_token_saved: saved(ServerField::IdToken),
        }
    }
}

/// The decrypted secrets of a server (`None`: none stored, or it did not decrypt).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerSecrets {
    pub client_secret: Option<String>,
    pub private_key: Option<String>,
    pub id_token: Option<String>,
}

/// Everything a server's machine is made from, as the store holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredSetup {
    pub server_url: String,
    pub proxy: Option<String>,
    /// `document.baseURI`.
    pub page_base: String,
    /// The page's address when the build wrote Skiff's Client ID Metadata Document
    /// (`client::metadata_served` decides whether it counts here).
    pub public_url: Option<String>,
    pub fields: ServerFields,
    pub secrets: ServerSecrets,
    pub stored: Option<Credentials>,
    pub pending: Option<PendingAuthorization>,
}

impl StoredSetup {
    /// The machine's setup. A stored key that cannot sign is left out (the dialog refuses such
    /// a key where it is pasted; one stored by an older release then reads as "no key").
    pub fn into_setup(self) -> AuthSetup {
        let served = self
            .public_url
            .as_deref()
            .is_some_and(|p| super::client::metadata_served(p, &self.page_base));
        let key_alg = self
            .secrets
            .private_key
            .as_deref()
            .and_then(|pem| parse_private_key(pem).ok())
            .map(|k| k.alg);
        AuthSetup {
            server_url: self.server_url,
            app: AppIdentity::for_page(&self.page_base, served),
            client_id: self.fields.client_id,
            client_secret: entered(self.secrets.client_secret),
            proxy: self.proxy.filter(|p| !p.trim().is_empty()),
            stored: self.stored,
            pending: self.pending,
            // As the MCP SDKs do, and the 2025-03-26 conformance scenarios expect.
            legacy_fallback: true,
            grant: GrantSetup {
                method: self.fields.method,
                key_alg,
                idp_token_endpoint: self.fields.idp_token_endpoint,
                idp_client_id: self.fields.idp_client_id,
                id_token: entered(self.secrets.id_token),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oauth::client::ClientIdentity;
    use crate::oauth::credentials::TokenGrant;

    /// A record exactly as the JavaScript store wrote it before this release (its plain text
    /// is `JSON.stringify` of the machine's record: integers without `.0`).
    const JS_RECORD: &str = r#"{"issuer":"http://127.0.0.1:9000","resource":"http://127.0.0.1:9001/mcp","client":{"kind":"registered","client_id":"c-1"},"token_endpoint":"http://127.0.0.1:9000/token","revocation_endpoint":"http://127.0.0.1:9000/revoke","access_token":"at_x","refresh_token":"rt_y","issued_at_ms":1732000000000,"expires_at_ms":1732000008000,"scopes":["mcp"]}"#;
    /// `JSON.stringify({v: 1, iv: b64(iv), ct: b64(ct)})` as oauth.js wrote it (`btoa`).
    const JS_SEALED: &str = r#"{"v":1,"iv":"AAECAwQFBgcICQoL","ct":"3q2+7w=="}"#;

    #[test]
    fn the_keys_are_the_ones_already_in_users_browsers() {
        assert_eq!(
            credentials_key("https://as.example", "https://mcp.example/mcp"),
            "skiff.oauth.cred.https://as.example https://mcp.example/mcp"
        );
        let keys: Vec<String> = ServerField::ALL.iter().map(|f| f.key("s1")).collect();
        assert_eq!(
            keys,
            [
                "skiff.oauth.method.s1",
                "skiff.oauth.client.s1",
                "skiff.oauth.secret.s1",
                "skiff.oauth.key.s1",
                "skiff.oauth.idp.endpoint.s1",
                "skiff.oauth.idp.client.s1",
                "skiff.oauth.idtoken.s1",
            ]
        );
        let sealed: Vec<ServerField> = ServerField::ALL
            .into_iter()
            .filter(|f| f.sealed())
            .collect();
        assert_eq!(
            sealed,
            [ServerField::Secret, ServerField::Key, ServerField::IdToken]
        );
        assert!(ServerField::ALL
            .iter()
            .all(|f| f.forgotten_on_sign_out() == f.sealed()));
        assert!(
            !ServerField::ALL
                .iter()
                .any(|f| f.key("x").starts_with(CREDENTIALS_PREFIX)),
            "no field is mistaken for a credential record"
        );
    }

    #[test]
    fn sealed_values_read_and_write_the_javascript_envelope() {
        let (iv, ct) = Sealed::parse(JS_SEALED).unwrap();
        assert_eq!(iv, (0u8..12).collect::<Vec<_>>());
        assert_eq!(ct, [0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(Sealed::new(&iv, &ct).to_text(), JS_SEALED, "byte for byte");

        assert!(matches!(
            Sealed::parse("not json"),
            Err(StoreError::NotSealed(_))
        ));
        assert!(Sealed::parse(r#"{"v":2,"iv":"AAECAwQFBgcICQoL","ct":"AA=="}"#).is_err());
        assert!(
            Sealed::parse(r#"{"v":1,"iv":"AAEC","ct":"AA=="}"#).is_err(),
            "a short IV"
        );
        assert!(Sealed::parse(r#"{"v":1,"iv":"AAECAwQFBgcICQoL","ct":"%%"}"#).is_err());
    }

    #[test]
    fn records_written_by_the_javascript_store_still_sign_in() {
        let c = parse_record(JS_RECORD).unwrap();
        assert_eq!(c.access_token, "at_x");
        assert_eq!(c.expires_at_ms, Some(1_732_000_008_000.0));
        assert_eq!(c.grant, TokenGrant::Code);
        assert_eq!(
            c.client,
            ClientIdentity::Registered {
                client_id: "c-1".into(),
                secret: None
            }
        );
        // What this release writes reads back the same.
        let again = parse_record(&serde_json::to_string(&c).unwrap()).unwrap();
        assert_eq!(again, c);
        assert!(matches!(
            parse_record(r#"{"issuer":1}"#),
            Err(StoreError::NotARecord(_))
        ));

        let other = Credentials {
            resource: "http://127.0.0.1:9002/mcp".into(),
            ..c.clone()
        };
        let records = [other, c];
        assert_eq!(
            covering(&records, "http://127.0.0.1:9001/mcp").map(|c| c.resource.as_str()),
            Some("http://127.0.0.1:9001/mcp")
        );
        assert!(covering(&records, "http://127.0.0.1:9003/mcp").is_none());
    }

    #[test]
    fn a_full_page_redirect_and_the_callback_message_round_trip() {
        let p = PendingRedirect {
            server: "s1".into(),
            pending: PendingAuthorization {
                issuer: "https://as".into(),
                iss_required: true,
                resource: "https://mcp/mcp".into(),
                token_endpoint: "https://as/token".into(),
                revocation_endpoint: None,
                client: ClientIdentity::Registered {
                    client_id: "c".into(),
                    secret: None,
                },
                redirect_uri: "https://skiff/extras/oauth-callback.html".into(),
                scopes: vec!["mcp".into()],
                verifier: "v".into(),
                state: "st".into(),
                authorization_url: "https://as/authorize?x".into(),
                dpop: true,
            },
        };
        assert_eq!(PendingRedirect::parse(&p.to_text()), Some(p));
        assert_eq!(PendingRedirect::parse("{}"), None);

        // What extras/oauth-callback.js posts.
        let url = "https://skiff/extras/oauth-callback.html?code=a&state=b";
        let text = format!(r#"{{"kind":"callback","url":"{url}"}}"#);
        assert_eq!(read_callback_message(&text).as_deref(), Some(url));
        assert_eq!(read_callback_message(r#"{"kind":"other","url":"x"}"#), None);
        assert_eq!(read_callback_message("[object Object]"), None);
    }

    #[test]
    fn the_stored_fields_make_the_machine_setup() {
        let stored = |f: ServerField| -> Option<String> {
            match f {
                ServerField::Method => Some("application".into()),
                ServerField::ClientId => Some("app-1".into()),
                ServerField::Secret => Some("{sealed}".into()),
                ServerField::IdpTokenEndpoint => Some("  ".into()),
                _ => None,
            }
        };
        let fields = ServerFields::read(stored);
        assert_eq!(
            fields,
            ServerFields {
                method: SignInMethod::Application,
                client_id: Some("app-1".into()),
                idp_token_endpoint: None,
                idp_client_id: None,
                secret_saved: true,
                key_saved: false,
                id_token_saved: false,
            }
        );
        assert_eq!(ServerFields::read(|_| None).method, SignInMethod::Browser);

        let setup = StoredSetup {
            server_url: "https://mcp.example/mcp".into(),
            proxy: Some("".into()),
            page_base: "https://skiff.example/app/index.html".into(),
            public_url: Some("https://skiff.example/app/".into()),
            fields,
            secrets: ServerSecrets {
                client_secret: Some("s3cret".into()),
                private_key: Some("-----BEGIN EC PRIVATE KEY-----x".into()),
                id_token: Some("".into()),
            },
            stored: None,
            pending: None,
        }
        .into_setup();
        assert_eq!(setup.client_id.as_deref(), Some("app-1"));
        assert_eq!(setup.client_secret.as_deref(), Some("s3cret"));
        assert_eq!(setup.proxy, None, "an empty proxy is none");
        assert_eq!(setup.grant.method, SignInMethod::Application);
        assert_eq!(
            setup.grant.key_alg, None,
            "a key that cannot sign is left out"
        );
        assert_eq!(setup.grant.id_token, None);
        assert!(setup.legacy_fallback);
        assert_eq!(
            setup.app.client_metadata_url.as_deref(),
            Some("https://skiff.example/app/client-metadata.json"),
            "the page runs where the document was written for"
        );
        assert_eq!(
            setup.app.redirect_uri,
            "https://skiff.example/app/extras/oauth-callback.html"
        );
    }
}
