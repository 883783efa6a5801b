//! The conversations store: a small index in localStorage for the sidebar (read synchronously,
//! so the list draws at once), and conversation bodies in IndexedDB (`bodies.rs`; localStorage
//! where the browser has no IndexedDB), loaded on demand.
//!
//! Invariants:
//! - A write touches one conversation's body (plus the index when a title or order changes), so
//!   the cost of a streamed token never depends on how many conversations exist. The index
//!   names a conversation only once its body write has committed.
//! - While a reply streams, writes are throttled ([`WriteThrottle`]); the final write is
//!   immediate, and `flush_all` runs when the page is hidden. Body writes are issued at once
//!   (IndexedDB commits them after the handler returns); a write that fails keeps the
//!   conversation in memory, shows the storage-full notice, and is owed until one succeeds.
//! - A value that fails to parse is never overwritten: it is listed as unreadable, copied aside
//!   before its key is reused, and the rest carries on.
//! - Another tab's writes are merged message by message, so neither tab overwrites the other's
//!   messages (`remote.rs`): body writes are announced on a `BroadcastChannel`, index writes
//!   arrive through the `storage` event.
//! - Opening a conversation not in memory is async (`loading` names it meanwhile); an evicted
//!   conversation is released only after its owed write has committed.
//! - The store owns every signal it hands out (`loaded.rs`): a conversation's and its messages'
//!   signals live under the store's owners, never the caller's, and removal disposes them. At
//!   most [`MAX_LOADED`] conversations stay in memory; the least recently opened idle one is
//!   evicted (written first if a write is owed).

use std::collections::{HashMap, HashSet};

use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::attach;
use skiff_core::branches;
use skiff_core::persist::announce::BodyChange;
use skiff_core::persist::{self, INDEX_KEY};
use skiff_core::pipeline::backup::Rest;
use skiff_core::pipeline::import;
use skiff_core::pipeline::search::{Corpus, Entry as SearchEntry};
use skiff_core::records::conversation::{settle_calls, Conversation, ConversationSummary};
use skiff_core::records::mask::Mask;
use skiff_core::records::memory::Memory;
use skiff_core::records::message::{Message, MessageStatus};
use skiff_core::records::model_choice::ModelChoice;
use skiff_core::records::title_source::TitleSource;
use skiff_core::records::tool_overrides::ToolOverrides;
use skiff_core::throttle::{WriteDecision, WriteThrottle};

use super::live_message::LiveMessage;
use super::notices::{Level, Notices};
use super::whole_value::keep_aside;
use crate::platform::broadcast::Channel;
use crate::platform::idb::Db;
use crate::platform::{clock, ids, storage};

mod blobs;
mod bodies;
mod loaded;
mod migrate;
mod remote;
mod usage;

use bodies::Bodies;
pub use usage::{Backend, StorageStatus, Usage};

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
/// The channel body writes are announced on (`BroadcastChannel`).
const CHANNEL: &str = "skiff";

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
    /// The text as stored (for the download), when it was read from IndexedDB.
    pub raw: Option<String>,
}

/// Told whether a body write committed.
type Done = Box<dyn FnOnce(bool)>;

