//! What a question card shows, as a view-model: the title with the server's name, the message,
//! then the form's fields or, in URL mode, the domain the link goes to, and the buttons.
//!
//! Everything from the server (name, message, labels, choices, URL) is untrusted: names and
//! labels go through `display::text::name`, the message through `display::text::prose`. The
//! component renders all of it as text.

use super::{ElicitKind, ElicitRequest, Field, FieldInput, FieldKind, UrlAsk};
use crate::display::text;
use crate::format::decimal;

/// What the user has done to the card so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CardState {
    /// One per field, in field order.
    pub inputs: Vec<FieldInput>,
    /// `(field index, sentence)` from the last Accept that did not validate.
    pub errors: Vec<(usize, String)>,
    /// The browser refused to open the URL-mode link.
    pub open_failed: bool,
}

/// The card's mode, named as its `data-mode` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Form,
    Url,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Form => "form",
            Mode::Url => "url",
        }
    }
}

/// One choice of a select or a group of checkboxes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChoiceView {
    pub value: String,
    pub label: String,
}

/// The control a field is entered with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Control {
    /// A one-line text input of this `type` (`text`, `email`, `date`).
    Text {
        input_type: &'static str,
        min_len: Option<String>,
        max_len: Option<String>,
    },
    Number {
        /// `1` for whole numbers, `any` otherwise.
        step: &'static str,
        min: Option<String>,
        max: Option<String>,
    },
    Checkbox,
    /// One of these; the first entry is "(choose)" with an empty value.
    Select(Vec<ChoiceView>),
    /// Any of these.
    Checkboxes(Vec<ChoiceView>),
}

/// One field of a form card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldView {
    /// The property's name (the field's `data-field`; server text, shown nowhere).
    pub name: String,
    pub label: String,
    pub description: Option<String>,
    pub required: bool,
    pub control: Control,
}

/// What the card asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    Form(Vec<FieldView>),
    Url {
        /// Where the link goes, shown before the user decides.
        domain: String,
        url: String,
    },
}

/// The parts of a card that do not change while it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardView {
    /// Who asks; the title is this name then [`ASKS`].
    pub server_name: String,
    pub message: String,
    pub mode: Mode,
    pub body: Body,
    /// Accept's label ("Accept", or "Open <domain>" in URL mode).
    pub accept: String,
}

/// What changes as the user acts: each field's sentence, the summary, the URL mode's states.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CardStatus {
    /// One per field.
    pub errors: Vec<Option<String>>,
    /// How many fields need attention, after an Accept that did not validate.
    pub summary: Option<String>,
    /// The browser refused to open the link.
    pub open_failed: Option<&'static str>,
    /// The link opened and the server has not said it is done: the card only waits.
    pub waiting: Option<String>,
}

/// The title after the server's name.
pub const ASKS: &str = " asks for input";
/// URL mode, before the user decides: the sentence around the domain.
pub const URL_LEAD: (&str, &str) = (
    "It asks you to open a page on ",
    ". Nothing opens until you choose Open.",
);
/// The three answers' labels (Accept's is [`CardView::accept`]).
pub const DECLINE: &str = "Decline";
pub const CANCEL: &str = "Cancel";
pub const DISMISS: &str = "Dismiss";

/// The id of field `i`'s control within card `card_id` (the first element to focus when it
/// needs attention).
pub fn field_id(card_id: &str, i: usize) -> String {
    format!("{card_id}-f{i}")
}

fn field_view(f: &Field) -> FieldView {
    let choices = |cs: &[super::Choice]| -> Vec<ChoiceView> {
        cs.iter()
            .map(|c| ChoiceView {
                value: c.value.clone(),
                label: text::name(&c.label).into_owned(),
            })
            .collect()
    };
    let control = match &f.kind {
        FieldKind::Text {
            format,
            min_len,
            max_len,
        } => Control::Text {
            input_type: format.input_type(),
            min_len: min_len.map(|n| n.to_string()),
            max_len: max_len.map(|n| n.to_string()),
        },
        FieldKind::Number { integer, min, max } => Control::Number {
            step: if *integer { "1" } else { "any" },
            min: min.map(decimal),
            max: max.map(decimal),
        },
        FieldKind::Boolean => Control::Checkbox,
        FieldKind::Single(cs) => {
            let mut all = vec![ChoiceView {
                value: String::new(),
                label: "(choose)".into(),
            }];
            all.extend(choices(cs));
            Control::Select(all)
        }
        FieldKind::Multi { choices: cs, .. } => Control::Checkboxes(choices(cs)),
    };
    FieldView {
        name: f.name.clone(),
        label: text::name(&f.label).into_owned(),
        description: f
            .description
            .as_deref()
            .map(|d| text::prose(d).into_owned()),
        required: f.required,
        control,
    }
}

/// The card for `request` from `server_name`.
pub(super) fn card_view(server_name: &str, request: &ElicitRequest) -> CardView {
    let name = text::name(server_name).into_owned();
    let (mode, body, accept) = match &request.kind {
        ElicitKind::Form(model) => (
            Mode::Form,
            Body::Form(model.fields.iter().map(field_view).collect()),
            "Accept".to_string(),
        ),
        ElicitKind::Url(UrlAsk { url, domain, .. }) => {
            let domain = text::name(domain).into_owned();
            (
                Mode::Url,
                Body::Url {
                    url: text::name(url).into_owned(),
                    domain: domain.clone(),
                },
                format!("Open {domain}"),
            )
        }
    };
    CardView {
        server_name: name,
        message: text::prose(&request.message).into_owned(),
        mode,
        body,
        accept,
    }
}
