//! `AuthMachine`: signing in to one MCP server, over its whole life, as a sans-IO machine in
//! the shape of the MCP `Supervisor` (`handle_*` in, `poll_command` out, `poll_timeout` for the
//! one timer, time always an argument).
//!
//! It decides: when a 401 means "refresh" and when "sign in"; which metadata address comes
//! next; which client identity to use; what the authorization URL says; whether a callback
//! may be trusted; when to refresh (a little before expiry, and on a 401 for the current
//! token, one refresh at a time with requests waiting on it); how far to step up on a 403
//! `insufficient_scope`; what sign-out revokes. It never performs IO, never reads a clock,
//! never draws randomness, and never hands a token out for a URL outside the resource it was
//! issued for.
//!
//! Requests wait only for a refresh, which needs no one. A request that needs the user (a
//! first sign-in, a step-up) fails at once with `OAuthError::SignInRequired`, so an agent
//! turn never hangs on a popup nobody opens; the card offers Sign in.

use std::collections::VecDeque;

use super::credentials::Credentials;
use super::error::OAuthError;
use super::machine_grants::GrantRun;
use super::machine_steps::{Flow, Phase};
use super::machine_types::{
    Access, AuthCommand, AuthSetup, AuthStatus, FetchFailure, FetchId, PendingAuthorization,
    WaiterId,
};
use super::pkce::Pkce;
use super::stored::dpop_key_name;
use super::token::{self, TokenType};
use super::url::HttpUrl;
use super::www_authenticate::BearerChallenge;
use crate::http::HttpRequest;
use crate::mcp::http_common::HttpTarget;

/// After a refresh failed for want of a network, try again this much later.
pub const REFRESH_RETRY_MS: f64 = 30_000.0;

/// How many step-ups for the same scope set before a 403 is final (MCP "Step-Up Authorization
/// Flow": retry "no more than a few times").
pub const MAX_STEP_UPS: u32 = 2;

/// The URL a request to `fetched` is for: `fetched` without the CORS proxy prefix the page put
/// in front of it (`HttpTarget::fetch_url`), so the resource check judges the MCP server's own
/// address, never the proxy's. A URL without that prefix is returned as it is.
pub fn unproxied<'a>(proxy: Option<&str>, fetched: &'a str) -> &'a str {
    let Some(proxy) = proxy.map(str::trim).filter(|p| !p.is_empty()) else {
        return fetched;
    };
    let prefix = HttpTarget {
        proxy: Some(proxy.to_string()),
        ..HttpTarget::default()
    }
    .fetch_url("");
    fetched.strip_prefix(prefix.as_str()).unwrap_or(fetched)
}

pub struct AuthMachine {
    pub(super) setup: AuthSetup,
    pub(super) server: Option<HttpUrl>,
    pub(super) phase: Phase,
    pub(super) creds: Option<Credentials>,
    /// What discovery found, kept so a step-up goes straight to the authorization page.
    pub(super) flow: Option<Flow>,
    /// Discovery fell back to the 2025-03-26 rules (no resource metadata).
    pub(super) legacy: bool,
    /// Scopes the next authorization asks for (from a challenge or a step-up); `None` means
    /// the scope selection strategy's fallback (`scopes_supported`).
    pub(super) wanted: Option<Vec<String>>,
    /// The scope set of the last step-up and how often it was tried.
    pub(super) step_ups: (Vec<String>, u32),
    /// The user pressed Sign in before everything was ready: open as soon as it is.
    pub(super) open_when_ready: bool,
    /// The refresh in flight (one at a time) and the requests waiting for it.
    pub(super) refreshing: Option<FetchId>,
    pub(super) waiters: Vec<WaiterId>,
    pub(super) refresh_retry_at: Option<f64>,
    /// The running refresh was caused by a 401 for the current token...
    pub(super) refresh_after_401: bool,
    /// ...and this `Authorization` value is what it gave: a 401 for it ends the credentials,
    /// until `access` hands it to a new request. A 401 for the resent request itself means
    /// the grant gives tokens this server refuses; once the token went out on its own, a later
    /// 401 is a token that ended (expired early, revoked, a server restarted) and worth a
    /// refresh like any other, or a second early end would ask the user to sign in again.
    pub(super) fresh_after_401: Option<String>,
    pub(super) revokes: Vec<FetchId>,
    /// The grant without a browser window that is running (`machine_grants`), if any.
    pub(super) grant_run: Option<GrantRun>,
    /// The user asked for this sign-in (Sign in, or a full-page redirect came back): connect
    /// once it is done, unless a request waits for it (`AuthCommand::Connect`).
    pub(super) connect_when_signed_in: bool,
    /// Token requests sent with a DPoP proof, until answered: what to send again, once, when
    /// the authorization server asks for a nonce (`machine_dpop`).
    pub(super) proved: Vec<super::machine_dpop::Proved>,
    /// The last DPoP nonce each server gave, by origin (authorization and resource servers).
    pub(super) nonces: super::dpop::Nonces,
    pub(super) next_fetch: FetchId,
    pub(super) shown: Option<AuthStatus>,
    pub(super) commands: VecDeque<AuthCommand>,
}

