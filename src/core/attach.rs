//! Files attached to a user message: what is accepted, how large, how an image is scaled, how a
//! text file reads to the model, and which provider/model may receive which kind.
//!
//! A message holds only an [`Attachment`] record; the bytes live in the browser's blob store,
//! keyed by `hash`, so the same image is stored once. The runner loads them into `data` just
//! before a request is built, and every request builder turns them into its own parts through
//! [`pieces`]. A blob that is gone (cleared storage) leaves `data` empty: the message still
//! sends its text, and the page shows a placeholder. This module never reads a file or a clock.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::chat::{Conversation, Message, Role};
use crate::format::human_bytes;
use crate::profiles::Target;
use crate::provider::ProviderKind;

/// Longest image edge sent: Anthropic's advice (larger images are scaled down by the API
/// anyway, costing upload time and tokens for nothing).
pub const MAX_EDGE: u32 = 1568;
/// Largest image file accepted before scaling.
pub const MAX_IMAGE_BYTES: u64 = 20_000_000;
/// Largest PDF: Gemini's limit for inline data (Anthropic and OpenAI allow 32 MB).
pub const MAX_PDF_BYTES: u64 = 20_000_000;
/// Largest text file inlined: about 50,000 tokens.
pub const MAX_TEXT_BYTES: u64 = 200_000;

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

/// Why a file cannot be attached or sent; each is a sentence for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    Unsupported(String),
    TooLarge(String, u64),
    NotText(String),
    Provider(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Unsupported(n) => write!(
                f,
                "{n} cannot be attached: only images (PNG, JPEG, GIF, WebP), PDFs and text or code files can."
            ),
            Refusal::TooLarge(n, max) => {
                write!(f, "{n} is too large to attach (at most {}).", human_bytes(*max))
            }
            Refusal::NotText(n) => write!(f, "{n} is not a text file (it is not valid UTF-8)."),
            Refusal::Provider(s) => f.write_str(s),
        }
    }
}

/// Why a file (or an image the model returned) could not be stored: a full storage says what
/// to do about it; anything else is the browser's own words.
pub fn not_stored(name: &str, quota: bool, detail: &str) -> String {
    if quota {
        format!(
            "Browser storage is full: {name} could not be stored. Delete or export old conversations to make room."
        )
    } else {
        format!("{name} could not be stored: {detail}")
    }
}

/// File name endings read as text whatever type the browser reports (often none for code),
/// space-separated: one string costs the page less than a table of them.
const TEXT_ENDINGS: &str =
    " txt md markdown csv tsv json jsonl xml yaml yml toml ini cfg conf log \
    rs py js mjs ts tsx jsx go java kt c h cc cpp hpp cs rb php swift sh bash zsh sql html htm \
    css scss svg lua r pl hs ex exs erl scala dart vue svelte diff patch tex org rst env ";

/// The type every stored PDF has.
pub const PDF: &str = "application/pdf";
/// The type every stored text file has (whatever the browser called it).
pub const TEXT: &str = "text/plain";

const IMAGE_TYPES: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Which kind a picked, pasted or dropped file is, and whether its size is allowed.
pub fn classify(name: &str, mime: &str, size: u64) -> Result<Kind, Refusal> {
    let ending = name.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    let kind = if IMAGE_TYPES.contains(&mime) {
        Kind::Image
    } else if mime == PDF || ending == "pdf" {
        Kind::Pdf
    } else if mime.starts_with("text/")
        || matches!(mime, "application/json" | "application/xml")
        || (!ending.is_empty() && TEXT_ENDINGS.contains(&format!(" {ending} ")))
    {
        Kind::Text
    } else {
        return Err(Refusal::Unsupported(name.into()));
    };
    let max = match kind {
        Kind::Image => MAX_IMAGE_BYTES,
        Kind::Pdf => MAX_PDF_BYTES,
        Kind::Text => MAX_TEXT_BYTES,
    };
    if size > max {
        return Err(Refusal::TooLarge(name.into(), max));
    }
    Ok(kind)
}

