//! DPoP: access tokens bound to a key the page holds (RFC 9449; the MCP DPoP extension,
//! SEP-1932). A token endpoint that lists `ES256` in `dpop_signing_alg_values_supported` gets
//! a proof with every token request, and the token it issues (`token_type: DPoP`) is then
//! presented as `Authorization: DPoP <token>` with a fresh proof on every request. A stolen
//! token is useless without the key, and the key cannot leave the page: WebCrypto makes it
//! non-extractable, and the store keeps the `CryptoKey` itself beside the other tokens.
//!
//! Core decides everything but the signature and the digest (the module's invariant: the page
//! has WebCrypto for both): whether a server gets DPoP ([`wanted`]), the
//! proof's bytes to sign ([`proof_input`]: header with the public key, `htm`, `htu` without
//! query or fragment, `iat`, a `jti` from the page's random bytes, `ath` for a resource
//! request, the server's nonce), the compact proof from WebCrypto's signature
//! ([`finish_proof`]), and when a refusal asks for a nonce ([`token_nonce_challenge`],
//! [`resource_nonce_challenge`]): the request then goes again, once, with a new proof carrying
//! it. Nonces are remembered per server origin ([`Nonces`]), since each server issues its own.
//!
//! It never signs, never draws randomness and never reads a clock (time is an argument).

use super::jwt::{finish_assertion, jti_from_random, SigningAlg};
use super::pkce::base64url;
use super::url::HttpUrl;
use super::www_authenticate;
use crate::oauth::error::OAuthError;

/// The one algorithm Skiff proves with: ECDSA P-256 + SHA-256, what every WebCrypto has and
/// RFC 9449's examples use.
pub const ALG: &str = "ES256";

/// The `Authorization` scheme of a DPoP-bound token (RFC 9449 §7.1).
pub const SCHEME: &str = "DPoP";

/// The request header a proof goes in, and the response header a nonce comes in.
pub const PROOF_HEADER: &str = "DPoP";
pub const NONCE_HEADER: &str = "DPoP-Nonce";

/// The error a server answers when it wants a nonce in the proof (RFC 9449 §8, §9).
pub const USE_NONCE: &str = "use_dpop_nonce";

/// Whether an authorization server gets DPoP: it lists `ES256` among the algorithms it takes
/// for proofs (RFC 9449 §5.1). A server that does not list the parameter gets plain bearer
/// tokens, as before.
pub fn wanted(dpop_signing_alg_values_supported: &[String]) -> bool {
    dpop_signing_alg_values_supported.iter().any(|a| a == ALG)
}

/// The public half of the page's P-256 key, as WebCrypto exports it (`exportKey("jwk")` on
/// the public key: the private key itself is not extractable).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PublicJwk {
    /// base64url of the x coordinate (32 bytes).
    pub x: String,
    /// base64url of the y coordinate (32 bytes).
    pub y: String,
}

impl PublicJwk {
    /// The JWK in the proof's header: the required members only, in RFC 7638's order, so the
    /// header never carries anything private whatever WebCrypto exported.
    fn json(&self) -> String {
        let s = |v: &str| serde_json::Value::from(v).to_string();
        format!(
            r#"{{"crv":"P-256","kty":"EC","x":{},"y":{}}}"#,
            s(&self.x),
            s(&self.y)
        )
    }
}

/// `htu`: the request's URL without query and fragment (RFC 9449 §4.2). `None` when it is not
/// an http(s) URL.
pub fn htu(url: &str) -> Option<String> {
    HttpUrl::parse(url)?;
    let end = url.find(['?', '#']).unwrap_or(url.len());
    Some(url[..end].to_string())
}

/// `ath`: base64url of the SHA-256 of the access token's ASCII bytes (RFC 9449 §4.2), from
/// that digest (the page computes it with WebCrypto, as for PKCE).
pub fn ath(access_token_sha256: &[u8; 32]) -> String {
    base64url(access_token_sha256)
}

/// What one proof says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProofFor<'a> {
    /// The HTTP method, upper case.
    pub htm: &'a str,
    /// The URL the request goes to (the server's own, never the CORS proxy's).
    pub url: &'a str,
    /// The SHA-256 of the access token the request presents (a resource request), for `ath`.
    pub access_token_sha256: Option<&'a [u8; 32]>,
    /// The nonce the server gave, when it gave one.
    pub nonce: Option<&'a str>,
}

