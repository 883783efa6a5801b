//! Sending a message and streaming the answer into the conversation.
//!
//! The loop: build the request (core), fetch it (platform), feed each body chunk to the
//! decoder (core), and append what it yields to one [`LiveMessage`]. Signal updates are
//! batched to at most one every [`FLUSH_INTERVAL_MS`], so at 500 tok/s the page re-renders ~20
//! times a second, not 500; storage writes are throttled by the store.
//!
//! Whatever happens, the text already received stays and the message says how it ended.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::chat::{title_from_text, Message, MessageStatus, Role};
use skiff_core::openai::{self, ChatParams, ChatStream, ProviderError, StreamEvent, WireMessage};
use skiff_core::settings::ChatSettings;

use crate::platform::abort::AbortHandle;
use crate::platform::fetch::{self, FetchError};
use crate::platform::{clock, ids, online};
use crate::stores::conversations::{ConversationsStore, Loaded};
use crate::stores::live_message::{LiveMessage, StreamStats};
use skiff_core::http::blocked_as_mixed_content;

const FLUSH_INTERVAL_MS: f64 = 50.0;
const TITLE_CHARS: usize = 48;

/// Tracks the replies streaming in this tab, so Stop can abort them and the composer knows.
#[derive(Clone, Copy)]
pub struct ChatRunner {
    aborts: StoredValue<HashMap<String, AbortHandle>, LocalStorage>,
    /// Conversation ids with a reply streaming in this tab.
    pub sending: RwSignal<Vec<String>>,
}

impl Default for ChatRunner {
    fn default() -> Self {
        Self::new()
    }
}

impl ChatRunner {
    pub fn new() -> Self {
        ChatRunner {
            aborts: StoredValue::new_local(HashMap::new()),
            sending: RwSignal::new(Vec::new()),
        }
    }

    pub fn is_sending(&self, conv_id: &str) -> bool {
        self.sending.with(|s| s.iter().any(|x| x == conv_id))
    }

    /// The user sent `text`: add it (creating the conversation if needed) and stream a reply.
    pub fn send(&self, store: ConversationsStore, settings: ChatSettings, text: String) {
        let text = text.trim_end().to_string();
        if text.trim().is_empty() {
            return;
        }
        let conv = store
            .current
            .get_untracked()
            .unwrap_or_else(|| store.create());
        if self.is_sending(&conv.id()) {
            return;
        }
        let now = clock::now_ms();
        if conv.meta.with_untracked(|m| m.title.is_empty()) {
            conv.meta
                .update(|m| m.title = title_from_text(&text, TITLE_CHARS));
        }
        store.push_message(&conv, &Message::new(ids::new_id(), Role::User, text, now));
        let mut reply = Message::new(ids::new_id(), Role::Assistant, String::new(), now);
        reply.status = MessageStatus::Streaming;
        reply.model = Some(settings.model.clone()).filter(|m| !m.is_empty());
        let live = store.push_message(&conv, &reply);
        store.save(&conv);
        self.stream(store, conv, live, settings);
    }

    /// Regenerate an assistant message: everything after it is dropped, it starts over.
    pub fn retry(&self, store: ConversationsStore, settings: ChatSettings, message: LiveMessage) {
        let Some(conv) = store.current.get_untracked() else {
            return;
        };
        if self.is_sending(&conv.id()) || message.role != Role::Assistant {
            return;
        }
        store.truncate_after(&conv, &message.id());
        message.reset_for_retry(Some(settings.model.clone()).filter(|m| !m.is_empty()));
        store.save(&conv);
        self.stream(store, conv, message, settings);
    }

    /// Stop the reply streaming in this conversation; its partial text is kept.
    pub fn stop(&self, conv_id: &str) {
        if let Some(a) = self.aborts.with_value(|m| m.get(conv_id).cloned()) {
            a.abort();
        }
    }

