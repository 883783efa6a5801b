//! A conversation held in memory, and the owners its signals live under.
//!
//! Architecture Invariant: every signal of a loaded conversation and of each of its messages
//! is created in this file, under an owner the store holds — one child owner per conversation
//! under the store's root, one child owner per message under its conversation's — never under
//! the component, effect or event handler that happened to ask. Removing a message
//! (regenerate, another tab's copy) or a conversation (delete, another tab's delete, eviction)
//! disposes its owner. `LiveMessage::from_message` is visible to `stores` only, so no other
//! layer can make a message handle the store does not own.
//!
//! Disposal waits one render pass (`stores::owners::dispose_later`).

use std::collections::HashMap;

use leptos::prelude::*;
use skiff_core::records::branch::Branch;
use skiff_core::records::conversation::Conversation;
use skiff_core::records::mask::Mask;
use skiff_core::records::memory::Memory;
use skiff_core::records::message::Message;
use skiff_core::records::model_choice::ModelChoice;
use skiff_core::records::title_source::TitleSource;
use skiff_core::records::tool_overrides::ToolOverrides;

use super::super::live_message::LiveMessage;
use super::super::owners::{dispose_later, store_root};

#[derive(Debug, Clone, PartialEq)]
pub struct Meta {
    pub id: String,
    pub title: String,
    pub created_ms: f64,
    pub updated_ms: f64,
    /// Where the title came from (a typed one is never replaced by a generated one).
    pub title_source: TitleSource,
    /// The clear-context mark: requests carry nothing up to and including this message.
    pub cleared_after: Option<String>,
    /// The summary standing in for older messages (compaction).
    pub memory: Option<Memory>,
    /// The provider profile and model this conversation uses (`None`: the last used).
    pub model: Option<ModelChoice>,
    /// Heads the sidebar; never offered for pruning.
    pub pinned: bool,
    /// When the settings above (or tool switches, branches) last changed: the newer settings
    /// win between tabs (`skiff_core::records::conversation::merge_conversations`). Set by
    /// `ConversationsStore::settings_changed`.
    pub meta_ms: f64,
    /// The mask the conversation started from, as it was then.
    pub mask: Option<Mask>,
    /// The id of the project the conversation is in.
    pub project: Option<String>,
}

/// A conversation held in memory: its metadata and its messages, each a [`LiveMessage`].
/// A `Copy` handle; the store disposes it when the conversation is removed or evicted.
#[derive(Clone, Copy)]
pub struct Loaded {
    pub meta: RwSignal<Meta>,
    /// Read-only outside the store: adding or removing a message goes through
    /// `ConversationsStore`, which creates and disposes the message's owner.
    pub messages: ReadSignal<Vec<LiveMessage>>,
    write_messages: WriteSignal<Vec<LiveMessage>>,
    /// Which MCP servers and tools this conversation may use.
    pub tool_overrides: RwSignal<ToolOverrides>,
    /// Continuations the user moved away from (`skiff_core::branches`). Changed only through
    /// `ConversationsStore`, which also swaps the messages on screen.
    pub branches: RwSignal<Vec<Branch>>,
}

impl Loaded {
    pub fn id(&self) -> String {
        self.meta.with_untracked(|m| m.id.clone())
    }

    /// The id, or `None` once the store has disposed this conversation. Code that may run
    /// after a removal (timers, a turn winding down) asks this instead of [`Loaded::id`].
    pub fn try_id(&self) -> Option<String> {
        self.meta.try_with_untracked(|m| m.id.clone())
    }

    /// The conversation as plain data, or `None` once the store has disposed it (code that
    /// runs after an await asks this).
    pub fn try_snapshot(&self) -> Option<Conversation> {
        self.meta.try_with_untracked(|_| ())?;
        self.messages.try_with_untracked(|_| ())?;
        Some(self.snapshot())
    }

    pub fn snapshot(&self) -> Conversation {
        let meta = self.meta.get_untracked();
        Conversation {
            id: meta.id,
            title: meta.title,
            created_ms: meta.created_ms,
            updated_ms: meta.updated_ms,
            title_source: meta.title_source,
            cleared_after: meta.cleared_after,
            memory: meta.memory,
            model: meta.model,
            pinned: meta.pinned,
            meta_ms: meta.meta_ms,
            mask: meta.mask,
            project: meta.project,
            messages: self
                .messages
                .with_untracked(|ms| ms.iter().map(LiveMessage::snapshot).collect()),
            tool_overrides: self.tool_overrides.get_untracked(),
            branches: self.branches.get_untracked(),
        }
    }

