//! Settings: the provider profiles (`profiles_settings`), the conversation defaults, the theme,
//! and storage health.
//! Every field applies as it is edited; invalid numbers are reported beside the field and
//! never saved.

use crate::platform::clock;
use crate::platform::form::{act_of, redraw};
use crate::runner::backup;
use crate::stores::reactive::{effect, memo};
use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::format::{count, decimal};
use skiff_core::persist::storage_html::{storage_html, StorageView};
use skiff_core::pipeline::backup::{controls_html, file_name};
use skiff_core::settings::{ChatSettings, Theme, DEFAULT_SILENCE_LIMIT_S};

use super::context::ctx;
use super::conversation_settings::ConversationSettings;
use super::dialog::Modal;
use super::icons;
use super::masks_settings::MasksSettings;
use super::mcp_settings::McpSettings;
use super::memory_settings::MemorySettings;
use super::profiles_settings::ProfilesSettings;
use super::projects_settings::ProjectsSettings;
use super::tools_settings::ToolsSettings;
use super::when::When;

#[derive(Clone, Copy, PartialEq)]
enum Tab {
    Provider,
    Mcp,
    Tools,
    Memory,
    Masks,
    Projects,
    Storage,
}

#[component]
pub fn SettingsPanel() -> impl IntoView {
    let ctx = ctx();
    let settings = ctx.settings.settings;
    // Focus moves in, is trapped, and returns to the opener on close: ui::dialog.
    let close = move || ctx.show_settings.set(false);
    let tab = RwSignal::new(Tab::Provider);

    view! {
        <Modal label="Settings" class="settings" on_close=close>
                <header class="settings-header">
                    <h2>"Settings"</h2>
                    <button class="icon-button" aria-label="Close settings" on:click=move |_| close()>{icons::close()}</button>
                </header>

                <div class="tabs" role="tablist">
                    {[
                        (Tab::Provider, "Providers"),
                        (Tab::Mcp, "MCP servers"),
                        (Tab::Tools, "Tools"),
                        (Tab::Memory, "Memory"),
                        (Tab::Masks, "Masks"),
                        (Tab::Projects, "Projects"),
                        (Tab::Storage, "Storage"),
                    ]
                        .into_iter()
                        .map(|(t, label)| view! {
                            <button role="tab" class="tab" class:active=move || tab.get() == t aria-selected=move || (tab.get() == t).to_string() on:click=move |_| tab.set(t)>{label}</button>
                        })
                        .collect_view()}
                </div>
                <When when=move || tab.get() == Tab::Mcp>
                    <McpSettings />
                </When>
                <When when=move || tab.get() == Tab::Tools>
                    <ToolsSettings />
                </When>
                <When when=move || tab.get() == Tab::Memory>
                    <MemorySettings memory=ctx.memory />
                </When>
                <When when=move || tab.get() == Tab::Masks>
                    <MasksSettings />
                </When>
                <When when=move || tab.get() == Tab::Projects>
                    <ProjectsSettings />
                </When>
                <When when=move || tab.get() == Tab::Storage>
                    <StorageSection />
                </When>
                <When when=move || tab.get() == Tab::Provider>
                <ProfilesSettings />

                <ConversationSettings />

                <h3>"Answers"</h3>
                <div class="params">
                    <NumberField label="Give up after silence (s)" min=1.0 max=3_600.0 integer=true get=|s| Some(f64::from(s.silence_limit_s)) set=|s, v| s.silence_limit_s = v.map_or(DEFAULT_SILENCE_LIMIT_S, |v| v as u32) />
                </div>

                <h3>"Appearance"</h3>
                <label class="field">
                    <span>"Theme"</span>
                    <select on:change=move |ev| {
                        let theme: Theme = event_target_value(&ev).parse().unwrap_or_default();
                        settings.update(|s| s.theme = theme);
                    }>
                        <option value="system" selected=move || settings.with(|s| s.theme == Theme::System)>"Follow the system"</option>
                        <option value="light" selected=move || settings.with(|s| s.theme == Theme::Light)>"Light"</option>
                        <option value="dark" selected=move || settings.with(|s| s.theme == Theme::Dark)>"Dark"</option>
                    </select>
                </label>

                </When>
        </Modal>
    }
}

/// A number input where empty means "the server's default", bound to a settings field.
#[component]
pub(super) fn NumberField(
    label: &'static str,
    min: f64,
    max: f64,
    #[prop(optional)] integer: bool,
    get: fn(&ChatSettings) -> Option<f64>,
    set: fn(&mut ChatSettings, Option<f64>),
) -> impl IntoView {
    let settings = ctx().settings.settings;
    number_input(
        label,
        (min, max, integer),
        settings.with_untracked(get).map(decimal),
        Callback::new(move |v| settings.update(|s| set(s, v))),
    )
}

