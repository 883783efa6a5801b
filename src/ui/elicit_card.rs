//! Questions MCP servers ask the user (elicitation), as cards: which server asks (its name
//! isolated, so right-to-left text cannot reorder the sentence around it), its message as
//! plain text, then a form built from the requested schema or, in URL mode, the domain the
//! link goes to; Accept, Decline, Cancel.
//!
//! The tray sits in the chat under the messages, so a question asked during a tool call
//! appears right below that call's card; while Settings is open it shows at the top of the
//! Settings dialog instead, so a question asked from a tool's "try" form is seen.
//!
//! It renders `skiff_core::mcp::elicit`'s decisions (fields, defaults, validation sentences)
//! and never opens a link on its own: only the user's click on "Open" does.

use leptos::prelude::*;
use skiff_core::display::text;
use skiff_core::format::decimal;
use skiff_core::mcp::elicit::{
    ElicitAnswer, ElicitKind, Field, FieldInput, FieldKind, FormModel, UrlAsk,
};
use skiff_core::mcp::ElicitKey;

use super::context::ctx;
use super::keyed_list::keyed_list;
use super::when::When;
use crate::platform::location::open_in_new_tab;
use crate::stores::mcp::ElicitCard;

/// Every open question, oldest first. `in_settings`: the copy inside the Settings dialog.
#[component]
pub fn ElicitTray(#[prop(optional)] in_settings: bool) -> impl IntoView {
    let ctx = ctx();
    // One place shows the questions at a time, so ids and labels stay unique on the page.
    let here = move || in_settings == ctx.show_settings.get();
    let any = move || here() && ctx.mcp.elicits.with(|c| !c.is_empty());
    view! {
        <When when=any>
            <section class="elicit-tray" aria-label="Questions from MCP servers">
                {keyed_list(
                    move || ctx.mcp.elicits.get(),
                    |c| format!("{}\u{1f}{}\u{1f}{}", c.server_id, c.key, c.waiting),
                    |c| view! { <ElicitCardView card=c /> },
                )}
            </section>
        </When>
    }
}

fn dom_id(server_id: &str, key: ElicitKey) -> String {
    let safe: String = server_id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("elicit-{safe}-{key}")
}

#[component]
fn ElicitCardView(card: ElicitCard) -> impl IntoView {
    let ctx = ctx();
    let id = dom_id(&card.server_id, card.key);
    let title_id = format!("{id}-title");
    let labelled_by = title_id.clone();
    let name = text::name(&card.server_name).into_owned();
    let message = text::prose(&card.request.message).into_owned();
    let server_id = StoredValue::new(card.server_id.clone());
    let key = card.key;
    let answer = move |a: ElicitAnswer| {
        ctx.mcp_runner
            .answer_elicitation(&server_id.get_value(), key, a)
    };
    let mode = match &card.request.kind {
        ElicitKind::Form(_) => "form",
        ElicitKind::Url(_) => "url",
    };
    let body = match card.request.kind {
        ElicitKind::Form(model) => form_view(&id, model, answer).into_any(),
        ElicitKind::Url(ask) if card.waiting => waiting_view(ask, &name, move || {
            ctx.mcp.elicit_dismiss(&server_id.get_value(), key)
        })
        .into_any(),
        ElicitKind::Url(ask) => url_view(ask, answer).into_any(),
    };
    view! {
        <article
            class="elicit-card"
            data-server-name=card.server_name.clone()
            data-mode=mode
            aria-labelledby=labelled_by
        >
            <h2 class="elicit-title" id=title_id>
                <bdi class="elicit-server">{name}</bdi>
                " asks for input"
            </h2>
            <p class="elicit-message" dir="auto">{message}</p>
            {body}
        </article>
    }
}

fn buttons(
    accept_label: String,
    on_accept: impl Fn() + 'static,
    answer: impl Fn(ElicitAnswer) + Copy + 'static,
) -> impl IntoView {
    view! {
        <div class="elicit-actions">
            <button type="button" class="primary elicit-accept" on:click=move |_| on_accept()>{accept_label}</button>
            <button type="button" class="elicit-decline" on:click=move |_| answer(ElicitAnswer::decline())>"Decline"</button>
            <button type="button" class="elicit-cancel" on:click=move |_| answer(ElicitAnswer::cancel())>"Cancel"</button>
        </div>
    }
}

