use serde_json::json;

use super::picker::HINT;
use super::*;

/// The page's servers with server-everything's prompts (as its `prompts/list` answers them,
/// tests/fixtures/mcp/captured/everything-http/10-prompts-list.body), a second server with a
/// hostile name, and a disconnected one.
fn servers() -> Vec<ServerPrompts> {
    as_servers(&servers_json())
}

fn as_servers(v: &serde_json::Value) -> Vec<ServerPrompts> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter(|s| s.is_object())
        .map(|s| ServerPrompts {
            id: s["id"].as_str().unwrap_or("").into(),
            name: s["name"].as_str().unwrap_or("").into(),
            connected: s["connected"] == true,
            capabilities: s["capabilities"].clone(),
            prompts: s["prompts"].as_array().cloned().unwrap_or_default(),
        })
        .collect()
}

fn servers_json() -> serde_json::Value {
    json!([
        {"id": "everything", "name": "everything", "connected": true,
         "capabilities": {"prompts": {}, "completions": {}},
         "prompts": [
            {"name": "simple-prompt", "title": "Simple Prompt", "description": "A prompt with no arguments"},
            {"name": "args-prompt", "title": "Arguments Prompt", "description": "A prompt with two arguments, one required and one optional",
             "arguments": [{"name": "city", "description": "Name of the city", "required": true}, {"name": "state", "required": false}]},
            {"name": "completable-prompt", "title": "Team Management", "description": "First argument choice narrows values for second argument.",
             "arguments": [{"name": "department", "required": true}, {"name": "name", "required": true}]},
            {"name": "resource-prompt", "title": "Resource Prompt", "description": "A prompt that includes an embedded resource reference"},
            {"title": "no name"},
         ]},
        {"id": "evil", "name": "Evil\u{202E}txt.exe <b>", "connected": true, "capabilities": {},
         "prompts": [{"name": "x<script>", "description": "<img src=x onerror=alert(1)> weather"}]},
        {"id": "off", "name": "off", "connected": false, "prompts": [{"name": "simple-prompt"}]},
        "not an object"
    ])
}

#[test]
fn entries_are_the_connected_servers_prompts_in_order() {
    let e = entries(&servers());
    let names: Vec<&str> = e.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "simple-prompt",
            "args-prompt",
            "completable-prompt",
            "resource-prompt",
            "x<script>"
        ]
    );
    assert!(e[1].completions && !e[4].completions);
    assert_eq!(
        e[1].args,
        [
            PromptArg {
                name: "city".into(),
                title: String::new(),
                description: "Name of the city".into(),
                required: true
            },
            PromptArg {
                name: "state".into(),
                ..PromptArg::default()
            }
        ]
    );
    assert_eq!(e[1].label(), "Arguments Prompt");
    assert!(entries(&as_servers(&json!({"not": "a list"}))).is_empty());
}

#[test]
fn filtering_ranks_prefix_then_substring_then_description() {
    let e = entries(&servers());
    let names = |typed: &str| -> Vec<String> {
        filter(&e, typed)
            .into_iter()
            .map(|i| e[i].name.clone())
            .collect()
    };
    assert_eq!(names("").len(), 5);
    // Only the first word filters: what follows may be the prompt's text.
    assert_eq!(names("ARGS and more"), ["args-prompt"]);
    // "team" is in a title; "prompt" starts no name but is in four.
    assert_eq!(names("team"), ["completable-prompt"]);
    assert_eq!(
        names("prompt"),
        [
            "simple-prompt",
            "args-prompt",
            "completable-prompt",
            "resource-prompt"
        ]
    );
    // A name prefix beats a description match.
    assert_eq!(names("res"), ["resource-prompt"]);
    assert_eq!(names("weather"), ["x<script>"]);
    assert_eq!(names("evil"), ["x<script>"]);
    assert!(names("zzz").is_empty());
}

