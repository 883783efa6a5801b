//! Streaming one model request into one assistant message, through whichever provider the
//! settings chose: the request, the stream decoder and the reading of an error answer all come
//! from the `skiff_core::provider::Provider` value, so nothing here knows a wire format.
//!
//! Signal updates are batched to at most one every [`FLUSH_INTERVAL_MS`], so at 500 tok/s the
//! page re-renders ~20 times a second, not 500; storage writes are throttled by the store.
//! Tool-call fragments go to the agent machine as they arrive, untouched by batching.
//! Whatever happens, the text already received stays in the message.

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::{select, Either};
use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::agent::AgentRun;
use skiff_core::http::{blocked_as_mixed_content, HttpRequest};
use skiff_core::provider::{unanswered, Provider, ProviderError, StreamEvent};
use skiff_core::records::speed::AnswerSpeed;
use skiff_core::seam::image_out::{self, ImageOut};
use skiff_core::thinking::ThoughtLog;

use crate::platform::abort::AbortHandle;
use crate::platform::fetch::{self, FetchError};
use crate::platform::{clock, online};
use crate::runner::attach;
use crate::stores::conversations::{ConversationsStore, Loaded};
use crate::stores::live_message::{LiveMessage, StreamStats};

const FLUSH_INTERVAL_MS: f64 = 50.0;

/// How a request ended when it did not end well.
pub enum End {
    Stopped,
    Failed(ProviderError),
    /// The server refused before streaming. `rejects_tools`: the provider read the refusal as
    /// "this server takes no tools" (auto tool mode then retries prompt-based).
    Refused {
        rejects_tools: bool,
        error: ProviderError,
    },
}

impl End {
    pub fn into_error(self) -> Option<ProviderError> {
        match self {
            End::Stopped => None,
            End::Failed(e) | End::Refused { error: e, .. } => Some(e),
        }
    }
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
        FetchError::RedirectRefused { to } => ProviderError::RedirectRefused { to },
    }
}

/// Text received but not yet shown; flushed to the message's signals at most every
/// [`FLUSH_INTERVAL_MS`].
#[derive(Default)]
struct Batch {
    content: String,
    reasoning: String,
    /// Follows thinking to its seal; not flushed, since a seal may come many batches later.
    thoughts: ThoughtLog,
    tokens: u32,
    total_tokens: u32,
    first_token_ms: Option<f64>,
    /// The server sent its own timings (llama.cpp's `timings`): the page's clock is not needed.
    timed: bool,
    last_flush_ms: f64,
    timer_armed: bool,
}

