//! What a `resources/read` result becomes: content parts with their size, the server's
//! freshness hint, and the limits a chat attachment has. Also the sentence that tells the user
//! what a subscribed resource's update changed.
//!
//! The result is untrusted: a part without `text` or `blob`, or with a blob that is not
//! base64, is a sentence, never a panic; a result too large to attach is refused with its size.

use serde_json::Value;

use super::store::INLINE_TEXT_MAX;
use crate::base64::base64_decoded_len;
use crate::display::media::is_base64;
use crate::format::human_bytes;
use crate::mcp::resource_cache::CachedPart;

/// Largest read the browser shows and attaches (decoded bytes of all parts).
pub const READ_MAX_BYTES: u64 = 10 * 1024 * 1024;

/// One content part, as the runner and core exchange it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Part {
    pub uri: String,
    pub mime: String,
    /// `data` is base64 bytes (a `blob` part); otherwise it is text.
    pub binary: bool,
    /// The content; `None` while it is only in the blob store under `hash`.
    pub data: Option<String>,
    /// SHA-256 (hex) of the bytes in the blob store.
    pub hash: Option<String>,
    /// Decoded size in bytes.
    pub size: u64,
    /// The runner must put the bytes in the blob store (and set `hash`) before keeping it.
    pub to_store: bool,
}

impl Part {
    pub(super) fn from_cached(c: &CachedPart) -> Part {
        match c {
            CachedPart::Text { uri, mime, text } => Part {
                uri: uri.clone(),
                mime: mime.clone(),
                binary: false,
                size: text.len() as u64,
                data: Some(text.clone()),
                hash: None,
                to_store: false,
            },
            CachedPart::TextBlob {
                uri,
                mime,
                hash,
                size,
            }
            | CachedPart::Blob {
                uri,
                mime,
                hash,
                size,
            } => Part {
                uri: uri.clone(),
                mime: mime.clone(),
                binary: matches!(c, CachedPart::Blob { .. }),
                data: None,
                hash: Some(hash.clone()),
                size: *size,
                to_store: false,
            },
        }
    }

    /// The cache's form, or `None` when it belongs in the blob store and has no hash yet.
    pub(super) fn to_cached(&self) -> Option<CachedPart> {
        let (uri, mime, size) = (self.uri.clone(), self.mime.clone(), self.size);
        if self.binary || self.to_store || self.data.is_none() {
            let hash = self.hash.clone()?;
            return Some(if self.binary {
                CachedPart::Blob {
                    uri,
                    mime,
                    hash,
                    size,
                }
            } else {
                CachedPart::TextBlob {
                    uri,
                    mime,
                    hash,
                    size,
                }
            });
        }
        Some(CachedPart::Text {
            uri,
            mime,
            text: self.data.clone().unwrap_or_default(),
        })
    }
}

/// A read's parts and how long they are fresh.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadOut {
    pub parts: Vec<Part>,
    /// The server's `ttlMs` (0 when absent: stale at once, read again when the server is up).
    pub ttl_ms: f64,
}

/// The parts of a `resources/read` result for `uri`, or a sentence for the user.
pub fn parse_read(uri: &str, result: &Value) -> Result<ReadOut, String> {
    let contents = result
        .get("contents")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("The server's answer for {uri} has no contents."))?;
    if contents.is_empty() {
        return Err(format!("The server returned nothing for {uri}."));
    }
    let mut parts = Vec::with_capacity(contents.len());
    let mut total: u64 = 0;
    for (i, c) in contents.iter().enumerate() {
        let part_uri = c
            .get("uri")
            .and_then(Value::as_str)
            .unwrap_or(uri)
            .to_string();
        let mime = c
            .get("mimeType")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let part = if let Some(text) = c.get("text").and_then(Value::as_str) {
            let size = text.len() as u64;
            Part {
                uri: part_uri,
                mime,
                binary: false,
                data: Some(text.to_string()),
                hash: None,
                size,
                to_store: size > INLINE_TEXT_MAX,
            }
        } else if let Some(blob) = c.get("blob").and_then(Value::as_str) {
            if !is_base64(blob) {
                return Err(format!(
                    "Part {} of {uri} is not valid base64, so it cannot be shown.",
                    i + 1
                ));
            }
            let compact: String = blob.chars().filter(|c| !c.is_ascii_whitespace()).collect();
            Part {
                uri: part_uri,
                mime,
                binary: true,
                size: base64_decoded_len(&compact) as u64,
                data: Some(compact),
                hash: None,
                to_store: true,
            }
        } else {
            return Err(format!(
                "Part {} of {uri} has neither text nor binary content.",
                i + 1
            ));
        };
        total += part.size;
        parts.push(part);
    }
    if total > READ_MAX_BYTES {
        return Err(format!(
            "{uri} is {}, more than the {} Skiff shows or attaches.",
            human_bytes(total),
            human_bytes(READ_MAX_BYTES)
        ));
    }
    let ttl_ms = result
        .get("ttlMs")
        .or_else(|| result.pointer("/_meta/ttlMs"))
        .and_then(Value::as_f64)
        .filter(|t| t.is_finite() && *t > 0.0)
        .unwrap_or(0.0);
    Ok(ReadOut { parts, ttl_ms })
}

