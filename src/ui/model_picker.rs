//! The chat header's model picker: which provider profile and model this conversation uses.
//! The button says "model · profile"; its panel lists each profile's models from that
//! profile's own API (cached in the profile, listed once per page when the cache is empty,
//! Refresh to list again), takes a free-text model id, and shows the chosen model's
//! capability flags for the user to correct. Choosing remembers the choice in the
//! conversation and makes it the default of new ones.
//!
//! Decides nothing itself: which target a conversation uses comes from
//! `ChatSettings::resolution`, flag values and their sources from `profiles::caps`.

use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::profiles::caps::Which;
use skiff_core::profiles::ModelChoice;
use wasm_bindgen::JsCast;

use super::context::ctx;
use super::popover;
use crate::runner::models::refresh_profile;

#[component]
pub fn ModelPicker() -> impl IntoView {
    let ctx = ctx();
    let settings = ctx.settings.settings;
    let open = RwSignal::new(false);
    let toggle = NodeRef::<leptos::html::Button>::new();
    let root = NodeRef::<leptos::html::Div>::new();
    popover::close_on_outside_click(root, open);
    // Profiles listing now, and the last failure per profile.
    let busy = RwSignal::new(Vec::<String>::new());
    let failed = RwSignal::new(Vec::<(String, String)>::new());
    let listed_once = StoredValue::new(Vec::<String>::new());
    let choice = move || {
        ctx.convs
            .current
            .get()
            .and_then(|c| c.meta.with(|m| m.model.clone()))
    };
    let resolution = Memo::new(move |_| {
        let c = choice();
        settings.with(|s| s.resolution(c.as_ref()))
    });
    let refresh = move |id: String| {
        if busy.with_untracked(|b| b.contains(&id)) {
            return;
        }
        busy.update(|b| b.push(id.clone()));
        failed.update(|f| f.retain(|(p, _)| *p != id));
        spawn_local(async move {
            let outcome = refresh_profile(ctx.settings, id.clone()).await;
            busy.update(|b| b.retain(|p| *p != id));
            if let Err(e) = outcome {
                failed.update(|f| f.push((id, e.to_string())));
            }
        });
    };
    let choose = move |c: ModelChoice| {
        if let Some(conv) = ctx.convs.current.get_untracked() {
            ctx.convs.set_model(&conv, Some(c.clone()));
        }
        settings.maybe_update(|s| s.use_choice(c));
        open.set(false);
        if let Some(t) = toggle.get_untracked() {
            let _ = t.focus();
        }
    };
    let on_toggle = move |_| {
        open.update(|o| *o = !*o);
        if !open.get_untracked() {
            return;
        }
        // An empty cache is listed once per page; Refresh lists again.
        let empty: Vec<String> = settings.with_untracked(|s| {
            s.profiles
                .iter()
                .filter(|p| p.listed_models().next().is_none())
                .map(|p| p.id.clone())
                .collect()
        });
        for id in empty {
            if !listed_once.with_value(|l| l.contains(&id)) {
                listed_once.update_value(|l| l.push(id.clone()));
                refresh(id);
            }
        }
    };
    let free_text = RwSignal::new(String::new());
    let free_profile = RwSignal::new(String::new());
    let current = move || resolution.get().map(|r| r.target);

    view! {
        <div class="model-picker" node_ref=root on:keydown=move |ev| popover::escape_closes(&ev, open, toggle)>
            <button
                node_ref=toggle
                class="small model-picker-toggle"
                aria-haspopup="dialog"
                aria-expanded=move || open.get().to_string()
                title=move || resolution.get().and_then(|r| r.note).unwrap_or_else(|| "Model for this conversation".into())
                on:click=on_toggle
            >
                {move || current().map_or_else(|| "No provider".to_string(), |t| t.label())}
            </button>
            <Show when=move || open.get()>
                <div class="model-picker-panel" role="dialog" aria-label="Model for this conversation">
                    {move || resolution.get().and_then(|r| r.note).map(|n| view! { <p class="hint model-note" role="status">{n}</p> })}
                    <Show when=move || settings.with(|s| s.profiles.is_empty())>
                        <p class="muted">"No provider yet. " <button class="link-button" on:click=move |_| ctx.show_settings.set(true)>"Open settings"</button></p>
                    </Show>
                    <For each=move || settings.with(|s| s.profiles.iter().map(|p| p.id.clone()).collect::<Vec<_>>()) key=|id| id.clone() let:id>
                        {
                            let id = StoredValue::new(id);
                            let name = move || settings.with(|s| s.profiles.iter().find(|p| p.id == id.get_value()).map(|p| p.display_name()).unwrap_or_default());
                            // The listed models, or the default model when nothing is listed.
                            let models = move || settings.with(|s| {
                                let Some(p) = s.profiles.iter().find(|p| p.id == id.get_value()) else { return Vec::new() };
                                let mut m: Vec<String> = p.listed_models().map(str::to_string).collect();
                                if m.is_empty() && !p.default_model.trim().is_empty() {
                                    m.push(p.default_model.trim().to_string());
                                }
                                m
                            });
                            let listing = move || busy.with(|b| b.contains(&id.get_value()));
                            view! {
                                <div class="model-group" data-profile=move || id.get_value()>
                                    <div class="model-group-head">
                                        <strong>{name}</strong>
                                        <button class="link-button refresh-models" aria-label=move || format!("Refresh the models of {}", name()) disabled=listing on:click=move |_| refresh(id.get_value())>
                                            {move || if listing() { "Listing…" } else { "Refresh" }}
                                        </button>
                                    </div>
                                    {move || failed.with(|f| f.iter().find(|(p, _)| *p == id.get_value()).map(|(_, e)| view! { <small class="error">{e.clone()}</small> }))}
                                    {move || {
                                        let list = models();
                                        (!list.is_empty()).then(|| view! {
                                            <div role="listbox" aria-label=name on:keydown=move |ev| {
                                                if let Some(el) = ev.current_target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) {
                                                    popover::arrow_keys(&ev, &el);
                                                }
                                            }>
                                                {list.into_iter().map(|m| {
                                                    let c = ModelChoice { profile_id: id.get_value(), model: m.clone() };
                                                    let selected = current().is_some_and(|t| t.profile_id == c.profile_id && t.model == c.model);
                                                    view! {
                                                        <button role="option" class="model-option" aria-selected=selected.to_string() data-model=m.clone() on:click=move |_| choose(c.clone())>{m.clone()}</button>
                                                    }
                                                }).collect_view()}
                                            </div>
                                        })
                                    }}
                                </div>
                            }
                        }
                    </For>
                    <form class="free-model row" on:submit=move |ev| {
                        ev.prevent_default();
                        let model = free_text.get_untracked().trim().to_string();
                        let profile_id = match free_profile.get_untracked() {
                            p if !p.is_empty() => p,
                            _ => current().map(|t| t.profile_id).unwrap_or_default(),
                        };
                        if !model.is_empty() && !profile_id.is_empty() {
                            free_text.set(String::new());
                            choose(ModelChoice { profile_id, model });
                        }
                    }>
                        <label class="field">
                            <span>"Model id"</span>
                            <input class="model-id" autocomplete="off" spellcheck="false" prop:value=free_text on:input=move |ev| free_text.set(event_target_value(&ev)) />
                        </label>
                        <label class="field">
                            <span>"Provider"</span>
                            <select class="model-id-profile" on:change=move |ev| free_profile.set(event_target_value(&ev))>
                                {move || settings.with(|s| s.profiles.iter().map(|p| {
                                    let selected = current().is_some_and(|t| t.profile_id == p.id);
                                    view! { <option value=p.id.clone() selected=selected>{p.display_name()}</option> }
                                }).collect_view())}
                            </select>
                        </label>
                        <button type="submit" class="small">"Use"</button>
                    </form>
                    {move || current().filter(|t| !t.model.is_empty()).map(|t| view! { <Capabilities profile_id=t.profile_id model=t.model /> })}
                </div>
            </Show>
        </div>
    }
}

