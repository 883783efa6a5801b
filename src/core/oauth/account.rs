//! The Account dialog as data: what it shows for one server (`AccountView`, built from the
//! machine's status and credentials and what the dialog saved before), and what its Save
//! writes (`AccountForm::plan`). `ui::account_dialog` renders the view and hands the form back.
//!
//! Decided here so it is tested natively: which buttons a state offers, how the facts read,
//! which way of signing in is chosen and which fields it needs, that a WebSocket server is told
//! it cannot carry a token, that a key which cannot sign is refused where it was pasted, and
//! that no token or secret is ever part of the view. Nothing here reads a clock.

use super::credentials::Credentials;
use super::error::OAuthError;
use super::grant::SignInMethod;
use super::jwt::parse_private_key;
use super::machine_types::AuthStatus;
use super::status_text::{expiry_phrase, status_sentence};
use super::stored::{ServerField, ServerFields};

/// Said instead of a status while the server never asked for a sign-in.
pub const NOT_ASKED: &str = "Not signed in. This server has not asked for a sign-in yet.";

/// Said to a server reached over a WebSocket.
pub const WEBSOCKET_NOTE: &str = "This server is reached over a WebSocket, and a browser \
     cannot send an Authorization header over a WebSocket, so Skiff cannot sign in to it. Use \
     its Streamable HTTP address if it has one.";

/// Shown in a sealed field's placeholder once something is saved in it.
pub const SAVED_PLACEHOLDER: &str = "saved (leave empty to keep it)";

/// What the dialog is built from.
#[derive(Debug, Clone, Copy)]
pub struct AccountInput<'a> {
    pub server_name: &'a str,
    /// The server is reached over a WebSocket (`request_auth::carries_tokens` is false).
    pub websocket: bool,
    /// The machine's status, when a machine exists for the server.
    pub status: Option<&'a AuthStatus>,
    pub credentials: Option<&'a Credentials>,
    pub fields: &'a ServerFields,
    /// The server's CORS proxy prefix, if one is set.
    pub proxy: Option<&'a str>,
    pub now_ms: f64,
}

/// The whole dialog.
#[derive(Debug, Clone, PartialEq)]
pub struct AccountView {
    /// "Account: <server name>".
    pub title: String,
    pub body: AccountBody,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AccountBody {
    /// `WEBSOCKET_NOTE` and Close, nothing else.
    WebSocket,
    Http(Box<HttpAccount>),
}

/// The dialog of a server that can sign in.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpAccount {
    /// `AuthStatus::as_str` (or `"none"`), for the status line's look.
    pub state: &'static str,
    pub failed: bool,
    pub sentence: String,
    /// The account's facts while signed in (never a token).
    pub facts: Vec<Fact>,
    pub can_sign_out: bool,
    /// "Sign in" or "Sign in again".
    pub sign_in_label: &'static str,
    /// Whether the advanced section starts open (a way other than the browser is chosen).
    pub advanced_open: bool,
    pub form: FormView,
    /// What the server's CORS proxy does for the sign-in, or how to set one.
    pub proxy_note: String,
}

/// One line of the signed-in facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact {
    pub label: &'static str,
    /// Its class (`oauth-issuer`...), for the look and for tests.
    pub class: &'static str,
    pub value: String,
}

/// The advanced section as saved: the clear fields' values and the sealed fields' placeholders
/// (a sealed value is never shown back).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormView {
    pub method: SignInMethod,
    pub client_id: String,
    pub idp_token_endpoint: String,
    pub idp_client_id: String,
    pub secret_placeholder: &'static str,
    pub key_placeholder: &'static str,
    pub id_token_placeholder: &'static str,
}

