//! Which of a server's `serverInfo.icons` the page may show, and how.
//!
//! An icon is content from the server, so the spec asks clients to take it only from the
//! server's own domain and to be careful with SVG (it can carry script). Skiff shows a raster
//! image only (PNG, JPEG, WebP, GIF: [`IMAGE_TYPES`]):
//! - a `data:` URI of one of those types, base64, at most [`MAX_INLINE_CHARS`], used as is;
//! - an http(s) URL on the MCP server's own origin, which the runner fetches without
//!   credentials or the server's headers and shows as a `data:` URI only if the response's
//!   `Content-Type` is one of those types and it is at most [`MAX_FETCHED_BYTES`]
//!   ([`fetched_data_uri`]): the page's CSP admits images from `data:` and `blob:` only, so
//!   a remote URL is never put in an `<img>` directly.
//!
//! Anything else (SVG, another origin, `javascript:`, oversized) is skipped, never shown.

use serde_json::Value;

use crate::http::origin_of;

/// Image types an icon may have.
pub const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/webp", "image/gif"];
/// The longest `data:` icon taken (about 48 KB of image).
pub const MAX_INLINE_CHARS: usize = 65_536;
/// The largest fetched icon taken.
pub const MAX_FETCHED_BYTES: usize = 65_536;

/// Where the icon shown comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IconSource {
    /// A checked `data:` URI, usable as an `<img src>`.
    Inline(String),
    /// A URL on the server's origin, to fetch and check with [`fetched_data_uri`].
    Fetch(String),
}

/// The first icon the page may show, for a server reached at `server_url`. `icons` is the
/// raw `serverInfo.icons` (MCP 2025-11-25 `Icon`: `src`, `mimeType`; `sizes` and `theme`
/// are not read); anything malformed in it is skipped.
pub fn pick(icons: &Value, server_url: &str) -> Option<IconSource> {
    let server_origin = origin_of(&http_form(server_url));
    icons.as_array()?.iter().find_map(|icon| {
        let src = icon.get("src")?.as_str()?.trim();
        if let Some(rest) = strip_prefix_ignore_case(src, "data:") {
            let (meta, _) = rest.split_once(',')?;
            let (kind, encoding) = meta.split_once(';')?;
            let ok = is_image_type(kind)
                && encoding.eq_ignore_ascii_case("base64")
                && src.len() <= MAX_INLINE_CHARS;
            return ok.then(|| IconSource::Inline(src.to_string()));
        }
        let declared_ok = match icon.get("mimeType") {
            None | Some(Value::Null) => true,
            Some(m) => m.as_str().is_some_and(is_image_type),
        };
        let same_origin = server_origin.is_some() && origin_of(src) == server_origin;
        (declared_ok && same_origin).then(|| IconSource::Fetch(src.to_string()))
    })
}

/// A fetched icon as a `data:` URI for the `<img>`, if the server sent an allowed image type
/// (by its `Content-Type`, whatever the icon entry declared) of a sensible size.
pub fn fetched_data_uri(content_type: &str, bytes: &[u8]) -> Option<String> {
    let essence = content_type.split(';').next().unwrap_or("").trim();
    let ok = is_image_type(essence) && !bytes.is_empty() && bytes.len() <= MAX_FETCHED_BYTES;
    ok.then(|| {
        format!(
            "data:{};base64,{}",
            essence.to_ascii_lowercase(),
            crate::base64::base64(bytes)
        )
    })
}

fn is_image_type(kind: &str) -> bool {
    IMAGE_TYPES
        .iter()
        .any(|t| t.eq_ignore_ascii_case(kind.trim()))
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// A WebSocket server's origin in http terms (`wss://h` serves icons from `https://h`).
fn http_form(url: &str) -> String {
    let url = url.trim();
    match strip_prefix_ignore_case(url, "wss://") {
        Some(rest) => format!("https://{rest}"),
        None => match strip_prefix_ignore_case(url, "ws://") {
            Some(rest) => format!("http://{rest}"),
            None => url.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn icon(src: &str, mime: Option<&str>) -> Value {
        match mime {
            Some(m) => serde_json::json!({"src": src, "mimeType": m, "sizes": ["48x48"]}),
            None => serde_json::json!({"src": src}),
        }
    }

    fn list(icons: &[Value]) -> Value {
        Value::Array(icons.to_vec())
    }

    const PNG: &str = "data:image/png;base64,iVBORw0KGgo=";

    #[test]
    fn only_raster_images_from_data_or_the_servers_own_origin_are_shown() {
        let server = "https://mcp.example.com/mcp";
        assert_eq!(
            pick(&list(&[icon(PNG, None)]), server),
            Some(IconSource::Inline(PNG.into()))
        );
        // SVG can carry script: skipped in every form, the next icon is taken.
        let icons = [
            icon("data:image/svg+xml;base64,PHN2Zz4=", None),
            icon("https://mcp.example.com/icon.svg", Some("image/svg+xml")),
            icon("https://evil.example.net/i.png", Some("image/png")),
            icon("javascript:alert(1)", None),
            icon("data:image/png,notbase64", None),
            icon("https://MCP.example.com:443/i.png", None),
        ];
        assert_eq!(
            pick(&list(&icons), server),
            Some(IconSource::Fetch(
                "https://MCP.example.com:443/i.png".into()
            ))
        );
        assert_eq!(pick(&list(&icons[..5]), server), None);
        // A WebSocket server's icons come from its http(s) origin.
        assert_eq!(
            pick(
                &list(&[icon("https://h.example/i.webp", None)]),
                "wss://h.example/ws"
            ),
            Some(IconSource::Fetch("https://h.example/i.webp".into()))
        );
        assert_eq!(
            pick(
                &list(&[icon("http://h.example/i.webp", None)]),
                "wss://h.example/ws"
            ),
            None
        );
        // Oversized inline images are skipped.
        let big = format!("data:image/png;base64,{}", "A".repeat(MAX_INLINE_CHARS));
        assert_eq!(pick(&list(&[icon(&big, None)]), server), None);
        // An in-page server has no origin: only data icons.
        assert_eq!(pick(&list(&[icon("https://a/i.png", None)]), ""), None);
        // Malformed entries and lists are skipped, not fatal.
        let odd = serde_json::json!([{"src": 7}, "x", {"src": PNG, "mimeType": 3}, {"src": PNG}]);
        assert_eq!(pick(&odd, server), Some(IconSource::Inline(PNG.into())));
        assert_eq!(pick(&serde_json::json!({"src": PNG}), server), None);
    }

    #[test]
    fn a_fetched_icon_is_checked_by_what_the_server_actually_sent() {
        assert_eq!(
            fetched_data_uri("image/png", b"abc").as_deref(),
            Some("data:image/png;base64,YWJj")
        );
        assert_eq!(
            fetched_data_uri("IMAGE/JPEG; charset=binary", b"abc").as_deref(),
            Some("data:image/jpeg;base64,YWJj")
        );
        assert_eq!(fetched_data_uri("image/svg+xml", b"<svg/>"), None);
        assert_eq!(fetched_data_uri("text/html", b"abc"), None);
        assert_eq!(fetched_data_uri("image/png", b""), None);
        assert_eq!(
            fetched_data_uri("image/png", &vec![0; MAX_FETCHED_BYTES + 1]),
            None
        );
    }
}
