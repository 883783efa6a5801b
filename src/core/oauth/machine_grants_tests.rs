//! `AuthMachine` through the grants without a browser window, with scripted answers: the
//! exact token requests, requests waiting on the grant, renewal when the token is due or
//! refused, and the sentences of each failure.

use super::client::{AppIdentity, ClientIdentity, ClientSecret, SecretMethod};
use super::credentials::TokenGrant;
use super::error::OAuthError;
use super::grant::{GrantSetup, SignInMethod};
use super::jwt::SigningAlg;
use super::machine::AuthMachine;
use super::machine_types::{Access, AuthCommand, AuthSetup, AuthStatus, FetchId};
use crate::http::{HttpRequest, Method};

const MCP: &str = "https://mcp.example.com/mcp";
const ISSUER: &str = "https://auth.example.com";
const TOKEN: &str = "https://auth.example.com/token";
const PRM_URL: &str = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp";
const PRM: &str = r#"{"resource":"https://mcp.example.com/mcp","authorization_servers":["https://auth.example.com"],"scopes_supported":["mcp:read"]}"#;
const AS_URL: &str = "https://auth.example.com/.well-known/oauth-authorization-server";

fn as_doc(grants: &[&str], methods: &[&str]) -> String {
    serde_json::json!({
        "issuer": ISSUER,
        "token_endpoint": TOKEN,
        "grant_types_supported": grants,
        "token_endpoint_auth_methods_supported": methods,
        "token_endpoint_auth_signing_alg_values_supported": ["ES256"],
    })
    .to_string()
}

fn setup(method: SignInMethod, secret: Option<&str>) -> AuthSetup {
    AuthSetup {
        server_url: MCP.into(),
        app: AppIdentity::for_origin("https://skiff.example"),
        client_id: Some("app-1".into()),
        client_secret: secret.map(String::from),
        proxy: None,
        stored: None,
        pending: None,
        legacy_fallback: false,
        grant: GrantSetup {
            method,
            ..GrantSetup::default()
        },
    }
}

fn drain(m: &mut AuthMachine) -> Vec<AuthCommand> {
    std::iter::from_fn(|| m.poll_command()).collect()
}

