//! PKCE (RFC 7636) with S256, and the `state` value, from bytes the caller draws.
//!
//! Core has no randomness and no SHA-256: the page draws bytes with `crypto.getRandomValues`,
//! makes the verifier here, digests it with WebCrypto, and hands the digest back. Splitting it
//! this way keeps the encoding (where mistakes hide) natively tested against the RFC's vector.

/// base64url without padding (RFC 7636 Appendix A, RFC 4648 §5).
pub fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// How many random bytes make a verifier: 32 bytes give the 43 characters RFC 7636 §4.1
/// recommends (256 bits of entropy).
pub const VERIFIER_BYTES: usize = 32;

/// A code verifier: 43 characters of base64url from 32 random bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verifier(String);

impl Verifier {
    pub fn from_random(bytes: &[u8; VERIFIER_BYTES]) -> Verifier {
        Verifier(base64url(bytes))
    }

    /// What the page must SHA-256 (its ASCII bytes, RFC 7636 §4.2).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Pair the verifier with the SHA-256 digest of `as_str()` the page computed.
    pub fn with_digest(self, sha256: &[u8; 32]) -> Pkce {
        Pkce {
            challenge: base64url(sha256),
            verifier: self.0,
        }
    }
}

/// A verifier and its S256 challenge, kept together for one authorization request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pkce {
    pub verifier: String,
    pub challenge: String,
}

/// The only method Skiff sends (MCP: "MUST use the S256 code challenge method").
pub const METHOD: &str = "S256";

/// A `state` value from caller-drawn random bytes (16 or more recommended).
pub fn state_from_random(bytes: &[u8]) -> String {
    base64url(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sha2::{Digest, Sha256};

    /// RFC 7636 Appendix B.
    const RFC_BYTES: [u8; 32] = [
        116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212, 37,
        77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121,
    ];

    #[test]
    fn rfc_7636_appendix_b() {
        let v = Verifier::from_random(&RFC_BYTES);
        assert_eq!(v.as_str(), "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
        let digest: [u8; 32] = Sha256::digest(v.as_str().as_bytes()).into();
        let p = v.with_digest(&digest);
        assert_eq!(p.challenge, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
        assert_eq!(p.verifier, "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk");
    }

    #[test]
    fn base64url_has_no_padding_and_the_url_alphabet() {
        assert_eq!(base64url(b""), "");
        assert_eq!(base64url(b"f"), "Zg");
        assert_eq!(base64url(b"fo"), "Zm8");
        assert_eq!(base64url(b"foo"), "Zm9v");
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
        assert_eq!(state_from_random(&[0u8; 16]).len(), 22);
    }

    #[test]
    fn verifiers_are_43_unreserved_characters() {
        for seed in 0..=255u8 {
            let v = Verifier::from_random(&[seed; 32]);
            assert_eq!(v.as_str().len(), 43);
            assert!(v
                .as_str()
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        }
    }
}
