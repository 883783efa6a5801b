//! Everything the user has in one versioned file (issue 12, item 10): settings (without API
//! keys unless asked), masks and projects (in the settings), MCP servers (without their
//! headers unless asked), the memory, every conversation, and the attached files.
//!
//! Each store's part is its own stored record as text (`settings::encode_settings`, the MCP
//! `mcpServers` export, the memory record), so a backup from an earlier Skiff is read by the
//! same decoders, migrations included, that read that Skiff's storage. Import only adds
//! ([`merge_settings`], `import::read` for conversations, the MCP import, `MemoryBook::merge`,
//! files by content hash): nothing stored is changed or deleted, and a setting the user
//! changed from its default keeps their value.

use serde_json::{Map, Value};

use crate::format::count;
use crate::mcp::config::{export_mcp_servers, ServerList};
use crate::records::conversation::Conversation;
use crate::settings::ChatSettings;
use crate::settings::{decode_settings, encode_settings};

/// The file's `format`.
pub const BACKUP_FORMAT: &str = "skiff-backup";
/// The file's version; a larger one is refused rather than misread.
pub const BACKUP_VERSION: u32 = 1;

/// One attached file in a backup: its content hash, type and bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct BackupFile {
    pub hash: String,
    pub mime: String,
    pub bytes: Vec<u8>,
}

/// What a backup is made of.
pub struct Parts<'a> {
    pub settings: &'a ChatSettings,
    pub servers: &'a ServerList,
    /// The memory's stored record (`builtin::memory::encode_record`).
    pub memory: &'a str,
    pub conversations: &'a [Conversation],
    pub files: &'a [BackupFile],
    /// Keep API keys and MCP server headers (off by default: a backup file travels).
    pub include_keys: bool,
}

/// The backup as compact JSON.
pub fn write(parts: &Parts<'_>, now_ms: f64) -> String {
    let mut settings = parts.settings.clone();
    let mut servers = ServerList {
        servers: parts.servers.servers.clone(),
    };
    if !parts.include_keys {
        for p in &mut settings.profiles {
            p.api_key.clear();
        }
        for s in &mut servers.servers {
            s.headers.clear();
        }
    }
    let mut o = Map::new();
    o.insert("format".into(), BACKUP_FORMAT.into());
    o.insert("version".into(), BACKUP_VERSION.into());
    o.insert("exported_ms".into(), now_ms.into());
    o.insert("keys_included".into(), parts.include_keys.into());
    o.insert("settings".into(), encode_settings(&settings).into());
    o.insert("mcp_servers".into(), export_mcp_servers(&servers).into());
    o.insert("memory".into(), parts.memory.into());
    // Conversations in the export envelope `import::read` already knows.
    let conversations = parts.conversations.iter().map(|c| {
        let mut e = Map::new();
        e.insert("format".into(), super::export::JSON_FORMAT.into());
        e.insert("version".into(), super::export::JSON_VERSION.into());
        e.insert("exported_ms".into(), now_ms.into());
        e.insert(
            "conversation".into(),
            serde_json::to_string(c)
                .ok()
                .and_then(|s| serde_json::from_str(&s).ok())
                .unwrap_or(Value::Null),
        );
        Value::Object(e)
    });
    o.insert(
        "conversations".into(),
        Value::Array(conversations.collect()),
    );
    let files = parts.files.iter().map(|f| {
        let mut e = Map::new();
        e.insert("hash".into(), f.hash.clone().into());
        e.insert("mime".into(), f.mime.clone().into());
        e.insert("data".into(), crate::base64::base64(&f.bytes).into());
        Value::Object(e)
    });
    o.insert("files".into(), Value::Array(files.collect()));
    Value::Object(o).to_string()
}

/// The parts of a backup other than its conversations, for the stores to merge.
#[derive(Debug, Default, PartialEq)]
pub struct Rest {
    pub settings: Option<String>,
    pub mcp_servers: Option<String>,
    pub memory: Option<String>,
    pub files: Vec<BackupFile>,
    /// One sentence per file that could not be read.
    pub bad_files: Vec<String>,
}

