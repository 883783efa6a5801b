//! One field of an elicitation card (`elicit::FieldView`): its label, description, control and
//! sentence. What the user enters goes to the tray's machine as it is typed; the control keeps
//! its own DOM (nothing is redrawn while typing).

use leptos::prelude::*;
use skiff_core::mcp::elicit::{field_id, CardStatus, Control, FieldInput, FieldView, Tray};

fn text_of(input: &Option<FieldInput>) -> String {
    match input {
        Some(FieldInput::Text(t)) => t.clone(),
        _ => String::new(),
    }
}

pub(super) fn field(
    tray: RwSignal<Tray>,
    card: String,
    i: usize,
    f: FieldView,
    start: Option<FieldInput>,
    status: Memo<CardStatus>,
) -> impl IntoView {
    let id = field_id(&card, i);
    let err_id = format!("{id}-err");
    let desc_id = format!("{id}-desc");
    let described = match f.description {
        Some(_) => format!("{err_id} {desc_id}"),
        None => err_id.clone(),
    };
    let error = move || status.with(|s| s.errors.get(i).cloned().flatten());
    let invalid = move || if error().is_some() { "true" } else { "false" };
    let set = {
        let card = card.clone();
        move |input: FieldInput| {
            tray.update_untracked(|t| t.set_input(&card, i, input));
        }
    };
    let required = f.required;
    let star =
        required.then(|| view! { <span class="elicit-required" aria-hidden="true">" *"</span> });
    let desc = f
        .description
        .clone()
        .map(|d| view! { <small class="muted elicit-desc" id=desc_id.clone()>{d}</small> });
    let error_line =
        move || view! { <p class="error elicit-error" id=err_id.clone()>{error()}</p> };
    match f.control {
        Control::Checkboxes(choices) => {
            let picked: Vec<String> = match &start {
                Some(FieldInput::Many(v)) => v.clone(),
                _ => Vec::new(),
            };
            let boxes = choices
                .into_iter()
                .enumerate()
                .map(|(n, c)| {
                    let box_id = format!("{id}-o{n}");
                    let (card, value) = (card.clone(), c.value.clone());
                    let on = picked.contains(&c.value);
                    view! {
                        <label class="elicit-option" for=box_id.clone()>
                            <input
                                type="checkbox"
                                id=box_id.clone()
                                name=format!("f{i}")
                                value=c.value
                                checked=on
                                on:change=move |ev| {
                                    let checked = event_target_checked(&ev);
                                    tray.update_untracked(|t| t.set_choice(&card, i, &value, checked));
                                }
                            />
                            {c.label}
                        </label>
                    }
                })
                .collect_view();
            // A group of checkboxes is labelled by its legend, not by a `for`.
            view! {
                <fieldset class="elicit-field" data-field=f.name aria-describedby=described>
                    <legend>{f.label}{star}</legend>
                    {desc}
                    {boxes}
                    {error_line}
                </fieldset>
            }
            .into_any()
        }
        control => {
            let input = match control {
                Control::Text {
                    input_type,
                    min_len,
                    max_len,
                } => view! {
                    <input
                        type=input_type
                        minlength=min_len
                        maxlength=max_len
                        id=id.clone()
                        name=format!("f{i}")
                        required=required
                        aria-invalid=invalid
                        aria-describedby=described
                        value=text_of(&start)
                        on:input=move |ev| set(FieldInput::Text(event_target_value(&ev)))
                    />
                }
                .into_any(),
                Control::Number { step, min, max } => view! {
                    <input
                        type="number"
                        step=step
                        min=min
                        max=max
                        id=id.clone()
                        name=format!("f{i}")
                        required=required
                        aria-invalid=invalid
                        aria-describedby=described
                        value=text_of(&start)
                        on:input=move |ev| set(FieldInput::Text(event_target_value(&ev)))
                    />
                }
                .into_any(),
                Control::Checkbox => view! {
                    <input
                        type="checkbox"
                        id=id.clone()
                        name=format!("f{i}")
                        checked=matches!(start, Some(FieldInput::Bool(true)))
                        aria-describedby=described
                        on:change=move |ev| set(FieldInput::Bool(event_target_checked(&ev)))
                    />
                }
                .into_any(),
                Control::Select(choices) => {
                    let current = text_of(&start);
                    let options = choices
                        .into_iter()
                        .map(|c| {
                            let selected = c.value == current;
                            view! { <option value=c.value selected=selected>{c.label}</option> }
                        })
                        .collect_view();
                    view! {
                        <select
                            id=id.clone()
                            name=format!("f{i}")
                            required=required
                            aria-invalid=invalid
                            aria-describedby=described
                            on:change=move |ev| set(FieldInput::Text(event_target_value(&ev)))
                        >
                            {options}
                        </select>
                    }
                    .into_any()
                }
                Control::Checkboxes(_) => ().into_any(),
            };
            view! {
                <div class="elicit-field" data-field=f.name>
                    <label for=id>{f.label}{star}</label>
                    {desc}
                    {input}
                    {error_line}
                </div>
            }
            .into_any()
        }
    }
}