#[derive(Clone, Copy)]
pub struct ConversationsStore {
    pub index: RwSignal<Vec<ConversationSummary>>,
    pub current: RwSignal<Option<Loaded>>,
    pub unreadable: RwSignal<Vec<Unreadable>>,
    /// The conversation being read from storage to be opened (a quiet loading state).
    pub loading: RwSignal<Option<String>>,
    /// Where bodies live, how the move went, whether storage is persistent.
    pub storage: RwSignal<StorageStatus>,
    /// Where bodies are read and written, once open (and migrated).
    bodies: StoredValue<Option<Bodies>, LocalStorage>,
    /// The newest body write issued per id: a write waiting for the database to open is
    /// dropped when a newer one exists (it holds everything the older one did).
    write_seq: StoredValue<HashMap<String, u64>>,
    /// Ids whose newest body write has not committed: in flight, or failed. Owed until a
    /// write succeeds, so `pagehide` rescues them too: a document being unloaded has its
    /// unfinished IndexedDB transactions aborted, and an error shown a moment before a reload
    /// was otherwise lost (the reload showed the answer as interrupted).
    retry: StoredValue<HashSet<String>>,
    /// Evicted ids whose owed write is in flight; released once it has committed.
    evicting: StoredValue<HashSet<String>>,
    channel: StoredValue<Option<Channel>, LocalStorage>,
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
    /// The id of the mask the next new conversation starts from (Settings → Masks → New
    /// chat), shown above the empty chat until the first message creates the conversation.
    pub draft_mask: RwSignal<Option<String>>,
    /// The id of the project the next new conversation goes in (the sidebar's "+" on a
    /// project, Settings → Projects → New chat).
    pub draft_project: RwSignal<Option<String>>,
    /// Search text of stored conversations as last read, with the index's `updated_ms` at that
    /// read: opening the search again reads and decodes only bodies that changed since.
    search_cache: StoredValue<HashMap<String, (f64, SearchEntry)>>,
    notices: Notices,
}

impl ConversationsStore {
    pub fn load(notices: Notices) -> Self {
        let store = ConversationsStore {
            index: RwSignal::new(Vec::new()),
            current: RwSignal::new(None),
            unreadable: RwSignal::new(Vec::new()),
            loading: RwSignal::new(None),
            storage: RwSignal::new(StorageStatus::default()),
            bodies: StoredValue::new_local(None),
            write_seq: StoredValue::new(HashMap::new()),
            retry: StoredValue::new(HashSet::new()),
            evicting: StoredValue::new(HashSet::new()),
            channel: StoredValue::new_local(None),
            loaded: StoredValue::new(HashMap::new()),
            owners: StoredValue::new(Owners::new()),
            retiring: StoredValue::new(HashMap::new()),
            recent: StoredValue::new(Vec::new()),
            on_removed: StoredValue::new_local(Vec::new()),
            throttles: StoredValue::new(HashMap::new()),
            timers_armed: StoredValue::new(HashSet::new()),
            live: StoredValue::new(HashSet::new()),
            draft_overrides: RwSignal::new(ToolOverrides::default()),
            draft_mask: RwSignal::new(None),
            draft_project: RwSignal::new(None),
            search_cache: StoredValue::new(HashMap::new()),
            notices,
        };
        store.load_index();
        spawn_local(async move {
            let bodies = match Db::open().await {
                Ok(db) => {
                    let report = migrate::run(&db).await;
                    let stale = clock::now_ms() - persist::DELETED_MARK_KEEP_MS;
                    if let Err(e) = db.forget_deleted_before(stale).await {
                        leptos::logging::warn!("could not forget old deletion marks: {e}");
                    }
                    store.storage.update(|s| {
                        s.backend = Some(Backend::IndexedDb);
                        s.migration = report.problem();
                    });
                    Bodies::Idb(db)
                }
                Err(e) => {
                    store
                        .storage
                        .update(|s| s.backend = Some(Backend::LocalStorage(e.to_string())));
                    Bodies::Local
                }
            };
            store.bodies.set_value(Some(bodies.clone()));
            store.reconcile(&bodies).await;
            store.check_persistence(true).await;
            store.check_quota().await;
        });
        let channel = Channel::open(CHANNEL, move |text| {
            if let Some(change) = BodyChange::decode(&text) {
                store.remote_body_changed(change.id);
            }
        });
        store.channel.set_value(channel);
        store
    }

    /// The bodies, once the database has opened and the migration has run (both settle:
    /// opening fails rather than waits when blocked). Polled, because a shared future cost
    /// more page bytes than these few milliseconds at start are worth.
    /// The database the bodies live in, for the attachments' blob store; `None` when the
    /// bodies fell back to localStorage (no IndexedDB).
    pub async fn idb(&self) -> Option<Db> {
        match self.bodies().await {
            Bodies::Idb(db) => Some(db),
            Bodies::Local => None,
        }
    }

