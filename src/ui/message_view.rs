//! One message: role, optional reasoning, body, the tool calls it made, the sources of the
//! turn it ends, and how it ended (with retry when it did not end well, and Continue when the
//! agent loop reached its step limit). Subscribes only to its own message's signals, apart from
//! `Sources`, which reads the turn's earlier tool calls.

use leptos::prelude::*;
use skiff_core::pipeline::context::mark_before_question;
use skiff_core::provider::is_context_too_long_sentence;
use skiff_core::records::finish_reason::FinishReason;
use skiff_core::records::message::{MessageStatus, Role};

use super::attachment_chip::{chips, figures};
use super::composer::focus_composer;
use super::context::ctx;
use super::delete_message::DeleteMessage;
use super::markdown_body::MarkdownBody;
use super::tool_card::{Sources, ToolCards};
use crate::stores::live_message::LiveMessage;
use crate::stores::notices::Level;

#[component]
pub fn MessageView(
    msg: LiveMessage,
    #[prop(into)] is_last: Signal<bool>,
    /// "‹ pos/count ›" when this message has siblings (`skiff_core::branches`).
    #[prop(into)]
    branch: Signal<Option<(usize, usize)>>,
) -> impl IntoView {
    let ctx = ctx();
    let role_class = match msg.role {
        Role::User => "message message-user",
        Role::Assistant => "message message-assistant",
        Role::System => "message message-system",
    };
    // Retry, Regenerate and Continue are replaced by the streaming footer the moment they
    // act: focus goes to the message box (as Stop does), not to `<body>`, so a keyboard user
    // can type, or press Escape to stop, where they were.
    let retry = move |_| {
        let settings = ctx.settings.settings.get_untracked();
        ctx.runner.retry(ctx.convs, settings, msg);
        focus_composer();
    };
    // A finished answer regenerated stays as a sibling of the new one.
    let regenerate = move |_| {
        let settings = ctx.settings.settings.get_untracked();
        ctx.runner.regenerate(ctx.convs, settings, msg);
        focus_composer();
    };
    // Retry a too-long request with its question alone: the clear-context mark goes before
    // the question (nothing is deleted; Undo on the mark brings the rest back).
    let retry_shorter = move |_| {
        if let Some(conv) = ctx.convs.current.get_untracked() {
            let history: Vec<_> = conv
                .messages
                .with_untracked(|ms| ms.iter().map(LiveMessage::snapshot).collect());
            if let Some(mark) = mark_before_question(&history, &msg.id()) {
                ctx.convs.set_cleared_after(&conv, Some(mark));
            }
        }
        let settings = ctx.settings.settings.get_untracked();
        ctx.runner.retry(ctx.convs, settings, msg);
        focus_composer();
    };
    let continue_turn = move |_| {
        let settings = ctx.settings.settings.get_untracked();
        ctx.runner.continue_turn(ctx.convs, settings, msg);
        focus_composer();
    };
    // The answer's markdown body is built once (it keeps its rendered blocks); a question's
    // text is cheap to rebuild after an edit is cancelled.
    let markdown =
        (msg.role == Role::Assistant).then(|| view! { <MarkdownBody msg=msg /> }.into_any());
    let markdown = StoredValue::new_local(markdown.map(|v| std::cell::RefCell::new(Some(v))));
    let body_view = move || {
        let taken = markdown.with_value(|m| m.as_ref().and_then(|c| c.borrow_mut().take()));
        match taken {
            Some(v) => v,
            None => view! { <div class="user-text">{move || msg.content.get()}</div> }.into_any(),
        }
    };
    let editing = RwSignal::new(false);
    // "View request": the body this answer's request carried.
    let shown_request = RwSignal::new(None::<(String, String, bool)>);
    let show_request = move || {
        let Some(conv) = ctx.convs.current.get_untracked() else {
            return;
        };
        let id = msg.id();
        leptos::task::spawn_local(async move {
            match crate::runner::request_view::request_for(ctx.runner, conv, id).await {
                Ok(Some(r)) => {
                    let _ = shown_request.try_set(Some((r.url, r.body, r.exact)));
                }
                Ok(None) => {}
                // Rebuilding needs the send path's chunk (`runner::send_path`).
                Err(failure) => ctx.notices.push(Level::Error, failure.to_string()),
            }
        });
    };
    let busy = move || {
        ctx.convs
            .current
            .get()
            .is_some_and(|l| ctx.runner.is_sending(&l.id()))
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
    // "Copy" on a finished answer: its markdown as written, the text a user pastes elsewhere.
    let copied = RwSignal::new(None::<&'static str>);
    let copy = move |_| {
        let text = msg.content.get_untracked();
        leptos::task::spawn_local(async move {
            let label = match crate::platform::clipboard::write_text(&text).await {
                Ok(()) => "Copied",
                Err(e) => {
                    leptos::logging::warn!("copy failed: {e}");
                    "Copy failed"
                }
            };
            copied.set(Some(label));
            gloo_timers::callback::Timeout::new(1_500, move || copied.set(None)).forget();
        });
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
        // A stopped or cut-off answer can be continued: the next request ends with its words,
        // which the model carries on from, in the same message.
        let continue_button = move || {
            (can_retry && !msg.content.with_untracked(|c| c.trim().is_empty())).then(
                || view! { <button class="link-button continue" on:click=continue_turn>"Continue"</button> },
            )
        };
        let retry_button = move |label: &'static str| {
            can_retry.then(
                || view! { <button class="link-button retry" on:click=retry>{label}</button> },
            )
        };
        match status {
            MessageStatus::Streaming => {
                let stats = msg.stats.get();
                let tools_phase = msg.tool_calls.with(|calls| tool_phase_text(calls));
                let progress = msg.progress.get();
                let text = match (tools_phase, stats, progress) {
                    (Some(phase), _, _) => phase,
                    (None, Some(s), _) if s.tokens_per_second > 0.0 => {
                        format!(
                            "Generating… {} tokens · {} tok/s",
                            s.tokens,
                            skiff_core::format::fixed(s.tokens_per_second, 1)
                        )
                    }
                    (None, _, Some(p)) => p.line(),
                    _ => "Waiting for the model…".to_string(),
                };
                view! { <div class="message-status streaming"><span class="pulse"></span>{text}</div> }.into_any()
            }
            MessageStatus::Done => {
                let usage = msg.usage.get().map(|u| format!("{} tokens", u.completion_tokens));
                // Kept with the message: the speed stays under the answer after a reload.
                let speed = msg.speed.get().and_then(|s| {
                    let line = s.line()?;
                    Some(view! {
                        <span class="speed" data-cache-n=s.cache_n data-prompt-ms=s.prompt_ms>{line}</span>
                    })
                });
                let finish = msg.finish_reason.get();
                let truncated = finish.as_ref().is_some_and(FinishReason::is_length);
                let step_limit = (finish == Some(FinishReason::StepLimit)).then(|| {
                    let n = ctx.settings.settings.with(|s| s.step_limit);
                    view! {
                        <span class="step-limit-notice">
                            {format!(
                                "Stopped after {n} model steps, the step limit (Settings → Tools). The last tool results have not been sent to the model. "
                            )}
                            // Like Regenerate: only the newest answer, and not while this
                            // conversation is busy.
                            {can_retry.then(|| view! {
                                <button class="link-button continue" on:click=continue_turn>"Continue"</button>
                            })}
                        </span>
                    }
                });
                view! {
                    <div class="message-status">
                        {truncated.then(|| view! { <span class="warn">"Cut off at the length limit. "</span> })}
                        {truncated.then(continue_button)}
                        {step_limit}
                        {usage}
                        {speed}
                        <button class="link-button view-request" on:click=move |_| show_request()>"View request"</button>
                        <button class="link-button copy-message" on:click=copy>
                            {move || copied.get().unwrap_or("Copy")}
                        </button>
                        {can_retry.then(|| view! { <button class="link-button regenerate" on:click=regenerate>"Regenerate"</button> })}
                    </div>
                }
                .into_any()
            }
            MessageStatus::Stopped => view! {
                <div class="message-status stopped">"Stopped. " {retry_button("Retry")} {continue_button()}</div>
            }
            .into_any(),
            MessageStatus::Interrupted => view! {
                <div class="message-status stopped">
                    "Interrupted: the page was closed while this answer arrived. " {retry_button("Retry")}
                </div>
            }
            .into_any(),
            // Too long for the window: a plain Retry sends the same request again; leaving the
            // older messages out is what can work.
            MessageStatus::Error(text) if is_context_too_long_sentence(&text) => view! {
                <div class="message-error" role="alert">
                    <span>{text}</span>
                    {can_retry.then(|| view! {
                        <button class="link-button retry-shorter" on:click=retry_shorter>"Retry with older messages left out"</button>
                    })}
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
        <article class=role_class id=message_dom_id(&msg.id()) data-status=move || msg.status.with(|s| s.as_str())>
            <div class="message-meta">
                <span class="role">{if msg.role == Role::User { "You" } else { "Assistant" }}</span>
                {move || msg.model.get().map(|m| view! { <span class="model">{m}</span> })}
                {move || branch.get().map(|(pos, count)| view! { <BranchSwitch msg=msg pos=pos count=count /> })}
                {move || (!busy() && !editing.get()).then(|| view! { <DeleteMessage msg=msg /> })}
            </div>
            {reasoning}
            {move || if editing.get() {
                view! { <EditQuestion msg=msg editing=editing /> }.into_any()
            } else {
                body_view()
            }}
            {move || {
                msg.attachments_rev.track();
                let files = msg.attachments.get_value();
                if msg.role == Role::User { chips(files, None) } else { figures(files) }
            }}
            {move || (msg.role == Role::User && !editing.get() && !busy()).then(|| view! {
                <div class="message-status user-actions">
                    <button class="link-button edit-question" on:click=move |_| editing.set(true)>"Edit"</button>
                </div>
            })}
            {(msg.role == Role::Assistant).then(|| view! {
                <ToolCards msg=msg />
                <Sources msg=msg />
            })}
            {move || (msg.role == Role::Assistant).then(footer)}
            {move || shown_request.get().map(|(url, body, exact)| view! {
                <RequestDialog url=url body=body exact=exact on_close=move || shown_request.set(None) />
            })}
        </article>
    }
}

/// While a step's calls run, the footer says what the turn waits for instead of the model.
fn tool_phase_text(calls: &[skiff_core::records::tool_call::ToolCallRecord]) -> Option<String> {
    use skiff_core::records::tool_call::ToolCallStatus;
    if calls.is_empty() {
        return None;
    }
    let waiting = calls
        .iter()
        .filter(|c| *c.status() == ToolCallStatus::AwaitingApproval)
        .count();
    let running = calls
        .iter()
        .filter(|c| *c.status() == ToolCallStatus::Running)
        .count();
    Some(match (waiting, running) {
        (0, 0) => "Sending the results to the model…".to_string(),
        (0, 1) => "Running a tool…".to_string(),
        (0, n) => format!("Running {n} tools…"),
        (1, _) => "Waiting for your approval…".to_string(),
        (n, _) => format!("Waiting for your approval of {n} calls…"),
    })
}

/// The element id of a message's `<article>`, so search can scroll to it.
pub fn message_dom_id(message_id: &str) -> String {
    format!("message-{message_id}")
}

/// "‹ 2/3 ›": switch between the siblings at this message (`skiff_core::branches`).
#[component]
fn BranchSwitch(msg: LiveMessage, pos: usize, count: usize) -> impl IntoView {
    let ctx = ctx();
    let go = move |to: usize| {
        let Some(conv) = ctx.convs.current.get_untracked() else {
            return;
        };
        if ctx.runner.is_sending(&conv.id()) {
            return;
        }
        let id = msg.id();
        let at = conv
            .messages
            .with_untracked(|ms| ms.iter().position(|m| m.id.with_value(|x| *x == id)));
        if let Some(at) = at {
            ctx.convs.switch_branch(&conv, at, to);
        }
    };
    view! {
        <span class="branch-switch" role="group" aria-label="Versions of this message">
            <button class="link-button branch-prev" aria-label="Previous version" disabled={pos <= 1} on:click=move |_| go(pos - 1)>"‹"</button>
            <span class="branch-pos">{format!("{pos}/{count}")}</span>
            <button class="link-button branch-next" aria-label="Next version" disabled={pos >= count} on:click=move |_| go(pos + 1)>"›"</button>
        </span>
    }
}

/// Editing a question: sending keeps the old question and its continuation as a branch.
#[component]
fn EditQuestion(msg: LiveMessage, editing: RwSignal<bool>) -> impl IntoView {
    let ctx = ctx();
    let draft = RwSignal::new(msg.content.get_untracked());
    let send = move || {
        let text = draft.get_untracked();
        if text.trim().is_empty() {
            return;
        }
        editing.set(false);
        ctx.runner
            .edit_and_resend(ctx.convs, ctx.settings.settings.get_untracked(), msg, text);
        // The edit box is gone: focus must not fall to `<body>`.
        focus_composer();
    };
    view! {
        <form class="edit-question-form" on:submit=move |ev| { ev.prevent_default(); send(); }>
            <textarea
                aria-label="Edit your message"
                rows="3"
                prop:value=move || draft.get()
                on:input=move |ev| draft.set(event_target_value(&ev))
                on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                    if ev.key() == "Escape" {
                        ev.prevent_default();
                        editing.set(false);
                    } else if super::composer::sends_message(&ev) {
                        // The composer's rule: Enter (or Ctrl/⌘+Enter) sends, Shift+Enter
                        // adds a line.
                        ev.prevent_default();
                        send();
                    }
                }
            ></textarea>
            <div class="row">
                <button type="submit" class="small primary send-edit" disabled=move || draft.with(|d| d.trim().is_empty())>"Send"</button>
                <button type="button" class="small cancel-edit" on:click=move |_| editing.set(false)>"Cancel"</button>
            </div>
        </form>
    }
}

/// The request an answer was made from, as text.
#[component]
fn RequestDialog(
    url: String,
    body: String,
    exact: bool,
    #[prop(into)] on_close: Callback<()>,
) -> impl IntoView {
    view! {
        <super::dialog::Modal label="The request" class="settings request-dialog" on_close=on_close>
            <header class="settings-header">
                <h2>"The request"</h2>
                <button class="icon-button" aria-label="Close the request" on:click=move |_| on_close.run(())>
                    {super::icons::close()}
                </button>
            </header>
            <p class="hint">{if exact {
                "Exactly what this tab sent for this answer (keys travel in headers and are not shown)."
            } else {
                "Rebuilt from the stored conversation with today's settings and time: this answer was made before the page was last loaded, and exact bodies are kept only until a reload."
            }}</p>
            <p><code class="request-url">{format!("POST {url}")}</code></p>
            <pre class="request-body">{body}</pre>
        </super::dialog::Modal>
    }
}
