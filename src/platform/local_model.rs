//! The page's side of the model worker (`src/worker`, built into `worker/` beside the page):
//! it starts the worker, carries `skiff_core::model_panel::wire` messages both ways, and turns
//! the in-browser model's answers into real `Response`s.
//!
//! Why here, in Rust: the messages are types both crates compile (`ToWorker`, `FromWorker`),
//! so nothing in JavaScript reads or routes them; the only script is the worker's own
//! bootstrap (`worker/model-worker.js`), which a `Worker` needs as a file.
//!
//! Nothing of the worker is part of the page's first load: [`fetch`] starts it on the first
//! request to [`IN_BROWSER_BASE`] (`platform::fetch` then reads the answer like the network:
//! the same SSE decoder, abort and stall handling), and [`watch`] when the model panel opens.
//! One worker serves both, so one owns the stored models, downloads and the loaded model.
//!
//! It decides nothing: which model, what to answer and what to show are the worker's and
//! core's; what a failed start means is `WorkerUnavailable::from_probe`'s.
//!
//! [`IN_BROWSER_BASE`]: skiff_core::provider::IN_BROWSER_BASE

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Function, Object, Promise, Reflect, Uint8Array};
use skiff_core::model_panel::{FromWorker, ToWorker, WorkerState, WorkerUnavailable};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortSignal, DomException, Event, File, Headers, MessageEvent, ReadableStream,
    ReadableStreamDefaultController, RequestInit, Response, ResponseInit, Worker, WorkerOptions,
    WorkerType,
};

use super::js_error_text;

/// The worker's bootstrap, relative to the page.
const SCRIPT: &str = "worker/model-worker.js";

/// Where the worker stands, as the panel shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Started (or being started); no state yet.
    Starting,
    /// Its last state.
    Ready(WorkerState),
    /// It could not start, and why.
    Unavailable(WorkerUnavailable),
}

/// A request the worker is answering.
struct Open {
    id: u64,
    resolve: Function,
    reject: Function,
    /// The body's controller, once the head arrived.
    body: Option<ReadableStreamDefaultController>,
    /// The body's `cancel`: the reader let go.
    _cancel: Option<Closure<dyn FnMut(JsValue)>>,
    /// The caller's abort signal and its listener, removed when the request ends.
    abort: Option<(AbortSignal, Closure<dyn FnMut()>)>,
}

impl Open {
    /// Ends it with `error`: the promise if the head has not come, else the body.
    fn fail(self, error: &JsValue) {
        let _ = self.reject.call1(&JsValue::UNDEFINED, error);
        if let Some(body) = &self.body {
            body.error_with_e(error);
        }
        self.unlisten();
    }

    fn unlisten(&self) {
        if let Some((signal, listener)) = &self.abort {
            let _ = signal
                .remove_event_listener_with_callback("abort", listener.as_ref().unchecked_ref());
        }
    }
}

struct Running {
    worker: Worker,
    _on_message: Closure<dyn FnMut(MessageEvent)>,
    _on_error: Closure<dyn FnMut(Event)>,
}

type Watcher = Rc<dyn Fn(&Status)>;

#[derive(Default)]
struct Bridge {
    running: Option<Running>,
    open: Vec<Open>,
    next_request: u64,
    watchers: Vec<(u64, Watcher)>,
    next_watcher: u64,
    status: Option<Status>,
}

thread_local! {
    static BRIDGE: RefCell<Bridge> = RefCell::new(Bridge::default());
    static HOOK_PUBLISHED: Cell<bool> = const { Cell::new(false) };
}

fn with<R>(f: impl FnOnce(&mut Bridge) -> R) -> R {
    BRIDGE.with(|b| f(&mut b.borrow_mut()))
}

/// Sends one request to the model worker; resolves like `window.fetch` does (a TypeError
/// when the worker cannot start, an AbortError on abort).
pub fn fetch(path: &str, body: &str, signal: Option<AbortSignal>) -> Promise {
    let id = with(|b| {
        b.next_request += 1;
        b.next_request
    });
    let mut settle = None;
    let promise = Promise::new(&mut |resolve, reject| settle = Some((resolve, reject)));
    let Some((resolve, reject)) = settle else {
        return promise;
    };
    if signal.as_ref().is_some_and(AbortSignal::aborted) {
        let _ = reject.call1(&JsValue::UNDEFINED, &stopped("The request was stopped."));
        return promise;
    }
    let abort = signal.map(|signal| {
        let listener = Closure::<dyn FnMut()>::new(move || {
            if let Some(open) = take(id) {
                post(&ToWorker::Abort { id });
                open.fail(&stopped("The request was stopped."));
            }
        });
        let _ = signal.add_event_listener_with_callback("abort", listener.as_ref().unchecked_ref());
        (signal, listener)
    });
    with(|b| {
        b.open.push(Open {
            id,
            resolve,
            reject,
            body: None,
            _cancel: None,
            abort,
        })
    });
    post(&ToWorker::Fetch {
        id,
        path: path.to_string(),
        body: body.to_string(),
    });
    promise
}

