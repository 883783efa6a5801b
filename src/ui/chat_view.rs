//! The main column: header, the current conversation's messages, and the composer.
//! Opens a conversation at its newest message and follows the text as it streams, until the
//! user scrolls up to read (scrolling back to the bottom, the "↓" button, or a new turn
//! follows again). Streaming costs one scroll per animation frame at most, only while
//! following.

use crate::stores::reactive::{effect, memo};
use leptos::html;
use leptos::prelude::*;
use skiff_core::chat_line::{chat_line, Drop, LinePart};
use skiff_core::follow::{Follow, ScrollPos};
use skiff_core::masks::find;
use skiff_core::projects;
use skiff_core::records::message::Role;

use super::composer::Composer;
use super::context::ctx;
use super::conversation_menu::ConversationMenu;
use super::icons;
use super::keyed_list::keyed_list;
use super::markdown_body::markdown_ready;
use super::message_view::MessageView;
use super::model_picker::ModelPicker;
use super::onboarding::Onboarding;
use super::tool_picker::ToolPicker;
use super::when::When;
use crate::stores::live_message::LiveMessage;

#[component]
pub fn ChatView() -> impl IntoView {
    let ctx = ctx();
    let scroller = NodeRef::<html::Div>::new();
    // While a conversation is read from storage its list title shows, and the message area
    // stays empty and busy (no placeholder that would jump when the messages arrive).
    let loading = move || ctx.convs.loading.with(Option::is_some);
    let title = move || {
        ctx.convs
            .current
            .get()
            .map(|l| l.meta.with(|m| m.title.clone()))
            .or_else(|| {
                let id = ctx.convs.loading.get()?;
                ctx.convs
                    .index
                    .with(|ix| ix.iter().find(|s| s.id == id).map(|s| s.title.clone()))
            })
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
    let last_id = memo(move || messages().last().map(|m| m.id()));
    // Which messages on screen have siblings (‹ 2/3 ›). Only conversations with branches pay
    // for a pass over their messages, and only when the list or the branches change.
    let siblings = memo(move || {
        let conv = ctx.convs.current.get()?;
        let branches = conv.branches.get();
        if branches.is_empty() {
            return Some(Vec::new());
        }
        let path: Vec<_> = conv
            .messages
            .with(|ms| ms.iter().map(LiveMessage::snapshot).collect());
        Some(skiff_core::branches::all_siblings(&path, &branches))
    });

    // Following the newest text (skiff_core::follow decides; this measures and scrolls).
    let follow = StoredValue::new(Follow::default());
    // Whether the "jump to the latest" button shows (the user reads above the newest text).
    let jump = RwSignal::new(false);
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
            if follow.try_with_value(Follow::following) != Some(true) {
                return;
            }
            if let Some(el) = scroller.try_get_untracked().flatten() {
                el.set_scroll_top(el.scroll_height());
            }
        });
    };
    // The newest text is wanted again: another conversation opened (from the sidebar, a
    // reload, New chat), or a turn started in this one (a question sent, Retry, Regenerate,
    // Continue), wherever the user had scrolled.
    let follow_again = move || {
        follow.update_value(Follow::turn_started);
        jump.set(false);
        scroll_to_end();
    };
    let last_user_id = memo(move || {
        ctx.convs.current.get().and_then(|l| {
            l.messages.with(|ms| {
                ms.iter()
                    .rev()
                    .find(|m| m.role == Role::User)
                    .map(|m| m.id())
            })
        })
    });
    let conv_id = memo(move || ctx.convs.current.get().map(|l| l.id()));
    let turn_here = memo(move || {
        let id = conv_id.get();
        ctx.runner
            .sending
            .with(|s| id.is_some_and(|id| s.contains(&id)))
    });
    effect(move || {
        conv_id.track();
        last_user_id.track();
        follow_again();
    });
    effect(move || {
        if turn_here.get() {
            follow_again();
        }
    });
    // The newest message grew (a flush: at most one per 50 ms) or changed shape, or every
    // message was drawn again (the markdown renderer arrived: plain text became markdown).
    effect(move || {
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
        markdown_ready();
        if follow.get_value().following() {
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
            follow.update_value(|f| f.on_scroll(pos));
            let offers = follow.with_value(Follow::offers_jump);
            if jump.get_untracked() != offers {
                jump.set(offers);
            }
        }
    };
    let empty = move || messages().is_empty() && !loading();
    // The project and mask of the open conversation, or those the next new chat will have.
    let line = memo(move || {
        let (project, mask, draft) = match ctx.convs.current.get() {
            Some(c) => c.meta.with(|m| (m.project.clone(), m.mask.clone(), false)),
            None => {
                let mask = ctx
                    .convs
                    .draft_mask
                    .get()
                    .and_then(|id| ctx.settings.settings.with(|s| find(&s.masks, &id)));
                (ctx.convs.draft_project.get(), mask, true)
            }
        };
        ctx.settings.settings.with(|s| {
            chat_line(
                projects::find(&s.projects, project.as_deref()),
                mask.as_ref(),
                draft,
            )
        })
    });
    let mask_line = move || {
        line.with(|parts| {
            parts
                .iter()
                .enumerate()
                .map(|(i, part)| line_part(i > 0, part))
                .collect_view()
        })
    };
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
                <ModelPicker />
                <ToolPicker />
                <ConversationMenu />
                <button class="icon-button" aria-label="Settings" title="Settings" on:click=move |_| ctx.show_settings.set(true)>
                    {icons::gear()}
                </button>
            </header>
            <p class="mask-line" role="status" hidden=move || line.with(Vec::is_empty)>{mask_line}</p>
            <div class="messages" node_ref=scroller on:scroll=on_scroll aria-busy=move || loading().to_string()>
                <When when=empty>
                    <Onboarding />
                </When>
                {keyed_list(
                    messages,
                    |m| m.id(),
                    move |m| {
                        let id = m.id();
                        let is_last = Signal::derive(move || last_id.get().as_deref() == Some(id.as_str()));
                        let branch_id = m.id();
                        let branch = Signal::derive(move || {
                            siblings.with(|s| {
                                s.as_ref()?.iter().find(|(i, _, _)| *i == branch_id).map(|(_, p, n)| (*p, *n))
                            })
                        });
                        let mark_id = m.id();
                        let summary_id = m.id();
                        let marked = move || {
                            ctx.convs.current.get().is_some_and(|c| {
                                c.meta.with(|meta| meta.cleared_after.as_deref() == Some(mark_id.as_str()))
                            })
                        };
                        let summary = move || {
                            ctx.convs.current.get().and_then(|c| {
                                c.meta.with(|meta| {
                                    meta.memory.clone().filter(|mem| mem.through == summary_id)
                                })
                            })
                        };
                        view! {
                            <MessageView msg=m is_last=is_last branch=branch />
                            {move || summary().map(|mem| view! { <SummaryCard text=mem.text /> })}
                            <When when=marked>
                                <ContextMark />
                            </When>
                        }
                    },
                )}
            </div>
            <When when=move || jump.get()>
                <button
                    type="button"
                    class="jump-to-latest"
                    aria-label="Jump to the latest message"
                    title="Jump to the latest message"
                    on:click=move |_| follow_again()
                >
                    "↓"
                </button>
            </When>
            <Composer />
        </main>
    }
}