impl AuthMachine {
    pub fn new(setup: AuthSetup) -> AuthMachine {
        let server = HttpUrl::parse(&setup.server_url);
        let creds = setup.stored.clone();
        let mut m = AuthMachine {
            server,
            phase: Phase::Idle,
            wanted: creds.as_ref().map(|c| c.scopes.clone()),
            creds,
            flow: None,
            legacy: false,
            step_ups: (Vec::new(), 0),
            open_when_ready: false,
            refreshing: None,
            waiters: Vec::new(),
            refresh_retry_at: None,
            refresh_after_401: false,
            fresh_after_401: None,
            revokes: Vec::new(),
            grant_run: None,
            connect_when_signed_in: false,
            proved: Vec::new(),
            nonces: Default::default(),
            next_fetch: 0,
            shown: None,
            commands: VecDeque::new(),
            setup,
        };
        if let Some(p) = m.setup.pending.take() {
            m.connect_when_signed_in = true;
            m.set_status(AuthStatus::WaitingForUser {
                issuer: p.issuer.clone(),
            });
            m.phase = Phase::Callback(p);
        } else {
            m.show_settled();
        }
        m
    }

    /// The next thing the page must do.
    pub fn poll_command(&mut self) -> Option<AuthCommand> {
        self.commands.pop_front()
    }

    /// When to call `handle_timeout` next: the refresh time of the current token.
    pub fn poll_timeout(&self) -> Option<f64> {
        if self.refreshing.is_some() {
            return None;
        }
        let c = self.creds.as_ref()?;
        match (c.refresh_at_ms(), self.refresh_retry_at) {
            (Some(at), Some(retry)) => Some(at.max(retry)),
            (at, _) => at,
        }
    }

    pub fn credentials(&self) -> Option<&Credentials> {
        self.creds.as_ref()
    }

    /// Why the last sign-in attempt stopped, while it is the last word.
    pub fn failure(&self) -> Option<&OAuthError> {
        match &self.phase {
            Phase::Failed(e) => Some(e),
            _ => None,
        }
    }

    pub fn status(&self) -> Option<&AuthStatus> {
        self.shown.as_ref()
    }

    /// Whether this machine was made for another address or CORS proxy than the server has
    /// now (the user edited them, often as the CORS sentence says) and may be made again: not
    /// while requests wait on it. One not signed in then starts afresh; a signed-in one comes
    /// back from its stored record if that still covers the address, so the next sign-in and
    /// every refresh go the new way.
    pub fn outdated(&self, server_url: &str, proxy: Option<&str>) -> bool {
        let proxy = proxy.map(str::trim).filter(|p| !p.is_empty());
        let moved = self.setup.server_url != server_url || self.setup.proxy.as_deref() != proxy;
        moved && self.waiters.is_empty()
    }

    /// What an MCP request to `url` may carry. A token only ever goes to a URL inside the
    /// resource it was issued for; a token due for refresh makes the request wait for it.
    pub fn access(&mut self, now_ms: f64, waiter: WaiterId, url: &str) -> Access {
        let url = unproxied(self.setup.proxy.as_deref(), url);
        let Some(c) = self.creds.as_ref().filter(|c| c.covers(url)) else {
            return Access::Anonymous;
        };
        let due = c.refresh_at_ms().is_some_and(|at| now_ms >= at)
            && self.refresh_retry_at.is_none_or(|at| now_ms >= at);
        if self.refreshing.is_some() || due {
            self.start_refresh();
            if self.refreshing.is_some() {
                self.waiters.push(waiter);
                return Access::Wait;
            }
        }
        match self.creds.as_ref() {
            Some(c) => {
                self.fresh_after_401 = None;
                Access::Bearer(c.authorization_header())
            }
            None => Access::Anonymous,
        }
    }