/// Sends a message (starting the worker if none runs).
pub fn send(message: &ToWorker) {
    post(message);
}

/// Hands a file to the worker to store.
pub fn add_file(file: &File) {
    let message = Object::new();
    let _ = Reflect::set(&message, &"msg".into(), &ToWorker::AddFile.to_json().into());
    let _ = Reflect::set(&message, &"file".into(), file);
    if let Some(worker) = ensure() {
        let _ = worker.post_message(&message);
    }
}

/// Ends the worker and starts a fresh one if a panel watches: the only way to stop a load,
/// which is synchronous in the worker. Answers waiting on it end as stopped ones do; the new
/// worker deletes what unfinished adds left.
pub fn restart() {
    let (running, open, watched, last) = with(|b| {
        let last = match b.status.take() {
            Some(Status::Ready(state)) => Some(state.after_restart()),
            _ => None,
        };
        (
            b.running.take(),
            std::mem::take(&mut b.open),
            !b.watchers.is_empty(),
            last,
        )
    });
    if let Some(r) = running {
        r.worker.terminate();
    }
    let cancelled = stopped("The model load was cancelled.");
    for o in open {
        o.fail(&cancelled);
    }
    // What outlives the worker (the stored models) stays on screen until the new one reports.
    tell(last.map_or(Status::Starting, Status::Ready));
    if watched {
        post(&ToWorker::Report);
    }
}

/// Calls `on_status` with the worker's status now and at every change, until [`unwatch`];
/// starts the worker if none runs.
pub fn watch(on_status: impl Fn(&Status) + 'static) -> u64 {
    let watcher: Watcher = Rc::new(on_status);
    let (id, now) = with(|b| {
        b.next_watcher += 1;
        b.watchers.push((b.next_watcher, watcher.clone()));
        (b.next_watcher, b.status.clone())
    });
    let unavailable = matches!(now, Some(Status::Unavailable(_)));
    watcher(&now.unwrap_or(Status::Starting));
    // A failed worker is tried again only on request ([`retry`]).
    if !unavailable {
        post(&ToWorker::Report);
    }
    id
}

pub fn unwatch(id: u64) {
    with(|b| b.watchers.retain(|(w, _)| *w != id));
}

/// Tries a worker that could not start again (its files may be there now).
pub fn retry() {
    tell(Status::Starting);
    post(&ToWorker::Report);
}

fn tell(status: Status) {
    let watchers: Vec<Watcher> = with(|b| {
        b.status = Some(status.clone());
        b.watchers.iter().map(|(_, w)| w.clone()).collect()
    });
    for w in watchers {
        w(&status);
    }
}

fn stopped(message: &str) -> JsValue {
    DomException::new_with_message_and_name(message, "AbortError")
        .map(JsValue::from)
        .unwrap_or_else(|_| JsValue::from_str(message))
}

fn take(id: u64) -> Option<Open> {
    with(|b| {
        let at = b.open.iter().position(|o| o.id == id)?;
        Some(b.open.swap_remove(at))
    })
}

fn post(message: &ToWorker) {
    if let Some(worker) = ensure() {
        let _ = worker.post_message(&message.to_json().into());
    }
}

/// The running worker, started if none runs. `None` when the browser refuses to create one
/// (then every open request fails as a network failure would).
fn ensure() -> Option<Worker> {
    if let Some(worker) = with(|b| b.running.as_ref().map(|r| r.worker.clone())) {
        return Some(worker);
    }
    publish_test_hook();
    match start() {
        Ok(running) => {
            let worker = running.worker.clone();
            with(|b| b.running = Some(running));
            Some(worker)
        }
        Err(e) => {
            failed(js_error_text(&e));
            None
        }
    }
}

fn script_url() -> Result<String, JsValue> {
    let base = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.base_uri().ok().flatten())
        .ok_or_else(|| JsValue::from_str("this page has no address"))?;
    Ok(web_sys::Url::new_with_base(SCRIPT, &base)?.href())
}

