//! `<When>`: Leptos's `<When>` with its children type-erased.
//!
//! `<When>` is generic over its children's view type, so each of its ~40 uses compiled its own
//! memo, `Either` and mount/unmount code. `<When>` takes the children as a `ChildrenFn` (an
//! `AnyView` behind an `Arc`) and hands the condition to one non-generic body, so the page holds
//! a single copy; per use only the small closure that boxes the condition remains.
//!
//! Same behaviour as `<When>`: the condition is memoized, so the children are built again only
//! when it flips, not whenever a signal it reads changes.

use std::sync::Arc;

use leptos::either::Either;
use leptos::prelude::*;

#[component]
pub fn When<W>(
    /// Whether the children are shown.
    when: W,
    children: ChildrenFn,
    /// What is shown while `when` is false (nothing by default).
    #[prop(optional, into)]
    fallback: ViewFn,
) -> impl IntoView
where
    W: Fn() -> bool + Send + Sync + 'static,
{
    shown_when(Arc::new(when), children, fallback)
}

fn shown_when(
    when: Arc<dyn Fn() -> bool + Send + Sync>,
    children: ChildrenFn,
    fallback: ViewFn,
) -> AnyView {
    let memoized = ArcMemo::new(move |_| when());
    (move || match memoized.get() {
        true => Either::Left(children()),
        false => Either::Right(fallback.run()),
    })
    .into_any()
}