#[test]
fn keys_move_wrap_choose_and_close() {
    let mut p = Picker::new(entries(&servers()), "");
    assert_eq!(p.highlighted(), Some(0));
    assert_eq!(p.key(Key::Up), PickerMove::Moved);
    assert_eq!(
        p.highlighted(),
        Some(4),
        "Up from the first wraps to the last"
    );
    assert_eq!(p.key(Key::Down), PickerMove::Moved);
    assert_eq!(p.key(Key::Down), PickerMove::Moved);
    assert_eq!(p.key(Key::Enter), PickerMove::Choose(1));
    assert_eq!(p.active_id().as_deref(), Some("ask-opt-1"));
    // Text after the word keeps the choice; a new word highlights its best match.
    p.set_typed("  ");
    assert_eq!(p.highlighted(), Some(1));
    p.set_typed("s");
    assert_eq!(p.highlighted(), Some(0), "simple-prompt starts with s");
    p.set_typed("tea");
    assert_eq!(p.highlighted(), Some(2));
    assert_eq!(p.key(Key::Tab), PickerMove::Choose(2));
    assert_eq!(p.key(Key::Escape), PickerMove::Close);
    assert_eq!(p.click(0), Some(2));
    assert_eq!(p.click(5), None);
    p.set_typed("nothing-matches");
    assert_eq!(p.key(Key::Down), PickerMove::Ignored);
    assert_eq!(
        p.key(Key::Enter),
        PickerMove::Ignored,
        "Enter sends the text as typed"
    );
    assert_eq!(p.active_id(), None);
    assert_eq!(
        p.status(),
        "No prompt matches \u{201c}nothing-matches\u{201d}."
    );
    assert_eq!(Key::parse("ArrowDown"), Some(Key::Down));
    assert_eq!(Key::parse("a"), None);
}

#[test]
fn the_list_shows_server_text_as_text_and_marks_the_highlight() {
    let mut p = Picker::new(entries(&servers()), "weather");
    let options = p.options();
    assert_eq!(
        options,
        [OptionView {
            at: 0,
            id: "ask-opt-0".into(),
            prompt: "x<script>".into(),
            title: "x<script>".into(),
            name: "/x<script>".into(),
            server: "Evil<U+202E>txt.exe <b>".into(),
            description: Some("<img src=x onerror=alert(1)> weather".into()),
            selected: true,
        }]
    );
    assert_eq!(p.empty(), None);
    assert_eq!(
        p.status(),
        "1 prompt; Up and Down to choose, Enter to use, Escape to close."
    );
    assert_eq!(
        HINT,
        "Prompts \u{b7} \u{2191}\u{2193} choose \u{b7} Enter use \u{b7} Esc close"
    );
    p.set_typed("zzz");
    assert!(p.options().is_empty());
    assert_eq!(
        p.empty().as_deref(),
        Some("No prompt matches \u{201c}zzz\u{201d}.")
    );
    let none = Picker::new(Vec::new(), "");
    assert!(none
        .empty()
        .is_some_and(|s| s.starts_with("No connected MCP server offers prompts")));
}

#[test]
fn a_changed_list_keeps_the_highlighted_prompt() {
    let mut p = Picker::new(entries(&servers()), "");
    p.key(Key::Down);
    p.key(Key::Down);
    assert_eq!(
        p.entry(p.highlighted().unwrap_or(99))
            .map(|e| e.name.as_str()),
        Some("completable-prompt")
    );
    // The server dropped its first prompt: the same prompt stays highlighted.
    let mut fewer = entries(&servers());
    fewer.remove(0);
    p.set_entries(fewer);
    assert_eq!(
        p.entry(p.highlighted().unwrap_or(99))
            .map(|e| e.name.as_str()),
        Some("completable-prompt")
    );
    // Gone altogether: the first is highlighted.
    p.set_entries(Vec::new());
    assert_eq!(p.highlighted(), None);
}
