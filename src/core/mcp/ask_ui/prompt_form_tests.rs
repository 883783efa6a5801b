use serde_json::json;

use super::*;

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
    assert_eq!(
        f.submit(),
        FormOutcome::Draw {
            focus: "#ask-arg-0".into()
        }
    );
    let html = f.html();
    assert!(html.contains("department is required."), "{html}");
    assert!(html.contains("name is required."), "{html}");
    assert!(html.contains("2 arguments need a value"), "{html}");
    assert!(
        html.contains(
            r#"id="ask-arg-0" name="a0" data-arg-index="0" required aria-invalid="true""#
        ),
        "{html}"
    );
    f.set_value(0, "Engineering");
    f.set_value(1, "  ");
    assert_eq!(
        f.submit(),
        FormOutcome::Draw {
            focus: "#ask-arg-1".into()
        }
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
    assert!(f.html().contains("Getting the prompt from everything"));
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
    assert_eq!(f.suggestions_html(1), "");
    assert!(f.suggested(
        1,
        "Al",
        &json!({"completion": {"values": ["Alice", "Al", "<b>Alan</b>"], "hasMore": true}})
    ));
    let s = f.suggestions_html(1);
    assert!(s.contains(r#"data-act="pick:1:0">Alice</button>"#), "{s}");
    assert!(s.contains("&lt;b&gt;Alan&lt;/b&gt;"), "{s}");
    assert!(!s.contains(">Al<"), "the typed value is no suggestion: {s}");
    assert!(s.contains("keep typing"), "{s}");
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
    assert_eq!(f.suggestions_html(1), "");
    assert_eq!(f.pick(1, 0), None);
    let mut plain = team();
    plain.completions = false;
    assert_eq!(PromptForm::new(plain).completion(0), None);
}

#[test]
fn the_result_becomes_insert_messages_or_a_sentence() {
    let mut f = PromptForm::new(team());
    let ok = f.got(&json!({"messages": [
        {"role": "user", "content": {"type": "text", "text": "Please promote Alice."}},
        {"role": "assistant", "content": {"type": "text", "text": "Done."}},
        {"role": "user", "content": {"type": "image", "data": "iVBO", "mimeType": "image/png"}}
    ]}));
    assert_eq!(
        ok,
        Ok(json!({"messages": [
            {"role": "user", "text": "Please promote Alice.", "images": []},
            {"role": "assistant", "text": "Done.", "images": []},
            {"role": "user", "text": "", "images": [{"mime": "image/png", "b64": "iVBO"}]}
        ]}))
    );
    let bad = f.got(&json!({"nope": 1}));
    assert_eq!(
        bad,
        Err("The server's prompt could not be used: it has no messages.".into())
    );
    assert!(f.html().contains("could not be used"));
    f.failed("Invalid resourceType <x>");
    let html = f.html();
    assert!(html.contains("Invalid resourceType &lt;x&gt;"), "{html}");
    assert!(html.contains("Note &lt;i&gt;"), "{html}");
    assert!(!f.is_busy());
}
