//! A user turn with attachments as the pieces every request builder sends, in order: the
//! files (images and PDFs as base64, text files inline), then the words.
//!
//! It sits below the codecs (`openai`, `anthropic`, `gemini`) so each reshapes the same pieces
//! into its own parts; which files a target may take is decided above, in `attach`. It only
//! reads the records: it never refuses a file and never reaches a blob store.

use crate::base64::base64;
use crate::records::attachment::Kind;
use crate::records::message::{Message, Role};

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

/// Whether `m`'s attachments travel with later requests: only a user's. Images a model
/// returned stay on the page and in storage but are not sent back: OpenAI-compatible servers
/// and Anthropic take no images in an assistant turn, and Gemini wants its own signature
/// with each returned image, which Skiff does not keep. To work on one, attach it to a new
/// question. The runner loads no bytes for messages that do not travel.
pub fn travels(m: &Message) -> bool {
    m.role == Role::User
}
