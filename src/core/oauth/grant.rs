//! How Skiff signs in to one server, and which OAuth grant that means once the authorization
//! server's metadata is known: the authorization code flow in a browser window (the user), the
//! client credentials grant (an application, SEP-1046: a secret or a `private_key_jwt`
//! assertion), or cross-app access (SEP-990: an ID token exchanged at the organisation's
//! identity provider for an identity assertion grant, then a jwt-bearer grant), or as a
//! workload (SEP-1933, workload identity federation: the JWT the workload's own identity
//! provider issued is the jwt-bearer grant itself, RFC 7523 §2.1).
//!
//! Decided here, natively tested, so the Account dialog's choice and the server's metadata
//! combine one way everywhere: the user's choice wins; the default (a browser window) gives way
//! to client credentials only when the server offers no authorization code grant and the
//! application's credentials are entered; every dead end is a sentence.

use serde::{Deserialize, Serialize};

use super::client::{listed_method, ClientIdentity, ClientSecret, SecretMethod};
use super::error::OAuthError;
use super::jwt::SigningAlg;
use super::metadata::AuthorizationServer;

pub const CLIENT_CREDENTIALS: &str = "client_credentials";
pub const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
pub const AUTHORIZATION_CODE: &str = "authorization_code";

/// The Account dialog's "How Skiff signs in".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignInMethod {
    /// In a browser window, as the user (the authorization code flow).
    #[default]
    Browser,
    /// As an application (client credentials).
    Application,
    /// Through the organisation's identity provider (cross-app access).
    CrossApp,
    /// As a workload, with the JWT its identity provider issued (workload identity federation).
    Workload,
}

impl SignInMethod {
    /// The stored and submitted name; anything unknown reads as the default.
    pub fn as_str(self) -> &'static str {
        match self {
            SignInMethod::Browser => "browser",
            SignInMethod::Application => "application",
            SignInMethod::CrossApp => "cross_app",
            SignInMethod::Workload => "workload",
        }
    }

    /// Every way, in the order the Account dialog offers them.
    pub const ALL: [SignInMethod; 4] = [
        SignInMethod::Browser,
        SignInMethod::Application,
        SignInMethod::CrossApp,
        SignInMethod::Workload,
    ];

    /// What the Account dialog calls it.
    pub fn label(self) -> &'static str {
        match self {
            SignInMethod::Browser => "In a browser window (you)",
            SignInMethod::Application => "As an application (client credentials)",
            SignInMethod::CrossApp => {
                "Through your organisation's identity provider (cross-app access)"
            }
            SignInMethod::Workload => "As a workload (a JWT from its identity provider)",
        }
    }

    /// Whether this way signs with a private key (so the dialog shows that field).
    pub fn uses_key(self) -> bool {
        self == SignInMethod::Application
    }

    /// Whether this way goes through an identity provider (its endpoint, client id, ID token).
    pub fn uses_idp(self) -> bool {
        self == SignInMethod::CrossApp
    }

    /// Whether this way needs an identity token (the ID token field): exchanged at the
    /// identity provider (cross-app access) or presented as the grant itself (a workload).
    pub fn uses_identity_token(self) -> bool {
        matches!(self, SignInMethod::CrossApp | SignInMethod::Workload)
    }

    /// The identity token field's label, for a way that uses one.
    pub fn identity_token_label(self) -> &'static str {
        match self {
            SignInMethod::Workload => "The workload's JWT (kept encrypted)",
            _ => "Your ID token (kept encrypted)",
        }
    }

    /// What the identity token is and what Skiff does with it.
    pub fn identity_token_note(self) -> &'static str {
        match self {
            SignInMethod::Workload => {
                "The JWT your workload's identity provider issued it (a Kubernetes service \
                 account token, a CI job's OpenID Connect token). Skiff presents it to this \
                 server's authorization server as the grant (RFC 7523), with the client id \
                 above, and presents it again when the access token expires; paste a fresh one \
                 when it is refused."
            }
            _ => {
                "The ID token is what your identity provider gives you when you sign in there \
                 (an OpenID Connect id_token: your organisation's sign-in tool or its CLI shows \
                 it). Skiff exchanges it at the identity provider for a grant to this server, \
                 and asks for a fresh one when it expires."
            }
        }
    }

    pub fn parse(s: &str) -> SignInMethod {
        match s.trim() {
            "application" => SignInMethod::Application,
            "cross_app" => SignInMethod::CrossApp,
            "workload" => SignInMethod::Workload,
            _ => SignInMethod::Browser,
        }
    }
}

