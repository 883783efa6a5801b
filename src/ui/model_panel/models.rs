//! The stored models: each with its facts, the context it runs with, its sampling defaults,
//! and Delete after a second click.

use crate::stores::reactive::memo;
use leptos::prelude::*;
use skiff_core::model_panel::{Intent, ModelView, Sampling};

use super::Shared;
use crate::ui::keyed_list::keyed_list;
use crate::ui::when::When;

pub(super) fn list(shared: Shared) -> impl IntoView {
    let ids = move || {
        shared.view.with(|v| {
            v.iter()
                .flat_map(|v| &v.models)
                .map(|m| m.id.clone())
                .collect::<Vec<_>>()
        })
    };
    let empty = move || {
        shared
            .view
            .with(|v| v.as_ref().is_some_and(|v| v.models.is_empty()))
    };
    view! {
        <When when=empty>
            <p class="muted lm-empty">"No model is stored yet."</p>
        </When>
        <ul class="lm-models">
            {keyed_list(ids, String::clone, move |id| row(shared, id))}
        </ul>
    }
}

fn row(shared: Shared, id: String) -> impl IntoView {
    let key = StoredValue::new(id.clone());
    let this = memo(move || {
        shared.view.with(|v| {
            v.as_ref()
                .and_then(|v| key.with_value(|id| v.models.iter().find(|m| &m.id == id)))
                .cloned()
        })
    });
    let read =
        move |f: fn(&ModelView) -> String| this.with(|m| m.as_ref().map(f).unwrap_or_default());
    let confirming = move || this.with(|m| m.as_ref().is_some_and(|m| m.confirming));
    let model = move || key.get_value();
    let contexts = move || {
        this.with(|m| {
            m.iter()
                .flat_map(|m| m.contexts.iter().map(move |&c| (c, c == m.context)))
                .map(|(c, selected)| view! { <option value=c.to_string() selected=selected>{format!("{c} tokens")}</option> })
                .collect_view()
        })
    };
    let sampling = Sampling::ALL
        .iter()
        .map(|&setting| {
            // Its own memo: the field is written only when its stored value changes, never
            // under the cursor because something else in the row did.
            let value = memo(move || {
                this.with(|m| {
                    m.iter()
                        .flat_map(|m| &m.sampling)
                        .find(|(s, _)| *s == setting)
                        .map(|(_, v)| v.clone())
                        .unwrap_or_default()
                })
            });
            view! {
                <label class="field number">
                    <span>{setting.label()}</span>
                    <input
                        name=setting.as_str()
                        inputmode="decimal"
                        placeholder="default"
                        prop:value=value
                        on:change=move |ev| {
                            shared.act.run(Intent::SetSampling { model: model(), setting, text: event_target_value(&ev) });
                        }
                    />
                </label>
            }
        })
        .collect_view();
    view! {
        <li class="lm-model">
            <strong class="lm-name" title=move || this.with(|m| m.as_ref().and_then(|m| m.title.clone()))>{id.clone()}</strong>
            <span class="muted lm-facts">{move || read(|m| m.facts.clone())}</span>
            <label class="lm-context">
                "Context "
                <select on:change=move |ev| {
                    shared.act.run(Intent::SetContext { model: model(), value: event_target_value(&ev) });
                }>{contexts}</select>
            </label>
            <details class="lm-sampling">
                <summary>"Sampling defaults (when a chat does not set them)"</summary>
                <div class="row">{sampling}</div>
                {move || this.with(|m| m.as_ref().and_then(|m| m.notice.clone())).map(|notice| view! {
                    <p class="error lm-notice" role="alert">{notice}</p>
                })}
            </details>
            <When
                when=confirming
                fallback=move || view! {
                    <button
                        class="small lm-delete"
                        aria-label=format!("Delete {}", model())
                        on:click=move |_| { shared.act.run(Intent::AskDelete { model: model() }); }
                    >"Delete"</button>
                }
            >
                <span class="confirm" role="alert">
                    {format!("Delete {}? ", model())}
                    <button class="small danger lm-delete-confirm" on:click=move |_| { shared.act.run(Intent::Delete { model: model() }); }>"Delete"</button>
                    <button class="small" on:click=move |_| { shared.act.run(Intent::Keep); }>"Keep"</button>
                </span>
            </When>
        </li>
    }
}
