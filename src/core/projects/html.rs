//! Settings → Projects as HTML text (see `crate::html`): the list with each project's
//! conversation count and actions, or the editor (name, instructions, default mask). Buttons
//! carry `data-act` as `verb:id`; the editor is read back by `ProjectPanel::act`.

use super::Project;
use crate::display::text;
use crate::format::count;
use crate::html::Html;

/// Longest name kept (the sidebar heading cuts it visually long before).
pub const PROJECT_NAME_MAX: usize = 80;

/// `counts(id)`: how many conversations a project holds; `confirming`: the project whose
/// Delete was clicked once.
pub fn list_html(
    projects: &[Project],
    counts: impl Fn(&str) -> usize,
    confirming: Option<&str>,
) -> String {
    let mut h = Html::new();
    h.el(
        "p",
        "muted",
        "A project groups conversations in the sidebar. Its instructions go to the model in \
         each of its chats, and a new chat in it starts with its mask.",
    );
    h.open("div").attr("class", "mask-top").body();
    h.labeled_action("primary", "new", "New project", "New project");
    h.close("div");
    if projects.is_empty() {
        h.el("p", "muted project-empty", "No projects yet.");
    }
    h.open("ul").attr("class", "mask-list project-list").body();
    for p in projects {
        let label = text::name(p.label()).into_owned();
        let id = &p.id;
        h.open("li")
            .attr("class", "mask-row project-row")
            .attr("data-project", id)
            .body();
        h.el("span", "mask-label project-label", &label);
        h.el(
            "small",
            "muted mask-about project-about",
            &count(counts(id), "conversation", "conversations"),
        );
        h.open("div").attr("class", "mask-row-actions").body();
        if confirming == Some(id.as_str()) {
            h.el(
                "span",
                "project-confirm",
                &format!("Delete {label}? Its conversations stay, outside any project."),
            );
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
                &format!("New chat in {label}"),
            );
            h.labeled_action("", &format!("edit:{id}"), "Edit", &format!("Edit {label}"));
            h.labeled_action(
                "danger",
                &format!("delete:{id}"),
                "Delete",
                &format!("Delete {label}"),
            );
        }
        h.close("div").close("li");
    }
    h.close("ul");
    h.finish()
}

/// The editor. `masks`: `(id, label)` of every mask a project may start its chats with;
/// `error`: what the last Save found wrong (only the name can be).
pub(super) fn editor_html(
    p: &Project,
    is_new: bool,
    masks: &[(String, String)],
    error: Option<&str>,
) -> String {
    let mut h = Html::new();
    h.open("form")
        .attr("class", "mask-editor project-editor")
        .body();
    h.el(
        "h3",
        "",
        if is_new {
            "New project"
        } else {
            "Edit project"
        },
    );
    h.open("div").attr("class", "mask-field").body();
    h.open("label")
        .attr("for", "project-name")
        .body()
        .text("Name")
        .close("label");
    h.open("input")
        .attr("id", "project-name")
        .attr("name", "name")
        .attr("value", &p.name)
        .attr("maxlength", "80")
        .attr(
            "aria-invalid",
            if error.is_some() { "true" } else { "false" },
        )
        .attr("aria-describedby", "project-name-err")
        .void();
    h.open("p")
        .attr("class", "error mask-error")
        .attr("id", "project-name-err")
        .body()
        .text(error.unwrap_or(""))
        .close("p");
    h.close("div");
    h.open("div").attr("class", "mask-field").body();
    h.open("label")
        .attr("for", "project-instructions")
        .body()
        .text("Instructions for the model")
        .close("label");
    h.open("textarea")
        .attr("id", "project-instructions")
        .attr("name", "instructions")
        .attr("rows", "5")
        .attr(
            "placeholder",
            "For example: We are writing a Rust web app; answer with idiomatic Rust.",
        )
        .body()
        .text(&p.instructions)
        .close("textarea");
    h.close("div");
    h.open("div").attr("class", "mask-field").body();
    h.open("label")
        .attr("for", "project-mask")
        .body()
        .text("New chats start with the mask")
        .close("label");
    h.open("select")
        .attr("id", "project-mask")
        .attr("name", "mask")
        .body();
    h.option("", "No mask", p.mask.is_none());
    for (id, label) in masks {
        h.option(
            id,
            &text::name(label),
            p.mask.as_deref() == Some(id.as_str()),
        );
    }
    h.close("select").close("div");
    h.open("div").attr("class", "mask-editor-actions").body();
    h.action("primary", "save", "Save");
    h.action("", "cancel", "Cancel");
    h.close("div").close("form");
    h.finish()
}

/// The part of the line above the chat naming its project: "Project: Garden", or for a new
/// chat not yet started, "New chat in the project Garden" and a button (`drop-project`) to
/// start it outside. Empty outside a project.
pub fn project_line_html(project: Option<&Project>, draft: bool) -> String {
    let Some(p) = project else {
        return String::new();
    };
    let mut h = Html::new();
    h.text(if draft {
        "New chat in the project "
    } else {
        "Project: "
    });
    h.open("strong")
        .body()
        .text(&text::name(p.label()))
        .close("strong");
    if draft {
        h.labeled_action(
            "link-button",
            "drop-project",
            "Start it outside the project",
            "Start it outside the project",
        );
    }
    h.finish()
}
