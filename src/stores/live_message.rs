//! A message as the UI sees it: the fields that change while a reply streams are separate
//! signals, so a token updates `content` of one message and re-renders nothing else.

use std::cell::Cell;

use leptos::prelude::*;
use skiff_core::records::attachment::Attachment;
use skiff_core::records::finish_reason::FinishReason;
use skiff_core::records::message::{Message, MessageStatus, Role, Usage};
use skiff_core::records::speed::AnswerSpeed;
use skiff_core::records::thought::Thought;
use skiff_core::records::tool_call::ToolCallRecord;
use skiff_core::records::tool_mode::ToolMode;
use skiff_core::seam::Progress;

use crate::platform::debug;

/// `window` property holding the number of message handles alive in this tab.
pub const LIVE_COUNT_NAME: &str = "__skiffLiveMessages";

thread_local! {
    static LIVE: Cell<u32> = const { Cell::new(0) };
}

fn publish_count(delta: i32) {
    let n = LIVE.with(|c| {
        let n = c.get().saturating_add_signed(delta);
        c.set(n);
        n
    });
    debug::publish(LIVE_COUNT_NAME, f64::from(n));
}

/// A message handle was created (called by the store, under the message's own owner).
pub(super) fn count_created() {
    publish_count(1);
}

/// A message's owner was cleaned up: its signals are gone.
pub(super) fn count_disposed() {
    publish_count(-1);
}

#[derive(Clone, Copy)]
pub struct LiveMessage {
    pub id: StoredValue<String>,
    pub role: Role,
    pub created_ms: f64,
    pub content: RwSignal<String>,
    pub reasoning: RwSignal<String>,
    /// The thinking the provider sealed, kept to replay (`skiff_core::thinking`). Never shown,
    /// so nothing subscribes: a stored value, not a signal.
    pub thinking: StoredValue<Vec<Thought>>,
    pub status: RwSignal<MessageStatus>,
    pub model: RwSignal<Option<String>>,
    pub usage: RwSignal<Option<Usage>>,
    pub finish_reason: RwSignal<Option<FinishReason>>,
    /// Bumped when `content` is replaced rather than appended to (retry, another tab's copy),
    /// so the incremental markdown view knows to start over.
    pub revision: RwSignal<u32>,
    /// Live speed while streaming in this tab; not persisted.
    pub stats: RwSignal<Option<StreamStats>>,
    /// What the local server does before the first token (loading, reading the prompt),
    /// while this tab waits for it; not persisted.
    pub progress: RwSignal<Option<Progress>>,
    /// How fast the answer came, kept under it (persisted with the message).
    pub speed: RwSignal<Option<AnswerSpeed>>,
    /// The tools this answer called, each rendered as a card; replaced whole when one changes
    /// (a step has a handful of calls, and they change a few times a second at most).
    pub tool_calls: RwSignal<Vec<ToolCallRecord>>,
    pub tool_mode: RwSignal<Option<ToolMode>>,
    /// Files the user attached (set when the message is made), or images the model returned
    /// (appended as they arrive, through [`LiveMessage::add_attachment`]).
    pub attachments: StoredValue<Vec<Attachment>>,
    /// Bumped when `attachments` changes; what a view of them tracks. A counter beside a stored
    /// value costs the page less than a signal of its own type.
    pub attachments_rev: RwSignal<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct StreamStats {
    pub tokens: u32,
    pub tokens_per_second: f64,
}

impl LiveMessage {
    /// Only the conversations store creates message handles (see `conversations::loaded`).
    pub(super) fn from_message(m: &Message) -> Self {
        LiveMessage {
            id: StoredValue::new(m.id.clone()),
            role: m.role,
            created_ms: m.created_ms,
            content: RwSignal::new(m.content.clone()),
            reasoning: RwSignal::new(m.reasoning.clone()),
            thinking: StoredValue::new(m.thinking.clone()),
            status: RwSignal::new(m.status.clone()),
            model: RwSignal::new(m.model.clone()),
            usage: RwSignal::new(m.usage),
            finish_reason: RwSignal::new(m.finish_reason.clone()),
            revision: RwSignal::new(0),
            stats: RwSignal::new(None),
            progress: RwSignal::new(None),
            speed: RwSignal::new(m.speed),
            tool_calls: RwSignal::new(m.tool_calls.clone()),
            tool_mode: RwSignal::new(m.tool_mode),
            attachments: StoredValue::new(m.attachments.clone()),
            attachments_rev: RwSignal::new(0),
        }
    }

