//! "Delete" on a message: it and what follows it on screen go, after a confirmation that says
//! how many messages that is (`skiff_core::branches::delete_from` decides what goes and which
//! sibling takes the place). Not offered while the conversation is answering.

use leptos::prelude::*;
use skiff_core::branches;

use super::context::ctx;
use crate::stores::live_message::LiveMessage;

/// Where `msg` is in the conversation on screen, and how many messages deleting it removes.
fn position_and_count(msg: LiveMessage) -> Option<(usize, usize)> {
    let conv = ctx().convs.current.get_untracked()?;
    let id = msg.id();
    let messages: Vec<_> = conv
        .messages
        .with_untracked(|ms| ms.iter().map(LiveMessage::snapshot).collect());
    let at = messages.iter().position(|m| m.id == id)?;
    let n = conv
        .branches
        .with_untracked(|b| branches::deletes(&messages, b, at));
    Some((at, n))
}

fn sentence(n: usize) -> String {
    match n {
        0 | 1 => "Delete this message?".to_string(),
        2 => "Delete this message and the one after it?".to_string(),
        n => format!("Delete this message and the {} after it?", n - 1),
    }
}

#[component]
pub fn DeleteMessage(msg: LiveMessage) -> impl IntoView {
    let ctx = ctx();
    // `Some(n)` while the confirmation for n messages is shown.
    let confirming = RwSignal::new(None::<usize>);
    let ask = move |_| confirming.set(position_and_count(msg).map(|(_, n)| n));
    let delete = move |_| {
        confirming.set(None);
        let Some(conv) = ctx.convs.current.get_untracked() else {
            return;
        };
        if ctx.runner.is_sending(&conv.id()) {
            return;
        }
        if let Some((at, _)) = position_and_count(msg) {
            ctx.convs.delete_from(&conv, at);
        }
    };
    move || {
        match confirming.get() {
        None => view! { <button class="link-button delete-message" on:click=ask>"Delete"</button> }.into_any(),
        Some(n) => view! {
            <span class="confirm-delete-message" role="group" aria-label="Confirm delete">
                <span>{sentence(n)}</span>
                <button class="danger small delete-message-confirm" on:click=delete>"Delete"</button>
                <button class="small" on:click=move |_| confirming.set(None)>"Cancel"</button>
            </span>
        }
        .into_any(),
    }
    }
}
