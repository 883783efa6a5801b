//! A server's roots editor: the `file://` roots the user lets the server know about, kept in
//! localStorage under [`roots_key`] as the exact `roots/list` result, which the page answers
//! from (so roots work without this module loaded).
//!
//! Add and Remove edit a draft; Save stores it and, when it changed, asks the host to send
//! `notifications/roots/list_changed`. A stored value that cannot be read is never
//! overwritten silently: the editor says so, starts empty, and only an explicit Save replaces
//! it. Validation is `mcp::roots` (file URIs only, one of each).

use serde_json::Value;

use crate::display::text;
use crate::html::Html;
use crate::mcp::roots::{add, changed, list_result, Root};

/// The title's id (the dialog's `aria-labelledby`).
pub const TITLE_ID: &str = "ask-roots-title";
const URI_ID: &str = "ask-root-uri";
const NAME_ID: &str = "ask-root-name";

/// The localStorage key of a server's roots.
pub fn roots_key(server_id: &str) -> String {
    format!("skiff.roots.{server_id}")
}

/// Stored roots, or why they cannot be read.
fn parse_stored(stored: &str) -> Result<Vec<Root>, String> {
    let v: Value = serde_json::from_str(stored).map_err(|e| e.to_string())?;
    let roots = v
        .get("roots")
        .cloned()
        .ok_or_else(|| "it has no roots list".to_string())?;
    serde_json::from_value(roots).map_err(|e| e.to_string())
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct RootsForm {
    server_id: String,
    server_name: String,
    saved: Vec<Root>,
    roots: Vec<Root>,
    /// Why the stored value could not be read (it stays until Save).
    unreadable: Option<String>,
    /// The last Add's (or Save's) sentence.
    error: Option<String>,
    /// What the add fields held when the form was last drawn.
    uri: String,
    name: String,
}

/// What the script does after an action.
#[derive(Debug, Clone, PartialEq)]
pub enum RootsOutcome {
    /// Not an action of this form.
    Nothing,
    /// Draw again and focus what `focus` selects (`""`: leave focus alone).
    Draw { focus: String },
    /// Store `value` under `key`; then, when `announce`, call the host's `roots`. Call
    /// [`RootsForm::stored`] or [`RootsForm::failed`] with how it went.
    Save {
        key: String,
        value: String,
        announce: bool,
    },
    /// Close the editor.
    Close,
}

fn draw(focus: &str) -> RootsOutcome {
    RootsOutcome::Draw {
        focus: focus.to_string(),
    }
}

fn pair<'a>(pairs: &'a [(String, String)], name: &str) -> &'a str {
    pairs
        .iter()
        .find(|(n, _)| n == name)
        .map_or("", |(_, v)| v.as_str())
}

impl RootsForm {
    /// The editor for `server_id`, from what localStorage holds under its key (`None`: nothing).
    pub fn new(server_id: &str, server_name: &str, stored: Option<&str>) -> RootsForm {
        let (saved, unreadable) = match stored.map(parse_stored) {
            None => (Vec::new(), None),
            Some(Ok(r)) => (r, None),
            Some(Err(why)) => (Vec::new(), Some(why)),
        };
        RootsForm {
            server_id: server_id.to_string(),
            server_name: if server_name.is_empty() {
                server_id.to_string()
            } else {
                server_name.to_string()
            },
            roots: saved.clone(),
            saved,
            unreadable,
            ..RootsForm::default()
        }
    }

    pub fn roots(&self) -> &[Root] {
        &self.roots
    }

    fn try_add(&mut self) -> bool {
        match add(&mut self.roots, &self.uri, &self.name) {
            Ok(()) => {
                self.uri.clear();
                self.name.clear();
                self.error = None;
                true
            }
            Err(e) => {
                self.error = Some(e.to_string());
                false
            }
        }
    }

    /// `act` is the clicked `data-act` (`verb` or `verb:index`); `pairs` the add fields
    /// (`uri`, `name`) as the form holds them.
    pub fn act(&mut self, act: &str, pairs: &[(String, String)]) -> RootsOutcome {
        self.uri = pair(pairs, "uri").to_string();
        self.name = pair(pairs, "name").to_string();
        let (verb, arg) = act.split_once(':').unwrap_or((act, ""));
        match verb {
            "add" => {
                self.try_add();
                draw(&format!("#{URI_ID}"))
            }
            "remove" => match arg.parse::<usize>() {
                Ok(i) if i < self.roots.len() => {
                    self.roots.remove(i);
                    self.error = None;
                    // The next row's Remove takes focus, else the previous one's, else the
                    // address field.
                    let focus = if self.roots.is_empty() {
                        format!("#{URI_ID}")
                    } else {
                        format!(
                            "[data-act=\"remove:{}\"]",
                            i.min(self.roots.len().saturating_sub(1))
                        )
                    };
                    draw(&focus)
                }
                _ => RootsOutcome::Nothing,
            },
            "save" => {
                // An address typed but not added yet is what the user meant to keep.
                if !self.uri.trim().is_empty() && !self.try_add() {
                    return draw(&format!("#{URI_ID}"));
                }
                RootsOutcome::Save {
                    key: roots_key(&self.server_id),
                    value: list_result(&self.roots).to_string(),
                    announce: self.unreadable.is_some() || changed(&self.saved, &self.roots),
                }
            }
            "cancel" => RootsOutcome::Close,
            _ => RootsOutcome::Nothing,
        }
    }

