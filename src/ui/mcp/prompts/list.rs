//! The `/` list (`ask_ui::Picker`): every connected server's prompts matching the word after
//! the slash, the highlighted one the message box's `aria-activedescendant`. The box's keys
//! come here first while it shows.

use std::rc::Rc;

use leptos::prelude::*;
use skiff_core::mcp::ask_ui::{Key, PickerMove, LIST_ID, PICKER_HINT};
use skiff_core::mcp::composer_trigger::Trigger;

use super::Panel;
use crate::platform::focus::active_element;
use crate::stores::reactive::{effect, memo};
use crate::ui::mcp::{scroll_nearest, BoxAria, Hold};

pub(super) fn list(p: Panel) -> AnyView {
    let slot = p.slot;
    // What is typed follows into the list; the sign gone (no "/" at the start, or a space
    // after the name: "/usr/bin is" is text), the list closes.
    effect(move || match slot.typed.get() {
        Some(t) if t.trigger == Trigger::Slash => {
            p.picker.update(|pk| pk.set_typed(&t.query));
            p.status_soon();
        }
        _ => p.close(false),
    });
    let active = memo(move || p.picker.with(|pk| pk.active_id()));
    effect(move || {
        slot.aria.set(BoxAria {
            controls: Some(LIST_ID),
            active: active.get(),
            expanded: false,
            autocomplete: true,
        });
        if let Some(id) = active.get() {
            scroll_nearest(id);
        }
    });
    on_cleanup(move || {
        slot.aria.try_set(BoxAria::default());
        slot.release(Trigger::Slash);
    });
    let key: Rc<dyn Fn(&web_sys::KeyboardEvent) -> bool> = Rc::new(move |ev| {
        if ev.is_composing() || ev.shift_key() || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return false;
        }
        // Home and End stay the box's (they move the caret in what was typed).
        let key = ev.key();
        if !matches!(
            key.as_str(),
            "ArrowUp" | "ArrowDown" | "Enter" | "Tab" | "Escape"
        ) {
            return false;
        }
        let Some(key) = Key::parse(&key) else {
            return false;
        };
        match p.picker.try_update(|pk| pk.key(key)) {
            Some(PickerMove::Moved) => true,
            Some(PickerMove::Close) => {
                slot.dismiss_prompts();
                p.close(true);
                true
            }
            Some(PickerMove::Choose(i)) => {
                p.choose(i);
                true
            }
            Some(PickerMove::Ignored) | None => false,
        }
    });
    // Focus left the box for somewhere other than the list (a click in the list keeps it:
    // its mousedown is prevented).
    let blur: Rc<dyn Fn()> = Rc::new(move || {
        set_timeout(
            move || {
                let in_box = active_element().is_some_and(|a| a.id() == "composer-input");
                if !in_box && p.form.try_with_untracked(Option::is_none) == Some(true) {
                    p.close(false);
                }
            },
            std::time::Duration::ZERO,
        );
    });
    slot.hold(Trigger::Slash, Hold { key, blur });
    let options = memo(move || p.picker.with(|pk| (pk.options(), pk.empty())));
    view! {
        <div id="ask-panel" class="ask-panel ask-picker" on:mousedown=|ev| ev.prevent_default()>
            <div class="ask-picker-head muted" aria-hidden="true">{PICKER_HINT}</div>
            <div id=LIST_ID class="ask-picker-list" role="listbox" aria-label="Prompts">
                {move || {
                    options
                        .get()
                        .0
                        .into_iter()
                        .map(|o| {
                            let at = o.at;
                            view! {
                                <div
                                    id=o.id
                                    class="ask-option"
                                    class:selected=o.selected
                                    role="option"
                                    tabindex="-1"
                                    aria-selected=if o.selected { "true" } else { "false" }
                                    data-prompt=o.prompt
                                    on:click=move |_| {
                                        if let Some(i) = p.picker.with_untracked(|pk| pk.click(at)) {
                                            p.choose(i);
                                        }
                                    }
                                >
                                    <span class="ask-option-line">
                                        <bdi class="ask-option-title">{o.title}</bdi>
                                        <bdi class="ask-option-name">{o.name}</bdi>
                                        <bdi class="ask-option-server">{o.server}</bdi>
                                    </span>
                                    {o.description.map(|d| view! { <span class="ask-option-desc" dir="auto">{d}</span> })}
                                </div>
                            }
                        })
                        .collect_view()
                }}
            </div>
            {move || options.get().1.map(|e| view! { <p class="ask-picker-empty muted">{e}</p> })}
        </div>
    }
    .into_any()
}
