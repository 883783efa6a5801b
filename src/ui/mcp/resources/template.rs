//! The pane for a resource template (`res_ui::view::template_pane`): a field per variable with
//! the server's suggestions (`completion/complete`) as the user types, and Read, which expands
//! the URI (`res_ui::form::TemplateForm`) and opens it.

use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::mcp::prompt_result::suggestions;
use skiff_core::mcp::res_ui::form::TemplateForm;
use skiff_core::mcp::res_ui::view::{template_pane, Action, FieldView, TemplatePane, TemplateView};

use super::browser::Browser;

/// How long typing pauses before the server is asked for suggestions.
const COMPLETE_DELAY: Duration = Duration::from_millis(200);

/// The form's live state: what is typed, the last Read's sentences, the suggestions shown.
#[derive(Clone, Copy)]
struct Form {
    values: StoredValue<Vec<(String, String)>>,
    errors: RwSignal<Vec<(usize, String)>>,
    suggested: RwSignal<Vec<Vec<String>>>,
    /// The latest keystroke's request: an earlier answer arriving late is dropped.
    asked: StoredValue<u64>,
    timer: StoredValue<Option<TimeoutHandle>>,
}

fn field(
    b: Browser,
    f: Form,
    server: String,
    index: usize,
    i: usize,
    v: FieldView,
) -> impl IntoView {
    let id = format!("res-v{i}");
    let err_id = format!("{id}-err");
    let list_id = format!("res-dl{i}");
    let error = move || {
        f.errors
            .with(|e| e.iter().find(|(at, _)| *at == i).map(|(_, s)| s.clone()))
    };
    let name = v.name.clone();
    let on_input = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        f.values.update_value(|vals| {
            if let Some(slot) = vals.iter_mut().find(|(n, _)| *n == name) {
                slot.1 = value;
            }
        });
        if let Some(t) = f.timer.get_value() {
            t.clear();
        }
        let (server, name) = (server.clone(), name.clone());
        let timer = set_timeout_with_handle(
            // The form may be gone when the timer fires or the answer comes (closed, or the
            // browser rebuilt): every read and write here must survive that (`try_*`).
            move || {
                let Some(seq) = f.asked.try_get_value().map(|n| n + 1) else {
                    return;
                };
                f.asked.try_set_value(seq);
                spawn_local(async move {
                    let Some(values) = f.values.try_get_value() else {
                        return;
                    };
                    let got = b.runner.complete(&server, index, &values, &name).await;
                    // Only the answer to the latest keystroke fills the list. A server without
                    // completions still has a usable form.
                    if f.asked.try_get_value() != Some(seq) {
                        return;
                    }
                    if let Some(result) = got {
                        f.suggested.try_update(|s| {
                            if let Some(slot) = s.get_mut(i) {
                                *slot = suggestions(&result).0;
                            }
                        });
                    }
                });
            },
            COMPLETE_DELAY,
        )
        .ok();
        f.timer.set_value(timer);
    };
    view! {
        <div class="res-field">
            <label for=id.clone()>
                {v.name.clone()}
                {v.optional.then(|| view! { <span class="res-optional">" (optional)"</span> })}
            </label>
            <input
                id=id
                name=v.name.clone()
                type="text"
                value=v.value
                list=list_id.clone()
                autocomplete="off"
                data-field=v.name
                required=!v.optional
                aria-invalid=move || error().map(|_| "true")
                aria-describedby={
                    let err_id = err_id.clone();
                    move || error().map(|_| err_id.clone())
                }
                on:input=on_input
            />
            <datalist id=list_id>
                {move || {
                    f.suggested
                        .with(|s| s.get(i).cloned().unwrap_or_default())
                        .into_iter()
                        .map(|v| view! { <option value=v></option> })
                        .collect_view()
                }}
            </datalist>
            {move || error().map(|e| view! { <p class="res-error" id=err_id.clone()>{e}</p> })}
        </div>
    }
}

fn draw(b: Browser, server: String, index: usize, v: TemplateView) -> AnyView {
    let TemplateView {
        title,
        server_name,
        uri_template,
        description,
        fields,
    } = v;
    let body = match fields {
        Err(why) => view! { <p class="res-error">{why}</p> }.into_any(),
        Ok(fields) => {
            let f = Form {
                values: StoredValue::new(
                    fields
                        .iter()
                        .map(|x| (x.name.clone(), x.value.clone()))
                        .collect(),
                ),
                errors: RwSignal::new(Vec::new()),
                suggested: RwSignal::new(vec![Vec::new(); fields.len()]),
                asked: StoredValue::new(0),
                timer: StoredValue::new(None),
            };
            let srv = server.clone();
            let read = move |ev: leptos::ev::SubmitEvent| {
                ev.prevent_default();
                let values = f.values.get_value();
                let expanded = b.runner.store.with(|s| {
                    let t = s
                        .server(&srv)
                        .and_then(|s| s.templates.get(index))
                        .ok_or_else(|| {
                            vec![(
                                0,
                                "This template is no longer offered by the server.".to_string(),
                            )]
                        })?;
                    TemplateForm::new(t, &values)
                        .map_err(|e| vec![(0, e)])?
                        .expand()
                });
                match expanded {
                    Ok(uri) => b.open_resource(srv.clone(), uri, false),
                    Err(errors) => {
                        let first = errors.first().map_or(0, |(i, _)| *i);
                        f.errors.set(errors);
                        focus_field(first);
                    }
                }
            };
            let inputs = fields
                .into_iter()
                .enumerate()
                .map(|(i, v)| field(b, f, server.clone(), index, i, v))
                .collect_view();
            view! {
                <form class="res-form" novalidate on:submit=read>
                    {inputs}
                    <button type="submit" class="primary res-read">"Read"</button>
                </form>
            }
            .into_any()
        }
    };
    view! {
        <button type="button" class="res-back" data-act=Action::Back.as_str() on:click=move |_| b.back()>
            {Action::Back.label()}
        </button>
        <h3 class="res-name" id="res-pane-title" tabindex="-1">{title}</h3>
        <p class="res-uri"><bdi>{server_name}</bdi>" \u{b7} "<code>{uri_template}</code></p>
        {description.map(|d| view! { <p class="res-desc" dir="auto">{d}</p> })}
        {body}
    }
    .into_any()
}

fn focus_field(i: usize) {
    request_animation_frame(move || {
        if let Some(el) = document()
            .get_element_by_id(&format!("res-v{i}"))
            .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok())
        {
            let _ = el.focus();
        }
    });
}

/// The pane for template `index` of `server`: drawn once (the fields keep what is typed);
/// a template the server stops offering says so.
pub(super) fn template(b: Browser, server: String, index: usize) -> AnyView {
    let pane = b.runner.store.with(|s| {
        let form = s
            .server(&server)
            .and_then(|x| x.templates.get(index))
            .map(|t| TemplateForm::new(t, &[]))
            .unwrap_or_else(|| Err(String::new()));
        template_pane(s, &server, index, &form, &[])
    });
    match pane {
        TemplatePane::Gone(why) => view! {
            <button type="button" class="res-back" data-act=Action::Back.as_str() on:click=move |_| b.back()>
                {Action::Back.label()}
            </button>
            <p class="res-error">{why}</p>
        }
        .into_any(),
        TemplatePane::Form(v) => draw(b, server, index, v),
    }
}
