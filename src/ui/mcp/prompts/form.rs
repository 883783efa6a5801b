//! A chosen prompt's argument form (`ask_ui::PromptForm`): a field per argument, the
//! server's suggestions under the field being typed in (`completion/complete`), the sentences
//! of an Insert that did not go, and Insert, which gets the prompt and adds its turns.

use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::mcp::ask_ui::{field_id, suggest_id, ArgView, FormView, FORM_TITLE_ID};
use wasm_bindgen::JsCast;

use super::Panel;
use crate::stores::reactive::memo;

/// How long typing pauses before the server is asked for suggestions.
const COMPLETE_DELAY: Duration = Duration::from_millis(150);

fn element(id: &str) -> Option<web_sys::HtmlElement> {
    document()
        .get_element_by_id(id)
        .and_then(|e| e.dyn_into().ok())
}

/// Focus element `id` once it is drawn.
pub(super) fn focus(id: &str) {
    let id = id.to_string();
    request_animation_frame(move || {
        if let Some(el) = element(&id) {
            let _ = el.focus();
        }
    });
}

/// Insert is where the user acts next after a failure.
pub(super) fn focus_insert() {
    request_animation_frame(|| {
        let el = document()
            .query_selector("#ask-panel .ask-insert")
            .ok()
            .flatten()
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
        if let Some(el) = el {
            let _ = el.focus();
        }
    });
}

/// Ask the server for argument `i`'s suggestions once typing pauses.
fn complete(p: Panel, timers: StoredValue<Vec<Option<TimeoutHandle>>>, i: usize) {
    if let Some(Some(t)) = timers.with_value(|t| t.get(i).copied()) {
        t.clear();
    }
    let t = set_timeout_with_handle(
        move || {
            let Some(Some((server, params))) = p.form.try_with_untracked(|f| {
                f.as_ref()
                    .and_then(|f| Some((f.entry().server_id.clone(), f.completion(i)?)))
            }) else {
                return;
            };
            let typed = element(&field_id(i))
                .and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok())
                .map(|e| e.value())
                .unwrap_or_default();
            spawn_local(async move {
                // Suggestions are a help, not a step: a server without them leaves the field
                // as it is.
                let Ok(result) = p
                    .ctx
                    .mcp_runner
                    .request(&server, "completion/complete".into(), Some(params))
                    .await
                else {
                    return;
                };
                p.form.try_update(|f| {
                    if let Some(f) = f {
                        f.suggested(i, &typed, &result);
                    }
                });
            });
        },
        COMPLETE_DELAY,
    )
    .ok();
    timers.update_value(|ts| {
        if let Some(slot) = ts.get_mut(i) {
            *slot = t;
        }
    });
}

fn field(
    p: Panel,
    timers: StoredValue<Vec<Option<TimeoutHandle>>>,
    i: usize,
    a: ArgView,
) -> impl IntoView {
    let error = memo(move || {
        p.form.with(|f| {
            f.as_ref()
                .and_then(|f| f.view().fields.get(i)?.error.clone())
        })
    });
    let suggest = memo(move || {
        p.form
            .with(|f| f.as_ref().map(|f| f.suggestions(i)).unwrap_or_default())
    });
    let id = a.id.clone();
    let err_id = format!("{id}-err");
    let desc_id = format!("{id}-desc");
    let described = if a.description.is_some() {
        format!("{err_id} {desc_id}")
    } else {
        err_id.clone()
    };
    let pick = move |j: usize| {
        let Some(value) = p
            .form
            .try_update(|f| f.as_mut().and_then(|f| f.pick(i, j)))
            .flatten()
        else {
            return;
        };
        if let Some(input) =
            element(&field_id(i)).and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok())
        {
            input.set_value(&value);
            let _ = input.focus();
        }
    };
    view! {
        <div class="ask-field" data-arg=a.name.clone()>
            <label for=id.clone()>
                {a.label.clone()}
                {if a.required {
                    view! { <span class="ask-required" aria-hidden="true">" *"</span> }.into_any()
                } else {
                    view! { <span class="ask-optional muted">" (optional)"</span> }.into_any()
                }}
            </label>
            {a.description.map(|d| view! { <small class="muted ask-arg-desc" id=desc_id dir="auto">{d}</small> })}
            <input
                type="text"
                id=id
                name=format!("a{i}")
                data-arg-index=i.to_string()
                required=a.required
                aria-invalid=move || if error.with(Option::is_some) { "true" } else { "false" }
                aria-describedby=described
                value=a.value
                on:input=move |ev| {
                    let v = event_target_value(&ev);
                    p.form.update(|f| {
                        if let Some(f) = f {
                            f.set_value(i, &v);
                        }
                    });
                    complete(p, timers, i);
                }
                on:focusin=move |_| complete(p, timers, i)
            />
            <div class="ask-suggest" id=suggest_id(i)>
                {move || {
                    let s = suggest.get();
                    (!s.values.is_empty()).then(|| {
                        let chips = s
                            .values
                            .into_iter()
                            .enumerate()
                            .map(|(j, v)| view! {
                                <button type="button" class="small ask-suggestion" on:click=move |_| pick(j)>{v}</button>
                            })
                            .collect_view();
                        view! {
                            <div class="ask-suggest-list" role="group" aria-label=s.label>
                                {chips}
                                {s.more.map(|m| view! { <span class="muted ask-suggest-more">{m}</span> })}
                            </div>
                        }
                    })
                }}
            </div>
            <p class="error ask-error" id=err_id>{move || error.get()}</p>
        </div>
    }
}

