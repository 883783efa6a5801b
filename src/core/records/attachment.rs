//! One attached file as a message stores it: a reference to bytes in the browser's blob store
//! (keyed by `hash`, so the same image is stored once), never the bytes themselves.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::format::human_bytes;

/// Largest image file accepted before scaling.
pub const MAX_IMAGE_BYTES: u64 = 20_000_000;
/// Largest PDF: Gemini's limit for inline data (Anthropic and OpenAI allow 32 MB).
pub const MAX_PDF_BYTES: u64 = 20_000_000;
/// Largest text file inlined: about 50,000 tokens.
pub const MAX_TEXT_BYTES: u64 = 200_000;

/// The stored type of a PDF.
pub const PDF: &str = "application/pdf";
/// The stored type of every text file, whatever its name says.
pub const TEXT: &str = "text/plain";

/// What a file is to the model. Not stored: it follows from the stored `mime`
/// ([`Attachment::kind`]), which spares the page a deserializer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Image,
    Text,
    Pdf,
}

/// One attached file as the conversation stores it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attachment {
    pub name: String,
    /// The stored bytes' type (a scaled image may be JPEG where the file was PNG): `image/…`,
    /// `application/pdf`, or `text/plain` for every text file.
    pub mime: String,
    /// Length of the stored bytes.
    pub size: u64,
    /// SHA-256 (lowercase hex) of the stored bytes: the blob store's key.
    pub hash: String,
    /// Images: stored width and height, then the original's (what the chip shows); zeros
    /// otherwise. Four plain fields: an array would cost the page a sequence deserializer.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub w: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub h: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub ow: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub oh: u32,
    /// The stored bytes, loaded by the runner for one request; never saved.
    #[serde(skip)]
    pub data: Option<Arc<[u8]>>,
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

impl Kind {
    /// The stored name, also the chip's `data-kind`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Image => "image",
            Kind::Text => "text",
            Kind::Pdf => "pdf",
        }
    }
}

impl Attachment {
    pub fn kind(&self) -> Kind {
        if self.mime.starts_with("image/") {
            Kind::Image
        } else if self.mime == PDF {
            Kind::Pdf
        } else {
            Kind::Text
        }
    }

    /// What a chip says: "photo.png · 1.2 MB · 800×600", for a scaled image what is stored
    /// and sent with where it came from, "photo.jpg · 310 KB · 1568×1176 (scaled from
    /// 4032×3024)" (the size beside the original's dimensions read as the original's size), or
    /// when the bytes are `gone` from storage, "photo.png · image no longer stored".
    pub fn label(&self, gone: bool) -> String {
        let (ow, oh) = (self.ow, self.oh);
        // Records from before the stored size was kept have only the original's.
        let (w, h) = if self.w > 0 {
            (self.w, self.h)
        } else {
            (ow, oh)
        };
        let mut s = format!("{} · ", self.name);
        if gone {
            s += if self.kind() == Kind::Image {
                "image no longer stored"
            } else {
                "file no longer stored"
            };
        } else {
            s += &human_bytes(self.size);
            if w > 0 {
                s += &format!(" · {w}×{h}");
            }
            if w > 0 && (w, h) != (ow, oh) && ow > 0 {
                s += &format!(" (scaled from {ow}×{oh})");
            }
        }
        s
    }
}
