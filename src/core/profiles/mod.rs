//! Provider profiles: the several model servers a user configured, each with its own kind,
//! address, key, default model and sampling, and which one (and which model) a request uses.
//!
//! A conversation may name a profile and a model (`Conversation::model`); [`resolve`] turns
//! that, the last-used choice and the profiles into the one [`Target`] a request is built from.
//! A key lives only in its own profile and reaches a request only through the `Target` resolved
//! from that profile, so a key can only travel to its own profile's base URL (the request
//! builders join every URL onto it; `HttpRequest::carries_credentials` keeps redirects from
//! taking it elsewhere).
//!
//! Never performs IO and never invents ids: a new profile's id comes from the caller.

pub mod migrate;

use serde::{Deserialize, Serialize};

use crate::http::origin_of;
use crate::provider::{ProviderKind, ReasoningEffort};

use crate::records::capabilities::{Capabilities, Flag, ModelEntry, Which};
use crate::records::model_choice::ModelChoice;

/// One configured provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderProfile {
    /// Stable id, referred to by conversations and the last-used choice.
    pub id: String,
    /// What the user calls it ("Work Anthropic", "llama.cpp").
    pub name: String,
    pub kind: ProviderKind,
    /// Base URL, e.g. `http://127.0.0.1:8080/v1`. The key is sent here and nowhere else.
    pub base_url: String,
    #[serde(default)]
    pub api_key: String,
    /// The model a conversation uses when it names only this profile (or nothing at all).
    #[serde(default)]
    pub default_model: String,
    #[serde(default)]
    pub temperature: Option<f32>,
    #[serde(default)]
    pub top_p: Option<f32>,
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// Thinking tokens for Anthropic and Gemini profiles (`ChatParams::thinking_budget`).
    /// Absent in records written before it, and left out while unset, so they stay as they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_budget: Option<u32>,
    /// `reasoning_effort` for OpenAI-compatible profiles; absent while unset, like the budget.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<ReasoningEffort>,
    /// The models this profile's API listed last time (the picker's cache), with what the API
    /// reported about each and what the user set. Entries the user set flags on stay even when
    /// a refreshed list no longer names them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<ModelEntry>,
    /// A cheaper model of this provider for titles and summaries (side requests); empty: the
    /// conversation's own model ([`crate::settings::ChatSettings::for_side_request`]).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub summary_model: String,
}

impl ProviderProfile {
    /// A new, empty profile of `kind` (its base URL the kind's usual address, if it has one).
    pub fn new(id: String, kind: ProviderKind) -> Self {
        let base_url = kind.base_url_after_switch("");
        ProviderProfile {
            id,
            name: String::new(),
            kind,
            base_url,
            api_key: String::new(),
            default_model: String::new(),
            temperature: None,
            top_p: None,
            max_tokens: None,
            thinking_budget: None,
            reasoning_effort: None,
            models: Vec::new(),
            summary_model: String::new(),
        }
    }

    /// The profile a local server found on first run becomes (`ui::onboarding`): named for
    /// the server, its first model the default, its list the picker's cache.
    pub fn found_locally(id: String, name: &str, base_url: &str, models: Vec<ModelEntry>) -> Self {
        let mut p = ProviderProfile::new(id, ProviderKind::OpenAiCompatible);
        p.name = name.to_string();
        p.base_url = base_url.to_string();
        p.default_model = models.first().map(|m| m.id.clone()).unwrap_or_default();
        p.refresh_models(models);
        p
    }

    /// The name to show: the one the user gave, else the address's host, else the kind.
    pub fn display_name(&self) -> String {
        let typed = self.name.trim();
        if !typed.is_empty() {
            return typed.to_string();
        }
        name_from_url(&self.base_url).unwrap_or_else(|| self.kind.label().to_string())
    }

    /// What the profile says about `model`: reported by its API, set by the user, or unknown.
    pub fn capabilities(&self, model: &str) -> Capabilities {
        self.models
            .iter()
            .find(|m| m.id == model)
            .map(|m| m.caps)
            .unwrap_or_default()
    }

