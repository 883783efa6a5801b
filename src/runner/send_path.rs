//! The send path behind one split point: running a turn (`agent::run_turn`: the request
//! pipeline, the provider codecs' request and stream sides, the agent loop performed), asking
//! the model for a title or a summary, and rebuilding a request for "View request".
//!
//! The first visit's message box needs none of it, so it is a chunk (`send`) fetched once the
//! page is idle ([`preload`]). A message sent before then waits for it (`ChatRunner`), so a
//! fast first send still works; a failed load ends that answer with
//! `ChunkLoadFailure`'s sentence and Retry, never a dead page.
//!
//! What it must never do: be entered another way. A call from the main code straight to
//! anything only this table reaches (`agent::run_turn`, `title::generate`,
//! `compact::summarize`, `request_view::rebuilt`) pulls it back into the first visit's wasm.

use futures::channel::mpsc;
use futures::future::LocalBoxFuture;
use leptos::task::spawn_local;
use skiff_core::chunk_load::ChunkLoadFailure;
use skiff_core::provider::ProviderError;
use skiff_core::records::conversation::Conversation;
use skiff_core::records::memory::Memory;
use skiff_core::settings::{ChatSettings, TurnSettings};

use super::agent::{run_turn, TurnDeps, TurnHandle, TurnMsg};
use super::chat::ChatRunner;
use super::mcp::McpRunner;
use super::request_view::{self, ShownRequest};
use super::{compact, title};
use crate::platform::online;
use crate::platform::split::when_idle;
use crate::stores::conversations::Loaded;
use crate::stores::live_message::LiveMessage;

type Title = LocalBoxFuture<'static, Result<Option<String>, ProviderError>>;
type Summary = LocalBoxFuture<'static, Result<Option<Memory>, ProviderError>>;

/// The send path's entry points, as plain function pointers so they can cross the split point
/// (their code lives in the chunk; arguments are owned so the futures borrow nothing).
pub struct SendPath {
    /// `agent::run_turn`.
    #[allow(clippy::type_complexity)]
    pub run_turn: fn(
        TurnDeps,
        Loaded,
        LiveMessage,
        TurnSettings,
        TurnHandle,
        mpsc::UnboundedReceiver<TurnMsg>,
        bool,
    ) -> LocalBoxFuture<'static, ()>,
    /// `title::generate`.
    pub title: fn(ChatSettings, Loaded) -> Title,
    /// `compact::summarize`.
    pub summarize: fn(TurnSettings, Loaded) -> Summary,
    /// Whether `compact::due` says a summary is due after a turn.
    pub compact_due: fn(McpRunner, &Conversation, &TurnSettings) -> bool,
    /// `request_view::rebuilt`: a request this tab did not send, rebuilt.
    pub rebuilt: fn(ChatRunner, &Loaded, &str) -> Option<ShownRequest>,
}

static SEND_PATH: SendPath = SendPath {
    run_turn: |deps, conv, first, turn, handle, rx, extends| {
        Box::pin(run_turn(deps, conv, first, turn, handle, rx, extends))
    },
    title: |settings, conv| Box::pin(async move { title::generate(&settings, &conv).await }),
    summarize: |turn, conv| Box::pin(async move { compact::summarize(&turn, &conv).await }),
    compact_due: |mcp, conv, turn| compact::due(mcp, conv, turn).is_some(),
    rebuilt: request_view::rebuilt,
};

crate::split_point!(send_point, send, &'static SendPath, &SEND_PATH);

/// What the user reads when the chunk could not be loaded (in the answer that waited for it,
/// with Retry).
pub fn load_failure() -> ChunkLoadFailure {
    ChunkLoadFailure {
        surface: "The part of Skiff that sends messages",
        online: online::is_online(),
    }
}

/// The send path, fetched now if it is not there yet (the loader keeps only a success, so
/// after a failure the next call tries again).
pub async fn load() -> Result<&'static SendPath, ChunkLoadFailure> {
    send_point().await.map_err(|_| load_failure())
}

/// Fetch the chunk once the page is idle after the first paint: the message box never waits
/// for it, and the first send usually finds it there. A failure here is silent: the send
/// that needs it tries again and says so.
pub fn preload() {
    when_idle(2_000, || {
        spawn_local(async {
            let _ = send_point().await;
        })
    });
}