    fn stream(
        &self,
        store: ConversationsStore,
        conv: Loaded,
        live: LiveMessage,
        settings: ChatSettings,
    ) {
        let conv_id = conv.id();
        let abort = match AbortHandle::new() {
            Ok(a) => a,
            Err(e) => {
                live.status.set(MessageStatus::Error(e.to_string()));
                store.save(&conv);
                return;
            }
        };
        self.aborts.update_value(|m| {
            m.insert(conv_id.clone(), abort.clone());
        });
        self.sending.update(|s| s.push(conv_id.clone()));
        store.set_live(&live.id(), true);
        let runner = *self;
        spawn_local(async move {
            let outcome = run_stream(&store, &conv, live, &settings, &abort).await;
            let status = match outcome {
                Ok(()) => MessageStatus::Done,
                Err(End::Stopped) => MessageStatus::Stopped,
                Err(End::Failed(e)) => MessageStatus::Error(e.to_string()),
            };
            // The page is unloading (see `on_page_hide`): the abort that follows is not the
            // user's Stop, and "interrupted" is what was saved and must stay.
            if live.status.get_untracked() != MessageStatus::Interrupted {
                live.status.set(status);
            }
            store.set_live(&live.id(), false);
            store.save(&conv);
            runner.aborts.update_value(|m| {
                m.remove(&conv_id);
            });
            runner.sending.update(|s| s.retain(|x| *x != conv_id));
        });
    }
}

enum End {
    Stopped,
    Failed(ProviderError),
}

fn fetch_end(e: FetchError) -> End {
    match e {
        FetchError::Aborted => End::Stopped,
        other => End::Failed(provider_error(other)),
    }
}

/// One sentence per failure: the provider error adds the advice, so only the browser's own
/// words travel from the fetch error.
pub(crate) fn provider_error(e: FetchError) -> ProviderError {
    match e {
        FetchError::Network(detail) | FetchError::Browser(detail) => ProviderError::Network(detail),
        FetchError::Stream(_) => ProviderError::StreamCut,
        FetchError::Aborted => ProviderError::Network("the request was cancelled".into()),
    }
}

/// The context sent to the model: the system prompt, then every message before the reply that
/// has text. Reasoning never travels back.
fn wire_messages(settings: &ChatSettings, conv: &Loaded, reply_id: &str) -> Vec<WireMessage> {
    let mut out = Vec::new();
    if !settings.system_prompt.trim().is_empty() {
        out.push(WireMessage {
            role: Role::System,
            content: settings.system_prompt.clone(),
        });
    }
    conv.messages.with_untracked(|ms| {
        for m in ms {
            if m.id.with_value(|id| id == reply_id) {
                break;
            }
            let content = m.content.get_untracked();
            if !content.trim().is_empty() {
                out.push(WireMessage {
                    role: m.role,
                    content,
                });
            }
        }
    });
    out
}

/// Text received but not yet shown; flushed to the message's signals at most every
/// [`FLUSH_INTERVAL_MS`].
#[derive(Default)]
struct Batch {
    content: String,
    reasoning: String,
    tokens: u32,
    total_tokens: u32,
    first_token_ms: Option<f64>,
    last_flush_ms: f64,
    timer_armed: bool,
}

fn flush(batch: &Rc<RefCell<Batch>>, live: LiveMessage, store: &ConversationsStore, conv: &Loaded) {
    let (content, reasoning, stats) = {
        let mut b = batch.borrow_mut();
        let now = clock::now_ms();
        b.last_flush_ms = now;
        b.total_tokens += b.tokens;
        b.tokens = 0;
        let elapsed_s = b.first_token_ms.map(|t| (now - t) / 1000.0).unwrap_or(0.0);
        let rate = if elapsed_s > 0.2 {
            f64::from(b.total_tokens) / elapsed_s
        } else {
            0.0
        };
        let stats = StreamStats {
            tokens: b.total_tokens,
            tokens_per_second: rate,
        };
        (
            std::mem::take(&mut b.content),
            std::mem::take(&mut b.reasoning),
            stats,
        )
    };
    if content.is_empty() && reasoning.is_empty() {
        return;
    }
    if !content.is_empty() {
        live.content.update(|c| c.push_str(&content));
    }
    if !reasoning.is_empty() {
        live.reasoning.update(|r| r.push_str(&reasoning));
    }
    live.stats.set(Some(stats));
    store.save_throttled(conv);
}