    /// The user says `model` has (or lacks) one capability; a model the list never named gets
    /// an entry so the flag is kept.
    pub fn set_capability(&mut self, model: &str, which: Which, value: Option<bool>) {
        let model = model.trim();
        if model.is_empty() {
            return;
        }
        let entry = match self.models.iter().position(|m| m.id == model) {
            Some(i) => &mut self.models[i],
            None => {
                self.models.push(ModelEntry {
                    id: model.to_string(),
                    caps: Capabilities::default(),
                    listed: false,
                });
                let last = self.models.len() - 1;
                &mut self.models[last]
            }
        };
        *entry.caps.get_mut(which) = match value {
            Some(v) => Flag::User(v),
            None => Flag::Unknown,
        };
    }

    /// A fresh listing from the API: it replaces the cache, keeping every flag the user set
    /// (and the entries that carry one).
    pub fn refresh_models(&mut self, listed: Vec<ModelEntry>) {
        let old = std::mem::take(&mut self.models);
        let mut next: Vec<ModelEntry> = listed
            .into_iter()
            .map(|mut m| {
                m.listed = true;
                if let Some(prev) = old.iter().find(|o| o.id == m.id) {
                    m.caps = m.caps.keeping_user(prev.caps);
                }
                m
            })
            .collect();
        for prev in old {
            if prev.caps.any_user() && !next.iter().any(|m| m.id == prev.id) {
                next.push(ModelEntry {
                    listed: false,
                    ..prev
                });
            }
        }
        self.models = next;
    }

    /// The address or kind changed: the cached list belonged to the old server (flags the
    /// user set stay, unlisted).
    pub fn forget_listing(&mut self) {
        self.models.retain(|m| m.caps.any_user());
        for m in &mut self.models {
            m.listed = false;
        }
    }

    /// The ids the picker lists for this profile: what the API listed.
    /// How the picker names `model` of this profile ([`model_label`]).
    pub fn model_label(&self, model: &str) -> String {
        model_label(
            self.kind,
            &self.display_name(),
            model,
            self.capabilities(model),
        )
    }

    /// The models stored in this browser, as the model worker lists them (newest first),
    /// become this in-page profile's list at once, so the picker offers a model as soon as it
    /// is stored and never one deleted; a default naming a deleted model is forgotten.
    /// Whether anything changed.
    pub fn sync_stored_models(&mut self, stored: Vec<ModelEntry>) -> bool {
        let before = (self.models.clone(), self.default_model.clone());
        // Newest first, as the worker lists them: the picker's first is the worker's default.
        self.refresh_models(stored);
        let default = self.default_model.trim();
        if !default.is_empty() && !self.listed_models().any(|m| m == default) {
            self.default_model.clear();
        }
        before != (self.models.clone(), self.default_model.clone())
    }

    pub fn listed_models(&self) -> impl Iterator<Item = &str> {
        self.models
            .iter()
            .filter(|m| m.listed)
            .map(|m| m.id.as_str())
    }
}

/// `host[:port]` of a URL, the name a profile gets when the user gave none.
pub fn name_from_url(url: &str) -> Option<String> {
    let origin = origin_of(url)?;
    let (_, host) = origin.split_once("://")?;
    Some(host.to_string()).filter(|h| !h.is_empty())
}

/// Everything one request needs about where it goes, resolved from a profile and a model.
/// Never stored: it is rebuilt from the profiles for every request.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Target {
    pub profile_id: String,
    pub profile_name: String,
    pub kind: ProviderKind,
    pub base_url: String,
    /// The key of `profile_id`'s profile, and no other.
    pub api_key: String,
    pub model: String,
    pub temperature: Option<f32>,
    pub top_p: Option<f32>,
    pub max_tokens: Option<u32>,
    /// The profile's budget, for the kinds that take one (see [`ProviderKind`]'s request
    /// builders); another kind's setting never reaches a request.
    pub thinking_budget: Option<u32>,
    pub reasoning_effort: Option<ReasoningEffort>,
    pub caps: Capabilities,
}