fn form_view(
    id: &str,
    model: FormModel,
    answer: impl Fn(ElicitAnswer) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let inputs = RwSignal::new(model.initial_inputs());
    let errors = RwSignal::new(Vec::<(usize, String)>::new());
    let model = StoredValue::new(model);
    let fields = model.with_value(|m| m.fields.clone());
    let accept = move || match model.with_value(|m| m.validate(&inputs.get_untracked())) {
        Ok(content) => answer(ElicitAnswer::accept(Some(content))),
        Err(e) => errors.set(e),
    };
    let summary = move || {
        let n = errors.with(Vec::len);
        (n > 0).then(|| {
            let s = if n == 1 { "field needs" } else { "fields need" };
            view! { <p class="error elicit-summary" role="alert">{format!("{n} {s} attention before the answer can be sent.")}</p> }
        })
    };
    view! {
        <form class="elicit-form" on:submit=move |ev| { ev.prevent_default(); accept(); }>
            {fields
                .into_iter()
                .enumerate()
                .map(|(i, f)| field_view(&format!("{id}-f{i}"), i, f, inputs, errors))
                .collect_view()}
            {summary}
            {buttons("Accept".into(), accept, answer)}
        </form>
    }
}

fn set_input(inputs: RwSignal<Vec<FieldInput>>, i: usize, v: FieldInput) {
    inputs.update(|all| {
        if let Some(slot) = all.get_mut(i) {
            *slot = v;
        }
    });
}

fn text_of(inputs: RwSignal<Vec<FieldInput>>, i: usize) -> String {
    inputs.with_untracked(|all| match all.get(i) {
        Some(FieldInput::Text(t)) => t.clone(),
        _ => String::new(),
    })
}

