//! Who Skiff is to an authorization server, chosen in the MCP spec's order ("Client
//! Registration Approaches", 2025-11-25; "Client Registration", 2026-07-28): a client id the
//! user registered and entered; else Skiff's Client ID Metadata Document when the server
//! advertises `client_id_metadata_document_supported`; else dynamic client registration
//! (RFC 7591) when it has a `registration_endpoint`; else the user is asked for a client id.
//!
//! Skiff is a public client (a static page keeps no secret): `token_endpoint_auth_method` is
//! `none` everywhere, and its redirect URI is on its own origin.

use serde_json::{json, Value};

use super::error::OAuthError;
use super::metadata::AuthorizationServer;
use super::url::{is_loopback, HttpUrl};
use crate::http::{HttpRequest, Method};

/// What Skiff says about itself; fixed per deployment (its origin).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppIdentity {
    pub client_name: String,
    /// The page's origin, `https://skiff.example`.
    pub client_uri: String,
    /// The callback page on the same origin, `https://skiff.example/oauth/callback.html`.
    pub redirect_uri: String,
    /// Where the build serves the Client ID Metadata Document, its URL being the client id.
    /// Only used when it is https with a path (the draft's requirement, repeated in the MCP
    /// spec): a page on `http://localhost` cannot be fetched by a remote server anyway.
    pub client_metadata_url: Option<String>,
}

impl AppIdentity {
    /// Skiff deployed at `origin` (no trailing slash needed): the callback at
    /// `/oauth/callback.html` and the metadata document at `/oauth/client-metadata.json`.
    pub fn for_origin(origin: &str) -> AppIdentity {
        let origin = origin.trim().trim_end_matches('/');
        AppIdentity {
            client_name: "Skiff".into(),
            client_uri: origin.to_string(),
            redirect_uri: format!("{origin}/oauth/callback.html"),
            client_metadata_url: Some(format!("{origin}/oauth/client-metadata.json")),
        }
    }

    /// Skiff deployed with its page at `page_base` (the directory URL of `index.html`, as
    /// `document.baseURI` gives it): the callback page and the Client ID Metadata Document are
    /// `extras/oauth-callback.html` (its own document, `src/oauth-callback/`) and the page's
    /// `client-metadata.json`. `metadata_written` says whether the build wrote
    /// that document (it does only when `SKIFF_PUBLIC_URL` was set, since a static build cannot
    /// know its own address otherwise); without it the client id comes from registration.
    pub fn for_page(page_base: &str, metadata_written: bool) -> AppIdentity {
        let dir = page_dir(page_base);
        AppIdentity {
            client_name: "Skiff".into(),
            client_uri: dir.trim_end_matches('/').to_string(),
            redirect_uri: format!("{dir}{CALLBACK_PATH}"),
            client_metadata_url: metadata_written.then(|| format!("{dir}{METADATA_PATH}")),
        }
    }

    fn usable_metadata_url(&self) -> Option<&str> {
        let url = self.client_metadata_url.as_deref()?;
        let parsed = HttpUrl::parse(url)?;
        (parsed.scheme == "https" && !parsed.trimmed_path().is_empty()).then_some(url)
    }

    /// OpenID Connect Registration's `application_type`, which the 2026-07-28 spec makes
    /// mandatory in registration: `native` for a page served from localhost, `web` otherwise.
    pub fn application_type(&self) -> &'static str {
        match HttpUrl::parse(&self.redirect_uri) {
            Some(u) if is_loopback(&u) => "native",
            _ => "web",
        }
    }
}

/// The directory URL of a page address (`https://a.example/app/` for
/// `https://a.example/app/index.html?x`): everything after the last slash that follows the
/// authority is dropped, and a bare origin gets its slash.
fn page_dir(url: &str) -> String {
    let base = url.trim().split(['?', '#']).next().unwrap_or("");
    let path_from = base.find("://").map_or(0, |i| i + 3);
    match base[path_from..].rfind('/') {
        Some(i) => base[..path_from + i + 1].to_string(),
        None => format!("{base}/"),
    }
}

/// Whether the Client ID Metadata Document the build wrote for `public_url` (the page's public
/// address, `SKIFF_PUBLIC_URL`) is served beside this copy of the page, at `page_base`: its URL
/// is the client id, so it only counts where the page runs at the address it was written for
/// (a copy of the build served elsewhere registers dynamically instead).
pub fn metadata_served(public_url: &str, page_base: &str) -> bool {
    !public_url.trim().is_empty() && page_dir(public_url) == page_dir(page_base)
}

