//! Token estimates for the context budget and the composer's gauge.
//!
//! No tokenizer ships with the page (each model family has its own, and they are megabytes),
//! so this counts the way common BPE vocabularies behave on average: about four characters of
//! ASCII text per token, and about one token per character elsewhere (CJK, emoji, most
//! accented runs). It over-counts non-Latin text a little, which errs towards sending less
//! rather than having the server refuse the request.

use crate::records::attachment::Kind;
use crate::records::message::Message;
use crate::tools::result;
use crate::tools::spec::ToolSpec;

/// What every message costs beyond its text (role markers and separators in chat templates).
pub const PER_MESSAGE: u32 = 4;

/// What an image sent to the model costs: providers count roughly 85–1,600 tokens per image
/// depending on its size; a middle value keeps the budget honest without decoding pixels.
pub const IMAGE: u32 = 800;

/// Estimated tokens of a piece of text.
pub fn estimate(text: &str) -> u32 {
    let mut ascii = 0u32;
    let mut other = 0u32;
    for c in text.chars() {
        if c.is_ascii() {
            ascii += 1;
        } else {
            other += 1;
        }
    }
    ascii.div_ceil(4) + other
}

/// Estimated tokens one stored message costs in a request: its text, and for an answer that
/// called tools, each call's name and arguments and the result the model is shown (cut to
/// `result_char_limit`, as the request builders cut it). Reasoning is never sent back, so it
/// costs nothing.
pub fn message(m: &Message, result_char_limit: usize) -> u32 {
    let mut n = PER_MESSAGE + estimate(&m.content);
    for call in &m.tool_calls {
        n += PER_MESSAGE + estimate(&call.name) + estimate(&call.arguments);
        let r = result::for_model(call, result_char_limit);
        n += PER_MESSAGE + estimate(&r.text) + IMAGE * r.images.len() as u32;
    }
    // Attached files, from their stored size (the bytes are not loaded when the gauge runs):
    // text at four bytes a token, a PDF at about fifty (pages are read as text and images).
    // Images a model returned are not sent back (`seam::piece::travels`) and cost nothing.
    for a in m
        .attachments
        .iter()
        .filter(|_| crate::seam::piece::travels(m))
    {
        n += match a.kind() {
            Kind::Image => IMAGE,
            Kind::Text => a.size.div_ceil(4) as u32 + PER_MESSAGE,
            Kind::Pdf => (a.size / 50) as u32 + IMAGE,
        };
    }
    n
}

/// Estimated tokens of the tools offered: their names, descriptions and JSON schemas, which
/// every request carries whether or not the model calls one.
pub fn tools(specs: &[ToolSpec]) -> u32 {
    specs
        .iter()
        .map(|s| {
            PER_MESSAGE
                + estimate(&s.exposed_name)
                + estimate(&s.description)
                + serde_json::to_string(&s.input_schema).map_or(0, |j| estimate(&j))
        })
        .sum()
}
