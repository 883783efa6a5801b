//! The page's one set of form-field components, in thaw's manner: one file per component, each
//! drawing its label, its control, a hint and an error sentence, wired for assistive technology
//! (`<label for>`, `aria-describedby` naming the hint and the error, `aria-invalid` while there
//! is an error). Their look is `style/fields.css`.
//!
//! Every surface with a form uses these instead of writing `<label>`/`<input>` by hand, so a
//! fix to how a field is labelled or announced lands everywhere at once. They decide nothing:
//! what a field holds, whether it is wrong and what the sentence says come from core (a
//! view-model's `skiff_core::form::Field`), and each edit goes back through a callback.
//!
//! # The components
//! | component | control | value in | edits out |
//! |---|---|---|---|
//! | [`TextField`] | `<input>` (text, url, password…) | `value: Signal<String>` | `on_input: Callback<String>` |
//! | [`TextArea`] | `<textarea>` | `value: Signal<String>` | `on_input: Callback<String>` |
//! | [`NumberField`] | `<input inputmode="decimal">`: a number as typed, empty for the default | `value: Signal<String>` | `on_input: Callback<String>` |
//! | [`Select`] | `<select>` of [`Choice`]s | `value: Signal<String>` (a choice's value) | `on_change: Callback<String>` |
//! | [`EnumSelect`] | `<select>` of an enum's variants ([`Named`]) | `value: Signal<E>` | `on_change: Callback<E>` |
//! | [`Checkbox`] | `<input type="checkbox">` | `checked: Signal<bool>` | `on_change: Callback<bool>` |
//!
//! Every one takes `label` (required, the accessible name too) and, optionally, `id` (made up
//! when absent; the hint is `{id}-hint`, the error `{id}-err`), `hint`, `error` (the sentence;
//! `None` when the field is fine), `class` (the control's, for styles and tests), and
//! `label_hidden` (the label is read, not drawn: for a control whose row already says what it
//! is). Reactive props take a signal or a closure (`value=move || …`); callbacks take a closure.
//!
//! ```ignore
//! <TextField label="Name" id="mask-name" value=move || name() on_input=move |v| edit(v)
//!     error=move || name_error() placeholder="Translator" />
//! <EnumSelect label="Theme" value=move || theme() on_change=move |t| set_theme(t) />
//! ```
//!
//! Never stores anything and never validates: a component that needs a rule calls core.

mod checkbox;
mod frame;
mod named;
mod number_field;
mod select;
mod text_area;
mod text_field;

pub use checkbox::Checkbox;
pub use named::Named;
pub use number_field::NumberField;
pub use select::{EnumSelect, Select};
pub use skiff_core::form::Choice;
pub use text_area::TextArea;
pub use text_field::TextField;
