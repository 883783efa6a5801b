//! Chat settings: which provider to call and how. Plain data; the settings store persists it.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    /// Follow the operating system (prefers-color-scheme).
    #[default]
    System,
    Light,
    Dark,
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
        }
    }
}

impl ChatSettings {
    pub fn is_configured(&self) -> bool {
        !self.base_url.trim().is_empty()
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
}
