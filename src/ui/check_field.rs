//! One checkbox bound to a setting: the form-field [`Checkbox`] with a getter and a setter as
//! plain function pointers, so every settings switch shares one copy of the binding code.

use leptos::prelude::*;
use skiff_core::settings::ChatSettings;

use super::context::ctx;
use super::fields::Checkbox;

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
        <Checkbox
            id=id
            label=label
            checked=move || settings.with(get)
            on_change=move |on| settings.update(|s| set(s, on))
        />
    }
}
