//! The input box: Enter sends, Shift+Enter adds a line; while a reply streams the button
//! becomes Stop. The draft survives a failed send.

use leptos::html;
use leptos::prelude::*;

use super::context::ctx;

#[component]
pub fn Composer() -> impl IntoView {
    let ctx = ctx();
    let draft = RwSignal::new(String::new());
    let input = NodeRef::<html::Textarea>::new();
    let configured = move || ctx.settings.settings.with(|s| s.is_configured());
    let sending = move || {
        let current = ctx.convs.current.get().map(|l| l.id());
        current
            .map(|id| ctx.runner.is_sending(&id))
            .unwrap_or(false)
    };
    let send = move || {
        if sending() || !configured() {
            return;
        }
        let text = draft.get_untracked();
        if text.trim().is_empty() {
            return;
        }
        draft.set(String::new());
        ctx.runner
            .send(ctx.convs, ctx.settings.settings.get_untracked(), text);
        if let Some(el) = input.get_untracked() {
            let _ = el.focus();
        }
    };
    let stop = move |_| {
        if let Some(id) = ctx.convs.current_id() {
            ctx.runner.stop(&id);
        }
    };
    let placeholder = move || {
        if !configured() {
            "Set up a provider in Settings to start chatting"
        } else if sending() {
            "Answer in progress… you can type your next message"
        } else {
            "Message (Enter to send, Shift+Enter for a new line)"
        }
    };
    view! {
        <form class="composer" on:submit=move |ev| {
            ev.prevent_default();
            send();
        }>
            <textarea
                node_ref=input
                rows="1"
                aria-label="Message"
                placeholder=placeholder
                prop:value=move || draft.get()
                on:input=move |ev| draft.set(event_target_value(&ev))
                on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                    if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                        ev.prevent_default();
                        send();
                    }
                }
            ></textarea>
            <Show
                when=sending
                fallback=move || view! {
                    <button
                        type="submit"
                        class="primary send"
                        disabled=move || !configured() || draft.with(|d| d.trim().is_empty())
                    >
                        "Send"
                    </button>
                }
            >
                <button type="button" class="danger stop" on:click=stop>"Stop"</button>
            </Show>
        </form>
    }
}