fn schedule_flush(
    batch: &Rc<RefCell<Batch>>,
    live: LiveMessage,
    store: ConversationsStore,
    conv: Loaded,
) {
    let now = clock::now_ms();
    let due_in = {
        let mut b = batch.borrow_mut();
        let since = now - b.last_flush_ms;
        if since >= FLUSH_INTERVAL_MS {
            None
        } else if b.timer_armed {
            return;
        } else {
            b.timer_armed = true;
            Some(FLUSH_INTERVAL_MS - since)
        }
    };
    match due_in {
        None => flush(batch, live, &store, &conv),
        Some(ms) => {
            let batch = batch.clone();
            spawn_local(async move {
                clock::sleep_ms(ms.ceil() as u32).await;
                batch.borrow_mut().timer_armed = false;
                flush(&batch, live, &store, &conv);
            });
        }
    }
}

fn apply_events(events: Vec<StreamEvent>, batch: &Rc<RefCell<Batch>>, live: LiveMessage) {
    let mut b = batch.borrow_mut();
    for ev in events {
        match ev {
            StreamEvent::Content(t) => {
                b.first_token_ms.get_or_insert_with(clock::now_ms);
                b.tokens += 1;
                b.content.push_str(&t);
            }
            StreamEvent::Reasoning(t) => {
                b.first_token_ms.get_or_insert_with(clock::now_ms);
                b.tokens += 1;
                b.reasoning.push_str(&t);
            }
            StreamEvent::Usage(u) => live.usage.set(Some(u)),
            StreamEvent::Finish(reason) => live.finish_reason.set(Some(reason)),
            StreamEvent::Done => {}
        }
    }
}

async fn run_stream(
    store: &ConversationsStore,
    conv: &Loaded,
    live: LiveMessage,
    settings: &ChatSettings,
    abort: &AbortHandle,
) -> Result<(), End> {
    let base = openai::validate_base_url(&settings.base_url).map_err(End::Failed)?;
    let params = ChatParams {
        model: settings.model.trim().to_string(),
        temperature: settings.temperature,
        top_p: settings.top_p,
        max_tokens: settings.max_tokens,
    };
    let key = Some(settings.api_key.as_str()).filter(|k| !k.trim().is_empty());
    let messages = wire_messages(settings, conv, &live.id());
    let req = openai::chat_request(&base, key, &params, &messages);

    let mut resp = match fetch::send(&req, Some(abort)).await {
        Ok(resp) => resp,
        // The browser's "Failed to fetch" hides this cause; name it when it applies.
        Err(FetchError::Network(_)) if blocked_as_mixed_content(online::page_is_https(), &base) => {
            return Err(End::Failed(ProviderError::Network(
                "this page is served over https and the provider over plain http, which the browser blocks as mixed content; use an https base URL".into(),
            )));
        }
        Err(e) => return Err(fetch_end(e)),
    };
    if !resp.ok {
        let retry_after = resp
            .header("retry-after")
            .and_then(openai::parse_retry_after);
        let status = resp.status;
        let body = resp.text().await.map_err(fetch_end)?;
        return Err(End::Failed(
            openai::error_from_response(status, &body).with_retry_after(retry_after),
        ));
    }

    let batch = Rc::new(RefCell::new(Batch {
        last_flush_ms: clock::now_ms(),
        ..Batch::default()
    }));
    let mut decoder = ChatStream::new();
    let result = loop {
        match resp.next_chunk().await {
            Ok(Some(bytes)) => match decoder.feed(&bytes) {
                Ok(events) => {
                    apply_events(events, &batch, live);
                    schedule_flush(&batch, live, *store, *conv);
                }
                Err(e) => break Err(End::Failed(e)),
            },
            Ok(None) => match decoder.finish() {
                Ok(events) => {
                    apply_events(events, &batch, live);
                    break Ok(());
                }
                Err(e) => break Err(End::Failed(e)),
            },
            Err(e) => break Err(fetch_end(e)),
        }
    };
    // Whatever arrived is shown and kept, however the stream ended.
    flush(&batch, live, store, conv);
    result
}
