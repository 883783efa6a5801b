//! The mcpResource store as the page holds it: `skiff_core::mcp::res_ui::store::Store` (each
//! server's lists as last seen, the content cache, the subscriptions), persisted under its
//! versioned localStorage key, and the cache's bytes in IndexedDB by SHA-256.
//!
//! Loaded on first use (the resource surfaces, or at start when a subscription must resume:
//! [`RESUME_KEY`]), never before: the first visit neither reads nor parses it. A stored value
//! that cannot be read locks the store (core's rule): nothing is written over it until the
//! user chooses to start afresh, and then it is set aside first.
//!
//! It never talks to a server: reading, subscribing and attaching are `runner::mcp_resources`'.

use leptos::prelude::*;
use skiff_core::mcp::res_ui::read::Part;
use skiff_core::mcp::res_ui::store::{LiveLists, Store, RESUME_KEY, STORE_KEY};

use crate::platform::idb::Db;
use crate::platform::storage::{self, StorageError};
use crate::stores::mcp::McpStore;
use crate::stores::notices::{Level, Notices};

/// The resource cache's own database: its blobs are swept by what the store names, so they
/// must not share a store with conversation attachments.
const BLOB_DB: &str = "skiff-extras";

/// A subscribed resource read again after its server said it changed.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceNews {
    pub server: String,
    pub uri: String,
    pub parts: Vec<Part>,
    /// What changed, in a sentence (`res_ui::read::change_summary`).
    pub summary: String,
}

#[derive(Clone, Copy)]
pub struct ResourceStore {
    store: StoredValue<Option<Store>>,
    /// Bumped on every change: views that show the store track it.
    version: RwSignal<u64>,
    notices: Notices,
    blobs: StoredValue<Option<Db>, LocalStorage>,
    /// The resource a surface shows now (`(server, uri)`): its updates go there, not to a
    /// notice.
    pub open: RwSignal<Option<(String, String)>>,
    /// The latest update read of the open resource.
    pub news: RwSignal<Option<ResourceNews>>,
}

/// Why a browser storage write failed, in the browser's words.
fn refusal(e: &StorageError) -> String {
    match e {
        StorageError::QuotaExceeded { .. } => "QuotaExceededError".into(),
        StorageError::Unavailable(d) | StorageError::Other(d) => d.clone(),
    }
}

impl ResourceStore {
    /// An empty handle: nothing is read until [`ResourceStore::with`] or another use.
    pub fn new(notices: Notices) -> Self {
        ResourceStore {
            store: StoredValue::new(None),
            version: RwSignal::new(0),
            notices,
            blobs: StoredValue::new_local(None),
            open: RwSignal::new(None),
            news: RwSignal::new(None),
        }
    }

    /// Whether subscriptions were left to resume when the page was last open.
    pub fn must_resume() -> bool {
        storage::get(RESUME_KEY).ok().flatten().is_some()
    }

    fn ensure(&self) {
        if self.store.with_value(Option::is_some) {
            return;
        }
        let raw = storage::get(STORE_KEY).ok().flatten();
        let store = Store::load(raw.as_deref());
        let locked = store.locked.is_some();
        self.store.set_value(Some(store));
        if !locked {
            // Bytes no kept copy names (a read cut short between storing and keeping) go.
            // Never while locked: its copies are unknown, so every hash might still be named.
            let this = *self;
            leptos::task::spawn_local(async move { this.sweep().await });
        }
    }

    /// Tracked: the store's version (views that show it re-run when it changes).
    pub fn track(&self) {
        self.version.track();
    }

    /// Read the store (loading it on first use).
    pub fn with<T>(&self, f: impl FnOnce(&Store) -> T) -> T {
        self.ensure();
        self.store
            .with_value(|s| f(s.as_ref().unwrap_or(&Store::default())))
    }

    /// Change the store and save it; views showing it re-run.
    pub fn update<T: Default>(&self, f: impl FnOnce(&mut Store) -> T) -> T {
        self.ensure();
        // `None` only while the page is torn down.
        let out = self
            .store
            .try_update_value(|s| f(s.get_or_insert_with(Store::default)))
            .unwrap_or_default();
        self.save();
        self.version.try_update(|v| *v += 1);
        out
    }

