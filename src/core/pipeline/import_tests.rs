use super::export::to_json;
use super::import::*;
use crate::records::conversation::Conversation;
use crate::records::message::{Message, MessageStatus, Role};
use crate::records::title_source::TitleSource;

const LLAMA: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/llamacpp/conversation-branches.json"
));

fn sample(id: &str) -> Conversation {
    let mut c = Conversation::new(id.into(), 1.0);
    c.title = format!("Conversation {id}");
    c.messages.push(Message::new(
        format!("{id}-u"),
        Role::User,
        "hi".into(),
        2.0,
    ));
    let mut a = Message::new(format!("{id}-a"), Role::Assistant, "hel".into(), 3.0);
    a.status = MessageStatus::Streaming;
    c.messages.push(a);
    c
}

#[test]
fn skiff_exports_import_whole_and_streaming_answers_come_back_interrupted() {
    let text = to_json(&sample("c1"), 9.0);
    let r = read(&text, |_| false).expect("reads");
    assert_eq!(r.added.len(), 1);
    let c = &r.added[0];
    assert_eq!(c.id, "c1");
    assert_eq!(c.messages.len(), 2);
    assert_eq!(c.messages[1].status, MessageStatus::Interrupted);
    assert_eq!(r.summary(), "Added 1 conversation.");
}

#[test]
fn import_adds_only_what_is_new_and_reports_the_rest() {
    // An array, one already stored, one twice in the file, one damaged, one from a newer Skiff.
    let items = format!(
        "[{},{},{},{{\"format\":\"skiff-conversation\",\"version\":1,\"conversation\":{{\"id\":\"x\"}}}},{{\"format\":\"skiff-conversation\",\"version\":7,\"conversation\":{{}}}},{}]",
        to_json(&sample("old"), 0.0),
        to_json(&sample("new"), 0.0),
        to_json(&sample("new"), 0.0),
        "42"
    );
    let r = read(&items, |id| id == "old").expect("reads");
    assert_eq!(
        r.added.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
        ["new"]
    );
    assert_eq!(r.skipped, ["Conversation old", "Conversation new"]);
    assert_eq!(r.invalid.len(), 3, "{:?}", r.invalid);
    assert!(
        r.invalid[0].starts_with("Item 4 is damaged"),
        "{}",
        r.invalid[0]
    );
    assert!(
        r.invalid[1].contains("newer Skiff (format version 7)"),
        "{}",
        r.invalid[1]
    );
    assert_eq!(
        r.invalid[2],
        "Item 6 is neither a Skiff nor a llama.cpp conversation."
    );
    assert!(r.summary().starts_with(
        "Added 1 conversation; skipped 2 already here. 3 items could not be read: Item 4"
    ));
}

#[test]
fn many_unreadable_items_are_summarized_not_listed() {
    let report = Report {
        invalid: (1..=200)
            .map(|n| format!("Item {n} is neither a Skiff nor a llama.cpp conversation."))
            .collect(),
        ..Report::default()
    };
    let s = report.summary();
    assert!(
        s.starts_with("Added 0 conversations. 200 items could not be read: Item 1 is"),
        "{s}"
    );
    assert!(s.contains("Item 3 is") && !s.contains("Item 4 is"), "{s}");
    assert!(s.ends_with(" And 197 more."), "{s}");
}

#[test]
fn json_lines_are_read_one_item_per_line() {
    let text = format!(
        "{}\n\n{}\nnot json\n",
        serde_json::to_string(
            &serde_json::from_str::<serde_json::Value>(&to_json(&sample("a"), 0.0))
                .unwrap_or_default()
        )
        .unwrap_or_default(),
        LLAMA.replace('\n', "")
    );
    let r = read(&text, |_| false).expect("reads");
    assert_eq!(r.added.len(), 2);
    assert_eq!(r.invalid.len(), 1);
    assert!(
        r.invalid[0].starts_with("Item 3 is not JSON (line 4:"),
        "{}",
        r.invalid[0]
    );
}

#[test]
fn a_llama_cpp_export_imports_the_branch_it_showed() {
    let r = read(LLAMA, |_| false).expect("reads");
    let c = &r.added[0];
    assert_eq!(c.id, "6f1c2d9e-8a47-4c1b-9d55-0e3b7a2f1c01");
    assert_eq!(c.title, "Tides and the moon");
    assert_eq!(c.title_source, TitleSource::User);
    let lines: Vec<(Role, &str)> = c
        .messages
        .iter()
        .map(|m| (m.role, m.content.as_str()))
        .collect();
    assert_eq!(
        lines,
        [
            (Role::User, "Why are there two tides a day?"),
            (
                Role::Assistant,
                "The moon's pull bulges the ocean on both sides of the Earth."
            ),
        ]
    );
    assert_eq!(
        c.messages[1].reasoning,
        "Two bulges: near side and far side."
    );
    assert_eq!(c.created_ms, 1_763_899_991_000.0);
    // The first answer is kept as the other version of the answer (‹ 1/2 ›).
    assert_eq!(r.left_out_messages, 0);
    assert_eq!(c.branches.len(), 1);
    assert_eq!(c.branches[0].after.as_deref(), Some("m-u1"));
    assert_eq!(c.branches[0].messages[0].content, "Because of the sun.");
    assert_eq!(
        crate::branches::siblings(&c.messages, &c.branches, 1),
        Some((2, 2))
    );
    assert_eq!(r.summary(), "Added 1 conversation.");
    // Importing it again adds nothing.
    let again = read(LLAMA, |id| id == c.id).expect("reads");
    assert!(again.added.is_empty());
    assert_eq!(again.skipped, ["Tides and the moon"]);
}

#[test]
fn unreadable_files_are_refused_whole_with_a_sentence() {
    assert_eq!(read("  ", |_| false), Err(ImportError::Empty));
    assert!(matches!(
        read("{oops", |_| false),
        Err(ImportError::NotJson(_))
    ));
    assert_eq!(
        read("{\"hello\":1}", |_| false),
        Err(ImportError::UnknownFormat)
    );
    assert_eq!(read("[1,2]", |_| false), Err(ImportError::UnknownFormat));
    let e = read("{oops", |_| false)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(
        e.starts_with("The file is not JSON or JSON Lines (line 1:")
            && e.ends_with("Nothing was imported."),
        "{e}"
    );
    // A loop in llama.cpp's parent links is refused, not followed forever.
    let looped = r#"{"conv":{"id":"c","name":"","lastModified":0,"currNode":"a"},"messages":[{"id":"a","parent":"b","role":"user","content":"x"},{"id":"b","parent":"a","role":"assistant","content":"y"}]}"#;
    let r = read(looped, |_| false).expect("reads");
    assert!(r.invalid[0].contains("loop"), "{:?}", r.invalid);
    // Ids that cannot be storage keys are refused.
    let bad =
        r#"{"conv":{"id":"../../etc","name":"","lastModified":0,"currNode":null},"messages":[]}"#;
    assert_eq!(read(bad, |_| false).map(|r| r.invalid.len()), Ok(1));
}
