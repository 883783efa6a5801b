//! The conversations store: a small index for the sidebar, and conversations loaded on demand,
//! one storage key each.
//!
//! Invariants:
//! - A write touches one conversation's key (plus the index when a title or order changes), so
//!   the cost of a streamed token never depends on how many conversations exist.
//! - While a reply streams, writes are throttled ([`WriteThrottle`]); the final write is
//!   immediate, and `flush_all` runs when the page is hidden.
//! - A value that fails to parse is never overwritten: it is listed as unreadable, copied aside
//!   before its key is reused, and the rest carries on.
//! - Another tab's writes arrive through the `storage` event and are merged message by message,
//!   so neither tab overwrites the other's messages (`remote.rs`).
//! - The store owns every signal it hands out (`loaded.rs`): a conversation's and its messages'
//!   signals live under the store's owners, never the caller's, and removal disposes them. At
//!   most [`MAX_LOADED`] conversations stay in memory; the least recently opened idle one is
//!   evicted (written first if a write is owed).

use std::collections::{HashMap, HashSet};

use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::branches;
use skiff_core::chat::{settle_calls, Conversation, ConversationSummary, Message, MessageStatus};
use skiff_core::mcp::tool_index::ToolOverrides;
use skiff_core::persist::{self, INDEX_KEY};
use skiff_core::pipeline::import;
use skiff_core::pipeline::memory::Memory;
use skiff_core::pipeline::search::{Corpus, Entry as SearchEntry};
use skiff_core::pipeline::title::TitleSource;
use skiff_core::profiles::ModelChoice;
use skiff_core::throttle::{WriteDecision, WriteThrottle};

use super::live_message::LiveMessage;
use super::notices::{Level, Notices};
use super::whole_value::keep_aside;
use crate::platform::{clock, ids, storage};

mod loaded;
mod remote;

use loaded::Owners;
pub use loaded::{Loaded, Meta};

use super::owners::dispose_later;

/// While streaming, a conversation is written at most this often...
pub const STREAM_WRITE_INTERVAL_MS: f64 = 250.0;
/// ...and, as it grows, at most this many bytes a second (see `WriteThrottle::scale_to_size`)...
const STREAM_WRITE_BYTES_PER_SECOND: f64 = 100_000.0;
/// ...but never less often than this, which bounds what a crash can lose.
const STREAM_WRITE_MAX_INTERVAL_MS: f64 = 2_000.0;
/// A message saved as streaming whose conversation has not been written for this long is not
/// streaming in any tab any more: the page that streamed it was closed or reloaded.
pub const STALE_STREAM_MS: f64 = 15_000.0;

const FULL_KEY: &str = "storage-full";

/// Conversations kept in memory at most; the least recently opened idle ones are evicted.
/// Opening one again reads it from storage (a few milliseconds).
pub const MAX_LOADED: usize = 12;

/// Called with a conversation's id when it is removed while this tab holds it (deleted here or
/// in another tab): the chat runner stops a turn streaming into it.
type RemovedHook = Box<dyn Fn(&str)>;

/// A stored value that could not be read, kept for the user to download or delete.
#[derive(Debug, Clone, PartialEq)]
pub struct Unreadable {
    pub key: String,
    pub error: String,
}

#[derive(Clone, Copy)]
pub struct ConversationsStore {
    pub index: RwSignal<Vec<ConversationSummary>>,
    pub current: RwSignal<Option<Loaded>>,
    pub unreadable: RwSignal<Vec<Unreadable>>,
    loaded: StoredValue<HashMap<String, Loaded>>,
    /// The owners of everything in `loaded` (see `loaded.rs`).
    owners: StoredValue<Owners>,
    /// Removed while a turn was running in them: disposed when that turn has returned
    /// ([`ConversationsStore::turn_ended`]), so the turn never reads a disposed signal.
    retiring: StoredValue<HashMap<String, Vec<Owner>>>,
    /// Ids in `loaded`, least recently opened first.
    recent: StoredValue<Vec<String>>,
    on_removed: StoredValue<Vec<RemovedHook>, LocalStorage>,
    throttles: StoredValue<HashMap<String, WriteThrottle>>,
    timers_armed: StoredValue<HashSet<String>>,
    /// Ids of messages streaming in this tab right now.
    live: StoredValue<HashSet<String>>,
    /// Tool switches chosen in the empty "new chat" view, given to the conversation it becomes.
    pub draft_overrides: RwSignal<ToolOverrides>,
    notices: Notices,
}

