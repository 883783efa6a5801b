//! The sign-in steps of `AuthMachine` between a 401 and the token: protected resource
//! metadata, authorization server metadata, client identity, PKCE, the authorization request,
//! the code exchange; and what a refresh's answer does. Each fetch answer is matched to the
//! step that asked for it by its `FetchId`; an answer for a step that is over is ignored.

use super::authorize::AuthorizationRequest;
use super::client::{self, ClientChoice, ClientIdentity};
use super::credentials::Credentials;
use super::discovery::{resource_metadata_urls, server_metadata_urls};
use super::error::{Endpoint, OAuthError};
use super::grant::{self, GrantChoice};
use super::machine::{AuthMachine, REFRESH_RETRY_MS};
use super::machine_grants::GrantTarget;
use super::machine_types::{AuthCommand, AuthStatus, FetchFailure, FetchId, PendingAuthorization};
use super::metadata::{
    parse_legacy_server_metadata, parse_resource_metadata, parse_server_metadata,
    AuthorizationServer, ProtectedResource,
};
use super::pkce::Pkce;
use super::token::{parse_token_response, TokenType};
use super::url::{is_secure_endpoint, HttpUrl};
use crate::http::{HttpRequest, Method};

/// What discovery found for one server.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Flow {
    pub(super) prm: ProtectedResource,
    pub(super) server: AuthorizationServer,
    pub(super) client: ClientIdentity,
}

pub(super) enum Phase {
    Idle,
    Resource {
        urls: Vec<String>,
        next: usize,
        fetch: FetchId,
        failure: Option<OAuthError>,
    },
    Server {
        prm: ProtectedResource,
        /// Index into `prm.authorization_servers`.
        issuer: usize,
        urls: Vec<String>,
        next: usize,
        fetch: FetchId,
        failure: Option<OAuthError>,
        tried: Vec<String>,
    },
    Registering {
        prm: ProtectedResource,
        server: AuthorizationServer,
        fetch: FetchId,
    },
    Pkce(Flow),
    Ready(PendingAuthorization),
    /// A grant without a browser window runs (`machine_grants`).
    Granting,
    Callback(PendingAuthorization),
    Exchanging {
        pending: PendingAuthorization,
        fetch: FetchId,
    },
    Failed(OAuthError),
}

pub(super) type Answer<'a> = Result<(u16, &'a str), FetchFailure>;

fn get_json(url: &str) -> HttpRequest {
    HttpRequest {
        method: Method::Get,
        url: url.to_string(),
        headers: vec![("Accept".into(), "application/json".into())],
        body: None,
    }
}

/// A metadata address that answered neither a document nor "not here" (4xx).
fn status_error(status: u16, url: &str, endpoint: Endpoint) -> OAuthError {
    OAuthError::Http {
        url: url.to_string(),
        status,
        endpoint,
    }
}

pub(super) fn failure_error(failure: FetchFailure, url: &str, endpoint: Endpoint) -> OAuthError {
    match failure {
        FetchFailure::Cors => OAuthError::BlockedByCors {
            url: url.to_string(),
            endpoint,
        },
        FetchFailure::Network(message) => OAuthError::Network {
            url: url.to_string(),
            message,
        },
        FetchFailure::Proof(why) => OAuthError::ProofFailed(why),
    }
}

impl AuthMachine {
    /// Start (or continue) preparing a sign-in: straight to PKCE when discovery already ran,
    /// else from the protected resource metadata. A sign-in already under way is left alone.
    pub(super) fn prepare_sign_in(&mut self, resource_metadata: Option<&str>) {
        if !matches!(self.phase, Phase::Idle | Phase::Failed(_)) {
            return;
        }
        self.set_status(AuthStatus::Preparing);
        if let Some(flow) = self.flow.clone() {
            self.ask_for_pkce(flow);
            return;
        }
        let Some(server) = self.server.clone() else {
            self.fail(OAuthError::BadMetadata {
                url: self.setup.server_url.clone(),
                reason: "the server's address is not an absolute http(s) URL".into(),
            });
            return;
        };
        self.legacy = false;
        let urls = resource_metadata_urls(&server, resource_metadata);
        let fetch = self.fetch(get_json(&urls[0]));
        self.phase = Phase::Resource {
            urls,
            next: 1,
            fetch,
            failure: None,
        };
    }

