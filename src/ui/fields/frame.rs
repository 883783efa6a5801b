//! What every field shares: its id, the label, and the hint and error lines the control names
//! in `aria-describedby`. Non-generic, so the page holds one copy however many fields there are.

use std::cell::Cell;

use leptos::prelude::*;

thread_local! {
    static NEXT_ID: Cell<u32> = const { Cell::new(0) };
}

/// The given id, or a new one unique on the page.
pub(super) fn field_id(id: Option<String>) -> String {
    id.unwrap_or_else(|| {
        NEXT_ID.with(|n| {
            let id = n.get();
            n.set(id.wrapping_add(1));
            format!("field-{id}")
        })
    })
}

/// The label, hint and error of one field.
pub(super) struct Frame {
    pub(super) id: String,
    pub(super) label: String,
    pub(super) label_hidden: bool,
    pub(super) hint: MaybeProp<String>,
    pub(super) error: MaybeProp<String>,
}

impl Frame {
    /// `aria-describedby` of the control: its hint and its error line.
    pub(super) fn described_by(&self) -> String {
        format!("{0}-hint {0}-err", self.id)
    }

    /// `aria-invalid`, following the error.
    pub(super) fn invalid(&self) -> impl Fn() -> &'static str + Send + Sync + 'static {
        let error = self.error;
        move || {
            if error.with(|e| e.as_ref().is_some_and(|e| !e.is_empty())) {
                "true"
            } else {
                "false"
            }
        }
    }

    /// The `<label>`, or nothing when the label is not drawn ([`Frame::aria_label`] names the
    /// control then).
    pub(super) fn label(&self) -> Option<AnyView> {
        (!self.label_hidden)
            .then(|| view! { <label for=self.id.clone()>{self.label.clone()}</label> }.into_any())
    }

    /// The control's `aria-label` when its label is not drawn (the row around it says what it
    /// is, as "Prompt 2" beside its role and its Remove button).
    pub(super) fn aria_label(&self) -> Option<String> {
        self.label_hidden.then(|| self.label.clone())
    }

    /// The hint (only while there is one) and the error line (always there, hidden by the
    /// stylesheet while empty, so `aria-describedby` always names an element).
    pub(super) fn notes(&self) -> AnyView {
        let (hint, error) = (self.hint, self.error);
        let hint_id = format!("{}-hint", self.id);
        view! {
            {move || hint.get().map(|h| view! { <p class="hint field-hint" id=hint_id.clone()>{h}</p> })}
            <p class="error field-error" id=format!("{}-err", self.id)>{move || error.get()}</p>
        }
        .into_any()
    }

    /// `<div class="field">`: the label, `control`, then the notes.
    pub(super) fn around(&self, control: AnyView) -> AnyView {
        view! { <div class="field">{self.label()}{control}{self.notes()}</div> }.into_any()
    }
}
