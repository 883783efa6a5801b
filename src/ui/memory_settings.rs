//! The "Built-in tools" settings tab: the switch that offers the built-in tools (memory and
//! current time) to the model, and the memory itself, which the user can read, correct, add to
//! and prune. What the model remembers about the user must never be hidden from them.
//!
//! Changes go through `MemoryStore`, which applies the same limits the tools obey and saves.
//! The model writes these entries, so they are shown through `skiff_core::display::text`: a
//! memory cannot hide text from the user who reads it.

use leptos::prelude::*;
use skiff_core::builtin::memory::{
    parse_tag_list, MemoryEntry, Saved, MAX_ENTRIES, MAX_TEXT_CHARS,
};
use skiff_core::calendar;
use skiff_core::display::text;

use super::context::Ctx;
use super::fields::{TextArea, TextField};
use super::keyed_list::keyed_list;
use super::when::When;
use crate::platform::clock;
use crate::runner::builtin::{local_offset_minutes, BUILTIN_ID};
use crate::stores::memory::MemoryStore;

/// `2024-02-29 13:45`, in the browser's time zone.
fn local_stamp(ms: f64) -> String {
    let t = calendar::civil_time(ms, local_offset_minutes());
    format!("{} {:02}:{:02}", t.date_text(), t.hour, t.minute)
}

/// "On: 4 tools offered to the model", or why not: the built-in server goes through the MCP
/// session like any other, so it can fail like any other, and the user should see it.
fn status_line(memory: MemoryStore) -> impl Fn() -> String {
    // Optional so the tab still renders when mounted alone (a test); it then shows the
    // switch without a status.
    let mcp = use_context::<Ctx>().map(|c| c.mcp);
    move || {
        if !memory.builtin_enabled.get() {
            return "Off: the model is not offered the built-in tools.".to_string();
        }
        let Some(mcp) = mcp else {
            return String::new();
        };
        let live = mcp.live.with(|l| {
            l.iter()
                .find(|(id, _)| id == BUILTIN_ID)
                .map(|(_, live)| *live)
        });
        let Some(live) = live else {
            return "Starting…".to_string();
        };
        let status = live.health.with(|h| h.status.clone());
        if live.is_connected() {
            let n = live.tools.with(Vec::len);
            format!("On: {n} tools offered to the model.")
        } else {
            status.describe(clock::now_ms())
        }
    }
}

#[component]
pub fn MemorySettings(memory: MemoryStore) -> impl IntoView {
    let status = status_line(memory);
    let entries = move || {
        memory
            .book
            .with(|b| b.newest_first().into_iter().cloned().collect::<Vec<_>>())
    };
    view! {
        <section class="memory-section">
            <label class="memory-switch">
                <input
                    type="checkbox"
                    id="builtin-enabled"
                    prop:checked=move || memory.builtin_enabled.get()
                    on:change=move |ev| memory.set_enabled(event_target_checked(&ev))
                />
                <span>"Built-in tools"</span>
            </label>
            <p class="memory-status" role="status">{status}</p>
            <p class="hint">
                "memory_save, memory_search, memory_delete and current_time, served inside this page with no server. Memories are kept in this browser only and are offered to the model in every conversation while this is on."
            </p>

            <h3>"Memories"</h3>
            <p class="memory-count" role="status">
                {move || {
                    let n = memory.book.with(|b| b.len());
                    format!("{n} of {MAX_ENTRIES} memories")
                }}
            </p>
            <AddMemory memory=memory />
            <ul class="memory-list">
                {keyed_list(entries, |e| serde_json::to_string(e).unwrap_or_default(), move |entry| view! { <MemoryItem memory=memory entry=entry /> })}
            </ul>
            <When when=move || memory.book.with(|b| b.is_empty())>
                <p class="muted memory-empty">"No memories yet. The model saves them with memory_save, or add one above."</p>
            </When>
        </section>
    }
}

