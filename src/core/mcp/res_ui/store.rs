//! The mcpResource store: per server the resource and template lists as last seen (so a
//! cached resource can be found and used while its server is down), the content cache, and the
//! subscriptions that must resume after a reconnect or a reload.
//!
//! Stored as one versioned JSON value (localStorage `skiff.extras.resources`, `{v: 1, ...}`);
//! binary and long text contents live in IndexedDB by SHA-256 (the cache names
//! the hash). A stored value that does not parse, or has a newer `v`, is never overwritten:
//! the store is then *locked* (nothing is saved) and says so in a sentence until the user
//! chooses to start afresh.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::read::Part;
use crate::mcp::model::{Resource, ResourceTemplate};
use crate::mcp::resource_cache::{CachedPart, Entry, Freshness, ReadPlan, ResourceCache};

/// localStorage key of the store.
pub const STORE_KEY: &str = "skiff.extras.resources";
/// localStorage flag, present while a subscription must be resumed after a reload: the page
/// then loads the store at start (it is not read otherwise).
pub const RESUME_KEY: &str = "skiff.mcp.subscribed";
/// Stored format; a newer one is refused, not overwritten.
pub const VERSION: u32 = 1;
/// The cache's bound: text and bytes of kept copies together (IndexedDB holds the large ones).
pub const CACHE_MAX_BYTES: u64 = 16_000_000;
/// Text longer than this goes to the blob store, so the localStorage value stays small.
pub const INLINE_TEXT_MAX: u64 = 16 * 1024;
/// All text kept in the stored JSON together (localStorage has ~5 MB for the whole page):
/// past it, the least recently used copies holding text go first.
pub const INLINE_TOTAL_MAX: u64 = 1_000_000;

/// One server's lists as last seen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerLists {
    pub id: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub resources: Vec<Resource>,
    #[serde(default)]
    pub templates: Vec<ResourceTemplate>,
    /// The server's `resources.subscribe` capability.
    #[serde(default)]
    pub can_subscribe: bool,
    /// Whether the server is ready now (never stored: every load starts offline until the
    /// page says otherwise).
    #[serde(skip)]
    pub connected: bool,
    /// Whether the page still has this server configured (never stored).
    #[serde(skip)]
    pub present: bool,
}

/// One server as the page has it now: its lists as the server sent them (unchecked: items
/// that do not decode are left out) and its `initialize` capabilities.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LiveLists {
    pub id: String,
    pub name: String,
    pub connected: bool,
    pub resources: Vec<Value>,
    pub templates: Vec<Value>,
    pub capabilities: Value,
}

/// A resource the user subscribed to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sub {
    pub server: String,
    pub uri: String,
}

#[derive(Debug, Serialize, Deserialize)]
struct Stored {
    v: u32,
    #[serde(default)]
    servers: Vec<ServerLists>,
    #[serde(default)]
    cache: Option<ResourceCache>,
    #[serde(default)]
    subs: Vec<Sub>,
}

/// The whole store.
#[derive(Debug, Clone, PartialEq)]
pub struct Store {
    pub servers: Vec<ServerLists>,
    pub cache: ResourceCache,
    pub subs: Vec<Sub>,
    /// Why the stored value was not used (then nothing is saved over it).
    pub locked: Option<String>,
}

impl Default for Store {
    fn default() -> Self {
        let mut cache = ResourceCache::default();
        cache.max_bytes = CACHE_MAX_BYTES;
        Store {
            servers: Vec::new(),
            cache,
            subs: Vec::new(),
            locked: None,
        }
    }
}

/// The sentence for a stored value that cannot be used.
fn refusal(why: &str) -> String {
    format!(
        "Skiff could not read its saved MCP resources ({why}). They are kept as they were and \
         nothing new is saved until you choose \u{201c}Start afresh\u{201d}."
    )
}

/// Items of a list that parse; a malformed one is left out rather than losing the list.
fn items<T: serde::de::DeserializeOwned>(v: &[Value]) -> Vec<T> {
    v.iter()
        .filter_map(|x| serde_json::from_value(x.clone()).ok())
        .collect()
}

fn inline(e: &Entry) -> u64 {
    e.parts
        .iter()
        .map(|p| match p {
            CachedPart::Text { text, .. } => text.len() as u64,
            _ => 0,
        })
        .sum()
}