/// Splits a backup object into its conversation items (read like any export) and the rest.
/// `Err` is the sentence for a backup this Skiff cannot read at all.
pub fn split(mut o: Map<String, Value>) -> Result<(Vec<Value>, Rest), String> {
    let version = o.get("version").and_then(Value::as_u64).unwrap_or(0);
    if version > u64::from(BACKUP_VERSION) {
        return Err(format!(
            "The backup was made by a newer Skiff (format version {version}); update Skiff to import it. Nothing was imported."
        ));
    }
    let mut text = |key: &str| match o.remove(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s),
        _ => None,
    };
    let mut rest = Rest {
        settings: text("settings"),
        mcp_servers: text("mcp_servers"),
        memory: text("memory"),
        ..Rest::default()
    };
    let conversations = match o.remove("conversations") {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    };
    if let Some(Value::Array(files)) = o.remove("files") {
        for (i, f) in files.iter().enumerate() {
            let field = |k: &str| f.get(k).and_then(Value::as_str).unwrap_or("");
            let (hash, mime) = (field("hash"), field("mime"));
            match crate::base64::unbase64(field("data")) {
                Some(bytes) if !hash.is_empty() && !bytes.is_empty() => {
                    rest.files.push(BackupFile {
                        hash: hash.to_string(),
                        mime: mime.to_string(),
                        bytes,
                    });
                }
                _ => rest
                    .bad_files
                    .push(format!("File {} of the backup is damaged.", i + 1)),
            }
        }
    }
    Ok((conversations, rest))
}

/// What merging a backup's settings added.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SettingsMerge {
    pub providers: usize,
    pub masks: usize,
    pub projects: usize,
    /// Settings still at their default here, set to the backup's value.
    pub taken: usize,
    /// Settings the user changed here, which keep their value (the backup's differs).
    pub kept: usize,
}

impl SettingsMerge {
    /// "2 providers, 1 mask, 1 project and 3 settings added; 1 setting of yours kept".
    pub fn parts(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (n, one, many) in [
            (self.providers, "provider", "providers"),
            (self.masks, "mask", "masks"),
            (self.projects, "project", "projects"),
            (self.taken, "setting", "settings"),
        ] {
            if n > 0 {
                out.push(count(n, one, many));
            }
        }
        out
    }
}

/// Fields merged by id, or that name another part, not compared as values.
const BY_ID: [&str; 4] = ["profiles", "masks", "projects", "last_used"];

/// `current` with what the backup's stored settings record `raw` adds: providers, masks and
/// projects whose ids are new here, and each other setting where `current` still has the
/// default. Nothing of `current` is replaced. `Err` when the record cannot be read.
pub fn merge_settings(
    current: &ChatSettings,
    raw: &str,
) -> Result<(ChatSettings, SettingsMerge), String> {
    let backup = decode_settings(raw).map_err(|e| e.to_string())?;
    let mut merged = SettingsMerge::default();
    let as_map = |s: &ChatSettings| match serde_json::from_str::<Value>(&encode_settings(s)) {
        Ok(Value::Object(mut o)) => match o.remove("data") {
            Some(Value::Object(d)) => d,
            _ => Map::new(),
        },
        _ => Map::new(),
    };
    let (mut cur, defaults, theirs) = (
        as_map(current),
        as_map(&ChatSettings::default()),
        as_map(&backup),
    );
    for (key, value) in theirs {
        if BY_ID.contains(&key.as_str()) {
            continue;
        }
        let here = cur.get(&key);
        if here == Some(&value) {
            continue;
        }
        if here == defaults.get(&key) {
            cur.insert(key, value);
            merged.taken += 1;
        } else {
            merged.kept += 1;
        }
    }
    let mut envelope = Map::new();
    envelope.insert("v".into(), crate::persist::SETTINGS_VERSION.into());
    envelope.insert("data".into(), Value::Object(cur));
    let mut out =
        decode_settings(&Value::Object(envelope).to_string()).map_err(|e| e.to_string())?;
    // Not stored with the scalars: carried over as they are.
    out.last_used = current.last_used.clone();
    out.profiles = current.profiles.clone();
    out.masks = current.masks.clone();
    out.projects = current.projects.clone();
    for p in backup.profiles {
        if !out.profiles.iter().any(|x| x.id == p.id) {
            out.profiles.push(p);
            merged.providers += 1;
        }
    }
    for m in backup.masks {
        if !out.masks.iter().any(|x| x.id == m.id) {
            out.masks.push(m);
            merged.masks += 1;
        }
    }
    for p in backup.projects {
        if !out.projects.iter().any(|x| x.id == p.id) {
            out.projects.push(p);
            merged.projects += 1;
        }
    }
    Ok((out, merged))
}

