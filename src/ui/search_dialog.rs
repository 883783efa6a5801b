//! Ctrl/⌘+K: search every conversation's title and messages (`pipeline::search` matches and
//! cuts the snippets), open the chosen one at the matching message.
//!
//! The stored conversations are read once when the dialog opens (from IndexedDB, so the
//! matches appear once that read is done); typing only scans that text.

use crate::stores::reactive::memo;
use leptos::prelude::*;
use skiff_core::pipeline::search::{Corpus, Hit};
use wasm_bindgen::JsCast;

use super::context::ctx;
use super::dialog::Modal;
use super::lazy::Lazy;
use super::message_view::message_dom_id;
use super::when::When;

// The search dialog (and reading every conversation for it) is opened rarely: a chunk.
crate::split_surface!(search_surface, search, || view! { <SearchPanel /> }
    .into_any());

#[component]
pub fn SearchDialog() -> impl IntoView {
    let ctx = ctx();
    view! {
        <When when=move || ctx.show_search.get()>
            <Lazy load=search_surface surface="Search" on_close=move || ctx.show_search.set(false) />
        </When>
    }
}

#[component]
fn SearchPanel() -> impl IntoView {
    let ctx = ctx();
    let corpus = StoredValue::new_local(Corpus::new(Vec::new()));
    let read = RwSignal::new(false);
    leptos::task::spawn_local(async move {
        let c = ctx.convs.search_corpus().await;
        if corpus.try_set_value(c).is_none() {
            read.try_set(true);
        }
    });
    let query = RwSignal::new(String::new());
    let selected = RwSignal::new(0usize);
    let hits = memo(move || {
        read.track();
        query.with(|q| corpus.with_value(|c: &Corpus| c.search(q)))
    });
    let close = move || ctx.show_search.set(false);
    let open_hit = move |h: Hit| {
        close();
        ctx.convs.select(&h.conversation_id);
        ctx.sidebar_open.set(false);
        // After the conversation has been read and rendered: bring the message into view and
        // mark it.
        let target = h.message_id.map(|id| message_dom_id(&id));
        leptos::task::spawn_local(async move {
            while ctx.convs.loading.get_untracked().is_some() {
                crate::platform::clock::sleep_ms(16).await;
            }
            request_animation_frame(move || {
                request_animation_frame(move || {
                    let Some(id) = target else { return };
                    let Some(el) = document().get_element_by_id(&id) else {
                        return;
                    };
                    let options = web_sys::ScrollIntoViewOptions::new();
                    options.set_block(web_sys::ScrollLogicalPosition::Center);
                    el.scroll_into_view_with_scroll_into_view_options(&options);
                    let _ = el.class_list().add_1("search-target");
                    if let Ok(html) = el.dyn_into::<web_sys::HtmlElement>() {
                        let _ = html.focus();
                    }
                });
            });
        });
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let n = hits.with_untracked(Vec::len);
        match ev.key().as_str() {
            "ArrowDown" if n > 0 => {
                ev.prevent_default();
                selected.update(|s| *s = (*s + 1) % n);
            }
            "ArrowUp" if n > 0 => {
                ev.prevent_default();
                selected.update(|s| *s = (*s + n - 1) % n);
            }
            "Enter" => {
                ev.prevent_default();
                if let Some(h) = hits.with_untracked(|h| h.get(selected.get_untracked()).cloned()) {
                    open_hit(h);
                }
            }
            _ => {}
        }
    };
    let total = move || {
        read.track();
        corpus.with_value(Corpus::len)
    };
    view! {
        <Modal label="Search conversations" class="settings search-dialog" on_close=move || close()>
            <input
                type="search"
                class="search-input"
                aria-label="Search conversations"
                placeholder=move || format!("Search {} conversations", total())
                autocomplete="off"
                prop:value=move || query.get()
                on:input=move |ev| {
                    query.set(event_target_value(&ev));
                    selected.set(0);
                }
                on:keydown=on_key
            />
            <p class="hint search-count" role="status">{move || {
                let q = query.get();
                let n = hits.with(Vec::len);
                if q.trim().is_empty() {
                    String::from("Type to search titles and messages.")
                } else if n == 0 {
                    format!("Nothing matches \u{201c}{}\u{201d}.", q.trim())
                } else {
                    skiff_core::format::count(n, "match", "matches")
                }
            }}</p>
            <ul class="search-results" role="listbox" aria-label="Matches">
                {move || hits.get().into_iter().enumerate().map(|(i, h)| {
                    let chosen = move || selected.get() == i;
                    let hit = h.clone();
                    view! {
                        <li role="option" aria-selected=move || chosen().to_string() class:selected=chosen>
                            <button type="button" class="search-hit" on:click=move |_| open_hit(hit.clone())>
                                <span class="search-hit-title">{h.title.clone()}</span>
                                <span class="search-hit-text">
                                    {h.before.clone()}<mark>{h.matched.clone()}</mark>{h.after.clone()}
                                </span>
                            </button>
                        </li>
                    }
                }).collect_view()}
            </ul>
        </Modal>
    }
}