fn fetch_of(cmds: &[AuthCommand], url: &str) -> (FetchId, HttpRequest) {
    let found: Vec<_> = cmds
        .iter()
        .filter_map(|c| match c {
            AuthCommand::Fetch { id, request } => Some((*id, request.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(found.len(), 1, "expected one fetch in {cmds:#?}");
    let (id, r) = found.into_iter().next().expect("one fetch");
    assert_eq!(r.url, url, "{cmds:#?}");
    (id, r)
}

/// A 401 for request `waiter`, then the two metadata documents; the commands after them.
fn discover(m: &mut AuthMachine, waiter: u64, as_body: &str) -> Vec<AuthCommand> {
    m.handle_unauthorized(
        0.0,
        waiter,
        None,
        &[&format!(r#"Bearer resource_metadata="{PRM_URL}""#)],
    );
    let cmds = drain(m);
    let (id, _) = fetch_of(&cmds, PRM_URL);
    m.handle_response(0.0, id, 200, PRM);
    let (id, _) = fetch_of(&drain(m), AS_URL);
    m.handle_response(0.0, id, 200, as_body);
    // The first answer's fetch is done; what else it asked for stays for the test to check.
    let mut all: Vec<_> = cmds
        .into_iter()
        .filter(|c| !matches!(c, AuthCommand::Fetch { .. }))
        .collect();
    all.extend(drain(m));
    all
}

fn token_answer(at: &str, expires_in: u64) -> String {
    format!(r#"{{"access_token":"{at}","token_type":"Bearer","expires_in":{expires_in}}}"#)
}

const CC_BODY: &str = "grant_type=client_credentials&scope=mcp%3Aread\
    &resource=https%3A%2F%2Fmcp.example.com%2Fmcp&client_id=app-1";

#[test]
fn client_credentials_chosen_by_the_servers_metadata_then_renewed_when_due() {
    // The default method: the first request fails as for any sign-in, but nobody has to click.
    let mut m = AuthMachine::new(setup(SignInMethod::Browser, Some("s3:cr t")));
    drain(&mut m);
    let cmds = discover(
        &mut m,
        1,
        &as_doc(&["client_credentials"], &["client_secret_basic"]),
    );
    assert!(cmds.contains(&AuthCommand::Fail {
        waiter: 1,
        error: OAuthError::SignInRequired
    }));
    assert!(cmds.contains(&AuthCommand::Status(AuthStatus::Exchanging)));
    let (id, req) = fetch_of(&cmds, TOKEN);
    assert_eq!(req.method, Method::Post);
    assert_eq!(req.body.as_deref(), Some(CC_BODY));
    // base64("app-1:s3%3Acr%20t")
    assert_eq!(
        req.header("authorization"),
        Some("Basic YXBwLTE6czMlM0FjciUyMHQ=")
    );

    m.handle_response(1_000.0, id, 200, &token_answer("at-1", 100));
    let cmds = drain(&mut m);
    let stored = cmds
        .iter()
        .find_map(|c| match c {
            AuthCommand::Store(c) => Some(c.clone()),
            _ => None,
        })
        .expect("stores the credentials");
    assert_eq!(stored.grant, TokenGrant::ClientCredentials);
    assert_eq!(stored.refresh_token, None);
    assert_eq!(stored.scopes, vec!["mcp:read".to_string()]);
    assert!(matches!(
        stored.client,
        ClientIdentity::PreRegistered {
            secret: Some(ClientSecret {
                method: SecretMethod::ClientSecretBasic,
                ..
            }),
            ..
        }
    ));
    assert_eq!(
        m.access(2_000.0, 2, MCP),
        Access::Bearer("Bearer at-1".into())
    );

    // No refresh token: a little before expiry the grant simply runs again, once, with the
    // requests waiting on it.
    let due = m.poll_timeout().expect("a renewal is scheduled");
    assert_eq!(due, 1_000.0 + 100_000.0 - 10_000.0);
    assert_eq!(m.access(due, 3, MCP), Access::Wait);
    assert_eq!(m.access(due, 4, MCP), Access::Wait);
    let cmds = drain(&mut m);
    let (id, req) = fetch_of(&cmds, TOKEN);
    assert_eq!(req.body.as_deref(), Some(CC_BODY));
    assert!(
        !cmds.iter().any(|c| matches!(c, AuthCommand::Status(_))),
        "a renewal shows nothing: {cmds:#?}"
    );
    m.handle_response(due, id, 200, &token_answer("at-2", 100));
    let cmds = drain(&mut m);
    for waiter in [3, 4] {
        assert!(cmds.contains(&AuthCommand::Resume {
            waiter,
            authorization: "Bearer at-2".into()
        }));
    }
}

#[test]
fn a_refused_token_is_replaced_by_running_the_grant_again_but_only_once() {
    let mut m = AuthMachine::new(setup(SignInMethod::Application, Some("s")));
    drain(&mut m);
    // The method needs nobody: the first request waits for the grant instead of failing.
    let cmds = discover(&mut m, 1, &as_doc(&["client_credentials"], &[]));
    assert!(!cmds.iter().any(|c| matches!(c, AuthCommand::Fail { .. })));
    let (id, _) = fetch_of(&cmds, TOKEN);
    m.handle_response(0.0, id, 200, &token_answer("at-1", 3600));
    assert!(drain(&mut m).contains(&AuthCommand::Resume {
        waiter: 1,
        authorization: "Bearer at-1".into()
    }));

    m.handle_unauthorized(5.0, 2, Some("Bearer at-1"), &["Bearer"]);
    let (id, _) = fetch_of(&drain(&mut m), TOKEN);
    m.handle_response(5.0, id, 200, &token_answer("at-2", 3600));
    assert!(drain(&mut m).contains(&AuthCommand::Resume {
        waiter: 2,
        authorization: "Bearer at-2".into()
    }));
    // The fresh token is refused too: no loop, the credentials go and the request fails.
    m.handle_unauthorized(6.0, 3, Some("Bearer at-2"), &["Bearer"]);
    let cmds = drain(&mut m);
    assert!(cmds.contains(&AuthCommand::Fail {
        waiter: 3,
        error: OAuthError::SignInRequired
    }));
    assert!(cmds.iter().any(|c| matches!(c, AuthCommand::Delete { .. })));
    assert!(m.credentials().is_none());
}

#[test]
fn a_wrong_secret_is_said_and_stands_until_the_user_acts() {
    let mut m = AuthMachine::new(setup(SignInMethod::Application, Some("wrong")));
    drain(&mut m);
    let cmds = discover(&mut m, 1, &as_doc(&["client_credentials"], &[]));
    let (id, _) = fetch_of(&cmds, TOKEN);
    m.handle_response(
        0.0,
        id,
        401,
        r#"{"error":"invalid_client","error_description":"Invalid client credentials"}"#,
    );
    let cmds = drain(&mut m);
    let refused = OAuthError::ClientRefused {
        issuer: ISSUER.into(),
        with_key: false,
    };
    assert!(cmds.contains(&AuthCommand::Fail {
        waiter: 1,
        error: refused.clone()
    }));
    assert!(refused
        .to_string()
        .contains("refused the client id or secret"));
    assert_eq!(m.failure(), Some(&refused));
    // Another request is told the same at once, without hammering the token endpoint.
    m.handle_unauthorized(1.0, 2, None, &["Bearer"]);
    let cmds = drain(&mut m);
    assert_eq!(
        cmds,
        vec![AuthCommand::Fail {
            waiter: 2,
            error: refused
        }]
    );
}

#[test]
fn missing_credentials_on_a_server_that_only_signs_in_applications() {
    let mut m = AuthMachine::new(AuthSetup {
        client_id: None,
        ..setup(SignInMethod::Browser, None)
    });
    drain(&mut m);
    let cmds = discover(&mut m, 1, &as_doc(&["client_credentials"], &[]));
    let e = m.failure().cloned().expect("fails");
    assert_eq!(
        e,
        OAuthError::AppCredentialsNeeded {
            issuer: ISSUER.into()
        }
    );
    assert!(cmds.contains(&AuthCommand::Status(AuthStatus::Failed(e))));
}

#[test]
fn a_private_key_signs_the_client_assertion() {
    let mut m = AuthMachine::new(AuthSetup {
        grant: GrantSetup {
            method: SignInMethod::Application,
            key_alg: Some(SigningAlg::ES256),
            ..GrantSetup::default()
        },
        ..setup(SignInMethod::Application, None)
    });
    drain(&mut m);
    let cmds = discover(
        &mut m,
        1,
        &as_doc(&["client_credentials"], &["private_key_jwt"]),
    );
    let id = cmds
        .iter()
        .find_map(|c| match c {
            AuthCommand::Sign { id, alg } => Some((*id, *alg)),
            _ => None,
        })
        .expect("asks the page to sign");
    assert_eq!(id.1, SigningAlg::ES256);
    assert_eq!(m.handle_assertion_random(0.0, id.0 + 7, &[1; 16]), None);
    let input = m
        .handle_assertion_random(1_700_000_000_500.0, id.0, &[0; 16])
        .expect("the bytes to sign");
    let claims = crate::base64::unbase64(input.split('.').nth(1).unwrap()).unwrap();
    assert_eq!(
        String::from_utf8(claims).unwrap(),
        r#"{"iss":"app-1","sub":"app-1","aud":"https://auth.example.com","iat":1700000000,"exp":1700000060,"jti":"AAAAAAAAAAAAAAAAAAAAAA"}"#
    );
    m.handle_signature(0.0, id.0, Ok(&[7; 64]));
    let (fid, req) = fetch_of(&drain(&mut m), TOKEN);
    let body = req.body.clone().unwrap();
    assert!(
        body.starts_with("grant_type=client_credentials&scope=mcp%3Aread&resource=")
            && body.contains(
                "&client_assertion_type=urn%3Aietf%3Aparams%3Aoauth%3Aclient-assertion-type%3Ajwt-bearer"
            )
            && body.contains(&format!(
                "&client_assertion={input}.BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBw&"
            )),
        "{body}"
    );
    assert_eq!(req.header("authorization"), None);
    m.handle_response(0.0, fid, 401, r#"{"error":"invalid_client"}"#);
    let e = m.failure().expect("refused").to_string();
    assert!(
        e.contains("refused the client id or the key it was signed with"),
        "{e}"
    );
}

#[test]
fn a_key_webcrypto_cannot_use_fails_with_a_sentence() {
    let mut m = AuthMachine::new(AuthSetup {
        grant: GrantSetup {
            method: SignInMethod::Application,
            key_alg: Some(SigningAlg::ES256),
            ..GrantSetup::default()
        },
        ..setup(SignInMethod::Application, None)
    });
    drain(&mut m);
    let cmds = discover(&mut m, 1, &as_doc(&["client_credentials"], &[]));
    let Some(AuthCommand::Sign { id, .. }) =
        cmds.iter().find(|c| matches!(c, AuthCommand::Sign { .. }))
    else {
        panic!("no Sign in {cmds:#?}");
    };
    m.handle_assertion_random(0.0, *id, &[0; 16]);
    m.handle_signature(0.0, *id, Err("DataError: invalid key"));
    let cmds = drain(&mut m);
    assert!(cmds.contains(&AuthCommand::Fail {
        waiter: 1,
        error: OAuthError::SigningFailed("DataError: invalid key".into())
    }));
}

#[test]
fn cross_app_access_exchanges_the_id_token_then_spends_the_grant() {
    let mut m = AuthMachine::new(AuthSetup {
        proxy: Some("http://127.0.0.1:9/".into()),
        grant: GrantSetup {
            method: SignInMethod::CrossApp,
            key_alg: None,
            idp_token_endpoint: Some("https://idp.example.com/token".into()),
            idp_client_id: Some("idp-client".into()),
            id_token: Some("eyJ.id.tok".into()),
        },
        ..setup(SignInMethod::CrossApp, Some("xsecret"))
    });
    drain(&mut m);
    m.handle_unauthorized(
        0.0,
        1,
        None,
        &[&format!(r#"Bearer resource_metadata="{PRM_URL}""#)],
    );
    let (id, _) = fetch_of(&drain(&mut m), &format!("http://127.0.0.1:9/{PRM_URL}"));
    m.handle_response(0.0, id, 200, PRM);
    let (id, _) = fetch_of(&drain(&mut m), &format!("http://127.0.0.1:9/{AS_URL}"));
    m.handle_response(
        0.0,
        id,
        200,
        &as_doc(
            &["urn:ietf:params:oauth:grant-type:jwt-bearer"],
            &["client_secret_basic"],
        ),
    );
    // The identity provider's token endpoint goes through the CORS proxy too.
    let (id, req) = fetch_of(
        &drain(&mut m),
        "http://127.0.0.1:9/https://idp.example.com/token",
    );
    assert_eq!(
        req.body.as_deref(),
        Some(
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange\
             &requested_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid-jag\
             &audience=https%3A%2F%2Fauth.example.com&resource=https%3A%2F%2Fmcp.example.com%2Fmcp\
             &scope=mcp%3Aread&subject_token=eyJ.id.tok\
             &subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aid_token\
             &client_id=idp-client"
        )
    );
    m.handle_response(
        0.0,
        id,
        200,
        r#"{"access_token":"jag.jwt","issued_token_type":"urn:ietf:params:oauth:token-type:id-jag","token_type":"N_A"}"#,
    );
    let (id, req) = fetch_of(&drain(&mut m), &format!("http://127.0.0.1:9/{TOKEN}"));
    assert_eq!(
        req.body.as_deref(),
        Some(
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=jag.jwt\
             &scope=mcp%3Aread&resource=https%3A%2F%2Fmcp.example.com%2Fmcp&client_id=app-1"
        )
    );
    // base64("app-1:xsecret")
    assert_eq!(
        req.header("authorization"),
        Some("Basic YXBwLTE6eHNlY3JldA==")
    );
    m.handle_response(0.0, id, 200, &token_answer("at-x", 3600));
    let cmds = drain(&mut m);
    assert!(cmds.contains(&AuthCommand::Resume {
        waiter: 1,
        authorization: "Bearer at-x".into()
    }));
    assert_eq!(m.credentials().map(|c| c.grant), Some(TokenGrant::CrossApp));

    // A refused ID token on renewal: the credentials go, and the sentence says what to do.
    m.handle_unauthorized(1.0, 2, Some("Bearer at-x"), &["Bearer"]);
    let (id, _) = fetch_of(
        &drain(&mut m),
        "http://127.0.0.1:9/https://idp.example.com/token",
    );
    m.handle_response(
        1.0,
        id,
        400,
        r#"{"error":"invalid_grant","error_description":"expired"}"#,
    );
    let cmds = drain(&mut m);
    let fail = cmds
        .iter()
        .find_map(|c| match c {
            AuthCommand::Fail { waiter: 2, error } => Some(error.to_string()),
            _ => None,
        })
        .expect("the waiting request fails");
    assert!(fail.contains("paste a fresh one"), "{fail}");
    assert!(m.credentials().is_none());
}

#[test]
fn a_workload_spends_its_own_jwt_as_a_public_client_and_renews_with_it() {
    let mut m = AuthMachine::new(AuthSetup {
        grant: GrantSetup {
            method: SignInMethod::Workload,
            id_token: Some("eyJ.wl.jwt".into()),
            ..GrantSetup::default()
        },
        ..setup(SignInMethod::Workload, None)
    });
    drain(&mut m);
    let cmds = discover(
        &mut m,
        1,
        &as_doc(&["urn:ietf:params:oauth:grant-type:jwt-bearer"], &["none"]),
    );
    // A workload needs nobody: the request waits for the grant.
    assert!(!cmds.iter().any(|c| matches!(c, AuthCommand::Fail { .. })));
    let (id, req) = fetch_of(&cmds, TOKEN);
    assert_eq!(
        req.body.as_deref(),
        Some(
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=eyJ.wl.jwt\
             &scope=mcp%3Aread&resource=https%3A%2F%2Fmcp.example.com%2Fmcp&client_id=app-1"
        )
    );
    assert_eq!(
        req.header("authorization"),
        None,
        "a public client: no secret"
    );
    m.handle_response(0.0, id, 200, &token_answer("at-w", 3600));
    let cmds = drain(&mut m);
    assert!(cmds.contains(&AuthCommand::Resume {
        waiter: 1,
        authorization: "Bearer at-w".into()
    }));
    assert_eq!(m.credentials().map(|c| c.grant), Some(TokenGrant::Workload));

    // A refused token is replaced by presenting the JWT again (no refresh token).
    m.handle_unauthorized(1.0, 2, Some("Bearer at-w"), &["Bearer"]);
    let (id, req) = fetch_of(&drain(&mut m), TOKEN);
    assert!(req
        .body
        .as_deref()
        .is_some_and(|b| b.contains("assertion=eyJ.wl.jwt")));
    m.handle_response(1.0, id, 200, &token_answer("at-w2", 3600));
    assert!(drain(&mut m).contains(&AuthCommand::Resume {
        waiter: 2,
        authorization: "Bearer at-w2".into()
    }));
}

#[test]
fn sign_out_ignores_a_grant_still_running() {
    let mut m = AuthMachine::new(setup(SignInMethod::Application, Some("s")));
    drain(&mut m);
    let (id, _) = fetch_of(
        &discover(&mut m, 1, &as_doc(&["client_credentials"], &[])),
        TOKEN,
    );
    m.sign_out(0.0);
    drain(&mut m);
    m.handle_response(0.0, id, 200, &token_answer("late", 3600));
    assert!(m.credentials().is_none());
    assert!(!drain(&mut m)
        .iter()
        .any(|c| matches!(c, AuthCommand::Store(_))));
}

#[test]
fn a_token_endpoint_without_cors_points_at_the_proxy_setting() {
    let mut m = AuthMachine::new(setup(SignInMethod::Application, Some("s")));
    drain(&mut m);
    let (id, _) = fetch_of(
        &discover(&mut m, 1, &as_doc(&["client_credentials"], &[])),
        TOKEN,
    );
    m.handle_fetch_failed(0.0, id, super::machine_types::FetchFailure::Cors);
    let cmds = drain(&mut m);
    let said = cmds
        .iter()
        .find_map(|c| match c {
            AuthCommand::Fail { waiter: 1, error } => Some(error.to_string()),
            _ => None,
        })
        .expect("the waiting request fails");
    assert!(
        said.contains("token endpoint") && said.contains("CORS proxy"),
        "{said}"
    );
    assert!(m.credentials().is_none());
}
