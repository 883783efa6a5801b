//! Sending a message and running the answer: the user-facing half of the agent loop.
//!
//! `send`, `retry` and `continue_turn` start a turn (`runner::agent::run_turn`) for one
//! conversation; `stop`, `approve_tool` and `deny_tool` reach the turn in progress. A
//! conversation has at most one turn at a time; `sending` tells the composer which.
//!
//! Whatever happens, the text already received stays and the message says how it ended.
//!
//! The turn itself, titles and summaries run in the `send` chunk (`send_path`), fetched once
//! the page is idle; a turn started before then waits for it here.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use futures::channel::mpsc;
use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::attach::{check_target, left_out_note, withhold};
use skiff_core::pipeline::title;
use skiff_core::records::attachment::Attachment;
use skiff_core::records::conversation::title_from_text;
use skiff_core::records::finish_reason::FinishReason;
use skiff_core::records::message::{Message, MessageStatus, Role};
use skiff_core::records::title_source::TitleSource;
use skiff_core::settings::{ChatSettings, TurnSettings};

use super::agent::{new_reply, TurnDeps, TurnHandle, TurnMsg};
use super::mcp::McpRunner;
use super::send_path::{self, SendPath};
use crate::platform::{clock, ids};
use crate::stores::conversations::{ConversationsStore, Loaded};
use crate::stores::live_message::LiveMessage;
use crate::stores::sent_requests::SentRequests;
use crate::stores::settings::SettingsStore;

pub(crate) use super::step::provider_error;

const TITLE_CHARS: usize = 48;

/// Tracks the turns running in this tab, so Stop and the approval buttons reach them.
#[derive(Clone, Copy)]
pub struct ChatRunner {
    turns: StoredValue<HashMap<String, TurnHandle>, LocalStorage>,
    /// Conversation ids with a turn running in this tab.
    pub sending: RwSignal<Vec<String>>,
    /// The exact request bodies this tab sent ("View request").
    pub sent: SentRequests,
    /// Conversation ids whose title is being generated.
    pub titling: RwSignal<Vec<String>>,
    /// The last failed "regenerate title" (conversation id, sentence), shown beside the
    /// button; an automatic title that fails keeps the first-line title quietly.
    pub title_failure: RwSignal<Option<(String, String)>>,
    /// Conversation ids being summarized (compaction).
    pub compacting: RwSignal<Vec<String>>,
    /// The last failed "Compact now" (conversation id, sentence).
    pub compact_failure: RwSignal<Option<(String, String)>>,
    settings: SettingsStore,
    mcp: McpRunner,
}

impl ChatRunner {
    /// Message handles are the conversations store's (it creates them under its own owners),
    /// so nothing here depends on which view or handler starts a turn.
    pub fn new(settings: SettingsStore, mcp: McpRunner, store: ConversationsStore) -> Self {
        let runner = ChatRunner {
            turns: StoredValue::new_local(HashMap::new()),
            sending: RwSignal::new(Vec::new()),
            sent: SentRequests::new(),
            titling: RwSignal::new(Vec::new()),
            title_failure: RwSignal::new(None),
            compacting: RwSignal::new(Vec::new()),
            compact_failure: RwSignal::new(None),
            settings,
            mcp,
        };
        // Deleted (here or in another tab) while a turn streams into it: stop that turn. The
        // store keeps its messages alive until the turn has ended.
        store.on_removed(move |id| runner.stop(id));
        send_path::preload();
        runner
    }

    /// The settings as they are now (for a request rebuilt to be shown).
    pub fn settings_now(&self) -> ChatSettings {
        self.settings.settings.get_untracked()
    }

    pub fn mcp_runner(&self) -> McpRunner {
        self.mcp
    }

    pub fn is_sending(&self, conv_id: &str) -> bool {
        self.sending.with(|s| s.iter().any(|x| x == conv_id))
    }

