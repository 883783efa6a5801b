//! One checkbox bound to a setting. Every settings switch is this component with a getter and
//! a setter as plain function pointers, so the page carries one copy of the checkbox's view
//! code instead of one per switch (each `view!` tree is its own code in the wasm).

use leptos::prelude::*;
use skiff_core::settings::ChatSettings;

use super::context::ctx;

#[component]
pub fn CheckField(
    /// The element id tests and labels use.
    id: &'static str,
    label: &'static str,
    get: fn(&ChatSettings) -> bool,
    set: fn(&mut ChatSettings, bool),
) -> impl IntoView {
    let settings = ctx().settings.settings;
    view! {
        <label class="check">
            <input
                type="checkbox"
                id=id
                prop:checked=move || settings.with(get)
                on:change=move |ev| settings.update(|s| set(s, event_target_checked(&ev)))
            />
            <span>{label}</span>
        </label>
    }
}