/// How to store an image of `w`×`h`: `None` keeps the file's bytes as they are (small enough);
/// otherwise the size to draw it at and the type to encode it as. PNG and GIF may be
/// transparent, so they become PNG; everything else JPEG. A GIF is always redrawn (its first
/// frame), because Gemini does not read GIFs.
pub fn scale_plan(mime: &str, w: u32, h: u32) -> Option<(u32, u32, &'static str)> {
    let edge = w.max(h);
    if edge <= MAX_EDGE && mime != "image/gif" {
        return None;
    }
    let edge = edge.max(MAX_EDGE);
    let scale = |v: u32| {
        ((u64::from(v) * u64::from(MAX_EDGE) + u64::from(edge) / 2) / u64::from(edge)).max(1) as u32
    };
    let out = if matches!(mime, "image/png" | "image/gif") {
        "image/png"
    } else {
        "image/jpeg"
    };
    Some((scale(w), scale(h), out))
}

/// A text file as the model reads it: its name, then its text in a fence longer than any run
/// of backticks inside, so the file cannot close it early.
pub fn inline_text(name: &str, bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    format!(
        "File: {name}\n{fence}\n{}\n{fence}",
        text.trim_end_matches('\n')
    )
}

/// Whether bytes read as a text file are text (checked before storing).
pub fn check_text(name: &str, bytes: &[u8]) -> Result<(), Refusal> {
    std::str::from_utf8(bytes)
        .map(drop)
        .map_err(|_| Refusal::NotText(name.into()))
}

/// Why `target` cannot take a file of `kind`, as a sentence naming the provider and model, or
/// `None` when it can. An unknown capability is given the benefit of the doubt (the provider's
/// own error then says more), except PDFs to an OpenAI-compatible server: only OpenAI and
/// OpenRouter are known to take `file` parts.
fn refusal(target: &Target, kind: Kind) -> Option<String> {
    let who = format!("{} ({})", target.model, target.profile_name);
    match kind {
        Kind::Image if target.caps.vision.value() == Some(false) => Some(format!(
            "{who} does not take images; choose a vision model or remove the image."
        )),
        Kind::Pdf => {
            let known = match target.kind {
                ProviderKind::Anthropic | ProviderKind::Gemini => true,
                ProviderKind::InBrowser => false,
                ProviderKind::OpenAiCompatible => {
                    target.base_url.contains("api.openai.com")
                        || target.base_url.contains("openrouter.ai")
                }
            };
            (!target.caps.pdf.value().unwrap_or(known)).then(|| format!(
                "{who} does not take PDF files; attach the text instead, or mark the model as taking PDF input."
            ))
        }
        _ => None,
    }
}

/// Whether `target` may receive these attachments; refused before anything is sent, with a
/// sentence naming the provider and model.
pub fn check_target(target: &Target, attachments: &[Attachment]) -> Result<(), Refusal> {
    for kind in [Kind::Image, Kind::Pdf] {
        if attachments.iter().any(|a| a.kind() == kind) {
            if let Some(s) = refusal(target, kind) {
                return Err(Refusal::Provider(s));
            }
        }
    }
    Ok(())
}

/// Files in `history` that `target` cannot take: they were attached while the conversation
/// used another model. Refusing the next message for them would leave the user stuck, and
/// sending them fails the whole request, so a request leaves them out instead and says so in
/// the words of their message (the model knows a file was there); this copy of the history
/// is the request's own (and the context gauge's, which then does not count them). Returns the names left out, for the sentence the user sees
/// ([`left_out_note`]).
pub fn withhold(target: &Target, history: &mut [Message]) -> Vec<String> {
    let mut all = Vec::new();
    for m in history.iter_mut().filter(|m| m.role == Role::User) {
        let mut names = Vec::new();
        m.attachments.retain(|a| {
            let keep = refusal(target, a.kind()).is_none();
            if !keep {
                names.push(a.name.clone());
            }
            keep
        });
        if !names.is_empty() {
            let note = format!(
                "[Attached here but left out of this request, because {} cannot read it: {}]",
                target.model,
                names.join(", ")
            );
            m.content = if m.content.trim().is_empty() {
                note
            } else {
                format!("{}\n\n{note}", m.content)
            };
            all.extend(names);
        }
    }
    all
}

