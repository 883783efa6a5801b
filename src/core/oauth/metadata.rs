//! The two documents discovery fetches, read and judged: protected resource metadata
//! (RFC 9728 §2, §3.3) and authorization server metadata (RFC 8414 §2, §3.3, or OpenID
//! Connect Discovery's provider metadata, which has the same members).
//!
//! Only the members the flow acts on are read; everything else is ignored, since both formats
//! are extensible. A document that breaks a rule the flow's safety rests on (the resource is
//! another server, the issuer is another server, no PKCE S256, plain http) is refused with a
//! sentence, never "fixed".

use serde_json::{Map, Value};

use super::error::OAuthError;
use super::url::{is_secure_endpoint, HttpUrl};

/// What a client reads from protected resource metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedResource {
    /// The resource identifier: what the `resource` parameter carries (RFC 8707) and what a
    /// token is bound to.
    pub resource: String,
    /// Issuer identifiers, in the document's order; at least one (MCP "Authorization Server
    /// Location").
    pub authorization_servers: Vec<String>,
    /// `None` when the document does not say (the scope parameter is then omitted).
    pub scopes_supported: Option<Vec<String>>,
}

/// What a client reads from authorization server metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationServer {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub registration_endpoint: Option<String>,
    /// RFC 7009, used by sign-out when present.
    pub revocation_endpoint: Option<String>,
    pub scopes_supported: Option<Vec<String>>,
    /// Consulted only when registration hands out a secret without saying how to send it.
    pub token_endpoint_auth_methods_supported: Vec<String>,
    /// `client_id_metadata_document_supported` (MCP "Client ID Metadata Documents").
    pub client_id_metadata_document_supported: bool,
    /// RFC 9207 §2.3: the server promises `iss` in every authorization response.
    pub authorization_response_iss_parameter_supported: bool,
    /// RFC 8414 `grant_types_supported`; `None` when the document does not say (RFC 8414's
    /// default is then the authorization code grant), which decides the sign-in flow
    /// (`grant::choose`).
    pub grant_types_supported: Option<Vec<String>>,
    /// RFC 8414 `token_endpoint_auth_signing_alg_values_supported`: what a `private_key_jwt`
    /// assertion may be signed with (empty: not said).
    pub token_endpoint_auth_signing_alg_values_supported: Vec<String>,
    /// RFC 9449 §5.1 `dpop_signing_alg_values_supported`: the algorithms the server takes for
    /// DPoP proofs (empty: it does not bind tokens to keys), which decides `dpop::wanted`.
    pub dpop_signing_alg_values_supported: Vec<String>,
}

impl AuthorizationServer {
    /// Whether the server offers `grant`: listed, or nothing listed and `grant` is the
    /// authorization code grant (RFC 8414 §2's default).
    pub fn offers_grant(&self, grant: &str) -> bool {
        match &self.grant_types_supported {
            Some(list) => list.iter().any(|g| g == grant),
            None => grant == "authorization_code",
        }
    }
}

fn object(body: &str, url: &str) -> Result<Map<String, Value>, OAuthError> {
    match serde_json::from_str::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err(bad(url, "it is not a JSON object")),
        Err(_) => Err(bad(url, "it is not JSON")),
    }
}

fn bad(url: &str, reason: &str) -> OAuthError {
    OAuthError::BadMetadata {
        url: url.to_string(),
        reason: reason.to_string(),
    }
}

fn string_list(
    m: &Map<String, Value>,
    key: &str,
    url: &str,
) -> Result<Option<Vec<String>>, OAuthError> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(String::from)
                    .ok_or_else(|| bad(url, &format!("{key} holds something that is not a string")))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(bad(url, &format!("{key} is not a list"))),
    }
}

fn opt_string(m: &Map<String, Value>, key: &str, url: &str) -> Result<Option<String>, OAuthError> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(bad(url, &format!("{key} is not a string"))),
    }
}

