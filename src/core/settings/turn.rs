//! A turn's effective settings, resolved once: the user's settings with the conversation's
//! model (its own choice, else the last used, else the first profile), its mask's sampling,
//! input template and context prompts, and its project's instructions.
//!
//! It exists so that what a turn is built from is one typed value decided here and carried by
//! the runner to every request of the turn (the agent loop's steps, the request view, the
//! context gauge, a title or summary after it), instead of each caller resolving the model,
//! then the mask, then the project at different moments and the request assembly reading the
//! pieces back. Plain data: it reads no store and no clock.

use super::{ChatSettings, DEFAULT_SYSTEM_TEMPLATE};
use crate::projects::Project;
use crate::records::capabilities::Flag;
use crate::records::mask::Mask;
use crate::records::model_choice::ModelChoice;
use crate::records::tool_mode::ToolModeSetting;

/// The system template a small model gets instead of the default one (when the user kept the
/// default): a sentence, not a page of instructions it would lose the question under.
///
/// Its words are measured, not guessed: SmolLM2-135M-Instruct (Q4_1), rendered by its GGUF's
/// own Jinja template in native llama.cpp with the server's samplers (temperature 0.8, top-k 40,
/// top-p 0.95, min-p 0.05), eight one-fact questions × ten seeds. "Answer briefly." tipped it
/// into French on "What is the capital of France?" even greedy ("Le Grand Paris is…"): 40/80
/// right, 14 answers opening in French, 5/8 greedy. Asking for one short sentence: 49/80 right,
/// 1 in French, 6/8 greedy, and "The capital of France is Paris." (The worker's own samplers,
/// which have no min-p: 36 → 39/80 right, 17 → 4 in French.) The words name no language,
/// so a user writing in another one is not pushed into English.
pub const SHORT_SYSTEM_TEMPLATE: &str =
    "You are a helpful assistant. Answer the question in one short sentence.";

/// Defaults that fit the model (issue 31): its real window bounds the request and the gauge,
/// and a small model gets the short template and no tool instructions, unless the user set a
/// template of their own or said the model takes tools (the picker's Tools flag). A small
/// model is not asked for titles either: in the page it has one worker, so a title request
/// after the first answer made the user's next question wait seconds behind it, for a title
/// worse than the first line the conversation already has ("Title now" still asks).
fn fit_to_model(settings: &mut ChatSettings) {
    let caps = settings.target.caps;
    if let Some(window) = caps.window.filter(|w| *w > 0) {
        settings.context_window = settings.context_window.min(window);
    }
    if caps.is_small() {
        if settings.system_template == DEFAULT_SYSTEM_TEMPLATE {
            settings.system_template = SHORT_SYSTEM_TEMPLATE.to_string();
        }
        if caps.tools != Flag::User(true) {
            settings.tool_mode = ToolModeSetting::Off;
        }
        settings.auto_title = false;
    }
}

/// The settings one turn of one conversation is built from ([`TurnSettings::resolve`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TurnSettings {
    /// The user's settings with [`ChatSettings::target`] resolved for the conversation and the
    /// mask's sampling and input template applied: what the provider, the agent loop and a
    /// side request read.
    pub settings: ChatSettings,
    /// The conversation's mask, whose context prompts open every request.
    pub mask: Option<Mask>,
    /// The instructions of the conversation's project as the model receives them; empty
    /// outside a project or when the project was deleted since.
    pub project_instructions: String,
}

impl TurnSettings {
    /// The settings of a turn in a conversation that chose `model` (or nothing), started from
    /// `mask` and sits in the project with id `project`. The target is resolved from the
    /// profiles (with no profile it stays empty, and building the request fails with a
    /// sentence before anything is sent); the rest is [`TurnSettings::with_target`].
    pub fn resolve(
        settings: &ChatSettings,
        model: Option<&ModelChoice>,
        mask: Option<&Mask>,
        project: Option<&str>,
    ) -> TurnSettings {
        TurnSettings::with_target(settings.for_conversation(model), mask, project)
    }

