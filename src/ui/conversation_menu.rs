//! The chat header's "⋯" menu for the open conversation: a new title from the model, compact,
//! pin to the top of the sidebar, move to a project, and export as Markdown, JSON, or llama.cpp web UI's format (`pipeline::export` and
//! `pipeline::llamacpp` write the files).

use leptos::prelude::*;
use skiff_core::pipeline::{export, llamacpp};

use super::context::ctx;
use super::when::When;
use crate::platform::{clock, download};
use crate::stores::notices::Level;

#[derive(Clone, Copy)]
enum Format {
    Markdown,
    Json,
    LlamaCpp,
}

#[component]
pub fn ConversationMenu() -> impl IntoView {
    let ctx = ctx();
    let current = move || ctx.convs.current.get();
    let titling = move || {
        current()
            .and_then(|c| c.try_id())
            .is_some_and(|id| ctx.runner.titling.with(|t| t.contains(&id)))
    };
    let failure = move || {
        let id = current().and_then(|c| c.try_id())?;
        ctx.runner
            .title_failure
            .with(|f| f.as_ref().filter(|(c, _)| *c == id).map(|(_, e)| e.clone()))
    };
    let compacting = move || {
        current()
            .and_then(|c| c.try_id())
            .is_some_and(|id| ctx.runner.compacting.with(|t| t.contains(&id)))
    };
    let compact_failure = move || {
        let id = current().and_then(|c| c.try_id())?;
        ctx.runner
            .compact_failure
            .with(|f| f.as_ref().filter(|(c, _)| *c == id).map(|(_, e)| e.clone()))
    };
    let pinned = move || {
        current()
            .and_then(|c| c.meta.try_with(|m| m.pinned))
            .unwrap_or(false)
    };
    let project = move || {
        current()
            .and_then(|c| c.meta.try_with(|m| m.project.clone()))
            .flatten()
            .unwrap_or_default()
    };
    // The menu closes once an item is chosen, and on Escape.
    let menu = NodeRef::<leptos::html::Details>::new();
    let close = move || {
        if let Some(d) = menu.get_untracked() {
            let _ = d.remove_attribute("open");
        }
    };
    let save = move |format: Format| {
        close();
        let Some(conv) = ctx
            .convs
            .current
            .get_untracked()
            .and_then(|c| c.try_snapshot())
        else {
            return;
        };
        let (name, mime, text) = match format {
            Format::Markdown => (
                export::file_name(&conv.title, "md"),
                "text/markdown;charset=utf-8",
                export::to_markdown(&conv),
            ),
            Format::Json => (
                export::file_name(&conv.title, "json"),
                "application/json",
                export::to_json(&conv, clock::now_ms()),
            ),
            // The shape llama.cpp web UI downloads and imports, every version kept.
            Format::LlamaCpp => (
                export::file_name(&format!("{} llama.cpp", conv.title), "json"),
                "application/json",
                llamacpp::to_jsonl_line(&conv),
            ),
        };
        if let Err(e) = download::save_text(&name, mime, &text) {
            ctx.notices
                .push(Level::Error, format!("The export failed: {e}"));
        }
    };
    view! {
        <When when=move || current().is_some()>
            <details
                class="conversation-menu"
                node_ref=menu
                on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                    if ev.key() == "Escape" {
                        ev.prevent_default();
                        close();
                    }
                }
            >
                <summary class="icon-button" aria-label="Conversation actions" title="Conversation actions">"⋯"</summary>
                <div class="conversation-menu-items" role="group" aria-label="Conversation actions">
                    <button
                        type="button"
                        class="regenerate-title"
                        disabled=titling
                        on:click=move |_| {
                            ctx.runner.regenerate_title(ctx.convs, ctx.settings.settings.get_untracked());
                        }
                    >{move || if titling() { "Writing a title…" } else { "New title from the model" }}</button>
                    <button
                        type="button"
                        class="compact-now"
                        title="Summarize the older messages; the model then receives the summary instead of them"
                        disabled=compacting
                        on:click=move |_| {
                            // Stays open: "Summarizing…" and a failure are shown here.
                            ctx.runner.compact(ctx.convs, ctx.settings.settings.get_untracked());
                        }
                    >{move || if compacting() { "Summarizing…" } else { "Compact now" }}</button>
                    <button
                        type="button"
                        class="pin-conversation"
                        on:click=move |_| {
                            close();
                            if let Some(c) = current() {
                                ctx.convs.set_pinned(&c.id(), !pinned());
                            }
                        }
                    >{move || if pinned() { "Unpin" } else { "Pin to the top" }}</button>
                    <When when=move || ctx.settings.settings.with(|s| !s.projects.is_empty())>
                        <label class="field move-project">
                            <span>"Project"</span>
                            <select on:change=move |ev| {
                                let chosen = event_target_value(&ev);
                                close();
                                if let Some(c) = current() {
                                    ctx.convs.set_project(&c.id(), (!chosen.is_empty()).then_some(chosen));
                                }
                            }>
                                <option value="" selected=move || project().is_empty()>"No project"</option>
                                {move || ctx.settings.settings.with(|s| {
                                    s.projects
                                        .iter()
                                        .map(|p| {
                                            let id = p.id.clone();
                                            view! { <option value=p.id.clone() selected=move || project() == id>{p.label().to_string()}</option> }
                                        })
                                        .collect_view()
                                })}
                            </select>
                        </label>
                    </When>
                    <button type="button" class="export-markdown" on:click=move |_| save(Format::Markdown)>"Export as Markdown"</button>
                    <button type="button" class="export-json" on:click=move |_| save(Format::Json)>"Export as JSON"</button>
                    <button type="button" class="export-llamacpp" on:click=move |_| save(Format::LlamaCpp)>"Export for llama.cpp web UI"</button>
                    {move || failure().map(|e| view! { <p class="error title-failure" role="status">{e}</p> })}
                    {move || compact_failure().map(|e| view! { <p class="error compact-failure" role="status">{e}</p> })}
                </div>
            </details>
        </When>
    }
}