    /// The MCP server answered 401 to request `waiter`, which carried `sent` as its
    /// `Authorization` (or nothing). A stale token is swapped for the current one; a current
    /// token is refreshed (the request waits); otherwise the credentials are dropped, the
    /// request fails with `SignInRequired`, and sign-in is prepared from the challenge.
    pub fn handle_unauthorized(
        &mut self,
        now_ms: f64,
        waiter: WaiterId,
        sent: Option<&str>,
        www_authenticate: &[&str],
    ) {
        let _ = now_ms;
        let challenge = BearerChallenge::from_headers(www_authenticate)
            .ok()
            .flatten()
            .unwrap_or_default();
        // The credentials are refused below without a way to renew them: the grant itself is
        // no good here, so no grant runs again on its own for this request.
        let mut refused = false;
        if let Some(c) = &self.creds {
            if sent.is_none() {
                // The request went without a token because its URL is outside the resource
                // (`access` said `Anonymous`); a new sign-in would give the same resource, so
                // the credentials stay and only this request fails.
                self.commands.push_back(AuthCommand::Fail {
                    waiter,
                    error: OAuthError::NotCovered,
                });
                return;
            }
            let current = c.authorization_header();
            if sent.is_some_and(|s| s != current) {
                self.commands.push_back(AuthCommand::Resume {
                    waiter,
                    authorization: current,
                });
                return;
            }
            // A token fresh from a refresh that a 401 caused is refused too: refreshing again
            // would loop; the grant itself is no good for this server.
            let refused_fresh = self.fresh_after_401.as_deref() == Some(current.as_str());
            let renewable = c.refresh_token.is_some() || c.grant.runs_again();
            if self.refreshing.is_some() || renewable && !refused_fresh {
                if self.refreshing.is_none() {
                    self.refresh_after_401 = true;
                }
                self.start_refresh();
                if self.refreshing.is_some() {
                    self.waiters.push(waiter);
                    return;
                }
            }
            // Refused with no way to refresh: these credentials are done. What discovery
            // found goes with them: the server may have moved to another authorization server
            // (MCP 2026-07-28 "Authorization Server Binding", SEP-2352), so the next sign-in
            // reads its metadata again, and a new issuer gets its own registration instead of
            // the old one's client id.
            self.drop_credentials();
            self.flow = None;
            refused = true;
        }
        if !challenge.scope.is_empty() {
            self.wanted = Some(challenge.scope.clone());
        }
        if !refused && self.signs_in_alone() {
            // Nobody needs to click: the request waits for the grant, unless the last one
            // failed, whose sentence stands until the user changes something or signs in.
            if let Phase::Failed(e) = &self.phase {
                let error = e.clone();
                self.commands.push_back(AuthCommand::Fail { waiter, error });
                return;
            }
            self.waiters.push(waiter);
            self.prepare_sign_in(challenge.resource_metadata.as_deref());
            return;
        }
        self.commands.push_back(AuthCommand::Fail {
            waiter,
            error: OAuthError::SignInRequired,
        });
        self.prepare_sign_in(challenge.resource_metadata.as_deref());
    }

    /// `handle_unauthorized` for a request to `url`: a request that went without a token to a
    /// URL the credentials do cover (the page asked before the stored credentials were
    /// loaded, at start) is simply given the token, or waits for a refresh, instead of being
    /// failed as `NotCovered`.
    pub fn handle_unauthorized_at(
        &mut self,
        now_ms: f64,
        waiter: WaiterId,
        url: &str,
        sent: Option<&str>,
        www_authenticate: &[&str],
    ) {
        let url = unproxied(self.setup.proxy.as_deref(), url);
        if sent.is_none() && self.creds.as_ref().is_some_and(|c| c.covers(url)) {
            match self.access(now_ms, waiter, url) {
                Access::Bearer(authorization) => self.commands.push_back(AuthCommand::Resume {
                    waiter,
                    authorization,
                }),
                Access::Wait => {}
                Access::Anonymous => self.commands.push_back(AuthCommand::Fail {
                    waiter,
                    error: OAuthError::NotCovered,
                }),
            }
            return;
        }
        self.handle_unauthorized(now_ms, waiter, sent, www_authenticate);
    }

