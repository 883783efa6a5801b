//! Serves the built-in tools (`skiff_core::builtin`) as an in-page MCP server while they are
//! switched on in Settings.
//!
//! This is the adapter between the sans-IO server and the page: it supplies the clock and the
//! browser's time-zone offset, hands the server the store's current book with every message
//! (so an edit made in Settings is what the next call sees) and lets the store save the book
//! when a message changed it. Attaching goes through `McpRunner::attach_in_page`, so the
//! built-in tools take the same path as any remote server: handshake, tool index, approvals,
//! timeouts and the settings page's status.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::channel::oneshot;
use futures::FutureExt;
use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::builtin::BuiltinServer;
use skiff_core::chunk_load::ChunkLoadFailure;

use crate::platform::split::when_idle;
use crate::platform::{clock, online};
use crate::runner::mcp::{InPageServer, McpRunner};
use crate::stores::memory::MemoryStore;
use crate::stores::notices::{Level, Notices};

// The server's code (its tools, their schemas and sentences) is a chunk fetched once the tools
// are switched on, after the message box takes input: the first visit does not wait for it.
crate::split_point!(
    builtin_point,
    builtin,
    fn(MemoryStore) -> Box<dyn InPageServer>,
    |memory| Box::new(serve(memory))
);

/// The server id of the built-in tools in the MCP store and the tool index.
pub const BUILTIN_ID: &str = "builtin";
/// Shown in Settings and used as the tool-name prefix if a remote server has a tool of the
/// same name.
pub const BUILTIN_NAME: &str = "Built-in tools";

/// How long a turn waits for the built-in tools before it is sent without them: the chunk is
/// small and usually cached, so this bounds only a broken network or page, never a normal start.
const READY_WAIT_MS: u32 = 10_000;

thread_local! {
    /// The attach waiting for an idle moment. A turn that starts before then runs it at once
    /// (`ready`), so a message sent right after the page opens still carries the tools.
    static WAITING: RefCell<Option<Rc<dyn Fn()>>> = RefCell::new(None);
    /// True from the moment the switch asks for the tools until the chunk has loaded (or
    /// failed to). Set by `start`, which runs once under the app's owner.
    static LOADING: Cell<Option<RwSignal<bool>>> = const { Cell::new(None) };
}

/// Attach the built-in server now if it is enabled, and follow the switch from then on.
pub fn start(mcp: McpRunner, memory: MemoryStore, notices: Notices) {
    let loading = RwSignal::new(false);
    LOADING.with(|l| l.set(Some(loading)));
    Effect::new(move |attached: Option<bool>| {
        let on = memory.builtin_enabled.get();
        // Attaching updates the MCP store's signals; this effect must follow the switch only.
        untrack(|| match (attached, on) {
            (Some(before), now) if before == now => {}
            (None, false) => {}
            (_, true) => {
                loading.set(true);
                let job = attach_job(mcp, memory, notices, loading);
                WAITING.with(|w| *w.borrow_mut() = Some(job));
                // When idle: the first visit's message box does not wait for this chunk.
                when_idle(2_000, run_waiting);
            }
            (_, false) => {
                WAITING.with(|w| w.borrow_mut().take());
                loading.set(false);
                mcp.detach_in_page(BUILTIN_ID)
            }
        });
        on
    });
}

/// Run the attach waiting for an idle moment, if one still is.
fn run_waiting() {
    if let Some(job) = WAITING.with(|w| w.borrow_mut().take()) {
        job();
    }
}

/// Load the chunk and attach the server; `loading` is false again once it is attached or has
/// failed (a failure is a notice, and the turn goes without the tools).
fn attach_job(
    mcp: McpRunner,
    memory: MemoryStore,
    notices: Notices,
    loading: RwSignal<bool>,
) -> Rc<dyn Fn()> {
    Rc::new(move || {
        spawn_local(async move {
            match builtin_point().await {
                // Switched off while the chunk loaded: nothing to attach.
                Ok(make) if memory.builtin_enabled.try_get_untracked() == Some(true) => {
                    mcp.attach_in_page(BUILTIN_ID, BUILTIN_NAME, make(memory))
                }
                Ok(_) => {}
                Err(_) => {
                    let why = ChunkLoadFailure {
                        surface: BUILTIN_NAME,
                        online: online::is_online(),
                    };
                    notices.push(Level::Error, why.to_string());
                }
            }
            loading.try_set(false);
        })
    })
}

/// Resolves once the built-in tools, if switched on, are in the tool index (or could not be):
/// a turn awaits it before choosing its tools. The chunk is fetched now if it was waiting for
/// an idle moment.
pub async fn ready(mcp: McpRunner) {
    let Some(loading) = LOADING.with(Cell::get) else {
        return;
    };
    run_waiting();
    let store = mcp.store();
    let settled = move || {
        !loading.try_get().unwrap_or(false)
            && (!store.is_in_page(BUILTIN_ID) || store.settled(BUILTIN_ID))
    };
    if untrack(settled) {
        return;
    }
    let (tx, rx) = oneshot::channel::<()>();
    let tx = RefCell::new(Some(tx));
    let watch = Effect::new(move |_| {
        if settled() {
            if let Some(tx) = tx.borrow_mut().take() {
                let _ = tx.send(());
            }
        }
    });
    futures::select! {
        _ = rx.fuse() => {}
        _ = clock::sleep_ms(READY_WAIT_MS).fuse() => {}
    }
    watch.stop();
}

/// Minutes east of UTC in the browser's time zone, now (so daylight saving is current).
/// `getTimezoneOffset` counts the other way: UTC+02:00 gives -120.
pub fn local_offset_minutes() -> i32 {
    let west = js_sys::Date::new_0().get_timezone_offset();
    // `as` turns a NaN from a broken environment into 0 (UTC) rather than panicking.
    (-west).round() as i32
}

/// One connection's server. The closure borrows the book for the length of one message.
fn serve(memory: MemoryStore) -> impl FnMut(&str) -> Vec<String> + 'static {
    let mut server = BuiltinServer::new();
    move |message: &str| {
        let now_ms = clock::now_ms();
        let offset = local_offset_minutes();
        memory
            .book
            .try_maybe_update(|book| {
                let handled = server.handle(message, book, now_ms, offset);
                // Only a change notifies, which is what makes the store save the book.
                (handled.book_changed, handled.replies)
            })
            // The store is gone only while the page is torn down, and the session with it.
            .unwrap_or_default()
    }
}
