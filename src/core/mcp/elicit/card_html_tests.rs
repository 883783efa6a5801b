//! The card's HTML: the structure the page's listener and the e2e tests rely on, what a
//! hostile server's text becomes, and the round trip from the form's values back to inputs.

use serde_json::json;

use super::card_html::{card_html, CardState};
use super::*;

fn request(params: serde_json::Value) -> ElicitRequest {
    parse_create(&params).unwrap()
}

fn form_of(req: &ElicitRequest) -> &FormModel {
    match &req.kind {
        ElicitKind::Form(f) => f,
        other => panic!("{other:?}"),
    }
}

fn every_kind() -> ElicitRequest {
    request(json!({
        "message": "Tell me",
        "requestedSchema": {"type": "object", "properties": {
            "a_email": {"type": "string", "format": "email", "title": "Email", "description": "Work address"},
            "b_n": {"type": "integer", "minimum": 1, "maximum": 10, "default": 3},
            "c_ok": {"type": "boolean", "default": true},
            "d_color": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}], "default": "g"},
            "e_many": {"type": "array", "items": {"type": "string", "enum": ["x", "y", "z"]}, "default": ["y"]}
        }, "required": ["a_email"]}
    }))
}

#[test]
fn a_form_card_has_every_control_with_its_value_label_and_description() {
    let req = every_kind();
    let f = form_of(&req);
    let state = CardState {
        inputs: f.initial_inputs(),
        ..CardState::default()
    };
    let html = card_html("c1", "everything", &req, false, &state);
    for part in [
        r#"<h2 class="elicit-title" id="c1-title"><bdi class="elicit-server">everything</bdi> asks for input</h2>"#,
        r#"<p class="elicit-message" dir="auto">Tell me</p>"#,
        r#"<div class="elicit-field" data-field="a_email"><label for="c1-f0">Email<span class="elicit-required" aria-hidden="true"> *</span></label><small class="muted elicit-desc" id="c1-f0-desc">Work address</small><input type="email" id="c1-f0" name="f0" required aria-invalid="false" aria-describedby="c1-f0-err c1-f0-desc" value=""><p class="error elicit-error" id="c1-f0-err"></p></div>"#,
        r#"<input type="number" step="1" min="1" max="10" id="c1-f1" name="f1" aria-invalid="false" aria-describedby="c1-f1-err" value="3">"#,
        r#"<input type="checkbox" id="c1-f2" name="f2" checked aria-describedby="c1-f2-err">"#,
        r#"<option value="">(choose)</option><option value="r">Red</option><option value="g" selected>Green</option></select>"#,
        r#"<fieldset class="elicit-field" data-field="e_many" aria-describedby="c1-f4-err"><legend>e_many</legend>"#,
        r#"<label class="elicit-option" for="c1-f4-o1"><input type="checkbox" id="c1-f4-o1" name="f4" value="y" checked>y</label>"#,
        r#"<button type="button" class="primary elicit-accept" data-act="accept">Accept</button>"#,
        r#"<button type="button" class="elicit-cancel" data-act="cancel">Cancel</button></div></form>"#,
    ] {
        assert!(html.contains(part), "missing {part}\nin {html}");
    }
    assert!(
        !html.contains("elicit-summary"),
        "no summary before an Accept"
    );
}

