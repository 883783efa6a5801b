//! Settings → Projects as a machine, like `masks::MaskPanel`: what the panel shows
//! ([`ProjectPanel::view`]: the list with each project's conversation count, or the editor)
//! and what each intent does ([`ProjectPanel::act`]). The page lays out the view, sends the
//! user's intents and performs the [`Outcome`]. Never markup.

use super::{Project, PROJECT_NAME_MAX};
use crate::display::text;
use crate::form::{Choice, Field};
use crate::format::count;

#[derive(Debug, Clone, PartialEq)]
struct Editing {
    /// The project being edited as stored (its id and folding are kept).
    base: Project,
    name: String,
    instructions: String,
    /// A mask id; empty for none.
    mask: String,
    is_new: bool,
    error: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProjectPanel {
    editing: Option<Editing>,
    /// A project whose Delete was clicked once: its row asks again.
    confirming: Option<String>,
}

/// One edit in the editor.
#[derive(Debug, Clone, PartialEq)]
pub enum ProjectEdit {
    Name(String),
    Instructions(String),
    /// A mask id; empty for "No mask".
    Mask(String),
}

/// What the user asks of the panel. Ids are project ids; the editor's intents do nothing
/// while the list shows, and the list's while the editor is open.
#[derive(Debug, Clone, PartialEq)]
pub enum ProjectIntent {
    New,
    Edit(String),
    /// The first click on Delete: the row asks again.
    Delete(String),
    Keep,
    DeleteForGood(String),
    Chat(String),
    Change(ProjectEdit),
    Save,
    Cancel,
}

/// Where the cursor goes after an intent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProjectFocus {
    Name,
    /// The list's "New project" button.
    New,
    /// The asking row's "Keep" button.
    Keep,
}

impl ProjectFocus {
    /// The element id the component puts the cursor on.
    pub fn id(self) -> &'static str {
        match self {
            ProjectFocus::Name => "project-name",
            ProjectFocus::New => "project-new",
            ProjectFocus::Keep => "project-keep",
        }
    }
}

/// What the page does after an intent.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Show the panel as it now is, with the cursor at `focus` (`None`: where it is).
    Show { focus: Option<ProjectFocus> },
    /// Store these as the projects, then show the list.
    Store {
        projects: Vec<Project>,
        focus: ProjectFocus,
    },
    /// Start a new chat in this project (and close Settings).
    Chat(Project),
}

const STAY: Outcome = Outcome::Show { focus: None };

fn show(focus: ProjectFocus) -> Outcome {
    Outcome::Show { focus: Some(focus) }
}

/// A button of a list row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowAction {
    Chat,
    Edit,
    Delete,
    DeleteForGood,
    Keep,
}

impl RowAction {
    /// The stable name the button's class carries (`row-edit`).
    pub fn name(self) -> &'static str {
        match self {
            RowAction::Chat => "chat",
            RowAction::Edit => "edit",
            RowAction::Delete => "delete",
            RowAction::DeleteForGood => "delete-for-good",
            RowAction::Keep => "keep",
        }
    }

    /// The button's text.
    pub fn label(self) -> &'static str {
        match self {
            RowAction::Chat => "New chat",
            RowAction::Edit => "Edit",
            RowAction::Delete | RowAction::DeleteForGood => "Delete",
            RowAction::Keep => "Keep",
        }
    }

    /// The button's accessible name in the row of `project`.
    pub fn aria(self, project: &str) -> String {
        match self {
            RowAction::Chat => format!("New chat in {project}"),
            RowAction::Edit => format!("Edit {project}"),
            RowAction::Delete => format!("Delete {project}"),
            RowAction::DeleteForGood => format!("Delete {project} for good"),
            RowAction::Keep => format!("Keep {project}"),
        }
    }

    /// Whether the button destroys something.
    pub fn danger(self) -> bool {
        matches!(self, RowAction::Delete | RowAction::DeleteForGood)
    }

    /// What a click on it in the row of project `id` asks.
    pub fn intent(self, id: &str) -> ProjectIntent {
        let id = id.to_string();
        match self {
            RowAction::Chat => ProjectIntent::Chat(id),
            RowAction::Edit => ProjectIntent::Edit(id),
            RowAction::Delete => ProjectIntent::Delete(id),
            RowAction::DeleteForGood => ProjectIntent::DeleteForGood(id),
            RowAction::Keep => ProjectIntent::Keep,
        }
    }
}

const ROW: &[RowAction] = &[RowAction::Chat, RowAction::Edit, RowAction::Delete];
const ASKING_ROW: &[RowAction] = &[RowAction::DeleteForGood, RowAction::Keep];

/// One project in the list.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectRow {
    pub id: String,
    /// The name as shown, neutralised.
    pub label: String,
    /// "3 conversations".
    pub about: String,
    /// The question while the row asks before deleting.
    pub question: Option<String>,
    pub actions: &'static [RowAction],
}

/// The editor as shown.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectEditor {
    /// "New project" or "Edit project".
    pub title: &'static str,
    /// The name, with what the last Save found wrong (only the name can be wrong).
    pub name: Field,
    pub instructions: String,
    /// The chosen mask's id ("" for none) among `masks`.
    pub mask: String,
    pub masks: Vec<Choice>,
}

