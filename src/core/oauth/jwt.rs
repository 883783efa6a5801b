//! JSON Web Tokens Skiff signs: the `private_key_jwt` client assertion (RFC 7523 §2.2, RFC
//! 7521 §4.2) a client sends to a token endpoint instead of a secret, and the private key it is
//! signed with, read from the PKCS#8 PEM the user pastes.
//!
//! Core builds the bytes to sign (header and claims, base64url) and checks the key's shape; the
//! page signs with WebCrypto (`importKey("pkcs8")`, ECDSA P-256 + SHA-256 or RSASSA-PKCS1-v1_5 +
//! SHA-256), whose ECDSA signature is already JOSE's raw `r || s`. Time and the `jti`'s random
//! bytes are arguments, so the exact token is tested natively.

use super::error::OAuthError;
use super::pkce::base64url;

/// How long an assertion is good for. RFC 7523 §3 asks for an expiry; a minute covers the
/// round trip and a modest clock skew while limiting replay.
pub const ASSERTION_LIFETIME_S: u64 = 60;

/// Random bytes for a `jti`: 128 bits, so two assertions never share one.
pub const JTI_BYTES: usize = 16;

/// The JWS algorithms Skiff signs with (RFC 7518 §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SigningAlg {
    /// ECDSA with P-256 and SHA-256.
    ES256,
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    RS256,
}

impl SigningAlg {
    pub fn as_str(self) -> &'static str {
        match self {
            SigningAlg::ES256 => "ES256",
            SigningAlg::RS256 => "RS256",
        }
    }
}

/// A private key as the user pasted it, checked: which algorithm it signs with and its
/// PKCS#8 DER bytes (what WebCrypto's `importKey("pkcs8", ...)` takes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrivateKey {
    pub alg: SigningAlg,
    pub der: Vec<u8>,
}

// DER encodings of the object identifiers a PKCS#8 `AlgorithmIdentifier` carries.
const OID_EC_PUBLIC_KEY: &[u8] = &[0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]; // 1.2.840.10045.2.1
const OID_P256: &[u8] = &[0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]; // 1.2.840.10045.3.1.7
const OID_RSA: &[u8] = &[0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]; // 1.2.840.113549.1.1.1

fn bad_key(reason: &str) -> OAuthError {
    OAuthError::BadPrivateKey(reason.to_string())
}

/// One DER element at the start of `input`: its tag, its contents and what follows it.
fn der_element(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7F);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
        (len, &rest[n..])
    };
    (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
}

/// Read a pasted private key: a PEM `BEGIN PRIVATE KEY` block (PKCS#8, unencrypted) holding an
/// EC P-256 key (ES256) or an RSA key (RS256). Every other shape is refused with a sentence that
/// says what to paste instead.
pub fn parse_private_key(pem: &str) -> Result<PrivateKey, OAuthError> {
    let pem = pem.trim();
    if pem.is_empty() {
        return Err(bad_key("nothing was pasted"));
    }
    if pem.contains("BEGIN EC PRIVATE KEY") || pem.contains("BEGIN RSA PRIVATE KEY") {
        return Err(bad_key(
            "this is the older EC/RSA key format; convert it with \
             `openssl pkcs8 -topk8 -nocrypt -in key.pem`",
        ));
    }
    if pem.contains("BEGIN ENCRYPTED PRIVATE KEY") {
        return Err(bad_key(
            "this key is encrypted with a passphrase; Skiff needs it unencrypted (it keeps it \
             encrypted itself)",
        ));
    }
    let body = pem
        .strip_prefix("-----BEGIN PRIVATE KEY-----")
        .and_then(|b| b.strip_suffix("-----END PRIVATE KEY-----"))
        .ok_or_else(|| {
            bad_key("it does not start with BEGIN PRIVATE KEY and end with END PRIVATE KEY")
        })?;
    let b64: String = body.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let der = crate::base64::unbase64(&b64)
        .filter(|d| !d.is_empty())
        .ok_or_else(|| bad_key("its text between the BEGIN and END lines is not base64"))?;
    let alg = pkcs8_alg(&der)?;
    Ok(PrivateKey { alg, der })
}

