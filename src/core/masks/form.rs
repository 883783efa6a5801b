//! The mask editor's fields as typed ([`MaskDraft`]) → a mask, with a sentence for each field
//! that cannot be used as typed. The draft keeps the text exactly as typed (a number the mask
//! cannot hold included), so nothing is lost while the editor is open.

use super::{MAX_CONTEXT_PROMPTS, MAX_EMOJI_CHARS, MAX_NAME_CHARS, MAX_PROMPT_CHARS};
use crate::format::decimal_f32;
use crate::number::parse_finite;
use crate::records::mask::{ContextPrompt, Mask};
use crate::records::message::Role;
use crate::records::model_choice::ModelChoice;

/// The roles a context prompt may have, in the order the role `<select>` lists them.
pub const PROMPT_ROLES: [Role; 3] = [Role::System, Role::User, Role::Assistant];

/// A place in the editor that can hold an error (and take the cursor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaskField {
    Name,
    Emoji,
    Profile,
    Model,
    Temperature,
    TopP,
    MaxTokens,
    InputTemplate,
    /// The text of context prompt N (from 0).
    Prompt(usize),
    /// The list of prompts as a whole (its "Add prompt" button).
    Prompts,
}

impl MaskField {
    /// The control's element id: its label, its error line (`{id}-err`) and focus use it.
    pub fn id(self) -> String {
        let name = match self {
            MaskField::Name => "name",
            MaskField::Emoji => "emoji",
            MaskField::Profile => "profile",
            MaskField::Model => "model",
            MaskField::Temperature => "temperature",
            MaskField::TopP => "top_p",
            MaskField::MaxTokens => "max_tokens",
            MaskField::InputTemplate => "input_template",
            MaskField::Prompt(i) => return format!("mask-content{i}"),
            MaskField::Prompts => "add",
        };
        format!("mask-{name}")
    }
}

/// One edit the user makes in the editor, as the component reports it.
#[derive(Debug, Clone, PartialEq)]
pub enum MaskEdit {
    Name(String),
    Emoji(String),
    /// A profile id; empty for "the chat's own choice".
    Profile(String),
    Model(String),
    Temperature(String),
    TopP(String),
    MaxTokens(String),
    InputTemplate(String),
    Role(usize, Role),
    Prompt(usize, String),
}

/// One field the editor marks, with what to do about it.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    pub field: MaskField,
    pub message: String,
}

fn err(field: MaskField, message: String) -> FieldError {
    FieldError { field, message }
}

/// The editor's fields as typed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MaskDraft {
    pub name: String,
    pub emoji: String,
    /// The chosen profile's id; empty for the chat's own choice.
    pub profile: String,
    pub model: String,
    pub temperature: String,
    pub top_p: String,
    pub max_tokens: String,
    pub input_template: String,
    pub prompts: Vec<ContextPrompt>,
}

impl MaskDraft {
    /// The editor filled from a mask.
    pub fn of(mask: &Mask) -> MaskDraft {
        let (profile, model) = match &mask.model {
            Some(c) => (c.profile_id.clone(), c.model.clone()),
            None => Default::default(),
        };
        MaskDraft {
            name: mask.name.clone(),
            emoji: mask.emoji.clone(),
            profile,
            model,
            temperature: mask.temperature.map(decimal_f32).unwrap_or_default(),
            top_p: mask.top_p.map(decimal_f32).unwrap_or_default(),
            max_tokens: mask.max_tokens.map(|n| n.to_string()).unwrap_or_default(),
            input_template: mask.input_template.clone(),
            prompts: mask.context.clone(),
        }
    }

    /// Applies one edit (an edit of a prompt that is not there is ignored).
    pub fn apply(&mut self, edit: MaskEdit) {
        match edit {
            MaskEdit::Name(v) => self.name = v,
            MaskEdit::Emoji(v) => self.emoji = v,
            MaskEdit::Profile(v) => self.profile = v,
            MaskEdit::Model(v) => self.model = v,
            MaskEdit::Temperature(v) => self.temperature = v,
            MaskEdit::TopP(v) => self.top_p = v,
            MaskEdit::MaxTokens(v) => self.max_tokens = v,
            MaskEdit::InputTemplate(v) => self.input_template = v,
            MaskEdit::Role(i, role) => {
                if let Some(p) = self.prompts.get_mut(i) {
                    p.role = role;
                }
            }
            MaskEdit::Prompt(i, v) => {
                if let Some(p) = self.prompts.get_mut(i) {
                    p.content = v;
                }
            }
        }
    }

