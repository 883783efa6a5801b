//! Images, audio and binary blobs from tool results: which become live elements, and the
//! `data:` URLs they are given.
//!
//! Only formats on an allowlist are made live: raster images (never SVG, which can carry
//! script) and common audio formats. Everything else is described in a sentence, so a format
//! the browser cannot decode shows a useful note instead of a broken element. A MIME type is
//! reduced to `type/subtype` before it goes into a URL, and only base64 text is ever put after
//! `;base64,`, so nothing a server sends can change the meaning of the URL. Binary blobs are
//! always typed `application/octet-stream`: a blob claiming `text/html` must never be
//! something the browser would render.

use crate::base64::base64_decoded_len;

/// Raster formats browsers decode everywhere.
const IMAGE_MIMES: [&str; 5] = [
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "image/avif",
];

/// Audio formats an `<audio>` element plays in current browsers.
const AUDIO_MIMES: [&str; 11] = [
    "audio/mpeg",
    "audio/mp3",
    "audio/mp4",
    "audio/aac",
    "audio/ogg",
    "audio/opus",
    "audio/webm",
    "audio/wav",
    "audio/wave",
    "audio/x-wav",
    "audio/flac",
];

/// A MIME type reduced to `type/subtype` in lowercase, or `None` when it has characters that
/// could change the meaning of the `data:` URL it is put into.
pub fn clean_mime(mime: &str) -> Option<String> {
    let base = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let (kind, sub) = base.split_once('/')?;
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'+' | b'-' | b'_'))
    };
    (token(kind) && token(sub)).then_some(base)
}

/// Base64 as a server should send it (line breaks and spaces allowed); anything else is never
/// put into a `data:` URL.
pub fn is_base64(data: &str) -> bool {
    data.bytes().all(|b| {
        b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'\r' | b'\n' | b' ')
    })
}

fn data_url(mime: &str, data: &str) -> String {
    let compact: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    format!("data:{mime};base64,{compact}")
}

fn allowed_src(allow: &[&str], mime: &str, data: &str) -> Option<String> {
    let m = clean_mime(mime).filter(|m| allow.contains(&m.as_str()))?;
    is_base64(data).then(|| data_url(&m, data))
}

/// The `src` of an `<img>` for this image, or `None` when it must not be shown.
pub fn image_src(mime: &str, data: &str) -> Option<String> {
    allowed_src(&IMAGE_MIMES, mime, data)
}

/// The `src` of an `<audio>` for this audio, or `None` when it must not be played.
pub fn audio_src(mime: &str, data: &str) -> Option<String> {
    allowed_src(&AUDIO_MIMES, mime, data)
}

/// The `href` that downloads a base64 blob, always as `application/octet-stream`.
pub fn blob_href(data: &str) -> Option<String> {
    is_base64(data).then(|| data_url("application/octet-stream", data))
}

/// The decoded size of base64 data, for a sentence (`format::human_bytes`: one rule for
/// every size the page shows).
pub fn size_text(data: &str) -> String {
    crate::format::human_bytes(base64_decoded_len(data) as u64)
}

/// The usual file extension for a MIME type, for download names.
pub fn extension_for(mime: &str) -> Option<&'static str> {
    Some(match clean_mime(mime)?.as_str() {
        "application/pdf" => "pdf",
        "application/json" => "json",
        "application/zip" => "zip",
        "application/gzip" => "gz",
        "application/xml" | "text/xml" => "xml",
        "application/octet-stream" => "bin",
        "text/plain" => "txt",
        "text/csv" => "csv",
        "text/markdown" => "md",
        "text/html" => "html",
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/avif" => "avif",
        "image/svg+xml" => "svg",
        "audio/mpeg" | "audio/mp3" => "mp3",
        "audio/wav" | "audio/wave" | "audio/x-wav" => "wav",
        "audio/ogg" => "ogg",
        "audio/flac" => "flac",
        "video/mp4" | "audio/mp4" => "mp4",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PNG: &str = "iVBORw0KGgo=";

    #[test]
    fn mime_types_are_reduced_or_refused() {
        assert_eq!(
            clean_mime(" Image/PNG; charset=x").as_deref(),
            Some("image/png")
        );
        assert_eq!(clean_mime("image/png,evil"), None);
        assert_eq!(clean_mime("image/png\"x"), None);
        assert_eq!(clean_mime("png"), None);
        assert_eq!(clean_mime("/png"), None);
    }

    #[test]
    fn only_raster_images_are_shown_and_never_svg() {
        assert_eq!(
            image_src("image/png", "iVBO Rw0K\nGgo=").as_deref(),
            Some("data:image/png;base64,iVBORw0KGgo=")
        );
        assert_eq!(image_src("image/svg+xml", PNG), None);
        assert_eq!(image_src("IMAGE/SVG+XML; a=b", PNG), None);
        assert_eq!(image_src("text/html", PNG), None);
        assert_eq!(image_src("image/tiff", PNG), None);
        // Not base64: a quote or a comma could end the URL and start something else.
        assert_eq!(image_src("image/png", "abc\"onerror=x"), None);
        assert_eq!(image_src("image/png", "a,b"), None);
    }

    #[test]
    fn audio_is_allowlisted() {
        assert_eq!(
            audio_src("audio/wav", "UklGRg==").as_deref(),
            Some("data:audio/wav;base64,UklGRg==")
        );
        assert_eq!(audio_src("audio/x-made-up", "UklGRg=="), None);
        assert_eq!(audio_src("video/mp4", "UklGRg=="), None);
    }

    #[test]
    fn blobs_download_as_octet_stream_whatever_they_claim() {
        assert_eq!(
            blob_href("PGgxPg==").as_deref(),
            Some("data:application/octet-stream;base64,PGgxPg==")
        );
        assert_eq!(blob_href("<h1>"), None);
    }

    #[test]
    fn sizes_are_decoded_sizes() {
        assert_eq!(size_text("AAAA"), "3 bytes");
        assert_eq!(size_text(&"A".repeat(20_000)), "15 KB");
        assert_eq!(size_text(&"A".repeat(20_000_000)), "15 MB");
    }
}
