//! Settings → Masks as a machine: what the panel shows (the list, or the editor with what
//! its last Save found wrong) and what each click (`data-act`) does. The page only reads the
//! form, performs the [`Outcome`] and draws [`MaskPanel::html`].

use super::{builtins, editor_html, find, list_html, mask_from_pairs, FieldError};
use crate::records::mask::{ContextPrompt, Mask};
use crate::records::message::Role;
use crate::settings::ChatSettings;

#[derive(Debug, Clone, PartialEq)]
struct Editing {
    mask: Mask,
    is_new: bool,
    errors: Vec<FieldError>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct MaskPanel {
    editing: Option<Editing>,
    /// A mask whose Delete was clicked once: its row asks again.
    confirming: Option<String>,
}

/// What the page does after a click.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Not an action of this panel.
    Nothing,
    /// Draw the panel again and focus the element `focus` selects (`""`: leave focus alone).
    Draw { focus: String },
    /// Store these as the user's masks, then draw.
    Store { masks: Vec<Mask>, focus: String },
    /// Start a new chat from this mask (and close Settings).
    Chat(Mask),
}

fn draw(focus: &str) -> Outcome {
    Outcome::Draw {
        focus: focus.to_string(),
    }
}

impl MaskPanel {
    /// Whether the editor is open (its form's values go with every click).
    pub fn is_editing(&self) -> bool {
        self.editing.is_some()
    }

    pub fn html(&self, settings: &ChatSettings) -> String {
        match &self.editing {
            Some(e) => {
                let profiles: Vec<(String, String)> = settings
                    .profiles
                    .iter()
                    .map(|p| (p.id.clone(), p.name.clone()))
                    .collect();
                editor_html(&e.mask, e.is_new, &profiles, &e.errors)
            }
            None => list_html(&settings.masks, &builtins(), self.confirming.as_deref()),
        }
    }

    fn open(&mut self, mask: Mask, is_new: bool) -> Outcome {
        self.editing = Some(Editing {
            mask,
            is_new,
            errors: Vec::new(),
        });
        draw("#mask-name")
    }

    /// `act` is the clicked `data-act` (`verb` or `verb:argument`), `pairs` the editor's
    /// values when it is open, `user` the stored masks; `new_id` makes the id of a new mask.
    pub fn act(
        &mut self,
        act: &str,
        pairs: &[(String, String)],
        user: &[Mask],
        new_id: impl FnOnce() -> String,
    ) -> Outcome {
        let (verb, arg) = act.split_once(':').unwrap_or((act, ""));
        match (verb, self.editing.take()) {
            ("new", None) => self.open(
                Mask {
                    id: new_id(),
                    context: vec![ContextPrompt {
                        role: Role::System,
                        content: String::new(),
                    }],
                    ..Mask::default()
                },
                true,
            ),
            ("edit", None) => match user.iter().find(|m| m.id == arg) {
                Some(m) => self.open(m.clone(), false),
                None => Outcome::Nothing,
            },
            ("dup", None) => match find(user, arg) {
                Some(m) => self.open(m.duplicate(new_id()), true),
                None => Outcome::Nothing,
            },
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
                    masks: user.iter().filter(|m| m.id != arg).cloned().collect(),
                    focus: "[data-act=\"new\"]".into(),
                }
            }
            ("chat", None) => find(user, arg).map_or(Outcome::Nothing, Outcome::Chat),
            ("add" | "remove", Some(e)) => {
                // What cannot be saved yet keeps its sentence and its typed text (a number
                // the mask cannot hold would otherwise vanish); a removed prompt's row
                // numbers shift, so prompt errors wait for the next Save.
                let (mut mask, mut errors) = mask_from_pairs(&e.mask.id, pairs);
                if verb == "remove" {
                    errors.retain(|e| !e.field.starts_with("content"));
                }
                let focus = if verb == "add" {
                    let role = if mask.context.is_empty() {
                        Role::System
                    } else {
                        Role::User
                    };
                    mask.context.push(ContextPrompt {
                        role,
                        content: String::new(),
                    });
                    format!("#mask-content{}", mask.context.len() - 1)
                } else {
                    if let Some(i) = arg
                        .parse::<usize>()
                        .ok()
                        .filter(|i| *i < mask.context.len())
                    {
                        mask.context.remove(i);
                    }
                    "#mask-add".into()
                };
                self.editing = Some(Editing { mask, errors, ..e });
                draw(&focus)
            }
            ("save", Some(e)) => {
                let (mask, errors) = mask_from_pairs(&e.mask.id, pairs);
                if let Some(first) = errors.first() {
                    let focus = format!("#mask-{}", first.field);
                    self.editing = Some(Editing { mask, errors, ..e });
                    return draw(&focus);
                }
                let mask = mask.tidy();
                let mut masks = user.to_vec();
                match masks.iter_mut().find(|m| m.id == mask.id) {
                    Some(m) => *m = mask,
                    None => masks.insert(0, mask),
                }
                Outcome::Store {
                    masks,
                    focus: "[data-act=\"new\"]".into(),
                }
            }
            ("cancel", Some(_)) => draw("[data-act=\"new\"]"),
            (_, editing) => {
                self.editing = editing;
                Outcome::Nothing
            }
        }
    }
}