    /// The MCP server answered 403 to request `waiter`. Returns `false` when its challenge does
    /// not ask for scope (`BearerChallenge::asks_for_scope`: an ordinary refusal, the caller's
    /// to report). Otherwise
    /// prepares a step-up to the union of the scopes asked before and the challenge's, and
    /// fails the request with `SignInRequired`, or with `StepUpExhausted` once the same set
    /// was tried `MAX_STEP_UPS` times.
    pub fn handle_forbidden(
        &mut self,
        now_ms: f64,
        waiter: WaiterId,
        www_authenticate: &[&str],
    ) -> bool {
        let _ = now_ms;
        let Some(challenge) = BearerChallenge::from_headers(www_authenticate)
            .ok()
            .flatten()
        else {
            return false;
        };
        if !challenge.asks_for_scope() {
            return false;
        }
        let mut scopes = self
            .wanted
            .clone()
            .or_else(|| self.creds.as_ref().map(|c| c.scopes.clone()))
            .unwrap_or_default();
        for s in &challenge.scope {
            if !scopes.contains(s) {
                scopes.push(s.clone());
            }
        }
        if self.step_ups.0 == scopes {
            self.step_ups.1 += 1;
        } else {
            self.step_ups = (scopes.clone(), 1);
        }
        if self.step_ups.1 > MAX_STEP_UPS {
            self.commands.push_back(AuthCommand::Fail {
                waiter,
                error: OAuthError::StepUpExhausted { scopes },
            });
            return true;
        }
        self.wanted = Some(scopes);
        self.commands.push_back(AuthCommand::Fail {
            waiter,
            error: OAuthError::SignInRequired,
        });
        // A step-up restarts the authorization even when one is ready, since its scopes grew.
        if matches!(self.phase, Phase::Ready(_)) {
            self.phase = Phase::Idle;
        }
        self.prepare_sign_in(challenge.resource_metadata.as_deref());
        true
    }

    /// The user pressed Sign in. Opens the authorization page when it is ready; otherwise
    /// prepares it and opens it as soon as it is (the runner opened a blank popup already).
    pub fn sign_in(&mut self, now_ms: f64) {
        let _ = now_ms;
        self.connect_when_signed_in = true;
        if let Phase::Ready(p) = &self.phase {
            let p = p.clone();
            self.open(p);
            return;
        }
        self.open_when_ready = true;
        if matches!(self.phase, Phase::Failed(_)) {
            self.phase = Phase::Idle;
        }
        self.prepare_sign_in(None);
    }

    /// Sign out: forget the credentials, revoke them where the server offers RFC 7009, and
    /// fail whatever waited on a refresh.
    pub fn sign_out(&mut self, now_ms: f64) {
        let _ = now_ms;
        if let Some(c) = self.creds.clone() {
            // A client that authenticates with a signed assertion cannot revoke without signing
            // one; its tokens are short-lived and forgotten here.
            let can_revoke = !matches!(c.client, super::client::ClientIdentity::Signed { .. });
            if let Some(endpoint) = c.revocation_endpoint.as_deref().filter(|_| can_revoke) {
                if let Some(rt) = &c.refresh_token {
                    let id = self.fetch(token::revoke_request(
                        endpoint,
                        &c.client,
                        rt,
                        "refresh_token",
                    ));
                    self.revokes.push(id);
                }
                let id = self.fetch(token::revoke_request(
                    endpoint,
                    &c.client,
                    &c.access_token,
                    "access_token",
                ));
                self.revokes.push(id);
            }
            self.drop_credentials();
        }
        if matches!(self.phase, Phase::Callback(_)) {
            self.commands.push_back(AuthCommand::CloseAuthorization);
        }
        // A grant still running would sign in again right after: its answer is ignored.
        self.grant_run = None;
        self.phase = Phase::Idle;
        self.open_when_ready = false;
        self.wanted = None;
        self.step_ups = (Vec::new(), 0);
        self.show_settled();
    }

