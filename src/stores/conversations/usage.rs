//! Storage health for Settings → Storage: where bodies live, how the move to IndexedDB went,
//! whether the browser keeps this site's data under pressure, how much is used per store, a
//! warning near the quota, and deleting conversations not changed for a while.

use leptos::prelude::*;
use skiff_core::format::{count, human_bytes};
use skiff_core::persist::{self, prune};
use skiff_core::pipeline::export;
use skiff_core::records::conversation::Conversation;

use super::super::notices::Level;
use super::ConversationsStore;
use crate::platform::{clock, quota, storage};

/// Set once persistent storage has been asked for, so the browser is asked at the first start
/// with IndexedDB and afterwards only when the user presses "Ask again".
const PERSIST_ASKED_KEY: &str = "skiff:storage-persist-asked";
const NEAR_FULL_KEY: &str = "storage-near-full";

#[derive(Debug, Clone, PartialEq)]
pub enum Backend {
    IndexedDb,
    /// IndexedDB could not be opened; the sentence says why.
    LocalStorage(String),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct StorageStatus {
    /// `None` until the database has opened (or failed to).
    pub backend: Option<Backend>,
    /// Why some bodies are still in localStorage, when the move did not finish.
    pub migration: Option<String>,
    /// Whether the browser keeps this site's data under storage pressure (`None`: unknown).
    pub persisted: Option<bool>,
}

impl StorageStatus {
    /// Where bodies live, why some did not move (empty when all did), and whether storage is
    /// persistent: the three sentences Settings → Storage shows.
    pub fn sentences(&self) -> [String; 3] {
        let backend = match &self.backend {
            None => "Opening the browser's database…".to_string(),
            Some(Backend::IndexedDb) => {
                "Conversations are kept in the browser's database (IndexedDB).".to_string()
            }
            Some(Backend::LocalStorage(why)) => why.clone(),
        };
        let persist = match self.persisted {
            Some(true) => "Persistent storage: granted. The browser will not clear this site's data to free space.",
            Some(false) => "Persistent storage: not granted. The browser may clear this site's data when the disk runs low; export what you want to keep.",
            None => "Persistent storage: this browser does not say whether this site's data is kept.",
        };
        [
            backend,
            self.migration.clone().unwrap_or_default(),
            persist.to_string(),
        ]
    }
}

/// What Settings → Storage shows about usage.
#[derive(Debug, Clone, PartialEq)]
pub struct Usage {
    /// The browser's estimate for the whole site, `(usage, quota)` in bytes.
    pub site: Option<(f64, f64)>,
    /// localStorage: settings, servers, the conversation list (and any body not moved).
    pub local_bytes: usize,
    /// Conversation bodies: how many, and their size as stored text (UTF-16).
    pub bodies: usize,
    pub body_bytes: usize,
}

impl Usage {
    /// One line per store, for the panel.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some((usage, quota)) = self.site {
            lines.push(format!(
                "This site uses {} of the {} the browser allows it ({} %).",
                human_bytes(usage as u64),
                human_bytes(quota as u64),
                skiff_core::format::fixed(
                    if quota > 0.0 {
                        usage / quota * 100.0
                    } else {
                        0.0
                    },
                    0
                )
            ));
        }
        lines.push(format!(
            "Conversations: {}, about {}.",
            count(self.bodies, "conversation", "conversations"),
            human_bytes(self.body_bytes as u64)
        ));
        lines.push(format!(
            "localStorage (settings, servers, the conversation list): about {}.",
            human_bytes(self.local_bytes as u64)
        ));
        if self.site.is_some_and(|(u, q)| prune::near_full(u, q)) {
            lines.push(
                "Storage is almost full: export and delete old conversations before saving stops working."
                    .to_string(),
            );
        }
        lines
    }
}

impl ConversationsStore {
    /// Ask for persistent storage at the first start with IndexedDB (`first_only`) or when the
    /// user asks again, then record what the browser says.
    pub(super) async fn check_persistence(&self, first_only: bool) {
        let asked = matches!(storage::get(PERSIST_ASKED_KEY), Ok(Some(_)));
        let granted = if first_only && asked {
            quota::persisted().await
        } else {
            let _ = storage::set(PERSIST_ASKED_KEY, "1");
            quota::persist().await
        };
        self.storage.update(|s| s.persisted = granted);
    }

    /// Ask the browser again to keep this site's data (Settings → Storage).
    pub async fn ask_persistence(&self) {
        self.check_persistence(false).await;
    }

    /// Warn (a notice) when the site passes the share of its quota in `prune::WARN_SHARE`.
    pub(super) async fn check_quota(&self) {
        let Some(e) = quota::estimate().await else {
            return;
        };
        if prune::near_full(e.usage, e.quota) {
            self.notices.push_keyed(
                Level::Warning,
                format!(
                    "Browser storage is almost full: {} of {} used. Export and delete old \
                     conversations in Settings → Storage before saving stops working.",
                    human_bytes(e.usage as u64),
                    human_bytes(e.quota as u64)
                ),
                Some(NEAR_FULL_KEY),
            );
        } else {
            self.notices.clear_key(NEAR_FULL_KEY);
        }
    }

    /// Usage per store, read now (Settings → Storage).
    pub async fn usage(&self) -> Usage {
        let site = quota::estimate().await.map(|e| (e.usage, e.quota));
        let all = self.bodies().await.all().await.unwrap_or_default();
        Usage {
            site,
            local_bytes: storage::used_bytes_estimate(),
            bodies: all.len(),
            body_bytes: all.iter().map(|(k, v)| (k.len() + v.len()) * 2).sum(),
        }
    }

    /// Conversations not changed in `days` days: never the open one or one a turn streams into.
    pub fn older_than(&self, days: u32) -> Vec<String> {
        let open = self.current_id();
        let streaming: Vec<String> = self.loaded.with_value(|m| {
            m.keys()
                .filter(|id| self.is_streaming(id))
                .cloned()
                .collect()
        });
        let mut keep: Vec<&str> = streaming.iter().map(String::as_str).collect();
        keep.extend(open.as_deref());
        self.index
            .with_untracked(|ix| prune::older_than(ix, clock::now_ms(), days, &keep))
    }

    /// The conversations in `ids` as one JSONL export (what import reads back). Ones that
    /// cannot be read are left out and counted in the error.
    pub async fn export_many(&self, ids: &[String]) -> Result<String, String> {
        let out = self.read_many(ids).await?;
        Ok(export::to_json_lines(&out, clock::now_ms()))
    }

    /// The conversations in `ids`, as held in memory (which may be ahead of storage) or as
    /// stored; `Err` counts those that could not be read, so an export is never silently short.
    pub async fn read_many(&self, ids: &[String]) -> Result<Vec<Conversation>, String> {
        let bodies = self.bodies().await;
        let mut out = Vec::new();
        let mut unread = 0;
        for id in ids {
            let held = self.loaded.with_value(|m| m.get(id).copied());
            let c = match held.and_then(|l| l.try_snapshot()) {
                Some(c) => Some(c),
                None => bodies
                    .get(id)
                    .await
                    .ok()
                    .flatten()
                    .and_then(|raw| persist::decode_conversation(&raw).ok()),
            };
            match c {
                Some(c) => out.push(c),
                None => unread += 1,
            }
        }
        if unread > 0 {
            return Err(format!(
                "{} could not be read, so nothing was exported; nothing was deleted.",
                count(unread, "conversation", "conversations")
            ));
        }
        Ok(out)
    }
}
