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

/// The script every preview document carries, after the policy and before the block: it
/// tells the page how tall the document is, now and whenever that changes, so the frame is as
/// tall as what it shows (an 80 px drawing in a 320 px frame was mostly blank). It posts a
/// bare number; the page only ever reads it as a height, within [`preview_frame_height`]'s
/// bounds, so a block posting numbers of its own can do no more than resize its frame.
///
/// It measures where the body ends (plus its bottom margin), not the root's `scrollHeight`:
/// that is never less than the frame's own height, so a frame would never shrink to its
/// drawing (measured: an 80 px SVG reported 160, the frame's first height).
const PREVIEW_MEASURE: &str = "<script>(function(){var last=-1;function tell(){var b=document.body;if(!b){return;}var r=b.getBoundingClientRect();var m=parseFloat(getComputedStyle(b).marginBottom)||0;var h=Math.ceil(r.bottom+m+(window.scrollY||0));if(h!==last){last=h;parent.postMessage(h,'*');}}addEventListener('load',tell);addEventListener('DOMContentLoaded',tell);if(typeof ResizeObserver==='function'){new ResizeObserver(tell).observe(document.documentElement);}setTimeout(tell,0);setTimeout(tell,300);})();</script>";

/// The frame's height for a document `content_px` tall (what [`preview_document`]'s script
/// reports): its content, at least [`PREVIEW_MIN_PX`] (a drawing with no height still shows
/// its edge) and at most [`PREVIEW_MAX_PX`] (a tall page scrolls inside its frame instead of
/// pushing the conversation away). Anything that is not a finite number keeps the frame as it is.
#[must_use]
// Not `f64::clamp`: its assertion formats floats, which links Rust's float printing into the
// page (see docs/design.md, "Where the page's bytes go").
#[allow(clippy::manual_clamp)]
pub fn preview_frame_height(content_px: f64) -> Option<f64> {
    if !content_px.is_finite() {
        return None;
    }
    // A pixel of slack: a fractional height rounds down in `scrollHeight`.
    let wanted = content_px.ceil() + 1.0;
    Some(if wanted < PREVIEW_MIN_PX {
        PREVIEW_MIN_PX
    } else if wanted > PREVIEW_MAX_PX {
        PREVIEW_MAX_PX
    } else {
        wanted
    })
}

/// The bounds of a preview frame's height, in CSS pixels.
pub(crate) const PREVIEW_MIN_PX: f64 = 40.0;
pub(crate) const PREVIEW_MAX_PX: f64 = 640.0;

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
    doc.push_str(PREVIEW_MEASURE);
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
    fn the_frame_is_as_tall_as_its_document_within_bounds() {
        let doc = preview_document(PreviewKind::Svg, "<svg height=\"80\"></svg>");
        let policy = doc.find(PREVIEW_CSP).expect("policy");
        let measure = doc.find(PREVIEW_MEASURE).expect("the measuring script");
        assert!(policy < measure && measure < doc.find("<svg").unwrap());
        assert!(PREVIEW_MEASURE.contains("parent.postMessage(h,'*')"));
        // An 80 px drawing gets an 81 px frame, not 320.
        assert_eq!(preview_frame_height(80.0), Some(81.0));
        assert_eq!(preview_frame_height(79.2), Some(81.0));
        assert_eq!(preview_frame_height(0.0), Some(PREVIEW_MIN_PX));
        assert_eq!(preview_frame_height(-5.0), Some(PREVIEW_MIN_PX));
        assert_eq!(preview_frame_height(5_000.0), Some(PREVIEW_MAX_PX));
        assert_eq!(preview_frame_height(f64::NAN), None);
        assert_eq!(preview_frame_height(f64::INFINITY), None);
    }

    #[test]
    fn svg_is_shown_scaled_to_the_frame() {
        let doc = preview_document(PreviewKind::Svg, "<svg></svg>");
        assert!(doc.ends_with("<body><svg></svg>"));
        assert!(doc.contains("svg{max-width:100%"));
    }
}