    /// The user sent `text`: add it (creating the conversation if needed) and run a turn.
    ///
    /// Attachments the target cannot take (`attach::check_target`) refuse the whole message
    /// before anything is sent or stored; the sentence comes back for the composer to show.
    /// Earlier files it cannot take are left out of the request (`attach::withhold`); the
    /// sentence saying so comes back as `Ok(Some(_))`.
    pub fn send(
        &self,
        store: ConversationsStore,
        settings: ChatSettings,
        text: String,
        mut attachments: Vec<Attachment>,
    ) -> Result<Option<String>, String> {
        let text = text.trim_end().to_string();
        if text.trim().is_empty() && attachments.is_empty() {
            return Ok(None);
        }
        let current = store.current.get_untracked();
        // A new chat from a mask uses the mask's model, if it names one.
        let mask = current
            .is_none()
            .then(|| store.draft_mask.get_untracked())
            .flatten()
            .and_then(|id| skiff_core::masks::find(&settings.masks, &id));
        let choice = match current {
            Some(c) => c.meta.try_with_untracked(|m| m.model.clone()).flatten(),
            None => mask.as_ref().and_then(|m| m.model.clone()),
        };
        let target = settings.for_conversation(choice.as_ref()).target;
        check_target(&target, &attachments).map_err(|e| e.to_string())?;
        let conv = current.unwrap_or_else(|| store.create(mask));
        if self.is_sending(&conv.id()) {
            return Ok(None);
        }
        let mut earlier: Vec<Message> = conv
            .messages
            .with_untracked(|ms| ms.iter().map(LiveMessage::snapshot).collect());
        let note = left_out_note(&target, &withhold(&target, &mut earlier));
        let now = clock::now_ms();
        if conv.meta.with_untracked(|m| m.title.is_empty()) {
            let first = attachments.first().map_or("", |a| a.name.as_str());
            let title = title_from_text(
                if text.trim().is_empty() { first } else { &text },
                TITLE_CHARS,
            );
            conv.meta.update(|m| m.title = title);
        }
        // The record keeps only references; the bytes are in the blob store.
        for a in &mut attachments {
            a.data = None;
        }
        let mut m = Message::new(ids::new_id(), Role::User, text, now);
        m.attachments = attachments;
        if store.push_message(&conv, &m).is_some() {
            self.start_reply(store, conv, settings);
        }
        Ok(note)
    }

    /// The open conversation ends with a question nobody sent through the box (an inserted
    /// MCP prompt, `runner::prompts`): the model answers it, as it answers a sent message.
    pub fn answer_current(&self, store: ConversationsStore, settings: ChatSettings) {
        let Some(conv) = store.current.get_untracked() else {
            return;
        };
        if self.is_sending(&conv.id()) {
            return;
        }
        self.start_reply(store, conv, settings);
    }

    /// "Regenerate" a finished answer: the answer (every step of its turn) is kept as a branch
    /// and a new one is written beside it (‹ 2/2 ›).
    pub fn regenerate(
        &self,
        store: ConversationsStore,
        settings: ChatSettings,
        message: LiveMessage,
    ) {
        let Some(conv) = store.current.get_untracked() else {
            return;
        };
        if self.is_sending(&conv.id()) || message.role != Role::Assistant {
            return;
        }
        let id = message.id();
        // The answer starts after the question it answers.
        let at = conv.messages.with_untracked(|ms| {
            let pos = ms.iter().position(|m| m.id.with_value(|x| *x == id))?;
            let question = ms[..pos].iter().rposition(|m| m.role == Role::User)?;
            Some(question + 1)
        });
        let Some(at) = at else {
            return;
        };
        store.fork_at(&conv, at);
        self.start_reply(store, conv, settings);
    }

    /// Send an edited question: the old question and everything after it are kept as a branch.
    pub fn edit_and_resend(
        &self,
        store: ConversationsStore,
        settings: ChatSettings,
        message: LiveMessage,
        text: String,
    ) {
        let text = text.trim_end().to_string();
        let Some(conv) = store.current.get_untracked() else {
            return;
        };
        if text.trim().is_empty() || self.is_sending(&conv.id()) || message.role != Role::User {
            return;
        }
        let id = message.id();
        let Some(at) = conv
            .messages
            .with_untracked(|ms| ms.iter().position(|m| m.id.with_value(|x| *x == id)))
        else {
            return;
        };
        store.fork_at(&conv, at);
        let now = clock::now_ms();
        let mut m = Message::new(ids::new_id(), Role::User, text, now);
        m.attachments = message.attachments.get_value();
        if store.push_message(&conv, &m).is_none() {
            return;
        }
        self.start_reply(store, conv, settings);
    }

