//! The tray machine: what an `ask` becomes, each click's answer, URL mode's consent and wait,
//! and questions withdrawn or finished out of band.

use serde_json::{json, Value};

use super::*;

const SERVER: &str = "srv";

fn sep1034_raw() -> String {
    // The suite's `elicitation-sep1034-client-defaults` question, as the message text (a
    // literal: `json!` would sort the keys, and their order is what is tested).
    r#"{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{
        "message":"Test client default value handling - please accept with defaults",
        "requestedSchema":{"type":"object","properties":{
            "name":{"type":"string","default":"John Doe"},
            "age":{"type":"integer","default":30},
            "score":{"type":"number","default":95.5},
            "status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},
            "verified":{"type":"boolean","default":true}
        }}}}"#
        .to_string()
}

fn ask(tray: &mut Tray, key: Value, raw: &str) -> Vec<Effect> {
    let msg: Value = serde_json::from_str(raw).unwrap();
    tray.ask(SERVER, "Server", key, &msg["params"], raw)
}

fn added(effects: &[Effect]) -> (String, String) {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::Add { id, html, .. } => Some((id.clone(), html.clone())),
            _ => None,
        })
        .expect("an Add")
}

fn answer(effects: &[Effect]) -> Value {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::Answer(a) => Some(a.clone()),
            _ => None,
        })
        .expect("an Answer")
}

/// The form's values as the browser would submit them from the card's HTML as drawn: the
/// defaults (checked boxes, selected options, input values) of the sep1034 card.
fn default_pairs() -> Vec<(String, String)> {
    [
        ("f0", "John Doe"),
        ("f1", "30"),
        ("f2", "95.5"),
        ("f3", "active"),
        ("f4", "on"),
    ]
    .map(|(n, v)| (n.to_string(), v.to_string()))
    .to_vec()
}