    pub(super) fn on_fetch(&mut self, now_ms: f64, id: FetchId, answer: Answer<'_>) {
        if let Some(i) = self.revokes.iter().position(|r| *r == id) {
            // RFC 7009 §2.2: nothing a client can do about the answer; the credentials are
            // already gone from here.
            self.revokes.remove(i);
            return;
        }
        if self.is_grant_step(id) {
            self.on_grant_answer(now_ms, answer);
            return;
        }
        if self.refreshing == Some(id) {
            self.refreshing = None;
            self.on_refresh(now_ms, answer);
            return;
        }
        let phase = std::mem::replace(&mut self.phase, Phase::Idle);
        match phase {
            Phase::Resource {
                urls,
                next,
                fetch,
                failure,
            } if fetch == id => self.on_resource(urls, next, failure, answer),
            Phase::Server {
                prm,
                issuer,
                urls,
                next,
                fetch,
                failure,
                tried,
            } if fetch == id => self.on_server(prm, issuer, urls, next, failure, tried, answer),
            Phase::Registering { prm, server, fetch } if fetch == id => match answer {
                Ok((status, body)) => match client::parse_registration(
                    status,
                    body,
                    &server.token_endpoint_auth_methods_supported,
                ) {
                    Ok(client) => self.ask_for_pkce(Flow {
                        prm,
                        server,
                        client,
                    }),
                    Err(e) => self.fail(e),
                },
                Err(f) => {
                    let url = server.registration_endpoint.clone().unwrap_or_default();
                    self.fail(failure_error(f, &url, Endpoint::Registration))
                }
            },
            Phase::Exchanging { pending, fetch } if fetch == id => {
                self.on_code_token(now_ms, pending, answer)
            }
            other => self.phase = other,
        }
    }

    fn on_resource(
        &mut self,
        urls: Vec<String>,
        next: usize,
        failure: Option<OAuthError>,
        answer: Answer<'_>,
    ) {
        let url = urls[next - 1].clone();
        let failure = match answer {
            Ok((status, body)) if (200..300).contains(&status) => {
                let Some(server) = self.server.clone() else {
                    return;
                };
                match parse_resource_metadata(body, &url, &server) {
                    Ok(prm) => self.start_server_discovery(prm, 0, Vec::new(), None),
                    Err(e) => self.fail(e),
                }
                return;
            }
            // 404 and other client errors mean "not here": try the next address.
            Ok((status, _)) if (400..500).contains(&status) => failure,
            Ok((status, _)) => {
                failure.or(Some(status_error(status, &url, Endpoint::ResourceMetadata)))
            }
            Err(f) => failure.or(Some(failure_error(f, &url, Endpoint::ResourceMetadata))),
        };
        if let Some(u) = urls.get(next).cloned() {
            let fetch = self.fetch(get_json(&u));
            self.phase = Phase::Resource {
                urls,
                next: next + 1,
                fetch,
                failure,
            };
        } else if failure.is_none() && self.setup.legacy_fallback {
            self.start_legacy_discovery();
        } else {
            self.fail(failure.unwrap_or(OAuthError::NoResourceMetadata { tried: urls }));
        }
    }

    /// The 2025-03-26 revision's discovery, for servers that publish no resource metadata
    /// (its "Server Metadata Discovery" and "Fallbacks for Servers without Metadata
    /// Discovery"): the MCP server's origin is the authorization server; its RFC 8414 metadata
    /// is tried, and without it `/authorize`, `/token` and `/register` on that origin. Taken
    /// only when every resource metadata address answered "not here", never after a network
    /// or CORS failure, which would hide the real cause.
    fn start_legacy_discovery(&mut self) {
        let Some(server) = self.server.clone() else {
            return;
        };
        self.legacy = true;
        let prm = ProtectedResource {
            resource: server.as_string(),
            authorization_servers: vec![server.origin()],
            scopes_supported: None,
        };
        self.start_server_discovery(prm, 0, Vec::new(), None);
    }

    /// The 2025-03-26 default endpoints. Without metadata there is nothing that says PKCE is
    /// supported; that revision required it of servers, so S256 is sent as always.
    fn legacy_default_server(origin: &str) -> AuthorizationServer {
        AuthorizationServer {
            issuer: origin.to_string(),
            authorization_endpoint: format!("{origin}/authorize"),
            token_endpoint: format!("{origin}/token"),
            registration_endpoint: Some(format!("{origin}/register")),
            revocation_endpoint: None,
            scopes_supported: None,
            token_endpoint_auth_methods_supported: Vec::new(),
            client_id_metadata_document_supported: false,
            authorization_response_iss_parameter_supported: false,
            grant_types_supported: None,
            token_endpoint_auth_signing_alg_values_supported: Vec::new(),
            dpop_signing_alg_values_supported: Vec::new(),
        }
    }

