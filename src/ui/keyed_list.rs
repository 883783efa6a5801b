//! One keyed list for the whole page.
//!
//! Leptos's `<For>` is generic over the item, the key, and the closures that produce both; every
//! use compiles its own copy of the keyed diff and row bookkeeping, about 6 KB of optimized wasm
//! each (eight uses cost 47 KB). `KeyedList` erases the item into a row that carries its string
//! key and a boxed builder, so the page holds one `<For>`; what stays generic per use is only the
//! small closure that turns items into rows.
//!
//! Behaviour is `<For>`'s: a row keeps its DOM and its reactive owner while its key stays in the
//! list, `children` runs once when a key first appears, and a row whose key leaves is disposed.

use std::sync::Arc;

use leptos::prelude::*;

/// An item reduced to what `<For>` needs: its key, and how to draw it the first time it appears.
pub struct Row {
    key: String,
    build: Box<dyn FnOnce() -> AnyView + Send>,
}

/// A keyed list: `each` lists the items, `key` names each one (a key must be unique within the
/// list and stable for as long as the item should keep its DOM), `children` draws one item.
pub fn keyed_list<T, V>(
    each: impl Fn() -> Vec<T> + Send + 'static,
    key: impl Fn(&T) -> String + Send + 'static,
    children: impl Fn(T) -> V + Send + Sync + 'static,
) -> AnyView
where
    T: Send + 'static,
    V: IntoView + 'static,
{
    let children = Arc::new(children);
    let rows = move || {
        each()
            .into_iter()
            .map(|item| {
                let draw = Arc::clone(&children);
                Row {
                    key: key(&item),
                    build: Box::new(move || draw(item).into_any()),
                }
            })
            .collect()
    };
    rows_view(Box::new(rows))
}

/// The page's only `<For>`.
fn rows_view(each: Box<dyn Fn() -> Vec<Row> + Send>) -> AnyView {
    view! { <For each=each key=|row: &Row| row.key.clone() children=|row: Row| (row.build)() /> }
        .into_any()
}
