use super::*;
use serde_json::json;

fn record(status: ToolCallStatus, result: Option<Value>) -> ToolCallRecord {
    let mut r = ToolCallRecord::new("c1".into(), "t".into(), "{}".into());
    r.server_id = Some("s".into());
    r.tool_name = "t".into();
    r.set_for_test(status, result);
    r
}

fn done(result: Value) -> ToolCallRecord {
    record(ToolCallStatus::Done, Some(result))
}

fn text_of(result: Value) -> String {
    for_model(&done(result), DEFAULT_RESULT_CHAR_LIMIT).text
}

#[test]
fn parts_of_every_content_type_in_order() {
    let result = json!({
        "content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "A"}},
            {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAE="}},
            {"type": "resource_link", "uri": "https://x.dev/doc", "name": "doc", "title": "The doc",
             "description": "About x", "mimeType": "text/html"},
            {"type": "hologram"}
        ],
        "structuredContent": {"n": 1}
    });
    assert_eq!(
        parts(&result),
        vec![
            ResultPart::Text("hello".into()),
            ResultPart::Image {
                mime: "image/png".into(),
                data: "iVBORw0KGgo=".into()
            },
            ResultPart::Audio {
                mime: "audio/wav".into(),
                data: "UklGRg==".into()
            },
            ResultPart::Resource {
                uri: "file:///a.txt".into(),
                mime: Some("text/plain".into()),
                text: Some("A".into()),
                blob: None,
            },
            ResultPart::Resource {
                uri: "file:///b.bin".into(),
                mime: None,
                text: None,
                blob: Some("AAE=".into())
            },
            ResultPart::ResourceLink {
                uri: "https://x.dev/doc".into(),
                name: "doc".into(),
                title: Some("The doc".into()),
                description: Some("About x".into()),
                mime: Some("text/html".into()),
            },
            ResultPart::Other("{\n  \"type\": \"hologram\"\n}".into()),
            ResultPart::Structured("{\n  \"n\": 1\n}".into()),
        ]
    );
}

#[test]
fn parts_of_odd_results() {
    assert_eq!(
        parts(&json!("plain")),
        vec![ResultPart::Other("\"plain\"".into())]
    );
    assert_eq!(parts(&json!({})), vec![]);
    assert_eq!(
        parts(&json!({"content": "x"})),
        vec![ResultPart::Other("\"x\"".into())]
    );
    // A text item without text is shown raw rather than as an empty text.
    assert_eq!(
        parts(&json!({"content": [{"type": "text"}]})),
        vec![ResultPart::Other("{\n  \"type\": \"text\"\n}".into())]
    );
}

#[test]
fn model_text_of_every_content_type() {
    let result = json!({
        "content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
            {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "A"}},
            {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAE="}},
            {"type": "resource_link", "uri": "https://x.dev/doc", "name": "doc", "title": "The doc", "description": "About x"},
            {"type": "resource_link", "uri": "https://x.dev/b", "name": "b"},
            {"type": "hologram"}
        ],
        "structuredContent": {"n": 1}
    });
    let m = for_model(&done(result), DEFAULT_RESULT_CHAR_LIMIT);
    assert_eq!(
        m.text,
        "hello\n[image: image/png, 8 bytes]\n[audio: audio/wav, 4 bytes]\n[resource: file:///a.txt]\nA\n\
         [binary resource file:///b.bin, application/octet-stream, 2 bytes]\n\
         Resource link: The doc (https://x.dev/doc) — About x\nResource link: b (https://x.dev/b)\n\
         {\"type\":\"hologram\"}"
    );
    assert_eq!(
        m.images,
        vec![ImageData {
            mime: "image/png".into(),
            data: "iVBORw0KGgo=".into()
        }]
    );
    assert!(!m.is_error);
}