    /// Change the store without saving it now (when a copy was last used): written with the
    /// next change, as a cache's bookkeeping need not cost a write of its own.
    pub fn touch<T: Default>(&self, f: impl FnOnce(&mut Store) -> T) -> T {
        self.ensure();
        self.store
            .try_update_value(|s| f(s.get_or_insert_with(Store::default)))
            .unwrap_or_default()
    }

    /// The page's live lists into the store (a connected server's replace the kept ones).
    pub fn sync(&self, mcp: McpStore) {
        let lists: Vec<LiveLists> = mcp.live.with_untracked(|l| {
            l.iter()
                .map(|(id, live)| LiveLists {
                    id: id.clone(),
                    name: mcp.server_name(id).unwrap_or_else(|| id.clone()),
                    connected: live.health.with_untracked(|h| {
                        matches!(
                            h.status,
                            skiff_core::mcp::backoff::HealthStatus::Connected { .. }
                        )
                    }),
                    resources: live.resources.get_untracked(),
                    templates: live.resource_templates.get_untracked(),
                    capabilities: live.capabilities.get_untracked(),
                })
                .collect()
        });
        self.ensure();
        let changed = self
            .store
            .try_update_value(|s| s.as_mut().is_some_and(|s| s.sync(&lists)))
            .unwrap_or(false);
        if changed {
            self.save();
            self.version.try_update(|v| *v += 1);
        }
    }

    /// Write the store (unless locked) and the resume flag; a full storage is a notice.
    fn save(&self) {
        let Some((text, resume)) = self
            .store
            .with_value(|s| s.as_ref().map(|s| (s.save(), s.needs_boot())))
        else {
            return;
        };
        let written = match text {
            Some(text) => storage::set(STORE_KEY, &text),
            None => Ok(()),
        }
        .and_then(|()| {
            if resume {
                storage::set(RESUME_KEY, "1")
            } else {
                storage::remove(RESUME_KEY)
            }
        });
        if let Err(e) = written {
            self.notices.push_keyed(
                Level::Error,
                format!(
                    "Skiff could not save its MCP resources: the browser's storage refused ({}). \
                     What you see is kept until you close the page.",
                    refusal(&e)
                ),
                Some("mcp-resources-save"),
            );
        }
    }

    /// The user chose to start afresh after a refusal: the damaged value is set aside under
    /// `<key>.bad` (never lost), then the store is empty and saved. `Err` is the sentence when
    /// it could not be set aside (then nothing is replaced).
    pub fn reset(&self) -> Result<String, String> {
        let bad = format!("{STORE_KEY}.bad");
        if let Ok(Some(raw)) = storage::get(STORE_KEY) {
            storage::set(&bad, &raw).map_err(|_| {
                "The damaged value could not be set aside (storage refused), so it is kept and \
                 nothing is replaced."
                    .to_string()
            })?;
        }
        self.update(Store::reset);
        Ok(format!(
            "Started afresh. The damaged value is kept under \u{201c}{bad}\u{201d}."
        ))
    }

    async fn db(&self) -> Option<Db> {
        if let Some(db) = self.blobs.try_get_value().flatten() {
            return Some(db);
        }
        let db = Db::open_named(BLOB_DB).await.ok()?;
        self.blobs.try_set_value(Some(db.clone()));
        Some(db)
    }

    /// Keep `bytes` under `hash`; false when they could not be kept (no IndexedDB, full).
    pub async fn put_blob(&self, hash: &str, bytes: &[u8]) -> bool {
        match self.db().await {
            Some(db) => db.put_blob(hash, "", bytes).await.is_ok(),
            None => false,
        }
    }

    /// The bytes kept under `hash`, if they are still there.
    pub async fn blob(&self, hash: &str) -> Option<Vec<u8>> {
        let db = self.db().await?;
        db.get_blob(hash).await.ok().flatten().map(|b| b.bytes)
    }

    /// Forget the bytes of copies no longer kept.
    pub async fn delete_blobs(&self, hashes: Vec<String>) {
        let Some(db) = self.db().await else { return };
        for h in hashes {
            // A blob that cannot be deleted now is swept at the next load.
            let _ = db.delete_blob(&h).await;
        }
    }

    async fn sweep(&self) {
        let Some(db) = self.db().await else { return };
        let Ok(keys) = db.blob_keys().await else {
            return;
        };
        let keep = self.with(|s| s.cache.all_hashes());
        let gone: Vec<String> = keys.into_iter().filter(|k| !keep.contains(k)).collect();
        self.delete_blobs(gone).await;
    }
}
