//! [`TextField`]: a one-line text input with its label, hint and error. [`TextArea`] and
//! [`NumberField`] are drawn by the same code ([`text_control`]), so the page holds one copy.
//!
//! [`TextArea`]: super::TextArea
//! [`NumberField`]: super::NumberField

use leptos::prelude::*;

use super::frame::{field_id, Frame};

/// Which control a text-like field is.
pub(super) enum Control {
    /// `<input type=kind inputmode=inputmode>`.
    Input {
        kind: &'static str,
        inputmode: Option<&'static str>,
        max_length: Option<u32>,
    },
    /// `<textarea rows=rows>`.
    Area { rows: u32 },
}

/// What a text-like control shows and reports, besides its frame.
pub(super) struct TextProps {
    pub(super) value: Signal<String>,
    pub(super) on_input: Callback<String>,
    pub(super) placeholder: MaybeProp<String>,
    pub(super) class: MaybeProp<String>,
    pub(super) verbatim: bool,
}

/// The one body of [`TextField`], [`super::TextArea`] and [`super::NumberField`].
pub(super) fn text_control(frame: Frame, control: Control, p: TextProps) -> AnyView {
    let TextProps {
        value,
        on_input,
        placeholder,
        class,
        verbatim,
    } = p;
    let id = frame.id.clone();
    let described = frame.described_by();
    let aria_label = frame.aria_label();
    let spellcheck = verbatim.then_some("false");
    let autocomplete = verbatim.then_some("off");
    let input = move |ev: leptos::ev::Event| on_input.run(event_target_value(&ev));
    let control = match control {
        Control::Input {
            kind,
            inputmode,
            max_length,
        } => view! {
            <input
                id=id
                type=kind
                inputmode=inputmode
                maxlength=max_length
                class=move || class.get()
                placeholder=move || placeholder.get()
                spellcheck=spellcheck
                autocomplete=autocomplete
                aria-label=aria_label
                aria-describedby=described
                aria-invalid=frame.invalid()
                prop:value=move || value.get()
                on:input=input
            />
        }
        .into_any(),
        Control::Area { rows } => view! {
            <textarea
                id=id
                rows=rows
                class=move || class.get()
                placeholder=move || placeholder.get()
                spellcheck=spellcheck
                autocomplete=autocomplete
                aria-label=aria_label
                aria-describedby=described
                aria-invalid=frame.invalid()
                prop:value=move || value.get()
                on:input=input
            ></textarea>
        }
        .into_any(),
    };
    frame.around(control)
}

/// A one-line text field.
#[component]
pub fn TextField(
    /// What the field is called: drawn above it and its accessible name.
    #[prop(into)]
    label: String,
    /// The text shown (a signal or a closure; follows it as it changes).
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
    /// What is wrong with the text (`None` when nothing is): shown under the field, and the
    /// input is marked `aria-invalid`.
    #[prop(optional, into)]
    error: MaybeProp<String>,
    /// Shown inside the empty field.
    #[prop(optional, into)]
    placeholder: MaybeProp<String>,
    /// The input's class (the stylesheet and the tests find it by it).
    #[prop(optional, into)]
    class: MaybeProp<String>,
    /// The input's `type`: `"text"` (the default), `"url"`, `"password"`, `"email"`.
    #[prop(optional)]
    kind: Option<&'static str>,
    /// Text that is code rather than prose (URLs, names, headers): no spell check and no
    /// autocomplete.
    #[prop(optional)]
    verbatim: bool,
    /// The longest text the input takes.
    #[prop(optional)]
    max_length: Option<u32>,
    /// Read by screen readers, not drawn (the row around the field already says what it is).
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
        Control::Input {
            kind: kind.unwrap_or("text"),
            inputmode: None,
            max_length,
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
