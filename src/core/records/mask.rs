//! A mask as a conversation and the settings store it: context prompts that open every request,
//! and optionally a model, sampling parameters and an input template (`crate::masks` holds
//! the built-in ones and the editor).
//!
//! Stored as JSON read and written by hand through `serde_json::Value`: absent fields take
//! their defaults, so older records read unchanged; a context prompt with a role this build
//! does not know is kept as a system prompt rather than lost. Empty and unset fields are left
//! out, as the derived form did.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::message::{Message, Role};
use super::model_choice::ModelChoice;
use crate::format::decimal_f32;
use crate::number::parse_finite;

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

fn text(o: &Map<String, Value>, key: &str) -> String {
    o.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

fn number(o: &Map<String, Value>, key: &str) -> Option<f64> {
    o.get(key).and_then(Value::as_f64)
}

impl TryFrom<Value> for Mask {
    type Error = String;

    fn try_from(v: Value) -> Result<Mask, String> {
        let Value::Object(o) = v else {
            return Err("a mask is not a JSON object".into());
        };
        let id = text(&o, "id");
        if id.is_empty() {
            return Err("a mask has no id".into());
        }
        let context = o
            .get("context")
            .and_then(Value::as_array)
            .map(|all| {
                all.iter()
                    .filter_map(|p| {
                        let role = match p.get("role")?.as_str()? {
                            "user" => Role::User,
                            "assistant" => Role::Assistant,
                            _ => Role::System,
                        };
                        let content = p.get("content")?.as_str()?.to_string();
                        Some(ContextPrompt { role, content })
                    })
                    .collect()
            })
            .unwrap_or_default();
        let model = o
            .get("model")
            .and_then(Value::as_object)
            .map(|m| ModelChoice {
                profile_id: text(m, "profile_id"),
                model: text(m, "model"),
            });
        Ok(Mask {
            id,
            name: text(&o, "name"),
            emoji: text(&o, "emoji"),
            context,
            model,
            temperature: number(&o, "temperature").map(|t| t as f32),
            top_p: number(&o, "top_p").map(|t| t as f32),
            max_tokens: o
                .get("max_tokens")
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok()),
            input_template: text(&o, "input_template"),
        })
    }
}

/// An `f32` as the number the user typed (0.7, not 0.699999988…).
fn short(v: f32) -> Value {
    parse_finite(&decimal_f32(v)).map_or(Value::Null, Value::from)
}

impl From<Mask> for Value {
    fn from(m: Mask) -> Value {
        let mut o = Map::new();
        let mut put = |k: &str, v: Value| {
            o.insert(k.to_string(), v);
        };
        put("id", m.id.into());
        put("name", m.name.into());
        for (k, v) in [("emoji", m.emoji), ("input_template", m.input_template)] {
            if !v.is_empty() {
                put(k, v.into());
            }
        }
        if !m.context.is_empty() {
            let prompts = m.context.into_iter().map(|p| {
                let mut e = Map::new();
                e.insert("role".into(), p.role.as_str().into());
                e.insert("content".into(), p.content.into());
                Value::Object(e)
            });
            put("context", Value::Array(prompts.collect()));
        }
        if let Some(c) = m.model {
            let mut e = Map::new();
            e.insert("profile_id".into(), c.profile_id.into());
            e.insert("model".into(), c.model.into());
            put("model", Value::Object(e));
        }
        for (k, v) in [("temperature", m.temperature), ("top_p", m.top_p)] {
            if let Some(v) = v {
                put(k, short(v));
            }
        }
        if let Some(n) = m.max_tokens {
            put("max_tokens", n.into());
        }
        Value::Object(o)
    }
}
