//! The mask editor's values (`(name, value)` pairs as the browser submits the form) → a
//! mask, with a sentence for each field that cannot be used as typed.

use super::{MAX_CONTEXT_PROMPTS, MAX_EMOJI_CHARS, MAX_NAME_CHARS, MAX_PROMPT_CHARS};
use crate::number::parse_finite;
use crate::records::mask::{ContextPrompt, Mask};
use crate::records::message::Role;
use crate::records::model_choice::ModelChoice;

/// One field the editor marks, with what to do about it.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldError {
    /// The control's `name` (`content` errors name the prompt: `content3`).
    pub field: String,
    pub message: String,
    /// What was typed, where the mask cannot hold it (a number field's text), so the editor
    /// shows it again instead of losing it.
    pub typed: String,
}

fn err(field: &str, message: String) -> FieldError {
    FieldError {
        field: field.to_string(),
        message,
        typed: String::new(),
    }
}

/// Reads the editor's values into a mask with `id`. The mask holds everything that could be
/// read (so the editor can be drawn again without losing what was typed); the errors say what
/// keeps it from being saved. Empty context prompts are dropped, not refused.
pub fn mask_from_pairs(id: &str, pairs: &[(String, String)]) -> (Mask, Vec<FieldError>) {
    let get = |name: &str| {
        pairs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    };
    let all = |name: &'static str| pairs.iter().filter(move |(n, _)| n == name).map(|(_, v)| v);
    let mut errors = Vec::new();
    let name = get("name").trim().to_string();
    if name.is_empty() {
        errors.push(err("name", "A mask needs a name.".into()));
    } else if name.chars().count() > MAX_NAME_CHARS {
        errors.push(err(
            "name",
            format!("A name has at most {MAX_NAME_CHARS} characters."),
        ));
    }
    let emoji = get("emoji").trim().to_string();
    if emoji.chars().count() > MAX_EMOJI_CHARS {
        errors.push(err(
            "emoji",
            format!("The emoji field takes at most {MAX_EMOJI_CHARS} characters."),
        ));
    }
    let mut context = Vec::new();
    for (i, (role, content)) in all("role").zip(all("content")).enumerate() {
        let role = match role.as_str() {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            _ => Role::System,
        };
        if content.chars().count() > MAX_PROMPT_CHARS {
            errors.push(err(
                &format!("content{i}"),
                format!("A prompt has at most {MAX_PROMPT_CHARS} characters."),
            ));
        }
        context.push(ContextPrompt {
            role,
            content: content.clone(),
        });
    }
    if context.len() > MAX_CONTEXT_PROMPTS {
        errors.push(err(
            "add",
            format!("A mask has at most {MAX_CONTEXT_PROMPTS} prompts."),
        ));
    }
    let profile_id = get("profile").trim();
    let model = (!profile_id.is_empty()).then(|| ModelChoice {
        profile_id: profile_id.to_string(),
        model: get("model").trim().to_string(),
    });
    // `max_text` spells `max`: printing an f64 would bring float formatting into the page.
    let mut number = |field: &'static str, label: &str, max: f64, max_text: &str| -> Option<f64> {
        let text = get(field).trim();
        if text.is_empty() {
            return None;
        }
        match parse_finite(text) {
            Some(v) if (0.0..=max).contains(&v) => Some(v),
            _ => {
                errors.push(FieldError {
                    typed: text.to_string(),
                    ..err(
                        field,
                        format!(
                            "{label} must be a number from 0 to {max_text} (it reads “{text}”)."
                        ),
                    )
                });
                None
            }
        }
    };
    let temperature = number("temperature", "Temperature", 2.0, "2").map(|v| v as f32);
    let top_p = number("top_p", "Top-p", 1.0, "1").map(|v| v as f32);
    let max_tokens = number("max_tokens", "Max tokens", 1e6, "1000000").map(|v| v as u32);
    let mask = Mask {
        id: id.to_string(),
        name,
        emoji,
        context,
        model,
        temperature,
        top_p,
        max_tokens,
        input_template: get("input_template").to_string(),
    };
    (mask, errors)
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
