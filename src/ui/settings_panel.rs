//! Settings: the provider profiles (`profiles_settings`), the conversation defaults, the theme,
//! and storage health.
//! Every field applies as it is edited; invalid numbers are reported beside the field and
//! never saved.

use crate::stores::reactive::memo;
use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::format::{count, decimal};
use skiff_core::settings::{ChatSettings, Theme, DEFAULT_SILENCE_LIMIT_S};

use super::context::ctx;
use super::conversation_settings::ConversationSettings;
use super::dialog::Modal;
use super::elicit_card::ElicitTray;
use super::icons;
use super::keyed_list::keyed_list;
use super::mcp_settings::McpSettings;
use super::memory_settings::MemorySettings;
use super::profiles_settings::ProfilesSettings;
use super::tools_settings::ToolsSettings;
use super::when::When;

#[derive(Clone, Copy, PartialEq)]
enum Tab {
    Provider,
    Mcp,
    Tools,
    Memory,
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
                <ElicitTray in_settings=true />

                <div class="tabs" role="tablist">
                    {[
                        (Tab::Provider, "Providers"),
                        (Tab::Mcp, "MCP servers"),
                        (Tab::Tools, "Tools"),
                        (Tab::Memory, "Memory"),
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

/// How much browser storage is used, and any saved data that could not be read.
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
                Ok(Some((_name, text))) => ctx.convs.import(&text).await,
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
            <span>"Import conversations"</span>
            <input type="file" id="import-conversations" accept=".json,.jsonl,application/json" on:change=on_import />
        </label>
        <p class="hint">"A Skiff export (JSON) or a llama.cpp web UI export (JSON or JSONL). Only conversations not here yet are added; nothing stored is changed."</p>
        {move || import_result.get().map(|r| match r {
            Ok(s) => view! { <p class="ok import-result" role="status">{s}</p> }.into_any(),
            Err(e) => view! { <p class="error import-result" role="alert">{e}</p> }.into_any(),
        })}
        <StorageHealth />
        <When when=move || !ctx.convs.unreadable.with(Vec::is_empty)>
            <p class="error">"Saved data that could not be read (left untouched):"</p>
            <ul class="unreadable">
                {keyed_list(
                    move || ctx.convs.unreadable.get(),
                    |u| u.key.clone(),
                    |u| view! { <UnreadableItem key=u.key.clone() error=u.error.clone() /> },
                )}
            </ul>
        </When>
    }
}

#[component]
fn UnreadableItem(key: String, error: String) -> impl IntoView {
    let ctx = ctx();
    let raw = ctx.convs.raw_value(&key).unwrap_or_default();
    let href = format!(
        "data:text/plain;charset=utf-8,{}",
        js_sys::encode_uri_component(&raw)
    );
    let file = format!("{}.txt", key.replace(':', "-"));
    let key = StoredValue::new(key);
    view! {
        <li>
            <code>{key.get_value()}</code>
            <small>{error}</small>
            <a href=href download=file>"Download"</a>
            <button class="danger small" on:click=move |_| ctx.convs.discard_unreadable(&key.get_value())>"Delete"</button>
        </li>
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
    refresh();
    let old = memo(move || {
        ctx.convs.index.track();
        ctx.convs.older_than(PRUNE_DAYS)
    });
    let confirming = RwSignal::new(false);
    let result = RwSignal::new(None::<Result<String, String>>);
    let n = move || count(old.with(Vec::len), "conversation", "conversations");
    let export_old = move |_| {
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
    let delete_old = move |_| {
        let ids = old.get_untracked();
        ctx.convs.delete_many(&ids);
        confirming.set(false);
        result.set(Some(Ok(format!(
            "Deleted {}.",
            count(ids.len(), "conversation", "conversations")
        ))));
        refresh();
    };
    view! {
        <div class="storage-health">
            {move || {
                let [backend, migration, persist] = ctx.convs.storage.with(|s| s.sentences());
                let moved = migration.is_empty();
                view! {
                    <p class="hint storage-backend">{backend}</p>
                    <p class="error storage-migration" role="alert" hidden=moved>{migration}</p>
                    <p class="hint storage-persist">{persist}" "
                        <button type="button" class="small storage-persist-ask" on:click=move |_| spawn_local(async move { ctx.convs.ask_persistence().await })>"Ask again"</button>
                    </p>
                }
            }}
            <ul class="storage-usage">
                {move || usage.with(|u| u.as_ref().map(|u| u.lines()).unwrap_or_default()).into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}
            </ul>
            <p class="hint prune">{move || format!("Not changed in {PRUNE_DAYS} days: {}.", n())}" "
                <button type="button" class="small prune-export" disabled=move || old.with(Vec::is_empty) on:click=export_old>"Export them"</button>" "
                <button type="button" class="danger small prune-delete" disabled=move || old.with(Vec::is_empty) on:click=move |_| confirming.set(true)>"Delete them…"</button>
            </p>
            <p class="error prune-confirm" role="alert" hidden=move || !confirming.get()>
                {move || format!("Delete {} not changed in {PRUNE_DAYS} days? This cannot be undone; export them first to keep a copy.", n())}" "
                <button type="button" class="danger small prune-confirm-yes" on:click=delete_old>"Delete"</button>" "
                <button type="button" class="small prune-confirm-no" on:click=move |_| confirming.set(false)>"Cancel"</button>
            </p>
            <p class="prune-result" role="status">{move || result.get().map(|r| r.unwrap_or_else(|e| e))}</p>
        </div>
    }
}
