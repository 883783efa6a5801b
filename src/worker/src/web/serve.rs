//! Answers fetch-imitation requests one at a time: `/models` from the sidecars,
//! `/chat/completions` by loading the model (once) and streaming SSE, yielding to the event
//! loop between tokens so an abort stops the generation within one token.

use super::add;
use super::js::{self, now_ms, wasm_memory_bytes, yield_now};
use super::opfs;
use super::{send, Pending, Shared};
use crate::api_error::ApiError;
use crate::engine::{select_model, Engine, Prepared};
use crate::progress_reader::ProgressReader;
use crate::request::{apply_model_defaults, parse_chat_request, ChatRequest};
use crate::sse::SseWriter;
use crate::store::{self, Generating, JobKind, Loaded, ModelRecord};
use skiff_core::model_panel::FromWorker;
use wasm_bindgen::JsValue;

fn head(id: u64, status: u16, sse: bool) {
    // The page builds a real Response with this status and type, as a server would send it.
    send(&FromWorker::Head { id, status, sse });
}

fn chunk(id: u64, text: &str) {
    send(&FromWorker::Chunk {
        id,
        text: text.to_string(),
    });
}

fn end(id: u64) {
    send(&FromWorker::End { id });
}

fn answer_error(id: u64, e: &ApiError) {
    head(id, e.status(), false);
    chunk(id, &e.body());
    end(id);
}

/// Runs queued requests until none is left.
pub(crate) async fn pump(state: &Shared) {
    loop {
        let next = state.borrow_mut().queue.start_next();
        let Some((id, pending)) = next else {
            state.borrow_mut().pumping = false;
            return;
        };
        serve(state, id, pending).await;
        let mut s = state.borrow_mut();
        s.queue.finish(id);
        s.aborted.remove(&id);
        s.generating = None;
        // Memory only grows, so this is the peak so far with this model loaded.
        if let Some(l) = s.loaded.as_mut() {
            l.bytes = wasm_memory_bytes();
        }
        s.post_state();
    }
}

async fn serve(state: &Shared, id: u64, pending: Pending) {
    let path = pending.path.trim_start_matches("/v1");
    match path {
        "/models" => {
            let body = store::models_list_json(&state.borrow().models);
            head(id, 200, false);
            chunk(id, &body);
            end(id);
        }
        "/chat/completions" => {
            if let Err(e) = chat(state, id, &pending.body).await {
                answer_error(id, &e);
            }
        }
        other => answer_error(id, &ApiError::NotFound(other.to_string())),
    }
}

/// Errors before the first byte become an error response; after it, an SSE error event.
/// When the model must be loaded first, the stream starts before the load (after the
/// prompt is checked against the context, which needs only the header), so the chat shows
/// the load's progress instead of waiting in silence.
async fn chat(state: &Shared, id: u64, body: &str) -> Result<(), ApiError> {
    let mut req = parse_chat_request(body)?;
    let record = {
        let s = state.borrow();
        if let Some(why) = &s.dir_error {
            return Err(ApiError::Engine(why.to_string()));
        }
        select_model(&s.models, &req.model)?.clone()
    };
    apply_model_defaults(&mut req, body, &record);
    let sse = SseWriter::new(id, &record.id);
    let Some((mut engine, streaming)) = ensure_loaded(state, &record, id, &req, &sse).await? else {
        return Ok(());
    };
    let started = engine.start(id, &req, now_ms());
    let mut completion = match started {
        Ok(c) => c,
        Err(e) => {
            give_back(state, engine);
            if streaming {
                stream_error(id, &e);
                return Ok(());
            }
            return Err(e);
        }
    };
    {
        let mut s = state.borrow_mut();
        s.generating = Some(Generating {
            model: record.id.clone(),
            id,
        });
        s.post_state();
    }
    if !streaming {
        head(id, 200, true);
    }
    let mut failed = false;
    loop {
        if state.borrow().aborted.contains(&id) {
            break;
        }
        let (model, tokenizer) = engine.model_mut();
        match completion.step(model, tokenizer, now_ms) {
            Ok(progress) => {
                if !progress.sse.is_empty() {
                    chunk(id, &progress.sse);
                }
                if progress.done {
                    break;
                }
            }
            Err(e) => {
                failed = true;
                chunk(id, &format!("data: {}\n\n", ApiError::from(e).body()));
                break;
            }
        }
        yield_now().await;
    }
    end(id);
    engine.settle(&completion, failed);
    give_back(state, engine);
    Ok(())
}

