//! The tray machine: what a held request becomes, each answer, URL mode's consent and wait,
//! and questions withdrawn or finished out of band.

use serde_json::{json, Value};

use super::*;
use crate::mcp::held_ask::{AskReply, HeldAsk};

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

fn held(name: &str, key: u64, params: Value, raw: &str) -> HeldAsk {
    HeldAsk {
        server: SERVER.into(),
        name: name.into(),
        key,
        method: CREATE_METHOD.into(),
        params,
        raw: raw.into(),
    }
}

fn ask(tray: &mut Tray, key: u64, raw: &str) -> Vec<Effect> {
    let msg: Value = serde_json::from_str(raw).unwrap();
    tray.ask(&held("Server", key, msg["params"].clone(), raw))
}

fn added(effects: &[Effect]) -> String {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::Added { id } => Some(id.clone()),
            _ => None,
        })
        .expect("an Added")
}

fn answer(effects: &[Effect]) -> AskReply {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::Answer(a) => Some(a.clone()),
            _ => None,
        })
        .expect("an Answer")
}

fn result(effects: &[Effect]) -> Value {
    answer(effects).answer.unwrap_or_default()
}

fn names(tray: &Tray, id: &str) -> Vec<String> {
    match tray.view(id).map(|v| v.body) {
        Some(Body::Form(fields)) => fields.into_iter().map(|f| f.name).collect(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_question_shows_in_the_servers_order_with_its_defaults() {
    let mut tray = Tray::new();
    let fx = ask(&mut tray, 3, &sep1034_raw());
    assert_eq!(fx.len(), 1);
    let id = added(&fx);
    let view = tray.view(&id).unwrap();
    assert_eq!(
        (view.mode, view.server_name.as_str()),
        (Mode::Form, "Server")
    );
    // The server wrote name, age, score, status, verified; serde's map would sort them.
    assert_eq!(
        names(&tray, &id),
        ["name", "age", "score", "status", "verified"]
    );
    assert_eq!(tray.inputs(&id)[0], FieldInput::Text("John Doe".into()));
    // Accepted untouched: the defaults go back, typed.
    let fx = tray.act(&id, CardIntent::Accept);
    assert_eq!(
        answer(&fx),
        AskReply::result(
            SERVER,
            3,
            json!({"action": "accept", "content":
                {"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true}})
        )
    );
    assert_eq!(fx.last(), Some(&Effect::Removed { id: id.clone() }));
    assert!(tray.is_empty());
    // Answered once: a second click does nothing.
    assert_eq!(tray.act(&id, CardIntent::Accept), vec![]);
}

#[test]
fn a_required_field_left_empty_gets_its_sentence_and_focus() {
    let mut tray = Tray::new();
    let raw = r#"{"params": {"message": "Who?", "requestedSchema": {"type": "object",
        "properties": {"nick": {"type": "string"}, "name": {"type": "string", "title": "Name"}},
        "required": ["name"]}}}"#;
    let id = added(&ask(&mut tray, 1, raw));
    tray.set_input(&id, 0, FieldInput::Text("ada".into()));
    let fx = tray.act(&id, CardIntent::Accept);
    assert_eq!(
        fx,
        vec![Effect::Focus {
            id: id.clone(),
            field: Some(1)
        }]
    );
    let status = tray.status(&id);
    assert_eq!(status.errors, [None, Some("Name is required.".into())]);
    assert_eq!(
        status.summary.as_deref(),
        Some("1 field needs attention before the answer can be sent.")
    );
    // What the user typed is kept.
    assert_eq!(tray.inputs(&id)[0], FieldInput::Text("ada".into()));
    assert_eq!(tray.len(), 1);
    // Decline and Cancel carry no content.
    let fx = tray.act(&id, CardIntent::Decline);
    assert_eq!(result(&fx), json!({"action": "decline"}));
    let id2 = added(&ask(&mut tray, 2, raw));
    assert_eq!(
        result(&tray.act(&id2, CardIntent::Cancel)),
        json!({"action": "cancel"})
    );
    // Filled in: accepted with what was typed.
    let id3 = added(&ask(&mut tray, 3, raw));
    tray.set_input(&id3, 1, FieldInput::Text("Ada".into()));
    assert_eq!(
        result(&tray.act(&id3, CardIntent::Accept)),
        json!({"action": "accept", "content": {"name": "Ada"}})
    );
}

#[test]
fn a_schema_the_form_cannot_show_is_refused_at_once_with_a_notice() {
    let mut tray = Tray::new();
    let params = json!({"message": "x", "requestedSchema": {"type": "object",
        "properties": {"tags": {"type": "object"}}}});
    let fx = tray.ask(&held("Server\u{202e}", 9, params, ""));
    assert_eq!(
        answer(&fx),
        AskReply::error(
            SERVER,
            9,
            INVALID_PARAMS,
            "the field `tags` has the type `object`, which a form cannot ask"
        )
    );
    assert_eq!(
        fx[1],
        Effect::Notice(
            "Refused Server<U+202E>\u{2019}s request for input: the field `tags` has the type `object`, which a form cannot ask."
                .into()
        )
    );
    assert!(tray.is_empty(), "no card for a refused request");
}

#[test]
fn url_mode_opens_only_after_accept_then_waits_for_the_servers_word() {
    let mut tray = Tray::new();
    let params = json!({"mode": "url", "message": "Sign in", "url": "https://auth.example.com/x?y",
        "elicitationId": "e-1"});
    let fx = tray.ask(&held("S", 1, params, ""));
    let id = added(&fx);
    let view = tray.view(&id).unwrap();
    assert_eq!(view.mode, Mode::Url);
    assert_eq!(view.accept, "Open auth.example.com");
    // Accept asks to open; nothing is answered until the tab opened.
    let fx = tray.act(&id, CardIntent::Accept);
    assert_eq!(
        fx,
        vec![Effect::Open {
            id: id.clone(),
            url: "https://auth.example.com/x?y".into()
        }]
    );
    // A blocked pop-up: the card says so and the question stays open.
    assert_eq!(tray.opened(&id, false), vec![]);
    assert_eq!(
        tray.status(&id).open_failed,
        Some("The browser refused to open the link. Copy it from above instead.")
    );
    let fx = tray.opened(&id, true);
    assert_eq!(result(&fx), json!({"action": "accept"}));
    assert_eq!(
        fx[1],
        Effect::Focus {
            id: id.clone(),
            field: None
        }
    );
    assert_eq!(
        tray.status(&id).waiting.as_deref(),
        Some("Opened auth.example.com in a new tab (if no tab appeared, a pop-up blocker may have stopped it; the link is above). S will continue once the step there is finished.")
    );
    // Answered: the connection ending no longer takes the waiting card, and it cannot be
    // answered twice.
    assert_eq!(tray.gone(SERVER, 1), vec![]);
    assert_eq!(tray.act(&id, CardIntent::Decline), vec![]);
    assert_eq!(tray.act(&id, CardIntent::Accept), vec![]);
    assert_eq!(tray.opened(&id, true), vec![]);
    // Another server's completion of the same id is not this one's.
    assert_eq!(
        tray.complete("other", &json!({"elicitationId": "e-1"})),
        vec![]
    );
    assert_eq!(
        tray.complete(SERVER, &json!({"elicitationId": "e-1"})),
        vec![Effect::Removed { id }]
    );
}

#[test]
fn a_waiting_card_may_be_dismissed_and_an_open_one_may_not() {
    let mut tray = Tray::new();
    let params =
        json!({"mode": "url", "message": "", "url": "https://a.example/", "elicitationId": "e"});
    let id = added(&tray.ask(&held("", 1, params, "")));
    assert_eq!(
        tray.view(&id).unwrap().server_name,
        SERVER,
        "the id names a nameless server"
    );
    assert_eq!(tray.act(&id, CardIntent::Dismiss), vec![]);
    tray.opened(&id, true);
    assert_eq!(
        tray.act(&id, CardIntent::Dismiss),
        vec![Effect::Removed { id }]
    );
}

#[test]
fn a_withdrawn_question_goes_and_a_repeated_one_shows_once() {
    let mut tray = Tray::new();
    let raw = sep1034_raw();
    let id = added(&ask(&mut tray, 5, &raw));
    assert_eq!(ask(&mut tray, 5, &raw), vec![]);
    assert_eq!(tray.ids(), std::slice::from_ref(&id));
    assert_eq!(tray.gone("other", 5), vec![]);
    assert_eq!(tray.gone(SERVER, 5), vec![Effect::Removed { id }]);
    assert!(tray.is_empty());
}

#[test]
fn ticked_choices_are_kept_in_the_forms_order() {
    let mut tray = Tray::new();
    let params = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
        "many": {"type": "array", "items": {"type": "string", "enum": ["x", "y", "z"]}, "default": ["y"]}
    }}});
    let id = added(&tray.ask(&held("S", 1, params, "")));
    tray.set_choice(&id, 0, "z", true);
    tray.set_choice(&id, 0, "x", true);
    tray.set_choice(&id, 0, "y", false);
    tray.set_choice(&id, 0, "x", true);
    assert_eq!(
        tray.inputs(&id),
        [FieldInput::Many(vec!["x".into(), "z".into()])]
    );
    // Not a group of checkboxes: nothing changes.
    tray.set_choice(&id, 7, "x", true);
    assert_eq!(
        result(&tray.act(&id, CardIntent::Accept)),
        json!({"action": "accept", "content": {"many": ["x", "z"]}})
    );
}

