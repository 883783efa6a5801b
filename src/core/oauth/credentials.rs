//! The stored credential record: one per MCP server, bound to the issuer that created it and
//! the resource it was issued for (MCP 2026-07-28 "Authorization Server Binding"; "Token
//! Handling": a client must not send a token to another server).
//!
//! It keeps the token endpoint and revocation endpoint it came with, so a reload can refresh
//! or sign out without discovering again, and the expiry as absolute milliseconds computed
//! from the `now_ms` the token arrived at. Encryption at rest is the store's job; this record
//! is what gets encrypted.

use serde::{Deserialize, Serialize};

use super::client::ClientIdentity;
use super::token::{TokenResponse, TokenType};
use super::url::HttpUrl;

/// Refresh this long before expiry at most...
pub const REFRESH_MARGIN_MS: f64 = 60_000.0;
/// ...and no earlier than this fraction of the lifetime before it, so a 10-second token is
/// not refreshed the moment it arrives.
pub const REFRESH_MARGIN_FRACTION: f64 = 0.1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Credentials {
    pub issuer: String,
    /// The resource the token was issued for (the protected resource metadata's `resource`).
    pub resource: String,
    pub client: ClientIdentity,
    pub token_endpoint: String,
    #[serde(default)]
    pub revocation_endpoint: Option<String>,
    pub access_token: String,
    #[serde(default)]
    pub refresh_token: Option<String>,
    /// When the access token arrived.
    pub issued_at_ms: f64,
    /// Absolute expiry, when the server gave `expires_in`.
    #[serde(default)]
    pub expires_at_ms: Option<f64>,
    /// What the server says it granted (or what was asked, when it did not say).
    #[serde(default)]
    pub scopes: Vec<String>,
    /// The grant that issued the token. Client credentials and cross-app access issue no
    /// refresh token (OAuth 2.1 §4.2.3); their token is renewed by running the grant again.
    #[serde(default, skip_serializing_if = "TokenGrant::is_code")]
    pub grant: TokenGrant,
    /// `DPoP`: the token is bound to the page's key for this issuer and resource
    /// (`stored::dpop_key_name`); every request, and every refresh, carries a proof signed
    /// with it. Records stored before DPoP read as `Bearer`.
    #[serde(default, skip_serializing_if = "TokenType::is_bearer")]
    pub token_type: TokenType,
}

/// Which grant a token came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenGrant {
    /// The authorization code flow (renewed with its refresh token, if any).
    #[default]
    Code,
    ClientCredentials,
    CrossApp,
    /// The jwt-bearer grant with a workload's own JWT (workload identity federation).
    Workload,
}

impl TokenGrant {
    fn is_code(&self) -> bool {
        *self == TokenGrant::Code
    }

    /// How the Account dialog says the user signed in.
    pub fn label(self) -> &'static str {
        match self {
            TokenGrant::Code => "in a browser window",
            TokenGrant::ClientCredentials => "as an application (client credentials)",
            TokenGrant::CrossApp => "through your identity provider (cross-app access)",
            TokenGrant::Workload => "as a workload (its identity provider's JWT)",
        }
    }

    /// Whether the token can be renewed without the user: the grant runs again.
    pub fn runs_again(self) -> bool {
        self != TokenGrant::Code
    }
}

impl Credentials {
    /// A record from a token answer that arrived at `now_ms` for a request that asked for
    /// `requested` scopes.
    #[allow(clippy::too_many_arguments)]
    pub fn from_token(
        now_ms: f64,
        issuer: &str,
        resource: &str,
        client: ClientIdentity,
        token_endpoint: &str,
        revocation_endpoint: Option<&str>,
        token: TokenResponse,
        requested: &[String],
    ) -> Credentials {
        Credentials {
            issuer: issuer.to_string(),
            resource: resource.to_string(),
            client,
            token_endpoint: token_endpoint.to_string(),
            revocation_endpoint: revocation_endpoint.map(String::from),
            access_token: token.access_token,
            refresh_token: token.refresh_token,
            issued_at_ms: now_ms,
            expires_at_ms: token.expires_in.map(|s| now_ms + s as f64 * 1000.0),
            scopes: token.scope.unwrap_or_else(|| requested.to_vec()),
            grant: TokenGrant::Code,
            token_type: token.token_type,
        }
    }

    /// Take a refreshed token: a server that does not rotate the refresh token leaves the old
    /// one valid (OAuth 2.1 §4.3.3), and one that says no scope keeps the old scopes.
    pub fn refreshed(&self, now_ms: f64, token: TokenResponse) -> Credentials {
        Credentials {
            access_token: token.access_token,
            refresh_token: token.refresh_token.or_else(|| self.refresh_token.clone()),
            issued_at_ms: now_ms,
            expires_at_ms: token.expires_in.map(|s| now_ms + s as f64 * 1000.0),
            scopes: token.scope.unwrap_or_else(|| self.scopes.clone()),
            token_type: token.token_type,
            ..self.clone()
        }
    }