/// An error after the stream started: an SSE error chunk, then the end.
fn stream_error(id: u64, e: &ApiError) {
    chunk(id, &format!("data: {}\n\n", e.body()));
    end(id);
}

/// Returns the engine to the state, unless its model was deleted or reconfigured meanwhile.
fn give_back(state: &Shared, engine: Engine) {
    let mut s = state.borrow_mut();
    if std::mem::take(&mut s.drop_engine) {
        s.loaded = None;
        drop(engine);
    } else {
        s.engine = Some(engine);
    }
}

/// The engine for `record`, loading it if needed, and whether the SSE stream has started
/// (it starts before a load, which then streams `load_progress` chunks). The previous model
/// is dropped first so two never share the memory. `Ok(None)`: the load failed after the
/// stream started, and the failure was sent as an SSE error (the request is answered).
async fn ensure_loaded(
    state: &Shared,
    record: &ModelRecord,
    id: u64,
    req: &ChatRequest,
    sse: &SseWriter,
) -> Result<Option<(Engine, bool)>, ApiError> {
    {
        let mut s = state.borrow_mut();
        s.drop_engine = false;
        if let Some(engine) = s.engine.take() {
            let same = engine.record().id == record.id && engine.record().context == record.context;
            if same {
                return Ok(Some((engine, false)));
            }
            drop(engine);
            s.loaded = None;
            s.post_state();
        }
    }
    let dir = state.borrow().dir.clone().ok_or(ApiError::NoModelStored)?;
    let started = now_ms();
    let unreadable = |e: JsValue| {
        ApiError::Engine(format!(
            "The stored model could not be opened: {}.",
            super::js::error_text(&e).trim_end_matches('.')
        ))
    };
    let handle = opfs::file(&dir, &format!("{}.gguf", record.id), false)
        .await
        .map_err(unreadable)?;
    let sync = opfs::sync_handle(&handle).await.map_err(unreadable)?;
    let mut reader = opfs::SyncReader::new(sync).map_err(unreadable)?;
    let total = reader.size();
    // The header alone (tokenizer, template) says whether the prompt fits: a refusal is
    // an HTTP error, as from any server, before anything streams.
    let prepared = {
        let mut buffered = std::io::BufReader::with_capacity(1 << 20, &mut reader);
        Prepared::read(&mut buffered, record).and_then(|p| p.prompt(&req.messages).map(|_| p))
    };
    let prepared = match prepared {
        Ok(p) => p,
        Err(e) => {
            reader.close();
            return Err(e);
        }
    };
    head(id, 200, true);
    chunk(id, &sse.load_progress(0, total, 0.0));
    // The load blocks this worker for seconds; progress is posted from inside it (posting
    // needs no turn of the event loop), and the panel's Cancel ends the worker
    // (`platform::local_model::restart` in the page), the only way to interrupt synchronous
    // code.
    let job = add::new_job(state, JobKind::Load, &record.id, Some(total));
    let progress_state = state.clone();
    let progress_sse = sse.clone();
    let progress = ProgressReader::new(&mut reader, move |bytes| {
        let mut s = progress_state.borrow_mut();
        let now = js::now_epoch_ms();
        let report = s
            .jobs
            .iter_mut()
            .find(|j| j.job == job)
            .is_some_and(|j| j.progress(bytes, now));
        if report {
            s.post_state();
            chunk(
                id,
                &progress_sse.load_progress(bytes, total, now_ms() - started),
            );
        }
    });
    // Buffered: the header is thousands of small reads, each a call into the browser.
    let mut buffered = std::io::BufReader::with_capacity(1 << 20, progress);
    let loaded = prepared.load(&mut buffered);
    drop(buffered);
    // Everything is in memory now; closing lets the file be deleted or re-added.
    reader.close();
    state.borrow_mut().jobs.retain(|j| j.job != job);
    let engine = match loaded {
        Ok(engine) => engine,
        Err(e) => {
            state.borrow().post_state();
            stream_error(id, &e);
            return Ok(None);
        }
    };
    chunk(id, &sse.load_progress(total, total, now_ms() - started));
    let mut s = state.borrow_mut();
    s.loaded = Some(Loaded {
        model: record.id.clone(),
        context: record.context,
        load_ms: now_ms() - started,
        bytes: wasm_memory_bytes(),
    });
    s.post_state();
    Ok(Some((engine, true)))
}
