//! The token requests of the grants that need no browser window, and the identity provider's
//! answer: client credentials (OAuth 2.1 §4.2; with a secret, or a `private_key_jwt` assertion,
//! RFC 7523 §2.2), the token exchange for an identity assertion grant (RFC 8693, SEP-990's
//! ID-JAG), and the jwt-bearer grant that spends it (RFC 7523 §2.1).
//!
//! Each goes through `token::form_post`, so a secret goes where the server asked (body or HTTP
//! Basic) exactly as in the code flow, and every request to the MCP server's authorization
//! server carries `resource` (RFC 8707) and the scopes the code flow would ask for.

use serde_json::Value;

use super::client::ClientIdentity;
use super::error::OAuthError;
use super::grant::{IdpExchange, CLIENT_CREDENTIALS, JWT_BEARER};
use super::token::form_post;
use crate::http::HttpRequest;

pub const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
pub const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
pub const ID_JAG_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";
pub const JWT_BEARER_ASSERTION: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// `scope` only when some scope is asked (an empty one means "the default" to no server).
fn with_scope<'a>(mut pairs: Vec<(&'a str, &'a str)>, scope: &'a str) -> Vec<(&'a str, &'a str)> {
    if !scope.is_empty() {
        pairs.push(("scope", scope));
    }
    pairs
}

/// The client credentials grant. `assertion` is the signed client assertion when `client`
/// authenticates with a key (`ClientIdentity::Signed`); a secret is added by `form_post`.
pub fn client_credentials_request(
    token_endpoint: &str,
    client: &ClientIdentity,
    scopes: &[String],
    resource: &str,
    assertion: Option<&str>,
) -> HttpRequest {
    let scope = scopes.join(" ");
    let mut pairs = with_scope(vec![("grant_type", CLIENT_CREDENTIALS)], &scope);
    pairs.push(("resource", resource));
    if let Some(a) = assertion {
        pairs.push(("client_assertion_type", JWT_BEARER_ASSERTION));
        pairs.push(("client_assertion", a));
    }
    form_post(token_endpoint, client, &pairs)
}

/// RFC 8693 token exchange at the identity provider: the user's ID token for an identity
/// assertion grant whose audience is the MCP server's authorization server (`audience`, its
/// issuer) and whose resource is the MCP server. Skiff is a public client there: `client_id`
/// only.
pub fn token_exchange_request(
    idp: &IdpExchange,
    audience: &str,
    resource: &str,
    scopes: &[String],
) -> HttpRequest {
    let scope = scopes.join(" ");
    let mut pairs = vec![
        ("grant_type", TOKEN_EXCHANGE),
        ("requested_token_type", ID_JAG_TYPE),
        ("audience", audience),
        ("resource", resource),
    ];
    pairs = with_scope(pairs, &scope);
    pairs.push(("subject_token", &idp.id_token));
    pairs.push(("subject_token_type", ID_TOKEN_TYPE));
    let public = ClientIdentity::PreRegistered {
        client_id: idp.client_id.clone(),
        secret: None,
    };
    form_post(&idp.token_endpoint, &public, &pairs)
}

/// RFC 7523 §2.1: the identity assertion grant as the grant, the client authenticated as
/// `client` (its secret, where the server asked for it).
pub fn jwt_bearer_request(
    token_endpoint: &str,
    client: &ClientIdentity,
    assertion: &str,
    scopes: &[String],
    resource: &str,
) -> HttpRequest {
    let scope = scopes.join(" ");
    let mut pairs = vec![("grant_type", JWT_BEARER), ("assertion", assertion)];
    pairs = with_scope(pairs, &scope);
    pairs.push(("resource", resource));
    form_post(token_endpoint, client, &pairs)
}