/// The callback page, relative to the page's directory (its source is `src/oauth-callback/`;
/// the build copies it here). The address every registered client and Client ID Metadata
/// Document names as its redirect URI: moving it signs nobody out, but breaks registrations.
pub const CALLBACK_PATH: &str = "extras/oauth-callback.html";
/// The Client ID Metadata Document, relative to the page's directory (written by
/// `scripts/write-client-metadata.mjs` only when `SKIFF_PUBLIC_URL` is set). Beside
/// `index.html` rather than in `extras/` so that its URL, which is the client id, is the short
/// conventional `…/client-metadata.json` (the conformance suite's `auth/basic-cimd` expects
/// exactly that name); only authorization servers fetch it, never the page.
pub const METADATA_PATH: &str = "client-metadata.json";

/// How Skiff identifies itself to one authorization server.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ClientIdentity {
    /// Entered by the user, registered with that server beforehand, with the secret that
    /// registration gave when it is a confidential client (the user enters it; the store
    /// encrypts it with the tokens).
    PreRegistered {
        client_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        secret: Option<ClientSecret>,
    },
    /// The URL of Skiff's Client ID Metadata Document.
    MetadataDocument { client_id: String },
    /// Issued by the server's registration endpoint, with the secret it may have issued too
    /// (a server may give one even to a client that asked for `none`; it then expects it at
    /// the token endpoint, RFC 7591 §3.2.1).
    Registered {
        client_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        secret: Option<ClientSecret>,
    },
    /// Entered by the user with a private key: the client authenticates with a signed
    /// `private_key_jwt` assertion (RFC 7523 §2.2) instead of a secret. The key stays in the
    /// page's encrypted store; this says only what it signs with.
    Signed {
        client_id: String,
        alg: super::jwt::SigningAlg,
    },
}

/// A client secret and how the token endpoint wants it (RFC 6749 §2.3.1).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ClientSecret {
    pub secret: String,
    pub method: SecretMethod,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SecretMethod {
    /// `Authorization: Basic` (`client_secret_basic`, RFC 7591's default).
    ClientSecretBasic,
    /// `client_secret` in the form body (`client_secret_post`).
    ClientSecretPost,
}

impl ClientIdentity {
    pub fn client_id(&self) -> &str {
        match self {
            ClientIdentity::PreRegistered { client_id, .. }
            | ClientIdentity::MetadataDocument { client_id }
            | ClientIdentity::Registered { client_id, .. }
            | ClientIdentity::Signed { client_id, .. } => client_id,
        }
    }

    pub fn secret(&self) -> Option<&ClientSecret> {
        match self {
            ClientIdentity::Registered { secret, .. }
            | ClientIdentity::PreRegistered { secret, .. } => secret.as_ref(),
            ClientIdentity::MetadataDocument { .. } | ClientIdentity::Signed { .. } => None,
        }
    }
}

/// What to do to have a client identity.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientChoice {
    Use(ClientIdentity),
    /// POST this registration request and read the answer with `parse_registration`.
    Register(HttpRequest),
}

/// Choose, in the spec's order. `pre_registered` is what the user entered for this server
/// (blank counts as nothing).
pub fn choose(
    pre_registered: Option<&str>,
    app: &AppIdentity,
    server: &AuthorizationServer,
) -> Result<ClientChoice, OAuthError> {
    choose_with_secret(pre_registered, None, app, server)
}

/// `choose`, with the secret the user entered beside a pre-registered client id: sent the way
/// the server's metadata lists first (`client_secret_basic` or `client_secret_post`), Basic
/// when it lists neither (RFC 7591 §2's default).
pub fn choose_with_secret(
    pre_registered: Option<&str>,
    pre_secret: Option<&str>,
    app: &AppIdentity,
    server: &AuthorizationServer,
) -> Result<ClientChoice, OAuthError> {
    if let Some(id) = pre_registered.map(str::trim).filter(|s| !s.is_empty()) {
        let secret = pre_secret.filter(|s| !s.is_empty()).map(|s| ClientSecret {
            secret: s.to_string(),
            method: listed_method(&server.token_endpoint_auth_methods_supported)
                .unwrap_or(SecretMethod::ClientSecretBasic),
        });
        return Ok(ClientChoice::Use(ClientIdentity::PreRegistered {
            client_id: id.to_string(),
            secret,
        }));
    }
    if server.client_id_metadata_document_supported {
        if let Some(url) = app.usable_metadata_url() {
            return Ok(ClientChoice::Use(ClientIdentity::MetadataDocument {
                client_id: url.to_string(),
            }));
        }
    }
    if let Some(endpoint) = &server.registration_endpoint {
        return Ok(ClientChoice::Register(registration_request(app, endpoint)));
    }
    Err(OAuthError::NoClientIdentity {
        issuer: server.issuer.clone(),
    })
}