impl ConversationsStore {
    pub fn load(notices: Notices) -> Self {
        let store = ConversationsStore {
            index: RwSignal::new(Vec::new()),
            current: RwSignal::new(None),
            unreadable: RwSignal::new(Vec::new()),
            loaded: StoredValue::new(HashMap::new()),
            owners: StoredValue::new(Owners::new()),
            retiring: StoredValue::new(HashMap::new()),
            recent: StoredValue::new(Vec::new()),
            on_removed: StoredValue::new_local(Vec::new()),
            throttles: StoredValue::new(HashMap::new()),
            timers_armed: StoredValue::new(HashSet::new()),
            live: StoredValue::new(HashSet::new()),
            draft_overrides: RwSignal::new(ToolOverrides::default()),
            notices,
        };
        store.load_index();
        store
    }

    /// Read the index, then reconcile it with the conversation keys actually present: a key
    /// missing from the index (a write of the index failed) is added back, an entry without a
    /// key is dropped. Nothing stored is ever dropped by this.
    fn load_index(&self) {
        let mut items = match storage::get(INDEX_KEY) {
            Ok(None) => Vec::new(),
            Ok(Some(raw)) => match persist::decode_index(&raw) {
                Ok(items) => items,
                Err(e) => {
                    // The index is derived data: rebuild it from the conversations instead of
                    // bothering the user, but keep the broken copy aside for a bug report.
                    keep_aside(INDEX_KEY, &raw);
                    leptos::logging::warn!("conversation index unreadable, rebuilt: {e}");
                    Vec::new()
                }
            },
            Err(e) => {
                self.notices.push(Level::Error, e.to_string());
                return;
            }
        };
        let keys = match storage::keys_with_prefix(persist::CONVERSATION_PREFIX) {
            Ok(keys) => keys,
            Err(e) => {
                self.notices.push(Level::Error, e.to_string());
                Vec::new()
            }
        };
        let present: HashSet<&str> = keys
            .iter()
            .filter_map(|k| persist::conversation_id_from_key(k))
            .collect();
        let before = items.len();
        items.retain(|s| present.contains(s.id.as_str()));
        let mut changed = items.len() != before;
        let known: HashSet<String> = items.iter().map(|s| s.id.clone()).collect();
        let mut unreadable = Vec::new();
        for key in &keys {
            let Some(id) = persist::conversation_id_from_key(key) else {
                continue;
            };
            if known.contains(id) {
                continue;
            }
            match storage::get(key) {
                Ok(Some(raw)) => match persist::decode_conversation(&raw) {
                    Ok(c) => {
                        items.push(c.summary());
                        changed = true;
                    }
                    Err(e) => unreadable.push(Unreadable {
                        key: key.clone(),
                        error: e.to_string(),
                    }),
                },
                Ok(None) => {}
                Err(e) => unreadable.push(Unreadable {
                    key: key.clone(),
                    error: e.to_string(),
                }),
            }
        }
        if !unreadable.is_empty() {
            self.notices.push(
                Level::Error,
                format!(
                    "{} saved conversation(s) could not be read. They were left untouched; see Settings → Storage to download or delete them.",
                    unreadable.len()
                ),
            );
        }
        persist::sort_index(&mut items);
        self.index.set(items);
        self.unreadable.set(unreadable);
        if changed {
            self.write_index();
        }
    }

    fn write_index(&self) {
        let raw = self
            .index
            .with_untracked(|items| persist::encode_index(items));
        self.write(INDEX_KEY, &raw);
    }