    /// The turn's settings from `settings` whose target is already the conversation's: the
    /// mask's sampling overrides the target's and its input template the settings' one, and
    /// the project's instructions are looked up once. A project deleted since adds nothing.
    pub fn with_target(
        mut settings: ChatSettings,
        mask: Option<&Mask>,
        project: Option<&str>,
    ) -> TurnSettings {
        if let Some(m) = mask {
            let t = &mut settings.target;
            t.temperature = m.temperature.or(t.temperature);
            t.top_p = m.top_p.or(t.top_p);
            t.max_tokens = m.max_tokens.or(t.max_tokens);
            if !m.input_template.trim().is_empty() {
                settings.input_template = m.input_template.clone();
            }
        }
        fit_to_model(&mut settings);
        let project_instructions = crate::projects::find(&settings.projects, project)
            .map(Project::instructions_text)
            .unwrap_or_default();
        TurnSettings {
            settings,
            mask: mask.cloned(),
            project_instructions,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profiles::ProviderProfile;
    use crate::provider::ProviderKind;
    use crate::records::capabilities::{Capabilities, ModelEntry, Which};

    fn with_model(caps: Capabilities) -> ChatSettings {
        let mut p = ProviderProfile::new("here".into(), ProviderKind::InBrowser);
        p.sync_stored_models(vec![ModelEntry::new("m", caps)]);
        ChatSettings {
            profiles: vec![p],
            ..ChatSettings::default()
        }
    }

    fn small() -> Capabilities {
        Capabilities {
            window: Some(2048),
            parameters: Some(134_515_008),
            chat_template: Some(true),
            ..Capabilities::default()
        }
    }

    #[test]
    fn the_models_window_bounds_the_turn_not_the_conversations_setting() {
        let s = with_model(small());
        assert!(
            s.context_window > 2048,
            "the setting is larger: {}",
            s.context_window
        );
        let turn = TurnSettings::resolve(&s, None, None, None);
        assert_eq!(turn.settings.context_window, 2048);
        // A smaller setting of the user's own stays.
        let mut tight = s.clone();
        tight.context_window = 1024;
        assert_eq!(
            TurnSettings::resolve(&tight, None, None, None)
                .settings
                .context_window,
            1024
        );
    }

    #[test]
    fn a_small_model_gets_the_short_template_and_no_tools_unless_the_user_says_so() {
        let s = with_model(small());
        let turn = TurnSettings::resolve(&s, None, None, None).settings;
        assert_eq!(turn.system_template, SHORT_SYSTEM_TEMPLATE);
        assert_eq!(turn.tool_mode, ToolModeSetting::Off);
        assert!(!turn.auto_title, "a small model is not asked for titles");

        // The user said it takes tools (the picker's flag): the tools are offered.
        let mut told = s.clone();
        told.profiles[0].set_capability("m", Which::Tools, Some(true));
        let turn = TurnSettings::resolve(&told, None, None, None).settings;
        assert_eq!(turn.tool_mode, ToolModeSetting::Auto);
        assert_eq!(turn.system_template, SHORT_SYSTEM_TEMPLATE);

        // A template of the user's own is theirs.
        let mut own = s.clone();
        own.system_template = "Mine: {{time}}".into();
        assert_eq!(
            TurnSettings::resolve(&own, None, None, None)
                .settings
                .system_template,
            "Mine: {{time}}"
        );
    }

    #[test]
    fn a_large_or_unknown_model_keeps_the_defaults() {
        for parameters in [Some(7_000_000_000), None] {
            let s = with_model(Capabilities {
                parameters,
                ..small()
            });
            let turn = TurnSettings::resolve(&s, None, None, None).settings;
            assert_eq!(turn.system_template, DEFAULT_SYSTEM_TEMPLATE);
            assert_eq!(turn.tool_mode, ToolModeSetting::Auto);
            assert!(turn.auto_title);
        }
    }
}
