//! Deciding which link targets may become an `href`.
//!
//! Model output is hostile input: a prompt-injected page can make a model write
//! `[click](javascript:...)` or an image whose URL carries the conversation to a third party.
//! Only `http`, `https`, `mailto` and scheme-less (relative or `#fragment`) targets survive; every
//! other scheme, however it is spelled, is refused. This module must never let a target through
//! on a "looks fine" heuristic: anything with a scheme is checked against the allowlist after the
//! same clean-up a browser's URL parser performs.

use super::node::Href;

/// Schemes a kept link may use. Compared after lowercasing.
const ALLOWED_SCHEMES: [&str; 3] = ["http", "https", "mailto"];

/// Returns the target as an `href` value, or `None` when the target must not become a link.
///
/// `url` is the destination as the markdown parser hands it over: entities and backslash
/// escapes are already decoded, so `&#106;avascript:` arrives here as `javascript:`.
pub(crate) fn safe_href(url: &str) -> Option<Href> {
    // The URL standard strips leading/trailing C0 controls and spaces and removes every tab and
    // newline anywhere, so `" java\tscript:"` is `javascript:` to a browser; check what the
    // browser will see.
    let trimmed = url.trim_matches(|c: char| c <= ' ');
    let cleaned: String = trimmed
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    if let Some(colon) = scheme_end(&cleaned) {
        let scheme = cleaned[..colon].to_ascii_lowercase();
        if !ALLOWED_SCHEMES.contains(&scheme.as_str()) {
            return None;
        }
    }
    Some(Href::vetted(encode_for_attribute(&cleaned)))
}

/// Byte index of the `:` ending a scheme, if the target has one.
///
/// Stricter than the URL standard on purpose: any `:` before the first `/`, `?` or `#` counts as
/// a scheme separator, so a target like `foo:bar` is refused rather than read as a relative path.
fn scheme_end(url: &str) -> Option<usize> {
    let stop = url.find([':', '/', '?', '#'])?;
    (url.as_bytes()[stop] == b':').then_some(stop)
}

/// Percent-encodes quotes, spaces and controls, so the value reads the same wherever it is
/// written (the DOM stores it as given: `&` stays `&`, and no entity decoding can produce a
/// new scheme).
fn encode_for_attribute(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            c if c.is_control()
                || c.is_whitespace()
                || matches!(c, '"' | '\'' | '<' | '>' | '`') =>
            {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    const HEX: &[u8; 16] = b"0123456789ABCDEF";
                    out.push('%');
                    out.push(char::from(HEX[usize::from(b >> 4)]));
                    out.push(char::from(HEX[usize::from(b & 0xF)]));
                }
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::safe_href;

    fn href(url: &str) -> Option<String> {
        safe_href(url).map(|h| h.as_str().to_owned())
    }

    #[test]
    fn keeps_web_mail_relative_and_fragment_targets() {
        assert_eq!(
            href("https://example.com/a?b=1&c=2").as_deref(),
            Some("https://example.com/a?b=1&c=2")
        );
        assert_eq!(href("HTTP://x.org").as_deref(), Some("HTTP://x.org"));
        assert_eq!(href("mailto:a@b.c").as_deref(), Some("mailto:a@b.c"));
        assert_eq!(href("#section").as_deref(), Some("#section"));
        assert_eq!(href("docs/page.html").as_deref(), Some("docs/page.html"));
        assert_eq!(href("/a:b").as_deref(), Some("/a:b"));
        assert_eq!(href("?q=a:b").as_deref(), Some("?q=a:b"));
    }

    #[test]
    fn refuses_script_and_local_schemes_however_spelled() {
        for bad in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "java\tscript:alert(1)",
            "java\nscript:alert(1)",
            " \u{1}javascript:alert(1)",
            "javascript\t:alert(1)",
            "vbscript:msgbox(1)",
            "data:text/html;base64,PHNjcmlwdD4=",
            "file:///etc/passwd",
            "blob:https://x/1",
            "\u{a0}javascript:alert(1)",
            "foo:bar",
        ] {
            assert_eq!(href(bad), None, "{bad:?} was kept");
        }
    }

    #[test]
    fn attribute_breakouts_are_encoded() {
        let kept = href("https://x.org/\"onerror=\"alert(1)").unwrap_or_default();
        assert!(!kept.contains('"'), "{kept}");
        assert_eq!(kept, "https://x.org/%22onerror=%22alert(1)");
        // An entity the parser left encoded stays inert: the DOM stores `&#106;...` as given
        // (no entity decoding in `setAttribute`), a relative path, never a scheme.
        let kept = href("&#106;avascript:alert(1)").unwrap_or_default();
        assert_eq!(kept, "&#106;avascript:alert(1)");
    }
}
