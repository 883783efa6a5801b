//! The rules of the MCP resource cache (the mcpResource store's content half): what a read
//! keeps, when a kept copy may be used without asking the server, what goes when the cache is
//! full, and what a server's change notice does.
//!
//! - A copy is keyed by server and URI (the 2026-07-28 caching rule: a cached result is served
//!   only for the same method and parameters).
//! - It is fresh for the server's `ttlMs` after it was read; without one (older servers, or
//!   `ttlMs` 0) it is stale at once, which only means "read again when the server is there".
//! - While the server is down, any copy is usable and shown as [`Freshness::Stale`]: the user
//!   can still attach a resource read yesterday.
//! - The cache holds at most `max_bytes`; the least recently used copies go first, never the
//!   one just read. A single copy larger than the bound is not kept (it is still used for the
//!   message that asked for it).
//! - Binary parts live in the browser's blob store beside attachments, by SHA-256; a copy holds
//!   the hash. What an eviction frees is a list of *candidate* hashes: an attachment may name
//!   the same bytes, so the store checks (`attach::unreferenced`) before deleting any.
//! - `notifications/resources/updated` and a result retried with `inputResponses` are never
//!   served from here: the first invalidates the copy, the second is not stored.
//!
//! Pure data and time as an argument: no IO, no clock.

use serde::{Deserialize, Serialize};

/// Stored format of [`ResourceCache`]; a newer one is refused, not overwritten.
pub const VERSION: u32 = 1;
/// Default bound: the text and bytes of cached copies together.
pub const DEFAULT_MAX_BYTES: u64 = 20_000_000;

/// One content part of a read result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CachedPart {
    Text {
        uri: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        mime: String,
        text: String,
    },
    /// Text too long to keep in the stored JSON (localStorage is small): its UTF-8 bytes are
    /// in the blob store under `hash`, and it is text again when read back.
    TextBlob {
        uri: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        mime: String,
        hash: String,
        size: u64,
    },
    /// Bytes in the blob store under `hash`.
    Blob {
        uri: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        mime: String,
        hash: String,
        size: u64,
    },
}

impl CachedPart {
    fn bytes(&self) -> u64 {
        match self {
            CachedPart::Text { text, .. } => text.len() as u64,
            CachedPart::Blob { size, .. } | CachedPart::TextBlob { size, .. } => *size,
        }
    }
}

/// A kept copy of one resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub server_id: String,
    pub uri: String,
    pub parts: Vec<CachedPart>,
    pub fetched_ms: f64,
    /// How long after `fetched_ms` the copy is fresh (the server's `ttlMs`; 0 when absent).
    #[serde(default)]
    pub ttl_ms: f64,
    /// Last time it was read or used: the eviction order.
    pub used_ms: f64,
    /// The server said it changed (`notifications/resources/updated`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub changed: bool,
}

impl Entry {
    pub fn bytes(&self) -> u64 {
        self.parts.iter().map(CachedPart::bytes).sum()
    }

    fn hashes(&self) -> impl Iterator<Item = &str> {
        self.parts.iter().filter_map(|p| match p {
            CachedPart::Blob { hash, .. } | CachedPart::TextBlob { hash, .. } => {
                Some(hash.as_str())
            }
            CachedPart::Text { .. } => None,
        })
    }
}

/// How a kept copy may be used now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// Within its time to live and unchanged: use it without asking the server.
    Fresh,
    /// Past its time to live (or changed) and the server is there: read again, showing the
    /// copy meanwhile.
    Expired,
    /// The server is down: the copy is what there is, shown as possibly out of date.
    Stale,
}

/// What to do when a resource is wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadPlan {
    UseCached,
    /// Ask the server; `cached` when a copy can be shown meanwhile (and used if the read fails).
    Fetch {
        cached: bool,
    },
    /// Nothing kept and the server is down.
    Unavailable,
}

/// What an insert did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Inserted {
    /// Whether the copy was kept (false when it alone is larger than the bound).
    pub kept: bool,
    /// Blob hashes no kept copy names any more: candidates for deletion (see module doc).
    pub freed: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceCache {
    entries: Vec<Entry>,
    pub max_bytes: u64,
}

impl Default for ResourceCache {
    fn default() -> Self {
        ResourceCache {
            entries: Vec::new(),
            max_bytes: DEFAULT_MAX_BYTES,
        }
    }
}

