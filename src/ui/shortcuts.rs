//! The page's keyboard shortcuts and their help sheet.
//!
//! One `keydown` listener on the window (every key bubbles to it after the focused element had
//! its turn) describes the key press and the page's situation to `skiff_core::shortcuts::decide`
//! and performs the shortcut it names; only then is the browser's default prevented, so a key
//! core leaves alone (typing, copy and paste, arrows) is never taken.
//!
//! It never decides which key means what.

use leptos::prelude::*;
use skiff_core::shortcuts::{decide, KeyPress, Shortcut, Situation, HELP_ORDER};

use super::composer::focus_composer;
use super::context::{ctx, Ctx};
use super::dialog::{self, Modal};
use super::lazy::Lazy;
use super::when::When;
use crate::platform::focus::{active_element, focus_first, is_apple, is_text_field};

/// Listens for shortcuts while the page lives, and shows the help sheet when asked.
#[component]
pub fn KeyboardShortcuts() -> impl IntoView {
    let ctx = ctx();
    let help_open = ctx.show_help;
    let apple = is_apple();
    let listener = window_event_listener(leptos::ev::keydown, move |ev| {
        let key = ev.key();
        let press = KeyPress {
            key: &key,
            ctrl: ev.ctrl_key(),
            meta: ev.meta_key(),
            shift: ev.shift_key(),
            alt: ev.alt_key(),
            composing: ev.is_composing(),
            handled: ev.default_prevented(),
        };
        let situation = Situation {
            apple,
            in_text_field: active_element().is_some_and(|el| is_text_field(&el)),
            streaming: ctx
                .convs
                .current_id()
                .is_some_and(|id| ctx.runner.is_sending(&id)),
            dialog_open: dialog::any_open(),
            drawer_open: ctx.sidebar_open.get_untracked() && drawer_shown(),
        };
        if let Some(shortcut) = decide(press, situation) {
            ev.prevent_default();
            perform(ctx, shortcut, help_open);
        }
    });
    on_cleanup(move || listener.remove());

    view! {
        <When when=move || help_open.get()>
            <Lazy load=help_surface surface="Keyboard shortcuts" on_close=move || help_open.set(false) />
        </When>
    }
}

// The list of shortcuts is opened rarely: a chunk (the listener above stays in the page).
crate::split_surface!(help_surface, help, || {
    let help_open = ctx().show_help;
    view! { <HelpSheet apple=is_apple() on_close=move || help_open.set(false) /> }.into_any()
});

fn perform(ctx: Ctx, shortcut: Shortcut, help_open: RwSignal<bool>) {
    match shortcut {
        Shortcut::NewChat => {
            ctx.convs.select_none();
            ctx.sidebar_open.set(false);
            focus_composer();
        }
        Shortcut::Search => ctx.show_search.set(true),
        Shortcut::FocusComposer => focus_composer(),
        Shortcut::StopAnswer => {
            if let Some(id) = ctx.convs.current_id() {
                ctx.runner.stop(&id);
            }
            // As the Stop button does: it is about to be replaced, and focus must not fall.
            focus_composer();
        }
        Shortcut::OpenSettings => ctx.show_settings.set(true),
        Shortcut::ShowHelp => help_open.set(true),
        Shortcut::CloseDialog => dialog::close_top(),
        Shortcut::CloseDrawer => {
            ctx.sidebar_open.set(false);
            // Focus goes back to the button that opened it, not to a row now off screen.
            if let Some(page) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.document_element())
            {
                focus_first(&page, ".chat-header .menu");
            }
        }
    }
}

/// Whether the conversation list is a drawer over the page at this width (the stylesheet's
/// phone layout, `style/main.css`); on a wide window it is always beside the chat.
fn drawer_shown() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(max-width: 760px)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// The list of shortcuts, with the platform's modifier name.
#[component]
fn HelpSheet(apple: bool, #[prop(into)] on_close: Callback<()>) -> impl IntoView {
    let rows = HELP_ORDER
        .iter()
        .map(|&s| {
            let combos = s
                .keys(apple)
                .into_iter()
                .enumerate()
                .map(|(i, keys)| {
                    let parts = keys
                        .into_iter()
                        .map(|k| view! { <kbd>{k}</kbd> })
                        .collect_view();
                    view! {
                        {(i > 0).then_some(" or ")}
                        <span class="keys">{parts}</span>
                    }
                })
                .collect_view();
            view! {
                <tr data-shortcut=s.as_str()>
                    <th scope="row">{s.label()}</th>
                    <td>{combos}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <Modal label="Keyboard shortcuts" class="settings help-sheet" on_close=on_close>
            <header class="settings-header">
                <h2>"Keyboard shortcuts"</h2>
                <button class="icon-button" aria-label="Close keyboard shortcuts" on:click=move |_| on_close.run(())>
                    {super::icons::close()}
                </button>
            </header>
            <table class="shortcuts">
                <tbody>{rows}</tbody>
            </table>
        </Modal>
    }
}
