//! `AuthMachine` driven through whole sign-ins with scripted answers: exact URLs, exact form
//! bodies, and every failure the card must be able to explain.

use sha2::{Digest, Sha256};

use super::client::{AppIdentity, ClientIdentity};
use super::credentials::Credentials;
use super::error::{Endpoint, OAuthError};
use super::machine::{AuthMachine, MAX_STEP_UPS, REFRESH_RETRY_MS};
use super::machine_types::{
    Access, AuthCommand, AuthSetup, AuthStatus, FetchFailure, FetchId, PendingAuthorization,
};
use super::pkce::{Pkce, Verifier};
use crate::http::{HttpRequest, Method};

const MCP: &str = "https://mcp.example.com/mcp";
const ISSUER: &str = "https://auth.example.com/t1";
const PRM_URL: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
const PRM: &str = r#"{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com/t1"],"scopes_supported":["files:read"]}"#;

fn as_doc(cimd: bool, registration: bool) -> String {
    let mut doc = serde_json::json!({
        "issuer": ISSUER,
        "authorization_endpoint": "https://auth.example.com/t1/authorize",
        "token_endpoint": "https://auth.example.com/t1/token",
        "revocation_endpoint": "https://auth.example.com/t1/revoke",
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": true,
        "scopes_supported": ["files:read", "files:write", "offline_access"],
        "client_id_metadata_document_supported": cimd,
    });
    if registration {
        doc["registration_endpoint"] = "https://auth.example.com/t1/register".into();
    }
    doc.to_string()
}

fn setup() -> AuthSetup {
    AuthSetup {
        server_url: MCP.into(),
        app: AppIdentity::for_origin("https://skiff.example"),
        client_id: None,
        client_secret: None,
        proxy: None,
        stored: None,
        pending: None,
        legacy_fallback: false,
        grant: Default::default(),
    }
}

fn drain(m: &mut AuthMachine) -> Vec<AuthCommand> {
    std::iter::from_fn(|| m.poll_command()).collect()
}

