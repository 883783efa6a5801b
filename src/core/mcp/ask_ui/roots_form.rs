//! A server's roots editor: the `file://` roots the user lets the server know about, kept in
//! localStorage under [`roots_key`] as the exact `roots/list` result, which the connection
//! runner answers from (so roots work without the editor loaded).
//!
//! Add and Remove edit a draft; Save stores it and, when it changed, asks the runner to send
//! `notifications/roots/list_changed`. A stored value that cannot be read is never
//! overwritten silently: the editor says so, starts empty, and only an explicit Save replaces
//! it. Validation is `mcp::roots` (file URIs only, one of each).

use serde_json::Value;

use crate::display::text;
use crate::format::count;
use crate::mcp::roots::{add, changed, list_result, Root};

/// The title's id (the dialog's `aria-labelledby`).
pub const TITLE_ID: &str = "ask-roots-title";

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

/// What the user did in the editor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootsIntent {
    /// Add the typed address (and name) to the list.
    Add,
    /// Remove the root at this index.
    Remove(usize),
    Save,
    Cancel,
}

/// Where focus goes after an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootsFocus {
    /// The address field.
    Uri,
    /// The Remove button of this row.
    Remove(usize),
}

/// What the component does after an action.
#[derive(Debug, Clone, PartialEq)]
pub enum RootsOutcome {
    /// Not an action that applies (a row that is gone).
    Nothing,
    /// Show the editor as it is now, and move focus.
    Draw { focus: RootsFocus },
    /// Store `value` under `key`; then, when `announce`, tell the server its roots changed.
    /// Call [`RootsForm::stored`] or [`RootsForm::failed`] with how it went.
    Save {
        key: String,
        value: String,
        announce: bool,
    },
    /// Close the editor.
    Close,
}

/// One root in the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootView {
    pub name: Option<String>,
    pub uri: String,
    /// Its Remove button's accessible name.
    pub remove_label: String,
}

/// The editor as it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootsView {
    pub server_name: String,
    pub lead: &'static str,
    /// The stored value could not be read (it is kept until Save).
    pub unreadable: Option<String>,
    pub roots: Vec<RootView>,
    /// "No roots yet." when there are none.
    pub empty: Option<&'static str>,
    /// Why the last Add or Save did not go.
    pub error: Option<String>,
    /// What the add fields hold.
    pub uri: String,
    pub name: String,
}

fn draw(focus: RootsFocus) -> RootsOutcome {
    RootsOutcome::Draw { focus }
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

    /// The user acted; `uri` and `name` are what the add fields hold now.
    pub fn act(&mut self, intent: RootsIntent, uri: &str, name: &str) -> RootsOutcome {
        self.uri = uri.to_string();
        self.name = name.to_string();
        match intent {
            RootsIntent::Add => {
                self.try_add();
                draw(RootsFocus::Uri)
            }
            RootsIntent::Remove(i) if i < self.roots.len() => {
                self.roots.remove(i);
                self.error = None;
                // The next row's Remove takes focus, else the previous one's, else the
                // address field.
                draw(if self.roots.is_empty() {
                    RootsFocus::Uri
                } else {
                    RootsFocus::Remove(i.min(self.roots.len() - 1))
                })
            }
            RootsIntent::Remove(_) => RootsOutcome::Nothing,
            RootsIntent::Save => {
                // An address typed but not added yet is what the user meant to keep.
                if !self.uri.trim().is_empty() && !self.try_add() {
                    return draw(RootsFocus::Uri);
                }
                RootsOutcome::Save {
                    key: roots_key(&self.server_id),
                    value: list_result(&self.roots).to_string(),
                    announce: self.unreadable.is_some() || changed(&self.saved, &self.roots),
                }
            }
            RootsIntent::Cancel => RootsOutcome::Close,
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

    /// What was saved, for screen readers.
    pub fn said_on_save(&self) -> String {
        format!(
            "Saved {} for {}.",
            count(self.roots.len(), "root", "roots"),
            text::name(&self.server_name)
        )
    }

    /// The sentence when the stored roots could not be written.
    pub fn not_saved(why: &str) -> String {
        format!("The roots were not saved (the browser's storage refused: {why}).")
    }

    pub fn view(&self) -> RootsView {
        let name = text::name(&self.server_name).into_owned();
        RootsView {
            lead: "Folders and files this server may know about, as file:// URIs. The server \
                   asks Skiff for them; it is told when you save a change.",
            unreadable: self.unreadable.as_ref().map(|why| {
                format!(
                    "The roots stored for {name} could not be read ({why}). They are kept until \
                     you save a new list here."
                )
            }),
            roots: self
                .roots
                .iter()
                .map(|r| {
                    let uri = text::name(&r.uri).into_owned();
                    RootView {
                        name: (!r.name.is_empty()).then(|| text::name(&r.name).into_owned()),
                        remove_label: format!("Remove {uri}"),
                        uri,
                    }
                })
                .collect(),
            empty: self.roots.is_empty().then_some("No roots yet."),
            error: self.error.as_deref().map(|e| text::prose(e).into_owned()),
            uri: self.uri.clone(),
            name: self.name.clone(),
            server_name: name,
        }
    }
}