/// What the user entered beyond the client id and secret (`AuthSetup` keeps those).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GrantSetup {
    pub method: SignInMethod,
    /// What the stored private key signs with, when one is stored (the key itself never enters
    /// core: the page signs with WebCrypto).
    pub key_alg: Option<SigningAlg>,
    /// Cross-app access: the identity provider's token endpoint...
    pub idp_token_endpoint: Option<String>,
    /// ...the client id Skiff has there...
    pub idp_client_id: Option<String>,
    /// ...and the ID token it issued to the user (a secret, stored encrypted). As a workload,
    /// the JWT the workload's identity provider issued, presented as the grant.
    pub id_token: Option<String>,
}

/// The identity provider's side of cross-app access.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdpExchange {
    pub token_endpoint: String,
    pub client_id: String,
    pub id_token: String,
}

/// Which grant to run against one authorization server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrantChoice {
    /// The authorization code flow; the client identity is chosen by `client::choose_*`.
    Code,
    /// The client credentials grant as `client` (a secret or a signing key).
    ClientCredentials { client: ClientIdentity },
    /// Token exchange at the identity provider, then jwt-bearer as `client`.
    CrossApp {
        client: ClientIdentity,
        idp: IdpExchange,
    },
    /// The jwt-bearer grant with the workload's own JWT as `client` (a public client: its id
    /// only, or its secret when one is entered).
    Workload {
        client: ClientIdentity,
        assertion: String,
    },
}

fn entered(v: Option<&str>) -> Option<&str> {
    v.map(str::trim).filter(|s| !s.is_empty())
}

/// Who the application is at `server`: its private key when one is stored and the server
/// accepts `private_key_jwt` (or lists no methods), else its secret, sent the way the server
/// lists first (`client_secret_basic` when it lists neither way).
fn application_client(
    client_id: &str,
    secret: Option<&str>,
    key_alg: Option<SigningAlg>,
    server: &AuthorizationServer,
) -> Result<ClientIdentity, OAuthError> {
    let methods = &server.token_endpoint_auth_methods_supported;
    let takes_key = methods.is_empty() || methods.iter().any(|m| m == "private_key_jwt");
    if let Some(alg) = key_alg.filter(|_| takes_key || secret.is_none()) {
        let algs = &server.token_endpoint_auth_signing_alg_values_supported;
        if !algs.is_empty() && !algs.iter().any(|a| a == alg.as_str()) {
            return Err(OAuthError::KeyNotAccepted {
                issuer: server.issuer.clone(),
                alg: alg.as_str(),
                accepted: algs.clone(),
            });
        }
        return Ok(ClientIdentity::Signed {
            client_id: client_id.to_string(),
            alg,
        });
    }
    let secret = secret.ok_or_else(|| OAuthError::AppCredentialsNeeded {
        issuer: server.issuer.clone(),
    })?;
    Ok(secret_client(client_id, secret, server))
}

fn secret_client(client_id: &str, secret: &str, server: &AuthorizationServer) -> ClientIdentity {
    ClientIdentity::PreRegistered {
        client_id: client_id.to_string(),
        secret: Some(ClientSecret {
            secret: secret.to_string(),
            method: listed_method(&server.token_endpoint_auth_methods_supported)
                .unwrap_or(SecretMethod::ClientSecretBasic),
        }),
    }
}

fn unsupported(server: &AuthorizationServer, grant: &'static str) -> OAuthError {
    OAuthError::UnsupportedGrant {
        issuer: server.issuer.clone(),
        grant,
        offered: server.grant_types_supported.clone().unwrap_or_default(),
    }
}