    /// Look up the metadata of `prm.authorization_servers[issuer]`, or the next one whose
    /// identifier is a usable URL.
    fn start_server_discovery(
        &mut self,
        prm: ProtectedResource,
        mut issuer: usize,
        tried: Vec<String>,
        mut failure: Option<OAuthError>,
    ) {
        while let Some(id) = prm.authorization_servers.get(issuer) {
            match HttpUrl::parse(id) {
                Some(parsed) => {
                    let urls = server_metadata_urls(&parsed);
                    let fetch = self.fetch(get_json(&urls[0]));
                    self.phase = Phase::Server {
                        prm,
                        issuer,
                        urls,
                        next: 1,
                        fetch,
                        failure,
                        tried,
                    };
                    return;
                }
                None => {
                    failure = failure.or(Some(OAuthError::BadMetadata {
                        url: id.clone(),
                        reason:
                            "the authorization server's identifier is not an absolute http(s) URL"
                                .into(),
                    }));
                    issuer += 1;
                }
            }
        }
        let first = prm
            .authorization_servers
            .first()
            .cloned()
            .unwrap_or_default();
        self.fail(failure.unwrap_or(OAuthError::NoServerMetadata {
            issuer: first,
            tried,
        }));
    }

    #[allow(clippy::too_many_arguments)]
    fn on_server(
        &mut self,
        prm: ProtectedResource,
        issuer: usize,
        urls: Vec<String>,
        next: usize,
        failure: Option<OAuthError>,
        mut tried: Vec<String>,
        answer: Answer<'_>,
    ) {
        let url = urls[next - 1].clone();
        tried.push(url.clone());
        let failure = match answer {
            Ok((status, body)) if (200..300).contains(&status) => {
                let expected = prm.authorization_servers[issuer].clone();
                let parsed = if self.legacy {
                    parse_legacy_server_metadata(body, &url, &expected)
                } else {
                    parse_server_metadata(body, &url, &expected)
                };
                match parsed {
                    Ok(server) => self.choose_client(prm, server),
                    Err(e) => self.fail(e),
                }
                return;
            }
            Ok((status, _)) if (400..500).contains(&status) => failure,
            Ok((status, _)) => {
                failure.or(Some(status_error(status, &url, Endpoint::ServerMetadata)))
            }
            Err(f) => failure.or(Some(failure_error(f, &url, Endpoint::ServerMetadata))),
        };
        if let Some(u) = urls.get(next).cloned() {
            let fetch = self.fetch(get_json(&u));
            self.phase = Phase::Server {
                prm,
                issuer,
                urls,
                next: next + 1,
                fetch,
                failure,
                tried,
            };
        } else if self.legacy && failure.is_none() {
            let origin = prm.authorization_servers[issuer].clone();
            let server = Self::legacy_default_server(&origin);
            match HttpUrl::parse(&origin) {
                Some(o) if is_secure_endpoint(&o) => self.choose_client(prm, server),
                _ => self.fail(OAuthError::InsecureEndpoint { url: origin }),
            }
        } else {
            self.start_server_discovery(prm, issuer + 1, tried, failure);
        }
    }

    fn choose_client(&mut self, prm: ProtectedResource, server: AuthorizationServer) {
        let choice = grant::choose(
            self.setup.client_id.as_deref(),
            self.setup.client_secret.as_deref(),
            &self.setup.grant,
            &server,
        );
        let (client, idp, workload) = match choice {
            Ok(GrantChoice::Code) => return self.choose_code_client(prm, server),
            Ok(GrantChoice::ClientCredentials { client }) => (client, None, None),
            Ok(GrantChoice::CrossApp { client, idp }) => (client, Some(idp), None),
            Ok(GrantChoice::Workload { client, assertion }) => (client, None, Some(assertion)),
            Err(e) => return self.fail(e),
        };
        // The scopes the code flow would ask for (`pending_for`), without `offline_access`:
        // these grants give no refresh token.
        let scopes = self
            .wanted
            .clone()
            .filter(|w| !w.is_empty())
            .or_else(|| prm.scopes_supported.clone())
            .unwrap_or_default();
        self.start_grant(GrantTarget {
            issuer: server.issuer,
            resource: prm.resource,
            token_endpoint: server.token_endpoint,
            revocation_endpoint: server.revocation_endpoint,
            client,
            scopes,
            idp,
            workload,
            dpop: super::dpop::wanted(&server.dpop_signing_alg_values_supported),
        });
    }

    fn choose_code_client(&mut self, prm: ProtectedResource, server: AuthorizationServer) {
        match client::choose_with_secret(
            self.setup.client_id.as_deref(),
            self.setup.client_secret.as_deref(),
            &self.setup.app,
            &server,
        ) {
            Ok(ClientChoice::Use(client)) => self.ask_for_pkce(Flow {
                prm,
                server,
                client,
            }),
            Ok(ClientChoice::Register(request)) => {
                let fetch = self.fetch(request);
                self.phase = Phase::Registering { prm, server, fetch };
            }
            Err(e) => self.fail(e),
        }
    }

    fn ask_for_pkce(&mut self, flow: Flow) {
        self.phase = Phase::Pkce(flow);
        self.commands.push_back(AuthCommand::PreparePkce);
    }

