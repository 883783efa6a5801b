//! The one modal dialog wrapper every modal uses (Settings, the keyboard shortcuts sheet, the
//! MCP resource browser, sampling requests, the roots editor).
//!
//! While a [`Modal`] is on screen: focus moves into it (its first focusable control, else the
//! dialog itself), Tab and Shift+Tab cycle inside it (`skiff_core::focus_trap` decides where),
//! a click on the backdrop closes it, and so does Escape from anywhere — the page's shortcut
//! listener (`ui::shortcuts`) asks [`any_open`] and performs `CloseDialog` with [`close_top`].
//! When it goes, for whatever reason, focus returns to the element that opened it, or to the
//! message box when that element is gone (a removed dialog otherwise leaves focus on `<body>`).
//!
//! It never decides when to open or close: its owner's signal shows it and `on_close` hides it.

use std::cell::{Cell, RefCell};

use crate::stores::reactive::effect;
use leptos::html;
use leptos::prelude::*;
use skiff_core::focus_trap::{tab_target, TabMove};
use wasm_bindgen::JsCast;
use web_sys::HtmlElement;

use super::composer::focus_composer;
use crate::platform::focus::{active_element, focusable_within};

struct OpenDialog {
    id: u32,
    close: Callback<()>,
    opener: Option<HtmlElement>,
    /// The dialog element, once drawn.
    element: Option<HtmlElement>,
}

thread_local! {
    /// Open modals, the newest last (it is the one Escape and Tab act on).
    static OPEN: RefCell<Vec<OpenDialog>> = const { RefCell::new(Vec::new()) };
    static NEXT_ID: Cell<u32> = const { Cell::new(0) };
}

/// Whether a modal dialog is open (shortcuts other than Escape are then off).
pub fn any_open() -> bool {
    OPEN.with(|open| !open.borrow().is_empty())
}

/// Closes the newest open modal (Escape).
pub fn close_top() {
    // Copied out first: closing may re-enter this module (the dialog's cleanup).
    let close = OPEN.with(|open| open.borrow().last().map(|d| d.close));
    if let Some(close) = close {
        close.try_run(());
    }
}

fn is_top(id: u32) -> bool {
    OPEN.with(|open| open.borrow().last().is_some_and(|d| d.id == id))
}

/// A modal dialog: a backdrop and a `role="dialog"` section named by `label`.
#[component]
pub fn Modal(
    /// The dialog's accessible name.
    label: &'static str,
    /// The dialog element's class (its look).
    class: &'static str,
    /// Hides the dialog (sets the signal that shows it to false).
    #[prop(into)]
    on_close: Callback<()>,
    /// The id of the element inside that names the dialog (its title), instead of `label`.
    #[prop(optional)]
    labelled_by: Option<&'static str>,
    /// A click on the backdrop does not close it: closing answers someone (a server waiting
    /// for the user), which only Escape or the dialog's own buttons may do.
    #[prop(optional)]
    persistent: bool,
    /// What takes focus when it opens (a selector inside it), instead of its first control.
    #[prop(optional)]
    initial_focus: Option<&'static str>,
    children: Children,
) -> impl IntoView {
    let id = NEXT_ID.with(|n| {
        let id = n.get();
        n.set(id.wrapping_add(1));
        id
    });
    OPEN.with(|open| {
        open.borrow_mut().push(OpenDialog {
            id,
            close: on_close,
            opener: active_element(),
            element: None,
        })
    });
    let node = NodeRef::<html::Section>::new();

    // Focus in, once the dialog is in the document.
    effect(move || {
        let Some(dialog) = node.get() else { return };
        let element: HtmlElement = dialog.clone();
        OPEN.with(|open| {
            if let Some(d) = open.borrow_mut().iter_mut().find(|d| d.id == id) {
                d.element = Some(element);
            }
        });
        let chosen = initial_focus
            .and_then(|sel| dialog.query_selector(sel).ok().flatten())
            .and_then(|el| el.dyn_into::<HtmlElement>().ok());
        let target = chosen
            .or_else(|| focusable_within(&dialog).into_iter().next())
            .unwrap_or_else(|| dialog.clone());
        if let Err(e) = target.focus() {
            leptos::logging::warn!("could not move focus into the dialog: {e:?}");
        }
    });

    // Tab stays inside (only the newest dialog's trap acts).
    let trap = window_event_listener(leptos::ev::keydown, move |ev| {
        if ev.key() != "Tab" || ev.ctrl_key() || ev.meta_key() || ev.alt_key() || !is_top(id) {
            return;
        }
        let Some(dialog) = node.get_untracked() else {
            return;
        };
        let items = focusable_within(&dialog);
        let current = active_element().and_then(|a| items.iter().position(|el| *el == a));
        ev.prevent_default();
        if let TabMove::To(i) = tab_target(items.len(), current, ev.shift_key()) {
            if let Some(el) = items.get(i) {
                let _ = el.focus();
            }
        }
    });

    on_cleanup(move || {
        trap.remove();
        let opener = OPEN.with(|open| {
            let mut open = open.borrow_mut();
            let Some(at) = open.iter().position(|d| d.id == id) else {
                return Some(None);
            };
            let gone = open.remove(at);
            // A dialog opened from inside this one (a surface taking the place of its loading
            // dialog, `ui::lazy`) returns focus where this one would have, and has focus now:
            // this one must not pull it back to the opener (the successor may have focused in
            // before this cleanup ran).
            let mut succeeded = false;
            if let Some(el) = &gone.element {
                for d in open.iter_mut() {
                    if d.opener.as_ref().is_some_and(|o| el.contains(Some(o))) {
                        d.opener.clone_from(&gone.opener);
                        succeeded = true;
                    }
                }
            }
            Some(gone.opener).filter(|_| !succeeded)
        });
        let Some(opener) = opener else {
            return;
        };
        match opener {
            Some(el) if el.is_connected() => {
                if el.focus().is_err() {
                    focus_composer();
                }
            }
            _ => focus_composer(),
        }
    });

    view! {
        <div class="modal-backdrop" on:click=move |_| if !persistent { on_close.run(()) }>
            <section
                class=class
                role="dialog"
                aria-modal="true"
                aria-label=labelled_by.is_none().then_some(label)
                aria-labelledby=labelled_by
                tabindex="-1"
                node_ref=node
                on:click=|ev| ev.stop_propagation()
            >
                {children()}
            </section>
        </div>
    }
}
