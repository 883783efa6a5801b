//! Split points: code the build (`scripts/build.sh`, wasm-split) moves out of the page's main
//! wasm into a chunk fetched the first time it is needed. Here, below every layer that declares
//! one (the model bridge in `platform`, the sign-in in `runner`, surfaces in `ui::lazy`).
//!
//! What it must never do: panic when a chunk fails to load. `#[lazy]` would (with
//! `panic = "abort"` that kills the page), so these are `fallible`: the caller gets an error
//! and says `core::chunk_load::ChunkLoadFailure`'s sentence where the user will see it.

/// Declares a split point named `$name` (an `async fn() -> Result<$ty, SplitLoaderError>`) whose
/// body — the value `$value`, typically a function pointer or a `&'static` table of them — and
/// everything only it reaches land in the chunk `$chunk`.
#[macro_export]
macro_rules! split_point {
    ($vis:vis $name:ident, $chunk:ident, $ty:ty, $value:expr) => {
        #[cfg(not(feature = "no-split"))]
        #[::leptos::wasm_split::wasm_split($chunk, wasm_split_path = ::leptos::wasm_split, fallible)]
        $vis fn $name() -> ::core::result::Result<$ty, ::leptos::wasm_split::SplitLoaderError> {
            ::core::result::Result::Ok($value)
        }
        // Builds that are never split (the browser tests of `tests/*.rs`): a split point's
        // placeholder imports would leave the test module impossible to instantiate.
        #[cfg(feature = "no-split")]
        $vis async fn $name() -> ::core::result::Result<$ty, ::leptos::wasm_split::SplitLoaderError> {
            ::core::result::Result::Ok($value)
        }
    };
}
pub use split_point;

/// Runs `f` once the browser is idle after the first paint (within `timeout_ms` at the latest):
/// where chunks that are needed soon, but not before the message box takes input, are
/// fetched, so they never delay it.
pub fn when_idle(timeout_ms: u32, f: impl FnOnce() + 'static) {
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::JsCast;
    let callback = Closure::once_into_js(f);
    let Some(window) = web_sys::window() else {
        return;
    };
    let options = web_sys::IdleRequestOptions::new();
    options.set_timeout(timeout_ms);
    if window
        .request_idle_callback_with_options(callback.unchecked_ref(), &options)
        .is_err()
    {
        // No requestIdleCallback (Safari before 18): a timer does the same job.
        let _ = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(callback.unchecked_ref(), 200);
    }
}
