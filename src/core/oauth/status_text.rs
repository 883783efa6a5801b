//! The sentence under a server card's status line while it signs in (`AuthStatus` in words),
//! and how a token's expiry reads. Decided here so each state's wording is tested natively;
//! the card and the Account dialog show the same sentence.
//!
//! Nothing here reads a clock: `now_ms` is an argument.

use super::machine_types::AuthStatus;
use super::url::HttpUrl;
use crate::format::fixed;

/// The host of an issuer (`auth.example.com`), or the issuer as written when it does not parse.
pub fn host_of(issuer: &str) -> String {
    HttpUrl::parse(issuer).map_or_else(|| issuer.to_string(), |u| u.authority)
}

/// "expires in 52 min", "expires in 40 s", "expired".
pub fn expiry_phrase(expires_at_ms: f64, now_ms: f64) -> String {
    let left = ((expires_at_ms - now_ms) / 1000.0).floor();
    if left <= 0.0 {
        "expired".into()
    } else if left < 60.0 {
        // `fixed`, not `{}`: formatting an f64 links Rust's float printing into the page.
        format!("expires in {} s", fixed(left, 0))
    } else if left < 2.0 * 3600.0 {
        format!("expires in {} min", fixed((left / 60.0).floor(), 0))
    } else {
        format!("expires in {} h", fixed((left / 3600.0).floor(), 0))
    }
}

/// The sentence a server card shows under its status line.
pub fn status_sentence(status: &AuthStatus, now_ms: f64) -> String {
    match status {
        AuthStatus::SignedOut => "Signed out. Use Account to sign in.".into(),
        AuthStatus::Preparing => "Preparing the sign-in…".into(),
        AuthStatus::SignInRequired { issuer, .. } => {
            format!("Sign in required at {}", host_of(issuer))
        }
        AuthStatus::WaitingForUser { issuer } => {
            format!("Waiting for you to sign in at {}…", host_of(issuer))
        }
        AuthStatus::Exchanging => "Finishing the sign-in…".into(),
        AuthStatus::SignedIn {
            issuer,
            scopes,
            expires_at_ms,
        } => {
            let mut s = format!("Signed in at {}", host_of(issuer));
            if !scopes.is_empty() {
                s.push_str(" · scopes ");
                s.push_str(&scopes.join(" "));
            }
            if let Some(at) = expires_at_ms {
                s.push_str(" · ");
                s.push_str(&expiry_phrase(*at, now_ms));
            }
            s
        }
        AuthStatus::Failed(e) => e.to_string(),
    }
}

/// Whether the server waits for the user to sign in (not broken: it said who it wants), so
/// the header says "Sign in to use …" instead of "MCP server down".
pub fn waits_for_sign_in(status: &AuthStatus) -> bool {
    matches!(
        status,
        AuthStatus::SignInRequired { .. } | AuthStatus::WaitingForUser { .. }
    )
}

/// Whether the sentence changes with time alone (an expiry counting down), so the card says
/// it again now and then.
pub fn ages(status: &AuthStatus) -> bool {
    matches!(
        status,
        AuthStatus::SignedIn {
            expires_at_ms: Some(_),
            ..
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oauth::error::{Endpoint, OAuthError};

    const MIN: f64 = 60_000.0;

    #[test]
    fn sentences_for_each_state() {
        let at = |s: &AuthStatus| status_sentence(s, 0.0);
        assert_eq!(
            at(&AuthStatus::SignInRequired {
                issuer: "https://auth.example.com/t1".into(),
                scopes: vec![]
            }),
            "Sign in required at auth.example.com"
        );
        let signed_in = AuthStatus::SignedIn {
            issuer: "http://127.0.0.1:9000".into(),
            scopes: vec!["mcp:read".into(), "mcp:write".into()],
            expires_at_ms: Some(52.5 * MIN),
        };
        assert_eq!(
            at(&signed_in),
            "Signed in at 127.0.0.1:9000 · scopes mcp:read mcp:write · expires in 52 min"
        );
        assert!(ages(&signed_in));
        let forever = AuthStatus::SignedIn {
            issuer: "https://a".into(),
            scopes: vec![],
            expires_at_ms: None,
        };
        assert_eq!(at(&forever), "Signed in at a");
        assert!(!ages(&forever));
        let cors = at(&AuthStatus::Failed(OAuthError::BlockedByCors {
            url: "https://as/token".into(),
            endpoint: Endpoint::Token,
        }));
        assert!(
            cors.contains("token endpoint") && cors.contains("CORS proxy"),
            "{cors}"
        );
        assert!(at(&AuthStatus::SignedOut).starts_with("Signed out"));
        assert_eq!(
            at(&AuthStatus::WaitingForUser {
                issuer: "https://auth.example.com".into()
            }),
            "Waiting for you to sign in at auth.example.com…"
        );
        assert_eq!(host_of("not a url"), "not a url");
    }

    #[test]
    fn expiry_reads_in_the_unit_that_fits() {
        assert_eq!(expiry_phrase(40_500.0, 0.0), "expires in 40 s");
        assert_eq!(expiry_phrase(90.0 * MIN, 0.0), "expires in 90 min");
        assert_eq!(expiry_phrase(5.0 * 60.0 * MIN, 0.0), "expires in 5 h");
        assert_eq!(expiry_phrase(1_000.0, 1_000.0), "expired");
        assert_eq!(expiry_phrase(0.0, 5_000.0), "expired");
    }
}