impl Store {
    /// The store from its stored text (`None`: never saved).
    pub fn load(raw: Option<&str>) -> Store {
        let Some(raw) = raw else {
            return Store::default();
        };
        let value: Value = match serde_json::from_str(raw) {
            Ok(v) => v,
            Err(e) => {
                return Store {
                    locked: Some(refusal(&format!("it is not valid JSON: {e}"))),
                    ..Store::default()
                }
            }
        };
        match value.get("v").and_then(Value::as_u64) {
            Some(v) if v > u64::from(VERSION) => {
                return Store {
                    locked: Some(refusal(&format!(
                        "it was saved by a newer Skiff, format {v}"
                    ))),
                    ..Store::default()
                }
            }
            Some(_) => {}
            None => {
                return Store {
                    locked: Some(refusal("it has no format version")),
                    ..Store::default()
                }
            }
        }
        match serde_json::from_value::<Stored>(value) {
            Ok(s) => Store {
                servers: s.servers,
                cache: s.cache.unwrap_or_else(|| Store::default().cache),
                subs: s.subs,
                locked: None,
            },
            Err(e) => Store {
                locked: Some(refusal(&format!("its contents are damaged: {e}"))),
                ..Store::default()
            },
        }
    }

    /// The text to store, or `None` while locked (the stored value is kept as it is).
    pub fn save(&self) -> Option<String> {
        if self.locked.is_some() {
            return None;
        }
        let stored = Stored {
            v: VERSION,
            servers: self.servers.clone(),
            cache: Some(self.cache.clone()),
            subs: self.subs.clone(),
        };
        serde_json::to_string(&stored).ok()
    }

    /// The user chose to start afresh after a refusal: an empty, unlocked store.
    pub fn reset(&mut self) {
        *self = Store::default();
    }

    /// The page's live server list. A connected server's lists replace the kept ones; an
    /// offline server keeps what was seen last, so its cached resources stay findable.
    /// Returns whether anything changed.
    pub fn sync(&mut self, servers: &[LiveLists]) -> bool {
        let before = self.servers.clone();
        for s in &mut self.servers {
            s.present = false;
            s.connected = false;
        }
        for v in servers {
            let id = v.id.as_str();
            if id.is_empty() {
                continue;
            }
            let resources: Vec<Resource> = items(&v.resources);
            let templates: Vec<ResourceTemplate> = items(&v.templates);
            // Both eras: a modern (2026-07-28) server has no `resources/subscribe`, but the
            // page's session turns that request into its listen stream's `resourceSubscriptions`
            // (`mcp::session_subs`), so the page asks the same way whatever the era.
            let can_subscribe = v
                .capabilities
                .pointer("/resources/subscribe")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            let name = match v.name.as_str() {
                "" => id.to_string(),
                n => n.to_string(),
            };
            let at = match self.servers.iter().position(|s| s.id == id) {
                Some(at) => at,
                None => {
                    self.servers.push(ServerLists {
                        id: id.to_string(),
                        name: name.clone(),
                        resources: Vec::new(),
                        templates: Vec::new(),
                        can_subscribe: false,
                        connected: false,
                        present: true,
                    });
                    self.servers.len() - 1
                }
            };
            let s = &mut self.servers[at];
            s.name = name;
            s.present = true;
            s.connected = v.connected;
            if v.connected {
                s.resources = resources;
                s.templates = templates;
                s.can_subscribe = can_subscribe;
            } else {
                // Lists the page still has (it keeps them while reconnecting) are newer.
                if !resources.is_empty() {
                    s.resources = resources;
                }
                if !templates.is_empty() {
                    s.templates = templates;
                }
            }
        }
        self.servers != before
    }

    pub fn server(&self, id: &str) -> Option<&ServerLists> {
        self.servers.iter().find(|s| s.id == id)
    }

    pub fn up(&self, id: &str) -> bool {
        self.server(id).is_some_and(|s| s.connected)
    }

    /// The server's name as the page shows it, or its id when unknown.
    pub fn server_name<'a>(&'a self, id: &'a str) -> &'a str {
        self.server(id).map_or(id, |s| s.name.as_str())
    }

    /// Whether Subscribe is offered for this server's resources now.
    pub fn can_subscribe(&self, id: &str) -> bool {
        self.server(id)
            .is_some_and(|s| s.connected && s.can_subscribe)
    }

