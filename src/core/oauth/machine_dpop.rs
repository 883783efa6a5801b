//! DPoP in `AuthMachine` (RFC 9449; the MCP DPoP extension, SEP-1932): which token requests
//! carry a proof and the one resend a nonce refusal earns them (§8), the proof an MCP request
//! with a DPoP-bound token carries (§7.1), and the nonces servers hand out, kept per origin
//! (§8.2, §9). What a proof says is `dpop`'s; drawing its `jti`, reading the clock, hashing
//! the token and signing are the page's.
//!
//! It never decides to send a request again after a server may have run it: only a token
//! request refused with 400 `use_dpop_nonce` is resent (the token endpoint issued nothing),
//! and the MCP request side is `request_auth::RequestAuth::nonce_retry` (a 401 only).

use super::dpop::{bound_token, token_nonce_challenge, ProofPlan};
use super::machine::{unproxied, AuthMachine};
use super::machine_types::{AuthCommand, FetchId};
use super::stored::dpop_key_name;
use super::token::TokenType;
use crate::http::HttpRequest;

/// A token request sent with a proof, until its answer is taken.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Proved {
    id: FetchId,
    /// As sent (through the CORS proxy, when there is one).
    request: HttpRequest,
    plan: ProofPlan,
    /// Sent again with the server's nonce already: a second refusal is the answer.
    resent: bool,
}

impl AuthMachine {
    /// Ask for `request` (to the server's own URL) with a proof signed by the key `key`,
    /// carrying the nonce this server gave last, if any.
    pub(super) fn fetch_proved(&mut self, mut request: HttpRequest, key: String) -> FetchId {
        self.next_fetch += 1;
        let id = self.next_fetch;
        let plan = ProofPlan {
            key,
            htm: request.method.as_str().to_string(),
            nonce: self.nonces.get(&request.url).map(String::from),
            url: request.url.clone(),
            access_token: None,
        };
        request.url = self.proxied(&request.url);
        self.proved.push(Proved {
            id,
            request: request.clone(),
            plan: plan.clone(),
            resent: false,
        });
        self.commands.push_back(AuthCommand::FetchWithProof {
            id,
            request,
            proof: plan,
        });
        id
    }

    /// The answer to a `FetchWithProof`, with its `DPoP-Nonce` header. A nonce is kept for the
    /// server's next proofs; a `use_dpop_nonce` refusal sends the request again, once, with the
    /// same id and a new proof carrying the nonce (RFC 9449 §8); any other answer is the
    /// step's, as `handle_response`.
    pub fn handle_proved_response(
        &mut self,
        now_ms: f64,
        id: FetchId,
        status: u16,
        body: &str,
        dpop_nonce: Option<&str>,
    ) {
        let Some(i) = self.proved.iter().position(|p| p.id == id) else {
            self.handle_response(now_ms, id, status, body);
            return;
        };
        if let Some(nonce) = dpop_nonce.map(str::trim).filter(|n| !n.is_empty()) {
            let url = self.proved[i].plan.url.clone();
            self.nonces.set(&url, nonce);
        }
        let p = &mut self.proved[i];
        if !p.resent {
            if let Some(nonce) = token_nonce_challenge(status, body, dpop_nonce) {
                p.resent = true;
                p.plan.nonce = Some(nonce);
                let command = AuthCommand::FetchWithProof {
                    id,
                    request: p.request.clone(),
                    proof: p.plan.clone(),
                };
                self.commands.push_back(command);
                return;
            }
        }
        self.proved.remove(i);
        self.handle_response(now_ms, id, status, body);
    }

    /// A fetch is over without an answer: it is no longer resent for a nonce.
    pub(super) fn forget_proved(&mut self, id: FetchId) {
        self.proved.retain(|p| p.id != id);
    }

    /// The proof an MCP request to `url` (as fetched, through the proxy if any) needs when it
    /// carries `authorization`: `None` unless that is a `DPoP` token of these credentials for
    /// that URL. `htm` is the request's method. The proof names the server's own URL and
    /// carries the nonce the server gave last.
    pub fn resource_proof(&self, htm: &str, url: &str, authorization: &str) -> Option<ProofPlan> {
        let token = bound_token(authorization)?;
        let url = unproxied(self.setup.proxy.as_deref(), url);
        let c = self
            .creds
            .as_ref()
            .filter(|c| c.token_type == TokenType::DPoP && c.covers(url))?;
        Some(ProofPlan {
            key: dpop_key_name(&c.issuer, &c.resource),
            htm: htm.to_ascii_uppercase(),
            url: url.to_string(),
            access_token: Some(token.to_string()),
            nonce: self.nonces.get(url).map(String::from),
        })
    }

    /// An MCP server's answer to a request to `url` (as fetched) carried this `DPoP-Nonce`:
    /// the next proofs to that server carry it (RFC 9449 §9).
    pub fn handle_resource_nonce(&mut self, url: &str, nonce: &str) {
        let nonce = nonce.trim();
        if nonce.is_empty() {
            return;
        }
        let url = unproxied(self.setup.proxy.as_deref(), url).to_string();
        self.nonces.set(&url, nonce);
    }
}