    /// Time passed: refresh when the token is due.
    pub fn handle_timeout(&mut self, now_ms: f64) {
        if self.poll_timeout().is_some_and(|at| now_ms >= at) {
            self.start_refresh();
        }
    }

    /// The page drew the PKCE verifier, digested it and drew a state.
    pub fn handle_pkce(&mut self, now_ms: f64, pkce: Pkce, state: String) {
        let _ = now_ms;
        let Phase::Pkce(flow) = std::mem::replace(&mut self.phase, Phase::Idle) else {
            return;
        };
        let pending = self.pending_for(&flow, pkce, state);
        self.flow = Some(flow);
        self.phase = Phase::Ready(pending.clone());
        if self.open_when_ready {
            self.open(pending);
        } else {
            self.set_status(AuthStatus::SignInRequired {
                issuer: pending.issuer,
                scopes: pending.scopes,
            });
        }
    }

    /// The user closed the authorization page (the popup) without an answer coming back. The
    /// request it carried is abandoned (its state and verifier are never reused), and Sign in
    /// starts a fresh one from what discovery found. A redirect that already came back is
    /// not affected: only a sign-in still waiting for its callback is.
    pub fn handle_authorization_closed(&mut self, now_ms: f64) {
        let _ = now_ms;
        let Phase::Callback(p) = std::mem::replace(&mut self.phase, Phase::Idle) else {
            return;
        };
        self.commands.push_back(AuthCommand::CloseAuthorization);
        self.open_when_ready = false;
        self.set_status(AuthStatus::SignInRequired {
            issuer: p.issuer,
            scopes: p.scopes,
        });
    }

    /// The redirect URI was loaded with the authorization response.
    pub fn handle_callback(&mut self, now_ms: f64, url: &str) {
        let _ = now_ms;
        // Nothing waits for it (a stale popup, a second tab): ignore it.
        if !matches!(self.phase, Phase::Callback(_)) {
            return;
        }
        let Phase::Callback(p) = std::mem::replace(&mut self.phase, Phase::Idle) else {
            return;
        };
        self.commands.push_back(AuthCommand::CloseAuthorization);
        let expected = super::authorize::Expected {
            state: &p.state,
            issuer: &p.issuer,
            iss_required: p.iss_required,
        };
        match super::authorize::parse_callback(url, &expected) {
            Ok(code) => {
                let request = token::code_request(
                    &p.token_endpoint,
                    &p.client,
                    &code,
                    &p.redirect_uri,
                    &p.verifier,
                    &p.resource,
                );
                let id = if p.dpop {
                    let key = dpop_key_name(&p.issuer, &p.resource);
                    self.fetch_proved(request, key)
                } else {
                    self.fetch(request)
                };
                self.phase = Phase::Exchanging {
                    pending: p,
                    fetch: id,
                };
                self.set_status(AuthStatus::Exchanging);
            }
            Err(e) => self.fail(e),
        }
    }

    /// A fetch answered with an HTTP status and body.
    pub fn handle_response(&mut self, now_ms: f64, id: FetchId, status: u16, body: &str) {
        self.on_fetch(now_ms, id, Ok((status, body)));
    }

    /// A fetch got no HTTP answer.
    pub fn handle_fetch_failed(&mut self, now_ms: f64, id: FetchId, failure: FetchFailure) {
        self.forget_proved(id);
        self.on_fetch(now_ms, id, Err(failure));
    }

    // ----- helpers shared with machine_steps -----

    pub(super) fn fetch(&mut self, mut request: HttpRequest) -> FetchId {
        self.next_fetch += 1;
        let id = self.next_fetch;
        request.url = self.proxied(&request.url);
        self.commands.push_back(AuthCommand::Fetch { id, request });
        id
    }

    /// `url` through the server's CORS proxy, when it has one.
    pub(super) fn proxied(&self, url: &str) -> String {
        match self.setup.proxy.as_deref() {
            Some(proxy) => HttpTarget {
                proxy: Some(proxy.to_string()),
                ..HttpTarget::default()
            }
            .fetch_url(url),
            None => url.to_string(),
        }
    }

