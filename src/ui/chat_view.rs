//! The main column: header, the current conversation's messages, and the composer.
//! Opens a conversation at its newest message and follows the text as it streams, until the
//! user scrolls up to read (scrolling back to the bottom follows again). Streaming costs one
//! scroll per animation frame at most, only while following.

use leptos::html;
use leptos::prelude::*;
use skiff_core::chat::Role;
use skiff_core::follow::{follows_after_scroll, ScrollPos};

use super::composer::Composer;
use super::context::ctx;
use super::elicit_card::ElicitTray;
use super::icons;
use super::message_view::MessageView;
use super::onboarding::Onboarding;
use super::tool_picker::ToolPicker;

#[component]
pub fn ChatView() -> impl IntoView {
    let ctx = ctx();
    let scroller = NodeRef::<html::Div>::new();
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

    // Following the newest text (skiff_core::follow decides; this measures and scrolls).
    let following = StoredValue::new(true);
    let last_top = StoredValue::new(None::<f64>);
    let frame_pending = StoredValue::new(false);
    // One scroll per frame at most, after the frame's effects have rendered: the messages and
    // their markdown are rendered by effects that run after this view's, and a height read
    // before them opened a conversation near its top.
    let scroll_to_end = move || {
        if frame_pending.get_value() {
            return;
        }
        frame_pending.set_value(true);
        request_animation_frame(move || {
            let _ = frame_pending.try_set_value(false);
            if following.try_get_value() != Some(true) {
                return;
            }
            if let Some(el) = scroller.try_get_untracked().flatten() {
                el.set_scroll_top(el.scroll_height());
            }
        });
    };
    // Another conversation opened (from the sidebar, a reload, New chat) or the user sent a
    // message: open at the newest text and follow it again.
    let last_user_id = Memo::new(move |_| {
        ctx.convs.current.get().and_then(|l| {
            l.messages.with(|ms| {
                ms.iter()
                    .rev()
                    .find(|m| m.role == Role::User)
                    .map(|m| m.id())
            })
        })
    });
    let conv_id = Memo::new(move |_| ctx.convs.current.get().map(|l| l.id()));
    Effect::new(move |_| {
        conv_id.track();
        last_user_id.track();
        following.set_value(true);
        last_top.set_value(None);
        scroll_to_end();
    });
    // The newest message grew (a flush: at most one per 50 ms) or changed shape.
    Effect::new(move |_| {
        let last = ctx
            .convs
            .current
            .get()
            .and_then(|l| l.messages.with(|ms| ms.last().copied()));
        if let Some(m) = last {
            m.content.track();
            m.reasoning.track();
            m.status.track();
            m.tool_calls.track();
        }
        if following.get_value() {
            scroll_to_end();
        }
    });
    let on_scroll = move |_| {
        if let Some(el) = scroller.get_untracked() {
            let pos = ScrollPos {
                top: f64::from(el.scroll_top()),
                client_height: f64::from(el.client_height()),
                scroll_height: f64::from(el.scroll_height()),
            };
            following.set_value(follows_after_scroll(
                following.get_value(),
                last_top.get_value(),
                pos,
            ));
            last_top.set_value(Some(pos.top));
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
            <ElicitTray />
            <Composer />
        </main>
    }
}
