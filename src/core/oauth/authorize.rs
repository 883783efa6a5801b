//! The authorization request URL and the callback that answers it (OAuth 2.1 §4.1.1–§4.1.2,
//! RFC 7636 §4.3, RFC 8707 §2, RFC 9207 §2.4).
//!
//! What must hold before a code goes anywhere: the callback's `state` is the one this
//! sign-in sent; its `iss` is the authorization server's issuer (required when the server
//! advertises `authorization_response_iss_parameter_supported`, compared whenever present, as
//! the 2026-07-28 spec's "Authorization Response Validation" table says, with no
//! normalisation); and on an `iss` mismatch even an error is not shown, since it may come
//! from an attacker's server.

use super::error::OAuthError;
use super::form::{encode_component, parse_pairs};
use super::pkce;

/// Everything one authorization request says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationRequest {
    pub authorization_endpoint: String,
    pub client_id: String,
    pub redirect_uri: String,
    pub code_challenge: String,
    pub state: String,
    /// Omitted from the URL when empty (MCP "Scope Selection Strategy").
    pub scope: Vec<String>,
    /// The canonical resource (RFC 8707), always sent.
    pub resource: String,
}

impl AuthorizationRequest {
    /// The URL to open, parameters in a fixed order and percent-encoded. An endpoint that
    /// already has a query keeps it (OAuth 2.1 §3.1: the endpoint URI may include a query).
    pub fn url(&self) -> String {
        let mut params: Vec<(&str, String)> = vec![
            ("response_type", "code".into()),
            ("client_id", self.client_id.clone()),
            ("redirect_uri", self.redirect_uri.clone()),
            ("code_challenge", self.code_challenge.clone()),
            ("code_challenge_method", pkce::METHOD.into()),
            ("state", self.state.clone()),
        ];
        if !self.scope.is_empty() {
            params.push(("scope", self.scope.join(" ")));
        }
        params.push(("resource", self.resource.clone()));
        let query = params
            .iter()
            .map(|(k, v)| format!("{k}={}", encode_component(v)))
            .collect::<Vec<_>>()
            .join("&");
        let base = self.authorization_endpoint.split('#').next().unwrap_or("");
        let sep = if !base.contains('?') {
            "?"
        } else if base.ends_with('?') || base.ends_with('&') {
            ""
        } else {
            "&"
        };
        format!("{base}{sep}{query}")
    }
}

/// What the callback is checked against: recorded when the request was made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expected<'a> {
    pub state: &'a str,
    pub issuer: &'a str,
    pub iss_required: bool,
}

/// The `state` of a callback URL's query, to route it to the sign-in that sent it. Only a
/// routing hint: that sign-in still judges the whole answer (`parse_callback`), and refuses a
/// wrong one.
pub fn callback_state(url: &str) -> Option<String> {
    let query = url.split('#').next()?.split_once('?')?.1;
    parse_pairs(query)
        .into_iter()
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v)
}

