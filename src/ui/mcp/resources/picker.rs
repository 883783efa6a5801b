//! The `@` picker: the resources of every server and every kept copy matching what follows
//! `@` (`res_ui::search`), over the message box and as wide as it. Focus stays in the box
//! (its `aria-activedescendant` is the highlighted option); Up and Down move, Enter or Tab
//! choose, Escape closes. Choosing removes the `@query` from the box and attaches the
//! resource to the next message, through the checks a picked file meets.

use std::cell::Cell;
use std::rc::Rc;

use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::mcp::composer_trigger::Trigger;
use skiff_core::mcp::res_ui::search::{mention_at, search, strip_mention, Item};
use skiff_core::mcp::res_ui::view::{picker_empty, picker_rows};
use wasm_bindgen::JsCast;

use crate::platform::clock;
use crate::platform::focus::active_element;
use crate::stores::notices::Level;
use crate::stores::reactive::{effect, memo};
use crate::ui::composer::{attach_files, focus_composer};
use crate::ui::context::Ctx;
use crate::ui::mcp::{scroll_nearest, BoxAria, Hold, McpSurfaces, PickerSlot};

const LIST_ID: &str = "res-picker-list";

thread_local! {
    /// The locked store's sentence is said once per page (the browser shows it with
    /// "Start afresh").
    static LOCKED_SAID: Cell<bool> = const { Cell::new(false) };
}

fn message_box() -> Option<web_sys::HtmlTextAreaElement> {
    document()
        .get_element_by_id("composer-input")
        .and_then(|e| e.dyn_into().ok())
}

/// Where the list sits: over the message box, as wide as it (at least 280 px, within the
/// window). `(left, width, bottom)` in px.
fn place() -> (f64, f64, f64) {
    let Some(el) = message_box() else {
        return (4.0, 280.0, 80.0);
    };
    let r = el.get_bounding_client_rect();
    let w = window();
    let vw = w
        .inner_width()
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(800.0);
    let vh = w
        .inner_height()
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(600.0);
    let width = r.width().max(280.0).min(vw - 8.0);
    let left = r.left().min(vw - width - 4.0).max(4.0);
    (left, width, vh - r.top() + 4.0)
}