impl ResourceCache {
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub fn total_bytes(&self) -> u64 {
        self.entries.iter().map(Entry::bytes).sum()
    }

    fn position(&self, server_id: &str, uri: &str) -> Option<usize> {
        self.entries
            .iter()
            .position(|e| e.server_id == server_id && e.uri == uri)
    }

    /// How the copy of `uri` may be used at `now`, or `None` when there is none.
    pub fn freshness(
        &self,
        server_id: &str,
        uri: &str,
        now_ms: f64,
        server_up: bool,
    ) -> Option<Freshness> {
        let e = &self.entries[self.position(server_id, uri)?];
        Some(if !server_up {
            Freshness::Stale
        } else if !e.changed && now_ms < e.fetched_ms + e.ttl_ms.max(0.0) {
            Freshness::Fresh
        } else {
            Freshness::Expired
        })
    }

    /// What to do when `uri` is wanted at `now`.
    pub fn plan(&self, server_id: &str, uri: &str, now_ms: f64, server_up: bool) -> ReadPlan {
        match self.freshness(server_id, uri, now_ms, server_up) {
            Some(Freshness::Fresh) => ReadPlan::UseCached,
            Some(Freshness::Stale) => ReadPlan::UseCached,
            Some(Freshness::Expired) => ReadPlan::Fetch { cached: true },
            None if server_up => ReadPlan::Fetch { cached: false },
            None => ReadPlan::Unavailable,
        }
    }

    /// The copy of `uri`, marked as used at `now` (it moves to the back of the eviction order).
    pub fn take(&mut self, server_id: &str, uri: &str, now_ms: f64) -> Option<&Entry> {
        let at = self.position(server_id, uri)?;
        let e = &mut self.entries[at];
        e.used_ms = e.used_ms.max(now_ms);
        Some(e)
    }

    /// Keep what a read returned (replacing an older copy), then evict the least recently used
    /// copies until the cache fits. `retried` marks a result obtained with `inputResponses`,
    /// which is never kept.
    pub fn insert(&mut self, mut entry: Entry, now_ms: f64, retried: bool) -> Inserted {
        let mut before: Vec<String> = self.all_hashes();
        if let Some(at) = self.position(&entry.server_id, &entry.uri) {
            self.entries.remove(at);
        }
        let kept = !retried && entry.bytes() <= self.max_bytes;
        if kept {
            entry.used_ms = now_ms;
            entry.changed = false;
            self.entries.push(entry);
            while self.total_bytes() > self.max_bytes {
                // Oldest use first, never the copy just read (the last one): it fits alone.
                let others = &self.entries[..self.entries.len() - 1];
                let Some(oldest) = others
                    .iter()
                    .enumerate()
                    .min_by(|a, b| a.1.used_ms.total_cmp(&b.1.used_ms))
                    .map(|(i, _)| i)
                else {
                    break;
                };
                self.entries.remove(oldest);
            }
        }
        let after = self.all_hashes();
        before.retain(|h| !after.contains(h));
        Inserted {
            kept,
            freed: before,
        }
    }

    /// `notifications/resources/updated`: the copy is read again before it is used.
    pub fn mark_changed(&mut self, server_id: &str, uri: &str) -> bool {
        match self.position(server_id, uri) {
            Some(at) => {
                self.entries[at].changed = true;
                true
            }
            None => false,
        }
    }

    /// One copy goes (a second bound the store keeps, such as what fits in localStorage); the
    /// hashes it alone named are candidates to free.
    pub fn remove(&mut self, server_id: &str, uri: &str) -> Vec<String> {
        let mut before = self.all_hashes();
        if let Some(at) = self.position(server_id, uri) {
            self.entries.remove(at);
        }
        let after = self.all_hashes();
        before.retain(|h| !after.contains(h));
        before
    }

    /// A server was removed: its copies go; the hashes they named are candidates to free.
    pub fn forget_server(&mut self, server_id: &str) -> Vec<String> {
        let mut before = self.all_hashes();
        self.entries.retain(|e| e.server_id != server_id);
        let after = self.all_hashes();
        before.retain(|h| !after.contains(h));
        before
    }

    /// Every blob hash a kept copy names (the blob sweep must keep these).
    pub fn all_hashes(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for h in self.entries.iter().flat_map(Entry::hashes) {
            if !out.iter().any(|x| x == h) {
                out.push(h.to_string());
            }
        }
        out
    }
}

#[cfg(test)]
#[path = "resource_cache_tests.rs"]
mod tests;
