//! The full backup (issue 12, item 10), performed: gathering every store's part for
//! `pipeline::backup::write`, and giving each store its part of an imported backup. What goes
//! in, what is merged and how is decided in `skiff_core::pipeline::backup`; this only reads
//! and writes the stores and the blob store.

use leptos::prelude::*;
use skiff_core::format::count;
use skiff_core::mcp::config::ServerList;
use skiff_core::pipeline::backup::{self, BackupFile, Merged, Parts, Rest};

use crate::platform::clock;
use crate::runner::mcp::McpRunner;
use crate::stores::conversations::ConversationsStore;
use crate::stores::mcp::McpStore;
use crate::stores::memory::MemoryStore;
use crate::stores::settings::SettingsStore;

/// The stores a backup is made of.
#[derive(Clone, Copy)]
pub struct Stores {
    pub convs: ConversationsStore,
    pub settings: SettingsStore,
    pub mcp: McpStore,
    pub mcp_runner: McpRunner,
    pub memory: MemoryStore,
}

/// The backup file's text and what it holds, as a sentence ("12 conversations and 3 files").
pub async fn write(s: Stores, include_keys: bool) -> Result<(String, String), String> {
    let ids: Vec<String> = s
        .convs
        .index
        .with_untracked(|ix| ix.iter().map(|c| c.id.clone()).collect());
    let conversations = s.convs.read_many(&ids).await?;
    let mut files = Vec::new();
    let mut missing = 0;
    let db = s.convs.idb().await;
    for (hash, mime) in backup::file_refs(&conversations) {
        let blob = match &db {
            Some(db) => db.get_blob(&hash).await.ok().flatten(),
            None => None,
        };
        match blob {
            Some(b) => files.push(BackupFile {
                hash,
                mime: if b.mime.is_empty() { mime } else { b.mime },
                bytes: b.bytes,
            }),
            // A file already gone from this browser is shown as gone here too.
            None => missing += 1,
        }
    }
    let servers = ServerList {
        servers: s.mcp.servers.get_untracked(),
    };
    let text = backup::write(
        &Parts {
            settings: &s.settings.settings.get_untracked(),
            servers: &servers,
            memory: &s.memory.record(),
            conversations: &conversations,
            files: &files,
            include_keys,
        },
        clock::now_ms(),
    );
    let mut what = format!(
        "{} and {}",
        count(conversations.len(), "conversation", "conversations"),
        count(files.len(), "file", "files")
    );
    if missing > 0 {
        what.push_str(&format!(
            " ({} no longer in this browser left out)",
            count(missing, "file", "files")
        ));
    }
    Ok((text, what))
}

/// Import a file picked in Settings → Storage: conversations (any export Skiff reads), and
/// for a full backup its settings, MCP servers, memory and files. Only adds. What to say is
/// `backup::Merged::sentence`'s: this performs the merges and records their outcomes.
pub async fn import(s: Stores, text: &str) -> Result<String, String> {
    let (sentence, rest) = s.convs.import(text).await?;
    let Some(rest) = rest else {
        return Ok(sentence);
    };
    let Rest {
        settings,
        mcp_servers,
        memory,
        files,
        bad_files,
    } = rest;
    let mut merged = Merged {
        bad_files,
        ..Merged::default()
    };
    if let Some(raw) = settings {
        let current = s.settings.settings.get_untracked();
        merged.settings = Some(
            backup::merge_settings(&current, &raw).map(|(next, counts)| {
                if next != current {
                    s.settings.settings.set(next);
                }
                counts
            }),
        );
    }
    if let Some(raw) = mcp_servers {
        merged.servers = Some(s.mcp.import(&raw).map_err(|e| e.to_string()).map(|report| {
            // Connected as servers added by hand are.
            for cfg in report.imported.iter().filter(|c| c.enabled) {
                s.mcp_runner.connect(&cfg.id);
            }
            (report.imported.len(), report.skipped.len())
        }));
    }
    if let Some(raw) = memory {
        merged.memories = Some(s.memory.merge(&raw));
    }
    let db = s.convs.idb().await;
    for (i, f) in files.iter().enumerate() {
        // Already here (files are stored by content): nothing to add or to say.
        if let Some(db) = &db {
            if db.has_blob(&f.hash).await.unwrap_or(false) {
                continue;
            }
        }
        match crate::runner::attach::put(s.convs, "a file of the backup", &f.mime, &f.bytes).await {
            Ok(hash) if hash == f.hash => merged.files += 1,
            Ok(_) => merged.file_problems.push(backup::file_mismatch(i + 1)),
            Err(e) => merged.file_problems.push(e),
        }
    }
    Ok(merged.sentence(&sentence))
}
