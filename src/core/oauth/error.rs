//! Every way signing in to an MCP server can fail, as one typed enum whose `Display` is a
//! sentence the server card can show as it is. Each one says what happened and, where there is
//! one, the way out (the CORS proxy setting, entering a client id, signing in again).

use std::fmt;

/// Which kind of address a fetch went to, so a CORS failure can name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    ResourceMetadata,
    ServerMetadata,
    Registration,
    Token,
    Revocation,
    /// The organisation's identity provider's token endpoint (cross-app access).
    IdentityProvider,
}

impl Endpoint {
    pub fn as_str(self) -> &'static str {
        match self {
            Endpoint::ResourceMetadata => "the MCP server's resource metadata",
            Endpoint::ServerMetadata => "the authorization server's metadata",
            Endpoint::Registration => "the authorization server's registration endpoint",
            Endpoint::Token => "the authorization server's token endpoint",
            Endpoint::Revocation => "the authorization server's revocation endpoint",
            Endpoint::IdentityProvider => "the identity provider's token endpoint",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum OAuthError {
    /// No protected resource metadata at any of the addresses tried.
    NoResourceMetadata { tried: Vec<String> },
    /// A metadata document (either kind) was not what the spec requires.
    BadMetadata { url: String, reason: String },
    /// The protected resource metadata names a resource that is not this server.
    ResourceMismatch { resource: String, server: String },
    /// No authorization server metadata at any of the addresses tried.
    NoServerMetadata { issuer: String, tried: Vec<String> },
    /// The metadata's `issuer` is not the issuer its address was built from.
    IssuerMismatch { expected: String, found: String },
    /// The authorization server does not advertise PKCE with S256.
    NoPkce { issuer: String },
    /// An authorization server endpoint is plain http on a non-local host.
    InsecureEndpoint { url: String },
    /// No pre-registered client id, no Client ID Metadata Document support, no registration.
    NoClientIdentity { issuer: String },
    /// Dynamic client registration was refused.
    RegistrationRefused {
        error: String,
        description: Option<String>,
    },
    /// The user said no on the authorization server's page.
    Declined,
    /// The authorization server answered the authorization request with another error.
    AuthorizationFailed {
        error: String,
        description: Option<String>,
    },
    /// The callback's `state` is not the one this sign-in sent.
    StateMismatch,
    /// The callback's `iss` is missing where it must be present, or names another server.
    CallbackIssuerMismatch {
        expected: String,
        found: Option<String>,
    },
    /// The callback carried neither a code nor an error.
    MissingCode,
    /// The callback repeats a parameter that may appear once (RFC 6749 §3.1).
    RepeatedParameter(String),
    /// The token endpoint answered with an OAuth error.
    TokenRefused {
        error: String,
        description: Option<String>,
    },
    /// The token endpoint answered something that is not a usable token response.
    BadTokenResponse(String),
    /// The request never got an HTTP answer.
    Network { url: String, message: String },
    /// The browser blocked the answer because the server sends no CORS headers.
    BlockedByCors { url: String, endpoint: Endpoint },
    /// An HTTP status nothing in the flow can use.
    Http {
        url: String,
        status: u16,
        endpoint: Endpoint,
    },
    /// The server keeps refusing for lack of scope after re-authorizing.
    StepUpExhausted { scopes: Vec<String> },
    /// A request waited for a sign-in that is now needed from the user.
    SignInRequired,
    /// A request to an address outside the signed-in resource was refused for want of a
    /// token; the token is never sent there, and signing in again would not change that.
    NotCovered,
    /// The pasted private key is not a PKCS#8 PEM of a key Skiff can sign with.
    BadPrivateKey(String),
    /// WebCrypto could not sign the client assertion with the stored key.
    SigningFailed(String),
    /// WebCrypto could not make or use the DPoP key a token request's proof is signed with.
    ProofFailed(String),
    /// The token endpoint refused the client's authentication (`invalid_client`, 401).
    ClientRefused { issuer: String, with_key: bool },
    /// The authorization server does not offer the grant the sign-in needs.
    UnsupportedGrant {
        issuer: String,
        grant: &'static str,
        offered: Vec<String>,
    },
    /// The authorization server signs in applications only, and no application credentials
    /// are entered.
    AppCredentialsNeeded { issuer: String },
    /// Cross-app access was chosen but some of its details are not entered.
    CrossAppDetailsNeeded { missing: Vec<&'static str> },
    /// Signing in as a workload was chosen but its client id or JWT is not entered.
    WorkloadDetailsNeeded { missing: Vec<&'static str> },
    /// The server does not accept what the key signs with.
    KeyNotAccepted {
        issuer: String,
        alg: &'static str,
        accepted: Vec<String>,
    },
    /// The identity provider refused the token exchange.
    IdpRefused {
        error: String,
        description: Option<String>,
    },
    /// The identity provider's answer is not an identity assertion grant.
    BadExchangeResponse(String),
}

impl fmt::Display for OAuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OAuthError::NoResourceMetadata { tried } => write!(
                f,
                "The server asks for a sign-in but publishes no OAuth resource metadata \
                 (tried {}), so Skiff cannot tell which authorization server to use.",
                tried.join(", ")
            ),
            OAuthError::BadMetadata { url, reason } => {
                write!(f, "The OAuth metadata at {url} cannot be used: {reason}.")
            }
            OAuthError::ResourceMismatch { resource, server } => write!(
                f,
                "The server's OAuth metadata is for {resource}, not for {server}; Skiff will \
                 not sign in with it."
            ),
            OAuthError::NoServerMetadata { issuer, tried } => write!(
                f,
                "The authorization server {issuer} publishes no metadata (tried {}).",
                tried.join(", ")
            ),
            OAuthError::IssuerMismatch { expected, found } => write!(
                f,
                "The authorization server's metadata says it is {found}, but it was looked up \
                 as {expected}; Skiff will not use it."
            ),
            OAuthError::NoPkce { issuer } => write!(
                f,
                "The authorization server {issuer} does not support PKCE with S256, which a \
                 browser sign-in needs; this server is not supported."
            ),
            OAuthError::InsecureEndpoint { url } => write!(
                f,
                "The authorization server uses plain http ({url}); sign-in needs https."
            ),
            OAuthError::NoClientIdentity { issuer } => write!(
                f,
                "The authorization server {issuer} neither accepts Skiff's client metadata nor \
                 lets clients register; enter a client id registered there under this server's \
                 Account."
            ),
            OAuthError::RegistrationRefused { error, description } => {
                write!(
                    f,
                    "The authorization server refused to register Skiff ({error}"
                )?;
                if let Some(d) = description {
                    write!(f, ": {d}")?;
                }
                write!(
                    f,
                    "); enter a client id registered there under this server's Account."
                )
            }
            OAuthError::Declined => write!(f, "You declined the sign-in."),
            OAuthError::AuthorizationFailed { error, description } => {
                write!(f, "The authorization server refused the sign-in ({error}")?;
                if let Some(d) = description {
                    write!(f, ": {d}")?;
                }
                write!(f, ").")
            }
            OAuthError::StateMismatch => write!(
                f,
                "The sign-in answer does not belong to the sign-in Skiff started (its state \
                 did not match), so it was ignored. Sign in again."
            ),
            OAuthError::CallbackIssuerMismatch { expected, found } => match found {
                Some(found) => write!(
                    f,
                    "The sign-in answer came from {found}, not from {expected}, so it was \
                     ignored. Sign in again."
                ),
                None => write!(
                    f,
                    "The sign-in answer does not say it came from {expected}, as that server \
                     promised it would, so it was ignored. Sign in again."
                ),
            },
            OAuthError::MissingCode => write!(
                f,
                "The sign-in answer carried no authorization code. Sign in again."
            ),
            OAuthError::RepeatedParameter(name) => write!(
                f,
                "The sign-in answer gives {name} more than once, so it was ignored. Sign in again."
            ),
            OAuthError::TokenRefused { error, description } => {
                write!(
                    f,
                    "The authorization server refused to issue a token ({error}"
                )?;
                if let Some(d) = description {
                    write!(f, ": {d}")?;
                }
                write!(f, ").")
            }
            OAuthError::BadTokenResponse(why) => write!(
                f,
                "The authorization server's token answer cannot be used: {why}."
            ),
            OAuthError::Network { url, message } => {
                write!(f, "Could not reach {url}: {message}.")
            }
            OAuthError::BlockedByCors { url, endpoint } => write!(
                f,
                "The browser blocked the answer from {} ({url}) because that server does not \
                 allow requests from web pages (CORS). Turn on the CORS proxy in this server's \
                 settings and sign in again.",
                endpoint.as_str()
            ),
            OAuthError::Http {
                url,
                status,
                endpoint,
            } => write!(
                f,
                "{} ({url}) answered HTTP {status}.",
                capitalise(endpoint.as_str())
            ),
            OAuthError::StepUpExhausted { scopes } => write!(
                f,
                "The server still refuses for lack of permission after signing in again with \
                 {}; giving up on this request.",
                if scopes.is_empty() {
                    "the same permissions".to_string()
                } else {
                    scopes.join(" ")
                }
            ),
            OAuthError::SignInRequired => {
                write!(
                    f,
                    "This server needs you to sign in; use Sign in on its card."
                )
            }
            OAuthError::NotCovered => write!(
                f,
                "The server refused a request to an address the sign-in does not cover; Skiff \
                 never sends the token outside the resource it was issued for."
            ),
            OAuthError::BadPrivateKey(why) => write!(
                f,
                "The private key cannot be used: {why}; paste the private key as a PKCS#8 PEM \
                 (BEGIN PRIVATE KEY)."
            ),
            OAuthError::SigningFailed(why) => write!(
                f,
                "Skiff could not sign in with the stored private key ({why}); paste the private \
                 key again under this server's Account."
            ),
            OAuthError::ProofFailed(why) => write!(
                f,
                "This server binds its tokens to a key in the browser (DPoP), and the browser \
                 could not sign with one ({why}). Open Skiff over https:// (or localhost) in a \
                 window that keeps site data, then sign in again."
            ),
            OAuthError::ClientRefused { issuer, with_key } => write!(
                f,
                "The authorization server {issuer} refused the client id or {}; check them \
                 under this server's Account.",
                if *with_key {
                    "the key it was signed with"
                } else {
                    "secret"
                }
            ),
            OAuthError::UnsupportedGrant {
                issuer,
                grant,
                offered,
            } => write!(
                f,
                "The authorization server {issuer} does not offer {grant} (it offers {}); \
                 choose another way to sign in under this server's Account.",
                if offered.is_empty() {
                    "nothing Skiff can use".to_string()
                } else {
                    offered.join(", ")
                }
            ),
            OAuthError::AppCredentialsNeeded { issuer } => write!(
                f,
                "The authorization server {issuer} only signs in applications (client \
                 credentials): enter the client id and its secret or private key under this \
                 server's Account."
            ),
            OAuthError::CrossAppDetailsNeeded { missing } => write!(
                f,
                "Signing in through your organisation's identity provider needs {}; enter it \
                 under this server's Account.",
                missing.join(", ")
            ),
            OAuthError::WorkloadDetailsNeeded { missing } => write!(
                f,
                "Signing in as a workload needs {}; enter it under this server's Account.",
                missing.join(" and ")
            ),
            OAuthError::KeyNotAccepted {
                issuer,
                alg,
                accepted,
            } => write!(
                f,
                "The authorization server {issuer} does not accept {alg} signatures (it accepts \
                 {}); paste a key of a kind it accepts.",
                accepted.join(", ")
            ),
            OAuthError::IdpRefused { error, description } => {
                write!(f, "The identity provider refused the exchange ({error}")?;
                if let Some(d) = description {
                    write!(f, ": {d}")?;
                }
                write!(
                    f,
                    "); the ID token may have expired: paste a fresh one under this server's \
                     Account."
                )
            }
            OAuthError::BadExchangeResponse(why) => {
                write!(f, "The identity provider's answer cannot be used: {why}.")
            }
        }
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

impl std::error::Error for OAuthError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cors_on_the_token_endpoint_points_at_the_proxy() {
        let e = OAuthError::BlockedByCors {
            url: "https://as.example/token".into(),
            endpoint: Endpoint::Token,
        };
        let s = e.to_string();
        assert!(s.contains("token endpoint"), "{s}");
        assert!(s.contains("CORS proxy"), "{s}");
    }

    #[test]
    fn sentences_name_the_cause() {
        assert_eq!(
            OAuthError::Declined.to_string(),
            "You declined the sign-in."
        );
        assert!(OAuthError::StateMismatch.to_string().contains("state"));
        let s = OAuthError::CallbackIssuerMismatch {
            expected: "https://a".into(),
            found: Some("https://evil".into()),
        }
        .to_string();
        assert!(s.contains("https://evil") && s.contains("https://a"), "{s}");
        let s = OAuthError::Http {
            url: "u".into(),
            status: 500,
            endpoint: Endpoint::Token,
        }
        .to_string();
        assert!(s.starts_with("The authorization server's token endpoint (u) answered HTTP 500"));
    }
}