    pub fn id(&self) -> String {
        self.id.get_value()
    }

    /// The plain record, read without subscribing (used for saving).
    pub fn snapshot(&self) -> Message {
        Message {
            id: self.id.get_value(),
            role: self.role,
            content: self.content.get_untracked(),
            reasoning: self.reasoning.get_untracked(),
            thinking: self.thinking.get_value(),
            created_ms: self.created_ms,
            model: self.model.get_untracked(),
            status: self.status.get_untracked(),
            usage: self.usage.get_untracked(),
            finish_reason: self.finish_reason.get_untracked(),
            speed: self.speed.get_untracked(),
            tool_calls: self.tool_calls.get_untracked(),
            tool_mode: self.tool_mode.get_untracked(),
            attachments: self.attachments.get_value(),
        }
    }

    /// Take another copy of the same message (from another tab), touching only what differs.
    pub fn apply(&self, m: &Message) {
        let content_differs = self.content.with_untracked(|c| *c != m.content);
        if content_differs {
            let appended = self
                .content
                .with_untracked(|c| m.content.starts_with(c.as_str()));
            self.content.set(m.content.clone());
            if !appended {
                self.revision.update(|r| *r += 1);
            }
        }
        if self.reasoning.with_untracked(|r| *r != m.reasoning) {
            self.reasoning.set(m.reasoning.clone());
        }
        if self.thinking.with_value(|t| *t != m.thinking) {
            self.thinking.set_value(m.thinking.clone());
        }
        if self.status.with_untracked(|s| *s != m.status) {
            self.status.set(m.status.clone());
        }
        if self.model.with_untracked(|x| *x != m.model) {
            self.model.set(m.model.clone());
        }
        if self.usage.get_untracked() != m.usage {
            self.usage.set(m.usage);
        }
        if self.finish_reason.with_untracked(|x| *x != m.finish_reason) {
            self.finish_reason.set(m.finish_reason.clone());
        }
        if self.speed.get_untracked() != m.speed {
            self.speed.set(m.speed);
        }
        if self.tool_calls.with_untracked(|x| *x != m.tool_calls) {
            self.tool_calls.set(m.tool_calls.clone());
        }
        if self.tool_mode.get_untracked() != m.tool_mode {
            self.tool_mode.set(m.tool_mode);
        }
        if self.attachments.with_value(|x| *x != m.attachments) {
            self.set_attachments(m.attachments.clone());
        }
    }

    /// Add an image the model returned.
    pub fn add_attachment(&self, a: Attachment) {
        self.attachments.update_value(|v| v.push(a));
        self.attachments_rev.update(|r| *r += 1);
    }

    fn set_attachments(&self, v: Vec<Attachment>) {
        self.attachments.set_value(v);
        self.attachments_rev.update(|r| *r += 1);
    }

    /// Start this (assistant) message over, for a retry.
    pub fn reset_for_retry(&self, model: Option<String>) {
        self.content.set(String::new());
        self.reasoning.set(String::new());
        self.thinking.set_value(Vec::new());
        self.usage.set(None);
        self.finish_reason.set(None);
        self.stats.set(None);
        self.progress.set(None);
        self.speed.set(None);
        self.tool_calls.set(Vec::new());
        self.tool_mode.set(None);
        self.set_attachments(Vec::new());
        self.model.set(model);
        self.status.set(MessageStatus::Streaming);
        self.revision.update(|r| *r += 1);
    }
}
