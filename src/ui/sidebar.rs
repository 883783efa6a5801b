//! The conversation list: new, select, rename in place, delete with confirmation. Choosing a
//! conversation (or New chat) puts the caret in the message box.

use leptos::prelude::*;
use skiff_core::chat::ConversationSummary;

use super::composer::focus_composer;
use super::context::ctx;
use super::icons;

#[component]
pub fn Sidebar() -> impl IntoView {
    let ctx = ctx();
    let new_chat = move |_| {
        ctx.convs.select_none();
        ctx.sidebar_open.set(false);
        focus_composer();
    };
    view! {
        <nav class="sidebar" aria-label="Conversations">
            <div class="sidebar-top">
                <span class="brand">"Skiff"</span>
                <button class="primary new-chat" on:click=new_chat>"+ New chat"</button>
            </div>
            <Show when=move || ctx.convs.index.with(Vec::is_empty)>
                <p class="sidebar-empty">"No conversations yet."</p>
            </Show>
            <ul class="conversation-list">
                <For each=move || ctx.convs.index.get() key=|s| (s.id.clone(), s.title.clone()) let:s>
                    <ConversationItem summary=s />
                </For>
            </ul>
            // Where a keyboard or screen-reader user finds the shortcuts (also Ctrl+/ or ?).
            <button class="link-button open-search" on:click=move |_| ctx.show_search.set(true)>"Search conversations"</button>
            <button class="link-button show-shortcuts" on:click=move |_| ctx.show_help.set(true)>
                "Keyboard shortcuts"
            </button>
        </nav>
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Normal,
    Renaming,
    ConfirmDelete,
}

#[component]
fn ConversationItem(summary: ConversationSummary) -> impl IntoView {
    let ctx = ctx();
    let mode = RwSignal::new(Mode::Normal);
    let id = StoredValue::new(summary.id.clone());
    let draft = RwSignal::new(summary.title.clone());
    let title = if summary.title.is_empty() {
        "New conversation".to_string()
    } else {
        summary.title.clone()
    };
    let confirm_text = format!("Delete “{title}”?");
    let active = move || ctx.convs.current.get().map(|l| l.id()) == Some(id.get_value());
    let select = move |_| {
        ctx.convs.select(&id.get_value());
        ctx.sidebar_open.set(false);
        focus_composer();
    };
    let commit_rename = move || {
        ctx.convs.rename(&id.get_value(), &draft.get_untracked());
        mode.set(Mode::Normal);
    };
    let delete = move |_| {
        let id = id.get_value();
        ctx.runner.stop(&id);
        ctx.convs.delete(&id);
    };
    view! {
        <li class="conversation" class:active=active>
            {move || match mode.get() {
                Mode::Normal => view! {
                    <button class="conversation-select" on:click=select title=title.clone()>
                        {title.clone()}
                    </button>
                    <button class="icon-button" title="Rename" aria-label="Rename" on:click=move |_| mode.set(Mode::Renaming)>{icons::pencil()}</button>
                    <button class="icon-button" title="Delete" aria-label="Delete" on:click=move |_| mode.set(Mode::ConfirmDelete)>{icons::trash()}</button>
                }
                .into_any(),
                Mode::Renaming => view! {
                    <form class="rename" on:submit=move |ev| { ev.prevent_default(); commit_rename(); }>
                        <input
                            aria-label="Conversation title"
                            prop:value=move || draft.get()
                            on:input=move |ev| draft.set(event_target_value(&ev))
                            on:keydown=move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Escape" {
                                // Handled: the page's Escape (stop the answer) is not also run.
                                ev.prevent_default();
                                mode.set(Mode::Normal);
                            }
                            autofocus
                        />
                        <button type="submit" class="small">"Save"</button>
                    </form>
                }
                .into_any(),
                Mode::ConfirmDelete => view! {
                    <div class="confirm-delete" role="group" aria-label="Confirm delete">
                        <span>{confirm_text.clone()}</span>
                        <button class="danger small" on:click=delete>"Delete"</button>
                        <button class="small" on:click=move |_| mode.set(Mode::Normal)>"Cancel"</button>
                    </div>
                }
                .into_any(),
            }}
        </li>
    }
}
