//! One message: role, optional reasoning, body, and how it ended (with retry when it did not
//! end well). Subscribes only to its own message's signals.

use leptos::prelude::*;
use skiff_core::chat::{MessageStatus, Role};

use super::context::ctx;
use super::markdown_body::MarkdownBody;
use crate::stores::live_message::LiveMessage;

#[component]
pub fn MessageView(msg: LiveMessage, #[prop(into)] is_last: Signal<bool>) -> impl IntoView {
    let ctx = ctx();
    let role_class = match msg.role {
        Role::User => "message message-user",
        Role::Assistant => "message message-assistant",
        Role::System => "message message-system",
    };
    let retry = move |_| {
        let settings = ctx.settings.settings.get_untracked();
        ctx.runner.retry(ctx.convs, settings, msg);
    };
    let body = match msg.role {
        Role::Assistant => view! { <MarkdownBody msg=msg /> }.into_any(),
        _ => view! { <div class="user-text">{move || msg.content.get()}</div> }.into_any(),
    };
    let reasoning = move || {
        let text = msg.reasoning.get();
        (!text.is_empty()).then(|| {
            let streaming = msg.status.with(|s| *s == MessageStatus::Streaming);
            let no_answer_yet = msg.content.with(String::is_empty);
            view! {
                <details class="reasoning" open=streaming && no_answer_yet>
                    <summary>{if streaming && no_answer_yet { "Thinking…" } else { "Reasoning" }}</summary>
                    <div class="reasoning-text">{text}</div>
                </details>
            }
        })
    };
    let footer = move || {
        let status = msg.status.get();
        // Only the newest answer can be regenerated, and not while this conversation streams.
        let busy_here = ctx
            .convs
            .current
            .get()
            .is_some_and(|l| ctx.runner.is_sending(&l.id()));
        let can_retry = msg.role == Role::Assistant && is_last.get() && !busy_here;
        let retry_button = move |label: &'static str| {
            can_retry.then(
                || view! { <button class="link-button retry" on:click=retry>{label}</button> },
            )
        };
        match status {
            MessageStatus::Streaming => {
                let stats = msg.stats.get();
                let text = match stats {
                    Some(s) if s.tokens_per_second > 0.0 => {
                        format!("Generating… {} tokens · {:.1} tok/s", s.tokens, s.tokens_per_second)
                    }
                    _ => "Waiting for the model…".to_string(),
                };
                view! { <div class="message-status streaming"><span class="pulse"></span>{text}</div> }.into_any()
            }
            MessageStatus::Done => {
                let usage = msg.usage.get().map(|u| format!("{} tokens", u.completion_tokens));
                let truncated = msg.finish_reason.get().as_deref() == Some("length");
                view! {
                    <div class="message-status">
                        {truncated.then(|| view! { <span class="warn">"Cut off at the length limit. "</span> })}
                        {usage}
                        {retry_button("Regenerate")}
                    </div>
                }
                .into_any()
            }
            MessageStatus::Stopped => view! {
                <div class="message-status stopped">"Stopped. " {retry_button("Retry")}</div>
            }
            .into_any(),
            MessageStatus::Interrupted => view! {
                <div class="message-status stopped">
                    "Interrupted: the page was closed while this answer arrived. " {retry_button("Retry")}
                </div>
            }
            .into_any(),
            MessageStatus::Error(text) => view! {
                <div class="message-error" role="alert">
                    <span>{text}</span>
                    {retry_button("Retry")}
                </div>
            }
            .into_any(),
        }
    };
    view! {
        <article class=role_class data-status=move || status_name(&msg.status.get())>
            <div class="message-meta">
                <span class="role">{if msg.role == Role::User { "You" } else { "Assistant" }}</span>
                {move || msg.model.get().map(|m| view! { <span class="model">{m}</span> })}
            </div>
            {reasoning}
            {body}
            {move || (msg.role == Role::Assistant).then(footer)}
        </article>
    }
}

fn status_name(s: &MessageStatus) -> &'static str {
    match s {
        MessageStatus::Done => "done",
        MessageStatus::Streaming => "streaming",
        MessageStatus::Stopped => "stopped",
        MessageStatus::Interrupted => "interrupted",
        MessageStatus::Error(_) => "error",
    }
}