    /// The authorization request for `flow`, scopes chosen by the MCP "Scope Selection
    /// Strategy": the challenge's (or the step-up union), else the resource's
    /// `scopes_supported`, else none; plus `offline_access` when the authorization server
    /// lists it and some scope is asked anyway (2026-07-28 "Refresh Tokens": MAY).
    pub(super) fn pending_for(
        &self,
        flow: &Flow,
        pkce: Pkce,
        state: String,
    ) -> PendingAuthorization {
        let mut scopes = self
            .wanted
            .clone()
            .filter(|w| !w.is_empty())
            .or_else(|| flow.prm.scopes_supported.clone())
            .unwrap_or_default();
        let offers_offline = flow
            .server
            .scopes_supported
            .as_ref()
            .is_some_and(|s| s.iter().any(|x| x == "offline_access"));
        if offers_offline && !scopes.is_empty() && !scopes.iter().any(|x| x == "offline_access") {
            scopes.push("offline_access".into());
        }
        let request = AuthorizationRequest {
            authorization_endpoint: flow.server.authorization_endpoint.clone(),
            client_id: flow.client.client_id().to_string(),
            redirect_uri: self.setup.app.redirect_uri.clone(),
            code_challenge: pkce.challenge,
            state: state.clone(),
            scope: scopes.clone(),
            resource: flow.prm.resource.clone(),
        };
        PendingAuthorization {
            issuer: flow.server.issuer.clone(),
            iss_required: flow.server.authorization_response_iss_parameter_supported,
            resource: flow.prm.resource.clone(),
            token_endpoint: flow.server.token_endpoint.clone(),
            revocation_endpoint: flow.server.revocation_endpoint.clone(),
            client: flow.client.clone(),
            redirect_uri: self.setup.app.redirect_uri.clone(),
            scopes,
            verifier: pkce.verifier,
            state,
            authorization_url: request.url(),
            dpop: super::dpop::wanted(&flow.server.dpop_signing_alg_values_supported),
        }
    }

    fn on_code_token(&mut self, now_ms: f64, p: PendingAuthorization, answer: Answer<'_>) {
        let token = match answer {
            Ok((status, body)) => parse_token_response(status, body),
            Err(f) => Err(failure_error(f, &p.token_endpoint, Endpoint::Token)),
        };
        // A DPoP-bound token for a request that carried no proof is bound to no key of ours:
        // it could never be presented.
        let token = token.and_then(|t| {
            if t.token_type == TokenType::DPoP && !p.dpop {
                Err(OAuthError::BadTokenResponse(
                    "its token_type is DPoP, but Skiff sent no DPoP proof".into(),
                ))
            } else {
                Ok(t)
            }
        });
        match token {
            Ok(t) => {
                let creds = Credentials::from_token(
                    now_ms,
                    &p.issuer,
                    &p.resource,
                    p.client.clone(),
                    &p.token_endpoint,
                    p.revocation_endpoint.as_deref(),
                    t,
                    &p.scopes,
                );
                self.wanted = Some(p.scopes.clone());
                self.refresh_retry_at = None;
                self.fresh_after_401 = None;
                self.commands.push_back(AuthCommand::Store(creds.clone()));
                self.creds = Some(creds);
                self.phase = Phase::Idle;
                self.show_settled();
                self.resume_waiters();
            }
            Err(e) => self.fail(e),
        }
    }

    fn on_refresh(&mut self, now_ms: f64, answer: Answer<'_>) {
        let after_401 = std::mem::take(&mut self.refresh_after_401);
        let Some(old) = self.creds.clone() else {
            return;
        };
        let token = match answer {
            Ok((status, body)) => parse_token_response(status, body),
            Err(f) => {
                // No answer: the grant may still be good. Keep the credentials, let the
                // waiting requests try the current token while it lasts, and try again later.
                let error = failure_error(f, &old.token_endpoint, Endpoint::Token);
                self.refresh_retry_at = Some(now_ms + REFRESH_RETRY_MS);
                if old.expired(now_ms) {
                    for waiter in std::mem::take(&mut self.waiters) {
                        self.commands.push_back(AuthCommand::Fail {
                            waiter,
                            error: error.clone(),
                        });
                    }
                    self.set_status(AuthStatus::Failed(error));
                } else {
                    self.resume_waiters();
                }
                return;
            }
        };
        match token {
            Ok(t) => {
                let creds = old.refreshed(now_ms, t);
                self.fresh_after_401 = after_401.then(|| creds.authorization_header());
                self.commands.push_back(AuthCommand::Store(creds.clone()));
                self.creds = Some(creds);
                if matches!(self.phase, Phase::Idle) {
                    self.show_settled();
                }
                self.resume_waiters();
            }
            Err(_) => {
                // The grant is refused (expired, revoked): a new sign-in is the only way.
                self.drop_credentials();
                self.prepare_sign_in(None);
            }
        }
    }
}
