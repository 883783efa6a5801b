//! Chat settings: which provider to call and how. Plain data; the settings store persists it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::agent::machine::DEFAULT_STEP_LIMIT;
use crate::agent::result::DEFAULT_RESULT_CHAR_LIMIT;
use crate::agent::{ApprovalPolicy, ToolMode, ToolModeSetting};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    /// Follow the operating system (prefers-color-scheme).
    #[default]
    System,
    Light,
    Dark,
}

crate::display::names::named_enum!(Theme, "theme", {
    System => "system",
    Light => "light",
    Dark => "dark",
});

impl Theme {
    /// What the theme `<select>` says.
    pub fn label(self) -> &'static str {
        match self {
            Theme::System => "Follow the system",
            Theme::Light => "Light",
            Theme::Dark => "Dark",
        }
    }

    /// The root element's `data-theme`: none when following the system, so the stylesheet's
    /// `prefers-color-scheme` rules apply.
    pub fn data_theme(self) -> Option<&'static str> {
        match self {
            Theme::System => None,
            t => Some(t.as_str()),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ChatSettings {
    /// OpenAI-compatible base URL, e.g. `http://127.0.0.1:8080/v1`. Empty until configured.
    pub base_url: String,
    pub api_key: String,
    pub model: String,
    pub system_prompt: String,
    pub temperature: Option<f32>,
    pub top_p: Option<f32>,
    pub max_tokens: Option<u32>,
    pub theme: Theme,
    /// How tools are offered to the model (auto: native, falling back to prompt-based).
    pub tool_mode: ToolModeSetting,
    /// What auto mode observed per model (`model_key`): `native` once the model made a real
    /// native tool call, `prompt` once its server refused `tools`. A server that accepts
    /// `tools` and ignores them leaves no entry. (The stored values are the same words as
    /// before; entries written before this rule may say `native` for such a server, which
    /// changes nothing but the sentence: auto starts native without an entry too.)
    pub learned_tool_modes: BTreeMap<String, ToolMode>,
    /// Model requests per turn before the loop stops and says so.
    pub step_limit: u32,
    /// Characters of one tool result sent to the model (the user always sees it whole).
    pub result_char_limit: usize,
    /// Send image results to the model as image input (for vision models).
    pub tool_images_to_model: bool,
    /// Per server+tool approval rules, and the read-only switch.
    pub approvals: ApprovalPolicy,
}

impl Default for ChatSettings {
    fn default() -> Self {
        ChatSettings {
            base_url: String::new(),
            api_key: String::new(),
            model: String::new(),
            system_prompt: String::new(),
            temperature: None,
            top_p: None,
            max_tokens: None,
            theme: Theme::System,
            tool_mode: ToolModeSetting::Auto,
            learned_tool_modes: BTreeMap::new(),
            step_limit: DEFAULT_STEP_LIMIT,
            result_char_limit: DEFAULT_RESULT_CHAR_LIMIT,
            tool_images_to_model: false,
            approvals: ApprovalPolicy::default(),
        }
    }
}

impl ChatSettings {
    pub fn is_configured(&self) -> bool {
        !self.base_url.trim().is_empty()
    }

    /// The key auto mode remembers its finding under: the same model name on another server
    /// may support tools differently.
    pub fn model_key(&self) -> String {
        format!("{} {}", self.base_url.trim(), self.model.trim())
    }

    /// Store what auto mode observed for `model_key` (see `Action::LearnToolMode`); whether
    /// anything changed, so an unchanged finding writes nothing.
    pub fn learn_tool_mode(&mut self, model_key: String, mode: ToolMode) -> bool {
        if self.learned_tool_modes.get(&model_key) == Some(&mode) {
            return false;
        }
        self.learned_tool_modes.insert(model_key, mode);
        true
    }

    /// The tool mode for the next request, before any fallback.
    pub fn resolved_tool_mode(&self) -> ToolMode {
        match self.tool_mode {
            ToolModeSetting::Native => ToolMode::Native,
            ToolModeSetting::Prompt => ToolMode::Prompt,
            ToolModeSetting::Off => ToolMode::Off,
            ToolModeSetting::Auto => self
                .learned_tool_modes
                .get(&self.model_key())
                .copied()
                .unwrap_or(ToolMode::Native),
        }
    }
}

/// A local OpenAI-compatible server worth probing on first run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalCandidate {
    pub name: &'static str,
    pub base_url: &'static str,
}

/// The usual local servers, probed with `GET /models` on first run. Only servers that answer
/// are offered; nothing is configured behind the user's back.
pub const LOCAL_CANDIDATES: [LocalCandidate; 3] = [
    LocalCandidate {
        name: "llama.cpp",
        base_url: "http://127.0.0.1:8080/v1",
    },
    LocalCandidate {
        name: "Ollama",
        base_url: "http://127.0.0.1:11434/v1",
    },
    LocalCandidate {
        name: "LM Studio",
        base_url: "http://127.0.0.1:1234/v1",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_fields_take_defaults() {
        let s: ChatSettings = serde_json::from_str(r#"{"base_url":"http://x/v1"}"#).unwrap();
        assert_eq!(s.base_url, "http://x/v1");
        assert_eq!(s.theme, Theme::System);
        assert!(s.is_configured());
        assert!(!ChatSettings::default().is_configured());
    }

    #[test]
    fn learned_tool_modes_read_as_stored_and_learning_again_changes_nothing() {
        let stored = r#"{"base_url":"http://x/v1","model":"m","learned_tool_modes":{"http://x/v1 m":"prompt","http://y/v1 n":"native"}}"#;
        let mut s: ChatSettings = serde_json::from_str(stored).unwrap();
        assert_eq!(s.resolved_tool_mode(), ToolMode::Prompt);
        assert!(!s.learn_tool_mode(s.model_key(), ToolMode::Prompt));
        assert!(s.learn_tool_mode(s.model_key(), ToolMode::Native));
        assert_eq!(s.learned_tool_modes[&s.model_key()], ToolMode::Native);
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["learned_tool_modes"]["http://y/v1 n"], "native");
    }
}
