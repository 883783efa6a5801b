//! The browser side of the worker: receives the page's messages (`ToWorker`, the JSON text of
//! `skiff_core::model_panel::wire`), keeps the worker's state, and performs what the
//! plain-Rust modules decide (storage rules in `store`, generation in `engine`/`completion`,
//! order in `queue`). It answers with `FromWorker` messages ([`send`]).
//!
//! Invariant: no decision lives here that a native test could check; this layer only moves
//! bytes between the page, OPFS and the engine.

mod add;
mod js;
mod opfs;
mod serve;

use crate::engine::Engine;
use crate::queue::Queue;
use crate::store::{Generating, Job, JobError, Loaded, ModelRecord, Refusal, Report};
use js::{field, field_str};
use skiff_core::model_panel::{FromWorker, ToWorker};
use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::{AbortController, FileSystemDirectoryHandle, MessageEvent};

/// One fetch-imitation request waiting its turn.
pub(crate) struct Pending {
    path: String,
    body: String,
}

#[derive(Default)]
pub(crate) struct State {
    dir: Option<FileSystemDirectoryHandle>,
    /// Why the models directory could not be opened, if it could not.
    dir_error: Option<JobError>,
    models: Vec<ModelRecord>,
    jobs: Vec<Job>,
    next_job: u64,
    /// Download aborters by job.
    aborters: Vec<(u64, AbortController)>,
    queue: Queue<Pending>,
    /// Requests the page aborted while they ran.
    aborted: HashSet<u64>,
    engine: Option<Engine>,
    loaded: Option<Loaded>,
    generating: Option<Generating>,
    /// The engine must be dropped once the running generation gives it back (its model was
    /// deleted or its context changed).
    drop_engine: bool,
    pumping: bool,
    /// The last setting the browser refused to store (shown above the list).
    notice: Option<Refusal>,
    /// The stored models were listed (startup): requests wait for it, or a request sent
    /// right after a reload would find no model; and no state is reported before it, or the
    /// panel would show "no model stored" (and announce each model deleted) for a moment.
    ready: bool,
}

pub(crate) type Shared = Rc<RefCell<State>>;

impl State {
    fn post_state(&self) {
        if !self.ready {
            return;
        }
        let report = Report {
            models: &self.models,
            jobs: &self.jobs,
            loaded: self.loaded.as_ref(),
            generating: self.generating.as_ref(),
            waiting: self.queue.waiting(),
            storage: self.dir_error.as_ref(),
            refused: self.notice.as_ref(),
        };
        send(&FromWorker::State(report.state()));
    }
}

/// Posts one message to the page (as its JSON text).
pub(crate) fn send(message: &FromWorker) {
    js::post_text(&message.to_json());
}

/// Entry point: called by `model-worker.js` once the wasm is instantiated.
#[wasm_bindgen]
pub fn start() {
    console_error_panic_hook::set_once();
    let state: Shared = Rc::new(RefCell::new(State::default()));
    let for_messages = state.clone();
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
        handle(&for_messages, ev.data());
    });
    js::scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The worker lives as long as the page keeps it; so does its message handler.
    on_message.forget();
    wasm_bindgen_futures::spawn_local(async move {
        add::open_and_clean(&state).await;
        let start = {
            let mut s = state.borrow_mut();
            s.ready = true;
            s.post_state();
            s.queue.waiting() > 0 && !std::mem::replace(&mut s.pumping, true)
        };
        if start {
            serve::pump(&state).await;
        }
    });
}

/// One message from the page: the JSON text of a `ToWorker`, or `{msg, file}` for
/// `AddFile` (a `File` cannot travel as JSON).
fn handle(state: &Shared, data: JsValue) {
    let (text, file) = match data.as_string() {
        Some(text) => (text, JsValue::UNDEFINED),
        None => (
            field_str(&data, "msg").unwrap_or_default(),
            field(&data, "file"),
        ),
    };
    let msg = match ToWorker::from_json(&text) {
        Ok(msg) => msg,
        Err(e) => {
            // A page of another build: it cannot be answered, only told in the console.
            web_sys::console::error_1(&e.to_string().into());
            return;
        }
    };
    match msg {
        ToWorker::Fetch { id, path, body } => {
            let start = {
                let mut s = state.borrow_mut();
                s.queue.submit(id, Pending { path, body });
                s.post_state();
                s.ready && !std::mem::replace(&mut s.pumping, true)
            };
            if start {
                let state = state.clone();
                wasm_bindgen_futures::spawn_local(async move { serve::pump(&state).await });
            }
        }
        ToWorker::Abort { id } => {
            let mut s = state.borrow_mut();
            match s.queue.abort(id) {
                crate::queue::Aborted::Running => {
                    s.aborted.insert(id);
                }
                crate::queue::Aborted::Waiting(_) => {
                    // It never started: answer nothing more than the end of the stream.
                    send(&FromWorker::End { id });
                    s.post_state();
                }
                crate::queue::Aborted::Unknown => {}
            }
        }
        ToWorker::Report => state.borrow().post_state(),
        ToWorker::Dismiss { job } => {
            let mut s = state.borrow_mut();
            s.jobs.retain(|j| j.job != job || !j.done);
            s.post_state();
        }
        ToWorker::AddFile => add::spawn_file(state, file),
        ToWorker::AddUrl { url } => add::spawn_url(state, url),
        ToWorker::Cancel { job } => add::cancel(state, job),
        ToWorker::Delete { model } => {
            let state = state.clone();
            wasm_bindgen_futures::spawn_local(async move { add::delete(&state, &model).await });
        }
        ToWorker::SetSampling { model, value } => {
            let state = state.clone();
            wasm_bindgen_futures::spawn_local(async move {
                add::set_sampling(&state, &model, value).await
            });
        }
        ToWorker::SetContext { model, context } => {
            let state = state.clone();
            wasm_bindgen_futures::spawn_local(async move {
                add::set_context(&state, &model, context).await
            });
        }
    }
}