fn field_view(
    id: &str,
    i: usize,
    f: Field,
    inputs: RwSignal<Vec<FieldInput>>,
    errors: RwSignal<Vec<(usize, String)>>,
) -> impl IntoView {
    let err_id = format!("{id}-err");
    let desc_id = format!("{id}-desc");
    let error = move || errors.with(|e| e.iter().find(|(j, _)| *j == i).map(|(_, s)| s.clone()));
    let described = {
        let mut ids = vec![err_id.clone()];
        if f.description.is_some() {
            ids.push(desc_id.clone());
        }
        ids.join(" ")
    };
    let label = text::name(&f.label).into_owned();
    let marker = f
        .required
        .then_some(view! { <span class="elicit-required" aria-hidden="true">" *"</span> });
    let description = f
        .description
        .as_deref()
        .map(|d| view! { <small class="muted elicit-desc" id=desc_id.clone()>{text::prose(d).into_owned()}</small> });
    let required = f.required;
    let input = match f.kind.clone() {
        FieldKind::Text {
            format,
            min_len,
            max_len,
        } => view! {
            <input
                id=id.to_string()
                type=format.input_type()
                prop:value=text_of(inputs, i)
                minlength=min_len.map(|n| n.to_string())
                maxlength=max_len.map(|n| n.to_string())
                required=required
                aria-invalid=move || error().is_some().to_string()
                aria-describedby=described.clone()
                on:input=move |ev| set_input(inputs, i, FieldInput::Text(event_target_value(&ev)))
            />
        }
        .into_any(),
        FieldKind::Number { integer, min, max } => view! {
            <input
                id=id.to_string()
                type="number"
                step=if integer { "1" } else { "any" }
                min=min.map(decimal)
                max=max.map(decimal)
                prop:value=text_of(inputs, i)
                required=required
                aria-invalid=move || error().is_some().to_string()
                aria-describedby=described.clone()
                on:input=move |ev| set_input(inputs, i, FieldInput::Text(event_target_value(&ev)))
            />
        }
        .into_any(),
        FieldKind::Boolean => {
            let checked =
                inputs.with_untracked(|a| matches!(a.get(i), Some(FieldInput::Bool(true))));
            view! {
                <input
                    id=id.to_string()
                    type="checkbox"
                    prop:checked=checked
                    aria-describedby=described.clone()
                    on:change=move |ev| set_input(inputs, i, FieldInput::Bool(event_target_checked(&ev)))
                />
            }
            .into_any()
        }
        FieldKind::Single(choices) => {
            let current = text_of(inputs, i);
            let none_selected = current.is_empty();
            view! {
                <select
                    id=id.to_string()
                    required=required
                    aria-invalid=move || error().is_some().to_string()
                    aria-describedby=described.clone()
                    on:change=move |ev| set_input(inputs, i, FieldInput::Text(event_target_value(&ev)))
                >
                    <option value="" selected=none_selected>"(choose)"</option>
                    {choices
                        .into_iter()
                        .map(|c| {
                            let selected = c.value == current;
                            view! { <option value=c.value selected=selected>{text::name(&c.label).into_owned()}</option> }
                        })
                        .collect_view()}
                </select>
            }
            .into_any()
        }
        FieldKind::Multi { choices, .. } => {
            let picked = inputs.with_untracked(|a| match a.get(i) {
                Some(FieldInput::Many(v)) => v.clone(),
                _ => Vec::new(),
            });
            let boxes = choices
                .into_iter()
                .enumerate()
                .map(|(n, c)| {
                    let box_id = format!("{id}-o{n}");
                    let box_for = box_id.clone();
                    let value = c.value.clone();
                    let on = picked.contains(&c.value);
                    view! {
                        <label class="elicit-option" for=box_for>
                            <input
                                type="checkbox"
                                id=box_id
                                prop:checked=on
                                on:change=move |ev| {
                                    let checked = event_target_checked(&ev);
                                    inputs.update(|all| {
                                        if let Some(FieldInput::Many(v)) = all.get_mut(i) {
                                            v.retain(|x| *x != value);
                                            if checked {
                                                v.push(value.clone());
                                            }
                                        }
                                    });
                                }
                            />
                            {text::name(&c.label).into_owned()}
                        </label>
                    }
                })
                .collect_view();
            // A group of checkboxes is labelled by its legend, not by a `for`.
            return view! {
                <fieldset class="elicit-field" data-field=f.name.clone() aria-describedby=described>
                    <legend>{label}{marker}</legend>
                    {description}
                    {boxes}
                    <p class="error elicit-error" id=err_id>{error}</p>
                </fieldset>
            }
            .into_any();
        }
    };
    view! {
        <div class="elicit-field" data-field=f.name.clone()>
            <label for=id.to_string()>{label}{marker}</label>
            {description}
            {input}
            <p class="error elicit-error" id=err_id>{error}</p>
        </div>
    }
    .into_any()
}

fn url_view(
    ask: UrlAsk,
    answer: impl Fn(ElicitAnswer) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let domain = ask.domain.clone();
    let url = ask.url.clone();
    let open_failed = RwSignal::new(false);
    let accept = move || {
        // Only this click opens the link; the answer tells the server the user went there.
        if open_in_new_tab(&url) {
            answer(ElicitAnswer::accept(None));
        } else {
            open_failed.set(true);
        }
    };
    view! {
        <div class="elicit-url-mode">
            <p>
                "It asks you to open a page on "
                <strong class="elicit-domain"><bdi>{text::name(&domain).into_owned()}</bdi></strong>
                ". Nothing opens until you choose Open."
            </p>
            <p class="muted elicit-url"><bdi>{text::name(&ask.url).into_owned()}</bdi></p>
            <When when=move || open_failed.get()>
                <p class="error" role="alert">"The browser refused to open the link. Copy it from above instead."</p>
            </When>
            {buttons(format!("Open {domain}"), accept, answer)}
        </div>
    }
}

fn waiting_view(ask: UrlAsk, server: &str, dismiss: impl Fn() + 'static) -> impl IntoView {
    view! {
        <p class="elicit-waiting" role="status">
            {format!(
                "Opened {} in a new tab (if no tab appeared, a pop-up blocker may have stopped it; the link is above). {} will continue once the step there is finished.",
                ask.domain, server
            )}
        </p>
        <p class="muted elicit-url"><bdi>{text::name(&ask.url).into_owned()}</bdi></p>
        <div class="elicit-actions">
            <button type="button" class="elicit-dismiss" on:click=move |_| dismiss()>"Dismiss"</button>
        </div>
    }
}
