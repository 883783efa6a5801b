//! What an MCP server's answer means for the sign-in of the request it answers: the fetch path's
//! side of OAuth, below the MCP session like a fetch interceptor.
//!
//! It exists so the runner's fetch loop decides nothing: whether a 401 or a 403 is an OAuth
//! refusal at all (another scheme, such as Basic, is not), that a refused request is sent again
//! at most once (a 401 or 403 means the server did not run it, so the one resend is safe; a
//! second would loop), and that the resent request's own 401 still goes to the sign-in, which
//! then knows the grant gives tokens this server refuses (`AuthMachine`'s loop guard) instead
//! of refreshing again for every request that follows.
//!
//! Small on purpose: it is on the path of every MCP request, in the page's first load. It
//! never sees a token.

use crate::mcp::config::TransportChoice;

/// An answer that asks for (other) credentials.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// 401: no token, or one the server no longer takes.
    Unauthorized,
    /// 403 with a `WWW-Authenticate` header: possibly a request for more scope (step-up).
    Forbidden,
}

/// What the fetch loop does with an answer (`RequestAuth::answer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Hand the answer to the session as it came.
    Deliver,
    /// Ask the sign-in for a fresh `Authorization` value and send the request again with it;
    /// when it gives none, deliver the answer.
    AskFresh(Refusal),
    /// The resent request was refused too: tell the sign-in (its answer is not used: a request
    /// is sent again only once), then deliver the answer.
    Report(Refusal),
}

/// Whether a `WWW-Authenticate` value offers an OAuth token scheme: `Bearer`, or `DPoP` (a
/// server that takes DPoP-bound tokens challenges with that scheme, RFC 9449 §7.1). No header
/// at all counts: a bare 401 is how many OAuth-protected servers answer. Read leniently (any
/// item whose first word is the scheme), since a header the strict parser refuses is still the
/// server's request.
pub fn offers_bearer(www_authenticate: Option<&str>) -> bool {
    let Some(header) = www_authenticate else {
        return true;
    };
    header.split(',').any(|item| {
        item.split_ascii_whitespace()
            .next()
            .is_some_and(|w| w.eq_ignore_ascii_case("bearer") || w.eq_ignore_ascii_case("dpop"))
    })
}

/// What an answer asks of the sign-in, if anything: a 401, or a 403 that carries a challenge,
/// offering Bearer.
pub fn refusal(status: u16, www_authenticate: Option<&str>) -> Option<Refusal> {
    let kind = match status {
        401 => Refusal::Unauthorized,
        403 if www_authenticate.is_some() => Refusal::Forbidden,
        _ => return None,
    };
    offers_bearer(www_authenticate).then_some(kind)
}

/// Whether requests to a server can carry a token at all: a browser cannot send an
/// `Authorization` header over a WebSocket, so such a server never gets a sign-in.
pub fn carries_tokens(transport: TransportChoice, url: &str) -> bool {
    let url = url.trim_start();
    let ws = url
        .get(..5)
        .is_some_and(|s| s.eq_ignore_ascii_case("ws://"))
        || url
            .get(..6)
            .is_some_and(|s| s.eq_ignore_ascii_case("wss://"));
    transport != TransportChoice::WebSocket && !ws
}

/// One MCP request's sign-in, from its first send to the answer the session gets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestAuth {
    resent: bool,
    nonce_resent: bool,
}

impl RequestAuth {
    pub fn new() -> RequestAuth {
        RequestAuth::default()
    }

    /// Before `answer`, for a request that carried a DPoP proof: the nonce to send it again
    /// with, when the server refused it with a 401 asking for one (`dpop::
    /// resource_nonce_challenge`: a `DPoP` challenge with `error="use_dpop_nonce"` and the
    /// `DPoP-Nonce` header), once per request. A tool call still runs at most once: a 401 is
    /// the server refusing the request before running it, so the request did not run and one
    /// resend with the nonce is safe; any other answer is never resent here. A second nonce
    /// refusal goes on to `answer` like any 401 (the token's own resend, once, or the report).
    pub fn nonce_retry(
        &mut self,
        status: u16,
        www_authenticate: Option<&str>,
        dpop_nonce: Option<&str>,
    ) -> Option<String> {
        if status != 401 || self.nonce_resent {
            return None;
        }
        let nonce = super::dpop::resource_nonce_challenge(
            &www_authenticate.into_iter().collect::<Vec<_>>(),
            dpop_nonce,
        )?;
        self.nonce_resent = true;
        Some(nonce)
    }