impl Target {
    pub fn from_profile(p: &ProviderProfile, model: &str) -> Self {
        let model = match model.trim() {
            "" => p.default_model.trim(),
            m => m,
        };
        // The in-page model with nothing chosen answers with the newest stored model (the
        // worker's own rule, and the list is newest first): naming it lets the chat say which.
        let model = match (model, p.kind) {
            ("", ProviderKind::InBrowser) => p.listed_models().next().unwrap_or(""),
            (m, _) => m,
        };
        Target {
            profile_id: p.id.clone(),
            profile_name: p.display_name(),
            kind: p.kind,
            base_url: p.base_url.clone(),
            api_key: p.api_key.clone(),
            model: model.to_string(),
            temperature: p.temperature,
            top_p: p.top_p,
            max_tokens: p.max_tokens,
            thinking_budget: p.thinking_budget.filter(|_| p.kind.takes_thinking_budget()),
            reasoning_effort: p
                .reasoning_effort
                .filter(|_| p.kind == ProviderKind::OpenAiCompatible),
            caps: p.capabilities(model),
        }
    }

    /// The choice that names this target (what a conversation remembers).
    pub fn choice(&self) -> ModelChoice {
        ModelChoice {
            profile_id: self.profile_id.clone(),
            model: self.model.clone(),
        }
    }

    /// "model · profile", what the chat header's picker says ("In this browser · model" for
    /// the in-page model: see [`model_label`]).
    pub fn label(&self) -> String {
        model_label(self.kind, &self.profile_name, &self.model, self.caps)
    }

    /// The new conversation's line: which model answers, and where.
    pub fn chatting_line(&self) -> String {
        match self.kind {
            ProviderKind::InBrowser if self.model.is_empty() => {
                "The model in this browser has no model stored yet: add one in Settings → Providers.".to_string()
            }
            ProviderKind::InBrowser => {
                let mut line = format!(
                    "Chatting with {}, which runs on this device and works offline.",
                    self.label()
                );
                if self.caps.chat_template == Some(false) {
                    line.push_str(BASE_MODEL_SENTENCE);
                }
                line
            }
            _ => {
                let model = if self.model.is_empty() {
                    "the server's default model"
                } else {
                    self.model.as_str()
                };
                format!("Chatting with {model} at {}.", self.base_url)
            }
        }
    }
}

/// Said of a model whose file has no chat template, before it is used.
pub const BASE_MODEL_SENTENCE: &str = " It is a base model (its file has no chat template): it continues text rather than answering, so expect odd replies.";

/// How a model is named in the picker and the chat: "qwen2.5 · Local llama.cpp", and for the
/// in-page model "In this browser · SmolLM2-135M-Instruct" (its address, `in-browser://model`,
/// means nothing to a person). A model known to have no chat template is named a base model.
pub fn model_label(
    kind: ProviderKind,
    profile_name: &str,
    model: &str,
    caps: Capabilities,
) -> String {
    let base = if caps.chat_template == Some(false) {
        " (base model)"
    } else {
        ""
    };
    if kind == ProviderKind::InBrowser {
        let model = if model.is_empty() {
            "newest stored model"
        } else {
            model
        };
        return format!("{} · {model}{base}", kind.label());
    }
    let model = if model.is_empty() {
        "default model"
    } else {
        model
    };
    format!("{model}{base} · {profile_name}")
}

/// What a request uses, and a sentence when the conversation's own choice could not be kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolution {
    pub target: Target,
    /// Set when the conversation named a profile that no longer exists.
    pub note: Option<String>,
}

/// The conversation's choice if its profile still exists, else the last used, else the first
/// profile with its default model. `None` when there is no profile at all.
pub fn resolve(
    profiles: &[ProviderProfile],
    last_used: Option<&ModelChoice>,
    conversation: Option<&ModelChoice>,
) -> Option<Resolution> {
    let find = |c: &ModelChoice| {
        profiles
            .iter()
            .find(|p| p.id == c.profile_id)
            .map(|p| Target::from_profile(p, &c.model))
    };
    if let Some(target) = conversation.and_then(find) {
        return Some(Resolution { target, note: None });
    }
    let target = last_used
        .and_then(find)
        .or_else(|| profiles.first().map(|p| Target::from_profile(p, "")))?;
    let note = conversation.map(|c| {
        let model = if c.model.is_empty() {
            String::new()
        } else {
            format!(" ({})", c.model)
        };
        format!(
            "The provider this conversation used{model} was deleted; it now uses {}.",
            target.label()
        )
    });
    Some(Resolution { target, note })
}

#[cfg(test)]
mod tests;