pub(super) fn picker(ctx: Ctx, surfaces: McpSurfaces, slot: PickerSlot) -> AnyView {
    let runner = surfaces.resources;
    if let Some(why) = runner.store.with(|s| s.locked.clone()) {
        if !LOCKED_SAID.with(|s| s.replace(true)) {
            ctx.notices.push(Level::Error, why);
        }
    }
    let query = memo(move || {
        slot.typed.with(|t| match t {
            Some(t) if t.trigger == Trigger::Mention => t.query.clone(),
            _ => String::new(),
        })
    });
    let items = memo(move || {
        runner.store.track();
        let q = query.get();
        runner.store.with(|s| search(s, &q, clock::now_ms()))
    });
    let active = RwSignal::new(0usize);
    // A new query highlights its best match.
    effect(move || {
        query.track();
        active.set(0);
    });
    let close = move || slot.mention_open.set(false);
    // The sign is gone (a space typed, the caret moved away): the picker closes.
    effect(move || {
        let mention = slot
            .typed
            .with(|t| t.as_ref().map(|t| t.trigger) == Some(Trigger::Mention));
        if !mention {
            close();
        }
    });
    effect(move || {
        let n = items.with(Vec::len);
        let at = active.get().min(n.saturating_sub(1));
        slot.aria.set(BoxAria {
            controls: (n > 0).then_some(LIST_ID),
            active: (n > 0).then(|| format!("res-opt{at}")),
            expanded: true,
            autocomplete: false,
        });
        if n > 0 {
            scroll_nearest(format!("res-opt{at}"));
        }
    });
    on_cleanup(move || {
        slot.aria.try_set(BoxAria::default());
        slot.release(Trigger::Mention);
    });

    let choose = move |i: usize| {
        let Some(item): Option<Item> = items.with_untracked(|it| it.get(i).cloned()) else {
            return;
        };
        if let Some(el) = message_box() {
            let value = el.value();
            let caret = el.selection_start().ok().flatten().unwrap_or(0) as usize;
            if let Some((start, _)) = mention_at(&value, caret) {
                let (text, at) = strip_mention(&value, start, caret);
                // The box and its draft at once: the caret stays where the `@query` was.
                el.set_value(&text);
                let at = at as u32;
                let _ = el.set_selection_range(at, at);
                slot.draft.set(text);
            }
        }
        close();
        focus_composer();
        spawn_local(async move {
            let said = match runner.load(&item.server, &item.uri, false).await {
                Ok(got) => runner
                    .files(&item.server, &item.uri, &got.parts)
                    .and_then(|(name, files)| attach_files(files).map(|()| name))
                    .map(|name| {
                        if got.note.is_empty() {
                            (Level::Info, format!("Attached {name}."))
                        } else {
                            let level = if got.error { Level::Error } else { Level::Info };
                            (level, format!("Attached {name}. {}", got.note))
                        }
                    })
                    .unwrap_or_else(|e| (Level::Error, e)),
                Err(e) => (Level::Error, e),
            };
            ctx.notices.push(said.0, said.1);
        });
    };

    let key: Rc<dyn Fn(&web_sys::KeyboardEvent) -> bool> = Rc::new(move |ev| {
        if ev.is_composing() {
            return false;
        }
        let n = items.with_untracked(Vec::len);
        match ev.key().as_str() {
            "ArrowDown" if n > 0 => active.update(|a| *a = (*a + 1) % n),
            "ArrowUp" if n > 0 => active.update(|a| *a = (*a + n - 1) % n),
            "Enter" | "Tab" if n > 0 && !ev.shift_key() => {
                choose(active.get_untracked().min(n - 1));
            }
            "Escape" => close(),
            _ => return false,
        }
        true
    });
    let blur: Rc<dyn Fn()> = Rc::new(move || {
        set_timeout(
            move || {
                let in_box = active_element().is_some_and(|a| a.id() == "composer-input");
                if !in_box {
                    close();
                }
            },
            std::time::Duration::ZERO,
        );
    });
    slot.hold(Trigger::Mention, Hold { key, blur });

    let rows = move || {
        let list = items.get();
        if list.is_empty() {
            return view! { <p class="res-empty">{picker_empty(&query.get())}</p> }.into_any();
        }
        let at = active.get().min(list.len() - 1);
        let options = picker_rows(&list)
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                let selected = i == at;
                view! {
                    <li
                        role="option"
                        id=format!("res-opt{i}")
                        class="res-opt"
                        class:active=selected
                        aria-selected=if selected { "true" } else { "false" }
                        tabindex="-1"
                        on:click=move |_| choose(i)
                    >
                        <span class="res-item-name">{r.label}</span>
                        <span class="res-item-meta"><bdi>{r.server_name}</bdi>{r.note}</span>
                    </li>
                }
            })
            .collect_view();
        view! {
            <ul class="res-options" role="listbox" id=LIST_ID aria-label="MCP resources">{options}</ul>
        }
        .into_any()
    };
    // Re-measured as the box grows with its text and the window changes.
    let at = memo(move || {
        slot.draft.track();
        let (left, width, bottom) = place();
        (left as i64, width as i64, bottom as i64)
    });
    let resized = window_event_listener(leptos::ev::resize, move |_| slot.draft.notify());
    on_cleanup(move || resized.remove());
    view! {
        <div
            id="res-picker"
            class="res-picker"
            style:left=move || format!("{}px", at.get().0)
            style:width=move || format!("{}px", at.get().1)
            style:bottom=move || format!("{}px", at.get().2)
            // Keep the message box focused while choosing with the mouse.
            on:mousedown=|ev| ev.prevent_default()
        >
            {rows}
        </div>
    }
    .into_any()
}
