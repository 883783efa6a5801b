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

/// Arrow keys move focus among the `[role=option]` elements inside `list` (a listbox whose
/// options are buttons, so Tab, Enter and Space work as for any button).
pub fn arrow_keys(ev: &leptos::ev::KeyboardEvent, list: &web_sys::Element) {
    let step: i32 = match ev.key().as_str() {
        "ArrowDown" => 1,
        "ArrowUp" => -1,
        _ => return,
    };
    let Ok(options) = list.query_selector_all("[role=option]") else {
        return;
    };
    let active = document().active_element();
    let n = options.length() as i32;
    if n == 0 {
        return;
    }
    let at = (0..n).find(|&i| {
        options
            .item(i as u32)
            .zip(active.as_ref())
            .is_some_and(|(o, a)| o.is_same_node(Some(a)))
    });
    let next = match at {
        Some(i) => (i + step).rem_euclid(n),
        None if step > 0 => 0,
        None => n - 1,
    };
    if let Some(el) = options
        .item(next as u32)
        .and_then(|o| o.dyn_into::<web_sys::HtmlElement>().ok())
    {
        ev.prevent_default();
        let _ = el.focus();
    }
}
