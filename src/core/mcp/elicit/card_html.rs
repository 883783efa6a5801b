//! The question card's inside, written as HTML text (see `crate::html` for why): the title
//! with the server's name isolated (right-to-left text cannot reorder the sentence around
//! it), the message as plain text, then the form or, in URL mode, the domain the link goes to,
//! and the buttons. The page sets this as the card's `innerHTML` and reads clicks on
//! `data-act` (`accept`, `decline`, `cancel`, `dismiss`) and the form's values by `name`.
//!
//! Everything from the server (name, message, labels, choices, URL) and everything the user
//! typed is escaped text; labels and names also have their invisible characters shown
//! (`display::text`).

use super::{ElicitKind, ElicitRequest, Field, FieldInput, FieldKind, FormModel, UrlAsk};
use crate::display::text;
use crate::format::decimal;
use crate::html::Html;

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

/// The `name` of field `i`'s controls, as the form's values come back keyed.
fn control_name(i: usize) -> String {
    format!("f{i}")
}

/// The id of field `i`'s control (the first element to focus when it is invalid).
pub fn field_id(card_id: &str, i: usize) -> String {
    format!("{card_id}-f{i}")
}

/// The card's inside. `card_id` prefixes every id in it (unique on the page).
pub fn card_html(
    card_id: &str,
    server_name: &str,
    request: &ElicitRequest,
    waiting: bool,
    state: &CardState,
) -> String {
    let name = text::name(server_name);
    let mut h = Html::new();
    h.open("h2")
        .attr("class", "elicit-title")
        .attr("id", &format!("{card_id}-title"))
        .body()
        .el("bdi", "elicit-server", &name)
        .text(" asks for input")
        .close("h2");
    h.open("p")
        .attr("class", "elicit-message")
        .attr("dir", "auto")
        .body()
        .text(&text::prose(&request.message))
        .close("p");
    match &request.kind {
        ElicitKind::Form(model) => form(&mut h, card_id, model, state),
        ElicitKind::Url(ask) if waiting => waiting_for(&mut h, ask, &name),
        ElicitKind::Url(ask) => url(&mut h, ask, state.open_failed),
    }
    h.finish()
}

fn buttons(h: &mut Html, accept_label: &str) {
    h.open("div").attr("class", "elicit-actions").body();
    for (class, act, label) in [
        ("primary elicit-accept", "accept", accept_label),
        ("elicit-decline", "decline", "Decline"),
        ("elicit-cancel", "cancel", "Cancel"),
    ] {
        h.action(class, act, label);
    }
    h.close("div");
}

fn form(h: &mut Html, card_id: &str, model: &FormModel, state: &CardState) {
    h.open("form").attr("class", "elicit-form").body();
    for (i, f) in model.fields.iter().enumerate() {
        let error = state
            .errors
            .iter()
            .find(|(j, _)| *j == i)
            .map(|(_, s)| s.as_str());
        field(h, &field_id(card_id, i), i, f, state.inputs.get(i), error);
    }
    let n = state.errors.len();
    if n > 0 {
        let s = if n == 1 { "field needs" } else { "fields need" };
        h.open("p")
            .attr("class", "error elicit-summary")
            .attr("role", "alert")
            .body()
            .text(&format!("{n} {s} attention before the answer can be sent."))
            .close("p");
    }
    buttons(h, "Accept");
    h.close("form");
}

fn text_of(input: Option<&FieldInput>) -> &str {
    match input {
        Some(FieldInput::Text(t)) => t,
        _ => "",
    }
}

