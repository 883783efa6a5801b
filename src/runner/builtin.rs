//! Serves the built-in tools (`skiff_core::builtin`) as an in-page MCP server while they are
//! switched on in Settings.
//!
//! This is the adapter between the sans-IO server and the page: it supplies the clock and the
//! browser's time-zone offset, hands the server the store's current book with every message
//! (so an edit made in Settings is what the next call sees) and lets the store save the book
//! when a message changed it. Attaching goes through `McpRunner::attach_in_page`, so the
//! built-in tools take the same path as any remote server: handshake, tool index, approvals,
//! timeouts and the settings page's status.

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

/// Attach the built-in server now if it is enabled, and follow the switch from then on.
pub fn start(mcp: McpRunner, memory: MemoryStore, notices: Notices) {
    Effect::new(move |attached: Option<bool>| {
        let on = memory.builtin_enabled.get();
        // Attaching updates the MCP store's signals; this effect must follow the switch only.
        untrack(|| match (attached, on) {
            (Some(before), now) if before == now => {}
            (None, false) => {}
            // When idle: the first visit's message box does not wait for this chunk.
            (_, true) => when_idle(2_000, move || {
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
                })
            }),
            (_, false) => mcp.detach_in_page(BUILTIN_ID),
        });
        on
    });
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
