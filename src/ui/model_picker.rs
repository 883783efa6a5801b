//! The chat header's model picker: which provider profile and model this conversation uses.
//! A native `<select>` grouped by profile (`<optgroup>`) lists each profile's models from that
//! profile's own API (cached in the profile, listed once per page when a cache is empty), so
//! keyboard, Escape, outside clicks and narrow screens behave as the platform's own listbox
//! does, at a fraction of the page bytes of a hand-made one. Its "⋯" panel lists again,
//! takes a free-text model id, and shows the chosen model's capability flags for the user to
//! correct. Choosing remembers the choice in the conversation and makes it the default of
//! new ones.
//!
//! Decides nothing itself: which target a conversation uses comes from
//! `ChatSettings::resolution`, flag values and their sources from `profiles::caps`.

use crate::stores::reactive::memo;
use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::records::capabilities::Which;
use skiff_core::records::model_choice::ModelChoice;

use super::context::ctx;
use super::popover;
use super::when::When;
use crate::runner::models::refresh_profile;

#[component]
pub fn ModelPicker() -> impl IntoView {
    let ctx = ctx();
    let settings = ctx.settings.settings;
    let open = RwSignal::new(false);
    let toggle = NodeRef::<leptos::html::Button>::new();
    let root = NodeRef::<leptos::html::Div>::new();
    popover::close_on_outside_click(root, open);
    // What the last listing said ("Listing…", or why a profile could not be listed).
    let status = RwSignal::new(String::new());
    let listed_once = StoredValue::new(false);
    let resolution = memo(move || {
        let c = ctx
            .convs
            .current
            .get()
            .and_then(|c| c.meta.with(|m| m.model.clone()));
        settings.with(|s| s.resolution(c.as_ref()))
    });
    let current = move || resolution.get().map(|r| r.target);
    // List the profiles' models (`all`), or only those whose cache is empty.
    let list = move |all: bool| {
        let ids: Vec<String> = settings.with_untracked(|s| {
            s.profiles
                .iter()
                .filter(|p| all || p.listed_models().next().is_none())
                .map(|p| p.id.clone())
                .collect()
        });
        if ids.is_empty() {
            return;
        }
        status.set("Listing models…".into());
        spawn_local(async move {
            let mut failures = Vec::new();
            for id in ids {
                if let Err(e) = refresh_profile(ctx.settings, id.clone()).await {
                    let name = settings.with_untracked(|s| {
                        s.profiles
                            .iter()
                            .find(|p| p.id == id)
                            .map(|p| p.display_name())
                    });
                    failures.push(format!("{}: {e}", name.unwrap_or(id)));
                }
            }
            status.set(failures.join(" "));
        });
    };
    let choose = move |c: ModelChoice| {
        if let Some(conv) = ctx.convs.current.get_untracked() {
            ctx.convs.set_model(&conv, Some(c.clone()));
        }
        settings.maybe_update(|s| s.use_choice(c));
    };
    let free_text = RwSignal::new(String::new());

    view! {
        <div class="model-picker" node_ref=root on:keydown=move |ev| popover::escape_closes(&ev, open, toggle)>
            <select
                class="model-select"
                aria-label="Model for this conversation"
                title=move || resolution.get().and_then(|r| r.note)
                on:focus=move |_| {
                    // An empty cache is listed once per page; "List again" in ⋯ lists anew.
                    if !listed_once.get_value() {
                        listed_once.set_value(true);
                        list(false);
                    }
                }
                on:change=move |ev| {
                    // `profile id/model id`: ids Skiff makes have no slash; model ids may.
                    if let Some((p, m)) = event_target_value(&ev).split_once('/') {
                        choose(ModelChoice { profile_id: p.into(), model: m.into() });
                    }
                }
            >
                {move || {
                    let t = current().unwrap_or_default();
                    settings.with(|s| {
                        if s.profiles.is_empty() {
                            return view! { <option value="">"No provider"</option> }.into_any();
                        }
                        s.profiles.iter().map(|p| {
                            let name = p.display_name();
                            let mut models: Vec<String> = p.listed_models().map(str::to_string).collect();
                            // The default before anything is listed, and a typed id the list lacks;
                            // empty (the server's default) so a profile is always there to pick.
                            for m in [p.default_model.trim(), if t.profile_id == p.id { t.model.as_str() } else { "" }] {
                                if !models.iter().any(|x| x == m) && (!m.is_empty() || models.is_empty()) {
                                    models.push(m.to_string());
                                }
                            }
                            let options = models.into_iter().map(|m| {
                                let selected = t.profile_id == p.id && t.model == m;
                                let label = p.model_label(&m);
                                view! { <option value=format!("{}/{m}", p.id) selected=selected>{label}</option> }
                            }).collect_view();
                            view! { <optgroup label=name.clone()>{options}</optgroup> }
                        }).collect_view().into_any()
                    })
                }}
            </select>
            <button
                node_ref=toggle
                class="small model-more"
                aria-label="Model options"
                aria-expanded=move || open.get().to_string()
                on:click=move |_| open.update(|o| *o = !*o)
            >"⋯"</button>
            <When when=move || open.get()>
                <div class="model-picker-panel" role="dialog" aria-label="Model options">
                    {move || resolution.get().and_then(|r| r.note).map(|n| view! { <p class="hint model-note">{n}</p> })}
                    <p class="row">
                        <button class="small refresh-models" on:click=move |_| list(true)>"List models again"</button>
                        <small class="model-status" role="status">{status}</small>
                    </p>
                    <form class="free-model row" on:submit=move |ev| {
                        ev.prevent_default();
                        let model = free_text.get_untracked().trim().to_string();
                        let profile_id = current().map(|t| t.profile_id).unwrap_or_default();
                        if !model.is_empty() && !profile_id.is_empty() {
                            free_text.set(String::new());
                            choose(ModelChoice { profile_id, model });
                        }
                    }>
                        <label class="field">
                            <span>{move || format!("Another model of {}", current().map(|t| t.profile_name).unwrap_or_default())}</span>
                            <input class="model-id" autocomplete="off" spellcheck="false" prop:value=free_text on:input=move |ev| free_text.set(event_target_value(&ev)) />
                        </label>
                        <button type="submit" class="small">"Use"</button>
                    </form>
                    <Capabilities />
                </div>
            </When>
        </div>
    }
}