fn method_named(name: &str) -> Option<SecretMethod> {
    match name {
        "client_secret_basic" => Some(SecretMethod::ClientSecretBasic),
        "client_secret_post" => Some(SecretMethod::ClientSecretPost),
        _ => None,
    }
}

/// The first secret method a server's metadata lists that Skiff knows.
pub(super) fn listed_method(server_methods: &[String]) -> Option<SecretMethod> {
    server_methods.iter().find_map(|m| method_named(m))
}

/// The grant types Skiff uses; `refresh_token` is listed so servers issue refresh tokens
/// (2026-07-28 "Refresh Tokens": clients that want them SHOULD list it).
const GRANT_TYPES: [&str; 2] = ["authorization_code", "refresh_token"];

/// Skiff's Client ID Metadata Document, for the build to write at `client_metadata_url`.
/// `client_id` is the document's own URL (draft-ietf-oauth-client-id-metadata-document §3).
/// `None` when the app has no usable https metadata URL.
pub fn metadata_document(app: &AppIdentity) -> Option<String> {
    let url = app.usable_metadata_url()?;
    let doc = json!({
        "client_id": url,
        "client_name": app.client_name,
        "client_uri": app.client_uri,
        "redirect_uris": [app.redirect_uri],
        "grant_types": GRANT_TYPES,
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": app.application_type(),
    });
    serde_json::to_string_pretty(&doc).ok()
}

/// RFC 7591 §2 and §3.1 registration request for a browser public client.
pub fn registration_request(app: &AppIdentity, endpoint: &str) -> HttpRequest {
    let body = json!({
        "client_name": app.client_name,
        "client_uri": app.client_uri,
        "redirect_uris": [app.redirect_uri],
        "grant_types": GRANT_TYPES,
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
        "application_type": app.application_type(),
    });
    HttpRequest {
        method: Method::Post,
        url: endpoint.to_string(),
        headers: vec![
            ("Content-Type".into(), "application/json".into()),
            ("Accept".into(), "application/json".into()),
        ],
        body: Some(body.to_string()),
    }
}

