//! Reading conversations from a file the user picked: Skiff's own export (one conversation or
//! several, JSON or one per line) and llama.cpp web UI's export (`{conv, messages}` or a list
//! of them, JSON or JSONL).
//!
//! Import only ever adds: a conversation whose id is already stored is skipped (never merged
//! into, never overwritten), and whatever cannot be read is reported with the reason, so the
//! user learns what happened to every item of the file. Nothing here touches storage; the
//! store writes what [`read`] returns.

use serde::Deserialize;
use serde_json::Value;

use crate::records::conversation::{title_from_text, Conversation};
use crate::records::message::Role;

use super::export::{Envelope, JSON_FORMAT, JSON_VERSION};
use super::llamacpp::{self, LlamaMessage};
use super::title::MAX_TITLE_CHARS;
use crate::records::title_source::TitleSource;

/// Files larger than this are refused before parsing (localStorage holds about 5 MB in all).
pub const MAX_IMPORT_BYTES: usize = 50 * 1024 * 1024;

/// How many unreadable items the summary names one by one.
const SHOWN_INVALID: usize = 3;

/// What an import found.
#[derive(Debug, Default, PartialEq)]
pub struct Report {
    /// Conversations to store, in file order.
    pub added: Vec<Conversation>,
    /// Titles of conversations already stored (same id), left as they are.
    pub skipped: Vec<String>,
    /// One sentence per item that could not be read.
    pub invalid: Vec<String>,
    /// Messages of another app's file with no place in a Skiff conversation (llama.cpp's tool
    /// turns, messages whose parent is missing).
    pub left_out_messages: usize,
    /// A full backup's other parts (settings, MCP servers, memory, files), for the stores.
    pub backup: Option<super::backup::Rest>,
}

impl Report {
    /// "Added 2 conversations; skipped 1 already here; 1 item could not be read: …".
    pub fn summary(&self) -> String {
        let mut parts = vec![format!(
            "Added {}",
            crate::format::count(self.added.len(), "conversation", "conversations")
        )];
        if !self.skipped.is_empty() {
            parts.push(format!("skipped {} already here", self.skipped.len()));
        }
        if self.left_out_messages > 0 {
            parts.push(format!(
                "left out {} Skiff has no place for (tool turns, or a missing parent)",
                crate::format::count(self.left_out_messages, "message", "messages")
            ));
        }
        let mut s = parts.join("; ");
        s.push('.');
        if !self.invalid.is_empty() {
            // The first few say what is wrong; the rest are counted (a file of 200 unreadable
            // items printed 200 sentences).
            let shown = &self.invalid[..self.invalid.len().min(SHOWN_INVALID)];
            s.push_str(&format!(
                " {} could not be read: {}",
                crate::format::count(self.invalid.len(), "item", "items"),
                shown.join(" ")
            ));
            let more = self.invalid.len() - shown.len();
            if more > 0 {
                s.push_str(&format!(" And {more} more."));
            }
        }
        s
    }
}

/// Why a whole file could not be imported (nothing was added).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportError {
    TooLarge {
        bytes: usize,
    },
    Empty,
    NotJson(String),
    UnknownFormat,
    /// A backup this Skiff cannot read (the sentence says why).
    Backup(String),
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImportError::TooLarge { bytes } => write!(
                f,
                "The file is {}, more than the {} an import can read. Nothing was imported.",
                crate::format::human_bytes(*bytes as u64),
                crate::format::human_bytes(MAX_IMPORT_BYTES as u64)
            ),
            ImportError::Empty => f.write_str("The file is empty. Nothing was imported."),
            ImportError::NotJson(detail) => write!(
                f,
                "The file is not JSON or JSON Lines ({detail}). Nothing was imported."
            ),
            ImportError::Backup(sentence) => f.write_str(sentence),
            ImportError::UnknownFormat => f.write_str(
                "The file is JSON, but neither a Skiff export nor a llama.cpp web UI export. Nothing was imported.",
            ),
        }
    }
}