    /// Regenerate an assistant message: everything after it is dropped, it starts over.
    pub fn retry(&self, store: ConversationsStore, settings: ChatSettings, message: LiveMessage) {
        let Some(conv) = store.current.get_untracked() else {
            return;
        };
        if self.is_sending(&conv.id()) || message.role != Role::Assistant {
            return;
        }
        let turn = self.resolve(&store, &conv, &settings);
        store.truncate_after(&conv, &message.id());
        message.reset_for_retry(Some(turn.settings.target.model.clone()).filter(|m| !m.is_empty()));
        store.save(&conv);
        self.start_turn(store, conv, message, turn, false);
    }

    /// Continue: a turn that ended at the step limit goes on with a new step (the model gets
    /// the last results); a stopped or cut-off answer goes on in the same message, the model
    /// carrying on from its words, so the answer reads as one.
    pub fn continue_turn(
        &self,
        store: ConversationsStore,
        settings: ChatSettings,
        message: LiveMessage,
    ) {
        let Some(conv) = store.current.get_untracked() else {
            return;
        };
        if self.is_sending(&conv.id()) {
            return;
        }
        let next_step = message.finish_reason.get_untracked() == Some(FinishReason::StepLimit)
            || message.tool_calls.with_untracked(|c| !c.is_empty());
        // The notice belongs to the stop, not to the answer: the turn goes on from here.
        message.finish_reason.set(None);
        store.truncate_after(&conv, &message.id());
        if next_step {
            self.start_reply(store, conv, settings);
            return;
        }
        let turn = self.resolve(&store, &conv, &settings);
        message.usage.set(None);
        message.stats.set(None);
        message.status.set(MessageStatus::Streaming);
        store.save(&conv);
        self.start_turn(store, conv, message, turn, true);
    }

    /// The user allowed a tool call waiting in `message_id`; `remember` makes it "always
    /// allow" for that server and tool.
    pub fn approve_tool(&self, message_id: &str, call_id: &str, remember: bool) {
        self.broadcast(|| TurnMsg::Approve {
            message_id: message_id.to_string(),
            call_id: call_id.to_string(),
            remember,
        });
    }

    /// The user refused a tool call; `remember` makes it "never" for that server and tool.
    pub fn deny_tool(&self, message_id: &str, call_id: &str, remember: bool) {
        self.broadcast(|| TurnMsg::Deny {
            message_id: message_id.to_string(),
            call_id: call_id.to_string(),
            remember,
        });
    }

    /// Stop the turn running in this conversation: the model request is aborted, tool calls
    /// in flight are cancelled on their servers, and the partial text is kept.
    pub fn stop(&self, conv_id: &str) {
        if let Some(t) = self.turns.with_value(|m| m.get(conv_id).cloned()) {
            t.stop();
        }
    }

    /// Ask the model for a title when one is due (`pipeline::title::due`), with the settings
    /// of the turn that just ended.
    fn maybe_title(&self, store: ConversationsStore, conv: Loaded, turn: TurnSettings) {
        let Some(snapshot) = conv.try_snapshot() else {
            return;
        };
        if title::due(
            &snapshot.messages,
            snapshot.title_source,
            turn.settings.auto_title,
            2,
        ) {
            self.title_now(store, conv, turn, false);
        }
    }

    /// Summarize the older messages when core says it is due (`pipeline::memory::due`), with
    /// the settings of the turn that just ended.
    fn maybe_compact(
        &self,
        path: &SendPath,
        store: ConversationsStore,
        conv: Loaded,
        turn: TurnSettings,
    ) {
        let Some(snapshot) = conv.try_snapshot() else {
            return;
        };
        if (path.compact_due)(self.mcp, &snapshot, &turn) {
            self.compact_now(store, conv, turn, false);
        }
    }