/// What the user is told when a request leaves earlier files out ([`withhold`]).
pub fn left_out_note(target: &Target, names: &[String]) -> Option<String> {
    let first = names.first()?;
    let what = match names.len() {
        1 => first.clone(),
        n => format!("{first} and {} more", n - 1),
    };
    Some(format!(
        "{what}, attached earlier in this conversation, cannot go to {} ({}), so the model is told it was left out.",
        target.model, target.profile_name
    ))
}

/// One piece of a user turn with attachments, in the order sent: the files, then the words.
#[derive(Debug, PartialEq)]
pub enum Piece<'a> {
    Text(String),
    Image { mime: &'a str, base64: String },
    Pdf { name: &'a str, base64: String },
}

/// A user message with attachments as pieces, or `None` when it has none (the builders then
/// send plain text, as before). Files whose bytes are gone are left out (and `None` when
/// nothing is left, so a blank turn is skipped as any other).
pub fn pieces(m: &Message) -> Option<Vec<Piece<'_>>> {
    if !travels(m) || m.attachments.is_empty() {
        return None;
    }
    let mut out: Vec<Piece> = m
        .attachments
        .iter()
        .filter_map(|a| {
            let d = a.data.as_deref()?;
            Some(match a.kind() {
                Kind::Image => Piece::Image {
                    mime: &a.mime,
                    base64: base64(d),
                },
                Kind::Pdf => Piece::Pdf {
                    name: &a.name,
                    base64: base64(d),
                },
                Kind::Text => Piece::Text(inline_text(&a.name, d)),
            })
        })
        .collect();
    if !m.content.trim().is_empty() {
        out.push(Piece::Text(m.content.clone()));
    }
    (!out.is_empty()).then_some(out)
}

/// Every blob `c` names: in the messages on screen and in the branches kept aside.
pub fn hashes(c: &Conversation) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let messages = c
        .messages
        .iter()
        .chain(c.branches.iter().flat_map(|b| b.messages.iter()));
    for a in messages.flat_map(|m| m.attachments.iter()) {
        if !out.contains(&a.hash) {
            out.push(a.hash.clone());
        }
    }
    out
}

/// Of the blobs a delete may have freed (`candidates`), those nothing else names: neither a
/// conversation held in memory (`held`) nor the text of a stored body (`stored`, searched as
/// text, so an unreadable body that names a blob still keeps it). Those are deleted.
pub fn unreferenced<'a>(
    candidates: &[String],
    held: &[Conversation],
    stored: impl Iterator<Item = &'a str>,
) -> Vec<String> {
    let mut free: Vec<String> = candidates
        .iter()
        .filter(|h| !held.iter().any(|c| hashes(c).contains(h)))
        .cloned()
        .collect();
    for text in stored {
        free.retain(|h| !text.contains(h.as_str()));
        if free.is_empty() {
            break;
        }
    }
    free
}

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

/// Whether `m`'s attachments travel with later requests: only a user's. Images a model
/// returned stay on the page and in storage but are not sent back: OpenAI-compatible servers
/// and Anthropic take no images in an assistant turn, and Gemini wants its own signature
/// with each returned image, which Skiff does not keep. To work on one, attach it to a new
/// question. The runner loads no bytes for messages that do not travel.
pub fn travels(m: &Message) -> bool {
    m.role == Role::User
}

#[cfg(test)]
#[path = "attach_tests.rs"]
mod tests;