/// Pick the grant for `server` from what the user chose and entered.
pub fn choose(
    client_id: Option<&str>,
    client_secret: Option<&str>,
    grant: &GrantSetup,
    server: &AuthorizationServer,
) -> Result<GrantChoice, OAuthError> {
    let id = entered(client_id);
    let secret = entered(client_secret);
    let app_ready = id.is_some() && (secret.is_some() || grant.key_alg.is_some());
    let application = || -> Result<GrantChoice, OAuthError> {
        let Some(id) = id.filter(|_| app_ready) else {
            return Err(OAuthError::AppCredentialsNeeded {
                issuer: server.issuer.clone(),
            });
        };
        // An explicit choice is tried against a server that does not list its grants; one
        // that lists them without client credentials would only refuse.
        if server
            .grant_types_supported
            .as_ref()
            .is_some_and(|l| !l.iter().any(|g| g == CLIENT_CREDENTIALS))
        {
            return Err(unsupported(server, "the client credentials grant"));
        }
        Ok(GrantChoice::ClientCredentials {
            client: application_client(id, secret, grant.key_alg, server)?,
        })
    };
    let cross_app = || -> Result<GrantChoice, OAuthError> {
        let endpoint = entered(grant.idp_token_endpoint.as_deref());
        let idp_client = entered(grant.idp_client_id.as_deref());
        let token = entered(grant.id_token.as_deref());
        let mut missing = Vec::new();
        if endpoint.is_none() {
            missing.push("the identity provider's token endpoint");
        }
        if idp_client.is_none() {
            missing.push("Skiff's client id at the identity provider");
        }
        if token.is_none() {
            missing.push("your ID token");
        }
        if id.is_none() || secret.is_none() {
            missing.push("the client id and secret at this server's authorization server");
        }
        let (Some(endpoint), Some(idp_client), Some(token), Some(id), Some(secret)) =
            (endpoint, idp_client, token, id, secret)
        else {
            return Err(OAuthError::CrossAppDetailsNeeded { missing });
        };
        if server
            .grant_types_supported
            .as_ref()
            .is_some_and(|l| !l.iter().any(|g| g == JWT_BEARER))
        {
            return Err(unsupported(
                server,
                "the jwt-bearer grant cross-app access needs",
            ));
        }
        Ok(GrantChoice::CrossApp {
            client: secret_client(id, secret, server),
            idp: IdpExchange {
                token_endpoint: endpoint.to_string(),
                client_id: idp_client.to_string(),
                id_token: token.to_string(),
            },
        })
    };
    let workload = || -> Result<GrantChoice, OAuthError> {
        let token = entered(grant.id_token.as_deref());
        let mut missing = Vec::new();
        if id.is_none() {
            missing.push("the workload's client id at this server's authorization server");
        }
        if token.is_none() {
            missing.push("the workload's JWT");
        }
        let (Some(id), Some(token)) = (id, token) else {
            return Err(OAuthError::WorkloadDetailsNeeded { missing });
        };
        if server
            .grant_types_supported
            .as_ref()
            .is_some_and(|l| !l.iter().any(|g| g == JWT_BEARER))
        {
            return Err(unsupported(
                server,
                "the jwt-bearer grant a workload signs in with",
            ));
        }
        let client = match secret {
            Some(s) => secret_client(id, s, server),
            None => ClientIdentity::PreRegistered {
                client_id: id.to_string(),
                secret: None,
            },
        };
        Ok(GrantChoice::Workload {
            client,
            assertion: token.to_string(),
        })
    };
    match grant.method {
        SignInMethod::Application => application(),
        SignInMethod::CrossApp => cross_app(),
        SignInMethod::Workload => workload(),
        SignInMethod::Browser if server.offers_grant(AUTHORIZATION_CODE) => Ok(GrantChoice::Code),
        // No browser sign-in at this server: the way it does offer, with what is entered.
        SignInMethod::Browser if server.offers_grant(CLIENT_CREDENTIALS) => application(),
        SignInMethod::Browser if server.offers_grant(JWT_BEARER) => cross_app(),
        SignInMethod::Browser => Err(unsupported(server, "a sign-in in a browser window")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(grants: Option<&[&str]>, methods: &[&str], algs: &[&str]) -> AuthorizationServer {
        AuthorizationServer {
            issuer: "https://as.example".into(),
            authorization_endpoint: String::new(),
            token_endpoint: "https://as.example/token".into(),
            registration_endpoint: Some("https://as.example/register".into()),
            revocation_endpoint: None,
            scopes_supported: None,
            token_endpoint_auth_methods_supported: methods.iter().map(|s| s.to_string()).collect(),
            client_id_metadata_document_supported: false,
            authorization_response_iss_parameter_supported: false,
            grant_types_supported: grants.map(|g| g.iter().map(|s| s.to_string()).collect()),
            token_endpoint_auth_signing_alg_values_supported: algs
                .iter()
                .map(|s| s.to_string())
                .collect(),
            dpop_signing_alg_values_supported: Vec::new(),
        }
    }

    fn basic(id: &str, secret: &str) -> ClientIdentity {
        ClientIdentity::PreRegistered {
            client_id: id.into(),
            secret: Some(ClientSecret {
                secret: secret.into(),
                method: SecretMethod::ClientSecretBasic,
            }),
        }
    }

    #[test]
    fn a_workload_presents_its_jwt_as_a_public_client() {
        let wif = GrantSetup {
            method: SignInMethod::Workload,
            id_token: Some(" eyJ.workload.jwt ".into()),
            ..GrantSetup::default()
        };
        let as_ = server(Some(&[JWT_BEARER]), &["none"], &[]);
        assert_eq!(
            choose(Some("wl"), None, &wif, &as_),
            Ok(GrantChoice::Workload {
                client: ClientIdentity::PreRegistered {
                    client_id: "wl".into(),
                    secret: None
                },
                assertion: "eyJ.workload.jwt".into(),
            })
        );
        // What is missing is said, and a server that lists its grants without jwt-bearer
        // would only refuse.
        assert_eq!(
            choose(
                None,
                None,
                &GrantSetup {
                    id_token: None,
                    ..wif.clone()
                },
                &as_
            ),
            Err(OAuthError::WorkloadDetailsNeeded {
                missing: vec![
                    "the workload's client id at this server's authorization server",
                    "the workload's JWT"
                ]
            })
        );
        let cc_only = server(Some(&[CLIENT_CREDENTIALS]), &[], &[]);
        assert!(matches!(
            choose(Some("wl"), None, &wif, &cc_only),
            Err(OAuthError::UnsupportedGrant { .. })
        ));
        assert_eq!(SignInMethod::parse("workload"), SignInMethod::Workload);
        assert!(SignInMethod::Workload.uses_identity_token());
        assert!(!SignInMethod::Workload.uses_idp() && !SignInMethod::Workload.uses_key());
    }

    #[test]
    fn the_default_is_the_browser_unless_the_server_only_takes_applications() {
        let default = GrantSetup::default();
        let code = server(None, &[], &[]);
        assert_eq!(
            choose(Some("id"), Some("s"), &default, &code),
            Ok(GrantChoice::Code)
        );
        let cc_only = server(Some(&[CLIENT_CREDENTIALS]), &["client_secret_basic"], &[]);
        assert_eq!(
            choose(Some(" id "), Some("s"), &default, &cc_only),
            Ok(GrantChoice::ClientCredentials {
                client: basic("id", "s")
            })
        );
        let e = choose(Some("id"), None, &default, &cc_only).unwrap_err();
        assert_eq!(
            e,
            OAuthError::AppCredentialsNeeded {
                issuer: "https://as.example".into()
            }
        );
        assert!(e.to_string().contains("secret or private key"), "{e}");
        let neither = server(Some(&["implicit"]), &[], &[]);
        let e = choose(None, None, &default, &neither).unwrap_err();
        assert!(
            e.to_string()
                .contains("does not offer a sign-in in a browser window (it offers implicit)"),
            "{e}"
        );
    }

    #[test]
    fn an_explicit_choice_wins_and_says_what_is_missing() {
        let app = GrantSetup {
            method: SignInMethod::Application,
            ..GrantSetup::default()
        };
        let both = server(
            Some(&[AUTHORIZATION_CODE, CLIENT_CREDENTIALS]),
            &["client_secret_post"],
            &[],
        );
        assert_eq!(
            choose(Some("id"), Some("s"), &app, &both),
            Ok(GrantChoice::ClientCredentials {
                client: ClientIdentity::PreRegistered {
                    client_id: "id".into(),
                    secret: Some(ClientSecret {
                        secret: "s".into(),
                        method: SecretMethod::ClientSecretPost
                    })
                }
            })
        );
        let code_only = server(Some(&[AUTHORIZATION_CODE]), &[], &[]);
        let e = choose(Some("id"), Some("s"), &app, &code_only).unwrap_err();
        assert!(
            e.to_string().contains(
                "does not offer the client credentials grant (it offers authorization_code)"
            ),
            "{e}"
        );
        let xaa = GrantSetup {
            method: SignInMethod::CrossApp,
            idp_token_endpoint: Some("https://idp/token".into()),
            ..GrantSetup::default()
        };
        let e = choose(Some("id"), None, &xaa, &both).unwrap_err();
        assert_eq!(
            e,
            OAuthError::CrossAppDetailsNeeded {
                missing: vec![
                    "Skiff's client id at the identity provider",
                    "your ID token",
                    "the client id and secret at this server's authorization server"
                ]
            }
        );
    }

    #[test]
    fn a_key_signs_when_the_server_takes_it() {
        let app = GrantSetup {
            method: SignInMethod::Application,
            key_alg: Some(SigningAlg::ES256),
            ..GrantSetup::default()
        };
        let jwt = server(
            Some(&[CLIENT_CREDENTIALS]),
            &["private_key_jwt"],
            &["ES256"],
        );
        assert_eq!(
            choose(Some("id"), None, &app, &jwt),
            Ok(GrantChoice::ClientCredentials {
                client: ClientIdentity::Signed {
                    client_id: "id".into(),
                    alg: SigningAlg::ES256
                }
            })
        );
        let rs_only = server(
            Some(&[CLIENT_CREDENTIALS]),
            &["private_key_jwt"],
            &["RS256"],
        );
        let e = choose(Some("id"), None, &app, &rs_only).unwrap_err();
        assert!(
            e.to_string()
                .contains("does not accept ES256 signatures (it accepts RS256)"),
            "{e}"
        );
        // A server that takes only secrets gets the secret when both are entered.
        let secret_only = server(Some(&[CLIENT_CREDENTIALS]), &["client_secret_basic"], &[]);
        assert_eq!(
            choose(Some("id"), Some("s"), &app, &secret_only),
            Ok(GrantChoice::ClientCredentials {
                client: basic("id", "s")
            })
        );
    }

    #[test]
    fn cross_app_access_is_chosen_with_every_detail() {
        let xaa = GrantSetup {
            method: SignInMethod::Browser,
            idp_token_endpoint: Some("https://idp/token".into()),
            idp_client_id: Some("idp-client".into()),
            id_token: Some("eyJ.id.token".into()),
            ..GrantSetup::default()
        };
        let jwt_bearer_only = server(Some(&[JWT_BEARER]), &["client_secret_basic"], &[]);
        assert_eq!(
            choose(Some("xaa"), Some("sec"), &xaa, &jwt_bearer_only),
            Ok(GrantChoice::CrossApp {
                client: basic("xaa", "sec"),
                idp: IdpExchange {
                    token_endpoint: "https://idp/token".into(),
                    client_id: "idp-client".into(),
                    id_token: "eyJ.id.token".into()
                }
            })
        );
        let chosen = GrantSetup {
            method: SignInMethod::CrossApp,
            ..xaa
        };
        let cc_only = server(Some(&[CLIENT_CREDENTIALS]), &[], &[]);
        let e = choose(Some("xaa"), Some("sec"), &chosen, &cc_only).unwrap_err();
        assert!(e.to_string().contains("jwt-bearer"), "{e}");
    }

    #[test]
    fn method_names_round_trip() {
        for m in [
            SignInMethod::Browser,
            SignInMethod::Application,
            SignInMethod::CrossApp,
        ] {
            assert_eq!(SignInMethod::parse(m.as_str()), m);
        }
        assert_eq!(SignInMethod::parse("nonsense"), SignInMethod::Browser);
    }
}
