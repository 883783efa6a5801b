use serde_json::json;

use super::model_pick::{initial, options, remembered_key};
use crate::profiles::ProviderProfile;
use crate::records::model_choice::ModelChoice;

/// A listed model entry, as the profiles store them.
fn m(id: &str) -> serde_json::Value {
    json!({"id": id, "listed": true})
}

/// An entry kept only for a flag the user set: not offered.
fn unlisted(id: &str) -> serde_json::Value {
    json!({"id": id, "listed": false})
}

/// The user's profiles as stored (without keys).
fn profiles() -> Vec<ProviderProfile> {
    serde_json::from_value(json!([
        {"id": "p1", "name": "Local", "kind": "openai", "base_url": "http://127.0.0.1:8080/v1", "api_key": "",
         "default_model": "small", "models": [m("small"), m("tiny"), m(""), m("tiny"), unlisted("gone")]},
        {"id": "p2", "name": "Cloud <b>\u{202e}", "kind": "openai", "base_url": "https://api.example/v1", "api_key": "",
         "default_model": "", "models": [m("big")]},
        {"id": "", "name": "no id", "kind": "openai", "base_url": "", "api_key": "", "default_model": "x"}
    ]))
    .unwrap_or_else(|e| panic!("{e}"))
}

fn choice(profile_id: &str, model: &str) -> ModelChoice {
    ModelChoice {
        profile_id: profile_id.into(),
        model: model.into(),
    }
}

#[test]
fn options_list_each_profile_default_first_then_its_other_models_once() {
    let o = options(&profiles());
    let got: Vec<(&str, &str, &str)> = o
        .iter()
        .map(|o| (o.profile_id.as_str(), o.model.as_str(), o.label.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("p1", "", "Local \u{b7} small"),
            ("p1", "tiny", "Local \u{b7} tiny"),
            ("p2", "", "Cloud <b><U+202E> \u{b7} its default model"),
            ("p2", "big", "Cloud <b><U+202E> \u{b7} big"),
        ]
    );
    assert_eq!(o[1].choice(), choice("p1", "tiny"));
    assert!(options(&[]).is_empty());
    assert_eq!(
        remembered_key("everything"),
        "skiff.sampling.model.everything"
    );
}

#[test]
fn the_list_starts_on_the_remembered_choice_else_the_conversations_else_the_first() {
    let o = options(&profiles());
    let current = choice("p2", "big");
    // This server's last choice, while still offered.
    assert_eq!(initial(&o, Some(&choice("p1", "tiny")), Some(&current)), 1);
    // Gone (or none): the open conversation's.
    assert_eq!(initial(&o, Some(&choice("p9", "x")), Some(&current)), 3);
    assert_eq!(initial(&o, None, Some(&current)), 3);
    // A conversation naming its profile's default model by name is on the default entry.
    assert_eq!(initial(&o, None, Some(&choice("p1", "small"))), 0);
    // Nothing known: the first.
    assert_eq!(initial(&o, None, None), 0);
    assert_eq!(initial(&o, None, Some(&choice("p9", "x"))), 0);
}