/// The line a subscribed resource's update shows: what changed between the kept copy and the
/// new read (`old` is `None` when nothing was kept).
pub fn change_summary(name: &str, old: Option<&[Part]>, new: &[Part]) -> String {
    let Some(old) = old else {
        return format!("{name} was updated.");
    };
    let same = old.len() == new.len()
        && old
            .iter()
            .zip(new)
            .all(|(a, b)| a.binary == b.binary && a.data == b.data && a.size == b.size);
    if same {
        return format!("{name} was updated; its content is the same.");
    }
    let text_of = |ps: &[Part]| -> Option<String> {
        ps.iter()
            .map(|p| (!p.binary).then(|| p.data.clone()).flatten())
            .collect::<Option<Vec<String>>>()
            .map(|v| v.join("\n"))
    };
    match (text_of(old), text_of(new)) {
        (Some(a), Some(b)) => {
            let line = a
                .lines()
                .zip(b.lines())
                .position(|(x, y)| x != y)
                .unwrap_or_else(|| a.lines().count().min(b.lines().count()))
                + 1;
            // Said as a sentence (the arrow between two character counts read as a riddle,
            // "62 → 62 characters" most of all).
            let (was, now) = (a.chars().count(), b.chars().count());
            let count = |n: usize| {
                let word = if n == 1 { "character" } else { "characters" };
                format!("{} {word}", crate::format::decimal(n as f64))
            };
            if was == now {
                format!(
                    "{name} changed from line {line} on; it is the same length ({}).",
                    count(now)
                )
            } else {
                format!(
                    "{name} changed from line {line} on; it is now {} long (was {}).",
                    count(now),
                    crate::format::decimal(was as f64)
                )
            }
        }
        _ => {
            let size = |ps: &[Part]| ps.iter().map(|p| p.size).sum::<u64>();
            format!(
                "{name} changed; it is now {} (was {}).",
                human_bytes(size(new)),
                human_bytes(size(old))
            )
        }
    }
}

/// The JSON of a text part, pretty-printed, when its type says JSON and it parses.
pub fn pretty_json(mime: &str, text: &str) -> Option<String> {
    let m = mime.split(';').next().unwrap_or("").trim();
    let is_json = m == "application/json" || m.ends_with("+json");
    if !is_json {
        return None;
    }
    let v: Value = serde_json::from_str(text).ok()?;
    serde_json::to_string_pretty(&v).ok()
}

/// Whether the page will take these parts as attachments (the checks a picked file meets:
/// `attach::classify` on the URI as its name, the part's type, `text/plain` for text, and its
/// size), or the sentence saying why not, before anything is handed over.
pub fn attach_check(parts: &[Part]) -> Result<(), String> {
    let usable: Vec<&Part> = parts.iter().filter(|p| p.data.is_some()).collect();
    if usable.is_empty() {
        return Err("There is no content to attach: read it again when the server is back.".into());
    }
    for p in usable {
        let mime = if p.binary {
            crate::display::media::clean_mime(&p.mime).unwrap_or_default()
        } else {
            crate::records::attachment::TEXT.to_string()
        };
        crate::attach::classify(&p.uri, &mime, p.size).map_err(|e| e.to_string())?;
    }
    Ok(())
}
