//! The main column: header, the current conversation's messages, and the composer.
//! Keeps the view pinned to the newest text while the user is at the bottom.

use leptos::html;
use leptos::prelude::*;

use super::composer::Composer;
use super::context::ctx;
use super::icons;
use super::message_view::MessageView;
use super::onboarding::Onboarding;
use super::tool_picker::ToolPicker;

#[component]
pub fn ChatView() -> impl IntoView {
    let ctx = ctx();
    let scroller = NodeRef::<html::Div>::new();
    let pinned = StoredValue::new(true);
    let title = move || {
        ctx.convs
            .current
            .get()
            .map(|l| l.meta.with(|m| m.title.clone()))
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| "New conversation".to_string())
    };
    let messages = move || {
        ctx.convs
            .current
            .get()
            .map(|l| l.messages.get())
            .unwrap_or_default()
    };
    let last_id = Memo::new(move |_| messages().last().map(|m| m.id()));

    // Follow the newest text, unless the user scrolled up to read.
    Effect::new(move |_| {
        let last = ctx
            .convs
            .current
            .get()
            .and_then(|l| l.messages.with(|ms| ms.last().copied()));
        if let Some(m) = last {
            m.content.track();
            m.status.track();
        }
        if let Some(el) = scroller.get() {
            if pinned.get_value() {
                el.set_scroll_top(el.scroll_height());
            }
        }
    });
    let on_scroll = move |_| {
        if let Some(el) = scroller.get_untracked() {
            let at_bottom = el.scroll_top() + el.client_height() >= el.scroll_height() - 48;
            pinned.set_value(at_bottom);
        }
    };
    let empty = move || messages().is_empty();
    view! {
        <main class="chat">
            <header class="chat-header">
                <button
                    class="icon-button menu"
                    aria-label="Conversations"
                    on:click=move |_| ctx.sidebar_open.update(|o| *o = !*o)
                >
                    {icons::menu()}
                </button>
                <h1 class="chat-title">{title}</h1>
                <ToolPicker />
                <button class="icon-button" aria-label="Settings" title="Settings" on:click=move |_| ctx.show_settings.set(true)>
                    {icons::gear()}
                </button>
            </header>
            <div class="messages" node_ref=scroller on:scroll=on_scroll>
                <Show when=empty>
                    <Onboarding />
                </Show>
                <For
                    each=messages
                    key=|m| m.id()
                    children=move |m| {
                        let id = m.id();
                        let is_last = Signal::derive(move || last_id.get().as_deref() == Some(id.as_str()));
                        view! { <MessageView msg=m is_last=is_last /> }
                    }
                />
            </div>
            <Composer />
        </main>
    }
}
