//! What the user sees of a sign-in: the sentence under a server card's status line and the
//! Account dialog's HTML (written through `crate::html`, every value escaped), for the
//! on-demand module (`src/extras/page/oauth.js`) to paint.
//!
//! Decided here so it is tested natively: which status says what, how an expiry reads, which
//! buttons a state offers, and that a WebSocket server is told it cannot carry a token.
//! Nothing here reads a clock: `now_ms` is an argument.

use super::credentials::{Credentials, TokenGrant};
use super::grant::SignInMethod;
use super::machine_types::AuthStatus;
use super::url::HttpUrl;
use crate::html::Html;

/// The host of an issuer (`auth.example.com`), or the issuer as written when it does not parse.
fn host_of(issuer: &str) -> String {
    HttpUrl::parse(issuer).map_or_else(|| issuer.to_string(), |u| u.authority)
}

/// "expires in 52 min", "expires in 40 s", "expired".
pub fn expiry_phrase(expires_at_ms: f64, now_ms: f64) -> String {
    let left = ((expires_at_ms - now_ms) / 1000.0).floor();
    if left <= 0.0 {
        "expired".into()
    } else if left < 60.0 {
        format!("expires in {left} s")
    } else if left < 2.0 * 3600.0 {
        format!("expires in {} min", (left / 60.0).floor())
    } else {
        format!("expires in {} h", (left / 3600.0).floor())
    }
}

/// The sentence a server card shows under its status line.
pub fn status_sentence(status: &AuthStatus, now_ms: f64) -> String {
    match status {
        AuthStatus::SignedOut => "Signed out. Use Account to sign in.".into(),
        AuthStatus::Preparing => "Preparing the sign-in…".into(),
        AuthStatus::SignInRequired { issuer, .. } => {
            format!("Sign in required at {}", host_of(issuer))
        }
        AuthStatus::WaitingForUser { issuer } => {
            format!("Waiting for you to sign in at {}…", host_of(issuer))
        }
        AuthStatus::Exchanging => "Finishing the sign-in…".into(),
        AuthStatus::SignedIn {
            issuer,
            scopes,
            expires_at_ms,
        } => {
            let mut s = format!("Signed in at {}", host_of(issuer));
            if !scopes.is_empty() {
                s.push_str(" · scopes ");
                s.push_str(&scopes.join(" "));
            }
            if let Some(at) = expires_at_ms {
                s.push_str(" · ");
                s.push_str(&expiry_phrase(*at, now_ms));
            }
            s
        }
        AuthStatus::Failed(e) => e.to_string(),
    }
}

/// What the Account dialog shows for one server.
pub struct DialogView<'a> {
    pub server_name: &'a str,
    /// The server is reached over a WebSocket, which cannot carry an `Authorization` header.
    pub websocket: bool,
    pub status: Option<&'a AuthStatus>,
    pub credentials: Option<&'a Credentials>,
    /// The pre-registered client id the user entered, if any.
    pub client_id: Option<&'a str>,
    /// A client secret is stored with it (never shown back).
    pub secret_saved: bool,
    /// The server's CORS proxy prefix, if one is set.
    pub proxy: Option<&'a str>,
    pub now_ms: f64,
    /// How the user chose to sign in, and what the other ways need (secrets never shown back).
    pub grant: GrantFields<'a>,
}

/// The advanced section's "How Skiff signs in" and its fields.
#[derive(Debug, Clone, Copy, Default)]
pub struct GrantFields<'a> {
    pub method: SignInMethod,
    /// A private key is stored (never shown back).
    pub key_saved: bool,
    pub idp_token_endpoint: Option<&'a str>,
    pub idp_client_id: Option<&'a str>,
    /// An ID token is stored (never shown back).
    pub id_token_saved: bool,
    /// Why the last Save was refused (a key that is not PKCS#8, ...), shown by its button.
    pub notice: Option<&'a str>,
}

const METHODS: [(SignInMethod, &str); 3] = [
    (SignInMethod::Browser, "In a browser window (you)"),
    (
        SignInMethod::Application,
        "As an application (client credentials)",
    ),
    (
        SignInMethod::CrossApp,
        "Through your organisation's identity provider (cross-app access)",
    ),
];

fn text_input(h: &mut Html, id: &str, name: &str, kind: &str, value: &str, placeholder: &str) {
    h.open("input")
        .attr("id", id)
        .attr("name", name)
        .attr("type", kind)
        .attr("autocomplete", "off")
        .attr("spellcheck", "false")
        .attr("value", value)
        .attr("placeholder", placeholder)
        .void();
}