/// The chosen model's capability flags, each with where it came from; the user may set them.
#[component]
fn Capabilities(profile_id: String, model: String) -> impl IntoView {
    let settings = ctx().settings.settings;
    let key = StoredValue::new((profile_id, model));
    let flag = move |w: Which| {
        settings.with(|s| {
            let (p, m) = key.get_value();
            s.profiles
                .iter()
                .find(|x| x.id == p)
                .map(|x| x.capabilities(&m).get(w))
                .unwrap_or_default()
        })
    };
    view! {
        <fieldset class="capabilities">
            <legend>{format!("What {} can take", key.get_value().1)}</legend>
            {Which::ALL.iter().map(|&w| view! {
                <label class="field capability">
                    <span>{w.label()}</span>
                    <select data-cap=w.as_str() on:change=move |ev| {
                        let v = match event_target_value(&ev).as_str() { "yes" => Some(true), "no" => Some(false), _ => None };
                        let (p, m) = key.get_value();
                        settings.update(|s| if let Some(p) = s.profile_mut(&p) { p.set_capability(&m, w, v) });
                    }>
                        {[("", None), ("yes", Some(true)), ("no", Some(false))].into_iter().map(|(value, v)| view! {
                            <option value=value selected=move || flag(w).value() == v>{move || match v {
                                None => "Unknown".to_string(),
                                Some(_) if flag(w).value() == v => flag(w).describe().to_string(),
                                Some(true) => "Yes".to_string(),
                                Some(false) => "No".to_string(),
                            }}</option>
                        }).collect_view()}
                    </select>
                </label>
            }).collect_view()}
        </fieldset>
    }
}
