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
#[cfg(test)]
mod tests;

use crate::records::mask::{ContextPrompt, Mask, BUILTIN_PREFIX};
use crate::records::message::Role;

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