/// Read the callback URL (or just its query) and return the authorization code.
pub fn parse_callback(url: &str, expected: &Expected<'_>) -> Result<String, OAuthError> {
    let without_fragment = url.split('#').next().unwrap_or("");
    let query = match without_fragment.split_once('?') {
        Some((_, q)) => q,
        None if !without_fragment.contains("://") => without_fragment,
        None => "",
    };
    let pairs = parse_pairs(query);
    let one = |name: &str| -> Result<Option<&str>, OAuthError> {
        let mut found = pairs
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str());
        let first = found.next();
        if found.next().is_some() {
            return Err(OAuthError::RepeatedParameter(name.to_string()));
        }
        Ok(first)
    };
    // state first: an answer to another request says nothing about this one.
    if one("state")? != Some(expected.state) {
        return Err(OAuthError::StateMismatch);
    }
    match one("iss")? {
        Some(iss) if iss != expected.issuer => {
            return Err(OAuthError::CallbackIssuerMismatch {
                expected: expected.issuer.to_string(),
                found: Some(iss.to_string()),
            })
        }
        None if expected.iss_required => {
            return Err(OAuthError::CallbackIssuerMismatch {
                expected: expected.issuer.to_string(),
                found: None,
            })
        }
        _ => {}
    }
    if let Some(error) = one("error")? {
        let description = one("error_description")?.map(String::from);
        return Err(match error {
            "access_denied" => OAuthError::Declined,
            _ => OAuthError::AuthorizationFailed {
                error: error.to_string(),
                description,
            },
        });
    }
    match one("code")? {
        Some(code) if !code.is_empty() => Ok(code.to_string()),
        _ => Err(OAuthError::MissingCode),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_callback_is_routed_by_its_state() {
        assert_eq!(
            callback_state("https://s/extras/oauth-callback.html?code=a&state=x%2By#frag")
                .as_deref(),
            Some("x+y")
        );
        assert_eq!(callback_state("https://s/cb?code=a"), None);
        assert_eq!(
            callback_state("https://s/cb#state=x"),
            None,
            "not from a fragment"
        );
        assert_eq!(callback_state(""), None);
    }

    fn request() -> AuthorizationRequest {
        AuthorizationRequest {
            authorization_endpoint: "https://auth.example.com/authorize".into(),
            client_id: "https://skiff.example/oauth/client-metadata.json".into(),
            redirect_uri: "https://skiff.example/oauth/callback.html".into(),
            code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM".into(),
            state: "st8".into(),
            scope: vec!["files:read".into(), "files:write".into()],
            resource: "https://mcp.example.com/mcp".into(),
        }
    }

    #[test]
    fn authorization_url_exactly() {
        assert_eq!(
            request().url(),
            "https://auth.example.com/authorize?response_type=code\
             &client_id=https%3A%2F%2Fskiff.example%2Foauth%2Fclient-metadata.json\
             &redirect_uri=https%3A%2F%2Fskiff.example%2Foauth%2Fcallback.html\
             &code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM\
             &code_challenge_method=S256&state=st8\
             &scope=files%3Aread%20files%3Awrite\
             &resource=https%3A%2F%2Fmcp.example.com%2Fmcp"
        );
    }

    #[test]
    fn no_scope_parameter_without_scopes_and_existing_query_kept() {
        let mut r = request();
        r.scope.clear();
        r.authorization_endpoint = "https://a.com/auth?tenant=x#frag".into();
        let url = r.url();
        assert!(
            url.starts_with("https://a.com/auth?tenant=x&response_type=code&"),
            "{url}"
        );
        assert!(!url.contains("scope="), "{url}");
        assert!(
            url.ends_with("&resource=https%3A%2F%2Fmcp.example.com%2Fmcp"),
            "{url}"
        );
    }

    const EXPECTED: Expected<'static> = Expected {
        state: "st8",
        issuer: "https://auth.example.com",
        iss_required: false,
    };

    #[test]
    fn a_good_callback_gives_the_code() {
        assert_eq!(
            parse_callback(
                "https://skiff.example/oauth/callback.html?code=a%2Bb&state=st8",
                &EXPECTED
            ),
            Ok("a+b".into())
        );
        assert_eq!(
            parse_callback(
                "https://skiff.example/cb?code=c&state=st8&iss=https%3A%2F%2Fauth.example.com#x",
                &EXPECTED
            ),
            Ok("c".into())
        );
        // The query alone, as `location.search` without the `?`, works too.
        assert_eq!(
            parse_callback("code=c&state=st8", &EXPECTED),
            Ok("c".into())
        );
    }

    #[test]
    fn state_must_match() {
        for url in [
            "https://s/cb?code=c",
            "https://s/cb?code=c&state=other",
            "https://s/cb?code=c&state=ST8",
        ] {
            assert_eq!(
                parse_callback(url, &EXPECTED),
                Err(OAuthError::StateMismatch),
                "{url}"
            );
        }
    }

    #[test]
    fn rfc_9207_table() {
        let required = Expected {
            iss_required: true,
            ..EXPECTED
        };
        // supported + present + equal: proceed.
        assert!(parse_callback(
            "https://s/cb?code=c&state=st8&iss=https://auth.example.com",
            &required
        )
        .is_ok());
        // supported + absent: reject.
        assert_eq!(
            parse_callback("https://s/cb?code=c&state=st8", &required),
            Err(OAuthError::CallbackIssuerMismatch {
                expected: "https://auth.example.com".into(),
                found: None
            })
        );
        // not supported + present + different: reject, without normalising.
        for iss in [
            "https://evil.example.com",
            "https://auth.example.com/",
            "https://AUTH.example.com",
        ] {
            let url = format!(
                "https://s/cb?code=c&state=st8&iss={}",
                encode_component(iss)
            );
            assert_eq!(
                parse_callback(&url, &EXPECTED),
                Err(OAuthError::CallbackIssuerMismatch {
                    expected: "https://auth.example.com".into(),
                    found: Some(iss.into())
                })
            );
        }
        // not supported + absent: proceed.
        assert!(parse_callback("https://s/cb?code=c&state=st8", &EXPECTED).is_ok());
    }

    #[test]
    fn errors_are_typed_but_not_from_another_issuer() {
        assert_eq!(
            parse_callback("https://s/cb?error=access_denied&state=st8", &EXPECTED),
            Err(OAuthError::Declined)
        );
        assert_eq!(
            parse_callback(
                "https://s/cb?error=invalid_scope&error_description=no+such+scope&state=st8",
                &EXPECTED
            ),
            Err(OAuthError::AuthorizationFailed {
                error: "invalid_scope".into(),
                description: Some("no such scope".into())
            })
        );
        assert!(matches!(
            parse_callback(
                "https://s/cb?error=access_denied&state=st8&iss=https://evil",
                &EXPECTED
            ),
            Err(OAuthError::CallbackIssuerMismatch { .. })
        ));
    }

    #[test]
    fn missing_or_repeated_parameters() {
        assert_eq!(
            parse_callback("https://s/cb?state=st8", &EXPECTED),
            Err(OAuthError::MissingCode)
        );
        assert_eq!(
            parse_callback("https://s/cb?state=st8&code=", &EXPECTED),
            Err(OAuthError::MissingCode)
        );
        assert_eq!(
            parse_callback("https://s/cb?state=st8&code=a&code=b", &EXPECTED),
            Err(OAuthError::RepeatedParameter("code".into()))
        );
        assert_eq!(
            parse_callback("https://s/cb?state=st8&state=st8&code=a", &EXPECTED),
            Err(OAuthError::RepeatedParameter("state".into()))
        );
    }

    proptest! {
        #[test]
        fn hostile_callbacks_never_panic_and_never_yield_a_code_without_state(s in "\\PC{0,100}") {
            let r = parse_callback(&s, &EXPECTED);
            if r.is_ok() {
                prop_assert!(s.contains("st8"));
            }
        }
    }
}
