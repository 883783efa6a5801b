//! Images a model returns: Gemini's `inlineData` output parts and the OpenAI-compatible
//! `images` entries (OpenRouter's `data:` URLs). A stream decoder hands its raw field here and
//! gets back one [`StreamEvent`]: an [`StreamEvent::Image`] whose bytes are a PNG, JPEG, GIF or
//! WebP the page can show, or a [`StreamEvent::Content`] note saying what came and why it is not
//! shown. Nothing is dropped silently and nothing here can panic on what a server sends.
//!
//! The runner stores the bytes as attachments are stored (once per SHA-256) and names them
//! with [`name`]. This module never performs IO: it only checks and decodes.

use crate::base64::unbase64;
use crate::format::human_bytes;
use crate::records::attachment::{Attachment, MAX_IMAGE_BYTES};
use crate::seam::StreamEvent;

/// One whole image a model returned, checked: `mime` is the type its bytes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageOut {
    pub mime: &'static str,
    pub bytes: Vec<u8>,
}

/// Why a returned image is not shown; each is a sentence for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotShown {
    /// A type the page does not show (`audio/…`, `image/tiff`, …), as the server named it.
    Type(String),
    /// Not base64, empty, or not the image its type says.
    Malformed,
    TooLarge,
    /// Not a `data:` URL (a web address Skiff does not load, or nothing).
    NotData,
}

impl std::fmt::Display for NotShown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("The model returned ")?;
        match self {
            NotShown::Type(t) => write!(
                f,
                "a file of type “{t}”, not shown (only PNG, JPEG, GIF and WebP are)."
            ),
            NotShown::Malformed => f.write_str("an image whose data is damaged."),
            NotShown::TooLarge => write!(
                f,
                "an image over {}, not kept.",
                human_bytes(MAX_IMAGE_BYTES)
            ),
            NotShown::NotData => f.write_str("an image by address, which Skiff does not load."),
        }
    }
}

/// The event for Gemini's `inlineData {mimeType, data}` (also the body of a `data:` URL).
pub fn from_base64(mime: &str, data: &str) -> StreamEvent {
    match decode(mime, data) {
        Ok(image) => StreamEvent::Image(image),
        Err(e) => StreamEvent::Content(note(&e)),
    }
}

/// The event for an OpenAI-compatible image entry's URL: only `data:<type>;base64,<data>`.
pub fn from_data_url(url: &str) -> StreamEvent {
    let parsed = url
        .trim()
        .strip_prefix("data:")
        .and_then(|rest| rest.split_once(','))
        .and_then(|(head, data)| Some((head.strip_suffix(";base64")?, data)));
    match parsed {
        Some((mime, data)) => from_base64(mime, data),
        None => StreamEvent::Content(note(&NotShown::NotData)),
    }
}

/// A note in the answer's text, set apart from the words around it.
pub fn note(e: &impl std::fmt::Display) -> String {
    format!("\n\n*{e}*\n\n")
}

fn decode(mime: &str, data: &str) -> Result<ImageOut, NotShown> {
    let declared = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let declared = if declared == "image/jpg" {
        "image/jpeg".to_string()
    } else {
        declared
    };
    if !matches!(
        declared.as_str(),
        "image/png" | "image/jpeg" | "image/gif" | "image/webp"
    ) {
        // Only what a type name is made of, so the note stays one plain line of text (no
        // markdown, no bidi or invisible characters from the server).
        let shown = declared
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || "/+.-".contains(*c))
            .take(60)
            .collect();
        return Err(NotShown::Type(shown));
    }
    // Refused before decoding: base64 is four characters for three bytes.
    if data.len() as u64 / 4 * 3 > MAX_IMAGE_BYTES + 3 {
        return Err(NotShown::TooLarge);
    }
    let bytes = unbase64(data).ok_or(NotShown::Malformed)?;
    if bytes.len() as u64 > MAX_IMAGE_BYTES {
        return Err(NotShown::TooLarge);
    }
    // The bytes decide the type (a server may call a JPEG a PNG); bytes of none of the four
    // are not an image the page can show.
    let mime = sniff(&bytes).ok_or(NotShown::Malformed)?;
    Ok(ImageOut { mime, bytes })
}

/// The type of an image from its first bytes, among the four the page shows.
pub fn sniff(b: &[u8]) -> Option<&'static str> {
    if b.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if b.starts_with(b"\xff\xd8\xff") {
        Some("image/jpeg")
    } else if b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if b.len() >= 12 && b.starts_with(b"RIFF") && &b[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

/// The name of the next returned image of a message holding `existing`: `image-1.png`, …
pub fn name(existing: &[Attachment], mime: &str) -> String {
    let ending = match mime {
        "image/jpeg" => "jpg",
        m => m.strip_prefix("image/").unwrap_or("bin"),
    };
    format!("image-{}.{ending}", existing.len() + 1)
}

#[cfg(test)]
#[path = "image_out_tests.rs"]
mod tests;
