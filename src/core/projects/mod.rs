//! Projects: named groups of conversations with their own instructions for the model and a
//! default mask for the chats started in them (issue 12, item 8).
//!
//! A project is stored in the settings record (`ChatSettings::projects`), so it goes wherever
//! settings go (other tabs, backups); a conversation names its project by id
//! (`Conversation::project`). Deleting a project never deletes a conversation: its
//! conversations are shown outside any project again, and an id no project has any more is
//! treated the same way. The instructions reach the model after the tools prompt and before
//! the memory recap (`pipeline::request::assemble`).

mod panel;
mod record;
#[cfg(test)]
mod tests;

pub use panel::{
    Outcome, ProjectEdit, ProjectEditor, ProjectFocus, ProjectIntent, ProjectPanel, ProjectRow,
    ProjectView, RowAction,
};

/// Longest name kept (the sidebar heading cuts it visually long before).
pub const PROJECT_NAME_MAX: usize = 80;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "serde_json::Value", into = "serde_json::Value")]
pub struct Project {
    pub id: String,
    pub name: String,
    /// Sent to the model in every request of the project's conversations.
    pub instructions: String,
    /// The id of the mask a new chat in this project starts with (a user mask or a built-in
    /// one); a mask deleted since is simply not applied.
    pub mask: Option<String>,
    /// Whether the sidebar shows only the project's heading (stored, so it stays so).
    pub collapsed: bool,
}

impl Project {
    /// The name as shown: "Untitled project" when the user left it empty.
    pub fn label(&self) -> &str {
        let name = self.name.trim();
        if name.is_empty() {
            "Untitled project"
        } else {
            name
        }
    }

    /// What the model receives for this project (empty when there are no instructions).
    pub fn instructions_text(&self) -> String {
        let text = self.instructions.trim();
        if text.is_empty() {
            return String::new();
        }
        format!(
            "This conversation belongs to the project “{}”. The project's instructions:\n{text}",
            one_line(self.label())
        )
    }
}

/// A name on one line: a line break in a name could otherwise end the framing sentence.
fn one_line(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// The project with `id`, if it (still) exists.
pub fn find<'a>(projects: &'a [Project], id: Option<&str>) -> Option<&'a Project> {
    let id = id?;
    projects.iter().find(|p| p.id == id)
}
