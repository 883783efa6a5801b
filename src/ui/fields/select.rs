//! [`Select`]: a `<select>` of [`Choice`]s with its label, hint and error; [`EnumSelect`]: the
//! same, fed by an enum that names itself ([`Named`]), so its options, values and labels come
//! from the enum and never from a list written in a component.

use leptos::prelude::*;
use skiff_core::form::Choice;

use super::frame::{field_id, Frame};
use super::named::Named;

/// A drop-down choice.
#[component]
pub fn Select(
    /// What the field is called: drawn above it and its accessible name.
    #[prop(into)]
    label: String,
    /// The entries, in order.
    #[prop(into)]
    options: Signal<Vec<Choice>>,
    /// The chosen entry's value.
    #[prop(into)]
    value: Signal<String>,
    /// Called with the value of the entry the user picks.
    #[prop(into)]
    on_change: Callback<String>,
    /// The select's id; one is made up when absent.
    #[prop(optional, into)]
    id: Option<String>,
    /// A sentence under the field that helps choose.
    #[prop(optional, into)]
    hint: MaybeProp<String>,
    /// What is wrong with the choice (`None` when nothing is).
    #[prop(optional, into)]
    error: MaybeProp<String>,
    /// The select's class.
    #[prop(optional, into)]
    class: MaybeProp<String>,
    /// Read by screen readers, not drawn.
    #[prop(optional)]
    label_hidden: bool,
) -> impl IntoView {
    let frame = Frame {
        id: field_id(id),
        label,
        label_hidden,
        hint,
        error,
    };
    select_view(frame, options, value, on_change, class)
}

/// The one body of [`Select`] and [`EnumSelect`].
fn select_view(
    frame: Frame,
    options: Signal<Vec<Choice>>,
    value: Signal<String>,
    on_change: Callback<String>,
    class: MaybeProp<String>,
) -> AnyView {
    let entries = move || {
        options.with(|all| {
            all.iter()
                .map(|c| {
                    let v = c.value.clone();
                    // The property, not the attribute: it still selects after the user chose.
                    view! {
                        <option value=c.value.clone() prop:selected=move || value.with(|x| *x == v)>
                            {c.label.clone()}
                        </option>
                    }
                })
                .collect_view()
        })
    };
    let control = view! {
        <select
            id=frame.id.clone()
            class=move || class.get()
            aria-label=frame.aria_label()
            aria-describedby=frame.described_by()
            aria-invalid=frame.invalid()
            on:change=move |ev| on_change.run(event_target_value(&ev))
        >
            {entries}
        </select>
    }
    .into_any();
    frame.around(control)
}

/// A drop-down of an enum's variants (`E::all()`, each shown as its `label()`).
#[component]
pub fn EnumSelect<E: Named>(
    /// What the field is called.
    #[prop(into)]
    label: String,
    /// The chosen variant.
    #[prop(into)]
    value: Signal<E>,
    /// Called with the variant the user picks.
    #[prop(into)]
    on_change: Callback<E>,
    /// The select's id; one is made up when absent.
    #[prop(optional, into)]
    id: Option<String>,
    /// A sentence under the field that helps choose.
    #[prop(optional, into)]
    hint: MaybeProp<String>,
    /// The select's class.
    #[prop(optional, into)]
    class: MaybeProp<String>,
    /// Read by screen readers, not drawn.
    #[prop(optional)]
    label_hidden: bool,
) -> impl IntoView {
    let options: Vec<Choice> = E::all()
        .iter()
        .map(|e| Choice::new(e.name(), e.label()))
        .collect();
    let frame = Frame {
        id: field_id(id),
        label,
        label_hidden,
        hint,
        error: MaybeProp::default(),
    };
    select_view(
        frame,
        Signal::stored(options),
        Signal::derive(move || value.get().name().to_string()),
        Callback::new(move |v: String| {
            if let Some(e) = E::all().iter().find(|e| e.name() == v) {
                on_change.run(*e);
            }
        }),
        class,
    )
}
