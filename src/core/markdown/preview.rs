//! What the Preview of an `html` or `svg` code block shows, and under which restrictions.
//!
//! A preview runs the model's markup, scripts included, so it is confined three ways, all
//! decided here and applied by the ui as given:
//! - the frame is sandboxed with [`PREVIEW_SANDBOX`] only: scripts run, but in an opaque
//!   origin, so the page's storage, cookies, DOM and keys are out of reach, and it cannot open
//!   windows, submit forms or navigate the page;
//! - it loads [`PREVIEW_PAGE`] (`pwa/preview.html`), whose own policy is [`PREVIEW_CSP`]: no
//!   network at all (no fetch, no images or fonts from anywhere but `data:`). That page writes
//!   the document [`preview_document`] builds, which the ui posts to it; the document repeats
//!   the policy first thing. Not `srcdoc`: Chromium makes an `about:srcdoc` document inherit the
//!   page's policy, under which no inline script or style of the preview could run;
//! - the page's own policy allows `frame-src 'self'` only, so every navigation the frame
//!   attempts to another origin (meta refresh, `location`, a clicked link) is refused.
//!
//! This module must never add `allow-same-origin` (with `allow-scripts` it would let the frame
//! remove its own sandbox), and never put anything before the policy in the document.

/// The page the preview frame loads, relative to the app (so it works from any sub-path).
pub const PREVIEW_PAGE: &str = "preview.html";

/// The only sandbox token a preview frame gets.
pub const PREVIEW_SANDBOX: &str = "allow-scripts";

/// The preview document's own policy: inline script and style run, nothing is fetched.
pub const PREVIEW_CSP: &str = "default-src 'none'; script-src 'unsafe-inline'; \
    style-src 'unsafe-inline'; img-src data:; font-src data:; media-src data:; \
    form-action 'none'; base-uri 'none'";

/// A code block that can be previewed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreviewKind {
    Html,
    Svg,
}

impl PreviewKind {
    /// The kind for a rendered code element's class (`language-html`), if it has a preview.
    #[must_use]
    pub fn for_code_class(class: &str) -> Option<Self> {
        let lang = class
            .split_ascii_whitespace()
            .find_map(|c| c.strip_prefix("language-"))?;
        match lang.to_ascii_lowercase().as_str() {
            "html" | "htm" | "xhtml" => Some(PreviewKind::Html),
            "svg" => Some(PreviewKind::Svg),
            _ => None,
        }
    }
}

/// The document previewing `code`: the policy first, then the block's text as written.
#[must_use]
pub fn preview_document(kind: PreviewKind, code: &str) -> String {
    let mut doc = String::with_capacity(code.len() + 400);
    doc.push_str("<!DOCTYPE html><html><head><meta charset=\"utf-8\">");
    doc.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"");
    doc.push_str(PREVIEW_CSP);
    doc.push_str("\"><meta name=\"viewport\" content=\"width=device-width\">");
    if kind == PreviewKind::Svg {
        doc.push_str("<style>body{margin:0}svg{max-width:100%;height:auto}</style>");
    }
    doc.push_str("</head><body>");
    doc.push_str(code);
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_html_and_svg_blocks_have_a_preview() {
        assert_eq!(
            PreviewKind::for_code_class("language-html"),
            Some(PreviewKind::Html)
        );
        assert_eq!(
            PreviewKind::for_code_class("language-SVG"),
            Some(PreviewKind::Svg)
        );
        assert_eq!(PreviewKind::for_code_class("language-js"), None);
        assert_eq!(PreviewKind::for_code_class(""), None);
        assert_eq!(PreviewKind::for_code_class("html"), None);
    }

    #[test]
    fn the_policy_comes_before_anything_from_the_block() {
        let code = "</head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src *\">\
                    <script>fetch('https://evil.example')</script>";
        let doc = preview_document(PreviewKind::Html, code);
        let policy = doc.find(PREVIEW_CSP).expect("policy present");
        assert_eq!(doc.find(code), Some(doc.len() - code.len()));
        assert!(policy < doc.len() - code.len());
        // Nothing before the block's text comes from it.
        assert!(!doc[..doc.len() - code.len()].contains("evil"));
        assert!(doc.starts_with(
            "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><meta \
             http-equiv=\"Content-Security-Policy\""
        ));
    }

    #[test]
    fn the_policy_allows_no_network_and_the_sandbox_no_same_origin() {
        assert!(!PREVIEW_SANDBOX.contains("same-origin"));
        assert!(!PREVIEW_SANDBOX.contains("top-navigation"));
        assert!(!PREVIEW_SANDBOX.contains("popups"));
        for directive in PREVIEW_CSP.split(';') {
            let sources: Vec<&str> = directive.split_whitespace().skip(1).collect();
            for s in sources {
                assert!(
                    matches!(s, "'none'" | "'unsafe-inline'" | "data:"),
                    "{directive} allows {s}"
                );
            }
        }
        assert!(PREVIEW_CSP.starts_with("default-src 'none';"));
    }

    /// The frame's page enforces exactly this policy, first thing in its head.
    #[test]
    fn the_preview_page_carries_the_same_policy() {
        let page = include_str!("../../../pwa/preview.html");
        let meta =
            format!("<meta http-equiv=\"Content-Security-Policy\" content=\"{PREVIEW_CSP}\">");
        let at = page.find(&meta).expect("preview.html has PREVIEW_CSP");
        assert!(page[..at].find("<script").is_none() && page[..at].find("<link").is_none());
        assert_eq!(page.matches("<script").count(), 1, "one script: the writer");
        assert!(!page.contains("src="), "it loads nothing");
    }

    #[test]
    fn svg_is_shown_scaled_to_the_frame() {
        let doc = preview_document(PreviewKind::Svg, "<svg></svg>");
        assert!(doc.ends_with("<body><svg></svg>"));
        assert!(doc.contains("svg{max-width:100%"));
    }
}
