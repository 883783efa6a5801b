//! [`Checkbox`]: a switch with its label beside it, and a hint and error under it.

use leptos::prelude::*;

use super::frame::{field_id, Frame};

/// A checkbox.
#[component]
pub fn Checkbox(
    /// What ticking it means: drawn beside it and its accessible name.
    #[prop(into)]
    label: String,
    /// Whether it is ticked.
    #[prop(into)]
    checked: Signal<bool>,
    /// Called with the new state when the user ticks or unticks it.
    #[prop(into)]
    on_change: Callback<bool>,
    /// The input's id; one is made up when absent.
    #[prop(optional, into)]
    id: Option<String>,
    /// A sentence under it that says more.
    #[prop(optional, into)]
    hint: MaybeProp<String>,
    /// What is wrong (`None` when nothing is).
    #[prop(optional, into)]
    error: MaybeProp<String>,
    /// The input's class.
    #[prop(optional, into)]
    class: MaybeProp<String>,
) -> impl IntoView {
    let frame = Frame {
        id: field_id(id),
        label,
        label_hidden: false,
        hint,
        error,
    };
    view! {
        <div class="check-field">
            <label class="check">
                <input
                    type="checkbox"
                    id=frame.id.clone()
                    class=move || class.get()
                    aria-describedby=frame.described_by()
                    aria-invalid=frame.invalid()
                    prop:checked=move || checked.get()
                    on:change=move |ev| on_change.run(event_target_checked(&ev))
                />
                <span>{frame.label.clone()}</span>
            </label>
            {frame.notes()}
        </div>
    }
}