    fn write(&self, key: &str, raw: &str) -> bool {
        match storage::set(key, raw) {
            Ok(()) => {
                self.notices.clear_key(FULL_KEY);
                true
            }
            Err(e) => {
                self.notices
                    .push_keyed(Level::Error, e.to_string(), Some(FULL_KEY));
                false
            }
        }
    }

    /// Open a conversation, loading it from storage on first use.
    pub fn select(&self, id: &str) {
        if let Some(l) = self.get_or_load(id) {
            self.current.set(Some(l));
        }
    }

    /// Show the empty "new chat" view; the conversation is created with its first message.
    pub fn select_none(&self) {
        self.current.set(None);
    }

    /// The open conversation's id; `None` as well in the moment after another tab deleted it
    /// and before the store moved on (its handle is disposed then).
    pub fn current_id(&self) -> Option<String> {
        self.current.get_untracked().and_then(|l| l.try_id())
    }

    fn get_or_load(&self, id: &str) -> Option<Loaded> {
        if let Some(l) = self.loaded.with_value(|m| m.get(id).copied()) {
            self.touch(id);
            return Some(l);
        }
        let key = persist::conversation_key(id);
        let raw = match storage::get(&key) {
            Ok(Some(raw)) => raw,
            Ok(None) => {
                self.notices.push(
                    Level::Warning,
                    "That conversation no longer exists (it was deleted, perhaps in another tab).",
                );
                self.index.update(|items| items.retain(|s| s.id != id));
                return None;
            }
            Err(e) => {
                self.notices.push(Level::Error, e.to_string());
                return None;
            }
        };
        match persist::decode_conversation(&raw) {
            Ok(mut c) => {
                let stale = clock::now_ms() - c.updated_ms > STALE_STREAM_MS;
                let interrupted = (stale && c.mark_interrupted()) | c.settle_orphan_calls();
                let l = self.hold(&c);
                if interrupted {
                    self.save(&l);
                }
                Some(l)
            }
            Err(e) => {
                self.notices.push(Level::Error, e.to_string());
                self.unreadable.update(|u| {
                    if !u.iter().any(|x| x.key == key) {
                        u.push(Unreadable {
                            key,
                            error: e.to_string(),
                        });
                    }
                });
                self.index.update(|items| items.retain(|s| s.id != id));
                None
            }
        }
    }

    /// Create a conversation in memory and make it current; saved with its first message.
    pub fn create(&self) -> Loaded {
        let now = clock::now_ms();
        let mut c = Conversation::new(ids::new_id(), now);
        c.tool_overrides = self.draft_overrides.get_untracked();
        self.draft_overrides.set(ToolOverrides::default());
        let l = self.hold(&c);
        self.current.set(Some(l));
        l
    }

    /// Make the handle of `c` (under the store's owner) and keep it, evicting idle ones.
    fn hold(&self, c: &Conversation) -> Loaded {
        let l = self.owners.try_update_value(|o| o.create(c));
        // The store's arena values live as long as the app; `None` only during teardown.
        let l = l.unwrap_or_else(|| Owners::new().create(c));
        self.loaded.update_value(|m| {
            m.insert(c.id.clone(), l);
        });
        self.touch(&c.id);
        self.evict_idle();
        l
    }

    fn touch(&self, id: &str) {
        self.recent.update_value(|r| {
            r.retain(|x| x != id);
            r.push(id.to_string());
        });
    }

    /// Keep at most [`MAX_LOADED`] conversations: drop the least recently opened ones that
    /// nobody is looking at and no turn is streaming into, writing what they still owe.
    fn evict_idle(&self) {
        let current = self.current_id();
        loop {
            let count = self.loaded.with_value(HashMap::len);
            if count <= MAX_LOADED {
                return;
            }
            let victim = self.recent.with_value(|r| {
                r.iter()
                    .find(|id| Some(id.as_str()) != current.as_deref() && !self.is_streaming(id))
                    .cloned()
            });
            let Some(id) = victim else {
                return;
            };
            if let Some(l) = self.loaded.with_value(|m| m.get(&id).copied()) {
                if self
                    .throttles
                    .with_value(|t| t.get(&id).is_some_and(WriteThrottle::is_pending))
                {
                    self.write_conversation_only(&l);
                }
            }
            self.release(&id);
        }
    }

