//! [`NumberField`]: a number as the person types it. The text is handed back as typed, and
//! whoever owns the value asks core what it means (`skiff_core::form::setting_number`, a
//! view-model's own rule), so "2.", "-" or "1e3" on the way to a number are never rewritten
//! under the cursor, and a number that cannot be used keeps its text beside its sentence.

use leptos::prelude::*;

use super::frame::{field_id, Frame};
use super::text_field::{text_control, Control, TextProps};

/// A number field (a text input with the number keyboard on phones).
#[component]
pub fn NumberField(
    /// What the field is called: drawn above it and its accessible name.
    #[prop(into)]
    label: String,
    /// The number as typed (empty: the default).
    #[prop(into)]
    value: Signal<String>,
    /// Called with the whole text at every edit.
    #[prop(into)]
    on_input: Callback<String>,
    /// The input's id; one is made up when absent.
    #[prop(optional, into)]
    id: Option<String>,
    /// A sentence under the field that helps fill it in.
    #[prop(optional, into)]
    hint: MaybeProp<String>,
    /// Why the text is not a number the field takes (`None` when it is).
    #[prop(optional, into)]
    error: MaybeProp<String>,
    /// Shown while empty (what empty means: "default", "the provider's").
    #[prop(optional, into)]
    placeholder: MaybeProp<String>,
    /// The input's class.
    #[prop(optional, into)]
    class: MaybeProp<String>,
    /// Whole numbers only: phones show digits without a decimal point.
    #[prop(optional)]
    integer: bool,
) -> impl IntoView {
    let frame = Frame {
        id: field_id(id),
        label,
        label_hidden: false,
        hint,
        error,
    };
    text_control(
        frame,
        Control::Input {
            kind: "text",
            inputmode: Some(if integer { "numeric" } else { "decimal" }),
            max_length: None,
        },
        TextProps {
            value,
            on_input,
            placeholder,
            class,
            verbatim: true,
        },
    )
}
