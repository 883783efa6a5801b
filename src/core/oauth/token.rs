//! The token endpoint: the requests Skiff sends (authorization code with its verifier,
//! refresh, and RFC 7009 revocation) and the answers it reads (OAuth 2.1 §3.2.3 success,
//! §3.2.4 errors).
//!
//! Every request carries `resource` (RFC 8707 §2; the MCP spec: "MUST be included in both
//! authorization requests and token requests"), and `client_id`, since a public client
//! authenticates with nothing else (OAuth 2.1 §3.2.1, `token_endpoint_auth_method: none`).

use serde_json::Value;

use super::client::{ClientIdentity, SecretMethod};
use super::error::OAuthError;
use super::form::{encode_component, encode_pairs};
use super::pkce::base64url;
use super::www_authenticate::split_scope;
use crate::http::{HttpRequest, Method};

/// A form POST from `client`: `client_id` always in the body; a registered secret as
/// `client_secret` in the body or as HTTP Basic, as the server asked (RFC 6749 §2.3.1).
pub(super) fn form_post(url: &str, client: &ClientIdentity, pairs: &[(&str, &str)]) -> HttpRequest {
    let mut pairs = pairs.to_vec();
    pairs.push(("client_id", client.client_id()));
    let mut headers = vec![
        (
            "Content-Type".into(),
            "application/x-www-form-urlencoded".into(),
        ),
        ("Accept".into(), "application/json".into()),
    ];
    match client.secret() {
        Some(s) if s.method == SecretMethod::ClientSecretPost => {
            pairs.push(("client_secret", &s.secret));
        }
        Some(s) => headers.push((
            "Authorization".into(),
            format!("Basic {}", basic_credentials(client.client_id(), &s.secret)),
        )),
        None => {}
    }
    HttpRequest {
        method: Method::Post,
        url: url.to_string(),
        headers,
        body: Some(encode_pairs(&pairs)),
    }
}

/// RFC 6749 §2.3.1: `base64(urlencode(id) ":" urlencode(secret))`, standard alphabet with
/// padding.
fn basic_credentials(client_id: &str, secret: &str) -> String {
    let raw = format!(
        "{}:{}",
        encode_component(client_id),
        encode_component(secret)
    );
    let mut b64: String = base64url(raw.as_bytes())
        .chars()
        .map(|c| match c {
            '-' => '+',
            '_' => '/',
            c => c,
        })
        .collect();
    while !b64.len().is_multiple_of(4) {
        b64.push('=');
    }
    b64
}

/// The authorization code grant (OAuth 2.1 §4.1.3), with the PKCE verifier (RFC 7636 §4.5).
pub fn code_request(
    token_endpoint: &str,
    client: &ClientIdentity,
    code: &str,
    redirect_uri: &str,
    code_verifier: &str,
    resource: &str,
) -> HttpRequest {
    form_post(
        token_endpoint,
        client,
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect_uri),
            ("code_verifier", code_verifier),
            ("resource", resource),
        ],
    )
}

/// The refresh token grant (OAuth 2.1 §4.3). No `scope`: the grant keeps what was granted.
pub fn refresh_request(
    token_endpoint: &str,
    client: &ClientIdentity,
    refresh_token: &str,
    resource: &str,
) -> HttpRequest {
    form_post(
        token_endpoint,
        client,
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh_token),
            ("resource", resource),
        ],
    )
}

/// RFC 7009 §2.1 revocation of one token; `hint` is `refresh_token` or `access_token`.
pub fn revoke_request(
    endpoint: &str,
    client: &ClientIdentity,
    token: &str,
    hint: &str,
) -> HttpRequest {
    form_post(
        endpoint,
        client,
        &[("token", token), ("token_type_hint", hint)],
    )
}

/// A successful token answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenResponse {
    pub access_token: String,
    /// Seconds, when the server says.
    pub expires_in: Option<u64>,
    pub refresh_token: Option<String>,
    /// `None` when the answer has no `scope` (then it is what was asked, OAuth 2.1 §3.2.3).
    pub scope: Option<Vec<String>>,
    /// How the token is presented: `DPoP` when the server bound it to the key that signed the
    /// token request's proof (RFC 9449 §5).
    pub token_type: TokenType,
}

/// The `Authorization` scheme a token goes with (OAuth 2.1 §1.4, RFC 9449 §7.1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TokenType {
    #[default]
    Bearer,
    /// Bound to the page's DPoP key: every request presents it with a fresh proof.
    DPoP,
}

