//! Elicitation's tray: each question as a card pinned above the composer, above the modal
//! backdrop so a question asked from Settings (a tool's "try" form) shows over it. Focus moves
//! to a new card unless the user is in another one, and goes back where it was when the card
//! goes. Every decision is `skiff_core::mcp::elicit::Tray`'s; this performs its effects.
//!
//! It never opens a link on its own: only an `Effect::Open`, which follows the user's Open.

use std::time::Duration;

use leptos::html;
use leptos::prelude::*;
use serde_json::Value;
use skiff_core::mcp::elicit::{
    field_id, Body, CardIntent, Effect, Tray as Machine, ASKS, CANCEL, DECLINE, DISMISS, URL_LEAD,
};
use skiff_core::mcp::held_ask::HeldAsk;
use skiff_core::mcp::ElicitKey;
use wasm_bindgen::JsCast;
use web_sys::HtmlElement;

use super::elicit_field::field;
use super::reply;
use crate::platform::focus::{active_element, focusable_within};
use crate::platform::location;
use crate::stores::notices::Level;
use crate::stores::reactive::memo;
use crate::ui::composer::focus_composer;
use crate::ui::context::Ctx;
use crate::ui::keyed_list::keyed_list;

/// The tray: the machine, and where focus goes back to when each card goes.
#[derive(Clone, Copy)]
pub(super) struct Tray {
    ctx: Ctx,
    pub machine: RwSignal<Machine>,
    return_to: StoredValue<Vec<(String, HtmlElement)>, LocalStorage>,
    root: NodeRef<html::Section>,
}

fn by_id(id: &str) -> Option<HtmlElement> {
    document()
        .get_element_by_id(id)
        .and_then(|e| e.dyn_into().ok())
}

impl Tray {
    pub fn new(ctx: Ctx) -> Self {
        Tray {
            ctx,
            machine: RwSignal::new(Machine::new()),
            return_to: StoredValue::new_local(Vec::new()),
            root: NodeRef::new(),
        }
    }

    fn inside(&self, el: &HtmlElement) -> bool {
        self.root
            .get_untracked()
            .is_some_and(|r| r.contains(Some(el)))
    }

    pub fn ask(&self, ask: &HeldAsk) {
        let fx = self.machine.try_update(|m| m.ask(ask)).unwrap_or_default();
        self.perform(fx);
    }

    pub fn gone(&self, server: &str, key: ElicitKey) {
        let fx = self
            .machine
            .try_update(|m| m.gone(server, key))
            .unwrap_or_default();
        self.perform(fx);
    }

    /// The tool calls running when `server` asked `key` are over (`Tray::settled`).
    pub fn settled(&self, server: &str, key: ElicitKey) {
        let fx = self
            .machine
            .try_update(|m| m.settled(server, key))
            .unwrap_or_default();
        self.perform(fx);
    }

    pub fn complete(&self, server: &str, params: &Value) {
        let fx = self
            .machine
            .try_update(|m| m.complete(server, params))
            .unwrap_or_default();
        self.perform(fx);
    }

    /// A tool call was refused until the user finishes these URL steps (`-32042`).
    pub fn required(&self, server: &str, wait: u64, data: &Value) {
        let name = self
            .ctx
            .mcp
            .server_name(server)
            .unwrap_or_else(|| server.to_string());
        let fx = self
            .machine
            .try_update(|m| m.required(server, &name, wait, data))
            .unwrap_or_default();
        self.perform(fx);
    }

    pub fn act(&self, id: &str, intent: CardIntent) {
        let fx = self
            .machine
            .try_update(|m| m.act(id, intent))
            .unwrap_or_default();
        self.perform(fx);
    }

    fn perform(&self, effects: Vec<Effect>) {
        for fx in effects {
            match fx {
                Effect::Added { id } => {
                    // Focus goes to the new card unless the user is already in another one
                    // (filling a form of the first question must not be interrupted).
                    let active = active_element();
                    if active.as_ref().is_some_and(|a| self.inside(a)) {
                        continue;
                    }
                    if let Some(a) = active {
                        self.return_to.update_value(|r| r.push((id.clone(), a)));
                    }
                    request_animation_frame(move || {
                        if let Some(card) = by_id(&id) {
                            let _ = card.focus();
                            card.scroll_into_view_with_bool(false);
                        }
                    });
                }
                Effect::Focus { id, field } => {
                    let target = match field {
                        Some(i) => field_id(&id, i),
                        None => id,
                    };
                    request_animation_frame(move || {
                        if let Some(el) = by_id(&target) {
                            let _ = el.focus();
                        }
                    });
                }
                Effect::Removed { id } => self.focus_away(id),
                Effect::Answer(r) => reply(self.ctx.mcp_runner, r),
                Effect::Open { id, url } => {
                    // As the page does elsewhere: a new tab without a way back to Skiff.
                    let ok = location::open_in_new_tab(&url);
                    let fx = self
                        .machine
                        .try_update(|m| m.opened(&id, ok))
                        .unwrap_or_default();
                    self.perform(fx);
                }
                Effect::Notice(text) => self.ctx.notices.push(Level::Error, text),
                Effect::Finished { wait, done } => self.ctx.mcp.inbox.finished(wait, done),
            }
        }
    }

