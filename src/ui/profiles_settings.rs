//! Settings → Providers: the provider profiles (pick one to edit; add, duplicate, delete after
//! a confirmation, test the connection) and the plain word on where keys live and go. One
//! `<select>` chooses the profile rather than a row of buttons per profile: the same tasks
//! for a fraction of the page bytes.
//!
//! Every field applies as it is edited, to the one profile being edited. Never sends a key
//! anywhere itself: "Test connection" lists models through `runner::models`, which sends only
//! to the profile's own address.

use crate::stores::reactive::memo;
use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::format::decimal_f32;
use skiff_core::profiles::ProviderProfile;
use skiff_core::provider::{ProviderKind, ReasoningEffort};

use super::context::ctx;
use super::fields::{Choice, EnumSelect, Select, TextField};
use super::model_panel::model_panel;
use super::settings::number_input;
use super::when::When;
use crate::platform::ids;
use crate::runner::models::refresh_profile;

#[derive(Clone, PartialEq)]
enum Check {
    Idle,
    Running,
    Ok(usize),
    Failed(String),
}

#[component]
pub fn ProfilesSettings() -> impl IntoView {
    let settings = ctx().settings.settings;
    // The profile being edited (the first one when Settings opens).
    let editing =
        RwSignal::new(settings.with_untracked(|s| s.profiles.first().map(|p| p.id.clone())));
    let confirm = RwSignal::new(false);
    let add = move |copy: bool| {
        let id = ids::new_id();
        let from = editing.get_untracked().filter(|_| copy);
        settings.update(|s| {
            let p = match from.and_then(|c| s.profiles.iter().find(|p| p.id == c).cloned()) {
                Some(orig) => ProviderProfile {
                    id: id.clone(),
                    name: format!("{} (copy)", orig.display_name()),
                    ..orig
                },
                None => ProviderProfile::new(id.clone(), ProviderKind::OpenAiCompatible),
            };
            s.profiles.push(p);
        });
        confirm.set(false);
        editing.set(Some(id));
    };
    // A memo, so that editing a field (a settings change) does not rebuild the form under the
    // cursor: only another profile, or this one deleted, does.
    let shown = memo(move || {
        editing
            .get()
            .filter(|id| settings.with(|s| s.profiles.iter().any(|p| &p.id == id)))
    });
    view! {
        <h3>"Providers"</h3>
        <p class="hint key-hint">"Keys are stored in this browser only (its local storage). Each key is sent only to its own provider's base URL — never to MCP servers, another provider or anywhere else. Anyone who can use this browser profile can read them."</p>
        <div class="row profiles">
            <Select
                label="Provider"
                class="profile-select"
                options=move || settings.with(|s| {
                    s.profiles
                        .iter()
                        .map(|p| Choice::new(p.id.clone(), format!("{} · {}", p.display_name(), p.kind.label())))
                        .collect::<Vec<_>>()
                })
                value=move || editing.get().unwrap_or_default()
                on_change=move |id: String| { confirm.set(false); editing.set(Some(id)) }
            />
            <button class="small add-profile" on:click=move |_| add(false)>"Add"</button>
            <When when=move || shown.with(Option::is_some)>
                <button class="small duplicate-profile" on:click=move |_| add(true)>"Duplicate"</button>
                <button class="small danger delete-profile" on:click=move |_| confirm.set(true)>"Delete"</button>
            </When>
        </div>
        <When when=move || confirm.get()>
            <p class="confirm" role="alert">
                "Delete this provider and its key? Conversations that use it will use another provider. "
                <button class="small danger confirm-delete" on:click=move |_| {
                    let gone = editing.get_untracked().unwrap_or_default();
                    settings.update(|s| s.profiles.retain(|p| p.id != gone));
                    editing.set(settings.with_untracked(|s| s.profiles.first().map(|p| p.id.clone())));
                    confirm.set(false);
                }>"Delete"</button>
                <button class="small" on:click=move |_| confirm.set(false)>"Cancel"</button>
            </p>
        </When>
        {move || shown.get().map(|id| view! { <ProfileForm id /> })}
    }
}