fn flush(batch: &Rc<RefCell<Batch>>, live: LiveMessage, store: &ConversationsStore, conv: &Loaded) {
    if batch.borrow().content.is_empty() && batch.borrow().reasoning.is_empty() {
        // Nothing to show (a role-only chunk, a tool-call fragment): the next text must not
        // wait a batch interval for this empty flush.
        return;
    }
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
    // The answer has begun: what the server did before it is no longer news.
    if live.progress.with_untracked(Option::is_some) {
        live.progress.set(None);
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

/// Apply `events` to the batch, the message and the agent machine; the images among them come
/// back, for the caller to store (which is async).
fn apply_events(
    events: Vec<StreamEvent>,
    batch: &Rc<RefCell<Batch>>,
    live: LiveMessage,
    run: &RefCell<AgentRun>,
) -> Vec<ImageOut> {
    let mut images = Vec::new();
    let mut b = batch.borrow_mut();
    for ev in events {
        if let Some(thought) = b.thoughts.on_event(&ev) {
            live.thinking.update_value(|t| t.push(thought));
        }
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
            // Only before the answer begins: a late one must not cover the tok/s line.
            StreamEvent::Progress(p) if b.first_token_ms.is_none() => {
                live.progress.set(Some(p));
            }
            StreamEvent::Progress(_) => {}
            StreamEvent::Timings(t) => {
                b.timed = true;
                live.speed.set(Some(t));
            }
            StreamEvent::Finish(reason) => live.finish_reason.set(Some(reason.into())),
            ev @ StreamEvent::ToolCall(_) => {
                b.first_token_ms.get_or_insert_with(clock::now_ms);
                b.tokens += 1;
                run.borrow_mut().on_event(&ev);
            }
            StreamEvent::Image(image) => {
                b.first_token_ms.get_or_insert_with(clock::now_ms);
                images.push(image);
            }
            StreamEvent::Done
            | StreamEvent::ReasoningSignature(_)
            | StreamEvent::RedactedReasoning(_) => {}
        }
    }
    images
}

/// A server that timed nothing still gets its decode speed kept under the answer, from the
/// page's clock: the tokens it counted (its own count when it sent one) since the first.
fn keep_measured_speed(b: &Batch, live: LiveMessage) {
    if b.timed {
        return;
    }
    let Some(first) = b.first_token_ms else {
        return;
    };
    let tokens = live
        .usage
        .get_untracked()
        .map(|u| u.completion_tokens)
        .filter(|n| *n > 0)
        .unwrap_or(b.total_tokens + b.tokens);
    if let Some(speed) = AnswerSpeed::measured(tokens, clock::now_ms() - first) {
        live.speed.set(Some(speed));
    }
}

/// Store the images a chunk brought; one that cannot be stored is a sentence in the answer,
/// after the text before it (it joins the batch).
async fn keep_images(
    images: Vec<ImageOut>,
    batch: &Rc<RefCell<Batch>>,
    live: LiveMessage,
    store: &ConversationsStore,
    conv: &Loaded,
) {
    for image in images {
        if let Err(e) = attach::keep_returned(*store, *conv, live, image).await {
            batch.borrow_mut().content += &image_out::note(&e);
        }
    }
}

/// Send `req` (built by `provider`) and stream its answer into `live` with the provider's
/// decoder.
pub async fn stream_step(
    store: &ConversationsStore,
    conv: &Loaded,
    live: LiveMessage,
    provider: &Provider,
    req: &HttpRequest,
    abort: &AbortHandle,
    run: &RefCell<AgentRun>,
) -> Result<(), End> {
    let online = online::is_online();
    if let Some(refusal) = provider.refusal_before_send(online) {
        return Err(End::Failed(refusal));
    }
    let mut resp = match fetch::send(req, Some(abort)).await {
        Ok(resp) => resp,
        // The browser's "Failed to fetch" hides this cause; name it when it applies.
        Err(FetchError::Network(_))
            if blocked_as_mixed_content(online::page_is_https(), provider.base_url()) =>
        {
            return Err(End::Failed(ProviderError::Network(
                "this page is served over https and the provider over plain http, which the browser blocks as mixed content; use an https base URL".into(),
            )));
        }
        Err(FetchError::Network(detail)) => {
            // A probe tells CORS from a server that is down; the in-page model has neither.
            let reached = online
                && provider.kind().is_remote()
                && fetch::reachable(&req.url, Some(abort)).await;
            if abort.is_aborted() {
                return Err(End::Stopped);
            }
            return Err(End::Failed(unanswered(
                req,
                &fetch::page_origin(),
                reached,
                online,
                detail,
            )));
        }
        Err(e) => return Err(fetch_end(e)),
    };
    if !resp.ok {
        // Owned: reading the body consumes the response.
        let retry_after = resp.header("retry-after").map(str::to_string);
        let status = resp.status;
        let body = resp.text().await.map_err(fetch_end)?;
        let error = provider.error_from_response(status, &body, retry_after.as_deref());
        return Err(End::Refused {
            rejects_tools: provider.rejects_tools(status, &body),
            error,
        });
    }

    // The first text is shown as soon as it arrives (no batch interval to wait out); later
    // text is batched to one signal update per FLUSH_INTERVAL_MS.
    let batch = Rc::new(RefCell::new(Batch {
        last_flush_ms: f64::NEG_INFINITY,
        ..Batch::default()
    }));
    let mut decoder = provider.decoder();
    let silence_ms = provider.silence_limit_ms().ceil().min(f64::from(u32::MAX)) as u32;
    // Before the first byte the server may still be reading a long prompt; once the answer
    // has started, a silence longer than the limit is a stalled stream (the provider decides
    // the limit; here it is only timed).
    let mut started = false;
    let result = loop {
        let next = if started {
            let read = Box::pin(resp.next_chunk());
            let quiet = Box::pin(clock::sleep_ms(silence_ms));
            match select(read, quiet).await {
                Either::Left((next, _)) => next,
                Either::Right(_) => {
                    abort.abort();
                    break Err(End::Failed(provider.stalled()));
                }
            }
        } else {
            resp.next_chunk().await
        };
        // One place applies what a chunk (or the end) decoded: the images are stored from
        // one await point, not one per arm.
        let (events, last) = match next {
            Ok(Some(bytes)) => match decoder.feed(&bytes) {
                Ok(events) => {
                    started = true;
                    (events, false)
                }
                Err(e) => break Err(End::Failed(e)),
            },
            Ok(None) => match decoder.finish() {
                Ok(events) => (events, true),
                Err(e) => break Err(End::Failed(e)),
            },
            Err(e) => break Err(fetch_end(e)),
        };
        let images = apply_events(events, &batch, live, run);
        keep_images(images, &batch, live, store, conv).await;
        if last {
            break Ok(());
        }
        schedule_flush(&batch, live, *store, *conv);
    };
    // Whatever arrived is shown and kept, however the stream ended.
    flush(&batch, live, store, conv);
    live.progress.set(None);
    keep_measured_speed(&batch.borrow(), live);
    result
}
