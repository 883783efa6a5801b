//! The grants `AuthMachine` runs without a browser window (`grant::GrantChoice`): client
//! credentials, with a secret or a signed assertion, and cross-app access (token exchange at
//! the identity provider, then jwt-bearer), and a workload's jwt-bearer grant with its own JWT.
//! One run at a time: the first after discovery (the
//! card shows "Finishing the sign-in…"), or a renewal from the stored credentials when their
//! token is due or refused, since these grants give no refresh token; requests wait on a
//! renewal exactly as on a refresh.

use super::client::ClientIdentity;
use super::credentials::{Credentials, TokenGrant};
use super::error::{Endpoint, OAuthError};
use super::grant::{IdpExchange, SignInMethod};
use super::grant_requests::{
    client_credentials_request, jwt_bearer_request, parse_exchange_response, token_exchange_request,
};
use super::jwt;
use super::machine::{AuthMachine, REFRESH_RETRY_MS};
use super::machine_steps::{failure_error, Answer, Phase};
use super::machine_types::{AuthCommand, AuthStatus, FetchId};
use super::stored::dpop_key_name;
use super::token::{parse_token_response, TokenType};
use crate::http::HttpRequest;

/// What a grant's token is for and who asks: from discovery on a first run, from the stored
/// credentials on a renewal.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct GrantTarget {
    pub(super) issuer: String,
    pub(super) resource: String,
    pub(super) token_endpoint: String,
    pub(super) revocation_endpoint: Option<String>,
    pub(super) client: ClientIdentity,
    pub(super) scopes: Vec<String>,
    /// Cross-app access: where the ID token is exchanged first.
    pub(super) idp: Option<IdpExchange>,
    /// A workload: the JWT its identity provider issued, presented as the grant.
    pub(super) workload: Option<String>,
    /// The authorization server binds tokens to a key (`dpop::wanted`, or the stored token is
    /// DPoP-bound): its token requests carry a proof.
    pub(super) dpop: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum GrantStep {
    /// The page is signing the client assertion; `input` once it asked for it.
    Sign {
        id: FetchId,
        input: Option<String>,
    },
    Exchange(FetchId),
    Token(FetchId),
}