/// The form of one profile: today's provider form, editing that profile only.
#[component]
fn ProfileForm(id: String) -> impl IntoView {
    let store = ctx().settings;
    let settings = store.settings;
    let id = StoredValue::new(id);
    let check = RwSignal::new(Check::Idle);
    let read = move |f: fn(&ProviderProfile) -> String| {
        settings.with(|s| {
            s.profiles
                .iter()
                .find(|p| p.id == id.get_value())
                .map(f)
                .unwrap_or_default()
        })
    };
    let edit = move |f: &dyn Fn(&mut ProviderProfile)| {
        settings.update(|s| {
            if let Some(p) = s.profile_mut(&id.get_value()) {
                f(p)
            }
        })
    };
    let text_field = move |label: &'static str,
                           kind: &'static str,
                           get: fn(&ProviderProfile) -> String,
                           set: fn(&mut ProviderProfile, String)| {
        view! {
            <TextField
                label=label
                kind=kind
                verbatim=true
                value=move || read(get)
                on_input=move |v: String| edit(&|p| set(p, v.clone()))
            />
        }
    };
    let test_connection = move |_| {
        check.set(Check::Running);
        spawn_local(async move {
            check.set(match refresh_profile(store, id.get_value()).await {
                Ok(n) => Check::Ok(n),
                Err(e) => Check::Failed(e.to_string()),
            });
        });
    };
    let initial = settings.with_untracked(|s| {
        s.profiles
            .iter()
            .find(|p| p.id == id.get_value())
            .map(|p| (p.temperature, p.top_p, p.max_tokens))
            .unwrap_or_default()
    });
    let kind = move || {
        settings.with(|s| {
            s.profiles
                .iter()
                .find(|p| p.id == id.get_value())
                .map(|p| p.kind)
                .unwrap_or_default()
        })
    };
    let list_id = move || format!("models-{}", id.get_value());
    // Only a change between a remote kind and the in-browser model swaps the address fields
    // for the model panel, so typing in them keeps the cursor.
    let remote = memo(move || kind().is_remote());
    // Only a change of kind swaps the reasoning field, so typing in it keeps the cursor.
    let reasoning_kind = memo(move || kind().takes_thinking_budget());
    let reasoning_field = move || {
        let (budget, effort) = settings.with_untracked(|s| {
            s.profiles
                .iter()
                .find(|p| p.id == id.get_value())
                .map(|p| (p.thinking_budget, p.reasoning_effort))
                .unwrap_or_default()
        });
        if !remote.get() {
            // A small model in the page neither thinks on a budget nor takes an effort.
            ().into_any()
        } else if reasoning_kind.get() {
            number_input(
                "Thinking budget",
                (0.0, 1_000_000.0, true),
                budget.map(|v| v.to_string()),
                Callback::new(move |v: Option<f64>| {
                    edit(&|p| p.thinking_budget = v.map(|v| v as u32))
                }),
            )
            .into_any()
        } else {
            let options: Vec<Choice> = std::iter::once(Choice::new("", "default"))
                .chain(
                    ReasoningEffort::ALL
                        .iter()
                        .map(|e| Choice::new(e.as_str(), e.as_str())),
                )
                .collect();
            view! {
                <Select
                    label="Reasoning effort"
                    class="reasoning-effort"
                    options=options
                    value=effort.map_or("", ReasoningEffort::as_str).to_string()
                    on_change=move |v: String| {
                        let v = v.parse::<ReasoningEffort>().ok();
                        edit(&|p| p.reasoning_effort = v)
                    }
                />
            }
            .into_any()
        }
    };
    view! {
        <div class="profile-form">
            {text_field("Name", "text", |p| p.name.clone(), |p, v| p.name = v)}
            <EnumSelect<ProviderKind>
                label="Kind"
                class="provider-kind"
                value=kind
                on_change=move |k: ProviderKind| edit(&|p| {
                    p.base_url = k.base_url_after_switch(&p.base_url);
                    p.kind = k;
                    p.forget_listing();
                })
            />
            // The address fields are hidden rather than rebuilt for the in-browser model, whose
            // panel (ui::model_panel) starts the model worker only when shown.
            <div hidden=move || !remote.get()>
                <TextField
                    label="Base URL"
                    kind="url"
                    verbatim=true
                    hint=Signal::derive(move || Some(match kind() {
                        ProviderKind::OpenAiCompatible => "For example http://127.0.0.1:8080/v1 (llama.cpp), http://127.0.0.1:11434/v1 (Ollama), https://api.openai.com/v1, https://openrouter.ai/api/v1.".to_string(),
                        k => format!("For example {}.", k.base_url_hint()),
                    }))
                    value=move || read(|p| p.base_url.clone())
                    on_input=move |v: String| edit(&|p| { p.base_url = v.clone(); p.forget_listing() })
                />
                {text_field("API key (optional)", "password", |p| p.api_key.clone(), |p, v| p.api_key = v)}
            </div>
            <When when=move || !remote.get()>
                {model_panel()}
            </When>
            <label class="field">
                <span>"Default model"</span>
                <input
                    list=list_id
                    autocomplete="off"
                    spellcheck="false"
                    placeholder="the server's default"
                    prop:value=move || read(|p| p.default_model.clone())
                    on:input=move |ev| { let v = event_target_value(&ev); edit(&|p| p.default_model = v.clone()) }
                />
                <datalist id=list_id>
                    {move || settings.with(|s| s.profiles.iter().find(|p| p.id == id.get_value()).map(|p| p.listed_models().map(|m| view! { <option value=m.to_string()></option> }).collect_view()))}
                </datalist>
            </label>
            {text_field("Model for titles and summaries (optional, a cheaper one)", "text", |p| p.summary_model.clone(), |p, v| p.summary_model = v)}
            <div class="row">
                <button class="primary test-connection" on:click=test_connection disabled=move || check.get() == Check::Running>
                    "Test connection"
                </button>
                <span class="connection-result" role="status">
                    {move || match check.get() {
                        Check::Idle => view! { <span></span> }.into_any(),
                        Check::Running => view! { <span class="muted">"Connecting…"</span> }.into_any(),
                        Check::Ok(n) => view! { <span class="ok">{format!("Connected: {n} model(s) available.")}</span> }.into_any(),
                        Check::Failed(e) => view! { <span class="error">{e}</span> }.into_any(),
                    }}
                </span>
            </div>
            <div class="params">
                {number_input("Temperature", (0.0, 2.0, false), initial.0.map(decimal_f32), Callback::new(move |v: Option<f64>| edit(&|p| p.temperature = v.map(|v| v as f32))))}
                {number_input("Top p", (0.0, 1.0, false), initial.1.map(decimal_f32), Callback::new(move |v: Option<f64>| edit(&|p| p.top_p = v.map(|v| v as f32))))}
                {number_input("Max tokens", (1.0, 1_000_000.0, true), initial.2.map(|v| v.to_string()), Callback::new(move |v: Option<f64>| edit(&|p| p.max_tokens = v.map(|v| v as u32))))}
                {reasoning_field}
            </div>
        </div>
    }
}