    /// The Save was stored.
    pub fn stored(&mut self) {
        self.saved = self.roots.clone();
        self.unreadable = None;
        self.error = None;
    }

    /// The Save could not be stored (a full storage): the sentence shows and the draft stays.
    pub fn failed(&mut self, sentence: &str) {
        self.error = Some(sentence.to_string());
    }

    pub fn html(&self) -> String {
        let name = text::name(&self.server_name);
        let mut h = Html::new();
        h.open("h2")
            .attr("class", "ask-title")
            .attr("id", TITLE_ID)
            .body()
            .text("Roots for ")
            .el("bdi", "ask-server", &name)
            .close("h2");
        h.el(
            "p",
            "muted ask-lead",
            "Folders and files this server may know about, as file:// URIs. The server asks \
             Skiff for them; it is told when you save a change.",
        );
        if let Some(why) = &self.unreadable {
            h.open("p")
                .attr("class", "error ask-unreadable")
                .attr("role", "alert")
                .body()
                .text(&format!(
                    "The roots stored for {name} could not be read ({why}). They are kept until \
                     you save a new list here."
                ))
                .close("p");
        }
        if self.roots.is_empty() {
            h.el("p", "muted ask-roots-empty", "No roots yet.");
        } else {
            h.open("ul").attr("class", "ask-roots").body();
            for (i, r) in self.roots.iter().enumerate() {
                let uri = text::name(&r.uri);
                h.open("li").attr("class", "ask-root").body();
                h.open("span").attr("class", "ask-root-text").body();
                if !r.name.is_empty() {
                    h.el("bdi", "ask-root-name", &text::name(&r.name));
                }
                h.el("code", "ask-root-uri", &uri);
                h.close("span");
                h.labeled_action(
                    "small ask-root-remove",
                    &format!("remove:{i}"),
                    "Remove",
                    &format!("Remove {uri}"),
                );
                h.close("li");
            }
            h.close("ul");
        }
        h.open("form")
            .attr("class", "ask-root-add")
            .flag("novalidate", true)
            .attr("autocomplete", "off")
            .body();
        h.open("div").attr("class", "ask-field").body();
        h.open("label")
            .attr("for", URI_ID)
            .body()
            .text("Folder or file URI")
            .close("label");
        h.open("input")
            .attr("type", "text")
            .attr("id", URI_ID)
            .attr("name", "uri")
            .attr("placeholder", "file:///home/me/project")
            .attr("spellcheck", "false")
            .attr(
                "aria-invalid",
                if self.error.is_some() {
                    "true"
                } else {
                    "false"
                },
            )
            .attr("aria-describedby", "ask-root-err")
            .attr("value", &self.uri)
            .void();
        h.close("div");
        h.open("div").attr("class", "ask-field").body();
        h.open("label")
            .attr("for", NAME_ID)
            .body()
            .text("Name ")
            .el("span", "muted", "(optional)")
            .close("label");
        h.open("input")
            .attr("type", "text")
            .attr("id", NAME_ID)
            .attr("name", "name")
            .attr("value", &self.name)
            .void();
        h.close("div");
        h.open("p")
            .attr("class", "error ask-error")
            .attr("id", "ask-root-err")
            .attr("role", "alert")
            .body()
            .text(
                self.error
                    .as_deref()
                    .map(text::prose)
                    .as_deref()
                    .unwrap_or(""),
            )
            .close("p");
        h.open("div").attr("class", "ask-actions").body();
        h.open("button")
            .attr("type", "submit")
            .attr("class", "ask-root-addbtn")
            .attr("data-act", "add")
            .body()
            .text("Add root")
            .close("button");
        h.close("div").close("form");
        h.open("div")
            .attr("class", "ask-actions ask-dialog-actions")
            .body();
        h.action("primary ask-save", "save", "Save");
        h.action("ask-cancel", "cancel", "Cancel");
        h.close("div");
        h.finish()
    }
}