    /// The server answered `status` (with this `WWW-Authenticate`, if any). After
    /// `Verdict::AskFresh` the request counts as resent, whether or not a fresh value came.
    pub fn answer(&mut self, status: u16, www_authenticate: Option<&str>) -> Verdict {
        let Some(refusal) = refusal(status, www_authenticate) else {
            return Verdict::Deliver;
        };
        if !self.resent {
            self.resent = true;
            return Verdict::AskFresh(refusal);
        }
        match refusal {
            Refusal::Unauthorized => Verdict::Report(refusal),
            // A 403 for the resent request is the server's final word on this request; the
            // step-up count lives in the machine and the user signs in again from the card.
            Refusal::Forbidden => Verdict::Deliver,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_bearer_refusal_asks_the_sign_in() {
        assert_eq!(refusal(401, None), Some(Refusal::Unauthorized));
        assert_eq!(
            refusal(401, Some(r#"Bearer resource_metadata="https://x/prm""#)),
            Some(Refusal::Unauthorized)
        );
        assert_eq!(
            refusal(401, Some(r#"Basic realm="x", bearer"#)),
            Some(Refusal::Unauthorized),
            "any challenge in the list may offer Bearer"
        );
        assert_eq!(refusal(401, Some(r#"Basic realm="files""#)), None);
        assert_eq!(refusal(401, Some("Bearerish")), None);
        assert_eq!(
            refusal(403, None),
            None,
            "an ordinary 403 is the server's answer"
        );
        assert_eq!(
            refusal(
                403,
                Some(r#"Bearer error="insufficient_scope", scope="a b""#)
            ),
            Some(Refusal::Forbidden)
        );
        assert_eq!(refusal(403, Some("Negotiate")), None);
        assert_eq!(refusal(200, None), None);
        assert_eq!(refusal(500, Some("Bearer")), None);
        // A header the strict parser refuses still offers Bearer.
        assert_eq!(
            refusal(401, Some(r#"BEARER realm="x"#)),
            Some(Refusal::Unauthorized)
        );
    }

    #[test]
    fn a_refused_request_is_sent_again_once_and_its_second_401_is_reported() {
        let mut r = RequestAuth::new();
        assert_eq!(
            r.answer(401, None),
            Verdict::AskFresh(Refusal::Unauthorized)
        );
        assert_eq!(r.answer(401, None), Verdict::Report(Refusal::Unauthorized));
        // Reported once; every later answer of the same request is delivered or reported, never
        // sent again.
        assert_eq!(r.answer(401, None), Verdict::Report(Refusal::Unauthorized));
        assert_eq!(r.answer(200, None), Verdict::Deliver);

        let mut r = RequestAuth::new();
        assert_eq!(r.answer(200, None), Verdict::Deliver);
        assert_eq!(
            r.answer(401, None),
            Verdict::AskFresh(Refusal::Unauthorized)
        );
    }

    #[test]
    fn a_step_up_403_is_asked_once_then_delivered() {
        let challenge = Some(r#"Bearer error="insufficient_scope", scope="files:write""#);
        let mut r = RequestAuth::new();
        assert_eq!(
            r.answer(403, challenge),
            Verdict::AskFresh(Refusal::Forbidden)
        );
        assert_eq!(r.answer(403, challenge), Verdict::Deliver);
    }

    #[test]
    fn a_websocket_never_carries_a_token() {
        assert!(carries_tokens(
            TransportChoice::Auto,
            "https://mcp.example/mcp"
        ));
        assert!(carries_tokens(
            TransportChoice::Sse,
            "http://127.0.0.1:1/sse"
        ));
        assert!(!carries_tokens(TransportChoice::WebSocket, "https://x/"));
        assert!(!carries_tokens(
            TransportChoice::Auto,
            "wss://mcp.example/ws"
        ));
        assert!(!carries_tokens(TransportChoice::Auto, "WS://127.0.0.1:1/"));
    }

    #[test]
    fn a_dpop_challenge_asks_the_sign_in() {
        assert_eq!(
            refusal(401, Some(r#"DPoP resource_metadata="https://x/prm""#)),
            Some(Refusal::Unauthorized)
        );
        assert_eq!(
            refusal(401, Some(r#"DPoP algs="ES256", Bearer"#)),
            Some(Refusal::Unauthorized)
        );
    }

    #[test]
    fn a_nonce_refusal_is_sent_again_once_with_the_nonce_then_goes_to_the_sign_in() {
        let asks = Some(r#"DPoP error="use_dpop_nonce", resource_metadata="https://x/prm""#);
        let mut r = RequestAuth::new();
        // Not a 401 (the server may have run it): never resent.
        assert_eq!(r.nonce_retry(200, asks, Some("n1")), None);
        assert_eq!(r.nonce_retry(400, asks, Some("n1")), None);
        // No nonce given, or another error: not a nonce challenge.
        assert_eq!(r.nonce_retry(401, asks, None), None);
        assert_eq!(
            r.nonce_retry(401, Some(r#"DPoP error="invalid_token""#), Some("n1")),
            None
        );
        assert_eq!(r.nonce_retry(401, asks, Some("n1")), Some("n1".into()));
        // Once: a second nonce refusal is an ordinary 401 for the sign-in.
        assert_eq!(r.nonce_retry(401, asks, Some("n2")), None);
        assert_eq!(
            r.answer(401, asks),
            Verdict::AskFresh(Refusal::Unauthorized)
        );
        assert_eq!(r.nonce_retry(401, asks, Some("n3")), None);
        assert_eq!(r.answer(401, asks), Verdict::Report(Refusal::Unauthorized));
    }

    #[test]
    fn other_schemes_never_resend() {
        let mut r = RequestAuth::new();
        assert_eq!(r.answer(401, Some("Basic realm=\"x\"")), Verdict::Deliver);
        assert_eq!(
            r.answer(401, None),
            Verdict::AskFresh(Refusal::Unauthorized)
        );
    }
}