impl GrantStep {
    fn id(&self) -> FetchId {
        match self {
            GrantStep::Sign { id, .. } | GrantStep::Exchange(id) | GrantStep::Token(id) => *id,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) struct GrantRun {
    target: GrantTarget,
    step: GrantStep,
    /// Credentials exist: nothing shows, and requests wait as on a refresh.
    renewal: bool,
}

impl AuthMachine {
    /// Whether a sign-in needs nobody: the user chose a grant without a browser window, so a
    /// request that meets a 401 waits for it instead of failing with `SignInRequired`.
    pub(super) fn signs_in_alone(&self) -> bool {
        self.setup.grant.method != SignInMethod::Browser
    }

    /// Whether `id` is the step the running grant waits on.
    pub(super) fn is_grant_step(&self, id: FetchId) -> bool {
        self.grant_run.as_ref().is_some_and(|g| g.step.id() == id)
    }

    pub(super) fn start_grant(&mut self, target: GrantTarget) {
        let renewal = self.creds.is_some();
        if !renewal {
            self.phase = Phase::Granting;
            self.set_status(AuthStatus::Exchanging);
        }
        // Sign in opened a blank popup for a browser sign-in that turned out not to be one.
        if std::mem::take(&mut self.open_when_ready) {
            self.commands.push_back(AuthCommand::CloseAuthorization);
        }
        let step = if let Some(idp) = &target.idp {
            GrantStep::Exchange(self.fetch(token_exchange_request(
                idp,
                &target.issuer,
                &target.resource,
                &target.scopes,
            )))
        } else if let Some(assertion) = &target.workload {
            let request = jwt_bearer_request(
                &target.token_endpoint,
                &target.client,
                assertion,
                &target.scopes,
                &target.resource,
            );
            GrantStep::Token(self.fetch_token(&target, request))
        } else if let ClientIdentity::Signed { alg, .. } = &target.client {
            self.next_fetch += 1;
            let id = self.next_fetch;
            self.commands.push_back(AuthCommand::Sign { id, alg: *alg });
            GrantStep::Sign { id, input: None }
        } else {
            let request = client_credentials_request(
                &target.token_endpoint,
                &target.client,
                &target.scopes,
                &target.resource,
                None,
            );
            GrantStep::Token(self.fetch_token(&target, request))
        };
        self.set_grant(GrantRun {
            target,
            step,
            renewal,
        });
    }

    /// A request to the authorization server's token endpoint: with a DPoP proof when it
    /// binds tokens (the identity provider's token exchange never carries one).
    fn fetch_token(&mut self, target: &GrantTarget, request: HttpRequest) -> FetchId {
        if target.dpop {
            let key = dpop_key_name(&target.issuer, &target.resource);
            self.fetch_proved(request, key)
        } else {
            self.fetch(request)
        }
    }

    fn set_grant(&mut self, run: GrantRun) {
        if run.renewal {
            self.refreshing = Some(run.step.id());
        }
        self.grant_run = Some(run);
    }

    /// Run the grant that issued the stored credentials again (their token is due or was
    /// refused). Cross-app access and a workload need the ID token (the workload's JWT) still
    /// entered; without it nothing starts and the token is used while the server takes it.
    pub(super) fn start_renewal(&mut self) {
        let Some(c) = &self.creds else { return };
        let workload = match c.grant {
            TokenGrant::Workload => match &self.setup.grant.id_token {
                Some(t) => Some(t.clone()),
                None => return,
            },
            _ => None,
        };
        let idp = match c.grant {
            TokenGrant::CrossApp => {
                let g = &self.setup.grant;
                match (&g.idp_token_endpoint, &g.idp_client_id, &g.id_token) {
                    (Some(e), Some(i), Some(t)) => Some(IdpExchange {
                        token_endpoint: e.clone(),
                        client_id: i.clone(),
                        id_token: t.clone(),
                    }),
                    _ => return,
                }
            }
            _ => None,
        };
        let target = GrantTarget {
            issuer: c.issuer.clone(),
            resource: c.resource.clone(),
            token_endpoint: c.token_endpoint.clone(),
            revocation_endpoint: c.revocation_endpoint.clone(),
            client: c.client.clone(),
            scopes: c.scopes.clone(),
            idp,
            workload,
            dpop: c.token_type == TokenType::DPoP,
        };
        self.refresh_retry_at = None;
        self.start_grant(target);
    }

    /// The page drew the `jti`'s random bytes: the bytes it must sign, or `None` when no
    /// assertion waits on `id` (a stale answer).
    pub fn handle_assertion_random(
        &mut self,
        now_ms: f64,
        id: FetchId,
        random: &[u8],
    ) -> Option<String> {
        let run = self.grant_run.as_mut()?;
        let GrantStep::Sign { id: want, input } = &mut run.step else {
            return None;
        };
        let ClientIdentity::Signed { client_id, alg } = &run.target.client else {
            return None;
        };
        if *want != id {
            return None;
        }
        let now_s = (now_ms / 1000.0).max(0.0) as u64;
        let signing = jwt::assertion_input(
            *alg,
            client_id,
            &run.target.issuer,
            now_s,
            &jwt::jti_from_random(random),
        );
        *input = Some(signing.clone());
        Some(signing)
    }

    /// WebCrypto signed the assertion (or could not): send the client credentials request.
    pub fn handle_signature(&mut self, now_ms: f64, id: FetchId, signature: Result<&[u8], &str>) {
        let Some(run) = self.grant_run.take() else {
            return;
        };
        let (
            GrantStep::Sign {
                id: want,
                input: Some(input),
            },
            ClientIdentity::Signed { alg, .. },
        ) = (&run.step, &run.target.client)
        else {
            self.grant_run = Some(run);
            return;
        };
        if *want != id {
            self.grant_run = Some(run);
            return;
        }
        let assertion = signature
            .map_err(|m| OAuthError::SigningFailed(m.to_string()))
            .and_then(|sig| jwt::finish_assertion(*alg, input, sig));
        match assertion {
            Ok(a) => {
                let request = client_credentials_request(
                    &run.target.token_endpoint,
                    &run.target.client,
                    &run.target.scopes,
                    &run.target.resource,
                    Some(&a),
                );
                let fetch = self.fetch_token(&run.target, request);
                self.set_grant(GrantRun {
                    step: GrantStep::Token(fetch),
                    ..run
                });
            }
            Err(e) => self.grant_failed(now_ms, run, e, false),
        }
    }

    /// An answer for the running grant's current step.
    pub(super) fn on_grant_answer(&mut self, now_ms: f64, answer: Answer<'_>) {
        let Some(run) = self.grant_run.take() else {
            return;
        };
        let no_answer = answer.is_err();
        match &run.step {
            GrantStep::Exchange(_) => {
                let idp_url = run
                    .target
                    .idp
                    .as_ref()
                    .map_or_else(String::new, |i| i.token_endpoint.clone());
                let jag = match answer {
                    Ok((status, body)) => parse_exchange_response(status, body),
                    Err(f) => Err(failure_error(f, &idp_url, Endpoint::IdentityProvider)),
                };
                match jag {
                    Ok(jag) => {
                        let request = jwt_bearer_request(
                            &run.target.token_endpoint,
                            &run.target.client,
                            &jag,
                            &run.target.scopes,
                            &run.target.resource,
                        );
                        let fetch = self.fetch_token(&run.target, request);
                        self.set_grant(GrantRun {
                            step: GrantStep::Token(fetch),
                            ..run
                        });
                    }
                    Err(e) => self.grant_failed(now_ms, run, e, no_answer),
                }
            }
            GrantStep::Token(_) => {
                let token = match answer {
                    Ok((status, body)) => parse_token_response(status, body)
                        .map_err(|e| client_refusal(e, status, &run.target)),
                    Err(f) => Err(failure_error(
                        f,
                        &run.target.token_endpoint,
                        Endpoint::Token,
                    )),
                };
                match token {
                    Ok(t) => self.granted(now_ms, run, t),
                    Err(e) => self.grant_failed(now_ms, run, e, no_answer),
                }
            }
            GrantStep::Sign { .. } => self.grant_run = Some(run),
        }
    }

    fn granted(&mut self, now_ms: f64, run: GrantRun, token: super::token::TokenResponse) {
        let t = &run.target;
        let mut creds = Credentials::from_token(
            now_ms,
            &t.issuer,
            &t.resource,
            t.client.clone(),
            &t.token_endpoint,
            t.revocation_endpoint.as_deref(),
            token,
            &t.scopes,
        );
        creds.grant = if t.idp.is_some() {
            TokenGrant::CrossApp
        } else if t.workload.is_some() {
            TokenGrant::Workload
        } else {
            TokenGrant::ClientCredentials
        };
        let after_401 = std::mem::take(&mut self.refresh_after_401);
        self.fresh_after_401 = after_401.then(|| creds.authorization_header());
        self.refreshing = None;
        self.refresh_retry_at = None;
        self.wanted = Some(t.scopes.clone());
        self.commands.push_back(AuthCommand::Store(creds.clone()));
        self.creds = Some(creds);
        if matches!(self.phase, Phase::Granting) {
            self.phase = Phase::Idle;
        }
        if matches!(self.phase, Phase::Idle) {
            self.show_settled();
        }
        self.resume_waiters();
    }

    /// The grant stopped. A renewal that got no answer keeps the token while it lasts and
    /// tries again later, as a refresh does; any refusal ends the credentials, and the
    /// waiting requests fail with the reason.
    fn grant_failed(&mut self, now_ms: f64, run: GrantRun, error: OAuthError, no_answer: bool) {
        self.refreshing = None;
        self.refresh_after_401 = false;
        if run.renewal && no_answer && self.creds.as_ref().is_some_and(|c| !c.expired(now_ms)) {
            self.refresh_retry_at = Some(now_ms + REFRESH_RETRY_MS);
            self.resume_waiters();
            return;
        }
        for waiter in std::mem::take(&mut self.waiters) {
            self.commands.push_back(AuthCommand::Fail {
                waiter,
                error: error.clone(),
            });
        }
        if run.renewal {
            self.drop_credentials();
        }
        self.fail(error);
    }
}

/// A token endpoint's refusal of the client itself (RFC 6749 §5.2 `invalid_client`, or a bare
/// 401) is said as such: the id, secret or key is wrong, not the grant.
fn client_refusal(e: OAuthError, status: u16, target: &GrantTarget) -> OAuthError {
    match &e {
        OAuthError::TokenRefused { error, .. } if error == "invalid_client" || status == 401 => {
            OAuthError::ClientRefused {
                issuer: target.issuer.clone(),
                with_key: matches!(target.client, ClientIdentity::Signed { .. }),
            }
        }
        _ => e,
    }
}
