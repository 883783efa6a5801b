//! `AuthMachine` with an authorization server and an MCP server that take DPoP-bound tokens
//! (RFC 9449): the proofs it asks the page for, the nonce resends, and what stays Bearer.

use super::credentials::Credentials;
use super::dpop::ProofPlan;
use super::error::OAuthError;
use super::machine::AuthMachine;
use super::machine_types::{Access, AuthCommand, AuthSetup, AuthStatus, FetchId};
use super::pkce::Verifier;
use super::stored::dpop_key_name;
use super::token::TokenType;
use crate::http::HttpRequest;
use crate::oauth::client::AppIdentity;

const MCP: &str = "https://mcp.example.com/mcp";
const PROXY: &str = "http://127.0.0.1:9/";
const ISSUER: &str = "https://auth.example.com";
const TOKEN: &str = "https://auth.example.com/token";
const PRM_URL: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
const PRM: &str = r#"{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"]}"#;
const NONCE_PLEASE: &str = r#"{"error":"use_dpop_nonce","error_description":"nonce"}"#;

fn proxied(url: &str) -> String {
    format!("{PROXY}{url}")
}

fn as_doc(dpop: bool) -> String {
    let mut doc = serde_json::json!({
        "issuer": ISSUER,
        "authorization_endpoint": "https://auth.example.com/authorize",
        "token_endpoint": TOKEN,
        "registration_endpoint": "https://auth.example.com/register",
        "code_challenge_methods_supported": ["S256"],
    });
    if dpop {
        doc["dpop_signing_alg_values_supported"] = serde_json::json!(["RS256", "ES256"]);
    }
    doc.to_string()
}

fn drain(m: &mut AuthMachine) -> Vec<AuthCommand> {
    std::iter::from_fn(|| m.poll_command()).collect()
}

fn only_fetch(cmds: &[AuthCommand]) -> (FetchId, HttpRequest) {
    let mut it = cmds.iter().filter_map(|c| match c {
        AuthCommand::Fetch { id, request } => Some((*id, request.clone())),
        _ => None,
    });
    let one = it.next().unwrap_or_else(|| panic!("no fetch in {cmds:#?}"));
    assert!(it.next().is_none(), "one fetch in {cmds:#?}");
    one
}

fn proved(cmds: &[AuthCommand]) -> Option<(FetchId, HttpRequest, ProofPlan)> {
    cmds.iter().find_map(|c| match c {
        AuthCommand::FetchWithProof { id, request, proof } => {
            Some((*id, request.clone(), proof.clone()))
        }
        _ => None,
    })
}