fn flag(m: &Map<String, Value>, key: &str) -> bool {
    m.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// An endpoint the browser will send the code, the verifier or a token to: absolute, and
/// https unless on loopback.
fn endpoint(m: &Map<String, Value>, key: &str, url: &str) -> Result<Option<String>, OAuthError> {
    let Some(s) = opt_string(m, key, url)? else {
        return Ok(None);
    };
    let parsed = HttpUrl::parse(&s)
        .ok_or_else(|| bad(url, &format!("{key} is not an absolute http(s) URL")))?;
    if !is_secure_endpoint(&parsed) {
        return Err(OAuthError::InsecureEndpoint { url: s });
    }
    Ok(Some(s.trim().to_string()))
}

/// Read protected resource metadata fetched from `url` for the MCP endpoint `server`.
///
/// RFC 9728 §3.3 wants `resource` identical to the URL the metadata was looked up for; the MCP
/// spec also allows the metadata at the origin's root, whose `resource` is then the origin. So,
/// as the MCP SDKs do (and draft-mcguinness-oauth-rfc9728bis proposes), the resource must have
/// the server's origin and a path that is a prefix of the server's path on a segment boundary.
/// A document for another origin is refused: its authorization server could collect a token
/// meant for someone else.
pub fn parse_resource_metadata(
    body: &str,
    url: &str,
    server: &HttpUrl,
) -> Result<ProtectedResource, OAuthError> {
    let m = object(body, url)?;
    let resource =
        opt_string(&m, "resource", url)?.ok_or_else(|| bad(url, "it has no resource"))?;
    let parsed = HttpUrl::parse(&resource)
        .ok_or_else(|| bad(url, "its resource is not an absolute http(s) URL"))?;
    if !parsed.contains(server) {
        return Err(OAuthError::ResourceMismatch {
            resource,
            server: server.as_string(),
        });
    }
    let authorization_servers = string_list(&m, "authorization_servers", url)?
        .unwrap_or_default()
        .into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>();
    if authorization_servers.is_empty() {
        return Err(bad(url, "it names no authorization server"));
    }
    Ok(ProtectedResource {
        resource: resource.trim().to_string(),
        authorization_servers,
        scopes_supported: string_list(&m, "scopes_supported", url)?,
    })
}

/// Read authorization server metadata fetched from `url`, which was built from
/// `expected_issuer`.
///
/// - `issuer` must be identical to `expected_issuer` (RFC 8414 §3.3, OpenID Connect
///   Discovery §4.3, MCP 2026-07-28 "Authorization Server Metadata Discovery"): simple string
///   comparison, no normalisation.
/// - `code_challenge_methods_supported` must list `S256` (MCP "Authorization Code Protection":
///   absent means no PKCE, and the client must refuse).
/// - Every endpoint must be https, or http on loopback (OAuth 2.1 §1.5).
pub fn parse_server_metadata(
    body: &str,
    url: &str,
    expected_issuer: &str,
) -> Result<AuthorizationServer, OAuthError> {
    let m = object(body, url)?;
    let issuer = opt_string(&m, "issuer", url)?.ok_or_else(|| bad(url, "it has no issuer"))?;
    if issuer != expected_issuer {
        return Err(OAuthError::IssuerMismatch {
            expected: expected_issuer.to_string(),
            found: issuer,
        });
    }
    match HttpUrl::parse(&issuer) {
        Some(i) if is_secure_endpoint(&i) => {}
        Some(_) => return Err(OAuthError::InsecureEndpoint { url: issuer }),
        None => return Err(bad(url, "its issuer is not an absolute http(s) URL")),
    }
    let grant_types_supported = string_list(&m, "grant_types_supported", url)?;
    // PKCE and the authorization endpoint belong to the authorization code grant; a server
    // that only signs in applications (client credentials, jwt-bearer) needs neither.
    let code_grant = grant_types_supported
        .as_ref()
        .is_none_or(|l| l.iter().any(|g| g == "authorization_code"));
    let methods = string_list(&m, "code_challenge_methods_supported", url)?.unwrap_or_default();
    if code_grant && !methods.iter().any(|x| x == "S256") {
        return Err(OAuthError::NoPkce { issuer });
    }
    let authorization_endpoint = match endpoint(&m, "authorization_endpoint", url)? {
        Some(e) => e,
        None if !code_grant => String::new(),
        None => return Err(bad(url, "it has no authorization_endpoint")),
    };
    let token_endpoint =
        endpoint(&m, "token_endpoint", url)?.ok_or_else(|| bad(url, "it has no token_endpoint"))?;
    Ok(AuthorizationServer {
        issuer,
        authorization_endpoint,
        token_endpoint,
        registration_endpoint: endpoint(&m, "registration_endpoint", url)?,
        revocation_endpoint: endpoint(&m, "revocation_endpoint", url)?,
        scopes_supported: string_list(&m, "scopes_supported", url)?,
        token_endpoint_auth_methods_supported: string_list(
            &m,
            "token_endpoint_auth_methods_supported",
            url,
        )?
        .unwrap_or_default(),
        client_id_metadata_document_supported: flag(&m, "client_id_metadata_document_supported"),
        authorization_response_iss_parameter_supported: flag(
            &m,
            "authorization_response_iss_parameter_supported",
        ),
        grant_types_supported,
        token_endpoint_auth_signing_alg_values_supported: string_list(
            &m,
            "token_endpoint_auth_signing_alg_values_supported",
            url,
        )?
        .unwrap_or_default(),
        dpop_signing_alg_values_supported: string_list(
            &m,
            "dpop_signing_alg_values_supported",
            url,
        )?
        .unwrap_or_default(),
    })
}

/// Authorization server metadata found the 2025-03-26 way (at the MCP server's origin, no
/// resource metadata). That revision predates the issuer check, and servers written for it
/// name issuers with paths their documents are not served under; so the document's `issuer`
/// is taken as it is, provided it is on the origin the document came from (whoever serves the
/// origin speaks for it anyway). Every other rule of `parse_server_metadata` holds.
pub fn parse_legacy_server_metadata(
    body: &str,
    url: &str,
    origin: &str,
) -> Result<AuthorizationServer, OAuthError> {
    let m = object(body, url)?;
    let issuer = opt_string(&m, "issuer", url)?.ok_or_else(|| bad(url, "it has no issuer"))?;
    match HttpUrl::parse(&issuer) {
        Some(i) if i.origin() == origin => parse_server_metadata(body, url, &issuer),
        _ => Err(OAuthError::IssuerMismatch {
            expected: origin.to_string(),
            found: issuer,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const PRM_URL: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";

    #[test]
    fn a_server_for_applications_only_needs_no_pkce_or_authorization_endpoint() {
        let cc = r#"{"issuer":"https://as","token_endpoint":"https://as/token","grant_types_supported":["client_credentials"],"token_endpoint_auth_signing_alg_values_supported":["ES256"]}"#;
        let s = parse_server_metadata(
            cc,
            "https://as/.well-known/oauth-authorization-server",
            "https://as",
        )
        .unwrap();
        assert!(s.offers_grant("client_credentials") && !s.offers_grant("authorization_code"));
        assert_eq!(s.authorization_endpoint, "");
        assert_eq!(
            s.token_endpoint_auth_signing_alg_values_supported,
            vec!["ES256".to_string()]
        );
        // The same document offering the code grant must still promise PKCE.
        let code = cc.replace(
            r#"["client_credentials"]"#,
            r#"["client_credentials","authorization_code"]"#,
        );
        assert_eq!(
            parse_server_metadata(&code, "https://as/m", "https://as"),
            Err(OAuthError::NoPkce {
                issuer: "https://as".into()
            })
        );
        // Not listing grants means the code grant (RFC 8414 §2).
        let plain = r#"{"issuer":"https://as","token_endpoint":"https://as/token","authorization_endpoint":"https://as/a","code_challenge_methods_supported":["S256"]}"#;
        assert!(parse_server_metadata(plain, "https://as/m", "https://as")
            .unwrap()
            .offers_grant("authorization_code"));
    }

    fn server() -> HttpUrl {
        HttpUrl::parse("https://mcp.example.com/mcp").unwrap()
    }

    #[test]
    fn reads_resource_metadata() {
        let body = r#"{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com/t1"],"scopes_supported":["files:read"],"bearer_methods_supported":["header"]}"#;
        let p = parse_resource_metadata(body, PRM_URL, &server()).unwrap();
        assert_eq!(p.resource, "https://mcp.example.com/mcp");
        assert_eq!(p.authorization_servers, vec!["https://auth.example.com/t1"]);
        assert_eq!(p.scopes_supported, Some(vec!["files:read".to_string()]));
    }

    #[test]
    fn root_resource_covers_the_endpoint_but_another_does_not() {
        let ok = r#"{"resource":"https://mcp.example.com","authorization_servers":["https://a"]}"#;
        assert_eq!(
            parse_resource_metadata(ok, PRM_URL, &server())
                .unwrap()
                .scopes_supported,
            None
        );
        for other in [
            "https://evil.example.com/mcp",
            "https://mcp.example.com/other",
            "https://mcp.example.com/mcp/deeper",
            "http://mcp.example.com/mcp",
        ] {
            let body = format!(r#"{{"resource":"{other}","authorization_servers":["https://a"]}}"#);
            assert!(
                matches!(
                    parse_resource_metadata(&body, PRM_URL, &server()),
                    Err(OAuthError::ResourceMismatch { .. })
                ),
                "{other}"
            );
        }
    }

    #[test]
    fn refuses_resource_metadata_without_what_the_flow_needs() {
        for (body, why) in [
            ("nope", "not JSON"),
            ("[]", "not a JSON object"),
            (r#"{"authorization_servers":["https://a"]}"#, "no resource"),
            (
                r#"{"resource":"https://mcp.example.com/mcp"}"#,
                "no authorization server",
            ),
            (
                r#"{"resource":"https://mcp.example.com/mcp","authorization_servers":[]}"#,
                "no authorization server",
            ),
            (
                r#"{"resource":"https://mcp.example.com/mcp","authorization_servers":"https://a"}"#,
                "not a list",
            ),
            (
                r#"{"resource":"https://mcp.example.com/mcp","authorization_servers":[1]}"#,
                "not a string",
            ),
        ] {
            let e = parse_resource_metadata(body, PRM_URL, &server()).unwrap_err();
            assert!(e.to_string().contains(why), "{body}: {e}");
        }
    }

    const AS: &str = r#"{
        "issuer": "https://auth.example.com/t1",
        "authorization_endpoint": "https://auth.example.com/t1/authorize",
        "token_endpoint": "https://auth.example.com/t1/token",
        "registration_endpoint": "https://auth.example.com/t1/register",
        "revocation_endpoint": "https://auth.example.com/t1/revoke",
        "code_challenge_methods_supported": ["plain", "S256"],
        "client_id_metadata_document_supported": true,
        "authorization_response_iss_parameter_supported": true,
        "scopes_supported": ["openid", "offline_access"]
    }"#;
    const AS_URL: &str = "https://auth.example.com/.well-known/oauth-authorization-server/t1";

    #[test]
    fn reads_server_metadata() {
        let a = parse_server_metadata(AS, AS_URL, "https://auth.example.com/t1").unwrap();
        assert_eq!(a.token_endpoint, "https://auth.example.com/t1/token");
        assert_eq!(
            a.registration_endpoint.as_deref(),
            Some("https://auth.example.com/t1/register")
        );
        assert_eq!(
            a.revocation_endpoint.as_deref(),
            Some("https://auth.example.com/t1/revoke")
        );
        assert!(a.client_id_metadata_document_supported);
        assert!(a.authorization_response_iss_parameter_supported);
    }

    #[test]
    fn issuer_must_be_identical() {
        for expected in [
            "https://auth.example.com/t1/",
            "https://AUTH.example.com/t1",
            "https://auth.example.com",
        ] {
            assert_eq!(
                parse_server_metadata(AS, AS_URL, expected),
                Err(OAuthError::IssuerMismatch {
                    expected: expected.into(),
                    found: "https://auth.example.com/t1".into()
                })
            );
        }
    }

    #[test]
    fn refuses_without_s256() {
        for methods in [
            "",
            r#","code_challenge_methods_supported":["plain"]"#,
            r#","code_challenge_methods_supported":null"#,
        ] {
            let body = format!(
                r#"{{"issuer":"https://a.com","authorization_endpoint":"https://a.com/x","token_endpoint":"https://a.com/t"{methods}}}"#
            );
            let e = parse_server_metadata(&body, "u", "https://a.com").unwrap_err();
            assert_eq!(
                e,
                OAuthError::NoPkce {
                    issuer: "https://a.com".into()
                }
            );
            assert!(e.to_string().contains("not supported"), "{e}");
        }
    }

    #[test]
    fn refuses_plain_http_endpoints_off_loopback() {
        let body = r#"{"issuer":"https://a.com","authorization_endpoint":"https://a.com/x","token_endpoint":"http://a.com/t","code_challenge_methods_supported":["S256"]}"#;
        assert_eq!(
            parse_server_metadata(body, "u", "https://a.com"),
            Err(OAuthError::InsecureEndpoint {
                url: "http://a.com/t".into()
            })
        );
        let local = r#"{"issuer":"http://127.0.0.1:9000","authorization_endpoint":"http://127.0.0.1:9000/a","token_endpoint":"http://127.0.0.1:9000/t","code_challenge_methods_supported":["S256"]}"#;
        let a = parse_server_metadata(local, "u", "http://127.0.0.1:9000").unwrap();
        assert!(!a.client_id_metadata_document_supported);
        assert_eq!(a.registration_endpoint, None);
    }

    #[test]
    fn refuses_missing_endpoints() {
        let body = r#"{"issuer":"https://a.com","token_endpoint":"https://a.com/t","code_challenge_methods_supported":["S256"]}"#;
        let e = parse_server_metadata(body, "u", "https://a.com").unwrap_err();
        assert!(e.to_string().contains("authorization_endpoint"), "{e}");
    }

    #[test]
    fn legacy_metadata_may_name_a_path_on_its_own_origin_only() {
        let doc = |issuer: &str| {
            format!(
                r#"{{"issuer":"{issuer}","authorization_endpoint":"http://127.0.0.1:3000/oauth/authorize","token_endpoint":"http://127.0.0.1:3000/oauth/token","code_challenge_methods_supported":["S256"]}}"#
            )
        };
        let a = parse_legacy_server_metadata(
            &doc("http://127.0.0.1:3000/oauth"),
            "u",
            "http://127.0.0.1:3000",
        )
        .unwrap();
        assert_eq!(a.issuer, "http://127.0.0.1:3000/oauth");
        assert_eq!(
            parse_legacy_server_metadata(
                &doc("http://127.0.0.1:4000"),
                "u",
                "http://127.0.0.1:3000"
            ),
            Err(OAuthError::IssuerMismatch {
                expected: "http://127.0.0.1:3000".into(),
                found: "http://127.0.0.1:4000".into()
            })
        );
    }

    proptest! {
        #[test]
        fn hostile_documents_never_panic(s in "\\PC{0,120}") {
            let _ = parse_resource_metadata(&s, "u", &server());
            let _ = parse_server_metadata(&s, "u", "https://a.com");
        }
    }
}