fn field(
    h: &mut Html,
    id: &str,
    i: usize,
    f: &Field,
    input: Option<&FieldInput>,
    error: Option<&str>,
) {
    let err_id = format!("{id}-err");
    let desc_id = format!("{id}-desc");
    let described = match f.description {
        Some(_) => format!("{err_id} {desc_id}"),
        None => err_id.clone(),
    };
    let invalid = if error.is_some() { "true" } else { "false" };
    let label = text::name(&f.label);
    let name = control_name(i);
    let multi = matches!(f.kind, FieldKind::Multi { .. });
    let (wrapper, caption) = if multi {
        ("fieldset", "legend")
    } else {
        ("div", "label")
    };
    h.open(wrapper)
        .attr("class", "elicit-field")
        .attr("data-field", &f.name);
    if multi {
        // A group of checkboxes is labelled by its legend, not by a `for`.
        h.attr("aria-describedby", &described);
    }
    h.body().open(caption);
    if !multi {
        h.attr("for", id);
    }
    h.body().text(&label);
    if f.required {
        h.open("span")
            .attr("class", "elicit-required")
            .attr("aria-hidden", "true")
            .body()
            .text(" *")
            .close("span");
    }
    h.close(caption);
    if let Some(d) = &f.description {
        h.open("small")
            .attr("class", "muted elicit-desc")
            .attr("id", &desc_id)
            .body()
            .text(&text::prose(d))
            .close("small");
    }
    match &f.kind {
        FieldKind::Text {
            format,
            min_len,
            max_len,
        } => {
            h.open("input").attr("type", format.input_type());
            h.attr_opt("minlength", min_len.map(|n| n.to_string()).as_deref())
                .attr_opt("maxlength", max_len.map(|n| n.to_string()).as_deref());
            control(h, id, &name, f.required, invalid, &described)
                .attr("value", text_of(input))
                .void();
        }
        FieldKind::Number { integer, min, max } => {
            h.open("input")
                .attr("type", "number")
                .attr("step", if *integer { "1" } else { "any" })
                .attr_opt("min", min.map(decimal).as_deref())
                .attr_opt("max", max.map(decimal).as_deref());
            control(h, id, &name, f.required, invalid, &described)
                .attr("value", text_of(input))
                .void();
        }
        FieldKind::Boolean => {
            h.open("input")
                .attr("type", "checkbox")
                .attr("id", id)
                .attr("name", &name)
                .flag("checked", matches!(input, Some(FieldInput::Bool(true))))
                .attr("aria-describedby", &described)
                .void();
        }
        FieldKind::Single(choices) => {
            let current = text_of(input);
            h.open("select");
            control(h, id, &name, f.required, invalid, &described).body();
            h.option("", "(choose)", current.is_empty());
            for c in choices {
                h.option(&c.value, &text::name(&c.label), c.value == current);
            }
            h.close("select");
        }
        FieldKind::Multi { choices, .. } => {
            let picked: &[String] = match input {
                Some(FieldInput::Many(v)) => v,
                _ => &[],
            };
            for (n, c) in choices.iter().enumerate() {
                let box_id = format!("{id}-o{n}");
                h.open("label")
                    .attr("class", "elicit-option")
                    .attr("for", &box_id)
                    .body()
                    .open("input")
                    .attr("type", "checkbox")
                    .attr("id", &box_id)
                    .attr("name", &name)
                    .attr("value", &c.value)
                    .flag("checked", picked.contains(&c.value))
                    .void()
                    .text(&text::name(&c.label))
                    .close("label");
            }
        }
    }
    h.open("p")
        .attr("class", "error elicit-error")
        .attr("id", &err_id)
        .body()
        .text(error.unwrap_or(""))
        .close("p")
        .close(wrapper);
}

/// The attributes every text-like control has.
fn control<'h>(
    h: &'h mut Html,
    id: &str,
    name: &str,
    required: bool,
    invalid: &str,
    described: &str,
) -> &'h mut Html {
    h.attr("id", id)
        .attr("name", name)
        .flag("required", required)
        .attr("aria-invalid", invalid)
        .attr("aria-describedby", described)
}

fn url_line(h: &mut Html, ask: &UrlAsk) {
    h.open("p")
        .attr("class", "muted elicit-url")
        .body()
        .open("bdi")
        .body()
        .text(&text::name(&ask.url))
        .close("bdi")
        .close("p");
}

fn url(h: &mut Html, ask: &UrlAsk, open_failed: bool) {
    let domain = text::name(&ask.domain);
    h.open("div").attr("class", "elicit-url-mode").body();
    h.open("p")
        .body()
        .text("It asks you to open a page on ")
        .open("strong")
        .attr("class", "elicit-domain")
        .body()
        .open("bdi")
        .body()
        .text(&domain)
        .close("bdi")
        .close("strong")
        .text(". Nothing opens until you choose Open.")
        .close("p");
    url_line(h, ask);
    if open_failed {
        h.open("p")
            .attr("class", "error")
            .attr("role", "alert")
            .body()
            .text("The browser refused to open the link. Copy it from above instead.")
            .close("p");
    }
    buttons(h, &format!("Open {domain}"));
    h.close("div");
}

fn waiting_for(h: &mut Html, ask: &UrlAsk, server: &str) {
    h.open("p")
        .attr("class", "elicit-waiting")
        .attr("role", "status")
        .body()
        .text(&format!(
            "Opened {} in a new tab (if no tab appeared, a pop-up blocker may have stopped it; \
             the link is above). {server} will continue once the step there is finished.",
            text::name(&ask.domain)
        ))
        .close("p");
    url_line(h, ask);
    h.open("div").attr("class", "elicit-actions").body();
    h.action("elicit-dismiss", "dismiss", "Dismiss");
    h.close("div");
}

impl FormModel {
    /// What the user entered, from the form's `(name, value)` pairs as the browser submits
    /// them (`FormData`): a text-like control's value, a checkbox present when checked, every
    /// checked box of a group in the form's order. A control the pairs lack is empty.
    pub fn inputs_from_pairs(&self, pairs: &[(String, String)]) -> Vec<FieldInput> {
        self.fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let name = control_name(i);
                let mut values = pairs.iter().filter(|(n, _)| *n == name).map(|(_, v)| v);
                match f.kind {
                    FieldKind::Boolean => FieldInput::Bool(values.next().is_some()),
                    FieldKind::Multi { .. } => FieldInput::Many(values.cloned().collect()),
                    _ => FieldInput::Text(values.next().cloned().unwrap_or_default()),
                }
            })
            .collect()
    }
}