/// RFC 7591 §3.2: a 201 (any 2xx accepted) with `client_id`, or §3.2.2: a 400 with `error`
/// (`invalid_redirect_uri`, `invalid_client_metadata`, ...) and `error_description`.
///
/// When a `client_secret` comes back, the method is the answer's `token_endpoint_auth_method`
/// when it names one Skiff knows, else the first of `client_secret_basic` /
/// `client_secret_post` the server's metadata lists (`server_methods`), else Basic (RFC 7591
/// §2's default).
pub fn parse_registration(
    status: u16,
    body: &str,
    server_methods: &[String],
) -> Result<ClientIdentity, OAuthError> {
    let v: Option<Value> = serde_json::from_str(body).ok();
    if (200..300).contains(&status) {
        let id = v
            .as_ref()
            .and_then(|v| v.get("client_id"))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty());
        let text = |k: &str| {
            v.as_ref()
                .and_then(|v| v.get(k))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let secret = text("client_secret").map(|secret| ClientSecret {
            secret: secret.to_string(),
            method: text("token_endpoint_auth_method")
                .and_then(method_named)
                .or_else(|| listed_method(server_methods))
                .unwrap_or(SecretMethod::ClientSecretBasic),
        });
        return match id {
            Some(id) => Ok(ClientIdentity::Registered {
                client_id: id.to_string(),
                secret,
            }),
            None => Err(OAuthError::RegistrationRefused {
                error: "no client_id in the answer".into(),
                description: None,
            }),
        };
    }
    let error = v
        .as_ref()
        .and_then(|v| v.get("error"))
        .and_then(Value::as_str)
        .map(String::from)
        .unwrap_or_else(|| format!("HTTP {status}"));
    let description = v
        .as_ref()
        .and_then(|v| v.get("error_description"))
        .and_then(Value::as_str)
        .map(String::from);
    Err(OAuthError::RegistrationRefused { error, description })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(cimd: bool, registration: bool) -> AuthorizationServer {
        AuthorizationServer {
            issuer: "https://auth.example.com".into(),
            authorization_endpoint: "https://auth.example.com/authorize".into(),
            token_endpoint: "https://auth.example.com/token".into(),
            registration_endpoint: registration.then(|| "https://auth.example.com/register".into()),
            revocation_endpoint: None,
            scopes_supported: None,
            token_endpoint_auth_methods_supported: Vec::new(),
            client_id_metadata_document_supported: cimd,
            authorization_response_iss_parameter_supported: false,
            grant_types_supported: None,
            token_endpoint_auth_signing_alg_values_supported: Vec::new(),
            dpop_signing_alg_values_supported: Vec::new(),
        }
    }

    fn app() -> AppIdentity {
        AppIdentity::for_origin("https://skiff.example/")
    }

    #[test]
    fn pre_registered_first_then_metadata_document_then_registration() {
        assert_eq!(
            choose(Some(" mine "), &app(), &server(true, true)).unwrap(),
            ClientChoice::Use(ClientIdentity::PreRegistered {
                client_id: "mine".into(),
                secret: None
            })
        );
        // A confidential pre-registered client: its secret goes as the server lists first.
        let mut confidential = server(false, false);
        confidential.token_endpoint_auth_methods_supported =
            vec!["none".into(), "client_secret_post".into()];
        let Ok(ClientChoice::Use(id)) =
            choose_with_secret(Some("mine"), Some("s3"), &app(), &confidential)
        else {
            panic!("expected the pre-registered id");
        };
        assert_eq!(
            id.secret(),
            Some(&ClientSecret {
                secret: "s3".into(),
                method: SecretMethod::ClientSecretPost
            })
        );
        confidential.token_endpoint_auth_methods_supported = Vec::new();
        let Ok(ClientChoice::Use(id)) =
            choose_with_secret(Some("mine"), Some("s3"), &app(), &confidential)
        else {
            panic!("expected the pre-registered id");
        };
        assert_eq!(
            id.secret().map(|s| s.method),
            Some(SecretMethod::ClientSecretBasic)
        );
        // A secret without an id is nothing to use.
        assert!(choose_with_secret(None, Some("s3"), &app(), &confidential).is_err());
        assert_eq!(
            choose(Some("  "), &app(), &server(true, true)).unwrap(),
            ClientChoice::Use(ClientIdentity::MetadataDocument {
                client_id: "https://skiff.example/oauth/client-metadata.json".into()
            })
        );
        let ClientChoice::Register(req) = choose(None, &app(), &server(false, true)).unwrap()
        else {
            panic!("expected registration");
        };
        assert_eq!(req.url, "https://auth.example.com/register");
        assert_eq!(
            choose(None, &app(), &server(false, false)),
            Err(OAuthError::NoClientIdentity {
                issuer: "https://auth.example.com".into()
            })
        );
    }

    #[test]
    fn the_document_counts_only_where_it_was_written_for() {
        let public = "https://skiff.example/app/";
        assert!(metadata_served(public, "https://skiff.example/app/"));
        assert!(metadata_served(
            public,
            "https://skiff.example/app/index.html?x#y"
        ));
        assert!(metadata_served(
            "https://skiff.example/app",
            "https://skiff.example/"
        ));
        assert!(!metadata_served(public, "https://skiff.example/"));
        assert!(!metadata_served(public, "http://127.0.0.1:8080/app/"));
        assert!(!metadata_served("", "https://skiff.example/app/"));
    }

    #[test]
    fn for_page_puts_the_callback_and_document_beside_the_module() {
        for base in [
            "https://skiff.example/app/",
            "https://skiff.example/app/index.html",
            "https://skiff.example/app/?x=1#y",
        ] {
            let a = AppIdentity::for_page(base, true);
            assert_eq!(
                a.redirect_uri, "https://skiff.example/app/extras/oauth-callback.html",
                "{base}"
            );
            assert_eq!(
                a.client_metadata_url.as_deref(),
                Some("https://skiff.example/app/client-metadata.json")
            );
            assert_eq!(a.client_uri, "https://skiff.example/app");
        }
        let root = AppIdentity::for_page("http://127.0.0.1:8080", false);
        assert_eq!(
            root.redirect_uri,
            "http://127.0.0.1:8080/extras/oauth-callback.html"
        );
        assert_eq!(root.client_metadata_url, None);
        assert_eq!(root.application_type(), "native");
        // Without a written document the server's CIMD support is not used.
        let mut s = server(true, true);
        s.registration_endpoint = None;
        assert!(choose(None, &root, &s).is_err());
    }

    #[test]
    fn a_local_page_cannot_use_a_metadata_document() {
        let local = AppIdentity::for_origin("http://localhost:8080");
        assert_eq!(metadata_document(&local), None);
        assert!(matches!(
            choose(None, &local, &server(true, true)).unwrap(),
            ClientChoice::Register(_)
        ));
        assert_eq!(local.application_type(), "native");
        assert_eq!(app().application_type(), "web");
    }

    #[test]
    fn metadata_document_names_itself() {
        let doc: Value = serde_json::from_str(&metadata_document(&app()).unwrap()).unwrap();
        assert_eq!(
            doc,
            json!({
                "client_id": "https://skiff.example/oauth/client-metadata.json",
                "client_name": "Skiff",
                "client_uri": "https://skiff.example",
                "redirect_uris": ["https://skiff.example/oauth/callback.html"],
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
                "token_endpoint_auth_method": "none",
                "application_type": "web"
            })
        );
    }

    #[test]
    fn registration_body_is_a_public_browser_client() {
        let req = registration_request(&app(), "https://as/register");
        assert_eq!(req.method, Method::Post);
        assert_eq!(req.header("content-type"), Some("application/json"));
        let body: Value = serde_json::from_str(req.body.as_deref().unwrap()).unwrap();
        assert_eq!(body["token_endpoint_auth_method"], "none");
        assert_eq!(
            body["redirect_uris"],
            json!(["https://skiff.example/oauth/callback.html"])
        );
        assert_eq!(
            body["grant_types"],
            json!(["authorization_code", "refresh_token"])
        );
        assert_eq!(body["response_types"], json!(["code"]));
        assert_eq!(body["application_type"], "web");
    }

    #[test]
    fn registration_answers() {
        assert_eq!(
            parse_registration(201, r#"{"client_id":"abc","client_id_issued_at":1}"#, &[]).unwrap(),
            ClientIdentity::Registered {
                client_id: "abc".into(),
                secret: None
            }
        );
        let with = |body: &str, methods: &[&str]| {
            let methods: Vec<String> = methods.iter().map(|m| m.to_string()).collect();
            parse_registration(201, body, &methods)
                .unwrap()
                .secret()
                .map(|s| s.method)
        };
        let body = r#"{"client_id":"a","client_secret":"s","token_endpoint_auth_method":"client_secret_post"}"#;
        assert_eq!(
            with(body, &["client_secret_basic"]),
            Some(SecretMethod::ClientSecretPost)
        );
        let body = r#"{"client_id":"a","client_secret":"s"}"#;
        assert_eq!(
            with(body, &["none", "client_secret_post"]),
            Some(SecretMethod::ClientSecretPost)
        );
        assert_eq!(with(body, &[]), Some(SecretMethod::ClientSecretBasic));
        assert_eq!(with(r#"{"client_id":"a","client_secret":""}"#, &[]), None);
        let e = parse_registration(
            400,
            r#"{"error":"invalid_redirect_uri","error_description":"https only"}"#,
            &[],
        )
        .unwrap_err();
        assert_eq!(
            e,
            OAuthError::RegistrationRefused {
                error: "invalid_redirect_uri".into(),
                description: Some("https only".into())
            }
        );
        assert!(e.to_string().contains("enter a client id"), "{e}");
        assert!(matches!(
            parse_registration(500, "<html>", &[]),
            Err(OAuthError::RegistrationRefused { error, .. }) if error == "HTTP 500"
        ));
        assert!(parse_registration(201, r#"{"client_id":""}"#, &[]).is_err());
        assert!(parse_registration(201, "\u{0}garbage", &[]).is_err());
    }
}
