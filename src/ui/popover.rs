//! What the chat header's pop-over panels (tools, model) share: a click outside closes the
//! panel, and Escape closes it and puts focus back on its toggle. Handled on the panel's own
//! element, so the page's Escape (stop the answer) is not also run.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Close `open` on any click outside `root` while it is open (removed with the component).
pub fn close_on_outside_click(root: NodeRef<leptos::html::Div>, open: RwSignal<bool>) {
    let outside = window_event_listener(leptos::ev::click, move |ev| {
        if !open.get_untracked() {
            return;
        }
        let inside = match (root.get_untracked(), ev.target()) {
            (Some(root), Some(target)) => target
                .dyn_ref::<web_sys::Node>()
                .is_some_and(|n| root.contains(Some(n))),
            _ => false,
        };
        if !inside {
            open.set(false);
        }
    });
    on_cleanup(move || outside.remove());
}

/// The panel's keydown: Escape closes it and focuses `toggle`.
pub fn escape_closes(
    ev: &leptos::ev::KeyboardEvent,
    open: RwSignal<bool>,
    toggle: NodeRef<leptos::html::Button>,
) {
    if ev.key() == "Escape" && open.get_untracked() {
        ev.prevent_default();
        open.set(false);
        if let Some(t) = toggle.get_untracked() {
            let _ = t.focus();
        }
    }
}
