//! Settings → Projects as a machine, like `masks::MaskPanel`: what the panel shows and what
//! each click (`data-act`) does. The page reads the editor's values, performs the
//! [`Outcome`] and draws [`ProjectPanel::html`].

use super::html::{editor_html, list_html, PROJECT_NAME_MAX};
use super::Project;

#[derive(Debug, Clone, PartialEq)]
struct Editing {
    project: Project,
    is_new: bool,
    error: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectPanel {
    editing: Option<Editing>,
    /// A project whose Delete was clicked once: its row asks again.
    confirming: Option<String>,
}

/// What the page does after a click.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Nothing,
    /// Draw again and focus what `focus` selects (`""`: leave focus alone).
    Draw {
        focus: String,
    },
    /// Store these as the projects, then draw.
    Store {
        projects: Vec<Project>,
        focus: String,
    },
    /// Start a new chat in this project (and close Settings).
    Chat(Project),
}

fn draw(focus: &str) -> Outcome {
    Outcome::Draw {
        focus: focus.to_string(),
    }
}

const TOP: &str = "[data-act=\"new\"]";

fn value<'a>(pairs: &'a [(String, String)], key: &str) -> &'a str {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map_or("", |(_, v)| v.as_str())
}

impl ProjectPanel {
    pub fn is_editing(&self) -> bool {
        self.editing.is_some()
    }

    /// `masks`: `(id, label)` of the masks a project may name; `counts(id)`: conversations
    /// per project.
    pub fn html(
        &self,
        projects: &[Project],
        masks: &[(String, String)],
        counts: impl Fn(&str) -> usize,
    ) -> String {
        match &self.editing {
            Some(e) => editor_html(&e.project, e.is_new, masks, e.error.as_deref()),
            None => list_html(projects, counts, self.confirming.as_deref()),
        }
    }

    fn open(&mut self, project: Project, is_new: bool) -> Outcome {
        self.editing = Some(Editing {
            project,
            is_new,
            error: None,
        });
        draw("#project-name")
    }

    /// `act`: the clicked `data-act`; `pairs`: the editor's values when it is open;
    /// `projects`: the stored ones; `new_id` makes a new project's id.
    pub fn act(
        &mut self,
        act: &str,
        pairs: &[(String, String)],
        projects: &[Project],
        new_id: impl FnOnce() -> String,
    ) -> Outcome {
        let (verb, arg) = act.split_once(':').unwrap_or((act, ""));
        let find = |id: &str| projects.iter().find(|p| p.id == id).cloned();
        match (verb, self.editing.take()) {
            ("new", None) => self.open(
                Project {
                    id: new_id(),
                    ..Project::default()
                },
                true,
            ),
            ("edit", None) => find(arg).map_or(Outcome::Nothing, |p| self.open(p, false)),
            ("delete", None) => {
                self.confirming = Some(arg.to_string());
                draw("[data-act=\"delete-no\"]")
            }
            ("delete-no", None) => {
                self.confirming = None;
                draw("")
            }
            ("delete-yes", None) => {
                self.confirming = None;
                Outcome::Store {
                    projects: projects.iter().filter(|p| p.id != arg).cloned().collect(),
                    focus: TOP.into(),
                }
            }
            ("chat", None) => find(arg).map_or(Outcome::Nothing, Outcome::Chat),
            ("save", Some(e)) => {
                let name: String = value(pairs, "name")
                    .trim()
                    .chars()
                    .take(PROJECT_NAME_MAX)
                    .collect();
                let mask = value(pairs, "mask");
                let project = Project {
                    name,
                    instructions: value(pairs, "instructions").trim_end().to_string(),
                    mask: (!mask.is_empty()).then(|| mask.to_string()),
                    ..e.project.clone()
                };
                let taken = projects.iter().any(|p| {
                    p.id != project.id && p.name.trim().eq_ignore_ascii_case(&project.name)
                });
                let error = if project.name.is_empty() {
                    Some("A project needs a name.".to_string())
                } else if taken {
                    Some(format!(
                        "There is already a project named “{}”.",
                        project.name
                    ))
                } else {
                    None
                };
                if error.is_some() {
                    self.editing = Some(Editing {
                        project,
                        error,
                        ..e
                    });
                    return draw("#project-name");
                }
                let mut all = projects.to_vec();
                match all.iter_mut().find(|p| p.id == project.id) {
                    Some(p) => *p = project,
                    None => all.push(project),
                }
                Outcome::Store {
                    projects: all,
                    focus: TOP.into(),
                }
            }
            ("cancel", Some(_)) => draw(TOP),
            (_, editing) => {
                self.editing = editing;
                Outcome::Nothing
            }
        }
    }
}