/// The attached files the conversations (and their branches) refer to, each once, as
/// `(hash, mime)`.
pub fn file_refs(conversations: &[Conversation]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for c in conversations {
        let branches = c.branches.iter().flat_map(|b| b.messages.iter());
        for m in c.messages.iter().chain(branches) {
            for a in &m.attachments {
                if !a.hash.is_empty() && !out.iter().any(|(h, _)| *h == a.hash) {
                    out.push((a.hash.clone(), a.mime.clone()));
                }
            }
        }
    }
    out
}

/// "skiff-backup-2026-11-25.json": the user's calendar date (`offset_minutes` east of UTC), so
/// a day's backups sort and a later one does not overwrite an earlier one's name.
pub fn file_name(now_ms: f64, offset_minutes: i32) -> String {
    let local = (now_ms.floor() as i64)
        .saturating_add(i64::from(crate::calendar::clamp_offset(offset_minutes)) * 60_000);
    let (y, m, d) = crate::calendar::civil_from_days(local.div_euclid(86_400_000));
    format!("skiff-backup-{y:04}-{m:02}-{d:02}.json")
}

/// What merging an imported backup's other parts did, store by store, for [`Merged::sentence`].
/// `None`: the backup had no such part.
#[derive(Debug, Default, PartialEq)]
pub struct Merged {
    pub bad_files: Vec<String>,
    pub settings: Option<Result<SettingsMerge, String>>,
    /// Servers imported and skipped, or why none could be read.
    pub servers: Option<Result<(usize, usize), String>>,
    pub memories: Option<Result<usize, String>>,
    /// Files stored now (those already here are not counted).
    pub files: usize,
    /// One sentence per file that could not be stored as named.
    pub file_problems: Vec<String>,
}

/// The sentence for file `n` (from 1) whose bytes are not those its hash names.
pub fn file_mismatch(n: usize) -> String {
    format!(
        "File {n} of the backup is not the file its conversation names; it was stored but no message shows it."
    )
}

impl Merged {
    /// `conversations` (what the conversations store said), then what the backup added, then
    /// each thing kept, skipped or unreadable.
    pub fn sentence(&self, conversations: &str) -> String {
        let mut added: Vec<String> = Vec::new();
        let mut problems: Vec<String> = self.bad_files.clone();
        match &self.settings {
            Some(Ok(counts)) => {
                added.extend(counts.parts());
                if counts.kept > 0 {
                    problems.push(format!(
                        "Kept your own value for {} the backup has differently.",
                        count(counts.kept, "setting", "settings")
                    ));
                }
            }
            Some(Err(e)) => problems.push(format!("Its settings could not be read: {e}")),
            None => {}
        }
        match &self.servers {
            Some(Ok((imported, skipped))) => {
                if *imported > 0 {
                    added.push(count(*imported, "MCP server", "MCP servers"));
                }
                if *skipped > 0 {
                    problems.push(format!(
                        "{} skipped (already here, or unusable).",
                        count(*skipped, "MCP server", "MCP servers")
                    ));
                }
            }
            Some(Err(e)) => problems.push(format!("Its MCP servers could not be read: {e}")),
            None => {}
        }
        match &self.memories {
            Some(Ok(0)) | None => {}
            Some(Ok(n)) => added.push(count(*n, "memory", "memories")),
            Some(Err(e)) => problems.push(format!("Its memory could not be read: {e}")),
        }
        if self.files > 0 {
            added.push(count(self.files, "file", "files"));
        }
        problems.extend(self.file_problems.iter().cloned());
        let mut s = conversations.to_string();
        if !added.is_empty() {
            s.push_str(&format!(" From the backup: {}.", added.join(", ")));
        }
        for p in problems {
            s.push(' ');
            s.push_str(&p);
        }
        s
    }
}
