//! The card's view-model: every control with its label, description and start value, the
//! sentences after an Accept that did not validate, and what a hostile server's text becomes.

use serde_json::{json, Value};

use super::*;
use crate::mcp::held_ask::HeldAsk;

fn held(name: &str, params: Value) -> HeldAsk {
    HeldAsk {
        server: "s".into(),
        name: name.into(),
        key: 1,
        method: CREATE_METHOD.into(),
        params,
        raw: String::new(),
    }
}

fn every_kind() -> Value {
    json!({
        "message": "Tell me",
        "requestedSchema": {"type": "object", "properties": {
            "a_email": {"type": "string", "format": "email", "title": "Email", "description": "Work address"},
            "b_n": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
            "c_ok": {"type": "boolean", "default": true},
            "d_color": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}], "default": "g"},
            "e_many": {"type": "array", "items": {"type": "string", "enum": ["x", "y", "z"]}, "default": ["y"]}
        }, "required": ["a_email"]}
    })
}

fn card(tray: &mut Tray, name: &str, params: Value) -> String {
    match tray.ask(&held(name, params)).as_slice() {
        [Effect::Added { id }] => id.clone(),
        other => panic!("{other:?}"),
    }
}

fn fields(tray: &Tray, id: &str) -> Vec<FieldView> {
    match tray.view(id).map(|v| v.body) {
        Some(Body::Form(f)) => f,
        other => panic!("{other:?}"),
    }
}

fn choice(value: &str, label: &str) -> ChoiceView {
    ChoiceView {
        value: value.into(),
        label: label.into(),
    }
}

#[test]
fn a_form_card_has_every_control_with_its_start_value_label_and_description() {
    let mut tray = Tray::new();
    let id = card(&mut tray, "everything", every_kind());
    let v = tray.view(&id).unwrap();
    assert_eq!(v.server_name, "everything");
    assert_eq!(v.message, "Tell me");
    assert_eq!(v.accept, "Accept");
    assert_eq!(ASKS, " asks for input");
    let f = fields(&tray, &id);
    assert_eq!(
        f[0],
        FieldView {
            name: "a_email".into(),
            label: "Email".into(),
            description: Some("Work address".into()),
            required: true,
            control: Control::Text {
                input_type: "email",
                min_len: None,
                max_len: None
            }
        }
    );
    assert_eq!(
        f[1].control,
        Control::Number {
            step: "1",
            min: Some("1".into()),
            max: Some("10".into())
        }
    );
    assert_eq!(f[2].control, Control::Checkbox);
    assert_eq!(
        f[3].control,
        Control::Select(vec![
            choice("", "(choose)"),
            choice("r", "Red"),
            choice("g", "Green")
        ])
    );
    assert_eq!(
        f[4].control,
        Control::Checkboxes(vec![choice("x", "x"), choice("y", "y"), choice("z", "z")])
    );
    assert_eq!(f[4].label, "e_many", "no title: the name");
    assert_eq!(
        tray.inputs(&id),
        [
            FieldInput::Text(String::new()),
            FieldInput::Text("3".into()),
            FieldInput::Bool(true),
            FieldInput::Text("g".into()),
            FieldInput::Many(vec!["y".into()]),
        ]
    );
    assert_eq!(field_id(&id, 3), format!("{id}-f3"));
    let status = tray.status(&id);
    assert_eq!(status.summary, None, "no summary before an Accept");
    assert!(status.errors.iter().all(Option::is_none));
}

#[test]
fn errors_mark_their_field_and_are_counted() {
    let mut tray = Tray::new();
    let id = card(&mut tray, "s", every_kind());
    tray.set_input(&id, 1, FieldInput::Text("11".into()));
    tray.act(&id, CardIntent::Accept);
    let status = tray.status(&id);
    assert_eq!(
        status.errors,
        [
            Some("Email is required.".into()),
            Some("b_n must be at most 10.".into()),
            None,
            None,
            None
        ]
    );
    assert_eq!(
        status.summary.as_deref(),
        Some("2 fields need attention before the answer can be sent.")
    );
}

#[test]
fn hostile_text_stays_text_and_invisible_characters_show() {
    let mut tray = Tray::new();
    let id = card(
        &mut tray,
        "evil\u{202E}</bdi>",
        json!({
            "message": "<img src=x onerror=alert(1)>\u{200b}",
            "requestedSchema": {"type": "object", "properties": {
                "a\"><script>": {"type": "string", "title": "txt\u{202E}exe.", "default": "\"><b>"},
                "s": {"type": "string", "enum": ["<i>"]}
            }}
        }),
    );
    let v = tray.view(&id).unwrap();
    assert_eq!(v.server_name, "evil<U+202E></bdi>");
    assert_eq!(v.message, "<img src=x onerror=alert(1)><U+200B>");
    let f = fields(&tray, &id);
    assert_eq!(f[0].name, "a\"><script>");
    assert_eq!(f[0].label, "txt<U+202E>exe.");
    assert_eq!(
        f[1].control,
        Control::Select(vec![choice("", "(choose)"), choice("<i>", "<i>")])
    );
    assert_eq!(tray.inputs(&id)[0], FieldInput::Text("\"><b>".into()));
    assert!(!format!("{v:?}{f:?}").contains('\u{202E}'));
}

#[test]
fn url_mode_names_the_domain_and_opens_nothing_itself() {
    let mut tray = Tray::new();
    let id = card(
        &mut tray,
        "s",
        json!({
            "mode": "url", "message": "Sign in", "url": "https://auth.example.com/x?y=1&z=2",
            "elicitationId": "e1"
        }),
    );
    let v = tray.view(&id).unwrap();
    assert_eq!(
        v.body,
        Body::Url {
            domain: "auth.example.com".into(),
            url: "https://auth.example.com/x?y=1&z=2".into()
        }
    );
    assert_eq!(v.accept, "Open auth.example.com");
    assert_eq!(
        URL_LEAD,
        (
            "It asks you to open a page on ",
            ". Nothing opens until you choose Open."
        )
    );
    let status = tray.status(&id);
    assert_eq!((status.open_failed, status.waiting), (None, None));
    assert!(status.errors.is_empty());
}
