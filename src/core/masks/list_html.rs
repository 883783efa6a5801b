//! The Masks tab's list, as HTML text (see `crate::html`): the user's masks, then the
//! built-in ones, each with the actions it allows. Buttons carry `data-act` as `verb:id`.

use crate::display::text;
use crate::format::count;
use crate::html::Html;
use crate::records::mask::Mask;

/// `confirming`: the id of a mask whose Delete was clicked once, which now asks again.
pub fn list_html(user: &[Mask], builtins: &[Mask], confirming: Option<&str>) -> String {
    let mut h = Html::new();
    h.open("p").attr("class", "muted").body().text(
        "A mask starts a chat with its own prompts, and optionally its own model and sampling. \
         A chat keeps the copy it started with.",
    );
    h.close("p");
    h.open("div").attr("class", "mask-top").body();
    h.labeled_action("primary", "new", "New mask", "New mask");
    h.close("div");
    h.open("ul").attr("class", "mask-list").body();
    for m in user.iter().chain(builtins) {
        let label = text::name(&m.label()).into_owned();
        let id = &m.id;
        h.open("li")
            .attr("class", "mask-row")
            .attr("data-mask", id)
            .body();
        h.el("span", "mask-label", &label);
        let mut about = count(m.context.len(), "prompt", "prompts");
        if m.is_builtin() {
            about.push_str(" · built in");
        }
        h.el("small", "muted mask-about", &about);
        h.open("div").attr("class", "mask-row-actions").body();
        if confirming == Some(id.as_str()) {
            h.el("span", "mask-confirm", &format!("Delete {label}?"));
            h.labeled_action(
                "danger",
                &format!("delete-yes:{id}"),
                "Delete",
                &format!("Delete {label} for good"),
            );
            h.labeled_action("", "delete-no", "Keep", &format!("Keep {label}"));
        } else {
            h.labeled_action(
                "",
                &format!("chat:{id}"),
                "New chat",
                &format!("New chat with {label}"),
            );
            if !m.is_builtin() {
                h.labeled_action("", &format!("edit:{id}"), "Edit", &format!("Edit {label}"));
            }
            h.labeled_action(
                "",
                &format!("dup:{id}"),
                "Duplicate",
                &format!("Duplicate {label}"),
            );
            if !m.is_builtin() {
                h.labeled_action(
                    "danger",
                    &format!("delete:{id}"),
                    "Delete",
                    &format!("Delete {label}"),
                );
            }
        }
        h.close("div").close("li");
    }
    h.close("ul");
    h.finish()
}

/// The line above the chat naming its mask: "Mask: 🌐 Translator", or for a new chat not yet
/// started, "New chat with the mask …" and a button (`drop-mask`) to start without it.
/// Empty when there is no mask (the line then takes no space).
pub fn mask_line_html(mask: Option<&Mask>, draft: bool) -> String {
    let Some(m) = mask else {
        return String::new();
    };
    let mut h = Html::new();
    h.text(if draft {
        "New chat with the mask "
    } else {
        "Mask: "
    });
    h.open("strong")
        .body()
        .text(&text::name(&m.label()))
        .close("strong");
    if draft {
        h.labeled_action(
            "link-button",
            "drop-mask",
            "Start without it",
            "Start without it",
        );
    }
    h.finish()
}
