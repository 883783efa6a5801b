use super::*;
use crate::mcp::model::Tool;
use crate::mcp::tool_index::{self, ServerTools, ToolIndex};
use crate::pipeline::tokens;
use crate::records::message::Role;
use crate::records::tool_call::ToolCallRecord;
use crate::records::tool_overrides::ToolOverrides;

/// The `tools/list` of 10 real MCP servers (104 tools), recorded by `scripts/list-tools.mjs`.
const REAL_TOOLS: &str = include_str!("fixtures/real-tools.json");

fn real_specs() -> Vec<ToolSpec> {
    let lists: Vec<Value> = serde_json::from_str(REAL_TOOLS).unwrap();
    let servers: Vec<ServerTools> = lists
        .iter()
        .map(|s| ServerTools {
            server_id: s["server"].as_str().unwrap().to_string(),
            server_name: s["server"].as_str().unwrap().to_string(),
            tools: serde_json::from_value::<Vec<Tool>>(s["tools"].clone()).unwrap(),
            runs_tasks: true,
        })
        .collect();
    let index = ToolIndex::build(&servers);
    tool_index::enabled_specs(&index, &ToolOverrides::default(), str::to_string)
}

fn spec(name: &str, description: &str) -> ToolSpec {
    ToolSpec {
        exposed_name: name.into(),
        server_id: "s".into(),
        server_name: "S".into(),
        tool_name: name.into(),
        description: description.into(),
        input_schema: Map::new(),
        read_only: false,
    }
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

#[test]
fn the_list_is_one_short_line_per_tool() {
    assert_eq!(
        summary_line(&spec("read_file", "Read a file.\nMore detail here.")),
        "- read_file: Read a file"
    );
    assert_eq!(summary_line(&spec("x", "")), "- x");
    let long = "a".repeat(200);
    assert_eq!(
        summary_line(&spec("x", &long)).chars().count(),
        "- x: ".len() + 90 + 1
    );
    let f = finder(&[spec("a", "Alpha."), spec("b", "Beta.")]);
    assert_eq!(f.exposed_name, FIND_TOOLS);
    assert!(
        f.description.ends_with("- a: Alpha\n- b: Beta"),
        "{}",
        f.description
    );
}

#[test]
fn names_load_exactly_and_words_find_the_best_matches() {
    let all = [
        spec("create_issue", "Create a new issue in a GitHub repository."),
        spec("list_issues", "List issues in a repository."),
        spec("read_file", "Read the complete contents of a file."),
    ];
    let names = |v: Vec<&ToolSpec>| v.iter().map(|s| s.exposed_name.clone()).collect::<Vec<_>>();
    assert_eq!(
        names(search(&all, &args(json!({"names": ["read_file", "nope"]})))),
        ["read_file"]
    );
    assert_eq!(
        names(search(&all, &args(json!({"query": "issue repository"})))),
        ["create_issue", "list_issues"]
    );
    assert!(search(&all, &args(json!({"query": "weather"}))).is_empty());
    let r = result(&search(&all, &args(json!({"names": ["read_file"]}))));
    assert_eq!(r["structuredContent"]["loaded"], json!(["read_file"]));
    assert!(r["content"][0]["text"]
        .as_str()
        .unwrap()
        .contains("Input schema"));
}

#[test]
fn what_a_conversation_loaded_stays_loaded() {
    let all = [spec("a", "A."), spec("b", "B."), spec("c", "C.")];
    let mut call = ToolCallRecord::new("1".into(), FIND_TOOLS.into(), "{}".into());
    call.start(0.0);
    call.finish(result(&[&all[1]]), 1.0);
    let mut m = Message::new("m".into(), Role::Assistant, String::new(), 0.0);
    m.tool_calls = vec![call];
    let history = [m];
    let names: Vec<String> = offered_for(all.to_vec(), true, &history)
        .into_iter()
        .map(|s| s.exposed_name)
        .collect();
    assert_eq!(names, [FIND_TOOLS, "b"]);
    assert_eq!(
        offered_for(all.to_vec(), false, &history).len(),
        3,
        "off: every tool"
    );
}

/// The measurement the issue asks for: tokens of the tool definitions every request carries,
/// with every real tool offered and with discovery on (before anything is loaded, and after
/// one search loaded what the task needs). Printed with `-- --nocapture`.
#[test]
fn tool_budget_with_real_servers() {
    let all = real_specs();
    assert!(all.len() >= 100, "{} tools", all.len());
    let before = tokens::tools(&all);
    let compact = offered(&all, &BTreeSet::new());
    let after = tokens::tools(&compact);
    let found = search(&all, &args(json!({"query": "create issue github"})));
    let loaded: BTreeSet<String> = found.iter().map(|s| s.exposed_name.clone()).collect();
    let after_load = tokens::tools(&offered(&all, &loaded));
    println!(
        "tool budget: {} tools from {} servers; every request carries ≈{before} tokens of tool definitions with all tools offered, ≈{after} with discovery (compact list + find_tools), ≈{after_load} after one search loaded {:?}",
        all.len(),
        serde_json::from_str::<Vec<Value>>(REAL_TOOLS).unwrap().len(),
        loaded
    );
    assert!(
        after * 3 < before,
        "discovery must cut the cost: {after} vs {before}"
    );
    assert!(loaded.contains("github__create_issue"), "{loaded:?}");
    assert!(after_load < before / 2);
}