    /// Card `id` went: focus goes to the next question, else back where it was before the
    /// question came, else to the open dialog (its focus trap and Escape keep working) or the
    /// message box.
    fn focus_away(&self, id: String) {
        let this = *self;
        let back = self
            .return_to
            .try_update_value(|r| {
                let at = r.iter().position(|(i, _)| *i == id)?;
                Some(r.remove(at).1)
            })
            .flatten();
        let active = active_element();
        let had = active.as_ref().is_none_or(|a| self.inside(a));
        request_animation_frame(move || {
            if !had {
                return;
            }
            let next = this.machine.with_untracked(|m| m.ids().first().cloned());
            if let Some(next) = next {
                // ...and when it is answered too, focus goes back where it was before the
                // first.
                if let Some(b) = back {
                    this.return_to.update_value(|r| {
                        if !r.iter().any(|(i, _)| *i == next) {
                            r.push((next.clone(), b));
                        }
                    });
                }
                if let Some(card) = by_id(&next) {
                    let _ = card.focus();
                }
                return;
            }
            if let Some(b) = back.filter(|b| b.is_connected()) {
                let _ = b.focus();
                if active_element().is_some_and(|a| a == b) {
                    return;
                }
            }
            // The control is gone or disabled (a "try" button stays disabled until the call
            // ends): the open dialog itself, else the message box.
            let dialogs = document().query_selector_all(".modal-backdrop [role=\"dialog\"]");
            let last = dialogs
                .ok()
                .and_then(|l| l.item(l.length().checked_sub(1)?))
                .and_then(|n| n.dyn_into::<HtmlElement>().ok());
            match last {
                Some(d) => {
                    let _ = d.focus();
                }
                None => focus_composer(),
            }
        });
    }

    pub fn view(self) -> AnyView {
        let ids = memo(move || self.machine.with(Machine::ids));
        let shown = move || ids.with(|i| !i.is_empty());
        // Pinned just above the composer, as wide as it, never over it; the bottom of the
        // window when no composer shows. Measured again while questions show: the composer
        // grows with its text and is drawn anew when the conversation changes.
        let tick = RwSignal::new(0u32);
        let timer = set_interval_with_handle(
            move || {
                if shown() {
                    tick.update(|t| *t = t.wrapping_add(1));
                }
            },
            Duration::from_millis(400),
        )
        .ok();
        let resized = window_event_listener(leptos::ev::resize, move |_| {
            tick.update(|t| *t = t.wrapping_add(1))
        });
        on_cleanup(move || {
            if let Some(t) = timer {
                t.clear();
            }
            resized.remove();
        });
        let place = memo(move || {
            tick.track();
            ids.track();
            place()
        });
        view! {
            <section
                class="elicit-tray"
                aria-label="Questions from MCP servers"
                hidden=move || !shown()
                node_ref=self.root
                style:bottom=move || format!("{}px", place.get().0)
                style:left=move || format!("{}px", place.get().1)
                style:width=move || place.get().2
                style:max-height=move || format!("{}px", place.get().3)
                on:keydown=move |ev| self.on_key(&ev)
            >
                {keyed_list(move || ids.get(), String::clone, move |id| self.card(id))}
            </section>
        }
        .into_any()
    }

