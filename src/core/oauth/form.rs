//! Percent-encoding for OAuth's `application/x-www-form-urlencoded` bodies and query strings,
//! both ways. Written here because core takes no URL crate: the rules are short, and a
//! decoder that never panics on hostile input is easier to prove than to import.

use std::fmt::Write as _;

/// Percent-encode everything but RFC 3986's unreserved characters. Spaces become `%20`, not
/// `+`: both decode to a space under form rules, and `%20` is also right in a URL query, so one
/// encoder serves bodies and the authorization URL alike.
pub fn encode_component(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// `name=value&name=value`, in the order given (tests compare bodies byte for byte).
pub fn encode_pairs(pairs: &[(&str, &str)]) -> String {
    pairs
        .iter()
        .map(|(k, v)| format!("{}={}", encode_component(k), encode_component(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Decode one form component: `+` is a space, `%XX` a byte; a `%` not followed by two hex
/// digits is kept as is, and bytes that are not UTF-8 become U+FFFD. Never fails, so a
/// hostile callback URL can only produce values that later comparisons reject.
pub fn decode_component(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b'%' => match (
                bytes.get(i + 1).and_then(|c| hex(*c)),
                bytes.get(i + 2).and_then(|c| hex(*c)),
            ) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 3;
                }
                _ => {
                    out.push(b'%');
                    i += 1;
                }
            },
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Split `a=1&b=2` into decoded pairs; empty pieces are skipped and a piece without `=` has an
/// empty value (as browsers' `URLSearchParams` does).
pub fn parse_pairs(s: &str) -> Vec<(String, String)> {
    s.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => (decode_component(k), decode_component(v)),
            None => (decode_component(p), String::new()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn encodes_all_but_unreserved() {
        assert_eq!(
            encode_component("https://mcp.example.com/a b?x=1&y"),
            "https%3A%2F%2Fmcp.example.com%2Fa%20b%3Fx%3D1%26y"
        );
        assert_eq!(encode_component("AZaz09-._~"), "AZaz09-._~");
        assert_eq!(encode_component("é"), "%C3%A9");
    }

    #[test]
    fn decodes_plus_percent_and_tolerates_broken_escapes() {
        assert_eq!(decode_component("a+b%20c%2Bd"), "a b c+d");
        assert_eq!(decode_component("100%"), "100%");
        assert_eq!(decode_component("%zz%4"), "%zz%4");
        assert_eq!(decode_component("%C3%A9"), "é");
        assert_eq!(decode_component("%FF"), "\u{FFFD}");
    }

    #[test]
    fn pairs_round_trip_in_order() {
        let body = encode_pairs(&[("grant_type", "authorization_code"), ("scope", "a b")]);
        assert_eq!(body, "grant_type=authorization_code&scope=a%20b");
        assert_eq!(
            parse_pairs(&body),
            vec![
                ("grant_type".into(), "authorization_code".into()),
                ("scope".into(), "a b".into())
            ]
        );
        assert_eq!(
            parse_pairs("&&a&b=&=c"),
            vec![
                ("a".into(), "".into()),
                ("b".into(), "".into()),
                ("".into(), "c".into())
            ]
        );
    }

    proptest! {
        #[test]
        fn any_string_round_trips(s in ".*") {
            prop_assert_eq!(decode_component(&encode_component(&s)), s);
        }

        #[test]
        fn decoding_never_panics(s in "[%+a-fA-F0-9\\x80-\\xff&=]*") {
            let _ = parse_pairs(&s);
        }
    }
}
