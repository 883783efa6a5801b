//! Number settings: a [`NumberField`] whose text, when it reads as a number in range (or is
//! empty, "the default"), is saved at once, and otherwise is said beside the field and never
//! saved. The rule and its sentence are `skiff_core::form::setting_number`'s.

use leptos::prelude::*;
use skiff_core::form::setting_number;
use skiff_core::format::decimal;
use skiff_core::settings::ChatSettings;

use crate::ui::context::ctx;
use crate::ui::fields::NumberField;

/// A number input bound to a settings field, where empty means the default.
#[component]
pub fn SettingNumber(
    label: &'static str,
    min: f64,
    max: f64,
    #[prop(optional)] integer: bool,
    get: fn(&ChatSettings) -> Option<f64>,
    set: fn(&mut ChatSettings, Option<f64>),
) -> impl IntoView {
    let settings = ctx().settings.settings;
    number_input(
        label,
        (min, max, integer),
        settings.with_untracked(get).map(decimal),
        Callback::new(move |v| settings.update(|s| set(s, v))),
    )
}

/// The one number input of settings and provider profiles: starts at `initial`, hands a
/// valid number (or `None` for empty) to `set`, and says anything else beside the field.
pub fn number_input(
    label: &'static str,
    bounds: (f64, f64, bool),
    initial: Option<String>,
    set: Callback<Option<f64>>,
) -> AnyView {
    let text = RwSignal::new(initial.unwrap_or_default());
    let error = RwSignal::new(None::<String>);
    view! {
        <NumberField
            label=label
            integer=bounds.2
            placeholder="default"
            value=text
            error=error
            on_input=move |typed: String| {
                match setting_number(label, &typed, bounds) {
                    Ok(v) => {
                        error.set(None);
                        set.run(v);
                    }
                    Err(e) => error.set(Some(e)),
                }
                text.set(typed);
            }
        />
    }
    .into_any()
}