    async fn bodies(&self) -> Bodies {
        loop {
            if let Some(b) = self.bodies.get_value() {
                return b;
            }
            clock::sleep_ms(5).await;
        }
    }

    /// Read the index from localStorage: the sidebar draws from it before any body is read.
    fn load_index(&self) {
        let items = match storage::get(INDEX_KEY) {
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
        self.index.set(items);
    }

    /// Reconcile the index with the bodies actually stored: a body missing from the index (a
    /// write of the index failed) is added back, an entry without a body is dropped. Nothing
    /// stored is ever dropped by this.
    async fn reconcile(&self, bodies: &Bodies) {
        let ids = match bodies.ids().await {
            Ok(ids) => ids,
            Err(e) => {
                self.notices.push(Level::Error, e);
                return;
            }
        };
        let present: HashSet<&str> = ids.iter().map(String::as_str).collect();
        let known: HashSet<String> = self
            .index
            .with_untracked(|items| items.iter().map(|s| s.id.clone()).collect());
        let mut added = Vec::new();
        let mut unreadable = Vec::new();
        for id in ids.iter().filter(|id| !known.contains(*id)) {
            let key = persist::conversation_key(id);
            match bodies.get(id).await {
                Ok(Some(raw)) => match persist::decode_conversation(&raw) {
                    Ok(c) => added.push(c.summary()),
                    Err(e) => unreadable.push(Unreadable {
                        key,
                        error: e.to_string(),
                        raw: Some(raw),
                    }),
                },
                Ok(None) => {}
                Err(error) => unreadable.push(Unreadable {
                    key,
                    error,
                    raw: None,
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
        let held: HashSet<String> = self.loaded.with_value(|m| m.keys().cloned().collect());
        let mut changed = !added.is_empty();
        self.index.update(|items| {
            let before = items.len();
            // A conversation created in this tab since the start is stored by now, or held.
            items.retain(|s| present.contains(s.id.as_str()) || held.contains(&s.id));
            changed |= items.len() != before;
            for s in added {
                if !items.iter().any(|x| x.id == s.id) {
                    items.push(s);
                }
            }
            persist::sort_index(items);
        });
        self.unreadable.update(|u| {
            for x in unreadable {
                if !u.iter().any(|y| y.key == x.key) {
                    u.push(x);
                }
            }
        });
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

    /// Write one body. The request is issued now when the database is open (a write from
    /// `pagehide` must not wait); `done` hears whether it committed. On success the other tabs
    /// are told; on failure the conversation is owed a write (`retry`) and the notice shows.
    fn write_body(&self, id: &str, raw: String, rev: f64, done: Done) {
        let seq = self
            .write_seq
            .try_update_value(|m| {
                let n = m.entry(id.to_string()).or_insert(0);
                *n += 1;
                *n
            })
            .unwrap_or(0);
        let store = *self;
        let id = id.to_string();
        self.retry.update_value(|r| {
            r.insert(id.clone());
        });
        let issued = self
            .bodies
            .with_value(|b| b.as_ref().map(|b| b.put(&id, &raw)));
        // Only the newest write's commit settles what is owed.
        let newest = move |id: &str| store.write_seq.with_value(|m| m.get(id) == Some(&seq));
        spawn_local(async move {
            let result = match issued {
                Some(write) => write.await,
                None => {
                    let bodies = store.bodies().await;
                    // A newer snapshot was asked for meanwhile: it carries all of this one.
                    if !newest(&id) {
                        return done(true);
                    }
                    bodies.put(&id, &raw).await
                }
            };
            match result {
                // Deleted in another tab before this tab heard of it: follow that delete.
                Ok(false) => {
                    store.retry.update_value(|r| {
                        r.remove(&id);
                    });
                    store.apply_remote_conversation(&id, None);
                    done(false);
                }
                Ok(true) => {
                    if newest(&id) {
                        store.retry.update_value(|r| {
                            r.remove(&id);
                        });
                    }
                    store.notices.clear_key(FULL_KEY);
                    store.channel.with_value(|c| {
                        if let Some(c) = c {
                            c.post(
                                &BodyChange {
                                    id,
                                    rev,
                                    deleted: false,
                                }
                                .encode(),
                            );
                        }
                    });
                    done(true);
                }
                Err(e) => {
                    store.retry.update_value(|r| {
                        r.insert(id);
                    });
                    store
                        .notices
                        .push_keyed(Level::Error, e.sentence, Some(FULL_KEY));
                    if e.full {
                        spawn_local(async move { store.check_quota().await });
                    }
                    done(false);
                }
            }
        });
    }

    /// Whether conversation `id` owes a write (throttled, or the newest one not committed).
    fn owes_write(&self, id: &str) -> bool {
        self.throttles
            .with_value(|t| t.get(id).is_some_and(WriteThrottle::is_pending))
            || self.retry.with_value(|r| r.contains(id))
    }

    /// Open a conversation. One in memory opens at once; otherwise `loading` names it while
    /// its body is read, and it opens when read (unless the user has moved on meanwhile).
    pub fn select(&self, id: &str) {
        if let Some(l) = self.loaded.with_value(|m| m.get(id).copied()) {
            self.touch(id);
            self.loading.set(None);
            self.current.set(Some(l));
            return;
        }
        self.current.set(None);
        self.loading.set(Some(id.to_string()));
        let store = *self;
        let id = id.to_string();
        spawn_local(async move {
            let l = store.read_in(&id).await;
            if store.loading.get_untracked().as_deref() != Some(id.as_str()) {
                return;
            }
            store.loading.set(None);
            if let Some(l) = l {
                store.current.set(Some(l));
            }
        });
    }

    /// Show the empty "new chat" view; the conversation is created with its first message.
    pub fn select_none(&self) {
        self.loading.set(None);
        self.current.set(None);
    }

    /// The open conversation's id; `None` as well in the moment after another tab deleted it
    /// and before the store moved on (its handle is disposed then).
    pub fn current_id(&self) -> Option<String> {
        self.current.get_untracked().and_then(|l| l.try_id())
    }

    /// The conversation `id`, read from storage if it is not in memory.
    async fn read_in(&self, id: &str) -> Option<Loaded> {
        if let Some(l) = self.loaded.with_value(|m| m.get(id).copied()) {
            self.touch(id);
            return Some(l);
        }
        let key = persist::conversation_key(id);
        let read = self.bodies().await.get(id).await;
        // Opened by another call while this one read.
        if let Some(l) = self.loaded.with_value(|m| m.get(id).copied()) {
            self.touch(id);
            return Some(l);
        }
        let raw = match read {
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
                self.notices.push(Level::Error, e);
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
                            raw: Some(raw),
                        });
                    }
                });
                self.index.update(|items| items.retain(|s| s.id != id));
                None
            }
        }
    }

