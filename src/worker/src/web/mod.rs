//! The browser side of the worker: receives the page's messages, keeps the worker's state,
//! and performs what the plain-Rust modules decide (storage rules in `store`, generation in
//! `engine`/`completion`, order in `queue`).
//!
//! Invariant: no decision lives here that a native test could check; this layer only moves
//! bytes between the page, OPFS and the engine.

mod add;
mod js;
mod opfs;
mod serve;

use crate::engine::Engine;
use crate::queue::Queue;
use crate::store::{self, Generating, Job, Loaded, ModelRecord};
use js::{field, field_str, field_u64, post};
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
    dir_error: Option<String>,
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
    /// The model whose "Delete" waits for its second click in the panel.
    confirming: Option<String>,
    /// A sentence about the last panel setting refused (shown above the list).
    notice: Option<String>,
    /// The stored models were listed (startup): requests wait for it, or a request sent
    /// right after a reload would find no model.
    ready: bool,
}

pub(crate) type Shared = Rc<RefCell<State>>;

impl State {
    fn post_state(&self) {
        let json = store::state_json(
            &self.models,
            &self.jobs,
            self.loaded.as_ref(),
            self.generating.as_ref(),
            self.queue.waiting(),
        );
        // The panel's list, rendered here (core::model_panel) so none of it is in the page.
        let panel = serde_json::from_str(&json).unwrap_or_default();
        let mut html = skiff_core::model_panel::list_html(
            &panel,
            self.confirming.as_deref(),
            js::now_epoch_ms(),
        );
        if let Some(n) = &self.notice {
            html.insert_str(0, &skiff_core::model_panel::notice_html(n));
        }
        post("state", &[("state", json.into()), ("html", html.into())]);
    }
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
            s.queue.waiting() > 0 && !std::mem::replace(&mut s.pumping, true)
        };
        if start {
            serve::pump(&state).await;
        }
    });
}

fn handle(state: &Shared, msg: JsValue) {
    let op = field_str(&msg, "op").unwrap_or_default();
    match op.as_str() {
        "fetch" => {
            let id = field_u64(&msg, "id").unwrap_or(0);
            let pending = Pending {
                path: field_str(&msg, "path").unwrap_or_default(),
                body: field_str(&msg, "body").unwrap_or_default(),
            };
            let start = {
                let mut s = state.borrow_mut();
                s.queue.submit(id, pending);
                s.post_state();
                s.ready && !std::mem::replace(&mut s.pumping, true)
            };
            if start {
                let state = state.clone();
                wasm_bindgen_futures::spawn_local(async move { serve::pump(&state).await });
            }
        }
        "abort" => {
            let id = field_u64(&msg, "id").unwrap_or(0);
            let mut s = state.borrow_mut();
            match s.queue.abort(id) {
                crate::queue::Aborted::Running => {
                    s.aborted.insert(id);
                }
                crate::queue::Aborted::Waiting(_) => {
                    // It never started: answer nothing more than the end of the stream.
                    post("end", &[("id", (id as f64).into())]);
                    s.post_state();
                }
                crate::queue::Aborted::Unknown => {}
            }
        }
        "list" => state.borrow().post_state(),
        "panel" => {
            post(
                "form",
                &[("html", skiff_core::model_panel::form_html().into())],
            );
            state.borrow().post_state();
        }
        // The panel's two-step delete and its dismissible failures: view state only.
        "ask_delete" | "keep" => {
            let mut s = state.borrow_mut();
            s.confirming =
                (op == "ask_delete").then(|| field_str(&msg, "model").unwrap_or_default());
            s.post_state();
        }
        "dismiss" => {
            let job = field_u64(&msg, "job").unwrap_or(u64::MAX);
            let mut s = state.borrow_mut();
            s.jobs.retain(|j| j.job != job || !j.done);
            s.post_state();
        }
        "add_file" => add::spawn_file(state, field(&msg, "file")),
        "add_url" => add::spawn_url(state, field_str(&msg, "url").unwrap_or_default()),
        "cancel" => add::cancel(state, field_u64(&msg, "job").unwrap_or(u64::MAX)),
        "delete" => {
            let id = field_str(&msg, "model").unwrap_or_default();
            state.borrow_mut().confirming = None;
            let state = state.clone();
            wasm_bindgen_futures::spawn_local(async move { add::delete(&state, &id).await });
        }
        "set_top_k" | "set_repeat_penalty" | "set_seed" => {
            let id = field_str(&msg, "model").unwrap_or_default();
            let value = field_str(&msg, "value").unwrap_or_default();
            let name = op.trim_start_matches("set_").to_string();
            let state = state.clone();
            wasm_bindgen_futures::spawn_local(async move {
                add::set_sampling(&state, &id, &name, &value).await
            });
        }
        "set_context" => {
            let id = field_str(&msg, "model").unwrap_or_default();
            // The panel's <select> sends its value as text.
            let context = field_u64(&msg, "context")
                .or_else(|| field_str(&msg, "value").and_then(|v| v.parse().ok()))
                .unwrap_or(0);
            let state = state.clone();
            wasm_bindgen_futures::spawn_local(async move {
                add::set_context(&state, &id, context).await
            });
        }
        _ => {}
    }
}
