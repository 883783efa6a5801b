//! Chat settings: the provider profiles, the last-used model, and how to chat. Plain data;
//! the settings store persists it.

use crate::projects::Project;
use crate::records::mask::Mask;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

mod turn;

pub use turn::{TurnSettings, SHORT_SYSTEM_TEMPLATE};

use crate::persist::{self, PersistError, SETTINGS_VERSION};
use crate::profiles;
use crate::profiles::{ProviderProfile, Resolution, Target};
use crate::provider::{ChatParams, Provider, ProviderError, ProviderKind};
use crate::records::approval::ApprovalPolicy;
use crate::records::capabilities::ModelEntry;
use crate::records::model_choice::ModelChoice;
use crate::records::tool_mode::{ToolMode, ToolModeSetting};
use crate::tools::result::DEFAULT_RESULT_CHAR_LIMIT;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    /// Follow the operating system (prefers-color-scheme).
    #[default]
    System,
    Light,
    Dark,
}

crate::names::named_enum!(Theme, "theme", {
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
    /// The configured providers (format 2; format 1's one flat provider became the first,
    /// `profiles::migrate`).
    pub profiles: Vec<ProviderProfile>,
    /// The profile and model chosen or used last: what a conversation that chose nothing uses.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_used: Option<ModelChoice>,
    /// Where the request being built goes, resolved from `profiles` for one conversation
    /// ([`ChatSettings::for_conversation`], through [`TurnSettings::resolve`]). Never stored;
    /// empty in the stored settings.
    #[serde(skip)]
    pub target: Target,
    pub system_prompt: String,
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
    /// The user's masks (`masks`), newest first; the built-in ones are not stored.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub masks: Vec<Mask>,
    /// The user's projects (`projects`), in the order the sidebar shows them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub projects: Vec<Project>,
}

pub use crate::provider::DEFAULT_SILENCE_LIMIT_S;

/// Model requests per turn unless the user set another limit.
pub const DEFAULT_STEP_LIMIT: u32 = 15;

/// Messages a request carries at most, before the budget (NextChat's `historyMessageCount`).
pub const DEFAULT_HISTORY_COUNT: usize = 32;
/// The context window assumed until the user sets the model's real one: small enough for the
/// local models most people start with, and a request it trims still makes sense.
pub const DEFAULT_CONTEXT_WINDOW: u32 = 16_384;

/// What the default system template tells every model: who it is talking through, the date,
/// time and time zone (models otherwise guess from their training data), and how to write
/// math so that Skiff renders it.
pub const DEFAULT_SYSTEM_TEMPLATE: &str =
    "You are a helpful assistant, talking with the user through Skiff, a chat app in their browser.
Current model: {{model}} ({{ServiceProvider}}). Knowledge cutoff: {{cutoff}}.
Current date and time: {{time}}.
The user's language: {{lang}}.
Write math in LaTeX: inline as \\(x^2\\), display as $$e = mc^2$$.";

/// The default input template: the user's words, unchanged.
pub const DEFAULT_INPUT_TEMPLATE: &str = "{{input}}";

impl Default for ChatSettings {
    fn default() -> Self {
        ChatSettings {
            profiles: Vec::new(),
            last_used: None,
            target: Target::default(),
            system_prompt: String::new(),
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
            masks: Vec::new(),
            projects: Vec::new(),
        }
    }
}

impl ChatSettings {
    /// How long a started answer may be silent, in ms (at least one second).
    pub fn silence_limit_ms(&self) -> f64 {
        f64::from(self.silence_limit_s.max(1)) * 1000.0
    }

    /// The provider of the resolved target (`ChatSettings::for_conversation`): one profile's
    /// kind, address and key, with the model and sampling it resolved to. No other profile's
    /// key can reach it. `Err(InvalidBaseUrl)` before anything is sent.
    pub fn provider(&self) -> Result<Provider, ProviderError> {
        let t = &self.target;
        let params = ChatParams {
            model: t.model.trim().to_string(),
            temperature: t.temperature,
            top_p: t.top_p,
            max_tokens: t.max_tokens,
            thinking_budget: t.thinking_budget,
            reasoning_effort: t.reasoning_effort,
            reasoning_model: t.caps.reasoning.value() == Some(true),
            tool_required: false,
            stop: Vec::new(),
        };
        Ok(Provider::new(t.kind, &t.base_url, &t.api_key, params)?
            .with_silence_limit_ms(self.silence_limit_ms()))
    }

    /// Whether any profile has an address to send to.
    pub fn is_configured(&self) -> bool {
        // The in-browser model has no address to type: a profile of its kind is set up.
        self.profiles
            .iter()
            .any(|p| !p.kind.is_remote() || !p.base_url.trim().is_empty())
    }

    /// Which profile and model a conversation that chose `choice` uses (`profiles::resolve`).
    pub fn resolution(&self, choice: Option<&ModelChoice>) -> Option<Resolution> {
        profiles::resolve(&self.profiles, self.last_used.as_ref(), choice)
    }

    /// These settings with [`ChatSettings::target`] resolved for a conversation that chose
    /// `choice`: what every request of that conversation is built from. With no profile the
    /// target stays empty, and building a request fails with a sentence before anything is sent.
    pub fn for_conversation(&self, choice: Option<&ModelChoice>) -> ChatSettings {
        let mut out = self.clone();
        out.target = self
            .resolution(choice)
            .map(|r| r.target)
            .unwrap_or_default();
        out
    }

    /// The settings a title or summary request of this conversation goes with: the same
    /// provider, with its summary model when the profile names one (a cheaper model for text
    /// nobody reads closely), else the conversation's own.
    pub fn for_side_request(&self) -> ChatSettings {
        let mut out = self.clone();
        let side = self
            .profiles
            .iter()
            .find(|p| p.id == self.target.profile_id)
            .map(|p| p.summary_model.trim())
            .filter(|m| !m.is_empty());
        if let Some(m) = side {
            out.target.model = m.to_string();
        }
        out
    }

    /// Every in-page profile lists exactly the models stored in this browser
    /// ([`ProviderProfile::sync_stored_models`]). Whether anything changed.
    pub fn sync_stored_models(&mut self, stored: &[ModelEntry]) -> bool {
        let mut changed = false;
        for p in &mut self.profiles {
            if p.kind == ProviderKind::InBrowser {
                changed |= p.sync_stored_models(stored.to_vec());
            }
        }
        changed
    }

    /// The newcomer chose the model in this page (the welcome screen): the in-page profile
    /// (made with `new_id` when there is none) becomes what conversations use.
    pub fn use_in_page_model(&mut self, new_id: String) -> bool {
        let id = match self
            .profiles
            .iter()
            .find(|p| p.kind == ProviderKind::InBrowser)
        {
            Some(p) => p.id.clone(),
            None => {
                self.profiles.push(ProviderProfile::new(
                    new_id.clone(),
                    ProviderKind::InBrowser,
                ));
                new_id
            }
        };
        self.use_choice(ModelChoice {
            profile_id: id,
            model: String::new(),
        });
        true
    }

    /// Whether the welcome screen offers the model in this page: with nothing configured once
    /// no local server answered, and while the in-page model a conversation would use has no
    /// model stored (its download under way shows there, in place).
    pub fn offers_in_page_model(
        &self,
        choice: Option<&ModelChoice>,
        no_local_server: bool,
    ) -> bool {
        if !self.is_configured() {
            return no_local_server;
        }
        self.resolution(choice)
            .is_some_and(|r| r.target.kind == ProviderKind::InBrowser && r.target.model.is_empty())
    }

    pub fn profile_mut(&mut self, id: &str) -> Option<&mut ProviderProfile> {
        self.profiles.iter_mut().find(|p| p.id == id)
    }

    /// The user picked (or a turn used) `choice`: it becomes the default of conversations that
    /// chose nothing. Whether anything changed.
    pub fn use_choice(&mut self, choice: ModelChoice) -> bool {
        if self.last_used.as_ref() == Some(&choice) {
            return false;
        }
        self.last_used = Some(choice);
        true
    }

    /// The key auto mode remembers its finding under: the same model name on another server
    /// may support tools differently.
    pub fn model_key(&self) -> String {
        format!(
            "{} {}",
            self.target.base_url.trim(),
            self.target.model.trim()
        )
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

    /// Whether image results go to the model: the user asked, and the model is not known to
    /// lack vision.
    pub fn images_to_model(&self) -> bool {
        self.tool_images_to_model && self.target.caps.vision.value() != Some(false)
    }

    /// The tool mode for the next request, before any fallback.
    pub fn resolved_tool_mode(&self) -> ToolMode {
        // A model the user (or its API) says takes no tools gets none, whatever the setting.
        if self.target.caps.tools.value() == Some(false) {
            return ToolMode::Off;
        }
        match self.tool_mode {
            ToolModeSetting::Native => ToolMode::Native,
            ToolModeSetting::Prompt => ToolMode::Prompt,
            ToolModeSetting::Off => ToolMode::Off,
            ToolModeSetting::Auto => self
                .learned_tool_modes
                .get(&self.model_key())
                .copied()
                // Small models in the page call tools through the prompt only (the model
                // worker has no tool-call grammar); asking natively would only be refused.
                .unwrap_or(match self.target.kind {
                    ProviderKind::InBrowser => ToolMode::Prompt,
                    _ => ToolMode::Native,
                }),
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

/// The settings as stored (`persist::SETTINGS_KEY`), in the versioned envelope.
pub fn encode_settings(s: &ChatSettings) -> String {
    persist::encode(SETTINGS_VERSION, s)
}

/// Stored settings read back; formats 0 and 1 (one flat provider) become profiles
/// (`profiles::migrate`), a newer format is refused rather than saved over.
pub fn decode_settings(raw: &str) -> Result<ChatSettings, PersistError> {
    const WHAT: &str = "settings";
    let (version, data) = persist::open(raw, WHAT)?;
    persist::check_known(version, SETTINGS_VERSION, WHAT)?;
    // Versions 0 and 1 share a shape: one provider in flat fields.
    let data = if version < 2 {
        profiles::migrate::settings_v1_to_v2(data)
    } else {
        data
    };
    persist::payload(data, WHAT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::ProviderKind;
    use crate::settings::decode_settings;

    #[test]
    fn missing_fields_take_defaults() {
        // A format-1 value as an early build stored it: only a base URL.
        let s = decode_settings(r#"{"v":1,"data":{"base_url":"http://x/v1"}}"#).unwrap();
        assert_eq!(s.profiles[0].base_url, "http://x/v1");
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
        let stored = r#"{"v":1,"data":{"base_url":"http://x/v1","model":"m","learned_tool_modes":{"http://x/v1 m":"prompt","http://y/v1 n":"native"}}}"#;
        let mut s = decode_settings(stored).unwrap().for_conversation(None);
        assert_eq!(
            s.model_key(),
            "http://x/v1 m",
            "keyed by base URL and model as before"
        );
        assert_eq!(s.resolved_tool_mode(), ToolMode::Prompt);
        assert!(!s.learn_tool_mode(s.model_key(), ToolMode::Prompt));
        assert!(s.learn_tool_mode(s.model_key(), ToolMode::Native));
        assert_eq!(s.learned_tool_modes[&s.model_key()], ToolMode::Native);
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["learned_tool_modes"]["http://y/v1 n"], "native");
        assert!(
            json.get("target").is_none(),
            "the resolved target is never stored"
        );
    }

    #[test]
    fn a_model_without_tools_gets_none_whatever_the_setting() {
        let mut s = decode_settings(
            r#"{"v":1,"data":{"base_url":"http://x/v1","model":"m","tool_mode":"native"}}"#,
        )
        .unwrap();
        assert_eq!(
            s.for_conversation(None).resolved_tool_mode(),
            ToolMode::Native
        );
        s.profiles[0].set_capability("m", crate::records::capabilities::Which::Tools, Some(false));
        assert_eq!(s.for_conversation(None).resolved_tool_mode(), ToolMode::Off);
        s.profiles[0].set_capability("m", crate::records::capabilities::Which::Tools, None);
        assert_eq!(
            s.for_conversation(None).resolved_tool_mode(),
            ToolMode::Native
        );
    }

    #[test]
    fn a_new_kind_round_trips_and_an_unknown_kind_is_refused() {
        let mut s = ChatSettings::default();
        s.profiles
            .push(ProviderProfile::new("a".into(), ProviderKind::Anthropic));
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains(r#""kind":"anthropic","#), "{json}");
        assert_eq!(serde_json::from_str::<ChatSettings>(&json).unwrap(), s);
        // A kind from a newer build must not be read as another wire format: the value is
        // unreadable, and the settings store keeps it aside rather than misreading it.
        assert!(
            decode_settings(r#"{"v":1,"data":{"provider":"mistral","base_url":"http://x"}}"#)
                .is_err()
        );
        assert!(decode_settings(
            r#"{"v":2,"data":{"profiles":[{"id":"a","name":"","kind":"mistral","base_url":""}]}}"#
        )
        .is_err());
    }
}
