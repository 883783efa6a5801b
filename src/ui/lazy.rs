//! On-demand surfaces: parts of the page that are fetched the first time they are opened.
//!
//! The page's first visit has a budget (what the browser fetches before the message box takes
//! input), so rare surfaces — Settings, the MCP extras, the model panel — are compiled into the
//! same app but split out of its main wasm by the build (`scripts/build.sh`, wasm-split). Each
//! one has a **split point**: a function declared with [`split_surface!`], whose body and
//! everything only it reaches land in a separate wasm chunk, loaded when it is first called.
//!
//! How to put a surface behind a split point:
//! ```ignore
//! split_surface!(pub settings_surface, settings, || view! { <SettingsPanel/> }.into_any());
//! // where it is shown:
//! view! { <Lazy load=settings_surface surface="Settings"/> }
//! ```
//! The second argument names the chunk: split points with the same name share one chunk.
//! A surface must be reached **only** through its split point (no other path from the main
//! code may call its components), or the build keeps it in the main wasm.
//!
//! What it must never do: panic when a chunk fails to load. `#[lazy]` would (a failed load is
//! a panic, and with `panic = "abort"` that kills the page), so split points here are
//! `fallible`: a failure shows [`ChunkLoadFailure`]'s sentence with Retry where the surface
//! would be, and Retry starts a fresh load (the loader caches only successes).

use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos::wasm_split::SplitLoaderError;
use skiff_core::chunk_load::ChunkLoadFailure;
use std::future::Future;

use crate::platform::online;

use super::dialog::Modal;

/// What a split point hands back once its chunk is loaded: a plain function (its code lives in
/// the chunk) that builds the surface. It runs under the owner of the place it is shown, so the
/// surface's signals are disposed with it.
pub type Build = fn() -> AnyView;

/// Declares a split point for a surface: `$build` is the [`Build`] function shown by [`Lazy`].
#[macro_export]
macro_rules! split_surface {
    ($vis:vis $name:ident, $chunk:ident, $build:expr) => {
        $crate::split_point!($vis $name, $chunk, $crate::ui::lazy::Build, $build);
    };
}
pub use split_surface;

pub use crate::platform::split::when_idle;

#[derive(Clone, Copy)]
enum State {
    Loading,
    Loaded(Build),
    Failed(bool),
}

/// Shows the surface a split point builds: while its chunk loads, nothing (or, for a dialog, an
/// empty dialog: see `loading_view`), the surface once it is there, or the failure sentence
/// with Retry.
#[component]
pub fn Lazy<L, F>(
    /// The split point (declared with [`split_surface!`]).
    load: L,
    /// What the user opened, as the page names it: used in the failure sentence.
    surface: &'static str,
    /// For a surface that is a dialog: how to close it. The failure sentence then shows in a
    /// dialog of its own (the one [`Modal`]) with Retry and Close, where the surface would be.
    #[prop(optional, into)]
    on_close: Option<Callback<()>>,
) -> impl IntoView
where
    L: Fn() -> F + Copy + Send + Sync + 'static,
    F: Future<Output = Result<Build, SplitLoaderError>> + 'static,
{
    let state = RwSignal::new(State::Loading);
    let start = move || {
        state.set(State::Loading);
        spawn_local(async move {
            let next = match load().await {
                Ok(build) => State::Loaded(build),
                Err(_) => State::Failed(online::is_online()),
            };
            // The surface may have been closed while its chunk loaded.
            let _ = state.try_set(next);
        });
    };
    start();
    move || match state.get() {
        State::Loading => loading_view(surface, on_close),
        // Untracked: what the surface reads while it is built (a store's list, a setting) is
        // its own business; tracked here, any change to it would rebuild the whole surface and
        // throw away what the user was doing in it (a prompt's form reset when a server
        // connected).
        State::Loaded(build) => untrack(build),
        State::Failed(online) => failed_view(
            ChunkLoadFailure { surface, online },
            Callback::new(move |()| start()),
            on_close,
        ),
    }
}

/// While a dialog's chunk loads, its backdrop and an empty dialog are already there: the click
/// answers at once, focus is in the dialog, and Escape closes it as it would the surface. The
/// "Loading…" line shows only if the load takes long enough to notice (`.chunk-loading`'s CSS
/// delay), so a warm load (milliseconds) does not flash it.
fn loading_view(surface: &'static str, on_close: Option<Callback<()>>) -> AnyView {
    match on_close {
        Some(close) => view! {
            <Modal label=surface class="chunk-failed-dialog chunk-loading" on_close=move || close.run(())>
                <p aria-live="polite">"Loading " {surface} "…"</p>
            </Modal>
        }
        .into_any(),
        None => ().into_any(),
    }
}

fn failed_view(
    failure: ChunkLoadFailure,
    retry: Callback<()>,
    on_close: Option<Callback<()>>,
) -> AnyView {
    let body = view! {
        <div class="chunk-failed" role="alert">
            <p>{failure.to_string()}</p>
            <div class="chunk-failed-actions">
                <button class="primary" on:click=move |_| retry.run(())>"Retry"</button>
                {on_close.map(|close| view! { <button on:click=move |_| close.run(())>"Close"</button> })}
            </div>
        </div>
    };
    match on_close {
        Some(close) => view! {
            <Modal label=failure.surface class="chunk-failed-dialog" on_close=move || close.run(())>
                {body}
            </Modal>
        }
        .into_any(),
        None => body.into_any(),
    }
}