fn placeholder(saved: bool, otherwise: &'static str) -> &'static str {
    if saved {
        SAVED_PLACEHOLDER
    } else {
        otherwise
    }
}

fn facts(c: &Credentials, now_ms: f64) -> Vec<Fact> {
    let expiry = match c.expires_at_ms {
        Some(at) => expiry_phrase(at, now_ms),
        None => "does not expire".into(),
    };
    let renewed = if c.refresh_token.is_some() || c.grant.runs_again() {
        " (renewed automatically)"
    } else {
        ""
    };
    let fact = |label, class, value: String| Fact {
        label,
        class,
        value,
    };
    vec![
        fact("Signed in", "oauth-grant", c.grant.label().to_string()),
        fact("Issuer", "oauth-issuer", c.issuer.clone()),
        fact("Resource", "oauth-resource", c.resource.clone()),
        fact(
            "Scopes",
            "oauth-scopes",
            if c.scopes.is_empty() {
                "none asked".into()
            } else {
                c.scopes.join(" ")
            },
        ),
        fact("Token", "oauth-expiry", format!("{expiry}{renewed}")),
        fact(
            "Token binding",
            "oauth-binding",
            c.token_type.binding().to_string(),
        ),
    ]
}

fn proxy_note(proxy: Option<&str>) -> String {
    match proxy.map(str::trim).filter(|p| !p.is_empty()) {
        Some(p) => format!(
            "Discovery, registration, token and revocation requests go through this server's \
             CORS proxy ({p}); the sign-in page itself never does."
        ),
        None => "If the authorization server refuses requests from web pages (CORS), set a CORS \
                 proxy in this server's settings: discovery and token requests then go through \
                 it."
        .into(),
    }
}

impl AccountView {
    pub fn build(input: AccountInput<'_>) -> AccountView {
        let title = format!("Account: {}", input.server_name);
        if input.websocket {
            return AccountView {
                title,
                body: AccountBody::WebSocket,
            };
        }
        let signed_in = input.credentials.is_some();
        let f = input.fields;
        let account = HttpAccount {
            state: input.status.map_or("none", AuthStatus::as_str),
            failed: matches!(input.status, Some(AuthStatus::Failed(_))),
            sentence: input.status.map_or_else(
                || NOT_ASKED.to_string(),
                |s| status_sentence(s, input.now_ms),
            ),
            facts: input
                .credentials
                .map(|c| facts(c, input.now_ms))
                .unwrap_or_default(),
            can_sign_out: signed_in,
            sign_in_label: if signed_in {
                "Sign in again"
            } else {
                "Sign in"
            },
            advanced_open: f.method != SignInMethod::Browser,
            form: FormView {
                method: f.method,
                client_id: f.client_id.clone().unwrap_or_default(),
                idp_token_endpoint: f.idp_token_endpoint.clone().unwrap_or_default(),
                idp_client_id: f.idp_client_id.clone().unwrap_or_default(),
                secret_placeholder: placeholder(f.secret_saved, "none"),
                key_placeholder: placeholder(f.key_saved, "-----BEGIN PRIVATE KEY-----"),
                id_token_placeholder: placeholder(f.id_token_saved, "eyJ…"),
            },
            proxy_note: proxy_note(input.proxy),
        };
        AccountView {
            title,
            body: AccountBody::Http(Box::new(account)),
        }
    }
}

/// What the advanced section holds when the user presses Save (typed text as it is).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccountForm {
    pub method: SignInMethod,
    pub client_id: String,
    /// Empty: keep the saved secret.
    pub client_secret: String,
    /// Empty: keep the saved key.
    pub private_key: String,
    pub idp_token_endpoint: String,
    pub idp_client_id: String,
    /// Empty: keep the saved ID token.
    pub id_token: String,
}

/// One write of a Save, in order. A sealed field's value is sealed like the tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldWrite {
    Set(ServerField, String),
    Remove(ServerField),
}

/// What happens to the server's machine after a Save.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterSave {
    /// A machine takes its client id and way of signing in when made: one not signed in is
    /// made again with the new ones (a signed-in one keeps its grant until Sign in again).
    RebuildUnlessSignedIn,
}

