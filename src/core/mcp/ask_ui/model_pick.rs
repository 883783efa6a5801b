//! Which of the user's models answers a server's sampling request (issue 13 item 8: "a
//! provider the user chose for sampling, or the conversation's").
//!
//! The card offers each provider profile's default model and the models its API listed, and
//! starts on the one this server was last answered with (remembered by the page), else the
//! open conversation's, else the first. The chosen [`ModelChoice`] goes to the sampling
//! runner; an empty `model` means the profile's default, as in a conversation's choice.

use crate::display::text;
use crate::profiles::ProviderProfile;
use crate::records::model_choice::ModelChoice;

/// The "Answer with" list's label.
pub const LABEL: &str = "Answer with ";

/// The localStorage key of the model that answered `server` last (JSON of a [`ModelChoice`]).
pub fn remembered_key(server: &str) -> String {
    format!("skiff.sampling.model.{server}")
}

/// One entry of the "Answer with" list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelOption {
    pub profile_id: String,
    /// Empty: the profile's default model.
    pub model: String,
    pub label: String,
}

impl ModelOption {
    /// The choice the runner resolves.
    pub fn choice(&self) -> ModelChoice {
        ModelChoice {
            profile_id: self.profile_id.clone(),
            model: self.model.clone(),
        }
    }

    fn is(&self, choice: &ModelChoice) -> bool {
        choice.profile_id == self.profile_id && choice.model == self.model
    }
}

/// The options, in the profiles' order: for each, its default model (named when set) then
/// every other model its API listed. A profile without an id is left out.
pub fn options(profiles: &[ProviderProfile]) -> Vec<ModelOption> {
    let mut out = Vec::new();
    for p in profiles {
        if p.id.is_empty() {
            continue;
        }
        let name = text::name(&p.display_name()).into_owned();
        let default = p.default_model.trim();
        out.push(ModelOption {
            profile_id: p.id.clone(),
            model: String::new(),
            label: if default.is_empty() {
                format!("{name} \u{b7} its default model")
            } else {
                format!("{name} \u{b7} {}", text::name(default))
            },
        });
        for m in p.listed_models().map(str::trim) {
            if m.is_empty()
                || m == default
                || out.iter().any(|o| o.profile_id == p.id && o.model == m)
            {
                continue;
            }
            out.push(ModelOption {
                profile_id: p.id.clone(),
                model: m.to_string(),
                label: format!("{name} \u{b7} {}", text::name(m)),
            });
        }
    }
    out
}

/// Where the list starts: `remembered` (this server's last choice) if it is still offered,
/// else the conversation's `current`, else the first. A `current` naming the profile's default
/// model by name matches that profile's default entry.
pub fn initial(
    options: &[ModelOption],
    remembered: Option<&ModelChoice>,
    current: Option<&ModelChoice>,
) -> usize {
    if let Some(i) = remembered.and_then(|r| options.iter().position(|o| o.is(r))) {
        return i;
    }
    let Some(current) = current else {
        return 0;
    };
    if let Some(i) = options.iter().position(|o| o.is(current)) {
        return i;
    }
    // A conversation naming its profile's default model by name: that profile's default entry
    // (whose label names the same model).
    options
        .iter()
        .position(|o| {
            o.profile_id == current.profile_id
                && o.model.is_empty()
                && o.label.ends_with(&format!(" \u{b7} {}", current.model))
        })
        .unwrap_or(0)
}