/// The chosen model's capability flags, each with where it came from; the user may set them.
#[component]
fn Capabilities() -> impl IntoView {
    let ctx = ctx();
    let settings = ctx.settings.settings;
    let target = move || {
        let c = ctx
            .convs
            .current
            .get()
            .and_then(|c| c.meta.with(|m| m.model.clone()));
        settings.with(|s| s.for_conversation(c.as_ref()).target)
    };
    view! {
        <fieldset class="capabilities">
            <legend>{move || format!("What {} can take", target().model)}</legend>
            {Which::ALL.iter().map(|&w| {
                let flag = move || target().caps.get(w);
                view! {
                    <label class="field capability">
                        <span>{w.label()}</span>
                        <select
                            data-cap=w.as_str()
                            prop:value=move || match flag().value() { Some(true) => "yes", Some(false) => "no", None => "" }
                            on:change=move |ev| {
                                let v = match event_target_value(&ev).as_str() { "yes" => Some(true), "no" => Some(false), _ => None };
                                let t = target();
                                settings.update(|s| if let Some(p) = s.profile_mut(&t.profile_id) { p.set_capability(&t.model, w, v) });
                            }
                        >
                            <option value="">"Unknown"</option>
                            <option value="yes">"Yes"</option>
                            <option value="no">"No"</option>
                        </select>
                        <small>{move || flag().describe()}</small>
                    </label>
                }
            }).collect_view()}
        </fieldset>
    }
}