    /// Enter in a one-line field is Accept, as in any form. Tab moves between the tray's
    /// controls by itself: Settings' focus trap would otherwise pull focus back into the
    /// dialog at every Tab; past the tray's first or last control, Tab goes on as usual.
    fn on_key(&self, ev: &web_sys::KeyboardEvent) {
        let target = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok());
        if ev.key() == "Enter" && !ev.is_composing() {
            let one_line = target
                .as_ref()
                .and_then(|t| t.dyn_ref::<web_sys::HtmlInputElement>())
                .is_some_and(|i| i.type_() != "checkbox");
            let card = target
                .as_ref()
                .and_then(|t| t.closest(".elicit-card").ok().flatten());
            if let (true, Some(card)) = (one_line, card) {
                ev.prevent_default();
                self.act(&card.id(), CardIntent::Accept);
            }
            return;
        }
        if ev.key() != "Tab" || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        let Some(root) = self.root.get_untracked() else {
            return;
        };
        let items = focusable_within(&root);
        let at = active_element().and_then(|a| items.iter().position(|i| *i == a));
        let inside = match (at, ev.shift_key()) {
            (Some(i), true) => i > 0,
            (Some(i), false) => i + 1 < items.len(),
            // The card itself has focus (tabindex -1): Tab goes to its first control.
            (None, shift) => {
                !shift && !items.is_empty() && active_element().is_some_and(|a| self.inside(&a))
            }
        };
        if inside {
            ev.stop_propagation();
        }
    }

    fn card(self, id: String) -> impl IntoView {
        let Some(v) = self.machine.with_untracked(|m| m.view(&id)) else {
            return ().into_any();
        };
        let status = {
            let id = id.clone();
            memo(move || self.machine.with(|m| m.status(&id)))
        };
        let card_id = StoredValue::new(id.clone());
        let act = move |intent: CardIntent| self.act(&card_id.get_value(), intent);
        let buttons = move |accept: String| {
            view! {
                <div class="elicit-actions">
                    <button type="button" class="primary elicit-accept" on:click=move |_| act(CardIntent::Accept)>{accept}</button>
                    <button type="button" class="elicit-decline" on:click=move |_| act(CardIntent::Decline)>{DECLINE}</button>
                    <button type="button" class="elicit-cancel" on:click=move |_| act(CardIntent::Cancel)>{CANCEL}</button>
                </div>
            }
        };
        let body = match v.body {
            Body::Form(fields) => {
                let inputs = self.machine.with_untracked(|m| m.inputs(&id));
                let rows = fields
                    .into_iter()
                    .enumerate()
                    .map(|(i, f)| {
                        field(
                            self.machine,
                            id.clone(),
                            i,
                            f,
                            inputs.get(i).cloned(),
                            status,
                        )
                    })
                    .collect_view();
                view! {
                    <form class="elicit-form" on:submit=move |ev| {
                        // Never a page load; a submission that gets past Enter's handling is Accept.
                        ev.prevent_default();
                        act(CardIntent::Accept);
                    }>
                        {rows}
                        {move || status.get().summary.map(|s| view! { <p class="error elicit-summary" role="alert">{s}</p> })}
                        {buttons(v.accept.clone())}
                    </form>
                }
                .into_any()
            }
            Body::Url { domain, url } => {
                let url_line =
                    move || view! { <p class="muted elicit-url"><bdi>{url.clone()}</bdi></p> };
                let accept = v.accept.clone();
                (move || match status.get().waiting {
                    Some(waiting) => view! {
                        <p class="elicit-waiting" role="status">{waiting}</p>
                        {url_line()}
                        <div class="elicit-actions">
                            <button type="button" class="elicit-dismiss" on:click=move |_| act(CardIntent::Dismiss)>{DISMISS}</button>
                        </div>
                    }
                    .into_any(),
                    None => view! {
                        <div class="elicit-url-mode">
                            <p>
                                {URL_LEAD.0}
                                <strong class="elicit-domain"><bdi>{domain.clone()}</bdi></strong>
                                {URL_LEAD.1}
                            </p>
                            {url_line()}
                            {move || status.get().open_failed.map(|s| view! { <p class="error" role="alert">{s}</p> })}
                            {buttons(accept.clone())}
                        </div>
                    }
                    .into_any(),
                })
                .into_any()
            }
        };
        let server_name = v.server_name.clone();
        view! {
            <article
                class="elicit-card"
                id=id.clone()
                data-mode=v.mode.as_str()
                data-server-name=server_name
                aria-labelledby=format!("{id}-title")
                tabindex="-1"
            >
                <h2 class="elicit-title" id=format!("{id}-title")>
                    <bdi class="elicit-server">{v.server_name}</bdi>
                    {ASKS}
                </h2>
                <p class="elicit-message" dir="auto">{v.message}</p>
                {body}
            </article>
        }
        .into_any()
    }
}

/// `(bottom, left, width, max-height)` of the tray, from the composer's box.
fn place() -> (i64, i64, String, i64) {
    let w = window();
    let h = w
        .inner_height()
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(600.0);
    let r = document()
        .query_selector(".composer")
        .ok()
        .flatten()
        .map(|c| c.get_bounding_client_rect());
    match r {
        Some(r) if r.width() > 0.0 && r.top() > 0.0 => (
            (h - r.top()).max(0.0) as i64,
            r.left() as i64,
            format!("{}px", r.width() as i64),
            (h * 0.6).min(r.top() - 8.0).max(160.0) as i64,
        ),
        _ => (0, 0, "100%".into(), (h * 0.6) as i64),
    }
}