/// The one number input (settings fields and provider profiles share it): a valid number, or
/// empty, is handed to `set`; anything else is said beside the field and never saved.
pub(super) fn number_input(
    label: &'static str,
    (min, max, integer): (f64, f64, bool),
    initial: Option<String>,
    set: Callback<Option<f64>>,
) -> impl IntoView {
    let error = RwSignal::new(None::<String>);
    let initial = initial.unwrap_or_default();
    view! {
        <label class="field number">
            <span>{label}</span>
            <input
                inputmode="decimal"
                placeholder="default"
                value=initial
                on:input=move |ev| {
                    let raw = event_target_value(&ev);
                    let raw = raw.trim();
                    if raw.is_empty() {
                        error.set(None);
                        set.run(None);
                        return;
                    }
                    match skiff_core::number::parse_finite(raw) {
                        Some(v) if v >= min && v <= max && (!integer || v.fract() == 0.0) => {
                            error.set(None);
                            set.run(Some(v));
                        }
                        _ => error.set(Some(format!(
                            "{} must be {} from {} to {}; not saved.",
                            label,
                            if integer { "a whole number" } else { "a number" },
                            decimal(min),
                            decimal(max)
                        ))),
                    }
                }
            />
            {move || error.get().map(|e| view! { <small class="error">{e}</small> })}
        </label>
    }
}

/// Importing a backup or conversations, and the storage block (the full backup, usage, old
/// conversations, unreadable values).
#[component]
fn StorageSection() -> impl IntoView {
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
fn stores(ctx: super::context::Ctx) -> backup::Stores {
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

/// Where conversations are kept, whether the browser keeps them under pressure, usage per
/// store against the quota, and deleting (after exporting) conversations not changed lately.
/// The sentences come from the store (`StorageStatus::sentences`, `Usage::lines`).
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
    let confirming = StoredValue::new(false);
    // The backup's keys switch, kept through redraws of the block.
    let include_keys = StoredValue::new(false);
    let result = RwSignal::new(None::<Result<String, String>>);
    let node = NodeRef::<leptos::html::Div>::new();
    // The block is HTML text (`skiff_core::persist::storage_html`): drawn again when what it
    // shows changes, and after a click, with the cursor on `focus` (the old focus went with
    // the old HTML).
    let draw = move |focus: &str| {
        let Some(el) = node.get_untracked() else {
            return;
        };
        let sentences = ctx.convs.storage.with_untracked(|s| s.sentences());
        let unreadable: Vec<(String, String, String)> = ctx.convs.unreadable.with_untracked(|u| {
            u.iter()
                .map(|u| {
                    let raw = ctx.convs.raw_value(&u.key).unwrap_or_default();
                    let href = format!(
                        "data:text/plain;charset=utf-8,{}",
                        js_sys::encode_uri_component(&raw)
                    );
                    (u.key.clone(), u.error.clone(), href)
                })
                .collect()
        });
        let usage = usage.with_untracked(|u| u.as_ref().map(|u| u.lines()).unwrap_or_default());
        let mut html = controls_html(include_keys.get_value());
        html.push_str(&storage_html(&StorageView {
            sentences: &sentences,
            usage: &usage,
            old: old.with_untracked(Vec::len),
            prune_days: PRUNE_DAYS,
            confirming: confirming.get_value(),
            unreadable: &unreadable,
        }));
        redraw(&el, &html, focus);
    };
    effect(move || {
        ctx.convs.storage.track();
        ctx.convs.unreadable.track();
        usage.track();
        old.track();
        draw("");
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
    let back_up = move || {
        result.set(Some(Ok("Gathering everything…".into())));
        spawn_local(async move {
            let outcome = backup::write(stores(ctx), include_keys.get_value())
                .await
                .and_then(|(text, what)| {
                    let name = file_name(clock::now_ms(), clock::user_place().offset_minutes);
                    crate::platform::download::save_text(&name, "application/json", &text)
                        .map(|()| format!("Saved {name}: {what}."))
                });
            result.try_set(Some(outcome));
        });
    };
    let on_click = move |ev: leptos::ev::MouseEvent| match act_of(&ev).as_deref() {
        Some("backup") => back_up(),
        Some("backup-keys") => include_keys.update_value(|k| *k = !*k),
        Some("persist") => spawn_local(async move { ctx.convs.ask_persistence().await }),
        Some("export") => export_old(),
        Some("delete") => {
            confirming.set_value(true);
            draw(".prune-confirm-no");
        }
        Some("delete-no") => {
            confirming.set_value(false);
            draw(".prune-delete");
        }
        Some(a) if a.starts_with("discard:") => {
            ctx.convs.discard_unreadable(&a["discard:".len()..]);
        }
        Some("delete-yes") => {
            let ids = old.get_untracked();
            ctx.convs.delete_many(&ids);
            confirming.set_value(false);
            result.set(Some(Ok(format!(
                "Deleted {}.",
                count(ids.len(), "conversation", "conversations")
            ))));
            draw("");
            refresh();
        }
        _ => {}
    };
    view! {
        <div class="storage-health">
            <div node_ref=node on:click=on_click></div>
            <p class="prune-result" role="status">{move || result.get().map(|r| r.unwrap_or_else(|e| e))}</p>
        </div>
    }
}