fn label(h: &mut Html, for_id: &str, text: &str) {
    h.open("label")
        .attr("for", for_id)
        .body()
        .text(text)
        .close("label");
}

fn saved_placeholder(saved: bool, otherwise: &str) -> String {
    if saved {
        "saved (leave empty to keep it)".into()
    } else {
        otherwise.into()
    }
}

/// The fields of the advanced section: the choice, then the client id and secret (every way
/// can use them), the private key (applications), the identity provider's details (cross-app
/// access). Fields a choice does not use are hidden by `oauth.css` from the checked radio.
fn grant_fields(h: &mut Html, v: &DialogView<'_>) {
    let g = &v.grant;
    h.open("fieldset").attr("class", "oauth-method").body();
    h.el("legend", "", "How Skiff signs in");
    for (m, text) in METHODS {
        let id = format!("oauth-method-{}", m.as_str());
        h.open("label")
            .attr("class", "oauth-choice")
            .attr("for", &id)
            .body();
        h.open("input")
            .attr("id", &id)
            .attr("type", "radio")
            .attr("name", "method")
            .attr("value", m.as_str())
            .flag("checked", g.method == m)
            .void();
        h.text(" ").text(text).close("label");
    }
    h.close("fieldset");
    label(
        h,
        "oauth-client-id",
        "Client id registered with the authorization server (optional for a browser window)",
    );
    text_input(
        h,
        "oauth-client-id",
        "client_id",
        "text",
        v.client_id.unwrap_or(""),
        "",
    );
    label(
        h,
        "oauth-client-secret",
        "Its client secret, if that registration gave one (kept encrypted)",
    );
    text_input(
        h,
        "oauth-client-secret",
        "client_secret",
        "password",
        "",
        &saved_placeholder(v.secret_saved, "none"),
    );
    h.open("div").attr("class", "oauth-for-application").body();
    label(
        h,
        "oauth-private-key",
        "Or its private key, to sign in with a signed assertion instead of a secret          (PKCS#8 PEM, EC P-256 for ES256 or RSA for RS256; kept encrypted)",
    );
    h.open("textarea")
        .attr("id", "oauth-private-key")
        .attr("name", "private_key")
        .attr("rows", "3")
        .attr("spellcheck", "false")
        .attr("autocomplete", "off")
        .attr(
            "placeholder",
            &saved_placeholder(g.key_saved, "-----BEGIN PRIVATE KEY-----"),
        )
        .body()
        .close("textarea");
    h.close("div");
    h.open("div").attr("class", "oauth-for-cross-app").body();
    label(
        h,
        "oauth-idp-token-endpoint",
        "Your identity provider's token endpoint",
    );
    text_input(
        h,
        "oauth-idp-token-endpoint",
        "idp_token_endpoint",
        "url",
        g.idp_token_endpoint.unwrap_or(""),
        "https://idp.example.com/oauth2/token",
    );
    label(
        h,
        "oauth-idp-client-id",
        "Skiff's client id at the identity provider",
    );
    text_input(
        h,
        "oauth-idp-client-id",
        "idp_client_id",
        "text",
        g.idp_client_id.unwrap_or(""),
        "",
    );
    label(h, "oauth-id-token", "Your ID token (kept encrypted)");
    h.open("textarea")
        .attr("id", "oauth-id-token")
        .attr("name", "id_token")
        .attr("rows", "3")
        .attr("spellcheck", "false")
        .attr("autocomplete", "off")
        .attr("placeholder", &saved_placeholder(g.id_token_saved, "eyJ…"))
        .body()
        .close("textarea");
    h.el(
        "p",
        "oauth-note",
        "The ID token is what your identity provider gives you when you sign in there (an          OpenID Connect id_token: your organisation's sign-in tool or its CLI shows it). Skiff          exchanges it at the identity provider for a grant to this server, and asks for a          fresh one when it expires.",
    );
    h.close("div");
}