fn start() -> Result<Running, JsValue> {
    let options = WorkerOptions::new();
    options.set_type(WorkerType::Module);
    let worker = Worker::new_with_options(&script_url()?, &options)?;
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|ev: MessageEvent| {
        let text = ev.data().as_string().unwrap_or_default();
        match FromWorker::from_json(&text) {
            Ok(message) => arrived(message),
            Err(e) => leptos::logging::warn!("{e}"),
        }
    });
    // A worker that cannot start (not built yet, a broken build, storage refused) or that
    // failed on its way fails every open request as the network would; the next message
    // starts a new one.
    let on_error = Closure::<dyn FnMut(Event)>::new(|ev: Event| {
        ev.prevent_default();
        let detail = Reflect::get(&ev, &"message".into())
            .ok()
            .and_then(|m| m.as_string())
            .unwrap_or_default();
        failed(detail);
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    Ok(Running {
        worker,
        _on_message: on_message,
        _on_error: on_error,
    })
}

/// The worker failed: ended, its requests failed with what a look at its script says.
fn failed(detail: String) {
    let (running, open) = with(|b| (b.running.take(), std::mem::take(&mut b.open)));
    if let Some(r) = &running {
        r.worker.terminate();
    }
    wasm_bindgen_futures::spawn_local(async move {
        // Its handlers go only now: this may run inside one of them.
        drop(running);
        let why = WorkerUnavailable::from_probe(probe().await, &detail);
        let error = js_sys::TypeError::new(&why.to_string());
        for o in open {
            o.fail(&error);
        }
        tell(Status::Unavailable(why));
    });
}

/// The server's status for the worker's script (`None`: no answer at all).
async fn probe() -> Option<u16> {
    let window = web_sys::window()?;
    let init = RequestInit::new();
    init.set_method("HEAD");
    let answer = JsFuture::from(window.fetch_with_str_and_init(&script_url().ok()?, &init))
        .await
        .ok()?;
    answer.dyn_into::<Response>().ok().map(|r| r.status())
}

fn arrived(message: FromWorker) {
    match message {
        FromWorker::State(state) => tell(Status::Ready(state)),
        FromWorker::Head { id, status, sse } => head(id, status, sse),
        FromWorker::Chunk { id, text } => {
            let body = with(|b| {
                b.open
                    .iter()
                    .find(|o| o.id == id)
                    .and_then(|o| o.body.clone())
            });
            if let Some(body) = body {
                let _ = body.enqueue_with_chunk(&Uint8Array::from(text.as_bytes()));
            }
        }
        FromWorker::End { id } => {
            if let Some(open) = take(id) {
                if let Some(body) = &open.body {
                    let _ = body.close();
                }
                open.unlisten();
            }
        }
    }
}

/// The answer's head: a `Response` whose body streams the chunks that follow.
fn head(id: u64, status: u16, sse: bool) {
    let Some(resolve) = with(|b| {
        b.open
            .iter()
            .find(|o| o.id == id)
            .map(|o| o.resolve.clone())
    }) else {
        return;
    };
    let controller: Rc<RefCell<Option<ReadableStreamDefaultController>>> = Rc::default();
    let slot = controller.clone();
    // `start` runs inside the ReadableStream constructor, once.
    let start = Closure::once_into_js(move |c: ReadableStreamDefaultController| {
        *slot.borrow_mut() = Some(c);
    });
    // The reader let go (the answer was stopped or dropped): the worker stops generating.
    let cancel = Closure::<dyn FnMut(JsValue)>::new(move |_| {
        if let Some(open) = take(id) {
            open.unlisten();
            post(&ToWorker::Abort { id });
        }
    });
    let source = Object::new();
    let _ = Reflect::set(&source, &"start".into(), &start);
    let _ = Reflect::set(&source, &"cancel".into(), cancel.as_ref());
    let response = ReadableStream::new_with_underlying_source(&source).and_then(|stream| {
        let headers = Headers::new()?;
        let kind = if sse {
            "text/event-stream"
        } else {
            "application/json"
        };
        headers.set("content-type", kind)?;
        let init = ResponseInit::new();
        init.set_status(status);
        init.set_headers(&headers);
        Response::new_with_opt_readable_stream_and_init(Some(&stream), &init)
    });
    let body = controller.borrow_mut().take();
    match response {
        Ok(response) => {
            with(|b| {
                if let Some(o) = b.open.iter_mut().find(|o| o.id == id) {
                    o.body = body;
                    o._cancel = Some(cancel);
                }
            });
            let _ = resolve.call1(&JsValue::UNDEFINED, &response);
        }
        Err(e) => {
            if let Some(open) = take(id) {
                post(&ToWorker::Abort { id });
                open.fail(&e);
            }
        }
    }
}

/// `window.__skiffLocalFetch(path, body)`: the e2e suite's way to send requests to the
/// in-browser model directly (two at once, one during a load), published when the worker
/// first starts. It reaches nothing a script on this page could not reach anyway.
fn publish_test_hook() {
    if HOOK_PUBLISHED.with(|p| p.replace(true)) {
        return;
    }
    let Some(window) = web_sys::window() else {
        return;
    };
    let hook = Closure::<dyn Fn(String, String) -> Promise>::new(|path: String, body: String| {
        fetch(&path, &body, None)
    });
    let _ = Reflect::set(&window, &"__skiffLocalFetch".into(), &hook.into_js_value());
}