/// The `data` of server-everything's `UrlElicitationRequiredError` (`-32042`).
fn required_data(ids: &[&str]) -> Value {
    json!({"elicitations": ids.iter().map(|id| json!({"mode": "url",
        "url": "https://modelcontextprotocol.io",
        "message": "Open this link to satisfy the prerequisite, then retry the request.",
        "elicitationId": id})).collect::<Vec<_>>()})
}

#[test]
fn a_call_refused_for_url_steps_shows_them_and_is_done_when_each_finished() {
    let error = crate::mcp::McpError::Rpc {
        code: -32042,
        message: "This request requires browser-based authorization.".into(),
        data: Some(required_data(&["a"])),
    };
    let data = super::url_steps_required(&error).expect("a -32042 error names its steps");
    let other = crate::mcp::McpError::Rpc {
        code: -32602,
        message: "bad".into(),
        data: Some(required_data(&["a"])),
    };
    assert!(super::url_steps_required(&other).is_none());

    let mut tray = Tray::new();
    let fx = tray.required(SERVER, "Everything", 7, data);
    let id = added(&fx);
    assert_eq!(fx.len(), 1, "{fx:?}");
    let view = tray.view(&id).unwrap();
    assert_eq!(view.mode, Mode::Url);
    assert_eq!(view.accept, "Open modelcontextprotocol.io");
    // Open: nothing is answered (no server request waits); the card waits.
    assert!(matches!(
        &tray.act(&id, CardIntent::Accept)[..],
        [Effect::Open { .. }]
    ));
    assert_eq!(
        tray.opened(&id, true),
        vec![Effect::Focus {
            id: id.clone(),
            field: None
        }]
    );
    let waiting = tray.status(&id).waiting.unwrap();
    assert!(
        waiting.contains("choose Dismiss") && waiting.contains("run the tool again"),
        "{waiting}"
    );
    // The user finished there: the call may go again.
    assert_eq!(
        tray.act(&id, CardIntent::Dismiss),
        vec![
            Effect::Removed { id },
            Effect::Finished {
                wait: 7,
                done: true
            }
        ]
    );
    assert!(tray.is_empty());

    // Two steps: done only when both finished, the server's word counting as finished.
    let fx = tray.required(SERVER, "Everything", 8, &required_data(&["x", "y"]));
    assert_eq!(fx.len(), 2);
    let first = tray.ids()[0].clone();
    tray.act(&first, CardIntent::Accept);
    tray.opened(&first, true);
    assert_eq!(
        tray.complete(SERVER, &json!({"elicitationId": "x"})),
        vec![Effect::Removed { id: first }]
    );
    let second = tray.ids()[0].clone();
    tray.act(&second, CardIntent::Accept);
    tray.opened(&second, true);
    let fx = tray.complete(SERVER, &json!({"elicitationId": "y"}));
    assert_eq!(
        fx.last(),
        Some(&Effect::Finished {
            wait: 8,
            done: true
        })
    );
}

