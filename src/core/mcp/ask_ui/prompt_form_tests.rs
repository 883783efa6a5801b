use serde_json::json;

use super::*;
use crate::mcp::prompt_result::PromptTurn;

fn team() -> PromptEntry {
    PromptEntry {
        server_id: "everything".into(),
        server_name: "everything".into(),
        name: "completable-prompt".into(),
        title: "Team Management".into(),
        description: "First argument choice narrows values for second argument.".into(),
        args: vec![
            PromptArg {
                name: "department".into(),
                description: "Choose the department.".into(),
                required: true,
                ..PromptArg::default()
            },
            PromptArg {
                name: "name".into(),
                required: true,
                ..PromptArg::default()
            },
            PromptArg {
                name: "note".into(),
                title: "Note <i>".into(),
                ..PromptArg::default()
            },
        ],
        completions: true,
    }
}

#[test]
fn required_arguments_are_checked_and_empty_optional_ones_left_out() {
    let mut f = PromptForm::new(team());
    assert!(f.needs_form());
    assert_eq!(f.submit(), FormOutcome::Draw { focus: Some(0) });
    let v = f.view();
    assert_eq!(
        v.fields[0].error.as_deref(),
        Some("department is required.")
    );
    assert_eq!(v.fields[1].error.as_deref(), Some("name is required."));
    assert_eq!(v.fields[2].error, None, "an optional argument");
    assert_eq!(
        v.summary.as_deref(),
        Some("2 arguments need a value before the prompt can be used.")
    );
    assert_eq!(
        (
            v.fields[0].id.as_str(),
            v.fields[0].required,
            v.fields[2].required
        ),
        ("ask-arg-0", true, false)
    );
    assert_eq!(
        v.fields[0].description.as_deref(),
        Some("Choose the department.")
    );
    f.set_value(0, "Engineering");
    f.set_value(1, "  ");
    assert_eq!(f.submit(), FormOutcome::Draw { focus: Some(1) });
    assert_eq!(
        f.view().summary.as_deref(),
        Some("1 argument needs a value before the prompt can be used.")
    );
    f.set_value(1, "Alice");
    assert_eq!(
        f.submit(),
        FormOutcome::Get {
            server: "everything".into(),
            params: json!({"name": "completable-prompt", "arguments": {"department": "Engineering", "name": "Alice"}})
        }
    );
    assert!(f.is_busy());
    assert_eq!(
        f.view().busy.as_deref(),
        Some("Getting the prompt from everything\u{2026}")
    );
    assert_eq!(f.submit(), FormOutcome::Draw { focus: None }, "once");
    let none = PromptForm::new(PromptEntry {
        server_id: "s".into(),
        name: "simple-prompt".into(),
        ..PromptEntry::default()
    });
    assert!(!none.needs_form());
    let mut none = none;
    assert_eq!(
        none.submit(),
        FormOutcome::Get {
            server: "s".into(),
            params: json!({"name": "simple-prompt"})
        }
    );
}

#[test]
fn completion_sends_the_other_arguments_and_drops_stale_answers() {
    let mut f = PromptForm::new(team());
    f.set_value(0, "Engineering");
    f.set_value(1, "A");
    assert_eq!(
        f.completion(1),
        Some(json!({
            "ref": {"type": "ref/prompt", "name": "completable-prompt"},
            "argument": {"name": "name", "value": "A"},
            "context": {"arguments": {"department": "Engineering"}}
        }))
    );
    assert_eq!(f.completion(9), None);
    // The answer for "A" arrives after the user typed "Al": dropped.
    f.set_value(1, "Al");
    assert!(!f.suggested(1, "A", &json!({"completion": {"values": ["Alice", "Bob"]}})));
    assert!(f.suggestions(1).values.is_empty());
    assert!(f.suggested(
        1,
        "Al",
        &json!({"completion": {"values": ["Alice", "Al", "<b>Alan</b>"], "hasMore": true}})
    ));
    let s = f.suggestions(1);
    assert_eq!(
        s.values,
        ["Alice", "<b>Alan</b>"],
        "the typed value is no suggestion"
    );
    assert_eq!(s.label, "Suggestions for name");
    assert_eq!(s.more, Some("More match: keep typing to narrow them."));
    assert!(
        !f.suggested(
            1,
            "Al",
            &json!({"completion": {"values": ["Alice", "Al", "<b>Alan</b>"], "hasMore": true}})
        ),
        "unchanged"
    );
    assert_eq!(f.pick(1, 0).as_deref(), Some("Alice"));
    assert_eq!(f.value(1), Some("Alice"));
    assert!(f.suggestions(1).values.is_empty());
    assert_eq!(f.pick(1, 0), None);
    let mut plain = team();
    plain.completions = false;
    assert_eq!(PromptForm::new(plain).completion(0), None);
}

#[test]
fn the_result_becomes_turns_or_a_sentence() {
    let mut f = PromptForm::new(team());
    let ok = f.got(&json!({"messages": [
        {"role": "user", "content": {"type": "text", "text": "Please promote Alice."}},
        {"role": "assistant", "content": {"type": "text", "text": "Done."}},
        {"role": "user", "content": {"type": "image", "data": "iVBO", "mimeType": "image/png"}}
    ]}));
    let turn = |assistant, text: &str, images: Vec<(String, String)>| PromptTurn {
        assistant,
        text: text.into(),
        images,
    };
    assert_eq!(
        ok,
        Ok(vec![
            turn(false, "Please promote Alice.", vec![]),
            turn(true, "Done.", vec![]),
            turn(false, "", vec![("image/png".into(), "iVBO".into())]),
        ])
    );
    let bad = f.got(&json!({"nope": 1}));
    assert_eq!(
        bad,
        Err("The server's prompt could not be used: it has no messages.".into())
    );
    assert_eq!(
        f.view().failure.as_deref(),
        Some("The server's prompt could not be used: it has no messages.")
    );
    f.failed("Invalid resourceType <x>\u{202e}");
    let v = f.view();
    assert_eq!(
        v.failure.as_deref(),
        Some("Invalid resourceType <x><U+202E>")
    );
    assert_eq!(v.fields[2].label, "Note <i>");
    assert_eq!(
        (v.title.as_str(), v.name.as_str(), v.server.as_str()),
        ("Team Management", "/completable-prompt", "everything")
    );
    assert!(!f.is_busy());
}
