use serde_json::json;

use super::model_pick::{initial, options, picker_html};

/// A listed model entry, as the profiles store them.
fn m(id: &str) -> serde_json::Value {
    json!({"id": id, "listed": true})
}

/// An entry kept only for a flag the user set: not offered.
fn unlisted(id: &str) -> serde_json::Value {
    json!({"id": id, "listed": false})
}

fn listing() -> serde_json::Value {
    json!({
        "current": {"profile_id": "p2", "model": "big"},
        "profiles": [
            {"id": "p1", "name": "Local", "kind": "openai", "base_url": "http://127.0.0.1:8080/v1", "api_key": "",
             "default_model": "small", "models": [m("small"), m("tiny"), m(""), m("tiny"), unlisted("gone")]},
            {"id": "p2", "name": "Cloud <b>", "kind": "openai", "base_url": "https://api.example/v1", "api_key": "",
             "default_model": "", "models": [m("big")]},
            {"id": "", "name": "no id", "kind": "openai", "base_url": "", "api_key": "", "default_model": "x"},
            {"id": "p3", "kind": "no such kind"}
        ]
    })
}

#[test]
fn options_list_each_profile_default_first_then_its_other_models_once() {
    let o = options(&listing());
    let got: Vec<(&str, &str, &str)> = o
        .iter()
        .map(|o| (o.profile_id.as_str(), o.model.as_str(), o.label.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("p1", "", "Local \u{b7} small"),
            ("p1", "tiny", "Local \u{b7} tiny"),
            ("p2", "", "Cloud <b> \u{b7} its default model"),
            ("p2", "big", "Cloud <b> \u{b7} big"),
        ]
    );
    assert_eq!(o[1].choice(), json!({"profile_id": "p1", "model": "tiny"}));
    assert!(options(&json!({})).is_empty());
    // As the page sends them: the profiles as JSON text.
    let mut as_text = listing();
    as_text["profiles"] = json!(as_text["profiles"].to_string());
    assert_eq!(options(&as_text), o);
    as_text["profiles"] = json!("not json");
    assert!(options(&as_text).is_empty());
}

#[test]
fn the_list_starts_on_the_remembered_choice_else_the_conversations_else_the_first() {
    let l = listing();
    let o = options(&l);
    // This server's last choice, while still offered.
    assert_eq!(
        initial(&o, &json!({"profile_id": "p1", "model": "tiny"}), &l),
        1
    );
    // Gone (or none): the open conversation's.
    assert_eq!(
        initial(&o, &json!({"profile_id": "p9", "model": "x"}), &l),
        3
    );
    assert_eq!(initial(&o, &serde_json::Value::Null, &l), 3);
    // A conversation naming its profile's default model by name is on the default entry.
    let mut named = l.clone();
    named["current"] = json!({"profile_id": "p1", "model": "small"});
    assert_eq!(initial(&o, &serde_json::Value::Null, &named), 0);
    // Nothing known: the first.
    let mut none = l;
    none["current"] = serde_json::Value::Null;
    assert_eq!(initial(&o, &serde_json::Value::Null, &none), 0);
}

#[test]
fn the_picker_is_a_labelled_select_with_the_start_selected_and_names_escaped() {
    let o = options(&listing());
    let h = picker_html("ask-s1", &o, 3);
    assert!(h.starts_with(r#"<p class="ask-model"><label for="ask-s1-model">Answer with </label><select id="ask-s1-model" name="model">"#), "{h}");
    assert!(
        h.contains(r#"<option value="3" selected>Cloud &lt;b&gt; · big</option>"#),
        "{h}"
    );
    assert!(
        h.contains(r#"<option value="0">Local · small</option>"#),
        "{h}"
    );
    assert_eq!(h.matches("selected").count(), 1);
    assert_eq!(picker_html("ask-s1", &[], 0), "");
}
