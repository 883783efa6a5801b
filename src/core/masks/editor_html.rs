//! The mask editor, as HTML text (see `crate::html`): name, emoji, provider and model,
//! sampling, input template, and the context prompts with Add and Remove. The page reads it
//! back with `mask_from_pairs`; `data-act` is `add`, `remove:N`, `save` or `cancel`.

use super::FieldError;
use crate::format::decimal_f32;
use crate::html::Html;
use crate::records::mask::Mask;
use crate::records::message::Role;

/// Where the editor's ids start (one editor on the page at a time).
const ID: &str = "mask";

fn error_of<'a>(errors: &'a [FieldError], field: &str) -> Option<&'a str> {
    errors
        .iter()
        .find(|e| e.field == field)
        .map(|e| e.message.as_str())
}

/// The line under a control that says what is wrong with it (empty when nothing is).
fn error_line(h: &mut Html, field: &str, error: Option<&str>) {
    h.open("p")
        .attr("class", "error mask-error")
        .attr("id", &format!("{ID}-{field}-err"))
        .body()
        .text(error.unwrap_or(""))
        .close("p");
}

/// A labelled `<input>`; `kind` is its type, `hint` its placeholder.
fn input(
    h: &mut Html,
    field: &'static str,
    label: &str,
    kind: &str,
    value: &str,
    hint: &str,
    errors: &[FieldError],
) {
    let id = format!("{ID}-{field}");
    let wrong = errors.iter().find(|e| e.field == field);
    let error = wrong.map(|e| e.message.as_str());
    // A number the mask could not hold is shown as it was typed, with its error.
    let value = match wrong {
        Some(e) if !e.typed.is_empty() => e.typed.as_str(),
        _ => value,
    };
    h.open("div").attr("class", "mask-field").body();
    h.open("label")
        .attr("for", &id)
        .body()
        .text(label)
        .close("label");
    h.open("input")
        .attr("id", &id)
        .attr("name", field)
        .attr("type", kind)
        .attr("value", value)
        .attr("placeholder", hint)
        .attr(
            "aria-invalid",
            if error.is_some() { "true" } else { "false" },
        )
        .attr("aria-describedby", &format!("{id}-err"));
    if kind == "number" {
        h.attr("step", "any").attr("min", "0");
    }
    h.void();
    error_line(h, field, error);
    h.close("div");
}

/// `profiles`: `(id, name)` of every provider profile, for the provider choice.
pub fn editor_html(
    mask: &Mask,
    is_new: bool,
    profiles: &[(String, String)],
    errors: &[FieldError],
) -> String {
    let mut h = Html::new();
    h.open("form")
        .attr("class", "mask-editor")
        .attr("aria-labelledby", "mask-editor-title")
        .body();
    h.open("h3")
        .attr("id", "mask-editor-title")
        .body()
        .text(if is_new { "New mask" } else { "Edit mask" })
        .close("h3");
    input(
        &mut h,
        "name",
        "Name",
        "text",
        &mask.name,
        "Translator",
        errors,
    );
    input(&mut h, "emoji", "Emoji", "text", &mask.emoji, "🌐", errors);

    let chosen = mask.model.as_ref();
    h.open("div").attr("class", "mask-field").body();
    h.open("label")
        .attr("for", "mask-profile")
        .body()
        .text("Provider")
        .close("label");
    h.open("select")
        .attr("id", "mask-profile")
        .attr("name", "profile")
        .body();
    h.option("", "The chat's own choice", chosen.is_none());
    let mut known = chosen.is_none();
    for (id, name) in profiles {
        let on = chosen.is_some_and(|c| c.profile_id == *id);
        known |= on;
        h.option(id, name, on);
    }
    if let (false, Some(c)) = (known, chosen) {
        // A profile deleted since: kept, so saving does not silently drop the choice.
        h.option(&c.profile_id, "A provider that no longer exists", true);
    }
    h.close("select").close("div");
    let model = chosen.map(|c| c.model.as_str()).unwrap_or("");
    input(
        &mut h,
        "model",
        "Model",
        "text",
        model,
        "The provider's default model",
        errors,
    );

    let num = |v: Option<f32>| v.map(decimal_f32).unwrap_or_default();
    input(
        &mut h,
        "temperature",
        "Temperature",
        "number",
        &num(mask.temperature),
        "The provider's",
        errors,
    );
    input(
        &mut h,
        "top_p",
        "Top-p",
        "number",
        &num(mask.top_p),
        "The provider's",
        errors,
    );
    let max = mask.max_tokens.map(|n| n.to_string()).unwrap_or_default();
    input(
        &mut h,
        "max_tokens",
        "Max tokens",
        "number",
        &max,
        "The provider's",
        errors,
    );

    h.open("div").attr("class", "mask-field").body();
    h.open("label")
        .attr("for", "mask-input_template")
        .body()
        .text("Input template ({{input}} is the message; empty keeps the one in Settings)")
        .close("label");
    h.open("textarea")
        .attr("id", "mask-input_template")
        .attr("name", "input_template")
        .attr("rows", "2")
        .body()
        .text(&mask.input_template)
        .close("textarea")
        .close("div");

    h.open("fieldset").attr("class", "mask-context").body();
    h.open("legend")
        .body()
        .text("Context prompts, sent before the chat")
        .close("legend");
    for (i, p) in mask.context.iter().enumerate() {
        let n = i + 1;
        let field = format!("content{i}");
        let error = error_of(errors, &field);
        h.open("div").attr("class", "mask-prompt").body();
        h.open("select")
            .attr("name", "role")
            .attr("aria-label", &format!("Role of prompt {n}"))
            .body();
        for role in [Role::System, Role::User, Role::Assistant] {
            h.option(role.as_str(), role.as_str(), p.role == role);
        }
        h.close("select");
        h.open("textarea")
            .attr("id", &format!("{ID}-{field}"))
            .attr("name", "content")
            .attr("rows", "3")
            .attr("aria-label", &format!("Prompt {n}"))
            .attr(
                "aria-invalid",
                if error.is_some() { "true" } else { "false" },
            )
            .attr("aria-describedby", &format!("{ID}-{field}-err"))
            .body()
            .text(&p.content)
            .close("textarea");
        h.open("button")
            .attr("type", "button")
            .attr("data-act", &format!("remove:{i}"))
            .attr("aria-label", &format!("Remove prompt {n}"))
            .body()
            .text("Remove")
            .close("button");
        error_line(&mut h, &field, error);
        h.close("div");
    }
    h.open("button")
        .attr("type", "button")
        .attr("id", "mask-add")
        .attr("data-act", "add")
        .body()
        .text("Add prompt")
        .close("button");
    error_line(&mut h, "add", error_of(errors, "add"));
    h.close("fieldset");

    if !errors.is_empty() {
        h.open("p")
            .attr("class", "error mask-summary")
            .attr("role", "alert")
            .body()
            .text(&crate::format::count(
                errors.len(),
                "field needs",
                "fields need",
            ))
            .text(" attention before the mask can be saved.")
            .close("p");
    }
    h.open("div").attr("class", "mask-editor-actions").body();
    h.action("primary", "save", "Save")
        .action("", "cancel", "Cancel");
    h.close("div").close("form");
    h.finish()
}