    pub(super) fn set_status(&mut self, status: AuthStatus) {
        if self.shown.as_ref() == Some(&status) {
            return;
        }
        let was_exchanging = matches!(self.shown, Some(AuthStatus::Exchanging));
        let signed_in = matches!(status, AuthStatus::SignedIn { .. });
        self.shown = Some(status.clone());
        self.commands.push_back(AuthCommand::Status(status));
        // A finished code exchange or first grant, or any sign-in the user asked for, means
        // the server's last connection was refused: connect now, unless a request waits (it is
        // resumed with the token, and a reconnect would race it).
        if signed_in && (was_exchanging || self.connect_when_signed_in) && self.waiters.is_empty() {
            self.connect_when_signed_in = false;
            self.commands.push_back(AuthCommand::Connect);
        }
    }

    /// The status when no sign-in step is running.
    pub(super) fn show_settled(&mut self) {
        let status = match &self.creds {
            Some(c) => AuthStatus::SignedIn {
                issuer: c.issuer.clone(),
                scopes: c.scopes.clone(),
                expires_at_ms: c.expires_at_ms,
            },
            None => AuthStatus::SignedOut,
        };
        self.set_status(status);
    }

    pub(super) fn fail(&mut self, error: OAuthError) {
        // Sign in was pressed and the page may hold a window for the authorization page (a
        // popup must be opened by the click itself): nothing will be shown in it now.
        if std::mem::take(&mut self.open_when_ready) {
            self.commands.push_back(AuthCommand::CloseAuthorization);
        }
        // Requests wait during a sign-in only when it needs nobody (`signs_in_alone`); they
        // learn why it stopped. Those waiting on a refresh keep waiting for it.
        if self.refreshing.is_none() {
            for waiter in std::mem::take(&mut self.waiters) {
                self.commands.push_back(AuthCommand::Fail {
                    waiter,
                    error: error.clone(),
                });
            }
        }
        self.phase = Phase::Failed(error.clone());
        self.set_status(AuthStatus::Failed(error));
    }

    fn open(&mut self, pending: PendingAuthorization) {
        self.open_when_ready = false;
        self.set_status(AuthStatus::WaitingForUser {
            issuer: pending.issuer.clone(),
        });
        self.commands.push_back(AuthCommand::OpenAuthorization {
            url: pending.authorization_url.clone(),
            pending: pending.clone(),
        });
        self.phase = Phase::Callback(pending);
    }

    pub(super) fn drop_credentials(&mut self) {
        if let Some(c) = self.creds.take() {
            self.commands.push_back(AuthCommand::Delete {
                issuer: c.issuer,
                resource: c.resource,
            });
        }
        self.refresh_retry_at = None;
        self.refresh_after_401 = false;
        self.fresh_after_401 = None;
        for waiter in std::mem::take(&mut self.waiters) {
            self.commands.push_back(AuthCommand::Fail {
                waiter,
                error: OAuthError::SignInRequired,
            });
        }
        self.refreshing = None;
    }

    /// Start a refresh unless one runs or there is nothing to refresh with.
    pub(super) fn start_refresh(&mut self) {
        if self.refreshing.is_some() {
            return;
        }
        let Some(c) = &self.creds else { return };
        if c.refresh_token.is_none() && c.grant.runs_again() {
            self.start_renewal();
            return;
        }
        let Some(rt) = &c.refresh_token else { return };
        let request = token::refresh_request(&c.token_endpoint, &c.client, rt, &c.resource);
        // A DPoP-bound token's refresh token is bound to the same key (RFC 9449 §5): its
        // refresh carries a proof signed with it.
        let key = (c.token_type == TokenType::DPoP).then(|| dpop_key_name(&c.issuer, &c.resource));
        self.refresh_retry_at = None;
        let id = match key {
            Some(key) => self.fetch_proved(request, key),
            None => self.fetch(request),
        };
        self.refreshing = Some(id);
    }

    pub(super) fn resume_waiters(&mut self) {
        let Some(c) = &self.creds else { return };
        let authorization = c.authorization_header();
        for waiter in std::mem::take(&mut self.waiters) {
            self.commands.push_back(AuthCommand::Resume {
                waiter,
                authorization: authorization.clone(),
            });
        }
    }
}