/// Reads `text`; `exists(id)` says whether a conversation id is already stored.
pub fn read(text: &str, exists: impl Fn(&str) -> bool) -> Result<Report, ImportError> {
    if text.len() > MAX_IMPORT_BYTES {
        return Err(ImportError::TooLarge { bytes: text.len() });
    }
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    if trimmed.is_empty() {
        return Err(ImportError::Empty);
    }
    let mut backup = None;
    let items: Vec<Value> = match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Array(items)) => items,
        Ok(Value::Object(o))
            if o.get("format").and_then(Value::as_str) == Some(super::backup::BACKUP_FORMAT) =>
        {
            let (items, rest) = super::backup::split(o).map_err(ImportError::Backup)?;
            backup = Some(rest);
            items
        }
        Ok(one) => vec![one],
        // Not one JSON value: JSON Lines, one value per line.
        Err(whole) => {
            let mut items = Vec::new();
            for (n, line) in trimmed.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                match serde_json::from_str::<Value>(line) {
                    Ok(v) => items.push(v),
                    Err(e) if items.is_empty() && n == 0 => {
                        return Err(ImportError::NotJson(format!(
                            "line 1: {e}; as one document: {whole}"
                        )))
                    }
                    Err(e) => items.push(Value::String(format!("line {}: {e}", n + 1))),
                }
            }
            items
        }
    };
    let mut report = Report {
        backup,
        ..Report::default()
    };
    let mut recognized = report.backup.is_some();
    let mut seen: Vec<String> = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let n = i + 1;
        let parsed = match &item {
            Value::String(line_error) => Err(format!("Item {n} is not JSON ({line_error}).")),
            Value::Object(map)
                if map.contains_key("format") || map.contains_key("conversation") =>
            {
                recognized = true;
                skiff_item(item, n)
            }
            Value::Object(map) if map.contains_key("conv") && map.contains_key("messages") => {
                recognized = true;
                llama_item(item, n, &mut report.left_out_messages)
            }
            _ => Err(format!(
                "Item {n} is neither a Skiff nor a llama.cpp conversation."
            )),
        };
        match parsed {
            Ok(c) if exists(&c.id) || seen.contains(&c.id) => report.skipped.push(c.title),
            Ok(c) => {
                seen.push(c.id.clone());
                report.added.push(c);
            }
            Err(sentence) => report.invalid.push(sentence),
        }
    }
    if !recognized && report.added.is_empty() && report.skipped.is_empty() {
        return Err(ImportError::UnknownFormat);
    }
    Ok(report)
}

fn skiff_item(item: Value, n: usize) -> Result<Conversation, String> {
    let format = item.get("format").and_then(Value::as_str).unwrap_or("");
    if format != JSON_FORMAT {
        return Err(format!(
            "Item {n} is not a Skiff conversation (format \u{201c}{}\u{201d}).",
            short(format)
        ));
    }
    let version = item.get("version").and_then(Value::as_u64).unwrap_or(0);
    if version > u64::from(JSON_VERSION) {
        return Err(format!(
            "Item {n} was exported by a newer Skiff (format version {version}); update Skiff to import it."
        ));
    }
    let env: Envelope =
        crate::persist::typed(item).map_err(|e| format!("Item {n} is damaged: {e}."))?;
    let mut c = env.conversation;
    if !safe_id(&c.id) || c.messages.iter().any(|m| !safe_id(&m.id)) {
        return Err(format!("Item {n} has an id Skiff cannot store."));
    }
    // Whatever was streaming when it was exported did not finish.
    c.mark_interrupted();
    c.settle_orphan_calls();
    Ok(c)
}

#[derive(Deserialize)]
struct LlamaExport {
    conv: LlamaConv,
    messages: Vec<LlamaMessage>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LlamaConv {
    id: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    last_modified: f64,
    #[serde(default)]
    curr_node: Option<String>,
}

/// llama.cpp keeps a tree (each message has a parent) and shows the path from the root to
/// `currNode`: that path is what is on screen, and every other version a branch
/// (`llamacpp::from_tree`).
fn llama_item(item: Value, n: usize, left_out: &mut usize) -> Result<Conversation, String> {
    let export: LlamaExport = crate::persist::typed(item)
        .map_err(|e| format!("Item {n} is a damaged llama.cpp conversation: {e}."))?;
    if !safe_id(&export.conv.id) {
        return Err(format!("Item {n} has an id Skiff cannot store."));
    }
    let tree = llamacpp::from_tree(&export.messages, export.conv.curr_node.as_deref(), safe_id)
        .map_err(|e| match e {
            llamacpp::TreeError::Loop => {
                format!("Item {n} is a llama.cpp conversation whose messages form a loop.")
            }
            llamacpp::TreeError::UnsafeId => {
                format!("Item {n} has a message id Skiff cannot store.")
            }
        })?;
    let mut c = Conversation::new(export.conv.id.clone(), export.conv.last_modified);
    c.messages = tree.messages;
    c.branches = tree.branches;
    *left_out += tree.left_out;
    c.created_ms = c
        .messages
        .first()
        .map_or(export.conv.last_modified, |m| m.created_ms);
    c.title = if export.conv.name.trim().is_empty() {
        let first = c
            .messages
            .iter()
            .find(|m| m.role == Role::User)
            .map_or("", |m| m.content.as_str());
        title_from_text(first, MAX_TITLE_CHARS)
    } else {
        title_from_text(&export.conv.name, MAX_TITLE_CHARS * 2)
    };
    c.title_source = TitleSource::User;
    Ok(c)
}

/// Ids become storage keys and DOM keys: short, and letters, digits, `-` and `_` only.
fn safe_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 100
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn short(s: &str) -> String {
    s.chars().take(40).collect()
}