#[test]
fn a_declined_url_step_ends_the_call_and_unusable_steps_are_said() {
    let mut tray = Tray::new();
    tray.required(SERVER, "S", 3, &required_data(&["x", "y"]));
    let first = tray.ids()[0].clone();
    let fx = tray.act(&first, CardIntent::Decline);
    assert_eq!(fx.len(), 3, "both cards go: {fx:?}");
    assert_eq!(
        fx.last(),
        Some(&Effect::Finished {
            wait: 3,
            done: false
        })
    );
    assert!(
        fx.iter().all(|e| !matches!(e, Effect::Answer(_))),
        "no server request to answer"
    );
    assert!(tray.is_empty());

    // A step that is not a link, or none at all: no card, a sentence, not done.
    let form = json!({"elicitations": [{"mode": "form", "message": "x",
        "requestedSchema": {"type": "object", "properties": {}}}]});
    for data in [
        form,
        json!({}),
        json!({"elicitations": [{"mode": "url", "url": "javascript:x"}]}),
    ] {
        let fx = tray.required(SERVER, "S", 4, &data);
        assert!(
            matches!(&fx[..], [Effect::Notice(n), Effect::Finished { wait: 4, done: false }] if n.starts_with("S needs a step in your browser")),
            "{fx:?}"
        );
        assert!(tray.is_empty());
    }
}

#[test]
fn an_opened_url_step_goes_once_the_calls_it_came_with_are_answered() {
    let mut t = Tray::new();
    let url = held(
        "Server",
        7,
        json!({"mode": "url", "url": "https://auth.example.com/x", "elicitationId": "e1", "message": "Sign in"}),
        "",
    );
    let form = held(
        "Server",
        8,
        json!({"message": "Name?", "requestedSchema": {"type": "object", "properties": {"n": {"type": "string"}}}}),
        "",
    );
    t.ask(&url);
    t.ask(&form);
    let ids = t.ids();
    // Not opened yet: the question still needs the user's answer, so it stays.
    assert!(t.settled(SERVER, 7).is_empty());
    assert!(matches!(
        &t.act(&ids[0], CardIntent::Accept)[..],
        [Effect::Open { .. }]
    ));
    t.opened(&ids[0], true);
    assert!(t.status(&ids[0]).waiting.is_some());
    // Another server's, or another question's, end changes nothing.
    assert!(t.settled("other", 7).is_empty());
    assert!(t.settled(SERVER, 8).is_empty());
    assert_eq!(t.len(), 2);
    assert_eq!(
        t.settled(SERVER, 7),
        vec![Effect::Removed { id: ids[0].clone() }]
    );
    assert_eq!(t.ids(), vec![ids[1].clone()]);
}
