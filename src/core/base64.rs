//! Base64, both ways, and the size it stands for: provider requests carry files as base64,
//! servers and models answer with it (images, audio, resource blobs, JWT parts).
//!
//! A leaf: it imports nothing of Skiff, so records, wire formats, MCP and OAuth can all use the
//! one implementation without depending on each other.

/// Standard base64 with padding (what every provider's inline data takes).
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for i in 0..4 {
            if i <= c.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Standard or URL-safe base64, padded or not, ASCII whitespace ignored (data URLs and JSON
/// `bytes` fields come in each form); `None` for any other character, text after padding, or a
/// length no encoder writes. The inverse of [`base64`].
pub fn unbase64(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() / 4 * 3 + 2);
    let (mut acc, mut bits, mut pad) = (0u32, 0u32, 0u32);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => {
                pad += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' | b'\n' => continue,
            _ => return None,
        };
        if pad > 0 {
            return None;
        }
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // Six bits left means one lone character: no encoder ends a text that way.
    (bits != 6 && pad <= 2).then_some(out)
}

/// Bytes that base64 text decodes to, computed from its length so a large payload is never
/// decoded just to be measured. Tolerates line breaks and missing padding.
pub fn base64_decoded_len(data: &str) -> usize {
    let symbols = data
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'=')
        .count();
    symbols * 3 / 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn base64_matches_the_standard() {
        for (i, o) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(i.as_bytes()), o);
        }
        assert_eq!(base64(&[0xff, 0xfe, 0xfd]), "//79");
    }

    #[test]
    fn base64_lengths_are_decoded_sizes() {
        assert_eq!(base64_decoded_len(""), 0);
        assert_eq!(base64_decoded_len("AA=="), 1);
        assert_eq!(base64_decoded_len("AAA="), 2);
        assert_eq!(base64_decoded_len("AAAA"), 3);
        assert_eq!(base64_decoded_len("AAA"), 2); // unpadded
        assert_eq!(base64_decoded_len("AAAA\nAAAA\r\n"), 6); // wrapped lines
    }

    #[test]
    fn unbase64_reads_every_form_and_refuses_the_rest() {
        assert_eq!(unbase64("aGk=").as_deref(), Some(&b"hi"[..]));
        assert_eq!(unbase64("aGk").as_deref(), Some(&b"hi"[..]));
        assert_eq!(unbase64("aGVsbG8=\n").as_deref(), Some(&b"hello"[..]));
        assert_eq!(unbase64("").as_deref(), Some(&b""[..]));
        // URL-safe alphabet: 0xfb 0xff is "+/8" standard, "-_8" URL-safe.
        assert_eq!(unbase64("-_8=").as_deref(), Some(&[0xfb, 0xff][..]));
        assert_eq!(unbase64("+/8=").as_deref(), Some(&[0xfb, 0xff][..]));
        for bad in ["a", "aGk=x", "aG!k", "aGk===", "%%%", "aGVsbG8=aGk="] {
            assert_eq!(unbase64(bad), None, "{bad}");
        }
    }

    proptest! {
        #[test]
        fn unbase64_inverts_base64(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let text = base64(&bytes);
            prop_assert_eq!(unbase64(&text), Some(bytes.clone()));
            prop_assert_eq!(unbase64(text.trim_end_matches('=')), Some(bytes));
        }
    }
}