#[test]
fn a_question_shows_in_the_servers_order_with_its_defaults_and_focus() {
    let mut tray = Tray::new();
    let fx = ask(&mut tray, json!(3), &sep1034_raw());
    assert_eq!(fx.len(), 1);
    let Effect::Add {
        id,
        mode,
        server_name,
        html,
        focus,
    } = &fx[0]
    else {
        panic!("{fx:?}")
    };
    assert_eq!(
        (*mode, server_name.as_str(), *focus),
        ("form", "Server", true)
    );
    // The server wrote name, age, score, status, verified; serde's map would sort them.
    let at = |f: &str| html.find(&format!("data-field=\"{f}\"")).unwrap();
    assert!(at("name") < at("age") && at("age") < at("score") && at("status") < at("verified"));
    assert!(html.contains("value=\"John Doe\""), "{html}");
    assert!(html.contains(&format!("id=\"{id}-title\"")));
    // Accepted untouched: the defaults go back, typed.
    let fx = tray.act(id, "accept", &default_pairs());
    assert_eq!(
        answer(&fx),
        json!({"server": SERVER, "key": 3, "result": {"action": "accept", "content":
            {"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true}}})
    );
    assert_eq!(fx.last(), Some(&Effect::Remove { id: id.clone() }));
    assert!(tray.is_empty());
    // Answered once: a second click does nothing.
    assert_eq!(tray.act(id, "accept", &default_pairs()), vec![]);
}

#[test]
fn a_required_field_left_empty_is_redrawn_with_its_sentence_and_focused() {
    let mut tray = Tray::new();
    let raw = r#"{"params": {"message": "Who?", "requestedSchema": {"type": "object",
        "properties": {"nick": {"type": "string"}, "name": {"type": "string", "title": "Name"}},
        "required": ["name"]}}}"#;
    let (id, _) = added(&ask(&mut tray, json!("k"), raw));
    let typed = vec![("f0".to_string(), "ada".to_string())];
    let fx = tray.act(&id, "accept", &typed);
    let [Effect::Draw { html, focus, .. }] = fx.as_slice() else {
        panic!("{fx:?}")
    };
    assert_eq!(focus.as_deref(), Some(format!("{id}-f1").as_str()));
    assert!(html.contains("Name is required."), "{html}");
    // What the user typed is kept in the redrawn card.
    assert!(html.contains("value=\"ada\""), "{html}");
    assert_eq!(tray.len(), 1);
    // Decline and Cancel carry no content.
    let fx = tray.act(&id, "decline", &[]);
    assert_eq!(answer(&fx)["result"], json!({"action": "decline"}));
    let (id2, _) = added(&ask(&mut tray, json!("k2"), raw));
    assert_eq!(
        answer(&tray.act(&id2, "cancel", &[]))["result"],
        json!({"action": "cancel"})
    );
}

#[test]
fn a_schema_the_form_cannot_show_is_refused_at_once_with_a_notice() {
    let mut tray = Tray::new();
    let raw = json!({"params": {"message": "x", "requestedSchema": {"type": "object",
        "properties": {"tags": {"type": "object"}}}}})
    .to_string();
    let fx = ask(&mut tray, json!(9), &raw);
    let a = answer(&fx);
    assert_eq!(a["key"], 9);
    assert_eq!(a["error"]["code"], INVALID_PARAMS);
    assert_eq!(
        a["error"]["message"],
        "the field `tags` has the type `object`, which a form cannot ask"
    );
    let (id, html) = added(&fx);
    assert!(html.contains("role=\"alert\""), "{html}");
    assert!(html.contains("Refused"), "{html}");
    assert!(matches!(
        &fx[1],
        Effect::Add {
            mode: "notice",
            focus: false,
            ..
        }
    ));
    // Only Dismiss does anything to a notice.
    assert_eq!(tray.act(&id, "accept", &[]), vec![]);
    assert_eq!(tray.act(&id, "dismiss", &[]), vec![Effect::Remove { id }]);
    assert!(tray.is_empty());
}

#[test]
fn server_text_in_the_notice_is_escaped() {
    let mut tray = Tray::new();
    let params = json!({"mode": "nope<b>"});
    let fx = tray.ask(SERVER, "<img src=x>", json!(1), &params, "");
    let (_, html) = added(&fx);
    assert!(!html.contains("<img") && !html.contains("<b>"), "{html}");
    assert!(html.contains("&lt;img src=x&gt;"), "{html}");
}

#[test]
fn url_mode_opens_only_after_accept_then_waits_for_the_servers_word() {
    let mut tray = Tray::new();
    let params = json!({"mode": "url", "message": "Sign in", "url": "https://auth.example.com/x?y",
        "elicitationId": "e-1"});
    let fx = tray.ask(SERVER, "S", json!(1), &params, "");
    assert!(matches!(&fx[0], Effect::Add { mode: "url", .. }));
    let (id, html) = added(&fx);
    assert!(html.contains("auth.example.com"), "{html}");
    // Accept asks to open; nothing is answered until the tab opened.
    let fx = tray.act(&id, "accept", &[]);
    assert_eq!(
        fx,
        vec![Effect::Open {
            id: id.clone(),
            url: "https://auth.example.com/x?y".into()
        }]
    );
    // A blocked pop-up: the card says so and the question stays open.
    let fx = tray.opened(&id, false);
    let [Effect::Draw { html, .. }] = fx.as_slice() else {
        panic!("{fx:?}")
    };
    assert!(html.contains("refused to open"), "{html}");
    let fx = tray.opened(&id, true);
    assert_eq!(answer(&fx)["result"], json!({"action": "accept"}));
    let Effect::Draw { html, focus, .. } = &fx[1] else {
        panic!("{fx:?}")
    };
    assert!(html.contains("elicit-waiting") && html.contains("data-act=\"dismiss\""));
    assert_eq!(focus.as_deref(), Some(id.as_str()));
    // Answered: the connection ending no longer takes the waiting card, and it cannot be
    // answered twice.
    assert_eq!(tray.gone(SERVER, &json!(1)), vec![]);
    assert_eq!(tray.act(&id, "decline", &[]), vec![]);
    assert_eq!(tray.opened(&id, true), vec![]);
    // Another server's completion of the same id is not this one's.
    assert_eq!(
        tray.complete("other", &json!({"elicitationId": "e-1"})),
        vec![]
    );
    assert_eq!(
        tray.complete(SERVER, &json!({"elicitationId": "e-1"})),
        vec![Effect::Remove { id }]
    );
}

#[test]
fn a_waiting_card_may_be_dismissed_and_an_open_one_may_not() {
    let mut tray = Tray::new();
    let params =
        json!({"mode": "url", "message": "", "url": "https://a.example/", "elicitationId": "e"});
    let (id, _) = added(&tray.ask(SERVER, "", json!(1), &params, ""));
    assert_eq!(tray.act(&id, "dismiss", &[]), vec![]);
    tray.opened(&id, true);
    assert_eq!(tray.act(&id, "dismiss", &[]), vec![Effect::Remove { id }]);
}

#[test]
fn a_withdrawn_question_goes_and_a_repeated_one_shows_once() {
    let mut tray = Tray::new();
    let raw = sep1034_raw();
    let (id, _) = added(&ask(&mut tray, json!(5), &raw));
    assert_eq!(ask(&mut tray, json!(5), &raw), vec![]);
    assert_eq!(tray.gone("other", &json!(5)), vec![]);
    assert_eq!(tray.gone(SERVER, &json!(5)), vec![Effect::Remove { id }]);
    assert!(tray.is_empty());
}

#[test]
fn effects_read_as_the_module_expects() {
    let e = Effect::Open {
        id: "elicit-1".into(),
        url: "https://x.example/".into(),
    };
    assert_eq!(
        e.to_json(),
        json!({"do": "open", "id": "elicit-1", "url": "https://x.example/"})
    );
    let e = Effect::Draw {
        id: "a".into(),
        html: "<p></p>".into(),
        focus: None,
    };
    assert_eq!(
        e.to_json(),
        json!({"do": "draw", "id": "a", "html": "<p></p>", "focus": null})
    );
}