    /// Whether a turn in this tab is streaming into conversation `id`.
    fn is_streaming(&self, id: &str) -> bool {
        let Some(l) = self.loaded.with_value(|m| m.get(id).copied()) else {
            return false;
        };
        self.live.with_value(|live| {
            !live.is_empty()
                && l.messages
                    .with_untracked(|ms| ms.iter().any(|m| live.contains(&m.id())))
        })
    }

    /// Stop holding conversation `id`: dispose it, or, while a turn runs in it, once that
    /// turn has returned (`turn_ended`), so the turn never reads a disposed signal.
    fn release(&self, id: &str) {
        let streaming = self.is_streaming(id);
        self.loaded.update_value(|m| {
            m.remove(id);
        });
        self.recent.update_value(|r| r.retain(|x| x != id));
        self.throttles.update_value(|t| {
            t.remove(id);
        });
        let Some(owner) = self.owners.try_update_value(|o| o.take(id)).flatten() else {
            return;
        };
        if streaming {
            self.retiring.update_value(|r| {
                r.insert(id.to_string(), owner);
            });
        } else {
            dispose_later(owner);
        }
    }

    /// The conversation was removed while this tab held it: tell whoever registered, then
    /// release it.
    fn removed(&self, id: &str) {
        if !self.loaded.with_value(|m| m.contains_key(id)) {
            return;
        }
        self.on_removed.with_value(|hooks| {
            for h in hooks {
                h(id);
            }
        });
        self.release(id);
    }

    /// Run `hook` with a conversation's id whenever one this tab holds is deleted (here or in
    /// another tab). The chat runner uses it to stop a turn streaming into it.
    pub fn on_removed(&self, hook: impl Fn(&str) + 'static) {
        self.on_removed.update_value(|h| h.push(Box::new(hook)));
    }

    /// Whether `conv` is still held by the store (not deleted or evicted).
    pub fn holds(&self, conv: &Loaded) -> bool {
        conv.try_id()
            .is_some_and(|id| self.loaded.with_value(|m| m.contains_key(&id)))
    }

    /// Add message `m` to `conv`, owned by the conversation. `None` when the conversation was
    /// deleted meanwhile (nothing is added).
    pub fn push_message(&self, conv: &Loaded, m: &Message) -> Option<LiveMessage> {
        let id = conv.try_id()?;
        let live = self
            .owners
            .try_update_value(|o| o.message(&id, m))
            .flatten()?;
        conv.update_messages(|ms| ms.push(live));
        Some(live)
    }

    /// Keep the messages from index `at` on as a branch (`skiff_core::branches`) and take them
    /// off the screen: before an edited question is sent again or an answer is regenerated.
    pub fn fork_at(&self, conv: &Loaded, at: usize) {
        let mut messages: Vec<Message> = conv
            .messages
            .with_untracked(|ms| ms.iter().map(LiveMessage::snapshot).collect());
        let mut branches = conv.branches.get_untracked();
        if !branches::stash_tail(&mut messages, &mut branches, at) {
            return;
        }
        self.replace_from(conv, at, &[]);
        conv.branches.set(branches);
        self.save(conv);
    }

    /// Show the sibling at 1-based position `to` at index `at` (‹ 2/3 ›).
    pub fn switch_branch(&self, conv: &Loaded, at: usize, to: usize) {
        let mut messages: Vec<Message> = conv
            .messages
            .with_untracked(|ms| ms.iter().map(LiveMessage::snapshot).collect());
        let mut branches = conv.branches.get_untracked();
        if !branches::switch(&mut messages, &mut branches, at, to) {
            return;
        }
        self.replace_from(conv, at, &messages[at..]);
        conv.branches.set(branches);
        self.save(conv);
    }