#[test]
fn errors_mark_their_field_and_are_counted() {
    let req = every_kind();
    let f = form_of(&req);
    let inputs = f.initial_inputs();
    let errors = f.validate(&inputs).unwrap_err();
    let state = CardState {
        inputs,
        errors,
        open_failed: false,
    };
    let html = card_html("c1", "s", &req, false, &state);
    assert!(
        html.contains(r#"aria-invalid="true" aria-describedby="c1-f0-err c1-f0-desc""#),
        "{html}"
    );
    assert!(
        html.contains(r#"<p class="error elicit-error" id="c1-f0-err">Email is required.</p>"#),
        "{html}"
    );
    assert!(
        html.contains(r#"role="alert">1 field needs attention before the answer can be sent.</p>"#),
        "{html}"
    );
}

#[test]
fn hostile_text_stays_text_and_invisible_characters_show() {
    let req = request(json!({
        "message": "<img src=x onerror=alert(1)>",
        "requestedSchema": {"type": "object", "properties": {
            "a\"><script>": {"type": "string", "title": "txt\u{202E}exe.", "default": "\"><b>"},
            "s": {"type": "string", "enum": ["<i>"]}
        }}
    }));
    let f = form_of(&req);
    let state = CardState {
        inputs: f.initial_inputs(),
        ..CardState::default()
    };
    let html = card_html("c", "evil\u{202E}</bdi>", &req, false, &state);
    assert!(
        html.contains("evil&lt;U+202E&gt;&lt;/bdi&gt;</bdi>"),
        "{html}"
    );
    assert!(
        html.contains("&lt;img src=x onerror=alert(1)&gt;"),
        "{html}"
    );
    assert!(
        html.contains(r#"data-field="a&quot;&gt;&lt;script&gt;""#),
        "{html}"
    );
    assert!(html.contains("txt&lt;U+202E&gt;exe."), "{html}");
    assert!(html.contains(r#"value="&quot;&gt;&lt;b&gt;""#), "{html}");
    assert!(
        html.contains(r#"<option value="&lt;i&gt;">&lt;i&gt;</option>"#),
        "{html}"
    );
    for raw in ["<img", "<script", "<b>", "<i>", "\u{202E}"] {
        assert!(!html.contains(raw), "{raw} got through: {html}");
    }
}

#[test]
fn the_forms_values_come_back_as_inputs_in_field_order() {
    let req = every_kind();
    let f = form_of(&req);
    let pairs: Vec<(String, String)> = [
        ("f0", "ada@example.com"),
        ("f1", "7"),
        ("f3", "r"),
        ("f4", "x"),
        ("f4", "z"),
        ("other", "ignored"),
    ]
    .into_iter()
    .map(|(n, v)| (n.to_string(), v.to_string()))
    .collect();
    let inputs = f.inputs_from_pairs(&pairs);
    assert_eq!(
        inputs,
        vec![
            FieldInput::Text("ada@example.com".into()),
            FieldInput::Text("7".into()),
            FieldInput::Bool(false),
            FieldInput::Text("r".into()),
            FieldInput::Many(vec!["x".into(), "z".into()]),
        ]
    );
    let content = f.validate(&inputs).unwrap();
    assert_eq!(
        serde_json::Value::Object(content),
        json!({"a_email": "ada@example.com", "b_n": 7, "c_ok": false, "d_color": "r", "e_many": ["x", "z"]})
    );
    // What the card drew from the defaults comes back as the same inputs when submitted.
    let state = CardState {
        inputs: f.initial_inputs(),
        ..CardState::default()
    };
    assert!(card_html("c", "s", &req, false, &state).contains(r#"name="f2" checked"#));
    let submitted = [
        ("f0", ""),
        ("f1", "3"),
        ("f2", "on"),
        ("f3", "g"),
        ("f4", "y"),
    ]
    .map(|(n, v)| (n.to_string(), v.to_string()));
    assert_eq!(
        f.inputs_from_pairs(&submitted),
        vec![
            FieldInput::Text(String::new()),
            FieldInput::Text("3".into()),
            FieldInput::Bool(true),
            FieldInput::Text("g".into()),
            FieldInput::Many(vec!["y".into()]),
        ]
    );
}

#[test]
fn url_mode_names_the_domain_and_opens_nothing_itself() {
    let req = request(json!({
        "mode": "url", "message": "Sign in", "url": "https://auth.example.com/x?y=1&z=2",
        "elicitationId": "e1"
    }));
    let html = card_html("c", "s", &req, false, &CardState::default());
    assert!(
        html.contains(r#"<strong class="elicit-domain"><bdi>auth.example.com</bdi></strong>"#),
        "{html}"
    );
    assert!(
        html.contains(
            r#"<p class="muted elicit-url"><bdi>https://auth.example.com/x?y=1&amp;z=2</bdi></p>"#
        ),
        "{html}"
    );
    assert!(
        html.contains(r#"data-act="accept">Open auth.example.com</button>"#),
        "{html}"
    );
    assert!(
        !html.contains("href"),
        "no link to follow without the user's click: {html}"
    );
    assert!(!html.contains("refused"));
    let failed = CardState {
        open_failed: true,
        ..CardState::default()
    };
    assert!(
        card_html("c", "s", &req, false, &failed).contains("The browser refused to open the link.")
    );
    let waiting = card_html("c", "s", &req, true, &CardState::default());
    assert!(
        waiting.contains(
            r#"<p class="elicit-waiting" role="status">Opened auth.example.com in a new tab"#
        ),
        "{waiting}"
    );
    assert!(
        waiting.contains(r#"data-act="dismiss">Dismiss</button>"#),
        "{waiting}"
    );
    assert!(!waiting.contains("elicit-accept"));
}
