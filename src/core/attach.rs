//! Files attached to a user message: what is accepted, how large, how an image is scaled, how a
//! text file reads to the model, and which provider/model may receive which kind.
//!
//! A message holds only an [`Attachment`] record; the bytes live in the browser's blob store,
//! keyed by `hash`, so the same image is stored once. The runner loads them into `data` just
//! before a request is built, and every request builder turns them into its own parts through
//! `seam::piece::pieces`. A blob that is gone (cleared storage) leaves `data` empty: the message still
//! sends its text, and the page shows a placeholder. This module never reads a file or a clock.

use crate::format::human_bytes;
use crate::profiles::Target;
use crate::provider::ProviderKind;
use crate::records::attachment::{
    Attachment, Kind, MAX_IMAGE_BYTES, MAX_PDF_BYTES, MAX_TEXT_BYTES, PDF,
};
use crate::records::conversation::Conversation;
use crate::records::message::{Message, Role};

/// Longest image edge sent: Anthropic's advice (larger images are scaled down by the API
/// anyway, costing upload time and tokens for nothing).
pub const MAX_EDGE: u32 = 1568;
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

#[cfg(test)]
#[path = "attach_tests.rs"]
mod tests;
