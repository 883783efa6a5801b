//! Links and download names from tool results.
//!
//! A URI from a tool becomes a live link only when the browser will follow it as http or
//! https. The check reads the URI the way the URL standard's parser does before it looks at
//! the scheme (leading and trailing C0 controls and spaces dropped, tabs and newlines removed
//! anywhere, scheme compared without case), so `java\nscript:` or ` JAVASCRIPT:` cannot pass
//! as anything but what the browser will see. The href returned is that cleaned text, so the
//! string checked is the string followed.

use super::media::extension_for;

/// Longest download name kept, without its extension.
const MAX_STEM_CHARS: usize = 64;

/// The href for a URI from a tool, or `None` unless it is an http or https URL with a host.
pub fn web_href(uri: &str) -> Option<String> {
    let trimmed = uri.trim_matches(|c: char| c <= ' ');
    let cleaned: String = trimmed
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let (scheme, rest) = cleaned.split_once(':')?;
    if !(scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")) {
        return None;
    }
    // For special schemes the parser treats `\` as `/`; an empty host is no link.
    let authority = rest.trim_start_matches(['/', '\\']);
    if authority.is_empty() || authority.starts_with(['?', '#', '/', '\\']) {
        return None;
    }
    Some(format!("{}:{rest}", scheme.to_ascii_lowercase()))
}

/// A file name for downloading a resource: the URI's last path segment (query and fragment
/// dropped) reduced to letters, digits, `.`, `-` and `_`, so it has no path separator, no
/// control character and no leading dot; at most 64 characters before the extension. When the
/// MIME type is known its extension is used, so a blob called `invoice.pdf.exe` that says it is
/// a PDF downloads as `invoice.pdf.exe.pdf`, not as a program.
pub fn download_name(uri: &str, mime: Option<&str>) -> String {
    let path = uri.split(['?', '#']).next().unwrap_or("");
    let last = path
        .trim_end_matches(['/', '\\'])
        .rsplit(['/', '\\', ':'])
        .next()
        .unwrap_or("");
    let safe: String = last
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '_'))
        .collect();
    let safe = safe.trim_matches('.');
    let known = mime.and_then(extension_for);
    let (stem, ext) = match (safe.rsplit_once('.'), known) {
        (Some((stem, ext)), Some(k)) if ext.eq_ignore_ascii_case(k) => (stem, Some(k)),
        (Some((stem, ext)), Some(k)) if k == "jpg" && ext.eq_ignore_ascii_case("jpeg") => {
            (stem, Some("jpeg"))
        }
        (_, Some(k)) => (safe, Some(k)),
        (Some((stem, ext)), None) if !ext.is_empty() && ext.chars().count() <= 8 => {
            (stem, Some(ext))
        }
        _ => (safe, None),
    };
    let stem: String = stem.chars().take(MAX_STEM_CHARS).collect();
    let stem = if stem.trim_matches(['.', '-', '_']).is_empty() {
        "resource".to_string()
    } else {
        stem
    };
    match ext {
        Some(e) => format!("{stem}.{e}"),
        None => stem,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_links_with_a_host_are_live() {
        assert_eq!(
            web_href("https://example.com/a?b#c").as_deref(),
            Some("https://example.com/a?b#c")
        );
        assert_eq!(
            web_href("  HTTP://Example.com").as_deref(),
            Some("http://Example.com")
        );
        for bad in [
            "javascript:alert(1)",
            " JAVASCRIPT:alert(1)",
            "java\nscript:alert(1)",
            "\u{1}javascript:alert(1)",
            "data:text/html,<script>",
            "file:///etc/passwd",
            "vbscript:x",
            "mailto:a@b",
            "http:",
            "http://?q",
            "relative/path",
            "",
        ] {
            assert_eq!(web_href(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn what_the_browser_strips_is_stripped_before_the_check() {
        // The parser removes tabs and newlines anywhere, so this is an https link.
        assert_eq!(
            web_href("ht\ttps://exa\nmple.com").as_deref(),
            Some("https://example.com")
        );
        assert_eq!(
            web_href("https:\\\\example.com").as_deref(),
            Some("https:\\\\example.com")
        );
        // Extra slashes are skipped by the parser too: this is the host "path".
        assert!(web_href("https:///path").is_some());
    }

    #[test]
    fn download_names_are_plain_file_names() {
        assert_eq!(download_name("file:///tmp/report.pdf", None), "report.pdf");
        assert_eq!(
            download_name("https://x/a/data.csv?sig=abc#top", None),
            "data.csv"
        );
        assert_eq!(
            download_name("file:///tmp/../../etc/passwd", None),
            "passwd"
        );
        assert_eq!(download_name("C:\\Users\\me\\evil.txt", None), "evil.txt");
        assert_eq!(download_name("test://static/.bashrc", None), "bashrc");
        assert_eq!(download_name("x://a/b\u{202E}fdp.exe", None), "bfdp.exe");
        assert_eq!(download_name("x://a/\u{0}\u{7}..", None), "resource");
        assert_eq!(download_name("", None), "resource");
        let long = format!("x://a/{}.txt", "n".repeat(500));
        let name = download_name(&long, None);
        assert_eq!(name, format!("{}.txt", "n".repeat(64)));
    }

    #[test]
    fn the_extension_comes_from_the_mime_type_when_known() {
        assert_eq!(download_name("file:///r", Some("application/pdf")), "r.pdf");
        assert_eq!(
            download_name("file:///invoice.pdf.exe", Some("application/pdf")),
            "invoice.pdf.exe.pdf"
        );
        assert_eq!(
            download_name("x://a/photo.JPEG", Some("image/jpeg")),
            "photo.jpeg"
        );
        assert_eq!(
            download_name("x://a/notes.txt", Some("text/plain")),
            "notes.txt"
        );
        assert_eq!(
            download_name("x://a/blob", Some("application/x-unknown")),
            "blob"
        );
    }
}
