//! The schema → form model, defaults and validation, with the schemas the conformance suite
//! and server-everything send.

use serde_json::json;

use super::*;

/// The `elicitation-sep1034-client-defaults` scenario's request, as the suite sends it.
fn sep1034() -> serde_json::Value {
    json!({
        "message": "Test client default value handling - please accept with defaults",
        "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {"type": "string", "description": "User status",
                       "enum": ["active", "inactive", "pending"], "default": "active"},
            "verified": {"type": "boolean", "description": "Verification status", "default": true}
        }, "required": []}
    })
}

fn form(req: &ElicitRequest) -> &FormModel {
    match &req.kind {
        ElicitKind::Form(f) => f,
        other => panic!("{other:?}"),
    }
}

#[test]
fn defaults_are_applied_and_accepted_as_typed_values() {
    let req = parse_create(&sep1034()).unwrap();
    let f = form(&req);
    let content = f.validate(&f.initial_inputs()).unwrap();
    assert_eq!(
        serde_json::Value::Object(content),
        json!({"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": true})
    );
    let answer = ElicitAnswer::accept(Some(f.validate(&f.initial_inputs()).unwrap()));
    assert_eq!(answer.to_result()["action"], "accept");
    assert_eq!(answer.to_result()["content"]["age"], 30);
    assert!(answer.to_result()["content"]["age"].is_i64());
}

#[test]
fn every_kind_of_field_in_the_subset_is_read() {
    let req = parse_create(&json!({
        "message": "m",
        "requestedSchema": {"type": "object", "properties": {
            "email": {"type": "string", "format": "email", "title": "Email"},
            "nick": {"type": "string", "minLength": 2, "maxLength": 4},
            "n": {"type": "integer", "minimum": 1, "maximum": 10},
            "titled": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}]},
            "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]},
            "many": {"type": "array", "items": {"type": "string", "enum": ["x", "y", "z"]}, "maxItems": 2, "default": ["x"]},
            "many_titled": {"type": "array", "items": {"anyOf": [{"const": "p", "title": "Pear"}]}}
        }, "required": ["email", "n"]}
    }))
    .unwrap();
    let f = form(&req);
    let by = |n: &str| f.fields.iter().find(|x| x.name == n).unwrap();
    assert_eq!(by("email").label, "Email");
    assert!(by("email").required && !by("nick").required);
    assert!(matches!(
        by("email").kind,
        FieldKind::Text {
            format: TextFormat::Email,
            ..
        }
    ));
    assert_eq!(
        by("titled").kind,
        FieldKind::Single(vec![
            Choice {
                value: "r".into(),
                label: "Red".into()
            },
            Choice {
                value: "g".into(),
                label: "Green".into()
            }
        ])
    );
    let FieldKind::Single(legacy) = &by("legacy").kind else {
        panic!()
    };
    assert_eq!(legacy[1].label, "Beta");
    assert!(matches!(
        &by("many").kind,
        FieldKind::Multi {
            max_items: Some(2),
            ..
        }
    ));
    assert_eq!(by("many").default, Some(FieldInput::Many(vec!["x".into()])));
    let FieldKind::Multi { choices, .. } = &by("many_titled").kind else {
        panic!()
    };
    assert_eq!(choices[0].label, "Pear");
}

#[test]
fn each_wrong_field_gets_its_own_sentence() {
    let req = parse_create(&json!({
        "message": "m",
        "requestedSchema": {"type": "object", "properties": {
            "email": {"type": "string", "format": "email", "title": "Email"},
            "nick": {"type": "string", "minLength": 2},
            "n": {"type": "integer", "minimum": 1, "maximum": 10, "title": "Count"},
            "pick": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "minItems": 1},
            "ok": {"type": "string"}
        }, "required": ["email", "n"]}
    }))
    .unwrap();
    let f = form(&req);
    let idx = |n: &str| f.fields.iter().position(|x| x.name == n).unwrap();
    let mut inputs = f.initial_inputs();
    inputs[idx("nick")] = FieldInput::Text("a".into());
    inputs[idx("n")] = FieldInput::Text("2.5".into());
    let errors = f.validate(&inputs).unwrap_err();
    let said = |n: &str| {
        errors
            .iter()
            .find(|(i, _)| *i == idx(n))
            .map(|(_, s)| s.clone())
    };
    assert_eq!(said("email").as_deref(), Some("Email is required."));
    assert!(said("nick").unwrap().contains("at least 2 characters"));
    assert!(said("n").unwrap().contains("whole number"));
    assert!(said("pick").unwrap().contains("at least 1"));
    assert_eq!(said("ok"), None, "an empty optional field is fine");

    inputs[idx("email")] = FieldInput::Text("not-an-email".into());
    inputs[idx("n")] = FieldInput::Text("11".into());
    let errors = f.validate(&inputs).unwrap_err();
    let said = |n: &str| {
        errors
            .iter()
            .find(|(i, _)| *i == idx(n))
            .map(|(_, s)| s.clone())
    };
    assert!(said("email").unwrap().contains("email address"));
    assert!(said("n").unwrap().contains("at most 10"));

    inputs[idx("email")] = FieldInput::Text("a@b.example".into());
    inputs[idx("n")] = FieldInput::Text("7".into());
    inputs[idx("nick")] = FieldInput::Text("ab".into());
    inputs[idx("pick")] = FieldInput::Many(vec!["y".into()]);
    let content = f.validate(&inputs).unwrap();
    assert_eq!(
        serde_json::Value::Object(content),
        json!({"email": "a@b.example", "nick": "ab", "n": 7, "pick": ["y"]})
    );
}

#[test]
fn schemas_outside_the_subset_are_refused_with_the_field_named() {
    let nested = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
        "addr": {"type": "object", "properties": {}}}}});
    let e = parse_create(&nested).unwrap_err();
    assert!(e.contains("`addr`") && e.contains("object"), "{e}");
    let e = parse_create(&json!({"mode": "telepathy", "message": "m"})).unwrap_err();
    assert!(e.contains("telepathy"), "{e}");
}

#[test]
fn a_default_that_does_not_fit_is_ignored() {
    let req = parse_create(
        &json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
        "s": {"type": "string", "enum": ["a"], "default": "zzz"},
        "n": {"type": "number", "default": "ten"}}}}),
    )
    .unwrap();
    assert!(form(&req).fields.iter().all(|f| f.default.is_none()));
}

#[test]
fn url_mode_shows_the_domain_and_refuses_links_a_page_must_not_open() {
    let req = parse_create(&json!({
        "mode": "url", "message": "Sign in", "elicitationId": "e1",
        "url": "https://Auth.Example.com:8443/oauth?x=1"
    }))
    .unwrap();
    let ElicitKind::Url(ask) = &req.kind else {
        panic!()
    };
    assert_eq!(ask.domain, "auth.example.com");
    assert_eq!(ask.elicitation_id, "e1");
    for bad in [
        "javascript:alert(1)",
        "https://user:pw@evil.example/",
        "data:text/html,x",
        "https://",
    ] {
        let e =
            parse_create(&json!({"mode": "url", "message": "m", "elicitationId": "e", "url": bad}));
        assert!(e.is_err(), "{bad}");
    }
    assert_eq!(
        ElicitAnswer::decline().to_result(),
        json!({"action": "decline"})
    );
    assert_eq!(
        ElicitAnswer::accept(None).to_result(),
        json!({"action": "accept"}),
        "URL mode accepts without content"
    );
}