/// Arrows walk from a field into its suggestions and along them (Up from the first goes back
/// to the field); Escape closes the suggestions, else the form. Escape is the form's: the page
/// must not take it (it would stop an answer being written).
fn on_key(p: Panel, ev: &web_sys::KeyboardEvent) {
    if ev.is_composing() {
        return;
    }
    let target = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok());
    let field = target
        .as_ref()
        .and_then(|t| t.closest(".ask-field").ok().flatten());
    let input = field
        .as_ref()
        .and_then(|f| f.query_selector("[data-arg-index]").ok().flatten())
        .and_then(|e| e.dyn_into::<web_sys::HtmlInputElement>().ok());
    let chips: Vec<web_sys::HtmlElement> = field
        .as_ref()
        .and_then(|f| f.query_selector_all(".ask-suggestion").ok())
        .map(|l| {
            (0..l.length())
                .filter_map(|i| l.item(i)?.dyn_into().ok())
                .collect()
        })
        .unwrap_or_default();
    let key = ev.key();
    if let (Some(input), false) = (&input, chips.is_empty()) {
        if matches!(
            key.as_str(),
            "ArrowDown" | "ArrowUp" | "ArrowRight" | "ArrowLeft"
        ) {
            let at = target
                .as_ref()
                .and_then(|t| chips.iter().position(|c| c.is_same_node(Some(t))));
            let forward = key == "ArrowDown" || key == "ArrowRight";
            let next = match at {
                None if key != "ArrowDown" => return,
                None => chips.first(),
                Some(j) if forward => chips.get((j + 1).min(chips.len() - 1)),
                Some(0) => {
                    ev.prevent_default();
                    let _ = input.focus();
                    return;
                }
                Some(j) => chips.get(j - 1),
            };
            ev.prevent_default();
            if let Some(c) = next {
                let _ = c.focus();
            }
            return;
        }
    }
    if key != "Escape" {
        return;
    }
    ev.prevent_default();
    ev.stop_propagation();
    let i = input
        .as_ref()
        .and_then(|e| e.get_attribute("data-arg-index"))
        .and_then(|s| s.parse::<usize>().ok());
    if let Some(i) = i {
        let cleared = p
            .form
            .try_update(|f| f.as_mut().is_some_and(|f| f.clear_suggestions(i)))
            .unwrap_or(false);
        if cleared {
            if let Some(input) = input {
                let _ = input.focus();
            }
            return;
        }
    }
    p.close(true);
}

pub(super) fn form(p: Panel) -> AnyView {
    let Some(FormView {
        title,
        name,
        server,
        description,
        fields,
        ..
    }) = p.form.with_untracked(|f| f.as_ref().map(|f| f.view()))
    else {
        return ().into_any();
    };
    let timers = StoredValue::new(vec![None; fields.len()]);
    let lines = memo(move || {
        p.form.with(|f| {
            f.as_ref()
                .map(|f| {
                    let v = f.view();
                    (v.summary, v.failure, v.busy)
                })
                .unwrap_or_default()
        })
    });
    let inputs = fields
        .into_iter()
        .enumerate()
        .map(|(i, a)| field(p, timers, i, a))
        .collect_view();
    view! {
        <div
            id="ask-panel"
            class="ask-panel ask-prompt"
            role="dialog"
            aria-labelledby=FORM_TITLE_ID
            on:keydown=move |ev| on_key(p, &ev)
        >
            <h2 class="ask-title" id=FORM_TITLE_ID>
                <bdi class="ask-prompt-title">{title}</bdi>
                " "
                <small class="muted"><bdi>{name}</bdi>" \u{b7} "<bdi>{server}</bdi></small>
            </h2>
            {description.map(|d| view! { <p class="ask-desc muted" dir="auto">{d}</p> })}
            <form
                class="ask-form"
                novalidate
                autocomplete="off"
                on:submit=move |ev| {
                    ev.prevent_default();
                    p.insert();
                }
            >
                {inputs}
                {move || lines.get().0.map(|s| view! { <p class="error ask-summary" role="alert">{s}</p> })}
                {move || lines.get().1.map(|s| view! { <p class="error ask-failure" role="alert">{s}</p> })}
                {move || lines.get().2.map(|s| view! { <p class="muted ask-busy" role="status">{s}</p> })}
                <div class="ask-actions">
                    <button type="submit" class="primary ask-insert" disabled=move || lines.with(|l| l.2.is_some())>
                        "Insert prompt"
                    </button>
                    <button type="button" class="ask-cancel" on:click=move |_| p.close(true)>"Cancel"</button>
                </div>
            </form>
        </div>
    }
    .into_any()
}