    /// Replace the messages from index `at` with `incoming`: the old ones' signals are
    /// disposed, the new ones are created under this conversation's owner.
    fn replace_from(&self, conv: &Loaded, at: usize, incoming: &[Message]) {
        let Some(id) = conv.try_id() else {
            return;
        };
        let lives: Vec<LiveMessage> = incoming
            .iter()
            .filter_map(|m| {
                self.owners
                    .try_update_value(|o| o.message(&id, m))
                    .flatten()
            })
            .collect();
        let mut gone = Vec::new();
        conv.update_messages(|ms| {
            let at = at.min(ms.len());
            gone = ms.drain(at..).map(|m| m.id()).collect();
            ms.extend(lives);
        });
        self.owners.update_value(|o| o.drop_messages(&id, &gone));
    }

    /// Remove every message after `message_id` (used before regenerating an answer); their
    /// signals are disposed.
    pub fn truncate_after(&self, conv: &Loaded, message_id: &str) {
        let mut gone = Vec::new();
        conv.update_messages(|ms| {
            if let Some(pos) = ms
                .iter()
                .position(|m| m.id.with_value(|id| id == message_id))
            {
                gone = ms.drain(pos + 1..).map(|m| m.id()).collect();
            }
        });
        if let Some(id) = conv.try_id() {
            self.owners.update_value(|o| o.drop_messages(&id, &gone));
        }
    }

    pub fn set_live(&self, message_id: &str, live: bool) {
        self.live.update_value(|s| {
            if live {
                s.insert(message_id.to_string());
            } else {
                s.remove(message_id);
            }
        });
    }

    /// The chat runner's turn in conversation `id` has returned: if the conversation was
    /// removed meanwhile, its signals can go now.
    pub fn turn_ended(&self, id: &str) {
        if let Some(owners) = self.retiring.try_update_value(|r| r.remove(id)).flatten() {
            dispose_later(owners);
        }
    }

    /// Write a conversation now, and its index entry. A conversation deleted meanwhile (here
    /// or in another tab) is not written back.
    pub fn save(&self, conv: &Loaded) {
        if !self.holds(conv) {
            return;
        }
        let now = clock::now_ms();
        conv.meta.update(|m| m.updated_ms = now);
        let snapshot = conv.snapshot();
        self.throttles.update_value(|t| {
            if let Some(t) = t.get_mut(&snapshot.id) {
                t.wrote(now);
            }
        });
        if !self.write(
            &persist::conversation_key(&snapshot.id),
            &persist::encode_conversation(&snapshot),
        ) {
            return;
        }
        let summary = snapshot.summary();
        self.index.update(|items| {
            match items.iter_mut().find(|s| s.id == summary.id) {
                Some(s) => *s = summary,
                None => items.push(summary),
            }
            persist::sort_index(items);
        });
        self.write_index();
    }

    /// A streamed change: write at most every [`STREAM_WRITE_INTERVAL_MS`].
    pub fn save_throttled(&self, conv: &Loaded) {
        // A flush timer may fire after the conversation was deleted and disposed.
        if !self.holds(conv) {
            return;
        }
        let id = conv.id();
        let now = clock::now_ms();
        let decision = self.throttles.try_update_value(|t| {
            t.entry(id.clone())
                .or_insert_with(|| WriteThrottle::new(STREAM_WRITE_INTERVAL_MS))
                .changed(now)
        });
        match decision {
            Some(WriteDecision::Now) => self.write_conversation_only(conv),
            Some(WriteDecision::At(at)) => {
                let armed = self
                    .timers_armed
                    .try_update_value(|s| !s.insert(id.clone()))
                    .unwrap_or(true);
                if armed {
                    return;
                }
                let store = *self;
                let conv = *conv;
                spawn_local(async move {
                    clock::sleep_ms((at - now).max(0.0) as u32).await;
                    store.timers_armed.update_value(|s| {
                        s.remove(&id);
                    });
                    let due = store
                        .throttles
                        .try_update_value(|t| {
                            t.get_mut(&id)
                                .map(|t| t.due(clock::now_ms()))
                                .unwrap_or(false)
                        })
                        .unwrap_or(false);
                    if due {
                        store.write_conversation_only(&conv);
                    }
                });
            }
            None => {}
        }
    }