/// The algorithm of a PKCS#8 `PrivateKeyInfo` (RFC 5208 §5): SEQUENCE { INTEGER version,
/// SEQUENCE { OID, parameters }, OCTET STRING key }.
fn pkcs8_alg(der: &[u8]) -> Result<SigningAlg, OAuthError> {
    let not_pkcs8 = || bad_key("its contents are not a PKCS#8 private key");
    let (0x30, info, _) = der_element(der).ok_or_else(not_pkcs8)? else {
        return Err(not_pkcs8());
    };
    let (0x02, _version, rest) = der_element(info).ok_or_else(not_pkcs8)? else {
        return Err(not_pkcs8());
    };
    let (0x30, alg_id, rest) = der_element(rest).ok_or_else(not_pkcs8)? else {
        return Err(not_pkcs8());
    };
    if !matches!(der_element(rest), Some((0x04, _, _))) {
        return Err(not_pkcs8());
    }
    let (0x06, oid, params) = der_element(alg_id).ok_or_else(not_pkcs8)? else {
        return Err(not_pkcs8());
    };
    if oid == OID_RSA {
        return Ok(SigningAlg::RS256);
    }
    if oid != OID_EC_PUBLIC_KEY {
        return Err(bad_key(
            "it is neither an EC P-256 key (ES256) nor an RSA key (RS256)",
        ));
    }
    match der_element(params) {
        Some((0x06, curve, _)) if curve == OID_P256 => Ok(SigningAlg::ES256),
        _ => Err(bad_key(
            "it is an EC key on another curve than P-256; ES256 needs P-256",
        )),
    }
}

/// A `jti` from `JTI_BYTES` random bytes.
pub fn jti_from_random(bytes: &[u8]) -> String {
    base64url(bytes)
}

