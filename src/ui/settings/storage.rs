//! Settings → Storage: importing a backup or conversations, the full backup, and the storage
//! block (where conversations are kept, usage, old conversations, unreadable values).
//!
//! `skiff_core::persist::storage_panel::StoragePanel` decides what the block shows and what
//! each typed [`StorageIntent`] does (Delete asks first, the keys switch goes with the backup);
//! the sentences come from the store. Here the block is laid out and the effect performed.

use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::format::count;
use skiff_core::persist::storage_panel::{
    StorageBlock, StorageEffect, StorageFacts, StorageIntent, StoragePanel,
};
use skiff_core::pipeline::backup::file_name;

use super::focus_soon;
use crate::platform::clock;
use crate::runner::backup;
use crate::stores::reactive::{effect, memo};
use crate::ui::context::{ctx, Ctx};
use crate::ui::fields::Checkbox;

/// Importing a backup or conversations, and the storage block.
#[component]
pub fn StorageSection() -> impl IntoView {
    let ctx = ctx();
    let import_result = RwSignal::new(None::<Result<String, String>>);
    let on_import = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(t).ok())
        else {
            return;
        };
        spawn_local(async move {
            let outcome = match crate::platform::file_read::picked_text(&input).await {
                Ok(Some((_name, text))) => backup::import(stores(ctx), &text).await,
                Ok(None) => return,
                Err(e) => Err(e),
            };
            // The same file may be picked again (after freeing storage, say).
            input.set_value("");
            import_result.set(Some(outcome));
        });
    };
    view! {
        <label class="field import">
            <span>"Import a backup or conversations"</span>
            <input type="file" id="import-conversations" accept=".json,.jsonl,application/json" on:change=on_import />
        </label>
        <p class="hint">"A Skiff backup or export (JSON), or a llama.cpp web UI export (JSON or JSONL). Only what is not here yet is added; nothing stored is changed."</p>
        {move || import_result.get().map(|r| {
            let (class, role, text) = match r {
                Ok(s) => ("ok import-result", "status", s),
                Err(e) => ("error import-result", "alert", e),
            };
            view! { <p class=class role=role>{text}</p> }
        })}
        <StorageHealth />
    }
}

/// The stores a full backup reads and merges into.
fn stores(ctx: Ctx) -> backup::Stores {
    backup::Stores {
        convs: ctx.convs,
        settings: ctx.settings,
        mcp: ctx.mcp,
        mcp_runner: ctx.mcp_runner,
        memory: ctx.memory,
    }
}

/// "Old" for the delete offer in Settings → Storage.
const PRUNE_DAYS: u32 = 30;