    /// Create a conversation in memory and make it current; saved with its first message.
    /// `mask`: the draft's mask, which the conversation keeps a copy of (and its model).
    pub fn create(&self, mask: Option<Mask>) -> Loaded {
        let now = clock::now_ms();
        let mut c = Conversation::new(ids::new_id(), now);
        c.tool_overrides = self.draft_overrides.get_untracked();
        self.draft_overrides.set(ToolOverrides::default());
        if let Some(mask) = mask {
            c.model = mask.model.clone();
            c.mask = Some(mask);
        }
        self.draft_mask.set(None);
        c.project = self.draft_project.get_untracked();
        self.draft_project.set(None);
        let l = self.hold(&c);
        // A conversation still being read must not replace this one when it arrives.
        self.loading.set(None);
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
    /// One that owes a write is written first and released only once that write has
    /// committed (a failed write keeps it in memory, where it is safe).
    fn evict_idle(&self) {
        let current = self.current_id();
        let count = self.loaded.with_value(HashMap::len);
        let in_flight = self.evicting.with_value(HashSet::len);
        let mut excess = count.saturating_sub(MAX_LOADED + in_flight);
        if excess == 0 {
            return;
        }
        let victims: Vec<String> = self.recent.with_value(|r| {
            r.iter()
                .filter(|id| {
                    Some(id.as_str()) != current.as_deref()
                        && !self.is_streaming(id)
                        && !self.evicting.with_value(|e| e.contains(*id))
                })
                .cloned()
                .collect()
        });
        for id in victims {
            if excess == 0 {
                return;
            }
            excess -= 1;
            let owed = self.loaded.with_value(|m| m.get(&id).copied());
            match owed.filter(|_| self.owes_write(&id)) {
                Some(l) => {
                    self.evicting.update_value(|e| {
                        e.insert(id.clone());
                    });
                    let store = *self;
                    self.write_conversation_only_then(
                        &l,
                        Box::new(move |ok| {
                            store.evicting.update_value(|e| {
                                e.remove(&id);
                            });
                            let idle = store.current_id().as_deref() != Some(id.as_str())
                                && !store.is_streaming(&id);
                            if ok && idle {
                                store.release(&id);
                            }
                        }),
                    );
                }
                None => self.release(&id),
            }
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

    /// Stamp a change to `conv`'s own settings (title, pin, model, tool switches, branches,
    /// summary, clear mark) so that, between tabs, the later settings win rather than the
    /// copy saved last (a tab streaming saves every moment).
    fn settings_changed(&self, conv: &Loaded) {
        let now = clock::now_ms();
        conv.meta.update_untracked(|m| m.meta_ms = now);
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
        self.settings_changed(conv);
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
        self.settings_changed(conv);
        self.save(conv);
    }

    /// Delete the message at `at` and what follows it on screen, with the branches hanging
    /// from them (`branches::delete_from`); a sibling of the deleted message takes its place.
    pub fn delete_from(&self, conv: &Loaded, at: usize) {
        let mut messages: Vec<Message> = conv
            .messages
            .with_untracked(|ms| ms.iter().map(LiveMessage::snapshot).collect());
        let mut branches = conv.branches.get_untracked();
        let before = conv.try_snapshot().map(|c| attach::hashes(&c));
        if branches::delete_from(&mut messages, &mut branches, at) == 0 {
            return;
        }
        self.replace_from(conv, at, &messages[at.min(messages.len())..]);
        conv.branches.set(branches);
        self.settings_changed(conv);
        self.save(conv);
        // The deleted messages' files go when nothing else names them (this conversation in
        // memory, which no longer does, is what the sweep reads instead of its stored copy).
        if let Some(freed) = before.filter(|h| !h.is_empty()) {
            let store = *self;
            spawn_local(async move { store.sweep_blobs(freed).await });
        }
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
        let summary = snapshot.summary();
        let store = *self;
        // The index names the conversation once its body is stored.
        self.write_body(
            &snapshot.id,
            persist::encode_conversation(&snapshot),
            now,
            Box::new(move |ok| {
                if !ok {
                    return;
                }
                store.index.update(|items| {
                    match items.iter_mut().find(|s| s.id == summary.id) {
                        Some(s) => *s = summary,
                        None => items.push(summary),
                    }
                    persist::sort_index(items);
                });
                store.write_index();
            }),
        );
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
        self.write_conversation_only_then(conv, Box::new(|_| {}));
    }

    fn write_conversation_only_then(&self, conv: &Loaded, done: Done) {
        // Deleted while streaming: do not resurrect it.
        if !self.holds(conv) {
            return done(false);
        }
        let id = conv.id();
        let now = clock::now_ms();
        conv.meta.update_untracked(|m| m.updated_ms = now);
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
        self.write_body(&snapshot.id, raw, now, done);
    }

    /// Write whatever is owed: throttled writes and failed ones (page being hidden or closed).
    pub fn flush_all(&self) {
        let owed: Vec<String> = self
            .loaded
            .with_value(|m| m.keys().filter(|id| self.owes_write(id)).cloned().collect());
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
                    self.rescue(&l);
                    self.write_conversation_only(&l);
                }
            }
        }
        let owed: Vec<Loaded> = self.loaded.with_value(|m| {
            m.iter()
                .filter(|(id, _)| self.owes_write(id))
                .map(|(_, l)| *l)
                .collect()
        });
        for l in &owed {
            self.rescue(l);
        }
        self.flush_all();
    }