/// The JWS signing input of a proof: `base64url(header) "." base64url(claims)`. `now_ms` is
/// the page's clock; `random` the page's random bytes for the `jti` (one proof, one `jti`:
/// RFC 9449 §4.2 lets a server refuse a `jti` it has seen).
pub fn proof_input(
    key: &PublicJwk,
    proof: &ProofFor<'_>,
    now_ms: f64,
    random: &[u8],
) -> Result<String, OAuthError> {
    let htu = htu(proof.url).ok_or_else(|| {
        OAuthError::SigningFailed(format!("{} is not an address a proof can name", proof.url))
    })?;
    let header = format!(r#"{{"typ":"dpop+jwt","alg":"{ALG}","jwk":{}}}"#, key.json());
    let s = |v: &str| serde_json::Value::from(v).to_string();
    let mut claims = format!(
        r#"{{"jti":{},"htm":{},"htu":{},"iat":{}"#,
        s(&jti_from_random(random)),
        s(proof.htm),
        s(&htu),
        (now_ms / 1000.0).max(0.0) as u64,
    );
    if let Some(digest) = proof.access_token_sha256 {
        claims.push_str(&format!(r#","ath":{}"#, s(&ath(digest))));
    }
    if let Some(nonce) = proof.nonce {
        claims.push_str(&format!(r#","nonce":{}"#, s(nonce)));
    }
    claims.push('}');
    Ok(format!(
        "{}.{}",
        base64url(header.as_bytes()),
        base64url(claims.as_bytes())
    ))
}

/// The compact proof from WebCrypto's ECDSA signature (raw `r || s`, 64 bytes).
pub fn finish_proof(input: &str, signature: &[u8]) -> Result<String, OAuthError> {
    finish_assertion(SigningAlg::ES256, input, signature)
}

/// The nonce a token endpoint's refusal asks for: a 400 whose `error` is `use_dpop_nonce`
/// with the `DPoP-Nonce` header (RFC 9449 §8). `None` for any other answer.
pub fn token_nonce_challenge(
    status: u16,
    body: &str,
    nonce_header: Option<&str>,
) -> Option<String> {
    if status != 400 {
        return None;
    }
    let error = serde_json::from_str::<serde_json::Value>(body)
        .ok()?
        .get("error")?
        .as_str()?
        .to_string();
    (error == USE_NONCE)
        .then(|| nonce_header.map(str::trim).filter(|n| !n.is_empty()))
        .flatten()
        .map(String::from)
}

/// The nonce a resource server's 401 asks for: a `DPoP` challenge whose `error` is
/// `use_dpop_nonce`, with the `DPoP-Nonce` header (RFC 9449 §9). `None` for any other 401.
pub fn resource_nonce_challenge(headers: &[&str], nonce_header: Option<&str>) -> Option<String> {
    let asks = www_authenticate::parse(headers).is_ok_and(|all| {
        all.iter()
            .any(|c| c.scheme.eq_ignore_ascii_case(SCHEME) && c.param("error") == Some(USE_NONCE))
    });
    asks.then(|| nonce_header.map(str::trim).filter(|n| !n.is_empty()))
        .flatten()
        .map(String::from)
}

/// The token in an `Authorization` value of the `DPoP` scheme (`DPoP <token>`), whose request
/// needs a proof; `None` for a Bearer value or anything else.
pub fn bound_token(authorization: &str) -> Option<&str> {
    let (scheme, token) = authorization.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case(SCHEME)
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// A proof the page must sign for one request: which key (`stored::dpop_key_name`), the
/// method, the URL (the server's own, the CORS proxy's prefix already removed), the access
/// token whose SHA-256 goes in `ath` (a resource request) and the nonce to carry. The page
/// draws the `jti`, reads the clock, digests and signs ([`proof_input`], [`finish_proof`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProofPlan {
    pub key: String,
    pub htm: String,
    pub url: String,
    pub access_token: Option<String>,
    pub nonce: Option<String>,
}

/// The last nonce each server gave, by origin: a server keeps accepting its nonce for a while,
/// so the next proof to it carries it at once instead of being refused first (RFC 9449 §8.2).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Nonces(Vec<(String, String)>);

impl Nonces {
    fn origin(url: &str) -> Option<String> {
        HttpUrl::parse(url).map(|u| u.origin())
    }

    pub fn get(&self, url: &str) -> Option<&str> {
        let origin = Self::origin(url)?;
        self.0
            .iter()
            .find(|(o, _)| *o == origin)
            .map(|(_, n)| n.as_str())
    }

    pub fn set(&mut self, url: &str, nonce: &str) {
        let Some(origin) = Self::origin(url) else {
            return;
        };
        self.0.retain(|(o, _)| *o != origin);
        self.0.push((origin, nonce.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    fn sha(token: &str) -> [u8; 32] {
        Sha256::digest(token.as_bytes()).into()
    }

    fn key() -> PublicJwk {
        PublicJwk {
            x: "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs".into(),
            y: "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA".into(),
        }
    }

    fn decode(part: &str) -> serde_json::Value {
        let bytes = crate::base64::unbase64(part).expect("base64url");
        serde_json::from_slice(&bytes).expect("json")
    }

    #[test]
    fn only_a_server_that_takes_es256_gets_dpop() {
        assert!(wanted(&["RS256".into(), "ES256".into()]));
        assert!(!wanted(&["RS256".into()]));
        assert!(!wanted(&[]));
    }

    #[test]
    fn ath_is_the_rfc_example() {
        // RFC 9449 §7.1's access token and its `ath`.
        assert_eq!(
            ath(&sha("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU")),
            "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo"
        );
    }

    #[test]
    fn a_resource_proof_names_the_request_and_binds_the_token() {
        let input = proof_input(
            &key(),
            &ProofFor {
                htm: "POST",
                url: "http://localhost:3000/mcp?session=1#x",
                access_token_sha256: Some(&sha("tok")),
                nonce: Some("n-1"),
            },
            1_700_000_000_999.0,
            &[0u8; 16],
        )
        .expect("input");
        let (h, c) = input.split_once('.').expect("two parts");
        let header = decode(h);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(
            header["jwk"],
            serde_json::json!({"crv": "P-256", "kty": "EC", "x": key().x, "y": key().y})
        );
        assert!(header["jwk"].get("d").is_none());
        let claims = decode(c);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(
            claims["htu"], "http://localhost:3000/mcp",
            "no query or fragment"
        );
        assert_eq!(claims["iat"], 1_700_000_000);
        assert_eq!(claims["jti"], "AAAAAAAAAAAAAAAAAAAAAA");
        assert_eq!(claims["ath"], ath(&sha("tok")));
        assert_eq!(claims["nonce"], "n-1");

        // A token request's proof has neither `ath` nor, until asked, a nonce.
        let plain = proof_input(
            &key(),
            &ProofFor {
                htm: "POST",
                url: "https://as.example/token",
                access_token_sha256: None,
                nonce: None,
            },
            0.0,
            &[1u8; 16],
        )
        .expect("input");
        let claims = decode(plain.split_once('.').expect("two parts").1);
        assert!(claims.get("ath").is_none() && claims.get("nonce").is_none());
        assert!(proof_input(
            &key(),
            &ProofFor {
                htm: "GET",
                url: "ftp://x",
                access_token_sha256: None,
                nonce: None
            },
            0.0,
            &[]
        )
        .is_err());
    }

    #[test]
    fn a_proof_is_the_input_and_a_64_byte_signature() {
        let proof = finish_proof("a.b", &[7u8; 64]).expect("proof");
        assert!(proof.starts_with("a.b.") && proof.len() > 4 + 80);
        assert!(finish_proof("a.b", &[7u8; 70]).is_err());
    }

    #[test]
    fn nonce_challenges_from_the_token_endpoint_and_the_resource() {
        let body = r#"{"error":"use_dpop_nonce","error_description":"nonce needed"}"#;
        assert_eq!(
            token_nonce_challenge(400, body, Some(" n1 ")),
            Some("n1".into())
        );
        assert_eq!(token_nonce_challenge(400, body, None), None);
        assert_eq!(
            token_nonce_challenge(400, r#"{"error":"invalid_grant"}"#, Some("n1")),
            None
        );
        assert_eq!(token_nonce_challenge(401, body, Some("n1")), None);

        let h = r#"DPoP error="use_dpop_nonce", resource_metadata="https://mcp/.well-known/x""#;
        assert_eq!(
            resource_nonce_challenge(&[h], Some("rs-n")),
            Some("rs-n".into())
        );
        assert_eq!(
            resource_nonce_challenge(&[r#"DPoP error="invalid_token""#], Some("rs-n")),
            None
        );
        assert_eq!(resource_nonce_challenge(&[h], None), None);
    }

    #[test]
    fn only_a_dpop_authorization_needs_a_proof() {
        assert_eq!(bound_token("DPoP abc.def"), Some("abc.def"));
        assert_eq!(bound_token("dpop abc"), Some("abc"));
        assert_eq!(bound_token("Bearer abc"), None);
        assert_eq!(bound_token("DPoP "), None);
        assert_eq!(bound_token("DPoP"), None);
    }

    #[test]
    fn nonces_are_kept_per_origin() {
        let mut n = Nonces::default();
        n.set("https://as.example/token", "a1");
        n.set("https://mcp.example/mcp", "r1");
        n.set("https://as.example/other", "a2");
        assert_eq!(n.get("https://as.example/token"), Some("a2"));
        assert_eq!(n.get("https://mcp.example/anything"), Some("r1"));
        assert_eq!(n.get("https://elsewhere.example/"), None);
    }
}
