//! Which of the user's models answers a server's sampling request (issue 13 item 8: "a
//! provider the user chose for sampling, or the conversation's").
//!
//! The page lists its provider profiles (`skiff_host("models")`: `{"current": {profile_id,
//! model} | null, "profiles": "[ProviderProfile as stored, without keys]" (JSON text)}`); the
//! card offers
//! each profile's default model and the models its API listed, and starts on the one this
//! server was last answered with (remembered by the module), else the open conversation's,
//! else the first. The chosen `{profile_id, model}` goes into the host `sample` argument as
//! `choice`; an empty `model` means the profile's default, as in a conversation's choice.

use serde::Deserialize;
use serde_json::{json, Value};

use crate::display::text;
use crate::html::Html;
use crate::profiles::ProviderProfile;

/// One entry of the "Answer with" list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelOption {
    pub profile_id: String,
    /// Empty: the profile's default model.
    pub model: String,
    pub label: String,
}

impl ModelOption {
    /// The `choice` of the host `sample` argument.
    pub fn choice(&self) -> Value {
        json!({"profile_id": self.profile_id, "model": self.model})
    }

    fn is(&self, choice: &Value) -> bool {
        let s = |k: &str| choice.get(k).and_then(Value::as_str).unwrap_or("");
        s("profile_id") == self.profile_id && s("model") == self.model
    }
}

/// The options of the host's `models` answer, in its profiles' order: for each, its default
/// model (named when set) then every other model its API listed. Unreadable profiles are
/// left out.
pub fn options(listing: &Value) -> Vec<ModelOption> {
    let mut out = Vec::new();
    // The page sends them as text (its stored form); an array is read the same.
    let profiles = match &listing["profiles"] {
        Value::String(text) => serde_json::from_str(text).unwrap_or(Value::Null),
        v => v.clone(),
    };
    for p in profiles.as_array().into_iter().flatten() {
        let Ok(p) = ProviderProfile::deserialize(p) else {
            continue;
        };
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
pub fn initial(options: &[ModelOption], remembered: &Value, listing: &Value) -> usize {
    if let Some(i) = options.iter().position(|o| o.is(remembered)) {
        return i;
    }
    let current = &listing["current"];
    if let Some(i) = options.iter().position(|o| o.is(current)) {
        return i;
    }
    // A conversation naming its profile's default model by name: that profile's default entry
    // (whose label names the same model).
    let profile = current["profile_id"].as_str().unwrap_or("");
    let model = current["model"].as_str().unwrap_or("");
    options
        .iter()
        .position(|o| {
            o.profile_id == profile
                && o.model.is_empty()
                && o.label.ends_with(&format!(" \u{b7} {model}"))
        })
        .unwrap_or(0)
}

/// The labelled `<select name="model">` (option values are indexes into [`options`]); ""
/// when there is nothing to choose from (the card's own sentence says a model is needed).
pub fn picker_html(card_id: &str, options: &[ModelOption], selected: usize) -> String {
    if options.is_empty() {
        return String::new();
    }
    let id = format!("{card_id}-model");
    let mut h = Html::new();
    h.open("p").attr("class", "ask-model").body();
    h.open("label")
        .attr("for", &id)
        .body()
        .text("Answer with ")
        .close("label");
    h.open("select")
        .attr("id", &id)
        .attr("name", "model")
        .body();
    for (i, o) in options.iter().enumerate() {
        h.open("option")
            .attr("value", &i.to_string())
            .flag("selected", i == selected)
            .body()
            .text(&o.label)
            .close("option");
    }
    h.close("select").close("p");
    h.finish()
}