    /// A document being unloaded has its unfinished IndexedDB transactions aborted, so a write
    /// issued from `pagehide` may never land. What is owed is therefore also written,
    /// synchronously, to the conversation's old localStorage key: reads prefer that key, and
    /// the next start merges it into IndexedDB message by message (`migrate`), as it does for
    /// bodies an older Skiff left. Should localStorage be full, the staleness check on load
    /// still marks an answer that was streaming as interrupted.
    fn rescue(&self, conv: &Loaded) {
        if self.bodies.with_value(Option::is_none) || !self.holds(conv) {
            return;
        }
        if self.bodies.with_value(|b| matches!(b, Some(Bodies::Local))) {
            return; // written there by the ordinary write
        }
        let now = clock::now_ms();
        conv.meta.update_untracked(|m| m.updated_ms = now);
        let snapshot = conv.snapshot();
        let _ = storage::set(
            &persist::conversation_key(&snapshot.id),
            &persist::encode_conversation(&snapshot),
        );
    }

    /// Add the conversations of an imported file (`pipeline::import` reads it; this only
    /// stores). Only new ids are added, never over what is stored; each is written before the
    /// index names it, so a storage that fills up midway leaves no entry without its body.
    /// The sentence says what was added, skipped and unreadable.
    /// A full backup's other parts come back with the sentence, for the other stores.
    pub async fn import(&self, text: &str) -> Result<(String, Option<Rest>), String> {
        let mut report = import::read(text, |id| {
            self.index
                .with_untracked(|ix| ix.iter().any(|s| s.id == id))
        })
        .map_err(|e| e.to_string())?;
        let bodies = self.bodies().await;
        let mut stored = Vec::new();
        for c in &report.added {
            if let Err(e) = bodies.revive(&c.id, &persist::encode_conversation(c)).await {
                self.notices
                    .push_keyed(Level::Error, e.sentence, Some(FULL_KEY));
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
                "{} The browser's storage is full: the last {missing} could not be stored (the rest were), and nothing else of the file was imported.",
                report.summary()
            ));
        }
        let rest = report.backup.take();
        Ok((report.summary(), rest))
    }

    /// Every stored conversation's text for search (`pipeline::search`): the copy in memory
    /// where one is loaded (it may be ahead of storage while an answer streams), else the
    /// stored one. Unreadable values are left out; Settings → Storage lists them.
    pub async fn search_corpus(&self) -> Corpus {
        let items = self.index.get_untracked();
        let loaded = |id: &str| self.loaded.with_value(|m| m.get(id).copied());
        let fresh = |s: &ConversationSummary| {
            self.search_cache
                .with_value(|c| c.get(&s.id).is_some_and(|(at, _)| *at == s.updated_ms))
        };
        // Reading every body is the slow part (a thousand conversations: a quarter second), so
        // it happens only when a stored conversation changed since the last search.
        let stored = if items.iter().any(|s| loaded(&s.id).is_none() && !fresh(s)) {
            // Sorted by id (IndexedDB's key order), searched by binary search.
            self.bodies().await.all().await.unwrap_or_default()
        } else {
            Vec::new()
        };
        let entry = |c: Conversation| SearchEntry {
            id: c.id,
            title: c.title,
            updated_ms: c.updated_ms,
            messages: c.messages.into_iter().map(|m| (m.id, m.content)).collect(),
        };
        // Keep only the entries of conversations still listed (one pass over the index).
        let mut old = self
            .search_cache
            .try_update_value(std::mem::take)
            .unwrap_or_default();
        let mut cache = HashMap::with_capacity(items.len());
        for s in &items {
            if let Some(kept) = old.remove(&s.id) {
                cache.insert(s.id.clone(), kept);
            }
        }
        let entries = items
            .iter()
            .filter_map(|s| {
                if let Some(l) = loaded(&s.id) {
                    return l.try_snapshot().map(entry);
                }
                if let Some((at, e)) = cache.get(&s.id) {
                    if *at == s.updated_ms {
                        return Some(e.clone());
                    }
                }
                let at = stored.binary_search_by(|(id, _)| id.cmp(&s.id)).ok()?;
                let e = entry(persist::decode_conversation(&stored[at].1).ok()?);
                cache.insert(s.id.clone(), (s.updated_ms, e.clone()));
                Some(e)
            })
            .collect();
        self.search_cache.set_value(cache);
        Corpus::new(entries)
    }

    /// The user typed a title: it stays until they change it (no generated title replaces it).
    pub fn rename(&self, id: &str, title: &str) {
        self.set_title(id, title, TitleSource::User);
    }

    /// Set a title and say where it came from.
    pub fn set_title(&self, id: &str, title: &str, source: TitleSource) {
        let title = title.trim().to_string();
        let store = *self;
        let id = id.to_string();
        spawn_local(async move {
            if let Some(l) = store.read_in(&id).await {
                l.meta.update(|m| {
                    m.title = title;
                    m.title_source = source;
                });
                store.settings_changed(&l);
                store.save(&l);
            }
        });
    }

    /// Pin a conversation to the top of the sidebar, or unpin it. Saved like any change (the
    /// newer copy wins between tabs), so it also counts as the conversation's latest change.
    pub fn set_pinned(&self, id: &str, pinned: bool) {
        let store = *self;
        let id = id.to_string();
        spawn_local(async move {
            if let Some(l) = store.read_in(&id).await {
                if l.meta.with_untracked(|m| m.pinned != pinned) {
                    l.meta.update(|m| m.pinned = pinned);
                    store.settings_changed(&l);
                    store.save(&l);
                }
            }
        });
    }

    /// Move a conversation into a project (`None`: out of any). It is read in first if it is
    /// not loaded, like a pin.
    pub fn set_project(&self, id: &str, project: Option<String>) {
        let store = *self;
        let id = id.to_string();
        spawn_local(async move {
            if let Some(l) = store.read_in(&id).await {
                if l.meta.with_untracked(|m| m.project != project) {
                    l.meta.update(|m| m.project = project);
                    store.settings_changed(&l);
                    store.save(&l);
                }
            }
        });
    }

    /// Set (or remove) the summary standing in for older messages.
    pub fn set_memory(&self, conv: &Loaded, memory: Option<Memory>) {
        if conv.meta.try_with_untracked(|m| m.memory == memory) != Some(false) {
            return;
        }
        conv.meta.update(|m| m.memory = memory);
        self.settings_changed(conv);
        self.save(conv);
    }

    /// Put the clear-context mark after `after` (`None` removes it): requests from this
    /// conversation carry nothing up to and including that message.
    pub fn set_cleared_after(&self, conv: &Loaded, after: Option<String>) {
        if conv.meta.with_untracked(|m| m.cleared_after == after) {
            return;
        }
        conv.meta.update(|m| m.cleared_after = after);
        self.settings_changed(conv);
        self.save(conv);
    }

    /// Remember which profile and model this conversation uses (the chat header's picker).
    pub fn set_model(&self, conv: &Loaded, model: Option<ModelChoice>) {
        if conv.meta.try_with_untracked(|m| m.model == model) != Some(false) {
            return;
        }
        conv.meta.update(|m| m.model = model);
        self.settings_changed(conv);
        // A conversation with no message yet is saved with its first one.
        if !conv.messages.with_untracked(Vec::is_empty) {
            self.save(conv);
        }
    }

    /// Delete a conversation: gone from the screen and the list at once; its body is deleted
    /// and the other tabs told. Should the delete fail, the body stays stored (listed again at
    /// the next start) and the user is told.
    pub fn delete(&self, id: &str) {
        self.delete_many(&[id.to_string()]);
    }

    /// Delete several (one index write for all of them). The attachments' bytes go with the
    /// last conversation naming them (`blobs.rs`).
    pub fn delete_many(&self, ids: &[String]) {
        let mut freed: Vec<String> = Vec::new();
        for id in ids {
            if let Some(l) = self.loaded.with_value(|m| m.get(id).copied()) {
                if let Some(c) = l.try_snapshot() {
                    freed.extend(attach::hashes(&c));
                }
            }
            self.forget(id);
        }
        self.index
            .update(|items| items.retain(|s| !ids.contains(&s.id)));
        self.write_index();
        let store = *self;
        let ids = ids.to_vec();
        spawn_local(async move {
            let bodies = store.bodies().await;
            for id in ids {
                // What the stored copy names, read before it goes.
                if let Ok(Some(raw)) = bodies.get(&id).await {
                    if let Ok(c) = persist::decode_conversation(&raw) {
                        freed.extend(attach::hashes(&c));
                    }
                }
                match bodies.delete(&id, clock::now_ms()).await {
                    Ok(()) => store.announce_deleted(id),
                    Err(e) => store.notices.push(Level::Error, e),
                }
            }
            store.sweep_blobs(freed).await;
        });
    }

    /// Take a conversation off the screen and out of memory (its body is deleted after).
    fn forget(&self, id: &str) {
        if self.current_id().as_deref() == Some(id) {
            self.current.set(None);
        }
        self.removed(id);
        self.retry.update_value(|r| {
            r.remove(id);
        });
    }

    fn announce_deleted(&self, id: String) {
        self.channel.with_value(|c| {
            if let Some(c) = c {
                let rev = clock::now_ms();
                c.post(
                    &BodyChange {
                        id,
                        rev,
                        deleted: true,
                    }
                    .encode(),
                );
            }
        });
    }

    /// The raw text of a stored value, for downloading unreadable data.
    pub fn raw_value(&self, key: &str) -> Option<String> {
        self.unreadable
            .with_untracked(|u| u.iter().find(|x| x.key == key).and_then(|x| x.raw.clone()))
            .or_else(|| storage::get(key).ok().flatten())
    }

    /// Delete an unreadable value the user has decided to give up.
    pub fn discard_unreadable(&self, key: &str) {
        let store = *self;
        let key = key.to_string();
        spawn_local(async move {
            let gone = match persist::conversation_id_from_key(&key) {
                Some(id) => store.bodies().await.delete(id, clock::now_ms()).await,
                None => storage::remove(&key).map_err(|e| e.to_string()),
            };
            match gone {
                Ok(()) => store.unreadable.update(|u| u.retain(|x| x.key != key)),
                Err(e) => store.notices.push(Level::Error, e),
            }
        });
    }

    /// Switch an MCP server or one of its tools on or off for the open conversation (or for
    /// the next one, in the empty "new chat" view), and save it.
    pub fn set_tool_switch(&self, server_id: &str, tool_name: Option<&str>, enabled: bool) {
        self.change_overrides(|o: &mut ToolOverrides| match tool_name {
            Some(t) => o.set_tool(server_id, t, enabled),
            None => o.set_server(server_id, enabled),
        });
    }

    /// Turn progressive tool discovery on or off for the open conversation (or the next).
    pub fn set_tool_discovery(&self, on: bool) {
        self.change_overrides(|o: &mut ToolOverrides| o.discovery = on);
    }

    fn change_overrides(&self, apply: impl Fn(&mut ToolOverrides)) {
        match self.current.get_untracked() {
            Some(l) => {
                l.tool_overrides.update(apply);
                self.settings_changed(&l);
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