#[test]
fn structured_content_only_without_text() {
    assert_eq!(
        text_of(
            json!({"content": [{"type": "text", "text": "{\"n\":1}"}], "structuredContent": {"n": 1}})
        ),
        "{\"n\":1}"
    );
    assert_eq!(
        text_of(json!({"content": [], "structuredContent": {"n": 1}})),
        "{\"n\":1}"
    );
    assert_eq!(
        text_of(
            json!({"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}], "structuredContent": {"n": 1}})
        ),
        "[image: image/png, 3 bytes]\n{\"n\":1}"
    );
}

#[test]
fn empty_and_raw_results() {
    assert_eq!(
        text_of(json!({"content": []})),
        "The tool returned no content."
    );
    assert_eq!(
        for_model(&record(ToolCallStatus::Done, None), 100).text,
        "The tool returned no content."
    );
    assert_eq!(text_of(json!("just a string")), "\"just a string\"");
}

#[test]
fn tool_reported_error() {
    let m = for_model(
        &done(json!({"content": [{"type": "text", "text": "disk full"}], "isError": true})),
        1000,
    );
    assert_eq!(m.text, "The tool reported an error:\ndisk full");
    assert!(m.is_error);
    let bare = for_model(&done(json!({"content": [], "isError": true})), 1000);
    assert_eq!(bare.text, "The tool reported an error: (no details given)");
    assert!(bare.is_error);
}

#[test]
fn statuses_become_sentences() {
    let cases = [
        (
            ToolCallStatus::Error("Unknown tool \"x\".".into()),
            "Unknown tool \"x\".",
        ),
        (
            ToolCallStatus::Denied,
            "The user denied this tool call. Do not retry it; continue without it or ask the user.",
        ),
        (
            ToolCallStatus::Cancelled,
            "The call was cancelled by the user before it finished.",
        ),
        (
            ToolCallStatus::Pending,
            "The call was interrupted before it finished.",
        ),
        (
            ToolCallStatus::AwaitingApproval,
            "The call was interrupted before it finished.",
        ),
        (
            ToolCallStatus::Running,
            "The call was interrupted before it finished.",
        ),
    ];
    for (status, text) in cases {
        // A stale result must not leak into a call that did not finish.
        let m = for_model(
            &record(
                status.clone(),
                Some(json!({"content": [{"type": "text", "text": "late"}]})),
            ),
            1000,
        );
        assert_eq!(m.text, text, "{status:?}");
        assert!(m.is_error, "{status:?}");
        assert!(m.images.is_empty());
    }
}

#[test]
fn truncation_counts_characters_and_cuts_at_a_boundary() {
    // 5 chars, 11 bytes: a byte cut at 3 would split "é".
    let m = for_model(
        &done(json!({"content": [{"type": "text", "text": "aéé€b"}]})),
        3,
    );
    assert_eq!(
        m.text,
        "aéé\n[Result truncated by Skiff: showing the first 3 of 5 characters.]"
    );
    let exact = for_model(
        &done(json!({"content": [{"type": "text", "text": "aéé€b"}]})),
        5,
    );
    assert_eq!(exact.text, "aéé€b");
    assert_eq!(
        truncate_chars("🦀🦀", 1),
        "🦀\n[Result truncated by Skiff: showing the first 1 of 2 characters.]"
    );
    assert_eq!(truncate_chars("", 0), "");
    // The error prefix is part of what the model reads, so it counts.
    let err = for_model(
        &done(json!({"content": [{"type": "text", "text": "x"}], "isError": true})),
        5,
    );
    assert!(
        err.text
            .starts_with("The t\n[Result truncated by Skiff: showing the first 5 of 29"),
        "{}",
        err.text
    );
}

#[test]
fn sources_keep_web_links_once() {
    let a = done(json!({"content": [
        {"type": "resource_link", "uri": "https://a.dev/1", "name": "one", "title": "First"},
        {"type": "resource_link", "uri": "https://a.dev/2", "name": "two"},
        {"type": "resource_link", "uri": "HTTP://a.dev/3", "name": ""},
        {"type": "resource_link", "uri": "file:///etc/hosts", "name": "hosts"},
        {"type": "resource", "resource": {"uri": "https://a.dev/r", "text": "body"}},
        {"type": "text", "text": "https://not.a.source"}
    ]}));
    let b = done(json!({"content": [
        {"type": "resource_link", "uri": "https://a.dev/1", "name": "again", "title": "Duplicate"},
        {"type": "resource", "resource": {"uri": "mailto:x@a.dev", "text": "m"}},
        {"type": "resource_link", "uri": "https://b.dev", "name": "b"}
    ]}));
    let failed = done(
        json!({"content": [{"type": "resource_link", "uri": "https://err.dev", "name": "e"}], "isError": true}),
    );
    let mut cancelled = ToolCallRecord::new("c".into(), "t".into(), "{}".into());
    cancelled.set_for_test(
        ToolCallStatus::Cancelled,
        Some(json!({"content": [{"type": "resource_link", "uri": "https://c.dev", "name": "c"}]})),
    );
    let got = sources([&a, &b, &failed, &cancelled]);
    let want: Vec<(&str, &str)> = vec![
        ("First", "https://a.dev/1"),
        ("two", "https://a.dev/2"),
        ("HTTP://a.dev/3", "HTTP://a.dev/3"),
        ("https://a.dev/r", "https://a.dev/r"),
        ("b", "https://b.dev"),
    ];
    assert_eq!(
        got,
        want.into_iter()
            .map(|(title, uri)| Source {
                title: title.into(),
                uri: uri.into()
            })
            .collect::<Vec<_>>()
    );
}