    /// The name a resource is attached and announced under: its title, else its name, else
    /// its URI.
    pub fn display_name(&self, server: &str, uri: &str) -> String {
        self.resource(server, uri)
            .map(|r| {
                r.title
                    .clone()
                    .filter(|t| !t.is_empty())
                    .unwrap_or_else(|| r.name.clone())
            })
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| uri.to_string())
    }

    /// The listed resource at `uri`, if the server lists it.
    pub fn resource(&self, server: &str, uri: &str) -> Option<&Resource> {
        self.server(server)?.resources.iter().find(|r| r.uri == uri)
    }

    pub fn plan(&self, server: &str, uri: &str, now_ms: f64) -> ReadPlan {
        self.cache.plan(server, uri, now_ms, self.up(server))
    }

    pub fn freshness(&self, server: &str, uri: &str, now_ms: f64) -> Option<Freshness> {
        self.cache.freshness(server, uri, now_ms, self.up(server))
    }

    pub fn entry(&self, server: &str, uri: &str) -> Option<&Entry> {
        self.cache
            .entries()
            .iter()
            .find(|e| e.server_id == server && e.uri == uri)
    }

    /// The kept copy's parts (marked as used at `now`); blob-backed ones carry `hash` and no
    /// `data`, for the runner to load from IndexedDB.
    pub fn cached_parts(&mut self, server: &str, uri: &str, now_ms: f64) -> Option<Vec<Part>> {
        let e = self.cache.take(server, uri, now_ms)?;
        Some(e.parts.iter().map(Part::from_cached).collect())
    }

    /// Keep what a read returned. Parts marked `to_store` must carry the `hash` under which
    /// the runner stored their bytes; a part that should be stored but has no hash makes the
    /// copy not kept (it is still shown and attached). Returns the hashes no copy names any
    /// more (the runner deletes them from IndexedDB).
    pub fn keep(
        &mut self,
        server: &str,
        uri: &str,
        parts: &[Part],
        ttl_ms: f64,
        now_ms: f64,
    ) -> Vec<String> {
        let mut cached = Vec::with_capacity(parts.len());
        for p in parts {
            match p.to_cached() {
                Some(c) => cached.push(c),
                None => return Vec::new(),
            }
        }
        let entry = Entry {
            server_id: server.to_string(),
            uri: uri.to_string(),
            parts: cached,
            fetched_ms: now_ms,
            ttl_ms: ttl_ms.max(0.0),
            used_ms: now_ms,
            changed: false,
        };
        let mut freed = self.cache.insert(entry, now_ms, false).freed;
        // The second bound: text in the stored JSON. Never the copy just kept.
        while self.inline_bytes() > INLINE_TOTAL_MAX {
            let Some((s, u)) = self
                .cache
                .entries()
                .iter()
                .filter(|e| !(e.server_id == server && e.uri == uri) && inline(e) > 0)
                .min_by(|a, b| a.used_ms.total_cmp(&b.used_ms))
                .map(|e| (e.server_id.clone(), e.uri.clone()))
            else {
                break;
            };
            freed.extend(self.cache.remove(&s, &u));
        }
        freed
    }

    /// Bytes of text the stored JSON holds.
    pub fn inline_bytes(&self) -> u64 {
        self.cache.entries().iter().map(inline).sum()
    }

    pub fn mark_changed(&mut self, server: &str, uri: &str) -> bool {
        self.cache.mark_changed(server, uri)
    }

    pub fn subscribed(&self, server: &str, uri: &str) -> bool {
        self.subs.iter().any(|s| s.server == server && s.uri == uri)
    }

    /// Returns whether anything changed.
    pub fn subscribe(&mut self, server: &str, uri: &str) -> bool {
        if self.subscribed(server, uri) {
            return false;
        }
        self.subs.push(Sub {
            server: server.to_string(),
            uri: uri.to_string(),
        });
        true
    }

    pub fn unsubscribe(&mut self, server: &str, uri: &str) -> bool {
        let before = self.subs.len();
        self.subs.retain(|s| !(s.server == server && s.uri == uri));
        before != self.subs.len()
    }

    /// The URIs to subscribe again when `server` becomes ready.
    pub fn subs_for(&self, server: &str) -> Vec<String> {
        self.subs
            .iter()
            .filter(|s| s.server == server)
            .map(|s| s.uri.clone())
            .collect()
    }

    /// Whether the page must load the store at start to follow updates and subscribe again
    /// ([`RESUME_KEY`]): while any subscription exists.
    pub fn needs_boot(&self) -> bool {
        !self.subs.is_empty()
    }
}
