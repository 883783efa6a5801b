//! [`TextArea`]: several lines of text with their label, hint and error (drawn by
//! `text_field::text_control`).

use leptos::prelude::*;

use super::frame::{field_id, Frame};
use super::text_field::{text_control, Control, TextProps};

/// A text area.
#[component]
pub fn TextArea(
    /// What the field is called: drawn above it and its accessible name.
    #[prop(into)]
    label: String,
    /// The text shown (a signal or a closure).
    #[prop(into)]
    value: Signal<String>,
    /// Called with the whole text at every edit.
    #[prop(into)]
    on_input: Callback<String>,
    /// The textarea's id; one is made up when absent.
    #[prop(optional, into)]
    id: Option<String>,
    /// How many lines it shows (3 by default; it can be resized).
    #[prop(optional)]
    rows: Option<u32>,
    /// A sentence under the field that helps fill it in.
    #[prop(optional, into)]
    hint: MaybeProp<String>,
    /// What is wrong with the text (`None` when nothing is).
    #[prop(optional, into)]
    error: MaybeProp<String>,
    /// Shown inside the empty field.
    #[prop(optional, into)]
    placeholder: MaybeProp<String>,
    /// The textarea's class.
    #[prop(optional, into)]
    class: MaybeProp<String>,
    /// Code rather than prose (JSON, headers, templates): no spell check or autocomplete.
    #[prop(optional)]
    verbatim: bool,
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
    text_control(
        frame,
        Control::Area {
            rows: rows.unwrap_or(3),
        },
        TextProps {
            value,
            on_input,
            placeholder,
            class,
            verbatim,
        },
    )
}