    /// The text of a one-line field (empty for the prompts, which are not one).
    pub fn text(&self, field: MaskField) -> &str {
        match field {
            MaskField::Name => &self.name,
            MaskField::Emoji => &self.emoji,
            MaskField::Profile => &self.profile,
            MaskField::Model => &self.model,
            MaskField::Temperature => &self.temperature,
            MaskField::TopP => &self.top_p,
            MaskField::MaxTokens => &self.max_tokens,
            MaskField::InputTemplate => &self.input_template,
            MaskField::Prompt(i) => self.prompts.get(i).map_or("", |p| p.content.as_str()),
            MaskField::Prompts => "",
        }
    }

    /// The mask these fields make, with `id`, and what keeps it from being saved. The mask
    /// holds everything that could be read; empty context prompts are kept here (the editor
    /// still shows them) and dropped by [`Mask::tidy`] when saving.
    pub fn read(&self, id: &str) -> (Mask, Vec<FieldError>) {
        let mut errors = Vec::new();
        let name = self.name.trim().to_string();
        if name.is_empty() {
            errors.push(err(MaskField::Name, "A mask needs a name.".into()));
        } else if name.chars().count() > MAX_NAME_CHARS {
            errors.push(err(
                MaskField::Name,
                format!("A name has at most {MAX_NAME_CHARS} characters."),
            ));
        }
        let emoji = self.emoji.trim().to_string();
        if emoji.chars().count() > MAX_EMOJI_CHARS {
            errors.push(err(
                MaskField::Emoji,
                format!("The emoji field takes at most {MAX_EMOJI_CHARS} characters."),
            ));
        }
        for (i, p) in self.prompts.iter().enumerate() {
            if p.content.chars().count() > MAX_PROMPT_CHARS {
                errors.push(err(
                    MaskField::Prompt(i),
                    format!("A prompt has at most {MAX_PROMPT_CHARS} characters."),
                ));
            }
        }
        if self.prompts.len() > MAX_CONTEXT_PROMPTS {
            errors.push(err(
                MaskField::Prompts,
                format!("A mask has at most {MAX_CONTEXT_PROMPTS} prompts."),
            ));
        }
        let profile_id = self.profile.trim();
        let model = (!profile_id.is_empty()).then(|| ModelChoice {
            profile_id: profile_id.to_string(),
            model: self.model.trim().to_string(),
        });
        // `max_text` spells `max`: printing an f64 would bring float formatting into the page.
        let mut number = |field: MaskField, label: &str, max: f64, max_text: &str| {
            let text = self.text(field).trim();
            if text.is_empty() {
                return None;
            }
            match parse_finite(text) {
                Some(v) if (0.0..=max).contains(&v) => Some(v),
                _ => {
                    errors.push(err(
                        field,
                        format!(
                            "{label} must be a number from 0 to {max_text} (it reads “{text}”)."
                        ),
                    ));
                    None
                }
            }
        };
        let temperature = number(MaskField::Temperature, "Temperature", 2.0, "2").map(|v| v as f32);
        let top_p = number(MaskField::TopP, "Top-p", 1.0, "1").map(|v| v as f32);
        let max_tokens =
            number(MaskField::MaxTokens, "Max tokens", 1e6, "1000000").map(|v| v as u32);
        let mask = Mask {
            id: id.to_string(),
            name,
            emoji,
            context: self.prompts.clone(),
            model,
            temperature,
            top_p,
            max_tokens,
            input_template: self.input_template.clone(),
        };
        (mask, errors)
    }
}

impl Mask {
    /// The mask as saved: prompts with nothing in them left out, a template that is only
    /// whitespace treated as none.
    pub fn tidy(mut self) -> Mask {
        self.context.retain(|p| !p.content.trim().is_empty());
        if self.input_template.trim().is_empty() {
            self.input_template.clear();
        }
        self
    }
}