    /// When to refresh: a little before expiry (`REFRESH_MARGIN_MS`, or a tenth of the
    /// lifetime for short-lived tokens). `None` when the token does not expire or cannot be
    /// renewed (no refresh token, and a grant that needs the user).
    pub fn refresh_at_ms(&self) -> Option<f64> {
        let expires = self.expires_at_ms?;
        if self.refresh_token.is_none() && !self.grant.runs_again() {
            return None;
        }
        let lifetime = (expires - self.issued_at_ms).max(0.0);
        Some(expires - REFRESH_MARGIN_MS.min(lifetime * REFRESH_MARGIN_FRACTION))
    }

    pub fn expired(&self, now_ms: f64) -> bool {
        self.expires_at_ms.is_some_and(|at| now_ms >= at)
    }

    /// Whether a request to `url` may carry this token: same origin as the resource and a path
    /// inside it. Anything that does not parse is refused.
    pub fn covers(&self, url: &str) -> bool {
        match (HttpUrl::parse(&self.resource), HttpUrl::parse(url)) {
            (Some(r), Some(u)) => r.contains(&u),
            _ => false,
        }
    }

    /// `Bearer <token>`, or `DPoP <token>` for a DPoP-bound token (RFC 9449 §7.1), whose
    /// request then also carries a proof (`dpop`).
    pub fn authorization_header(&self) -> String {
        format!("{} {}", self.token_type.as_str(), self.access_token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn creds(expires_in: Option<u64>, refresh: bool) -> Credentials {
        Credentials::from_token(
            1_000.0,
            "https://as",
            "https://mcp.example.com/mcp",
            ClientIdentity::Registered {
                client_id: "c".into(),
                secret: None,
            },
            "https://as/token",
            None,
            TokenResponse {
                access_token: "at".into(),
                expires_in,
                refresh_token: refresh.then(|| "rt".into()),
                scope: None,
                token_type: TokenType::Bearer,
            },
            &["a".to_string()],
        )
    }

    #[test]
    fn expiry_is_absolute_and_refresh_comes_a_little_before() {
        let c = creds(Some(3600), true);
        assert_eq!(c.expires_at_ms, Some(3_601_000.0));
        assert_eq!(c.refresh_at_ms(), Some(3_541_000.0));
        assert_eq!(c.scopes, vec!["a"]);
        // A 10-second token refreshes one second early, not at once.
        assert_eq!(creds(Some(10), true).refresh_at_ms(), Some(10_000.0));
        assert_eq!(creds(Some(10), false).refresh_at_ms(), None);
        assert_eq!(creds(None, true).refresh_at_ms(), None);
        assert!(!c.expired(3_600_999.0));
        assert!(c.expired(3_601_000.0));
    }

    #[test]
    fn refreshed_keeps_what_the_answer_leaves_out() {
        let c = creds(Some(60), true);
        let r = c.refreshed(
            50_000.0,
            TokenResponse {
                access_token: "at2".into(),
                expires_in: Some(60),
                refresh_token: None,
                scope: None,
                token_type: TokenType::DPoP,
            },
        );
        assert_eq!(r.access_token, "at2");
        assert_eq!(
            r.authorization_header(),
            "DPoP at2",
            "RFC 9449 §7.1's scheme"
        );
        assert_eq!(c.authorization_header(), "Bearer at");
        assert_eq!(r.refresh_token.as_deref(), Some("rt"));
        assert_eq!(r.expires_at_ms, Some(110_000.0));
        assert_eq!(r.scopes, vec!["a"]);
        assert_eq!(r.issuer, "https://as");
    }

    #[test]
    fn token_only_covers_its_resource() {
        let c = creds(None, false);
        assert!(c.covers("https://mcp.example.com/mcp"));
        assert!(c.covers("https://MCP.example.com:443/mcp/session?x"));
        for other in [
            "https://mcp.example.com/mcpx",
            "https://mcp.example.com/",
            "https://evil.example.com/mcp",
            "http://mcp.example.com/mcp",
            "not a url",
        ] {
            assert!(!c.covers(other), "{other}");
        }
    }

    #[test]
    fn the_record_round_trips_through_json() {
        let c = creds(Some(60), true);
        let json = serde_json::to_string(&c).unwrap();
        assert!(json.contains(r#""kind":"registered""#), "{json}");
        assert_eq!(serde_json::from_str::<Credentials>(&json).unwrap(), c);
    }
}
