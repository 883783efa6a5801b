//! A turn's effective settings, resolved once: the user's settings with the conversation's
//! model (its own choice, else the last used, else the first profile), its mask's sampling,
//! input template and context prompts, and its project's instructions.
//!
//! It exists so that what a turn is built from is one typed value decided here and carried by
//! the runner to every request of the turn (the agent loop's steps, the request view, the
//! context gauge, a title or summary after it), instead of each caller resolving the model,
//! then the mask, then the project at different moments and the request assembly reading the
//! pieces back. Plain data: it reads no store and no clock.

use super::ChatSettings;
use crate::projects::Project;
use crate::records::mask::Mask;
use crate::records::model_choice::ModelChoice;

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