/// Where the user cleared the context: the model does not see anything above it.
#[component]
fn ContextMark() -> impl IntoView {
    let ctx = ctx();
    let undo = move |_| {
        if let Some(conv) = ctx.convs.current.get_untracked() {
            ctx.convs.set_cleared_after(&conv, None);
        }
    };
    view! {
        <div class="context-mark" role="separator" aria-label="Context cleared">
            <span>"Context cleared: the model does not see the messages above"</span>
            <button type="button" class="small undo-clear" on:click=undo>"Undo"</button>
        </div>
    }
}

/// Where a summary stands in for the messages above: the model receives it instead of them.
/// Shown folded; the user can read it, edit it, or drop it (the messages go back in).
#[component]
fn SummaryCard(text: String) -> impl IntoView {
    let ctx = ctx();
    let editing = RwSignal::new(false);
    let draft = RwSignal::new(text.clone());
    let save = move |_| {
        if let Some(conv) = ctx.convs.current.get_untracked() {
            let memory = conv.meta.with_untracked(|m| m.memory.clone());
            if let Some(mut memory) = memory {
                memory.text = draft.get_untracked();
                ctx.convs.set_memory(&conv, Some(memory));
            }
        }
        editing.set(false);
    };
    let drop_it = move |_| {
        if let Some(conv) = ctx.convs.current.get_untracked() {
            ctx.convs.set_memory(&conv, None);
        }
    };
    view! {
        <details class="summary-card">
            <summary>"Summary of the conversation above: the model receives it instead of those messages"</summary>
            <When
                when=move || editing.get()
                fallback=move || view! {
                    <p class="summary-text">{move || draft.get()}</p>
                    <div class="row">
                        <button type="button" class="small edit-summary" on:click=move |_| editing.set(true)>"Edit"</button>
                        <button type="button" class="small drop-summary" on:click=drop_it>"Send the messages again instead"</button>
                    </div>
                }
            >
                <textarea rows="6" aria-label="Summary" prop:value=move || draft.get() on:input=move |ev| draft.set(event_target_value(&ev))></textarea>
                <div class="row">
                    <button type="button" class="small primary save-summary" on:click=save>"Save"</button>
                    <button type="button" class="small" on:click=move |_| editing.set(false)>"Cancel"</button>
                </div>
            </When>
        </details>
    }
}

/// One part of the chat's project-and-mask line ([`chat_line`]), after " · " when it follows
/// another; a draft's part has the button that starts without it.
fn line_part(after: bool, part: &LinePart) -> AnyView {
    let ctx = ctx();
    let drop = part.drop.map(|(label, what)| {
        let drop = move |_| match what {
            Drop::Mask => ctx.convs.draft_mask.set(None),
            Drop::Project => ctx.convs.draft_project.set(None),
        };
        view! { <button type="button" class="link-button" on:click=drop>{label}</button> }
    });
    view! {
        {after.then_some(" · ")}
        {part.lead}
        <strong>{part.name.clone()}</strong>
        {drop}
    }
    .into_any()
}
