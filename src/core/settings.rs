//! Chat settings: which provider to call and how. Plain data; the settings store persists it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::agent::machine::DEFAULT_STEP_LIMIT;
use crate::agent::result::DEFAULT_RESULT_CHAR_LIMIT;
use crate::agent::{ApprovalPolicy, ToolMode, ToolModeSetting};
use crate::pipeline::context::{DEFAULT_CONTEXT_WINDOW, DEFAULT_HISTORY_COUNT};
use crate::pipeline::template::{DEFAULT_INPUT_TEMPLATE, DEFAULT_SYSTEM_TEMPLATE};
use crate::provider::ProviderKind;

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
    /// Which wire format `base_url` speaks. Settings stored before this field existed decode
    /// as OpenAI-compatible, the only kind there was (`#[serde(default)]` above).
    pub provider: ProviderKind,
    /// Base URL, e.g. `http://127.0.0.1:8080/v1`. Empty until configured.
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
    /// Seconds without a byte, once an answer has started, after which it is given up as
    /// stalled (the partial answer is kept). A server that stops mid-answer otherwise leaves
    /// the page waiting forever with no word.
    pub silence_limit_s: u32,
    /// Whether the system template opens every request.
    pub system_template_enabled: bool,
    /// The system template (`pipeline::template`): date, time, model, how to write math.
    pub system_template: String,
    /// What each user message is wrapped in for the model (`{{input}}` is the message).
    pub input_template: String,
    /// The model's context window in tokens, which bounds what a request carries.
    pub context_window: u32,
    /// Messages a request carries at most.
    pub history_count: u32,
    /// Ask the model for a short title after the first exchange.
    pub auto_title: bool,
    /// Summarize older messages when the next request would leave some out (compaction).
    pub auto_compact: bool,
    /// NextChat's running memory: summarize whenever this many characters are unsummarized
    /// (`None`: off).
    pub memory_threshold_chars: Option<u32>,
}

/// The default for [`ChatSettings::silence_limit_s`]: long enough for a slow local model
/// between tokens, short enough that a dead stream is said within a minute.
pub const DEFAULT_SILENCE_LIMIT_S: u32 = 60;

impl Default for ChatSettings {
    fn default() -> Self {
        ChatSettings {
            provider: ProviderKind::OpenAiCompatible,
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
            silence_limit_s: DEFAULT_SILENCE_LIMIT_S,
            system_template_enabled: true,
            system_template: DEFAULT_SYSTEM_TEMPLATE.to_string(),
            input_template: DEFAULT_INPUT_TEMPLATE.to_string(),
            context_window: DEFAULT_CONTEXT_WINDOW,
            history_count: DEFAULT_HISTORY_COUNT as u32,
            auto_title: true,
            auto_compact: true,
            memory_threshold_chars: None,
        }
    }
}

impl ChatSettings {
    /// How long a started answer may be silent, in ms (at least one second).
    pub fn silence_limit_ms(&self) -> f64 {
        f64::from(self.silence_limit_s.max(1)) * 1000.0
    }

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
        // Settings stored before the silence limit existed get the default one.
        assert_eq!(s.silence_limit_s, DEFAULT_SILENCE_LIMIT_S);
        assert_eq!(s.silence_limit_ms(), 60_000.0);
        let zero = ChatSettings {
            silence_limit_s: 0,
            ..ChatSettings::default()
        };
        assert_eq!(
            zero.silence_limit_ms(),
            1_000.0,
            "never zero: that would give up at once"
        );
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

    /// Settings as a build before the provider kind stored them (every field of that time).
    const STORED_BEFORE_PROVIDER_KIND: &str = r#"{"base_url":"http://127.0.0.1:8080/v1","api_key":"k","model":"m","system_prompt":"Be brief.","temperature":0.5,"top_p":null,"max_tokens":256,"theme":"dark","tool_mode":"auto","learned_tool_modes":{},"step_limit":7,"result_char_limit":900,"tool_images_to_model":true,"approvals":{"rules":{},"allow_read_only":true}}"#;

    #[test]
    fn settings_stored_before_the_provider_kind_decode_unchanged_as_openai_compatible() {
        let s: ChatSettings = serde_json::from_str(STORED_BEFORE_PROVIDER_KIND).unwrap();
        assert_eq!(s.provider, ProviderKind::OpenAiCompatible);
        assert_eq!(s.base_url, "http://127.0.0.1:8080/v1");
        assert_eq!(s.api_key, "k");
        assert_eq!(s.model, "m");
        assert_eq!(s.system_prompt, "Be brief.");
        assert_eq!(s.temperature, Some(0.5));
        assert_eq!(s.max_tokens, Some(256));
        assert_eq!(s.theme, Theme::Dark);
        assert_eq!((s.step_limit, s.result_char_limit), (7, 900));
        assert!(s.tool_images_to_model);
        assert!(s.approvals.allow_read_only);
        // Written back, every old field keeps its value; the new one is added, and older
        // builds ignore it.
        let written = serde_json::to_value(&s).unwrap();
        assert_eq!(written["provider"], "openai");
        let old: serde_json::Value = serde_json::from_str(STORED_BEFORE_PROVIDER_KIND).unwrap();
        for (key, value) in old.as_object().unwrap() {
            assert_eq!(&written[key], value, "{key}");
        }
    }

    #[test]
    fn provider_kind_round_trips_and_an_unknown_kind_is_refused() {
        let s = ChatSettings {
            provider: ProviderKind::Anthropic,
            ..ChatSettings::default()
        };
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.starts_with(r#"{"provider":"anthropic","#), "{json}");
        assert_eq!(serde_json::from_str::<ChatSettings>(&json).unwrap(), s);
        // A kind from a newer build must not be read as another wire format: the value is
        // unreadable, and the settings store keeps it aside rather than misreading it.
        assert!(serde_json::from_str::<ChatSettings>(r#"{"provider":"mistral"}"#).is_err());
    }
}