impl AccountForm {
    /// The writes a Save makes, or why it makes none: a key that cannot sign is refused where
    /// it was pasted (with `jwt::parse_private_key`'s sentence), and nothing is stored then.
    ///
    /// Without a client id, the client's secret and key go with it; the identity provider's
    /// fields follow what is typed; an ID token is replaced only by a new one.
    pub fn plan(&self) -> Result<(Vec<FieldWrite>, AfterSave), OAuthError> {
        let typed = |s: &str| s.trim().to_string();
        let key = typed(&self.private_key);
        if !key.is_empty() {
            parse_private_key(&key)?;
        }
        let mut out = vec![FieldWrite::Set(
            ServerField::Method,
            self.method.as_str().to_string(),
        )];
        let client_id = typed(&self.client_id);
        if client_id.is_empty() {
            out.extend(
                [ServerField::ClientId, ServerField::Secret, ServerField::Key]
                    .map(FieldWrite::Remove),
            );
        } else {
            out.push(FieldWrite::Set(ServerField::ClientId, client_id));
            // A secret is kept exactly as typed: spaces may be part of it.
            if !self.client_secret.is_empty() {
                out.push(FieldWrite::Set(
                    ServerField::Secret,
                    self.client_secret.clone(),
                ));
            }
            if !key.is_empty() {
                out.push(FieldWrite::Set(ServerField::Key, key));
            }
        }
        for (field, value) in [
            (ServerField::IdpTokenEndpoint, &self.idp_token_endpoint),
            (ServerField::IdpClientId, &self.idp_client_id),
        ] {
            let value = typed(value);
            out.push(if value.is_empty() {
                FieldWrite::Remove(field)
            } else {
                FieldWrite::Set(field, value)
            });
        }
        let id_token = typed(&self.id_token);
        if !id_token.is_empty() {
            out.push(FieldWrite::Set(ServerField::IdToken, id_token));
        }
        Ok((out, AfterSave::RebuildUnlessSignedIn))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oauth::client::ClientIdentity;
    use crate::oauth::credentials::TokenGrant;

    const MIN: f64 = 60_000.0;

    fn creds() -> Credentials {
        Credentials {
            issuer: "https://auth.example.com".into(),
            resource: "https://mcp.example.com/mcp".into(),
            client: ClientIdentity::PreRegistered {
                client_id: "c".into(),
                secret: None,
            },
            token_endpoint: "https://auth.example.com/token".into(),
            revocation_endpoint: None,
            access_token: "SECRET-AT".into(),
            refresh_token: Some("SECRET-RT".into()),
            issued_at_ms: 0.0,
            expires_at_ms: Some(10.0 * MIN),
            scopes: vec!["read".into()],
            grant: Default::default(),
            token_type: Default::default(),
        }
    }

    fn input<'a>(fields: &'a ServerFields) -> AccountInput<'a> {
        AccountInput {
            server_name: "Docs",
            websocket: false,
            status: None,
            credentials: None,
            fields,
            proxy: None,
            now_ms: 0.0,
        }
    }

    fn http(v: AccountView) -> HttpAccount {
        match v.body {
            AccountBody::Http(a) => *a,
            AccountBody::WebSocket => panic!("not an http account"),
        }
    }

    #[test]
    fn the_dialog_offers_what_the_state_allows_and_never_shows_a_token() {
        let c = creds();
        let status = AuthStatus::SignedIn {
            issuer: c.issuer.clone(),
            scopes: c.scopes.clone(),
            expires_at_ms: c.expires_at_ms,
        };
        let fields = ServerFields {
            client_id: Some("my\"id".into()),
            secret_saved: true,
            ..ServerFields::default()
        };
        let view = AccountView::build(AccountInput {
            server_name: "Docs <x>",
            status: Some(&status),
            credentials: Some(&c),
            ..input(&fields)
        });
        assert_eq!(
            view.title, "Account: Docs <x>",
            "plain text: the UI escapes"
        );
        let a = http(view.clone());
        assert_eq!(a.state, "signed-in");
        assert!(!a.failed);
        assert!(a.sentence.starts_with("Signed in at auth.example.com"));
        assert!(a.can_sign_out);
        assert_eq!(a.sign_in_label, "Sign in again");
        assert_eq!(a.form.client_id, "my\"id");
        assert_eq!(a.form.secret_placeholder, SAVED_PLACEHOLDER);
        assert_eq!(a.form.key_placeholder, "-----BEGIN PRIVATE KEY-----");
        let fact = |class: &str| {
            a.facts
                .iter()
                .find(|f| f.class == class)
                .map(|f| f.value.clone())
        };
        assert_eq!(fact("oauth-grant").as_deref(), Some("in a browser window"));
        assert_eq!(
            fact("oauth-issuer").as_deref(),
            Some("https://auth.example.com")
        );
        assert_eq!(
            fact("oauth-expiry").as_deref(),
            Some("expires in 10 min (renewed automatically)")
        );
        assert!(fact("oauth-binding")
            .unwrap()
            .starts_with("Bearer: not bound"));
        assert!(a.proxy_note.contains("set a CORS proxy"));
        assert!(!format!("{view:?}").contains("SECRET"), "{view:?}");

        // A DPoP-bound token says so.
        let bound = Credentials {
            token_type: crate::oauth::token::TokenType::DPoP,
            ..creds()
        };
        let a = http(AccountView::build(AccountInput {
            status: Some(&status),
            credentials: Some(&bound),
            ..input(&fields)
        }));
        let binding = a.facts.iter().find(|f| f.class == "oauth-binding").unwrap();
        assert_eq!(binding.label, "Token binding");
        assert!(binding.value.starts_with("DPoP-bound"), "{}", binding.value);
        assert!(binding.value.contains("cannot be exported"));

        let fields = ServerFields::default();
        let a = http(AccountView::build(AccountInput {
            proxy: Some("http://127.0.0.1:1/"),
            ..input(&fields)
        }));
        assert!(!a.can_sign_out);
        assert_eq!(a.sign_in_label, "Sign in");
        assert_eq!(a.state, "none");
        assert_eq!(a.sentence, NOT_ASKED);
        assert!(a.facts.is_empty());
        assert!(!a.advanced_open);
        assert!(a
            .proxy_note
            .contains("CORS proxy (http://127.0.0.1:1/); the sign-in page itself never does"));
    }

    #[test]
    fn a_failure_reads_as_one_and_says_why() {
        let fields = ServerFields::default();
        let status = AuthStatus::Failed(OAuthError::SignInRequired);
        let a = http(AccountView::build(AccountInput {
            status: Some(&status),
            ..input(&fields)
        }));
        assert!(a.failed);
        assert_eq!(a.state, "failed");
        assert_eq!(a.sentence, OAuthError::SignInRequired.to_string());
    }

    #[test]
    fn the_sign_in_choice_shows_what_is_chosen_and_never_a_secret() {
        let mut c = creds();
        c.grant = TokenGrant::ClientCredentials;
        c.refresh_token = None;
        let fields = ServerFields {
            method: SignInMethod::Application,
            client_id: Some("app".into()),
            key_saved: true,
            idp_token_endpoint: Some("https://idp/token".into()),
            ..ServerFields::default()
        };
        let a = http(AccountView::build(AccountInput {
            credentials: Some(&c),
            ..input(&fields)
        }));
        assert_eq!(a.form.method, SignInMethod::Application);
        assert!(a.advanced_open);
        assert_eq!(a.form.key_placeholder, SAVED_PLACEHOLDER);
        assert_eq!(a.form.idp_token_endpoint, "https://idp/token");
        assert_eq!(a.form.id_token_placeholder, "eyJ…");
        assert_eq!(
            a.facts[0].value, "as an application (client credentials)",
            "{:?}",
            a.facts
        );
        assert_eq!(
            a.facts[4].value,
            "expires in 10 min (renewed automatically)"
        );
        assert!(!format!("{a:?}").contains("SECRET"));
        assert_eq!(
            SignInMethod::ALL.map(SignInMethod::label),
            [
                "In a browser window (you)",
                "As an application (client credentials)",
                "Through your organisation's identity provider (cross-app access)",
                "As a workload (a JWT from its identity provider)",
            ]
        );
        assert!(SignInMethod::Application.uses_key() && !SignInMethod::Application.uses_idp());
        assert!(SignInMethod::CrossApp.uses_idp() && !SignInMethod::CrossApp.uses_key());
        assert!(!SignInMethod::Browser.uses_key() && !SignInMethod::Browser.uses_idp());
    }

    #[test]
    fn a_websocket_server_is_told_why_not() {
        let fields = ServerFields::default();
        let view = AccountView::build(AccountInput {
            websocket: true,
            server_name: "ws",
            ..input(&fields)
        });
        assert_eq!(view.title, "Account: ws");
        assert_eq!(view.body, AccountBody::WebSocket);
        assert!(WEBSOCKET_NOTE.contains("cannot send an Authorization header over a WebSocket"));
    }

    /// A throwaway EC P-256 key (generated for this test, never used anywhere).
    const KEY: &str = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgJJD5Sm5IMzPOoQIx\nHd6dDRIVxg18xaIzccSMnSRr96mhRANCAARB7vTlUQV25je/T6/BIDAbmhSeKRY0\ngE6/FwxMIAhfxZ5OTD1BDKmBCVaJhdzZiSgjBEkkvbH3VS1uh2I9mfHJ\n-----END PRIVATE KEY-----";

    #[test]
    fn save_writes_what_was_typed_and_keeps_what_was_left_empty() {
        let form = AccountForm {
            method: SignInMethod::Application,
            client_id: " app-1 ".into(),
            client_secret: " s p ".into(),
            private_key: format!("\n{KEY}\n"),
            idp_token_endpoint: "".into(),
            idp_client_id: "idp-c".into(),
            id_token: "".into(),
        };
        let (writes, after) = form.plan().unwrap();
        assert_eq!(after, AfterSave::RebuildUnlessSignedIn);
        assert_eq!(
            writes,
            [
                FieldWrite::Set(ServerField::Method, "application".into()),
                FieldWrite::Set(ServerField::ClientId, "app-1".into()),
                FieldWrite::Set(ServerField::Secret, " s p ".into()),
                FieldWrite::Set(ServerField::Key, KEY.into()),
                FieldWrite::Remove(ServerField::IdpTokenEndpoint),
                FieldWrite::Set(ServerField::IdpClientId, "idp-c".into()),
            ]
        );

        // No client id: its secret and key go with it; an ID token typed is kept.
        let form = AccountForm {
            id_token: "eyJ.x.y".into(),
            ..AccountForm::default()
        };
        let (writes, _) = form.plan().unwrap();
        assert_eq!(
            writes,
            [
                FieldWrite::Set(ServerField::Method, "browser".into()),
                FieldWrite::Remove(ServerField::ClientId),
                FieldWrite::Remove(ServerField::Secret),
                FieldWrite::Remove(ServerField::Key),
                FieldWrite::Remove(ServerField::IdpTokenEndpoint),
                FieldWrite::Remove(ServerField::IdpClientId),
                FieldWrite::Set(ServerField::IdToken, "eyJ.x.y".into()),
            ]
        );
    }

    #[test]
    fn a_key_that_cannot_sign_is_refused_and_nothing_is_written() {
        let form = AccountForm {
            method: SignInMethod::Application,
            client_id: "my-app".into(),
            private_key: "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----"
                .into(),
            ..AccountForm::default()
        };
        let e = form.plan().unwrap_err().to_string();
        assert!(
            e.contains("paste the private key as a PKCS#8 PEM (BEGIN PRIVATE KEY)"),
            "{e}"
        );
        assert!(e.contains("openssl pkcs8 -topk8"), "{e}");
    }
}