/// What the panel shows.
#[derive(Debug, Clone, PartialEq)]
pub enum ProjectView {
    /// The rows ("No projects yet." when there are none).
    List(Vec<ProjectRow>),
    Editor(ProjectEditor),
}

impl ProjectView {
    pub fn editor(&self) -> Option<&ProjectEditor> {
        match self {
            ProjectView::Editor(e) => Some(e),
            ProjectView::List(_) => None,
        }
    }
}

impl ProjectPanel {
    pub fn is_editing(&self) -> bool {
        self.editing.is_some()
    }

    /// What the panel shows. `masks`: `(id, label)` of the masks a project may name;
    /// `counts(id)`: conversations per project.
    pub fn view(
        &self,
        projects: &[Project],
        masks: &[(String, String)],
        counts: impl Fn(&str) -> usize,
    ) -> ProjectView {
        if let Some(e) = &self.editing {
            let mut choices = vec![Choice::new("", "No mask")];
            choices.extend(
                masks
                    .iter()
                    .map(|(id, label)| Choice::new(id.clone(), text::name(label))),
            );
            return ProjectView::Editor(ProjectEditor {
                title: if e.is_new {
                    "New project"
                } else {
                    "Edit project"
                },
                name: Field::new(e.name.clone(), e.error.clone()),
                instructions: e.instructions.clone(),
                mask: e.mask.clone(),
                masks: choices,
            });
        }
        let rows = projects.iter().map(|p| {
            let label = text::name(p.label()).into_owned();
            let asking = self.confirming.as_deref() == Some(p.id.as_str());
            ProjectRow {
                id: p.id.clone(),
                about: count(counts(&p.id), "conversation", "conversations"),
                question: asking.then(|| {
                    format!("Delete {label}? Its conversations stay, outside any project.")
                }),
                label,
                actions: if asking { ASKING_ROW } else { ROW },
            }
        });
        ProjectView::List(rows.collect())
    }

    fn open(&mut self, project: Project, is_new: bool) -> Outcome {
        self.editing = Some(Editing {
            name: project.name.clone(),
            instructions: project.instructions.clone(),
            mask: project.mask.clone().unwrap_or_default(),
            base: project,
            is_new,
            error: None,
        });
        show(ProjectFocus::Name)
    }

    /// Performs `intent`; `projects` are the stored ones, `new_id` makes a new project's id.
    pub fn act(
        &mut self,
        intent: ProjectIntent,
        projects: &[Project],
        new_id: impl FnOnce() -> String,
    ) -> Outcome {
        let find = |id: &str| projects.iter().find(|p| p.id == id).cloned();
        let Some(mut e) = self.editing.take() else {
            return match intent {
                ProjectIntent::New => self.open(
                    Project {
                        id: new_id(),
                        ..Project::default()
                    },
                    true,
                ),
                ProjectIntent::Edit(id) => find(&id).map_or(STAY, |p| self.open(p, false)),
                ProjectIntent::Delete(id) => {
                    self.confirming = Some(id);
                    show(ProjectFocus::Keep)
                }
                ProjectIntent::Keep => {
                    self.confirming = None;
                    STAY
                }
                ProjectIntent::DeleteForGood(id) => {
                    self.confirming = None;
                    Outcome::Store {
                        projects: projects.iter().filter(|p| p.id != id).cloned().collect(),
                        focus: ProjectFocus::New,
                    }
                }
                ProjectIntent::Chat(id) => find(&id).map_or(STAY, Outcome::Chat),
                // The editor's intents: not while the list shows.
                _ => STAY,
            };
        };
        match intent {
            ProjectIntent::Change(edit) => {
                match edit {
                    ProjectEdit::Name(v) => e.name = v,
                    ProjectEdit::Instructions(v) => e.instructions = v,
                    ProjectEdit::Mask(v) => e.mask = v,
                }
                self.editing = Some(e);
                STAY
            }
            ProjectIntent::Save => {
                let name: String = e.name.trim().chars().take(PROJECT_NAME_MAX).collect();
                let project = Project {
                    name,
                    instructions: e.instructions.trim_end().to_string(),
                    mask: (!e.mask.is_empty()).then(|| e.mask.clone()),
                    ..e.base.clone()
                };
                let taken = projects.iter().any(|p| {
                    p.id != project.id && p.name.trim().eq_ignore_ascii_case(&project.name)
                });
                e.error = if project.name.is_empty() {
                    Some("A project needs a name.".to_string())
                } else if taken {
                    Some(format!(
                        "There is already a project named “{}”.",
                        project.name
                    ))
                } else {
                    None
                };
                if e.error.is_some() {
                    self.editing = Some(e);
                    return show(ProjectFocus::Name);
                }
                let mut all = projects.to_vec();
                match all.iter_mut().find(|p| p.id == project.id) {
                    Some(p) => *p = project,
                    None => all.push(project),
                }
                Outcome::Store {
                    projects: all,
                    focus: ProjectFocus::New,
                }
            }
            ProjectIntent::Cancel => show(ProjectFocus::New),
            // The list's intents: not while the editor is open.
            _ => {
                self.editing = Some(e);
                STAY
            }
        }
    }
}