    fn write_conversation_only(&self, conv: &Loaded) {
        // Deleted while streaming: do not resurrect it.
        if !self.holds(conv) {
            return;
        }
        let id = conv.id();
        conv.meta
            .update_untracked(|m| m.updated_ms = clock::now_ms());
        let snapshot = conv.snapshot();
        let raw = persist::encode_conversation(&snapshot);
        self.throttles.update_value(|t| {
            if let Some(t) = t.get_mut(&id) {
                t.scale_to_size(
                    STREAM_WRITE_INTERVAL_MS,
                    raw.len(),
                    STREAM_WRITE_BYTES_PER_SECOND,
                    STREAM_WRITE_MAX_INTERVAL_MS,
                );
            }
        });
        self.write(&persist::conversation_key(&snapshot.id), &raw);
    }

    /// Write whatever the throttle still owes (page being hidden or closed).
    pub fn flush_all(&self) {
        let owed: Vec<String> = self.throttles.with_value(|t| {
            t.iter()
                .filter(|(_, t)| t.is_pending())
                .map(|(id, _)| id.clone())
                .collect()
        });
        for id in owed {
            if let Some(l) = self.loaded.with_value(|m| m.get(&id).copied()) {
                self.write_conversation_only(&l);
                self.throttles.update_value(|t| {
                    if let Some(t) = t.get_mut(&id) {
                        t.wrote(clock::now_ms());
                    }
                });
            }
        }
    }

    /// The page is going away (reload, close, navigation): the replies streaming here will not
    /// finish, so say so in what is saved, then write everything owed. A crash skips this; the
    /// staleness check on load covers that case.
    pub fn on_page_hide(&self) {
        let live: Vec<String> = self.live.with_value(|s| s.iter().cloned().collect());
        if !live.is_empty() {
            let all: Vec<Loaded> = self.loaded.with_value(|m| m.values().copied().collect());
            for l in all {
                let mut touched = false;
                l.messages.with_untracked(|ms| {
                    for m in ms.iter().filter(|m| live.contains(&m.id())) {
                        m.status.set(MessageStatus::Interrupted);
                        // Calls this page was running or asking about die with it.
                        m.tool_calls.update(|calls| {
                            settle_calls(calls);
                        });
                        touched = true;
                    }
                });
                if touched {
                    self.write_conversation_only(&l);
                }
            }
        }
        self.flush_all();
    }

    /// Add the conversations of an imported file (`pipeline::import` reads it; this only
    /// stores). Only new ids are added, never over what is stored; each is written before the
    /// index names it, so a storage that fills up midway leaves no entry without its body.
    /// The sentence says what was added, skipped and unreadable.
    pub fn import(&self, text: &str) -> Result<String, String> {
        let report = import::read(text, |id| {
            self.index
                .with_untracked(|ix| ix.iter().any(|s| s.id == id))
        })
        .map_err(|e| e.to_string())?;
        let mut stored = Vec::new();
        for c in &report.added {
            if !self.write(
                &persist::conversation_key(&c.id),
                &persist::encode_conversation(c),
            ) {
                break;
            }
            stored.push(c.summary());
        }
        let missing = report.added.len() - stored.len();
        if !stored.is_empty() {
            self.index.update(|items| {
                items.extend(stored);
                persist::sort_index(items);
            });
            self.write_index();
        }
        if missing > 0 {
            return Err(format!(
                "{} The browser's storage is full: the last {missing} could not be stored (the rest were).",
                report.summary()
            ));
        }
        Ok(report.summary())
    }

    /// Every stored conversation's text for search (`pipeline::search`): the copy in memory
    /// where one is loaded (it may be ahead of storage while an answer streams), else the
    /// stored one. Unreadable values are left out; Settings → Storage lists them.
    pub fn search_corpus(&self) -> Corpus {
        let items = self.index.get_untracked();
        let entries = items
            .iter()
            .filter_map(|s| {
                let c = match self.loaded.with_value(|m| m.get(&s.id).copied()) {
                    Some(l) => l.try_snapshot()?,
                    None => {
                        let raw = storage::get(&persist::conversation_key(&s.id)).ok()??;
                        persist::decode_conversation(&raw).ok()?
                    }
                };
                Some(SearchEntry {
                    id: c.id,
                    title: c.title,
                    updated_ms: c.updated_ms,
                    messages: c.messages.into_iter().map(|m| (m.id, m.content)).collect(),
                })
            })
            .collect();
        Corpus::new(entries)
    }