/// The full backup and the storage block, drawn from [`StoragePanel::view`].
#[component]
fn StorageHealth() -> impl IntoView {
    let ctx = ctx();
    let usage = RwSignal::new(None::<crate::stores::conversations::Usage>);
    let refresh = move || {
        spawn_local(async move {
            let u = ctx.convs.usage().await;
            usage.try_set(Some(u));
        })
    };
    // Usage changes with what is stored: measured again when conversations come or go
    // (an import, a delete), not on every streamed word.
    effect(move || {
        ctx.convs.index.with(Vec::len);
        refresh();
    });
    let old = memo(move || {
        ctx.convs.index.track();
        ctx.convs.older_than(PRUNE_DAYS)
    });
    let panel = RwSignal::new(StoragePanel::default());
    let result = RwSignal::new(None::<Result<String, String>>);
    let block = Memo::new(move |_| {
        let sentences = ctx.convs.storage.with(|s| s.sentences());
        let unreadable: Vec<(String, String)> = ctx
            .convs
            .unreadable
            .with(|u| u.iter().map(|u| (u.key.clone(), u.error.clone())).collect());
        let usage = usage.with(|u| u.as_ref().map(|u| u.lines()).unwrap_or_default());
        panel.with(|p| {
            p.view(&StorageFacts {
                sentences: &sentences,
                usage: &usage,
                old: old.with(Vec::len),
                prune_days: PRUNE_DAYS,
                unreadable: &unreadable,
            })
        })
    });
    let export_old = move || {
        let ids = old.get_untracked();
        spawn_local(async move {
            let outcome = ctx.convs.export_many(&ids).await.and_then(|text| {
                crate::platform::download::save_text(
                    "skiff-old-conversations.jsonl",
                    "application/jsonl",
                    &text,
                )
                .map(|()| {
                    format!(
                        "Exported {}.",
                        count(ids.len(), "conversation", "conversations")
                    )
                })
            });
            result.try_set(Some(outcome));
        });
    };
    let back_up = move |include_keys: bool| {
        result.set(Some(Ok("Gathering everything…".into())));
        spawn_local(async move {
            let outcome =
                backup::write(stores(ctx), include_keys)
                    .await
                    .and_then(|(text, what)| {
                        let name = file_name(clock::now_ms(), clock::offset_minutes());
                        crate::platform::download::save_text(&name, "application/json", &text)
                            .map(|()| format!("Saved {name}: {what}."))
                    });
            result.try_set(Some(outcome));
        });
    };
    let send = Callback::new(move |intent: StorageIntent| {
        let n = old.with_untracked(Vec::len);
        let Some((effect, focus)) = panel.try_update(|p| p.act(intent, n)) else {
            return;
        };
        match effect {
            StorageEffect::Nothing => {}
            StorageEffect::AskPersistence => {
                spawn_local(async move { ctx.convs.ask_persistence().await })
            }
            StorageEffect::BackUp { include_keys } => back_up(include_keys),
            StorageEffect::ExportOld => export_old(),
            StorageEffect::DeleteOld => {
                let ids = old.get_untracked();
                ctx.convs.delete_many(&ids);
                result.set(Some(Ok(format!(
                    "Deleted {}.",
                    count(ids.len(), "conversation", "conversations")
                ))));
                refresh();
            }
            StorageEffect::Discard(key) => ctx.convs.discard_unreadable(&key),
        }
        if let Some(f) = focus {
            focus_soon(f.id().to_string());
        }
    });
    let read = move |f: fn(&StorageBlock) -> String| move || block.with(f);
    let usage_lines = move || {
        block.with(|b| {
            b.usage
                .iter()
                .map(|l| view! { <li>{l.clone()}</li> })
                .collect_view()
        })
    };
    let cannot_prune = move || block.with(|b| !b.can_prune);
    let question = move || {
        block.with(|b| b.question.clone()).map(|q| {
            view! {
                <p class="error prune-confirm" role="alert">
                    {q} " "
                    <button type="button" class="danger small prune-confirm-yes" on:click=move |_| send.run(StorageIntent::DeleteOldForGood)>"Delete"</button>
                    " "
                    <button type="button" class="small prune-confirm-no" id="prune-confirm-no" on:click=move |_| send.run(StorageIntent::KeepOld)>"Cancel"</button>
                </p>
            }
        })
    };
    let unreadable = move || {
        let rows = block.with(|b| b.unreadable.clone());
        (!rows.is_empty()).then(|| {
            let items = rows
                .into_iter()
                .map(|r| {
                    // The value as stored, offered as a file: read only when drawn.
                    let raw = ctx.convs.raw_value(&r.key).unwrap_or_default();
                    let href = format!(
                        "data:text/plain;charset=utf-8,{}",
                        js_sys::encode_uri_component(&raw)
                    );
                    let key = r.key.clone();
                    view! {
                        <li>
                            <code>{r.key}</code>
                            <small>{r.why}</small>
                            <a href=href download=r.file_name>"Download"</a>
                            <button type="button" class="danger small" on:click=move |_| send.run(StorageIntent::Discard(key.clone()))>"Delete"</button>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <p class="error">"Saved data that could not be read (left untouched):"</p>
                <ul class="unreadable">{items}</ul>
            }
        })
    };
    view! {
        <div class="storage-health">
            <h3>"Back up everything"</h3>
            <p class="hint">
                "One file with your settings, masks, projects, MCP servers, memory, conversations and attached files. Importing it below merges it in: nothing stored here is replaced."
            </p>
            <Checkbox
                id="backup-keys"
                label="Include API keys and MCP server headers (keep the file private)"
                checked=move || block.with(|b| b.include_keys)
                on_change=move |on| send.run(StorageIntent::IncludeKeys(on))
            />
            <button type="button" class="backup-all" on:click=move |_| send.run(StorageIntent::BackUp)>"Download a backup"</button>
            <h3>"This browser's storage"</h3>
            <p class="hint storage-backend">{read(|b| b.backend.clone())}</p>
            <p class="error storage-migration" role="alert" hidden=move || block.with(|b| b.migration.is_empty())>
                {read(|b| b.migration.clone())}
            </p>
            <p class="hint storage-persist">
                {read(|b| b.persist.clone())} " "
                <button type="button" class="small storage-persist-ask" on:click=move |_| send.run(StorageIntent::AskPersistence)>"Ask again"</button>
            </p>
            <ul class="storage-usage">{usage_lines}</ul>
            <p class="hint prune">
                {read(|b| b.prune.clone())} " "
                <button type="button" class="small prune-export" disabled=cannot_prune on:click=move |_| send.run(StorageIntent::ExportOld)>"Export them"</button>
                " "
                <button type="button" class="danger small prune-delete" id="prune-delete" disabled=cannot_prune on:click=move |_| send.run(StorageIntent::DeleteOld)>"Delete them…"</button>
            </p>
            {question}
            {unreadable}
            <p class="prune-result" role="status">{move || result.get().map(|r| r.unwrap_or_else(|e| e))}</p>
        </div>
    }
}