/// The JWS signing input of a client assertion: `base64url(header) "." base64url(claims)`,
/// with `iss` and `sub` the client id and `aud` the authorization server's issuer (RFC 7523
/// §3; the issuer identifier is what RFC 7523bis and the MCP extension name as the audience).
/// `now_s` is seconds since the epoch.
pub fn assertion_input(
    alg: SigningAlg,
    client_id: &str,
    audience: &str,
    now_s: u64,
    jti: &str,
) -> String {
    let header = format!(r#"{{"alg":"{}","typ":"JWT"}}"#, alg.as_str());
    let s = |v: &str| serde_json::Value::from(v).to_string();
    let claims = format!(
        r#"{{"iss":{id},"sub":{id},"aud":{aud},"iat":{now_s},"exp":{exp},"jti":{jti}}}"#,
        id = s(client_id),
        aud = s(audience),
        exp = now_s + ASSERTION_LIFETIME_S,
        jti = s(jti),
    );
    format!(
        "{}.{}",
        base64url(header.as_bytes()),
        base64url(claims.as_bytes())
    )
}

/// The compact JWS: the signing input and the signature WebCrypto made over it. An ES256
/// signature is exactly 64 bytes (`r || s`); anything else means the page signed wrongly.
pub fn finish_assertion(
    alg: SigningAlg,
    input: &str,
    signature: &[u8],
) -> Result<String, OAuthError> {
    let ok = match alg {
        SigningAlg::ES256 => signature.len() == 64,
        SigningAlg::RS256 => signature.len() >= 128,
    };
    if !ok {
        return Err(OAuthError::SigningFailed(format!(
            "an {} signature cannot be {} bytes long",
            alg.as_str(),
            signature.len()
        )));
    }
    Ok(format!("{input}.{}", base64url(signature)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const EC_P256: &str = "-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgAC0zUL9kpbpFXCOR
kDKO05yDkr6XDcar9h4hlVi3r+OhRANCAAQBuGxWk5f6vfI79pdH9M4lCaOGWcgW
fpmO36TZ+pib1iYskgWW7oyGMgr2qigXebWcZNc4zqex7qa0Qbdyx5YM
-----END PRIVATE KEY-----
";
    const EC_P384: &str = "-----BEGIN PRIVATE KEY-----
MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDBTdSPi1glkPabkCiWA
RRC1ajFCrPmjiC40CTK0L2jKTL1+3REnqFAIlYok2OmefmqhZANiAARPRZcYr5A0
5sLuK7FIYnDbN6UvcoSLoLJwwAR0R0EWFs0//Hq9VJNvKbg0yVKjQCPPwRLSy8bF
ruwaQZGvoU5R31MQmYD30dB7/rXIlhaxyekVvu1m9+dq2HISzablnwg=
-----END PRIVATE KEY-----";
    // A minimal PKCS#8 structure with the rsaEncryption identifier: the version, the
    // algorithm and an OCTET STRING are all the check reads (WebCrypto judges the key itself).
    fn rsa_pkcs8() -> String {
        // SEQUENCE { INTEGER 0, SEQUENCE { rsaEncryption, NULL }, OCTET STRING {..} }
        let mut der = vec![0x30, 0x17, 0x02, 0x01, 0x00, 0x30, 0x0D, 0x06, 0x09];
        der.extend_from_slice(OID_RSA);
        der.extend_from_slice(&[0x05, 0x00, 0x04, 0x03, 1, 2, 3]);
        let b64 = crate::base64::base64(&der);
        format!("-----BEGIN PRIVATE KEY-----\n{b64}\n-----END PRIVATE KEY-----\n")
    }

    #[test]
    fn reads_pkcs8_keys_and_their_algorithm() {
        let k = parse_private_key(EC_P256).unwrap();
        assert_eq!(k.alg, SigningAlg::ES256);
        assert_eq!(k.der.len(), 138);
        assert_eq!(&k.der[..2], &[0x30, 0x81]);
        assert_eq!(
            parse_private_key(&rsa_pkcs8()).unwrap().alg,
            SigningAlg::RS256
        );
    }

    #[test]
    fn other_keys_are_refused_with_what_to_paste() {
        for (pem, says) in [
            ("", "nothing was pasted"),
            (
                "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n-----END EC PRIVATE KEY-----",
                "openssl pkcs8 -topk8",
            ),
            (
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----",
                "passphrase",
            ),
            ("ssh-ed25519 AAAAC3Nza", "BEGIN PRIVATE KEY"),
            (
                "-----BEGIN PRIVATE KEY-----\n!!!\n-----END PRIVATE KEY-----",
                "not base64",
            ),
            (
                "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----",
                "not a PKCS#8",
            ),
            (EC_P384, "P-256"),
        ] {
            let e = parse_private_key(pem).unwrap_err();
            let s = e.to_string();
            assert!(s.contains(says), "{pem}: {s}");
            assert!(
                s.contains("paste the private key as a PKCS#8 PEM (BEGIN PRIVATE KEY)"),
                "{s}"
            );
        }
    }

    #[test]
    fn the_assertion_is_exactly_this() {
        let input = assertion_input(
            SigningAlg::ES256,
            "conformance-test-client",
            "http://127.0.0.1:4000",
            1_700_000_000,
            "jti-1",
        );
        let (h, c) = input.split_once('.').unwrap();
        assert_eq!(h, "eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9");
        let claims = crate::base64::unbase64(c).unwrap();
        assert_eq!(
            String::from_utf8(claims).unwrap(),
            r#"{"iss":"conformance-test-client","sub":"conformance-test-client","aud":"http://127.0.0.1:4000","iat":1700000000,"exp":1700000060,"jti":"jti-1"}"#
        );
        assert!(!input.contains('=') && !input.contains('+') && !input.contains('/'));
        // A client id that needs JSON escaping stays one string.
        let odd = assertion_input(SigningAlg::RS256, "a\"b", "https://as", 0, "j");
        let c = crate::base64::unbase64(odd.split_once('.').unwrap().1).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&c).unwrap();
        assert_eq!(v["iss"], "a\"b");
        assert!(odd.starts_with(&base64url(br#"{"alg":"RS256","typ":"JWT"}"#)));
    }

    #[test]
    fn the_signature_is_appended_in_base64url() {
        let sig = [0xFFu8; 64];
        let jwt = finish_assertion(SigningAlg::ES256, "a.b", &sig).unwrap();
        assert_eq!(jwt, format!("a.b.{}", base64url(&sig)));
        assert!(jwt.ends_with("_w"), "{jwt}");
        let e = finish_assertion(SigningAlg::ES256, "a.b", &[0; 70]).unwrap_err();
        assert!(e.to_string().contains("70 bytes"), "{e}");
        assert_eq!(jti_from_random(&[0xFB; 3]), "-_v7");
    }
}