/// The one fetch among `cmds`, checked to be `method url`.
fn fetch_of(cmds: &[AuthCommand], method: Method, url: &str) -> (FetchId, HttpRequest) {
    let fetches: Vec<_> = cmds
        .iter()
        .filter_map(|c| match c {
            AuthCommand::Fetch { id, request } => Some((*id, request.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(fetches.len(), 1, "expected one fetch in {cmds:#?}");
    let (id, r) = fetches.into_iter().next().unwrap();
    assert_eq!((r.method, r.url.as_str()), (method, url), "{cmds:#?}");
    (id, r)
}

fn rfc_pkce() -> Pkce {
    let bytes: [u8; 32] = [
        116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37,
        77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121,
    ];
    let v = Verifier::from_random(&bytes);
    let digest: [u8; 32] = Sha256::digest(v.as_str().as_bytes()).into();
    v.with_digest(&digest)
}

fn statuses(cmds: &[AuthCommand]) -> Vec<&'static str> {
    cmds.iter()
        .filter_map(|c| match c {
            AuthCommand::Status(s) => Some(s.as_str()),
            _ => None,
        })
        .collect()
}

fn failed_with(cmds: &[AuthCommand]) -> Option<OAuthError> {
    cmds.iter().find_map(|c| match c {
        AuthCommand::Status(AuthStatus::Failed(e)) => Some(e.clone()),
        _ => None,
    })
}

/// Drive a fresh machine from a 401 to the authorization server's metadata being read.
fn to_server_metadata(m: &mut AuthMachine, as_body: &str) -> Vec<AuthCommand> {
    m.handle_unauthorized(
        0.0,
        1,
        None,
        &[&format!(r#"Bearer resource_metadata="{PRM_URL}""#)],
    );
    let cmds = drain(m);
    let (id, _) = fetch_of(&cmds, Method::Get, PRM_URL);
    m.handle_response(0.0, id, 200, PRM);
    let cmds = drain(m);
    let (id, _) = fetch_of(
        &cmds,
        Method::Get,
        "https://auth.example.com/.well-known/oauth-authorization-server/t1",
    );
    m.handle_response(0.0, id, 200, as_body);
    drain(m)
}

const TOKEN_BODY_1: &str = "grant_type=authorization_code&code=abc\
    &redirect_uri=https%3A%2F%2Fskiff.example%2Foauth%2Fcallback.html\
    &code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk\
    &resource=https%3A%2F%2Fmcp.example.com%2Fmcp&client_id=c-123";

#[test]
fn full_flow_discovery_registration_authorize_token_refresh_step_up_sign_out() {
    let mut m = AuthMachine::new(setup());
    assert_eq!(
        drain(&mut m),
        vec![AuthCommand::Status(AuthStatus::SignedOut)]
    );
    assert_eq!(m.access(0.0, 1, MCP), Access::Anonymous);

    // 401 with a challenge: the request fails with "sign in", discovery starts at the header.
    m.handle_unauthorized(
        0.0,
        1,
        None,
        &[&format!(
            r#"Bearer resource_metadata="{PRM_URL}", scope="files:read""#
        )],
    );
    let cmds = drain(&mut m);
    assert!(cmds.contains(&AuthCommand::Fail {
        waiter: 1,
        error: OAuthError::SignInRequired
    }));
    assert_eq!(statuses(&cmds), vec!["preparing"]);
    let (id, _) = fetch_of(&cmds, Method::Get, PRM_URL);
    m.handle_response(0.0, id, 200, PRM);

    // RFC 8414 path insertion answers 404; OpenID Connect path insertion is next.
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(
        &cmds,
        Method::Get,
        "https://auth.example.com/.well-known/oauth-authorization-server/t1",
    );
    m.handle_response(0.0, id, 404, "not found");
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(
        &cmds,
        Method::Get,
        "https://auth.example.com/.well-known/openid-configuration/t1",
    );
    m.handle_response(0.0, id, 200, &as_doc(false, true));

    // No CIMD support: dynamic registration.
    let cmds = drain(&mut m);
    let (id, req) = fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/register");
    assert!(req
        .body
        .unwrap()
        .contains(r#""token_endpoint_auth_method":"none""#));
    m.handle_response(0.0, id, 201, r#"{"client_id":"c-123"}"#);
    assert_eq!(drain(&mut m), vec![AuthCommand::PreparePkce]);

    m.handle_pkce(0.0, rfc_pkce(), "st8".into());
    assert_eq!(
        drain(&mut m),
        vec![AuthCommand::Status(AuthStatus::SignInRequired {
            issuer: ISSUER.into(),
            scopes: vec!["files:read".into(), "offline_access".into()],
        })]
    );

    m.sign_in(0.0);
    let cmds = drain(&mut m);
    let url = cmds
        .iter()
        .find_map(|c| match c {
            AuthCommand::OpenAuthorization { url, .. } => Some(url.clone()),
            _ => None,
        })
        .expect("opens the authorization page");
    assert_eq!(
        url,
        "https://auth.example.com/t1/authorize?response_type=code&client_id=c-123\
         &redirect_uri=https%3A%2F%2Fskiff.example%2Foauth%2Fcallback.html\
         &code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256\
         &state=st8&scope=files%3Aread%20offline_access\
         &resource=https%3A%2F%2Fmcp.example.com%2Fmcp"
    );
    assert_eq!(statuses(&cmds), vec!["waiting-for-user"]);

    m.handle_callback(
        500.0,
        "https://skiff.example/oauth/callback.html?code=abc&state=st8&iss=https%3A%2F%2Fauth.example.com%2Ft1",
    );
    let cmds = drain(&mut m);
    assert!(cmds.contains(&AuthCommand::CloseAuthorization));
    let (id, req) = fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/token");
    assert_eq!(req.body.as_deref(), Some(TOKEN_BODY_1));
    m.handle_response(
        1_000.0,
        id,
        200,
        r#"{"access_token":"at1","token_type":"Bearer","expires_in":3600,"refresh_token":"rt1","scope":"files:read offline_access"}"#,
    );
    let cmds = drain(&mut m);
    let stored = cmds
        .iter()
        .find_map(|c| match c {
            AuthCommand::Store(c) => Some(c.clone()),
            _ => None,
        })
        .expect("stores the credentials");
    assert_eq!(stored.issuer, ISSUER);
    assert_eq!(stored.resource, MCP);
    assert_eq!(
        stored.client,
        ClientIdentity::Registered {
            client_id: "c-123".into(),
            secret: None
        }
    );
    assert_eq!(stored.expires_at_ms, Some(3_601_000.0));
    assert_eq!(statuses(&cmds), vec!["signed-in"]);

    // The token goes to its resource only.
    assert_eq!(
        m.access(2_000.0, 2, MCP),
        Access::Bearer("Bearer at1".into())
    );
    assert_eq!(
        m.access(2_000.0, 2, "https://mcp.example.com/other"),
        Access::Anonymous
    );
    assert_eq!(
        m.access(2_000.0, 2, "https://evil.example.com/mcp"),
        Access::Anonymous
    );

    // 401 for the current token: one refresh, requests wait on it.
    m.handle_unauthorized(
        2_000.0,
        2,
        Some("Bearer at1"),
        &[r#"Bearer error="invalid_token""#],
    );
    assert_eq!(m.access(2_001.0, 3, MCP), Access::Wait);
    let cmds = drain(&mut m);
    let (id, req) = fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/token");
    assert_eq!(
        req.body.as_deref(),
        Some("grant_type=refresh_token&refresh_token=rt1&resource=https%3A%2F%2Fmcp.example.com%2Fmcp&client_id=c-123")
    );
    m.handle_response(
        3_000.0,
        id,
        200,
        r#"{"access_token":"at2","token_type":"Bearer","expires_in":3600}"#,
    );
    let cmds = drain(&mut m);
    assert!(cmds.contains(&AuthCommand::Resume {
        waiter: 2,
        authorization: "Bearer at2".into()
    }));
    assert!(cmds.contains(&AuthCommand::Resume {
        waiter: 3,
        authorization: "Bearer at2".into()
    }));
    assert_eq!(
        m.credentials().unwrap().refresh_token.as_deref(),
        Some("rt1")
    );

    // A 401 for the old token after the refresh: resend with the new one, no second refresh.
    m.handle_unauthorized(3_001.0, 4, Some("Bearer at1"), &[]);
    assert_eq!(
        drain(&mut m),
        vec![AuthCommand::Resume {
            waiter: 4,
            authorization: "Bearer at2".into()
        }]
    );

    // Refresh a little before expiry, on the timer.
    let at = m.poll_timeout().unwrap();
    assert_eq!(at, 3_000.0 + 3_600_000.0 - 60_000.0);
    m.handle_timeout(at - 1.0);
    assert!(drain(&mut m).is_empty());
    m.handle_timeout(at);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/token");
    assert_eq!(m.poll_timeout(), None, "no timer while a refresh runs");
    m.handle_response(
        at,
        id,
        200,
        r#"{"access_token":"at3","token_type":"Bearer","expires_in":3600,"refresh_token":"rt2"}"#,
    );
    drain(&mut m);
    assert_eq!(m.access(at, 5, MCP), Access::Bearer("Bearer at3".into()));

    // 403 insufficient_scope: step up to the union, straight to PKCE (discovery is known).
    assert!(m.handle_forbidden(
        at,
        6,
        &[r#"Bearer error="insufficient_scope", scope="files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp""#]
    ));
    let cmds = drain(&mut m);
    assert!(cmds.contains(&AuthCommand::Fail {
        waiter: 6,
        error: OAuthError::SignInRequired
    }));
    assert!(cmds.contains(&AuthCommand::PreparePkce));
    assert!(!cmds.iter().any(|c| matches!(c, AuthCommand::Fetch { .. })));
    m.handle_pkce(at, rfc_pkce(), "st9".into());
    let cmds = drain(&mut m);
    assert!(
        cmds.contains(&AuthCommand::Status(AuthStatus::SignInRequired {
            issuer: ISSUER.into(),
            scopes: vec![
                "files:read".into(),
                "offline_access".into(),
                "files:write".into()
            ],
        }))
    );
    // Still signed in meanwhile: the old token keeps working for what it covers.
    assert_eq!(m.access(at, 7, MCP), Access::Bearer("Bearer at3".into()));
    m.sign_in(at);
    let cmds = drain(&mut m);
    let AuthCommand::OpenAuthorization { url, .. } = cmds
        .iter()
        .find(|c| matches!(c, AuthCommand::OpenAuthorization { .. }))
        .unwrap()
    else {
        unreachable!()
    };
    assert!(
        url.contains("&state=st9&scope=files%3Aread%20offline_access%20files%3Awrite&"),
        "{url}"
    );
    m.handle_callback(at, "https://skiff.example/oauth/callback.html?code=def&state=st9&iss=https%3A%2F%2Fauth.example.com%2Ft1");
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/token");
    m.handle_response(
        at,
        id,
        200,
        r#"{"access_token":"at4","token_type":"Bearer","expires_in":3600,"refresh_token":"rt3"}"#,
    );
    drain(&mut m);
    assert_eq!(
        m.credentials().unwrap().scopes,
        vec!["files:read", "offline_access", "files:write"]
    );

    // Sign out: revoke both tokens (RFC 7009), delete, signed out.
    m.sign_out(at);
    let cmds = drain(&mut m);
    let bodies: Vec<_> = cmds
        .iter()
        .filter_map(|c| match c {
            AuthCommand::Fetch { request, .. } => {
                assert_eq!(request.url, "https://auth.example.com/t1/revoke");
                request.body.clone()
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        bodies,
        vec![
            "token=rt3&token_type_hint=refresh_token&client_id=c-123",
            "token=at4&token_type_hint=access_token&client_id=c-123",
        ]
    );
    assert!(cmds.contains(&AuthCommand::Delete {
        issuer: ISSUER.into(),
        resource: MCP.into()
    }));
    assert_eq!(statuses(&cmds), vec!["signed-out"]);
    assert_eq!(m.access(at, 8, MCP), Access::Anonymous);
}

#[test]
fn well_known_fallback_order_without_a_header() {
    let mut m = AuthMachine::new(AuthSetup {
        server_url: "https://mcp.example.com/public/mcp".into(),
        ..setup()
    });
    drain(&mut m);
    m.handle_unauthorized(0.0, 1, None, &["Bearer"]);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(
        &cmds,
        Method::Get,
        "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp",
    );
    m.handle_response(0.0, id, 404, "");
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(
        &cmds,
        Method::Get,
        "https://mcp.example.com/.well-known/oauth-protected-resource",
    );
    m.handle_response(0.0, id, 404, "");
    let cmds = drain(&mut m);
    assert_eq!(
        failed_with(&cmds),
        Some(OAuthError::NoResourceMetadata {
            tried: vec![
                "https://mcp.example.com/.well-known/oauth-protected-resource/public/mcp".into(),
                "https://mcp.example.com/.well-known/oauth-protected-resource".into(),
            ]
        })
    );
}

#[test]
fn issuer_without_a_path_tries_oauth_then_openid() {
    let mut m = AuthMachine::new(setup());
    m.handle_unauthorized(0.0, 1, None, &[]);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Get, PRM_URL);
    m.handle_response(0.0, id, 200, r#"{"resource":"https://mcp.example.com","authorization_servers":["https://as.example.com"]}"#);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(
        &cmds,
        Method::Get,
        "https://as.example.com/.well-known/oauth-authorization-server",
    );
    m.handle_fetch_failed(0.0, id, FetchFailure::Cors);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(
        &cmds,
        Method::Get,
        "https://as.example.com/.well-known/openid-configuration",
    );
    m.handle_response(0.0, id, 404, "");
    // Both failed; the CORS failure is the cause worth showing.
    let e = failed_with(&drain(&mut m)).unwrap();
    assert_eq!(
        e,
        OAuthError::BlockedByCors {
            url: "https://as.example.com/.well-known/oauth-authorization-server".into(),
            endpoint: Endpoint::ServerMetadata
        }
    );
}

#[test]
fn metadata_document_or_pre_registered_id_needs_no_registration() {
    let mut m = AuthMachine::new(setup());
    let cmds = to_server_metadata(&mut m, &as_doc(true, true));
    assert_eq!(cmds, vec![AuthCommand::PreparePkce]);
    m.handle_pkce(0.0, rfc_pkce(), "s".into());
    m.sign_in(0.0);
    let cmds = drain(&mut m);
    assert!(cmds
        .iter()
        .any(|c| matches!(c, AuthCommand::OpenAuthorization { url, .. }
        if url.contains("client_id=https%3A%2F%2Fskiff.example%2Foauth%2Fclient-metadata.json&"))));

    let mut m = AuthMachine::new(AuthSetup {
        client_id: Some("mine".into()),
        ..setup()
    });
    assert_eq!(
        to_server_metadata(&mut m, &as_doc(true, true)),
        vec![AuthCommand::PreparePkce]
    );
    m.handle_pkce(0.0, rfc_pkce(), "s".into());
    m.sign_in(0.0);
    assert!(drain(&mut m)
        .iter()
        .any(|c| matches!(c, AuthCommand::OpenAuthorization { url, .. }
        if url.contains("client_id=mine&"))));
}

#[test]
fn sign_in_pressed_early_opens_as_soon_as_ready() {
    let mut m = AuthMachine::new(setup());
    drain(&mut m);
    m.sign_in(0.0);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Get, PRM_URL);
    m.handle_response(0.0, id, 200, PRM);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(
        &cmds,
        Method::Get,
        "https://auth.example.com/.well-known/oauth-authorization-server/t1",
    );
    m.handle_response(0.0, id, 200, &as_doc(true, false));
    drain(&mut m);
    m.handle_pkce(0.0, rfc_pkce(), "s".into());
    let cmds = drain(&mut m);
    assert!(
        cmds.iter()
            .any(|c| matches!(c, AuthCommand::OpenAuthorization { .. })),
        "{cmds:#?}"
    );
    assert_eq!(statuses(&cmds), vec!["waiting-for-user"]);
}

#[test]
fn refusals_that_stop_the_flow_say_why() {
    // No S256.
    let mut m = AuthMachine::new(setup());
    let doc = as_doc(true, true).replace(r#"["S256"]"#, r#"["plain"]"#);
    let e = failed_with(&to_server_metadata(&mut m, &doc)).unwrap();
    assert_eq!(
        e,
        OAuthError::NoPkce {
            issuer: ISSUER.into()
        }
    );

    // Metadata for another issuer.
    let mut m = AuthMachine::new(setup());
    let doc = as_doc(true, true).replace(
        "\"issuer\":\"https://auth.example.com/t1\"",
        "\"issuer\":\"https://evil.example.com\"",
    );
    assert!(matches!(
        failed_with(&to_server_metadata(&mut m, &doc)),
        Some(OAuthError::IssuerMismatch { .. })
    ));

    // Nothing to identify with.
    let mut m = AuthMachine::new(setup());
    let e = failed_with(&to_server_metadata(&mut m, &as_doc(false, false))).unwrap();
    assert_eq!(
        e,
        OAuthError::NoClientIdentity {
            issuer: ISSUER.into()
        }
    );

    // Resource metadata for another server.
    let mut m = AuthMachine::new(setup());
    m.handle_unauthorized(0.0, 1, None, &[]);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Get, PRM_URL);
    m.handle_response(
        0.0,
        id,
        200,
        &PRM.replace("mcp.example.com/mcp", "evil.example.com/mcp"),
    );
    assert!(matches!(
        failed_with(&drain(&mut m)),
        Some(OAuthError::ResourceMismatch { .. })
    ));
}

/// A machine waiting for the callback of a CIMD sign-in with state `s`.
fn at_callback() -> AuthMachine {
    let mut m = AuthMachine::new(setup());
    to_server_metadata(&mut m, &as_doc(true, false));
    m.handle_pkce(0.0, rfc_pkce(), "s".into());
    m.sign_in(0.0);
    drain(&mut m);
    m
}

#[test]
fn callback_failures() {
    for (url, want) in [
        ("https://skiff.example/oauth/callback.html?error=access_denied&state=s&iss=https%3A%2F%2Fauth.example.com%2Ft1", OAuthError::Declined),
        ("https://skiff.example/oauth/callback.html?code=x&state=other&iss=https%3A%2F%2Fauth.example.com%2Ft1", OAuthError::StateMismatch),
        (
            "https://skiff.example/oauth/callback.html?code=x&state=s&iss=https%3A%2F%2Fevil.example.com",
            OAuthError::CallbackIssuerMismatch { expected: ISSUER.into(), found: Some("https://evil.example.com".into()) },
        ),
        (
            // The server promised `iss`; an answer without it is refused.
            "https://skiff.example/oauth/callback.html?code=x&state=s",
            OAuthError::CallbackIssuerMismatch { expected: ISSUER.into(), found: None },
        ),
    ] {
        let mut m = at_callback();
        m.handle_callback(0.0, url);
        let cmds = drain(&mut m);
        assert_eq!(failed_with(&cmds), Some(want), "{url}");
        assert!(!cmds.iter().any(|c| matches!(c, AuthCommand::Fetch { .. })), "no code leaves: {url}");
        // A second callback is not waited for.
        m.handle_callback(0.0, "https://skiff.example/oauth/callback.html?code=x&state=s&iss=https%3A%2F%2Fauth.example.com%2Ft1");
        assert!(drain(&mut m).is_empty());
    }
}

#[test]
fn token_endpoint_blocked_by_cors_points_at_the_proxy() {
    let mut m = at_callback();
    m.handle_callback(0.0, "https://skiff.example/oauth/callback.html?code=x&state=s&iss=https%3A%2F%2Fauth.example.com%2Ft1");
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/token");
    m.handle_fetch_failed(0.0, id, FetchFailure::Cors);
    let e = failed_with(&drain(&mut m)).unwrap();
    assert_eq!(
        e,
        OAuthError::BlockedByCors {
            url: "https://auth.example.com/t1/token".into(),
            endpoint: Endpoint::Token
        }
    );
    assert!(e.to_string().contains("CORS proxy"));
    // Sign in again starts over from the known flow.
    m.sign_in(0.0);
    assert!(drain(&mut m).contains(&AuthCommand::PreparePkce));
}

#[test]
fn the_proxy_carries_fetches_but_not_the_authorization_page() {
    let mut m = AuthMachine::new(AuthSetup {
        proxy: Some("https://proxy.example/?url=".into()),
        ..setup()
    });
    m.handle_unauthorized(
        0.0,
        1,
        None,
        &[&format!(r#"Bearer resource_metadata="{PRM_URL}""#)],
    );
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(
        &cmds,
        Method::Get,
        &format!("https://proxy.example/?url={PRM_URL}"),
    );
    m.handle_response(0.0, id, 200, PRM);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Get, "https://proxy.example/?url=https://auth.example.com/.well-known/oauth-authorization-server/t1");
    m.handle_response(0.0, id, 200, &as_doc(true, false));
    drain(&mut m);
    m.handle_pkce(0.0, rfc_pkce(), "s".into());
    m.sign_in(0.0);
    assert!(drain(&mut m)
        .iter()
        .any(|c| matches!(c, AuthCommand::OpenAuthorization { url, .. }
        if url.starts_with("https://auth.example.com/t1/authorize?"))));
}

fn stored(expires_in_ms: Option<f64>, refresh: bool) -> Credentials {
    Credentials {
        issuer: ISSUER.into(),
        resource: MCP.into(),
        client: ClientIdentity::PreRegistered {
            client_id: "cid".into(),
            secret: None,
        },
        token_endpoint: "https://auth.example.com/t1/token".into(),
        revocation_endpoint: None,
        access_token: "old".into(),
        refresh_token: refresh.then(|| "rt".into()),
        issued_at_ms: 0.0,
        expires_at_ms: expires_in_ms,
        scopes: vec!["files:read".into()],
        grant: Default::default(),
        token_type: Default::default(),
    }
}

#[test]
fn stored_credentials_are_used_and_refreshed_before_use_when_due() {
    let mut m = AuthMachine::new(AuthSetup {
        stored: Some(stored(Some(100_000.0), true)),
        ..setup()
    });
    assert!(matches!(
        drain(&mut m)[..],
        [AuthCommand::Status(AuthStatus::SignedIn { .. })]
    ));
    assert_eq!(m.poll_timeout(), Some(90_000.0));
    assert_eq!(m.access(1.0, 1, MCP), Access::Bearer("Bearer old".into()));
    // Due: the request waits for the refresh instead of going out with a dying token.
    assert_eq!(m.access(95_000.0, 2, MCP), Access::Wait);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/token");
    // The refresh finds no network, but the token is still valid: the request goes with it.
    m.handle_fetch_failed(95_000.0, id, FetchFailure::Network("offline".into()));
    assert_eq!(
        drain(&mut m),
        vec![AuthCommand::Resume {
            waiter: 2,
            authorization: "Bearer old".into()
        }]
    );
    assert_eq!(m.poll_timeout(), Some(95_000.0 + REFRESH_RETRY_MS));
    assert_eq!(
        m.access(96_000.0, 3, MCP),
        Access::Bearer("Bearer old".into())
    );
}

#[test]
fn refused_refresh_drops_the_credentials_and_asks_to_sign_in() {
    let mut m = AuthMachine::new(AuthSetup {
        stored: Some(stored(Some(100_000.0), true)),
        ..setup()
    });
    drain(&mut m);
    m.handle_unauthorized(1.0, 1, Some("Bearer old"), &[]);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/token");
    m.handle_response(2.0, id, 400, r#"{"error":"invalid_grant"}"#);
    let cmds = drain(&mut m);
    assert!(cmds.contains(&AuthCommand::Delete {
        issuer: ISSUER.into(),
        resource: MCP.into()
    }));
    assert!(cmds.contains(&AuthCommand::Fail {
        waiter: 1,
        error: OAuthError::SignInRequired
    }));
    assert_eq!(statuses(&cmds), vec!["preparing"]);
    fetch_of(&cmds, Method::Get, PRM_URL);
    assert_eq!(m.access(3.0, 2, MCP), Access::Anonymous);
}

#[test]
fn no_refresh_token_means_a_401_asks_to_sign_in() {
    let mut m = AuthMachine::new(AuthSetup {
        stored: Some(stored(None, false)),
        ..setup()
    });
    drain(&mut m);
    assert_eq!(m.poll_timeout(), None);
    m.handle_unauthorized(1.0, 1, Some("Bearer old"), &[]);
    let cmds = drain(&mut m);
    assert!(cmds.contains(&AuthCommand::Delete {
        issuer: ISSUER.into(),
        resource: MCP.into()
    }));
    assert!(cmds.contains(&AuthCommand::Fail {
        waiter: 1,
        error: OAuthError::SignInRequired
    }));
}

#[test]
fn step_up_gives_up_after_a_few_tries_for_the_same_scopes() {
    let mut m = AuthMachine::new(AuthSetup {
        stored: Some(stored(None, false)),
        ..setup()
    });
    drain(&mut m);
    let h = [r#"Bearer error="insufficient_scope", scope="files:write""#];
    for _ in 0..MAX_STEP_UPS {
        assert!(m.handle_forbidden(0.0, 1, &h));
        assert!(drain(&mut m).contains(&AuthCommand::Fail {
            waiter: 1,
            error: OAuthError::SignInRequired
        }));
    }
    assert!(m.handle_forbidden(0.0, 1, &h));
    assert!(drain(&mut m).contains(&AuthCommand::Fail {
        waiter: 1,
        error: OAuthError::StepUpExhausted {
            scopes: vec!["files:read".into(), "files:write".into()]
        }
    }));
    // A 403 that is not about scope is not the machine's.
    assert!(!m.handle_forbidden(0.0, 2, &[r#"Bearer error="invalid_token""#]));
    assert!(!m.handle_forbidden(0.0, 2, &[]));
}

#[test]
fn a_full_page_redirect_resumes_from_the_saved_request() {
    let mut m = at_callback();
    drain(&mut m);
    // What OpenAuthorization handed out, as if saved to session storage before the redirect.
    let mut first = AuthMachine::new(setup());
    to_server_metadata(&mut first, &as_doc(true, false));
    first.handle_pkce(0.0, rfc_pkce(), "s".into());
    first.sign_in(0.0);
    let pending: PendingAuthorization = drain(&mut first)
        .into_iter()
        .find_map(|c| match c {
            AuthCommand::OpenAuthorization { pending, .. } => Some(pending),
            _ => None,
        })
        .unwrap();
    let saved = serde_json::to_string(&pending).unwrap();
    let mut after = AuthMachine::new(AuthSetup {
        pending: Some(serde_json::from_str(&saved).unwrap()),
        ..setup()
    });
    assert_eq!(statuses(&drain(&mut after)), vec!["waiting-for-user"]);
    after.handle_callback(0.0, "https://skiff.example/oauth/callback.html?code=x&state=s&iss=https%3A%2F%2Fauth.example.com%2Ft1");
    let cmds = drain(&mut after);
    let (_, req) = fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/token");
    assert!(req
        .body
        .unwrap()
        .contains("code_verifier=dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"));
}

#[test]
fn stale_answers_are_ignored() {
    let mut m = AuthMachine::new(setup());
    m.handle_response(0.0, 99, 200, PRM);
    m.handle_fetch_failed(0.0, 98, FetchFailure::Cors);
    m.handle_pkce(0.0, rfc_pkce(), "s".into());
    m.handle_callback(
        0.0,
        "https://skiff.example/oauth/callback.html?code=x&state=s",
    );
    assert_eq!(
        drain(&mut m),
        vec![AuthCommand::Status(AuthStatus::SignedOut)]
    );
}

#[test]
fn legacy_servers_without_resource_metadata_use_their_origin() {
    let mut m = AuthMachine::new(AuthSetup {
        server_url: "http://127.0.0.1:3000/mcp".into(),
        legacy_fallback: true,
        ..setup()
    });
    drain(&mut m);
    m.handle_unauthorized(0.0, 1, None, &["Bearer"]);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(
        &cmds,
        Method::Get,
        "http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp",
    );
    m.handle_response(0.0, id, 404, "");
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(
        &cmds,
        Method::Get,
        "http://127.0.0.1:3000/.well-known/oauth-protected-resource",
    );
    m.handle_response(0.0, id, 404, "");
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(
        &cmds,
        Method::Get,
        "http://127.0.0.1:3000/.well-known/oauth-authorization-server",
    );
    m.handle_response(
        0.0,
        id,
        200,
        r#"{"issuer":"http://127.0.0.1:3000/oauth","authorization_endpoint":"http://127.0.0.1:3000/oauth/authorize","token_endpoint":"http://127.0.0.1:3000/oauth/token","registration_endpoint":"http://127.0.0.1:3000/oauth/register","code_challenge_methods_supported":["S256"]}"#,
    );
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Post, "http://127.0.0.1:3000/oauth/register");
    m.handle_response(0.0, id, 201, r#"{"client_id":"legacy"}"#);
    drain(&mut m);
    m.handle_pkce(0.0, rfc_pkce(), "s".into());
    m.sign_in(0.0);
    assert!(drain(&mut m).iter().any(|c| matches!(c, AuthCommand::OpenAuthorization { url, .. }
        if url.starts_with("http://127.0.0.1:3000/oauth/authorize?response_type=code&client_id=legacy&")
            && url.ends_with("&resource=http%3A%2F%2F127.0.0.1%3A3000%2Fmcp"))));
}

#[test]
fn legacy_servers_without_any_metadata_use_the_default_endpoints() {
    let mut m = AuthMachine::new(AuthSetup {
        server_url: "http://localhost:3000/mcp".into(),
        legacy_fallback: true,
        ..setup()
    });
    m.handle_unauthorized(0.0, 1, None, &[]);
    for url in [
        "http://localhost:3000/.well-known/oauth-protected-resource/mcp",
        "http://localhost:3000/.well-known/oauth-protected-resource",
        "http://localhost:3000/.well-known/oauth-authorization-server",
        "http://localhost:3000/.well-known/openid-configuration",
    ] {
        let cmds = drain(&mut m);
        let (id, _) = fetch_of(&cmds, Method::Get, url);
        m.handle_response(0.0, id, 404, "");
    }
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Post, "http://localhost:3000/register");
    m.handle_response(0.0, id, 201, r#"{"client_id":"c","client_secret":"s"}"#);
    drain(&mut m);
    m.handle_pkce(0.0, rfc_pkce(), "s".into());
    m.sign_in(0.0);
    assert!(drain(&mut m)
        .iter()
        .any(|c| matches!(c, AuthCommand::OpenAuthorization { url, .. }
        if url.starts_with("http://localhost:3000/authorize?"))));
    m.handle_callback(
        0.0,
        "http://localhost:8080/oauth/callback.html?code=test-auth-code&state=s",
    );
    let cmds = drain(&mut m);
    let (_, req) = fetch_of(&cmds, Method::Post, "http://localhost:3000/token");
    // The registration gave a secret and no method: HTTP Basic, RFC 7591's default.
    assert_eq!(req.header("authorization"), Some("Basic Yzpz"));
}

#[test]
fn a_server_error_during_discovery_does_not_fall_back_to_legacy() {
    let mut m = AuthMachine::new(AuthSetup {
        legacy_fallback: true,
        ..setup()
    });
    m.handle_unauthorized(0.0, 1, None, &[]);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Get, PRM_URL);
    m.handle_response(0.0, id, 503, "");
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(
        &cmds,
        Method::Get,
        "https://mcp.example.com/.well-known/oauth-protected-resource",
    );
    m.handle_response(0.0, id, 404, "");
    assert_eq!(
        failed_with(&drain(&mut m)),
        Some(OAuthError::Http {
            url: PRM_URL.into(),
            status: 503,
            endpoint: Endpoint::ResourceMetadata
        })
    );
}

#[test]
fn a_401_for_a_request_sent_without_the_token_keeps_the_credentials() {
    let mut m = AuthMachine::new(AuthSetup {
        stored: Some(stored(None, true)),
        ..setup()
    });
    drain(&mut m);
    // A URL outside the resource got no token and was refused: signing in again would give
    // the same resource, so the credentials stay.
    assert_eq!(
        m.access(0.0, 1, "https://mcp.example.com/elsewhere"),
        Access::Anonymous
    );
    m.handle_unauthorized(0.0, 1, None, &[]);
    assert_eq!(
        drain(&mut m),
        vec![AuthCommand::Fail {
            waiter: 1,
            error: OAuthError::NotCovered
        }]
    );
    assert!(m.credentials().is_some());
}

#[test]
fn a_403_with_scope_but_no_error_is_a_step_up() {
    // The conformance suite's step-up server puts `insufficient_scope` only in the body.
    let mut m = AuthMachine::new(AuthSetup {
        stored: Some(stored(None, false)),
        ..setup()
    });
    drain(&mut m);
    assert!(m.handle_forbidden(
        0.0,
        1,
        &[&format!(
            r#"Bearer scope="files:read files:write", resource_metadata="{PRM_URL}""#
        )]
    ));
    let cmds = drain(&mut m);
    assert!(cmds.contains(&AuthCommand::Fail {
        waiter: 1,
        error: OAuthError::SignInRequired
    }));
    fetch_of(&cmds, Method::Get, PRM_URL);
    assert_eq!(m.status().map(AuthStatus::as_str), Some("preparing"));
}

#[test]
fn a_refused_token_rediscovers_and_a_new_issuer_gets_its_own_registration() {
    // Signed in through discovery and registration at the first authorization server...
    let mut m = AuthMachine::new(setup());
    drain(&mut m);
    let cmds = to_server_metadata(&mut m, &as_doc(false, true));
    let (id, _) = fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/register");
    m.handle_response(0.0, id, 201, r#"{"client_id":"c-as1"}"#);
    drain(&mut m);
    m.handle_pkce(0.0, rfc_pkce(), "s1".into());
    m.sign_in(0.0);
    drain(&mut m);
    m.handle_callback(
        1.0,
        "https://skiff.example/oauth/callback.html?code=abc&state=s1&iss=https%3A%2F%2Fauth.example.com%2Ft1",
    );
    let (id, _) = fetch_of(
        &drain(&mut m),
        Method::Post,
        "https://auth.example.com/t1/token",
    );
    m.handle_response(
        2.0,
        id,
        200,
        r#"{"access_token":"at1","token_type":"Bearer"}"#,
    );
    drain(&mut m);

    // ...the server now refuses the token (it moved to another authorization server): no
    // refresh token, so the credentials end, and the sign-in starts from the resource's
    // metadata again instead of the first server's kept flow.
    let prm2 = PRM.replace("https://auth.example.com/t1", "https://auth2.example.com");
    m.handle_unauthorized(
        3.0,
        2,
        Some("Bearer at1"),
        &[&format!(
            r#"Bearer error="invalid_token", resource_metadata="{PRM_URL}""#
        )],
    );
    let cmds = drain(&mut m);
    assert!(cmds.contains(&AuthCommand::Fail {
        waiter: 2,
        error: OAuthError::SignInRequired
    }));
    assert!(!cmds.contains(&AuthCommand::PreparePkce), "{cmds:#?}");
    let (id, _) = fetch_of(&cmds, Method::Get, PRM_URL);
    m.handle_response(3.0, id, 200, &prm2);
    let (id, _) = fetch_of(
        &drain(&mut m),
        Method::Get,
        "https://auth2.example.com/.well-known/oauth-authorization-server",
    );
    let as2 =
        as_doc(false, true).replace("https://auth.example.com/t1", "https://auth2.example.com");
    m.handle_response(3.0, id, 200, &as2);
    // The new issuer: a registration of its own, never the first server's client id.
    let cmds = drain(&mut m);
    let (_, req) = fetch_of(&cmds, Method::Post, "https://auth2.example.com/register");
    assert!(!req.body.as_deref().unwrap_or("").contains("c-as1"));
}

#[test]
fn a_401_for_a_token_just_refreshed_after_a_401_asks_to_sign_in_instead_of_looping() {
    let mut m = AuthMachine::new(AuthSetup {
        stored: Some(stored(Some(1e9), true)),
        ..setup()
    });
    drain(&mut m);
    m.handle_unauthorized(1.0, 1, Some("Bearer old"), &[]);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/token");
    m.handle_response(
        2.0,
        id,
        200,
        r#"{"access_token":"new","token_type":"Bearer","expires_in":3600}"#,
    );
    assert!(drain(&mut m).contains(&AuthCommand::Resume {
        waiter: 1,
        authorization: "Bearer new".into()
    }));
    // The server refuses the new token as well: no second refresh.
    m.handle_unauthorized(3.0, 1, Some("Bearer new"), &[]);
    let cmds = drain(&mut m);
    assert!(cmds.contains(&AuthCommand::Fail {
        waiter: 1,
        error: OAuthError::SignInRequired
    }));
    assert!(cmds.contains(&AuthCommand::Delete {
        issuer: ISSUER.into(),
        resource: MCP.into()
    }));
    assert!(!cmds.iter().any(
        |c| matches!(c, AuthCommand::Fetch { request, .. } if request.method == Method::Post)
    ));
}

#[test]
fn a_token_refreshed_after_a_401_that_went_out_on_its_own_is_refreshed_again_when_it_ends() {
    let mut m = AuthMachine::new(AuthSetup {
        stored: Some(stored(Some(1e9), true)),
        ..setup()
    });
    drain(&mut m);
    m.handle_unauthorized(1.0, 1, Some("Bearer old"), &[]);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/token");
    m.handle_response(
        2.0,
        id,
        200,
        r#"{"access_token":"new","token_type":"Bearer","expires_in":3600,"refresh_token":"rt2"}"#,
    );
    drain(&mut m);
    // A later request is handed the fresh token: the server took it (the resent request went
    // through, or the page would have reported its 401 before anything else asked).
    assert_eq!(m.access(3.0, 2, MCP), Access::Bearer("Bearer new".into()));
    // The server ends it early (revoked, restarted): one refresh, not a new sign-in.
    m.handle_unauthorized(60_000.0, 2, Some("Bearer new"), &[]);
    let cmds = drain(&mut m);
    assert!(!cmds
        .iter()
        .any(|c| matches!(c, AuthCommand::Fail { .. } | AuthCommand::Delete { .. })));
    let (id, _) = fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/token");
    m.handle_response(
        60_001.0,
        id,
        200,
        r#"{"access_token":"newer","token_type":"Bearer","expires_in":3600}"#,
    );
    assert!(drain(&mut m).contains(&AuthCommand::Resume {
        waiter: 2,
        authorization: "Bearer newer".into()
    }));
    // The guard holds again for this one: its resent request refused too ends the credentials.
    m.handle_unauthorized(60_002.0, 2, Some("Bearer newer"), &[]);
    assert!(drain(&mut m).contains(&AuthCommand::Fail {
        waiter: 2,
        error: OAuthError::SignInRequired
    }));
}

#[test]
fn a_refresh_on_the_timer_does_not_count_as_one_after_a_401() {
    let mut m = AuthMachine::new(AuthSetup {
        stored: Some(stored(Some(100_000.0), true)),
        ..setup()
    });
    drain(&mut m);
    m.handle_timeout(90_000.0);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/token");
    m.handle_response(
        90_001.0,
        id,
        200,
        r#"{"access_token":"new","token_type":"Bearer","expires_in":3600}"#,
    );
    drain(&mut m);
    // A 401 for it is worth one refresh.
    m.handle_unauthorized(90_002.0, 1, Some("Bearer new"), &[]);
    let cmds = drain(&mut m);
    fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/token");
}

mod hostile {
    use super::*;
    use proptest::prelude::*;

    /// One event for the machine, chosen by `kind`, shaped by the rest.
    fn apply(m: &mut AuthMachine, kind: u8, n: u16, text: &str, now: f64) {
        let bodies = [
            PRM.to_string(),
            as_doc(true, true),
            as_doc(false, true),
            text.to_string(),
            r#"{"client_id":"c"}"#.to_string(),
            r#"{"access_token":"a","token_type":"Bearer","expires_in":1,"refresh_token":"r"}"#
                .to_string(),
        ];
        let id = FetchId::from(n % 12);
        match kind % 11 {
            0 => m.handle_unauthorized(now, u64::from(n), Some(text), &[text]),
            1 => m.handle_unauthorized(now, u64::from(n), None, &[text]),
            2 => {
                m.handle_forbidden(now, u64::from(n), &[text]);
            }
            3 => m.handle_response(
                now,
                id,
                [200, 201, 400, 404, 500][usize::from(n % 5)],
                &bodies[usize::from(n) % bodies.len()],
            ),
            4 => m.handle_fetch_failed(
                now,
                id,
                if n.is_multiple_of(2) {
                    FetchFailure::Cors
                } else {
                    FetchFailure::Network(text.into())
                },
            ),
            5 => m.handle_pkce(now, rfc_pkce(), text.into()),
            6 => m.handle_callback(now, text),
            7 => m.sign_in(now),
            8 => m.sign_out(now),
            9 => m.handle_timeout(now),
            _ => {
                let _ = m.access(
                    now,
                    u64::from(n),
                    if n.is_multiple_of(2) { MCP } else { text },
                );
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Any sequence of events, answers and garbage: no panic, and a token never goes to
        /// a URL outside its resource.
        #[test]
        fn never_panics_and_never_leaks(events in proptest::collection::vec((any::<u8>(), any::<u16>(), "\\PC{0,40}"), 0..40)) {
            let mut m = AuthMachine::new(AuthSetup { legacy_fallback: true, stored: Some(stored(Some(50.0), true)), ..setup() });
            for (i, (kind, n, text)) in events.iter().enumerate() {
                apply(&mut m, *kind, *n, text, i as f64 * 10.0);
                while let Some(c) = m.poll_command() {
                    if let AuthCommand::Fetch { request, .. } = &c {
                        prop_assert!(request.header("authorization").is_none_or(|h| h.starts_with("Basic ")));
                    }
                }
                prop_assert_eq!(m.access(i as f64, 999, "https://evil.example.com/mcp"), Access::Anonymous);
            }
        }
    }
}

#[test]
fn a_closed_popup_lets_sign_in_start_a_fresh_request() {
    let mut m = at_callback();
    m.handle_authorization_closed(0.0);
    let cmds = drain(&mut m);
    assert!(cmds.contains(&AuthCommand::CloseAuthorization), "{cmds:#?}");
    assert_eq!(statuses(&cmds), vec!["sign-in-required"]);
    // The abandoned request's answer, arriving late, is not trusted.
    m.handle_callback(0.0, "https://skiff.example/oauth/callback.html?code=x&state=s&iss=https%3A%2F%2Fauth.example.com%2Ft1");
    assert!(drain(&mut m).is_empty());
    // Sign in again: no discovery, a new PKCE pair, then the page opens.
    m.sign_in(0.0);
    let cmds = drain(&mut m);
    assert!(cmds.contains(&AuthCommand::PreparePkce), "{cmds:#?}");
    assert!(!cmds.iter().any(|c| matches!(c, AuthCommand::Fetch { .. })));
    m.handle_pkce(0.0, rfc_pkce(), "s2".into());
    let cmds = drain(&mut m);
    let Some(AuthCommand::OpenAuthorization { pending, .. }) = cmds
        .iter()
        .find(|c| matches!(c, AuthCommand::OpenAuthorization { .. }))
    else {
        panic!("{cmds:#?}");
    };
    assert_eq!(pending.state, "s2");
    // Closing when nothing waits does nothing.
    let mut idle = AuthMachine::new(setup());
    drain(&mut idle);
    idle.handle_authorization_closed(0.0);
    assert!(drain(&mut idle).is_empty());
}

#[test]
fn a_401_for_a_covered_request_sent_before_credentials_loaded_gets_the_token() {
    let mut m = AuthMachine::new(AuthSetup {
        stored: Some(stored(Some(600_000.0), true)),
        ..setup()
    });
    drain(&mut m);
    m.handle_unauthorized_at(0.0, 1, MCP, None, &[r#"Bearer error="invalid_token""#]);
    assert_eq!(
        drain(&mut m),
        vec![AuthCommand::Resume {
            waiter: 1,
            authorization: "Bearer old".into()
        }]
    );
    // Due for refresh: the request waits for it rather than going out with the old token.
    m.handle_unauthorized_at(590_000.0, 2, MCP, None, &[]);
    let cmds = drain(&mut m);
    assert!(
        cmds.iter().any(|c| matches!(c, AuthCommand::Fetch { .. })),
        "{cmds:#?}"
    );
    assert!(!cmds
        .iter()
        .any(|c| matches!(c, AuthCommand::Resume { .. } | AuthCommand::Fail { .. })));
    // Outside the resource it is still refused without touching the credentials.
    m.handle_unauthorized_at(0.0, 3, "https://mcp.example.com/elsewhere", None, &[]);
    assert_eq!(
        drain(&mut m),
        vec![AuthCommand::Fail {
            waiter: 3,
            error: OAuthError::NotCovered
        }]
    );
    // A request that carried the token goes the usual way (refresh on 401).
    m.handle_unauthorized_at(0.0, 4, MCP, Some("Bearer old"), &[]);
    assert!(m.credentials().is_some());
}

#[test]
fn requests_through_the_cors_proxy_are_judged_by_their_target() {
    use crate::oauth::machine::unproxied;
    for (proxy, fetched, want) in [
        (
            Some("http://127.0.0.1:9/"),
            "http://127.0.0.1:9/https://mcp.example.com/mcp",
            "https://mcp.example.com/mcp",
        ),
        (
            Some("http://127.0.0.1:9"),
            "http://127.0.0.1:9/https://mcp.example.com/mcp",
            "https://mcp.example.com/mcp",
        ),
        (
            Some("https://p.example/?url="),
            "https://p.example/?url=https://mcp.example.com/mcp",
            "https://mcp.example.com/mcp",
        ),
        (
            Some("  "),
            "https://mcp.example.com/mcp",
            "https://mcp.example.com/mcp",
        ),
        (
            None,
            "http://127.0.0.1:9/https://mcp.example.com/mcp",
            "http://127.0.0.1:9/https://mcp.example.com/mcp",
        ),
        (
            Some("http://127.0.0.1:9/"),
            "https://evil.example.com/mcp",
            "https://evil.example.com/mcp",
        ),
    ] {
        assert_eq!(unproxied(proxy, fetched), want, "{proxy:?} {fetched}");
    }
    let mut m = AuthMachine::new(AuthSetup {
        stored: Some(stored(Some(600_000.0), true)),
        proxy: Some("http://127.0.0.1:9/".into()),
        ..setup()
    });
    drain(&mut m);
    let through = format!("http://127.0.0.1:9/{MCP}");
    assert_eq!(
        m.access(0.0, 1, &through),
        Access::Bearer("Bearer old".into())
    );
    // The proxy's own address is not the resource.
    assert_eq!(
        m.access(0.0, 2, "http://127.0.0.1:9/mcp"),
        Access::Anonymous
    );
    m.handle_unauthorized_at(0.0, 3, &through, None, &[]);
    assert_eq!(
        drain(&mut m),
        vec![AuthCommand::Resume {
            waiter: 3,
            authorization: "Bearer old".into()
        }]
    );
}

/// Finish the sign-in of `at_callback` (its code answered with a token).
fn finish_code(m: &mut AuthMachine) -> Vec<AuthCommand> {
    m.handle_callback(0.0, "https://skiff.example/oauth/callback.html?code=x&state=s&iss=https%3A%2F%2Fauth.example.com%2Ft1");
    let cmds = drain(m);
    let (id, _) = fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/token");
    m.handle_response(
        1.0,
        id,
        200,
        r#"{"access_token":"at","token_type":"Bearer","expires_in":3600,"refresh_token":"rt"}"#,
    );
    drain(m)
}

#[test]
fn a_sign_in_the_user_asked_for_connects_the_server_once_done() {
    let mut m = at_callback();
    let cmds = finish_code(&mut m);
    assert_eq!(statuses(&cmds), vec!["signed-in"]);
    assert_eq!(
        cmds.iter()
            .filter(|c| matches!(c, AuthCommand::Connect))
            .count(),
        1,
        "{cmds:#?}"
    );
    // A refresh later is not a sign-in: nothing reconnects.
    m.handle_timeout(1e12);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/token");
    m.handle_response(
        1e12,
        id,
        200,
        r#"{"access_token":"at2","token_type":"Bearer","expires_in":3600}"#,
    );
    assert!(!drain(&mut m).contains(&AuthCommand::Connect));

    // After a full-page redirect, the page that comes back connects too.
    let mut first = at_callback();
    let mut pending = None;
    first.handle_authorization_closed(0.0);
    first.sign_in(0.0);
    for c in drain(&mut first) {
        if c == AuthCommand::PreparePkce {
            first.handle_pkce(0.0, rfc_pkce(), "s".into());
        }
    }
    for c in drain(&mut first) {
        if let AuthCommand::OpenAuthorization { pending: p, .. } = c {
            pending = Some(p);
        }
    }
    let mut back = AuthMachine::new(AuthSetup { pending, ..setup() });
    drain(&mut back);
    assert!(finish_code(&mut back).contains(&AuthCommand::Connect));
}

#[test]
fn a_sign_in_a_request_waits_for_resumes_it_instead_of_reconnecting() {
    use crate::oauth::grant::{GrantSetup, SignInMethod};
    // An application signs in alone: the 401's request waits for the grant.
    let mut m = AuthMachine::new(AuthSetup {
        client_id: Some("app".into()),
        client_secret: Some("sec".into()),
        grant: GrantSetup {
            method: SignInMethod::Application,
            ..GrantSetup::default()
        },
        ..setup()
    });
    drain(&mut m);
    m.handle_unauthorized(
        0.0,
        7,
        None,
        &[&format!(r#"Bearer resource_metadata="{PRM_URL}""#)],
    );
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Get, PRM_URL);
    m.handle_response(0.0, id, 200, PRM);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(
        &cmds,
        Method::Get,
        "https://auth.example.com/.well-known/oauth-authorization-server/t1",
    );
    let doc = as_doc(false, false).replace(
        r#""issuer""#,
        r#""grant_types_supported":["client_credentials"],"issuer""#,
    );
    m.handle_response(0.0, id, 200, &doc);
    let cmds = drain(&mut m);
    let (id, _) = fetch_of(&cmds, Method::Post, "https://auth.example.com/t1/token");
    m.handle_response(
        1.0,
        id,
        200,
        r#"{"access_token":"app-at","token_type":"Bearer","expires_in":60}"#,
    );
    let cmds = drain(&mut m);
    assert!(cmds.contains(&AuthCommand::Resume {
        waiter: 7,
        authorization: "Bearer app-at".into()
    }));
    assert!(!cmds.contains(&AuthCommand::Connect), "{cmds:#?}");
}

#[test]
fn a_sign_in_that_fails_before_its_page_opened_closes_the_window_held_for_it() {
    let mut m = AuthMachine::new(setup());
    drain(&mut m);
    m.sign_in(0.0);
    let cmds = fail_every_fetch(&mut m);
    assert!(failed_with(&cmds).is_some(), "{cmds:#?}");
    assert!(cmds.contains(&AuthCommand::CloseAuthorization), "{cmds:#?}");
    // Failing when nobody pressed Sign in holds no window.
    let mut m = AuthMachine::new(setup());
    m.handle_unauthorized(0.0, 1, None, &[]);
    let cmds = fail_every_fetch(&mut m);
    assert!(failed_with(&cmds).is_some(), "{cmds:#?}");
    assert!(!cmds.contains(&AuthCommand::CloseAuthorization));
}

/// Answer every fetch the machine asks for with a CORS failure until it asks for none; every
/// command it gave on the way.
fn fail_every_fetch(m: &mut AuthMachine) -> Vec<AuthCommand> {
    let mut all = Vec::new();
    loop {
        let cmds = drain(m);
        let fetches: Vec<FetchId> = cmds
            .iter()
            .filter_map(|c| match c {
                AuthCommand::Fetch { id, .. } => Some(*id),
                _ => None,
            })
            .collect();
        all.extend(cmds);
        if fetches.is_empty() {
            return all;
        }
        for id in fetches {
            m.handle_fetch_failed(0.0, id, FetchFailure::Cors);
        }
    }
}

#[test]
fn a_machine_for_an_old_address_or_proxy_is_made_again_unless_requests_wait() {
    let mut m = AuthMachine::new(AuthSetup {
        stored: Some(stored(Some(100_000.0), true)),
        proxy: Some("http://127.0.0.1:9/".into()),
        ..setup()
    });
    drain(&mut m);
    assert!(!m.outdated(MCP, Some("http://127.0.0.1:9/")));
    assert!(m.outdated(MCP, None));
    assert!(m.outdated(MCP, Some("  ")));
    assert!(m.outdated("https://mcp.example.com/v2", Some("http://127.0.0.1:9/")));
    // A request waits on a refresh: keep it until that is done.
    assert_eq!(m.access(95_000.0, 1, MCP), Access::Wait);
    assert!(!m.outdated(MCP, None));

    let m = AuthMachine::new(setup());
    assert!(!m.outdated(MCP, Some("")), "no proxy is no proxy");
}