#[component]
fn AddMemory(memory: MemoryStore) -> impl IntoView {
    let text = RwSignal::new(String::new());
    let tags = RwSignal::new(String::new());
    let message = RwSignal::new(None::<(bool, String)>);
    let add = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let tag_list = parse_tag_list(&tags.get_untracked());
        match memory.add(&text.get_untracked(), &tag_list) {
            Ok(Saved::New(id)) => {
                text.set(String::new());
                tags.set(String::new());
                message.set(Some((false, format!("Saved as {id}."))));
            }
            Ok(Saved::Duplicate(id)) => message.set(Some((
                false,
                format!("Already saved as {id}; nothing changed."),
            ))),
            Err(e) => message.set(Some((true, e.to_string()))),
        }
    };
    view! {
        <form class="memory-add" on:submit=add>
            <TextArea
                label="Add memory"
                id="memory-new-text"
                rows=2
                placeholder="A fact the model should know, such as: I prefer metric units."
                value=text
                on_input=move |v| text.set(v)
            />
            <TextField
                label="Tags (optional, comma-separated)"
                id="memory-new-tags"
                verbatim=true
                value=tags
                on_input=move |v| tags.set(v)
            />
            <div class="row">
                <button type="submit" class="primary memory-add-button" disabled=move || text.with(|t| t.trim().is_empty())>
                    "Add memory"
                </button>
                <span class="memory-chars muted">
                    {move || format!("{} / {MAX_TEXT_CHARS}", text.with(|t| t.trim().chars().count()))}
                </span>
                {move || message.get().map(|(is_error, m)| view! {
                    <span class="memory-message" class:error=is_error role="status">{m}</span>
                })}
            </div>
        </form>
    }
}

#[component]
fn MemoryItem(memory: MemoryStore, entry: MemoryEntry) -> impl IntoView {
    let editing = RwSignal::new(false);
    let confirm_delete = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let draft_text = RwSignal::new(entry.text.clone());
    let draft_tags = RwSignal::new(entry.tags.join(", "));
    let id = StoredValue::new(entry.id.clone());
    let original = StoredValue::new(entry.clone());
    let created = local_stamp(entry.created_ms);
    let date = if entry.updated_ms > entry.created_ms {
        format!("{created} · edited {}", local_stamp(entry.updated_ms))
    } else {
        created
    };

    let start_edit = move |_| {
        let e = original.get_value();
        draft_text.set(e.text);
        draft_tags.set(e.tags.join(", "));
        error.set(None);
        editing.set(true);
    };
    let save = move |_| {
        let tags = parse_tag_list(&draft_tags.get_untracked());
        match memory.edit(&id.get_value(), &draft_text.get_untracked(), &tags) {
            Ok(()) => {
                error.set(None);
                editing.set(false);
            }
            Err(e) => error.set(Some(e.to_string())),
        }
    };
    let delete = move |_| {
        if let Err(e) = memory.delete(&id.get_value()) {
            error.set(Some(e.to_string()));
            confirm_delete.set(false);
        }
    };

    let tags_view = entry
        .tags
        .iter()
        .map(|t| view! { <span class="memory-tag">{text::name(t).into_owned()}</span> })
        .collect_view();
    view! {
        <li class="memory-item" data-memory-id=entry.id.clone()>
            <When
                when=move || editing.get()
                fallback=move || view! {
                    <p class="memory-text">{original.with_value(|e| text::prose(&e.text).into_owned())}</p>
                }
            >
                <TextArea
                    label="Memory text"
                    label_hidden=true
                    class="memory-edit-text"
                    rows=3
                    value=draft_text
                    on_input=move |v| draft_text.set(v)
                />
                <TextField
                    label="Tags, comma-separated"
                    label_hidden=true
                    class="memory-edit-tags"
                    placeholder="tags, comma-separated"
                    verbatim=true
                    value=draft_tags
                    on_input=move |v| draft_tags.set(v)
                />
            </When>
            <div class="memory-meta muted">
                <code class="memory-id">{entry.id.clone()}</code>
                {tags_view}
                <span class="memory-date">{date}</span>
            </div>
            {move || error.get().map(|e| view! { <p class="error memory-error" role="alert">{e}</p> })}
            <div class="row memory-actions">
                <When
                    when=move || editing.get()
                    fallback=move || view! {
                        <button class="small memory-edit" on:click=start_edit>"Edit"</button>
                        <When
                            when=move || confirm_delete.get()
                            fallback=move || view! {
                                <button class="small memory-delete" on:click=move |_| confirm_delete.set(true)>"Delete"</button>
                            }
                        >
                            <span>"Delete this memory?"</span>
                            <button class="danger small memory-delete-confirm" on:click=delete>"Delete"</button>
                            <button class="small" on:click=move |_| confirm_delete.set(false)>"Cancel"</button>
                        </When>
                    }
                >
                    <button class="primary small memory-save" on:click=save>"Save"</button>
                    <button class="small memory-cancel" on:click=move |_| {
                        error.set(None);
                        editing.set(false);
                    }>"Cancel"</button>
                </When>
            </div>
        </li>
    }
}