    /// "Compact now": summarize everything before the newest question.
    pub fn compact(&self, store: ConversationsStore, settings: ChatSettings) {
        if let Some(conv) = store.current.get_untracked() {
            let turn = for_conv(&settings, &conv);
            self.compact_now(store, conv, turn, true);
        }
    }

    fn compact_now(
        &self,
        store: ConversationsStore,
        conv: Loaded,
        turn: TurnSettings,
        asked: bool,
    ) {
        let runner = *self;
        let work = async move {
            let path = send_path::load().await.map_err(|e| e.to_string())?;
            (path.summarize)(turn, conv)
                .await
                .map_err(|e| e.to_string())
        };
        side_task(
            &conv,
            self.compacting,
            self.compact_failure,
            asked,
            work,
            move |id, outcome| match outcome {
                Ok(Some(memory)) => store.set_memory(&conv, Some(memory)),
                Ok(None) if asked => runner.compact_failure.set(Some((
                    id,
                    "Nothing to compact yet: only the newest exchange is here.".into(),
                ))),
                Err(e) if asked => runner
                    .compact_failure
                    .set(Some((id, format!("Could not compact: {e}")))),
                Ok(None) | Err(_) => {
                    leptos::logging::log!("automatic compaction skipped: {outcome:?}");
                }
            },
        );
    }

    /// "Regenerate title": ask again, whatever the title's source.
    pub fn regenerate_title(&self, store: ConversationsStore, settings: ChatSettings) {
        if let Some(conv) = store.current.get_untracked() {
            let turn = for_conv(&settings, &conv);
            self.title_now(store, conv, turn, true);
        }
    }

    fn title_now(&self, store: ConversationsStore, conv: Loaded, turn: TurnSettings, asked: bool) {
        let runner = *self;
        let work = async move {
            let path = send_path::load().await.map_err(|e| e.to_string())?;
            (path.title)(turn.settings, conv)
                .await
                .map_err(|e| e.to_string())
        };
        side_task(
            &conv,
            self.titling,
            self.title_failure,
            asked,
            work,
            move |id, outcome| {
                let source = conv.meta.try_with_untracked(|m| m.title_source);
                match outcome {
                    // A title the user typed meanwhile wins over an automatic one.
                    Ok(Some(t)) if asked || source == Some(TitleSource::FirstLine) => {
                        store.set_title(&id, &t, TitleSource::Generated);
                    }
                    Ok(Some(_)) => {}
                    Ok(None) if asked => runner.title_failure.set(Some((
                        id,
                        "The model's answer held no usable title; the old one is kept.".into(),
                    ))),
                    Err(e) if asked => runner
                        .title_failure
                        .set(Some((id, format!("No new title: {e}")))),
                    Ok(None) | Err(_) => {
                        leptos::logging::log!("automatic title skipped: {outcome:?}");
                    }
                }
            },
        );
    }

    /// Only the turn showing `message_id` acts on it; the others ignore it.
    fn broadcast(&self, msg: impl Fn() -> TurnMsg) {
        let handles: Vec<TurnHandle> = self.turns.with_value(|m| m.values().cloned().collect());
        for h in handles {
            let _ = h.tx.unbounded_send(msg());
        }
    }

    /// The settings of a turn of `conv`, resolved once (`TurnSettings::resolve`: its model,
    /// mask and project). A conversation that chose nothing keeps what it used from now on,
    /// and what it used becomes the last used.
    fn resolve(
        &self,
        store: &ConversationsStore,
        conv: &Loaded,
        settings: &ChatSettings,
    ) -> TurnSettings {
        let turn = for_conv(settings, conv);
        let target = &turn.settings.target;
        if !target.profile_id.is_empty() {
            let used = target.choice();
            if conv.meta.try_with_untracked(|m| m.model.is_none()) == Some(true) {
                store.set_model(conv, Some(used.clone()));
            }
            self.settings.settings.maybe_update(|s| s.use_choice(used));
        }
        turn
    }