/// The dialog's inner HTML (the module supplies the `role="dialog"` frame and focus). Buttons
/// carry `data-act`: `sign-in`, `sign-out`, `save-client`, `close`.
pub fn dialog_html(v: &DialogView<'_>) -> String {
    let mut h = Html::new();
    h.open("h2")
        .attr("id", "oauth-dialog-title")
        .body()
        .text("Account: ")
        .text(v.server_name)
        .close("h2");
    if v.websocket {
        h.el(
            "p",
            "oauth-note",
            "This server is reached over a WebSocket, and a browser cannot send an \
             Authorization header over a WebSocket, so Skiff cannot sign in to it. Use its \
             Streamable HTTP address if it has one.",
        );
        h.open("div").attr("class", "oauth-actions").body();
        h.action("oauth-close", "close", "Close");
        h.close("div");
        return h.finish();
    }
    let signed_in = v.credentials.is_some();
    let sentence = match v.status {
        Some(s) => status_sentence(s, v.now_ms),
        None => "Not signed in. This server has not asked for a sign-in yet.".into(),
    };
    h.open("p")
        .attr("class", "oauth-state")
        .attr("role", "status")
        .attr("data-state", v.status.map_or("none", AuthStatus::as_str))
        .body()
        .text(&sentence)
        .close("p");
    if let Some(c) = v.credentials {
        h.open("dl").attr("class", "oauth-facts").body();
        let how = match c.grant {
            TokenGrant::Code => "in a browser window",
            TokenGrant::ClientCredentials => "as an application (client credentials)",
            TokenGrant::CrossApp => "through your identity provider (cross-app access)",
        };
        h.el("dt", "", "Signed in").el("dd", "oauth-grant", how);
        h.el("dt", "", "Issuer").el("dd", "oauth-issuer", &c.issuer);
        h.el("dt", "", "Resource")
            .el("dd", "oauth-resource", &c.resource);
        h.el("dt", "", "Scopes").el(
            "dd",
            "oauth-scopes",
            &if c.scopes.is_empty() {
                "none asked".to_string()
            } else {
                c.scopes.join(" ")
            },
        );
        let expiry = match c.expires_at_ms {
            Some(at) => expiry_phrase(at, v.now_ms),
            None => "does not expire".into(),
        };
        let refresh = if c.refresh_token.is_some() || c.grant.runs_again() {
            " (renewed automatically)"
        } else {
            ""
        };
        h.el("dt", "", "Token")
            .el("dd", "oauth-expiry", &format!("{expiry}{refresh}"));
        h.close("dl");
    }
    h.open("div").attr("class", "oauth-actions").body();
    if signed_in {
        h.action("oauth-sign-out", "sign-out", "Sign out");
    }
    h.action(
        "oauth-sign-in",
        "sign-in",
        if signed_in {
            "Sign in again"
        } else {
            "Sign in"
        },
    );
    h.action("oauth-close", "close", "Close");
    h.close("div");
    h.open("details")
        .attr("class", "oauth-advanced")
        .flag(
            "open",
            v.grant.method != SignInMethod::Browser || v.grant.notice.is_some(),
        )
        .body();
    h.open("summary")
        .body()
        .text("How Skiff signs in, client id and proxy")
        .close("summary");
    grant_fields(&mut h, v);
    if let Some(n) = v.grant.notice {
        h.open("p")
            .attr("class", "oauth-notice")
            .attr("role", "alert")
            .body()
            .text(n)
            .close("p");
    }
    h.action("oauth-save-client", "save-client", "Save");
    let proxy = match v.proxy.filter(|p| !p.trim().is_empty()) {
        Some(p) => format!(
            "Discovery, registration, token and revocation requests go through this server's \
             CORS proxy ({p}); the sign-in page itself never does."
        ),
        None => "If the authorization server refuses requests from web pages (CORS), set a \
                 CORS proxy in this server's settings: discovery and token requests then go \
                 through it."
            .into(),
    };
    h.el("p", "oauth-note", &proxy);
    h.close("details");
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oauth::client::ClientIdentity;
    use crate::oauth::error::{Endpoint, OAuthError};

    const MIN: f64 = 60_000.0;

    #[test]
    fn sentences_for_each_state() {
        let at = |s: &AuthStatus| status_sentence(s, 0.0);
        assert_eq!(
            at(&AuthStatus::SignInRequired {
                issuer: "https://auth.example.com/t1".into(),
                scopes: vec![]
            }),
            "Sign in required at auth.example.com"
        );
        assert_eq!(
            at(&AuthStatus::SignedIn {
                issuer: "http://127.0.0.1:9000".into(),
                scopes: vec!["mcp:read".into(), "mcp:write".into()],
                expires_at_ms: Some(52.5 * MIN),
            }),
            "Signed in at 127.0.0.1:9000 · scopes mcp:read mcp:write · expires in 52 min"
        );
        assert_eq!(
            at(&AuthStatus::SignedIn {
                issuer: "https://a".into(),
                scopes: vec![],
                expires_at_ms: None,
            }),
            "Signed in at a"
        );
        let cors = at(&AuthStatus::Failed(OAuthError::BlockedByCors {
            url: "https://as/token".into(),
            endpoint: Endpoint::Token,
        }));
        assert!(
            cors.contains("token endpoint") && cors.contains("CORS proxy"),
            "{cors}"
        );
        assert!(at(&AuthStatus::SignedOut).starts_with("Signed out"));
    }

    #[test]
    fn expiry_reads_in_the_unit_that_fits() {
        assert_eq!(expiry_phrase(40_500.0, 0.0), "expires in 40 s");
        assert_eq!(expiry_phrase(90.0 * MIN, 0.0), "expires in 90 min");
        assert_eq!(expiry_phrase(5.0 * 60.0 * MIN, 0.0), "expires in 5 h");
        assert_eq!(expiry_phrase(1_000.0, 1_000.0), "expired");
        assert_eq!(expiry_phrase(0.0, 5_000.0), "expired");
    }

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
        let html = dialog_html(&DialogView {
            server_name: "Docs <x>",
            websocket: false,
            status: Some(&status),
            credentials: Some(&c),
            client_id: Some("my\"id"),
            secret_saved: true,
            proxy: None,
            now_ms: 0.0,
            grant: GrantFields::default(),
        });
        assert!(html.contains("Account: Docs &lt;x&gt;"), "{html}");
        assert!(html.contains(r#"data-act="sign-out""#));
        assert!(html.contains("Sign in again"));
        assert!(html.contains(r#"value="my&quot;id""#));
        assert!(html.contains("expires in 10 min (renewed automatically)"));
        assert!(html.contains("set a CORS proxy"));
        assert!(html.contains(r#"type="password""#) && html.contains("saved (leave empty"));
        assert!(!html.contains("SECRET"), "{html}");

        let html = dialog_html(&DialogView {
            server_name: "Docs",
            websocket: false,
            status: None,
            credentials: None,
            client_id: None,
            secret_saved: false,
            proxy: Some("http://127.0.0.1:1/"),
            now_ms: 0.0,
            grant: GrantFields::default(),
        });
        assert!(!html.contains(r#"data-act="sign-out""#));
        assert!(html.contains(r#"data-act="sign-in""#));
        assert!(
            html.contains("CORS proxy (http://127.0.0.1:1/); the sign-in page itself never does")
        );
    }

    #[test]
    fn the_sign_in_choice_shows_what_is_chosen_and_never_a_secret() {
        let mut c = creds();
        c.grant = TokenGrant::ClientCredentials;
        c.refresh_token = None;
        let notice = "The private key cannot be used: <x>";
        let html = dialog_html(&DialogView {
            server_name: "Docs",
            websocket: false,
            status: None,
            credentials: Some(&c),
            client_id: Some("app"),
            secret_saved: false,
            proxy: None,
            now_ms: 0.0,
            grant: GrantFields {
                method: SignInMethod::Application,
                key_saved: true,
                idp_token_endpoint: Some("https://idp/token"),
                idp_client_id: None,
                id_token_saved: false,
                notice: Some(notice),
            },
        });
        assert!(html.contains(r#"value="application" checked"#), "{html}");
        assert!(!html.contains(r#"value="browser" checked"#));
        assert!(html.contains("As an application (client credentials)"));
        assert!(html.contains("identity provider (cross-app access)"));
        assert!(
            html.contains(r#"<details class="oauth-advanced" open>"#),
            "{html}"
        );
        assert!(html.contains(r#"name="private_key""#) && html.contains("saved (leave empty"));
        assert!(html.contains(r#"value="https://idp/token""#));
        assert!(html.contains("The private key cannot be used: &lt;x&gt;"));
        assert!(html.contains("as an application (client credentials)"));
        assert!(html.contains("expires in 10 min (renewed automatically)"));
        assert!(!html.contains("SECRET"), "{html}");

        let html = dialog_html(&DialogView {
            server_name: "Docs",
            websocket: false,
            status: None,
            credentials: None,
            client_id: None,
            secret_saved: false,
            proxy: None,
            now_ms: 0.0,
            grant: GrantFields::default(),
        });
        assert!(html.contains(r#"value="browser" checked"#));
        assert!(html.contains(r#"<details class="oauth-advanced">"#));
    }

    #[test]
    fn a_websocket_server_is_told_why_not() {
        let html = dialog_html(&DialogView {
            server_name: "ws",
            websocket: true,
            status: None,
            credentials: None,
            client_id: None,
            secret_saved: false,
            proxy: None,
            now_ms: 0.0,
            grant: GrantFields::default(),
        });
        assert!(html.contains("cannot send an Authorization header over a WebSocket"));
        assert!(!html.contains(r#"data-act="sign-in""#));
    }
}
