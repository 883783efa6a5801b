//! `effect` and `memo`: Leptos's `Effect::new` and `Memo::new` behind one instance each.
//!
//! Both constructors are generic over the closure they run, so every call site compiled its own
//! copy of the effect's scheduling future or the memo's node (about 1.2 KB and 0.4 KB of wasm a
//! site, 32 memos and 15 effects). Boxing the closure first leaves one effect body for the page
//! and one memo body per value type. Behaviour is unchanged: same tracking, same owner.

use leptos::prelude::*;

/// Runs `f` now (after the current render) and again whenever a signal it read changes,
/// for as long as the current owner lives; like `Effect::new(move |_| f())`.
pub fn effect(f: impl FnMut() + 'static) {
    effect_erased(Box::new(f));
}

fn effect_erased(mut f: Box<dyn FnMut()>) {
    Effect::new(move |_| f());
}

/// A value derived from signals, recomputed when they change and propagated only when it
/// differs; like `Memo::new(move |_| f())`.
pub fn memo<T>(f: impl Fn() -> T + Send + Sync + 'static) -> Memo<T>
where
    T: PartialEq + Send + Sync + 'static,
{
    memo_erased(Box::new(f))
}

fn memo_erased<T>(f: Box<dyn Fn() -> T + Send + Sync>) -> Memo<T>
where
    T: PartialEq + Send + Sync + 'static,
{
    Memo::new(move |_| f())
}
