//! Masks: a named starting point for a conversation (NextChat's "masks"): context prompts
//! that open every request after the recap, and optionally a model, sampling parameters and
//! an input template.
//!
//! A conversation started from a mask keeps its own copy (`Conversation::mask`), so editing or
//! deleting the mask later changes no conversation already under way. The user's masks are
//! stored with the settings (`ChatSettings::masks`); the built-in ones are code and can only
//! be duplicated, never changed, so an update can improve them.
//!
//! Never performs IO and never invents ids: a new mask's id comes from the caller.

mod form;
mod panel;
mod record;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::chat::{Message, Role};
use crate::profiles::ModelChoice;

pub use form::{FieldError, MaskDraft, MaskEdit, MaskField, PROMPT_ROLES};
pub use panel::{
    MaskEditor, MaskFocus, MaskIntent, MaskPanel, MaskRow, MaskView, Outcome, PromptRow, RowAction,
};

/// Limits that keep a mask a prompt, not a document store (masks live in the settings
/// record, which is read at every start).
pub const MAX_NAME_CHARS: usize = 60;
pub const MAX_EMOJI_CHARS: usize = 8;
pub const MAX_CONTEXT_PROMPTS: usize = 40;
pub const MAX_PROMPT_CHARS: usize = 20_000;
/// Ids of built-in masks start with this; a user's mask never does.
pub const BUILTIN_PREFIX: &str = "builtin-";

/// One message a mask puts before the conversation.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextPrompt {
    pub role: Role,
    pub content: String,
}

/// Stored as JSON through [`serde_json::Value`] (`record.rs`): a derived visitor per field
/// costs the page more than reading the few fields by hand.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(try_from = "serde_json::Value", into = "serde_json::Value")]
pub struct Mask {
    pub id: String,
    pub name: String,
    pub emoji: String,
    pub context: Vec<ContextPrompt>,
    /// The profile and model a conversation started from this mask uses (`None`: the one
    /// the user would get anyway).
    pub model: Option<ModelChoice>,
    /// Overrides of the profile's sampling; `None` keeps the profile's.
    pub temperature: Option<f32>,
    pub top_p: Option<f32>,
    pub max_tokens: Option<u32>,
    /// Wraps each user message (`{{input}}`); empty keeps the settings' input template.
    pub input_template: String,
}

impl Mask {
    pub fn is_builtin(&self) -> bool {
        self.id.starts_with(BUILTIN_PREFIX)
    }

    /// "🌐 Translator", or the name alone.
    pub fn label(&self) -> String {
        match self.emoji.trim() {
            "" => self.name.clone(),
            e => format!("{e} {}", self.name),
        }
    }

    /// A copy the user owns, named so the two can be told apart.
    pub fn duplicate(&self, id: String) -> Mask {
        Mask {
            id,
            name: format!("{} (copy)", self.name),
            ..self.clone()
        }
    }

    /// The context prompts as the messages a request carries, dated `at` (they are not part
    /// of the conversation the user sees, so their ids say where they come from).
    pub fn context_messages(&self, at: f64) -> Vec<Message> {
        self.context
            .iter()
            .filter(|p| !p.content.trim().is_empty())
            .enumerate()
            .map(|(i, p)| Message::new(format!("mask-{i}"), p.role, p.content.clone(), at))
            .collect()
    }
}

fn builtin(id: &str, emoji: &str, name: &str, temperature: Option<f32>, system: &str) -> Mask {
    Mask {
        id: format!("{BUILTIN_PREFIX}{id}"),
        name: name.into(),
        emoji: emoji.into(),
        context: vec![ContextPrompt {
            role: Role::System,
            content: system.into(),
        }],
        temperature,
        ..Mask::default()
    }
}

/// The masks every Skiff has: short, general, and useful with small local models too.
pub fn builtins() -> Vec<Mask> {
    vec![
        builtin(
            "translator",
            "🌐",
            "Translator",
            Some(0.3),
            "You are a translator. Translate the user's text into English, or into the language \
             they name. Keep the formatting, code, names and numbers as they are. Reply with the \
             translation only.",
        ),
        builtin(
            "editor",
            "✍️",
            "Writing editor",
            None,
            "You are an editor. Improve the clarity, grammar and flow of the text the user gives \
             you while keeping their voice and meaning. Reply with the edited text, then a short \
             list of the main changes.",
        ),
        builtin(
            "reviewer",
            "🔍",
            "Code reviewer",
            Some(0.2),
            "You review code. List bugs, security problems and unclear parts first, the most \
             serious first, each with the line it concerns and a concrete fix. Be brief about \
             style.",
        ),
        builtin(
            "teacher",
            "🎓",
            "Patient teacher",
            None,
            "You are a patient teacher. Explain step by step in plain words, starting from what \
             the user already knows; use a small example for every new idea, and end with one \
             question that checks understanding.",
        ),
    ]
}

/// The mask with `id`: one of the user's, else a built-in one.
pub fn find(user: &[Mask], id: &str) -> Option<Mask> {
    user.iter()
        .find(|m| m.id == id)
        .cloned()
        .or_else(|| builtins().into_iter().find(|m| m.id == id))
}