    pub(super) fn set_messages(&self, next: Vec<LiveMessage>) {
        self.write_messages.set(next);
    }

    pub(super) fn update_messages(&self, f: impl FnOnce(&mut Vec<LiveMessage>)) {
        self.write_messages.update(f);
    }
}

/// The owners of one loaded conversation: its own, and one per message (children of it).
/// A parent holds its children weakly, so this table is what keeps each message's owner
/// alive: dropping an entry disposes that message at once.
struct ConvOwners {
    owner: Owner,
    messages: HashMap<String, Owner>,
}

impl ConvOwners {
    fn into_vec(self) -> Vec<Owner> {
        let mut all: Vec<Owner> = self.messages.into_values().collect();
        all.push(self.owner);
        all
    }
}

/// Every owner the conversations store holds. Dropping an entry without [`dispose_later`]
/// would leave disposal to `Drop`, at an arbitrary moment; every removal goes through it.
pub(super) struct Owners {
    root: Owner,
    convs: HashMap<String, ConvOwners>,
}

impl Owners {
    /// A root for the store's signals, child of the owner running now (the app's), so it lives
    /// as long as the app and no longer.
    pub fn new() -> Self {
        Owners {
            root: store_root(),
            convs: HashMap::new(),
        }
    }

    /// Create the handle of conversation `c` and of each of its messages.
    pub fn create(&mut self, c: &Conversation) -> Loaded {
        let owner = self.root.child();
        let (loaded, messages) = owner.with(|| {
            let mut owners = HashMap::new();
            let lives: Vec<LiveMessage> = c
                .messages
                .iter()
                .map(|m| new_message(&owner, &mut owners, m))
                .collect();
            let (messages, write_messages) = signal(lives);
            let loaded = Loaded {
                meta: RwSignal::new(Meta {
                    id: c.id.clone(),
                    title: c.title.clone(),
                    created_ms: c.created_ms,
                    updated_ms: c.updated_ms,
                    title_source: c.title_source,
                    cleared_after: c.cleared_after.clone(),
                    memory: c.memory.clone(),
                    model: c.model.clone(),
                    pinned: c.pinned,
                    meta_ms: c.meta_ms,
                    mask: c.mask.clone(),
                    project: c.project.clone(),
                }),
                messages,
                write_messages,
                tool_overrides: RwSignal::new(c.tool_overrides.clone()),
                branches: RwSignal::new(c.branches.clone()),
            };
            (loaded, owners)
        });
        if let Some(old) = self
            .convs
            .insert(c.id.clone(), ConvOwners { owner, messages })
        {
            dispose_later(old.into_vec());
        }
        loaded
    }

    /// A new message of conversation `conv_id`, owned by that conversation. `None` when the
    /// conversation is not held (deleted meanwhile): the caller must not show or store it.
    pub fn message(&mut self, conv_id: &str, m: &Message) -> Option<LiveMessage> {
        let conv = self.convs.get_mut(conv_id)?;
        let owner = conv.owner.clone();
        Some(owner.with(|| new_message(&owner, &mut conv.messages, m)))
    }

    /// Dispose the messages `ids` of `conv_id` (they were removed from its list).
    pub fn drop_messages(&mut self, conv_id: &str, ids: &[String]) {
        let Some(conv) = self.convs.get_mut(conv_id) else {
            return;
        };
        let gone: Vec<Owner> = ids
            .iter()
            .filter_map(|id| conv.messages.remove(id))
            .collect();
        dispose_later(gone);
    }

    /// Stop holding conversation `id`; its owners (the conversation's and its messages') are
    /// handed back, to be disposed now ([`dispose_later`]) or once its turn has ended.
    pub fn take(&mut self, id: &str) -> Option<Vec<Owner>> {
        self.convs.remove(id).map(ConvOwners::into_vec)
    }
}

fn new_message(parent: &Owner, owners: &mut HashMap<String, Owner>, m: &Message) -> LiveMessage {
    let owner = parent.child();
    let live = owner.with(|| {
        super::super::live_message::count_created();
        Owner::on_cleanup(super::super::live_message::count_disposed);
        LiveMessage::from_message(m)
    });
    if let Some(old) = owners.insert(m.id.clone(), owner) {
        // The same id twice (another tab's copy of a message we also hold): the newer
        // handle wins, the older one goes.
        dispose_later(vec![old]);
    }
    live
}