/// The identity provider's answer to the exchange: the identity assertion grant (RFC 8693
/// §2.2.1 puts it in `access_token`; `issued_token_type` must say it is one, and its
/// `token_type` is `N_A`, so `token::parse_token_response` does not apply).
pub fn parse_exchange_response(status: u16, body: &str) -> Result<String, OAuthError> {
    let v: Option<Value> = serde_json::from_str(body).ok();
    let obj = v.as_ref().and_then(Value::as_object);
    let text = |k: &str| obj.and_then(|o| o.get(k)).and_then(Value::as_str);
    if !(200..300).contains(&status) {
        return Err(OAuthError::IdpRefused {
            error: text("error")
                .map(String::from)
                .unwrap_or_else(|| format!("HTTP {status}")),
            description: text("error_description").map(String::from),
        });
    }
    if obj.is_none() {
        return Err(OAuthError::BadExchangeResponse(
            "it is not a JSON object".into(),
        ));
    }
    match text("issued_token_type") {
        Some(ID_JAG_TYPE) | None => {}
        Some(other) => {
            return Err(OAuthError::BadExchangeResponse(format!(
                "it issued a {other}, not an identity assertion grant"
            )))
        }
    }
    text("access_token")
        .filter(|t| !t.is_empty())
        .map(String::from)
        .ok_or_else(|| OAuthError::BadExchangeResponse("it has no access_token".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oauth::client::{ClientSecret, SecretMethod};
    use crate::oauth::jwt::SigningAlg;

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
    fn client_credentials_with_a_secret_in_basic() {
        let r = client_credentials_request(
            "https://as/token",
            &basic("app id", "p@ss:w/rd+"),
            &["mcp:read".into(), "mcp:write".into()],
            "https://mcp.example.com/mcp",
            None,
        );
        assert_eq!(
            r.body.as_deref(),
            Some(
                "grant_type=client_credentials&scope=mcp%3Aread%20mcp%3Awrite\
                 &resource=https%3A%2F%2Fmcp.example.com%2Fmcp&client_id=app%20id"
            )
        );
        // base64("app%20id:p%40ss%3Aw%2Frd%2B"), RFC 6749 §2.3.1.
        assert_eq!(
            r.header("authorization"),
            Some("Basic YXBwJTIwaWQ6cCU0MHNzJTNBdyUyRnJkJTJC")
        );
        assert!(r.carries_credentials());
    }

    #[test]
    fn client_credentials_with_a_signed_assertion() {
        let client = ClientIdentity::Signed {
            client_id: "cid".into(),
            alg: SigningAlg::ES256,
        };
        let r = client_credentials_request(
            "https://as/token",
            &client,
            &[],
            "https://r",
            Some("h.c.s"),
        );
        assert_eq!(
            r.body.as_deref(),
            Some(
                "grant_type=client_credentials&resource=https%3A%2F%2Fr\
                 &client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer\
                 &client_assertion=h.c.s&client_id=cid"
            )
        );
        assert_eq!(r.header("authorization"), None);
    }

    #[test]
    fn token_exchange_then_jwt_bearer() {
        let idp = IdpExchange {
            token_endpoint: "https://idp/token".into(),
            client_id: "idp-client".into(),
            id_token: "eyJ.a.b".into(),
        };
        let r = token_exchange_request(&idp, "https://as", "https://mcp/mcp", &["s".into()]);
        assert_eq!(r.url, "https://idp/token");
        assert_eq!(
            r.body.as_deref(),
            Some(
                "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange\
                 &requested_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid-jag\
                 &audience=https%3A%2F%2Fas&resource=https%3A%2F%2Fmcp%2Fmcp&scope=s\
                 &subject_token=eyJ.a.b\
                 &subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid_token\
                 &client_id=idp-client"
            )
        );
        assert_eq!(r.header("authorization"), None);
        let r = jwt_bearer_request(
            "https://as/token",
            &basic("x", "y"),
            "jag.jwt.sig",
            &[],
            "https://mcp/mcp",
        );
        assert_eq!(
            r.body.as_deref(),
            Some(
                "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer\
                 &assertion=jag.jwt.sig&resource=https%3A%2F%2Fmcp%2Fmcp&client_id=x"
            )
        );
        assert_eq!(r.header("authorization"), Some("Basic eDp5"));
    }

    #[test]
    fn reads_the_identity_providers_answer() {
        assert_eq!(
            parse_exchange_response(
                200,
                r#"{"access_token":"jag","issued_token_type":"urn:ietf:params:oauth:token-type:id-jag","token_type":"N_A"}"#
            ),
            Ok("jag".into())
        );
        let e = parse_exchange_response(200, r#"{"access_token":"at","issued_token_type":"urn:ietf:params:oauth:token-type:access_token"}"#).unwrap_err();
        assert!(
            e.to_string().contains("not an identity assertion grant"),
            "{e}"
        );
        let e = parse_exchange_response(
            400,
            r#"{"error":"invalid_grant","error_description":"Invalid ID token"}"#,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "The identity provider refused the exchange (invalid_grant: Invalid ID token); the ID \
             token may have expired: paste a fresh one under this server's Account."
        );
        assert!(parse_exchange_response(200, "[]").is_err());
        assert!(parse_exchange_response(200, "{}").is_err());
    }
}