    fn start_reply(&self, store: ConversationsStore, conv: Loaded, settings: ChatSettings) {
        let turn = self.resolve(&store, &conv, &settings);
        if let Some(live) = new_reply(&store, &conv, &turn.settings) {
            self.start_turn(store, conv, live, turn, false);
        }
    }

    /// Run a turn into `live`; `extends`: it already holds the start of the answer
    /// (`run_turn`).
    fn start_turn(
        &self,
        store: ConversationsStore,
        conv: Loaded,
        live: LiveMessage,
        turn: TurnSettings,
        extends: bool,
    ) {
        let conv_id = conv.id();
        let (tx, mut rx) = mpsc::unbounded();
        let handle = TurnHandle {
            tx,
            abort: Rc::new(RefCell::new(None)),
        };
        self.turns.update_value(|m| {
            m.insert(conv_id.clone(), handle.clone());
        });
        self.sending.update(|s| s.push(conv_id.clone()));
        let runner = *self;
        let deps = TurnDeps {
            store,
            settings: self.settings,
            mcp: self.mcp,
            sent: self.sent,
        };
        spawn_local(async move {
            // Usually fetched when the page was idle; a message sent sooner waits for it here.
            match send_path::load().await {
                // Stop pressed while it loaded: nothing was sent, and nothing will be.
                Ok(_) if stopped_while_loading(&mut rx) => {
                    live.status.set(MessageStatus::Stopped);
                    store.save(&conv);
                }
                Ok(path) => {
                    (path.run_turn)(deps, conv, live, turn.clone(), handle, rx, extends).await;
                    runner.maybe_title(store, conv, turn.clone());
                    runner.maybe_compact(path, store, conv, turn);
                }
                // Nothing was sent: the answer says why, and its Retry loads the chunk again
                // (the loader keeps only a success). The question stays as it was.
                Err(failure) => {
                    live.status.set(MessageStatus::Error(failure.to_string()));
                    store.save(&conv);
                }
            }
            // A conversation deleted during the turn is disposed only now.
            store.turn_ended(&conv_id);
            runner.turns.update_value(|m| {
                m.remove(&conv_id);
            });
            runner.sending.update(|s| s.retain(|x| *x != conv_id));
        });
    }
}

/// Whether Stop reached a turn before it began (while its chunk loaded). Nothing else can
/// be waiting then: approvals and tool results follow the turn's own requests.
fn stopped_while_loading(rx: &mut mpsc::UnboundedReceiver<TurnMsg>) -> bool {
    while let Ok(msg) = rx.try_recv() {
        if matches!(msg, TurnMsg::Stop) {
            return true;
        }
    }
    false
}

/// The settings of a turn of `conv`: its model, mask and project, resolved once in core
/// (side requests go where its turns go).
pub fn for_conv(settings: &ChatSettings, conv: &Loaded) -> TurnSettings {
    let (choice, mask, project) = conv
        .meta
        .try_with_untracked(|m| (m.model.clone(), m.mask.clone(), m.project.clone()))
        .unwrap_or_default();
    TurnSettings::resolve(settings, choice.as_ref(), mask.as_ref(), project.as_deref())
}

/// One side request (a title, a summary) for `conv` at a time per kind: marks the conversation
/// in `busy` while it runs, clears the last failure when the user asked, and hands the outcome
/// to `done` when it ends.
fn side_task<T: 'static>(
    conv: &Loaded,
    busy: RwSignal<Vec<String>>,
    failure: RwSignal<Option<(String, String)>>,
    asked: bool,
    work: impl std::future::Future<Output = T> + 'static,
    done: impl FnOnce(String, T) + 'static,
) {
    let Some(id) = conv.try_id() else {
        return;
    };
    if busy.with_untracked(|t| t.contains(&id)) {
        return;
    }
    busy.update(|t| t.push(id.clone()));
    if asked {
        failure.set(None);
    }
    spawn_local(async move {
        let outcome = work.await;
        busy.update(|t| t.retain(|x| *x != id));
        done(id, outcome);
    });
}