/// From a 401 with a `DPoP` challenge to the code exchange's command.
fn to_code_exchange(dpop: bool) -> (AuthMachine, Vec<AuthCommand>) {
    let mut m = AuthMachine::new(AuthSetup {
        server_url: MCP.into(),
        app: AppIdentity::for_origin("https://skiff.example"),
        client_id: None,
        client_secret: None,
        proxy: Some(PROXY.into()),
        stored: None,
        pending: None,
        legacy_fallback: false,
        grant: Default::default(),
    });
    drain(&mut m);
    m.handle_unauthorized_at(
        0.0,
        1,
        &proxied(MCP),
        None,
        &[&format!(r#"DPoP resource_metadata="{PRM_URL}""#)],
    );
    let (id, r) = only_fetch(&drain(&mut m));
    assert_eq!(
        r.url,
        proxied(PRM_URL),
        "discovery starts at the DPoP challenge's URL"
    );
    m.handle_response(0.0, id, 200, PRM);
    let (id, _) = only_fetch(&drain(&mut m));
    m.handle_response(0.0, id, 200, &as_doc(dpop));
    let (id, _) = only_fetch(&drain(&mut m));
    m.handle_response(0.0, id, 201, r#"{"client_id":"c-1"}"#);
    assert_eq!(drain(&mut m), vec![AuthCommand::PreparePkce]);
    let v = Verifier::from_random(&[7u8; 32]);
    m.handle_pkce(0.0, v.with_digest(&[1u8; 32]), "st".into());
    m.sign_in(0.0);
    drain(&mut m);
    m.handle_callback(
        0.0,
        "https://skiff.example/oauth/callback.html?code=abc&state=st",
    );
    let cmds = drain(&mut m);
    (m, cmds)
}

#[test]
fn the_code_exchange_carries_a_proof_and_is_sent_again_once_with_the_nonce() {
    let (mut m, cmds) = to_code_exchange(true);
    let (id, request, plan) = proved(&cmds).expect("a token request with a proof");
    assert_eq!(request.url, proxied(TOKEN), "sent through the proxy");
    assert_eq!(
        plan,
        ProofPlan {
            key: dpop_key_name(ISSUER, MCP),
            htm: "POST".into(),
            url: TOKEN.into(),
            access_token: None,
            nonce: None,
        },
        "the proof names the token endpoint itself, never the proxy"
    );

    // 400 use_dpop_nonce: the same request again, same id, the nonce in the new proof.
    m.handle_proved_response(0.0, id, 400, NONCE_PLEASE, Some("as-n1"));
    let cmds = drain(&mut m);
    assert_eq!(
        cmds,
        vec![AuthCommand::FetchWithProof {
            id,
            request: request.clone(),
            proof: ProofPlan {
                nonce: Some("as-n1".into()),
                ..plan.clone()
            },
        }]
    );
    // A second nonce refusal is the answer: no loop.
    m.handle_proved_response(0.0, id, 400, NONCE_PLEASE, Some("as-n2"));
    let cmds = drain(&mut m);
    assert!(proved(&cmds).is_none(), "{cmds:#?}");
    assert!(cmds.iter().any(|c| matches!(
        c,
        AuthCommand::Status(AuthStatus::Failed(OAuthError::TokenRefused { error, .. }))
            if error == "use_dpop_nonce"
    )));
}

fn signed_in_with_dpop() -> (AuthMachine, Credentials) {
    let (mut m, cmds) = to_code_exchange(true);
    let (id, _, _) = proved(&cmds).expect("proof");
    m.handle_proved_response(0.0, id, 400, NONCE_PLEASE, Some("as-n1"));
    drain(&mut m);
    m.handle_proved_response(
        1_000.0,
        id,
        200,
        r#"{"access_token":"at1","token_type":"DPoP","expires_in":3600,"refresh_token":"rt1"}"#,
        None,
    );
    let cmds = drain(&mut m);
    let stored = cmds
        .iter()
        .find_map(|c| match c {
            AuthCommand::Store(c) => Some(c.clone()),
            _ => None,
        })
        .expect("stores the credentials");
    (m, stored)
}

#[test]
fn a_dpop_token_goes_with_the_dpop_scheme_and_a_proof_for_each_request() {
    let (mut m, stored) = signed_in_with_dpop();
    assert_eq!(stored.token_type, TokenType::DPoP);
    assert_eq!(
        m.access(2_000.0, 2, &proxied(MCP)),
        Access::Bearer("DPoP at1".into()),
        "RFC 9449 §7.1: Authorization: DPoP <token>"
    );
    let plan = m
        .resource_proof("post", &proxied(&format!("{MCP}?s=1")), "DPoP at1")
        .expect("a proof for the MCP request");
    assert_eq!(
        plan,
        ProofPlan {
            key: dpop_key_name(ISSUER, MCP),
            htm: "POST".into(),
            url: format!("{MCP}?s=1"),
            access_token: Some("at1".into()),
            // The authorization server's nonce is its own, not the MCP server's.
            nonce: None,
        }
    );
    // The MCP server's nonce goes in its next proofs.
    m.handle_resource_nonce(&proxied(MCP), " rs-n1 ");
    let plan = m
        .resource_proof("GET", &proxied(MCP), "DPoP at1")
        .expect("proof");
    assert_eq!(
        (plan.htm.as_str(), plan.nonce.as_deref()),
        ("GET", Some("rs-n1"))
    );
    // No proof for a Bearer value, or for a URL outside the resource.
    assert!(m
        .resource_proof("POST", &proxied(MCP), "Bearer at1")
        .is_none());
    assert!(m
        .resource_proof("POST", "https://elsewhere.example/mcp", "DPoP at1")
        .is_none());
}

#[test]
fn a_dpop_token_is_refreshed_with_a_proof_carrying_the_servers_nonce() {
    let (mut m, stored) = signed_in_with_dpop();
    let due = stored.refresh_at_ms().expect("renewable");
    m.handle_timeout(due);
    let cmds = drain(&mut m);
    let (id, request, plan) = proved(&cmds).expect("a refresh with a proof");
    assert!(request
        .body
        .as_deref()
        .unwrap_or("")
        .contains("grant_type=refresh_token"));
    assert_eq!(
        plan.nonce.as_deref(),
        Some("as-n1"),
        "the nonce it gave last"
    );
    assert_eq!(
        plan.key,
        dpop_key_name(ISSUER, MCP),
        "the key the token is bound to"
    );
    m.handle_proved_response(
        due,
        id,
        200,
        r#"{"access_token":"at2","token_type":"DPoP","expires_in":3600}"#,
        Some("as-n2"),
    );
    drain(&mut m);
    assert_eq!(
        m.access(due + 1.0, 3, &proxied(MCP)),
        Access::Bearer("DPoP at2".into())
    );
}

#[test]
fn a_server_without_dpop_gets_no_proof_and_no_dpop_token() {
    let (mut m, cmds) = to_code_exchange(false);
    assert!(proved(&cmds).is_none(), "{cmds:#?}");
    let (id, _) = only_fetch(&cmds);
    m.handle_response(
        0.0,
        id,
        200,
        r#"{"access_token":"at1","token_type":"DPoP"}"#,
    );
    let cmds = drain(&mut m);
    assert!(
        cmds.iter().any(|c| matches!(
            c,
            AuthCommand::Status(AuthStatus::Failed(OAuthError::BadTokenResponse(_)))
        )),
        "a DPoP token for a request without a proof is bound to no key of ours: {cmds:#?}"
    );
}

#[test]
fn a_grant_without_a_window_proves_too_and_its_renewal_keeps_the_key() {
    let mut m = AuthMachine::new(AuthSetup {
        server_url: MCP.into(),
        app: AppIdentity::for_origin("https://skiff.example"),
        client_id: Some("app-1".into()),
        client_secret: Some("s3cret".into()),
        proxy: None,
        stored: None,
        pending: None,
        legacy_fallback: false,
        grant: Default::default(),
    });
    drain(&mut m);
    m.handle_unauthorized(
        0.0,
        1,
        None,
        &[&format!(r#"DPoP resource_metadata="{PRM_URL}""#)],
    );
    let (id, _) = only_fetch(&drain(&mut m));
    m.handle_response(0.0, id, 200, PRM);
    let (id, _) = only_fetch(&drain(&mut m));
    let doc = serde_json::json!({
        "issuer": ISSUER,
        "token_endpoint": TOKEN,
        "grant_types_supported": ["client_credentials"],
        "token_endpoint_auth_methods_supported": ["client_secret_post"],
        "dpop_signing_alg_values_supported": ["ES256"],
    });
    m.handle_response(0.0, id, 200, &doc.to_string());
    let (id, request, plan) = proved(&drain(&mut m)).expect("the grant's token request proves");
    assert!(request
        .body
        .as_deref()
        .unwrap_or("")
        .contains("grant_type=client_credentials"));
    assert_eq!(
        (plan.url.as_str(), plan.key.clone()),
        (TOKEN, dpop_key_name(ISSUER, MCP))
    );
    m.handle_proved_response(
        0.0,
        id,
        200,
        r#"{"access_token":"cc1","token_type":"DPoP","expires_in":600}"#,
        None,
    );
    drain(&mut m);
    assert_eq!(m.access(1.0, 2, MCP), Access::Bearer("DPoP cc1".into()));
    // Due: the grant runs again, with a proof by the same key.
    m.handle_timeout(600_000.0);
    let (_, _, plan) = proved(&drain(&mut m)).expect("the renewal proves");
    assert_eq!(plan.key, dpop_key_name(ISSUER, MCP));
}