    /// The user typed a title: it stays until they change it (no generated title replaces it).
    pub fn rename(&self, id: &str, title: &str) {
        self.set_title(id, title, TitleSource::User);
    }

    /// Set a title and say where it came from.
    pub fn set_title(&self, id: &str, title: &str, source: TitleSource) {
        let title = title.trim();
        if let Some(l) = self.get_or_load(id) {
            l.meta.update(|m| {
                m.title = title.to_string();
                m.title_source = source;
            });
            self.save(&l);
        }
    }

    /// Set (or remove) the summary standing in for older messages.
    pub fn set_memory(&self, conv: &Loaded, memory: Option<Memory>) {
        if conv.meta.try_with_untracked(|m| m.memory == memory) != Some(false) {
            return;
        }
        conv.meta.update(|m| m.memory = memory);
        self.save(conv);
    }

    /// Put the clear-context mark after `after` (`None` removes it): requests from this
    /// conversation carry nothing up to and including that message.
    pub fn set_cleared_after(&self, conv: &Loaded, after: Option<String>) {
        if conv.meta.with_untracked(|m| m.cleared_after == after) {
            return;
        }
        conv.meta.update(|m| m.cleared_after = after);
        self.save(conv);
    }

    /// Remember which profile and model this conversation uses (the chat header's picker).
    pub fn set_model(&self, conv: &Loaded, model: Option<ModelChoice>) {
        if conv.meta.try_with_untracked(|m| m.model == model) != Some(false) {
            return;
        }
        conv.meta.update(|m| m.model = model);
        // A conversation with no message yet is saved with its first one.
        if !conv.messages.with_untracked(Vec::is_empty) {
            self.save(conv);
        }
    }

    pub fn delete(&self, id: &str) {
        if let Err(e) = storage::remove(&persist::conversation_key(id)) {
            self.notices.push(Level::Error, e.to_string());
            return;
        }
        if self.current_id().as_deref() == Some(id) {
            self.current.set(None);
        }
        self.removed(id);
        self.index.update(|items| items.retain(|s| s.id != id));
        self.write_index();
    }

    /// About how many bytes this site keeps in the browser's storage (for Settings → Storage).
    pub fn used_bytes(&self) -> usize {
        storage::used_bytes_estimate()
    }

    /// The raw text of a stored value, for downloading unreadable data.
    pub fn raw_value(&self, key: &str) -> Option<String> {
        storage::get(key).ok().flatten()
    }

    /// Delete an unreadable value the user has decided to give up.
    pub fn discard_unreadable(&self, key: &str) {
        match storage::remove(key) {
            Ok(()) => self.unreadable.update(|u| u.retain(|x| x.key != key)),
            Err(e) => self.notices.push(Level::Error, e.to_string()),
        }
    }

    /// Switch an MCP server or one of its tools on or off for the open conversation (or for
    /// the next one, in the empty "new chat" view), and save it.
    pub fn set_tool_switch(&self, server_id: &str, tool_name: Option<&str>, enabled: bool) {
        let apply = |o: &mut ToolOverrides| match tool_name {
            Some(t) => o.set_tool(server_id, t, enabled),
            None => o.set_server(server_id, enabled),
        };
        match self.current.get_untracked() {
            Some(l) => {
                l.tool_overrides.update(apply);
                // A conversation with no message yet is not stored; it will be with its first.
                if l.messages.with_untracked(|m| !m.is_empty()) {
                    self.save(&l);
                }
            }
            None => self.draft_overrides.update(apply),
        }
    }

    /// The switches in force for what the user is looking at.
    pub fn current_overrides(&self) -> ToolOverrides {
        match self.current.get() {
            Some(l) => l.tool_overrides.get(),
            None => self.draft_overrides.get(),
        }
    }
}