impl TokenType {
    /// The scheme's name as it goes in the header and in `token_type`.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenType::Bearer => "Bearer",
            TokenType::DPoP => "DPoP",
        }
    }

    pub fn is_bearer(&self) -> bool {
        *self == TokenType::Bearer
    }

    /// What the Account dialog says of the token's binding (its "Token binding" fact).
    pub fn binding(self) -> &'static str {
        match self {
            TokenType::Bearer => "Bearer: not bound, whoever holds the token can use it",
            TokenType::DPoP => {
                "DPoP-bound: every request is signed with a key only this browser holds (it \
                 cannot be exported), so a copied token is of no use elsewhere"
            }
        }
    }
}

/// Read a token endpoint answer. 2xx must be a JSON object with a non-empty `access_token`
/// and, if it says a `token_type`, `Bearer` or `DPoP` (case-insensitive, OAuth 2.1 §1.4,
/// RFC 9449 §5); anything else is an OAuth error object (`invalid_grant`, ...) or, failing
/// that, the status.
pub fn parse_token_response(status: u16, body: &str) -> Result<TokenResponse, OAuthError> {
    let v: Option<Value> = serde_json::from_str(body).ok();
    let obj = v.as_ref().and_then(Value::as_object);
    if !(200..300).contains(&status) {
        let error = obj
            .and_then(|o| o.get("error"))
            .and_then(Value::as_str)
            .map(String::from)
            .unwrap_or_else(|| format!("HTTP {status}"));
        let description = obj
            .and_then(|o| o.get("error_description"))
            .and_then(Value::as_str)
            .map(String::from);
        return Err(OAuthError::TokenRefused { error, description });
    }
    let o = obj.ok_or_else(|| OAuthError::BadTokenResponse("it is not a JSON object".into()))?;
    let access_token = o
        .get("access_token")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| OAuthError::BadTokenResponse("it has no access_token".into()))?;
    let token_type = match o.get("token_type") {
        None | Some(Value::Null) => TokenType::Bearer,
        Some(Value::String(t)) if t.eq_ignore_ascii_case("bearer") => TokenType::Bearer,
        Some(Value::String(t)) if t.eq_ignore_ascii_case("dpop") => TokenType::DPoP,
        Some(other) => {
            return Err(OAuthError::BadTokenResponse(format!(
                "its token_type is {other}, and Skiff only sends Bearer and DPoP tokens"
            )))
        }
    };
    // Some servers send `"3600"`; a number that is negative or fractional is read as absent
    // rather than trusted.
    let expires_in = match o.get("expires_in") {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    Ok(TokenResponse {
        access_token: access_token.to_string(),
        expires_in,
        refresh_token: o
            .get("refresh_token")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(String::from),
        scope: o.get("scope").and_then(Value::as_str).map(split_scope),
        token_type,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oauth::client::ClientSecret;
    use proptest::prelude::*;

    fn public(id: &str) -> ClientIdentity {
        ClientIdentity::MetadataDocument {
            client_id: id.into(),
        }
    }

    #[test]
    fn code_request_body_exactly() {
        let r = code_request(
            "https://as/token",
            &public("https://skiff.example/oauth/client-metadata.json"),
            "c0de",
            "https://skiff.example/oauth/callback.html",
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
            "https://mcp.example.com/mcp",
        );
        assert_eq!(r.method, Method::Post);
        assert_eq!(r.url, "https://as/token");
        assert_eq!(
            r.header("content-type"),
            Some("application/x-www-form-urlencoded")
        );
        assert_eq!(
            r.body.as_deref(),
            Some(
                "grant_type=authorization_code&code=c0de\
                 &redirect_uri=https%3A%2F%2Fskiff.example%2Foauth%2Fcallback.html\
                 &code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk\
                 &resource=https%3A%2F%2Fmcp.example.com%2Fmcp\
                 &client_id=https%3A%2F%2Fskiff.example%2Foauth%2Fclient-metadata.json"
            )
        );
    }

    #[test]
    fn refresh_and_revoke_bodies_exactly() {
        let r = refresh_request(
            "https://as/token",
            &public("cid"),
            "r/t+1",
            "https://mcp.example.com",
        );
        assert_eq!(
            r.body.as_deref(),
            Some("grant_type=refresh_token&refresh_token=r%2Ft%2B1&resource=https%3A%2F%2Fmcp.example.com&client_id=cid")
        );
        assert_eq!(r.header("authorization"), None);
        let r = revoke_request("https://as/revoke", &public("cid"), "tok", "refresh_token");
        assert_eq!(
            r.body.as_deref(),
            Some("token=tok&token_type_hint=refresh_token&client_id=cid")
        );
    }

    #[test]
    fn registered_secrets_go_where_the_server_asked() {
        let registered = |method| ClientIdentity::Registered {
            client_id: "my id".into(),
            secret: Some(ClientSecret {
                secret: "s3:cr+t".into(),
                method,
            }),
        };
        let r = refresh_request(
            "https://as/token",
            &registered(SecretMethod::ClientSecretPost),
            "rt",
            "https://r",
        );
        assert_eq!(
            r.body.as_deref(),
            Some("grant_type=refresh_token&refresh_token=rt&resource=https%3A%2F%2Fr&client_id=my%20id&client_secret=s3%3Acr%2Bt")
        );
        assert_eq!(r.header("authorization"), None);
        let r = refresh_request(
            "https://as/token",
            &registered(SecretMethod::ClientSecretBasic),
            "rt",
            "https://r",
        );
        assert!(!r.body.as_deref().unwrap().contains("client_secret"));
        // base64("my%20id:s3%3Acr%2Bt")
        assert_eq!(
            r.header("authorization"),
            Some("Basic bXklMjBpZDpzMyUzQWNyJTJCdA==")
        );
        assert!(
            r.carries_credentials(),
            "a secret in a header must not follow redirects"
        );
    }

    #[test]
    fn a_pre_registered_secret_is_sent_too() {
        let client = ClientIdentity::PreRegistered {
            client_id: "pre-registered-client".into(),
            secret: Some(ClientSecret {
                secret: "s".into(),
                method: SecretMethod::ClientSecretBasic,
            }),
        };
        let r = code_request(
            "https://as/token",
            &client,
            "c",
            "https://s/cb",
            "v",
            "https://r",
        );
        // base64("pre-registered-client:s")
        assert_eq!(
            r.header("authorization"),
            Some("Basic cHJlLXJlZ2lzdGVyZWQtY2xpZW50OnM=")
        );
        let public = ClientIdentity::PreRegistered {
            client_id: "id".into(),
            secret: None,
        };
        let r = code_request(
            "https://as/token",
            &public,
            "c",
            "https://s/cb",
            "v",
            "https://r",
        );
        assert_eq!(r.header("authorization"), None);
    }

    #[test]
    fn reads_a_token_answer() {
        let t = parse_token_response(
            200,
            r#"{"access_token":"at","token_type":"bearer","expires_in":3600,"refresh_token":"rt","scope":"a b a"}"#,
        )
        .unwrap();
        assert_eq!(
            t,
            TokenResponse {
                access_token: "at".into(),
                expires_in: Some(3600),
                refresh_token: Some("rt".into()),
                scope: Some(vec!["a".into(), "b".into()]),
                token_type: TokenType::Bearer,
            }
        );
        let t = parse_token_response(200, r#"{"access_token":"at","token_type":"dpop"}"#).unwrap();
        assert_eq!(
            t.token_type,
            TokenType::DPoP,
            "RFC 9449 §5: a DPoP-bound token"
        );
        let t = parse_token_response(
            200,
            r#"{"access_token":"at","token_type":"Bearer","expires_in":"60"}"#,
        )
        .unwrap();
        assert_eq!(
            (t.expires_in, t.refresh_token, t.scope),
            (Some(60), None, None)
        );
        let t = parse_token_response(200, r#"{"access_token":"at","expires_in":-5}"#).unwrap();
        assert_eq!(t.expires_in, None);
    }

    #[test]
    fn refuses_unusable_answers() {
        for (status, body, want) in [
            (200, "not json", "not a JSON object"),
            (200, r#"{"token_type":"Bearer"}"#, "no access_token"),
            (
                200,
                r#"{"access_token":"","token_type":"Bearer"}"#,
                "no access_token",
            ),
            (
                200,
                r#"{"access_token":"x","token_type":"MAC"}"#,
                "only sends Bearer and DPoP",
            ),
        ] {
            let e = parse_token_response(status, body).unwrap_err();
            assert!(e.to_string().contains(want), "{body}: {e}");
        }
    }

    #[test]
    fn oauth_errors_are_typed() {
        assert_eq!(
            parse_token_response(
                400,
                r#"{"error":"invalid_grant","error_description":"code used"}"#
            ),
            Err(OAuthError::TokenRefused {
                error: "invalid_grant".into(),
                description: Some("code used".into())
            })
        );
        assert_eq!(
            parse_token_response(502, "<html>bad gateway</html>"),
            Err(OAuthError::TokenRefused {
                error: "HTTP 502".into(),
                description: None
            })
        );
    }

    proptest! {
        #[test]
        fn hostile_answers_never_panic(status in 0u16..600, body in "\\PC{0,100}") {
            let _ = parse_token_response(status, &body);
        }
    }
}
