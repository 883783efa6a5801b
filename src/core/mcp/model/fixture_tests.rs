//! The owned model against real traffic: every `tools/list`, `resources/list`,
//! `resources/templates/list`, `prompts/list`, `tools/call`, `initialize` and `server/discover`
//! result captured under `tests/fixtures/mcp/captured/` must decode, entry by entry, and
//! re-encode to a subset of what the server sent (nothing invented, nothing altered), with the
//! only dropped members the ones this model leaves out on purpose.

use std::collections::BTreeMap;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Value};

use super::*;
use crate::mcp::test_support::fixture_dir;

/// Every JSON-RPC message in a capture file: a JSON body, SSE `data:` lines, WebSocket frames
/// (`< ` received, `> ` sent) or a JSON array of batch entries.
fn messages_in(text: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut push = |v: Value| match v {
        Value::Array(items) => out.extend(items),
        v => out.push(v),
    };
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        push(v);
        return out;
    }
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        let body = ["data: ", "data:", "< ", "> "]
            .iter()
            .find_map(|p| line.strip_prefix(p))
            .unwrap_or(line);
        if let Ok(v) = serde_json::from_str::<Value>(body) {
            push(v);
        }
    }
    out
}

fn capture_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a readable directory entry").path())
        .collect();
    crate::order::sort(&mut entries);
    for p in entries {
        if p.is_dir() {
            capture_files(&p, out);
        } else if !matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("req" | "headers" | "md" | "curl-error")
        ) {
            out.push(p);
        }
    }
}

/// Whether `ours` (what we re-encode) is contained in `theirs` (what the server sent).
fn contained(ours: &Value, theirs: &Value) -> bool {
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => a
            .iter()
            .all(|(k, v)| b.get(k).is_some_and(|w| contained(v, w))),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(v, w)| contained(v, w))
        }
        _ => ours == theirs,
    }
}

/// Members of `theirs` that `ours` dropped, as `path` strings.
fn dropped(ours: &Value, theirs: &Value, path: &str, out: &mut Vec<String>) {
    if let (Value::Object(a), Value::Object(b)) = (ours, theirs) {
        for (k, w) in b {
            let p = format!("{path}.{k}");
            match a.get(k) {
                Some(v) => dropped(v, w, &p, out),
                None => out.push(p),
            }
        }
    }
}

#[derive(Default)]
struct Seen {
    counts: BTreeMap<&'static str, usize>,
    dropped: BTreeMap<String, usize>,
}

impl Seen {
    /// Decode `v` as `T`, check the round trip, and count it under `what`.
    fn check<T>(&mut self, what: &'static str, v: &Value, file: &str) -> T
    where
        T: DeserializeOwned + Serialize + PartialEq + std::fmt::Debug,
    {
        let typed: T = serde_json::from_value(v.clone())
            .unwrap_or_else(|e| panic!("{file}: a {what} did not decode: {e}\n{v}"));
        let back = serde_json::to_value(&typed).expect("serializes");
        assert!(
            contained(&back, v),
            "{file}: a {what} re-encoded to something the server did not send:\n{back}\nvs\n{v}"
        );
        let again: T = serde_json::from_value(back.clone()).expect("decodes its own output");
        assert_eq!(again, typed, "{file}: a {what} changed in a round trip");
        let mut lost = Vec::new();
        dropped(&back, v, what, &mut lost);
        for l in lost {
            *self.dropped.entry(l).or_default() += 1;
        }
        *self.counts.entry(what).or_default() += 1;
        typed
    }
}

#[test]
fn every_captured_result_decodes_and_round_trips() {
    let mut files = Vec::new();
    capture_files(&fixture_dir().join("captured"), &mut files);
    let mut seen = Seen::default();
    for path in &files {
        let text =
            String::from_utf8_lossy(&std::fs::read(path).expect("readable capture")).into_owned();
        let file = path.display().to_string();
        for msg in messages_in(&text) {
            if let Some(id) = msg.get("id").filter(|id| !id.is_null()) {
                seen.check::<RequestId>("id", id, &file);
            }
            if let Some(token) = msg.pointer("/params/progressToken") {
                seen.check::<RequestId>("progressToken", token, &file);
            }
            let Some(result) = msg.get("result").filter(|r| r.is_object()) else {
                continue;
            };
            for (field, what) in [
                ("tools", "Tool"),
                ("resources", "Resource"),
                ("resourceTemplates", "ResourceTemplate"),
                ("prompts", "Prompt"),
            ] {
                for entry in result
                    .get(field)
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    match what {
                        "Tool" => drop(seen.check::<Tool>(what, entry, &file)),
                        "Resource" => drop(seen.check::<Resource>(what, entry, &file)),
                        "ResourceTemplate" => {
                            drop(seen.check::<ResourceTemplate>(what, entry, &file))
                        }
                        _ => drop(seen.check::<Prompt>(what, entry, &file)),
                    }
                }
            }
            if let Some(info) = result.get("serverInfo") {
                seen.check::<Implementation>("serverInfo", info, &file);
            }
            if let Some(info) = result.pointer("/_meta/io.modelcontextprotocol~1serverInfo") {
                seen.check::<Implementation>("serverInfo", info, &file);
            }
            if let Some(caps) = result.get("capabilities") {
                seen.check::<ServerCapabilities>("ServerCapabilities", caps, &file);
            }
            let is_tool_result = ["content", "structuredContent", "isError"]
                .iter()
                .any(|k| result.get(*k).is_some());
            if is_tool_result && result.get("contents").is_none() {
                let r = seen.check::<CallToolResult>("CallToolResult", result, &file);
                for block in &r.content {
                    assert!(
                        !matches!(block, ContentBlock::Other(_)),
                        "{file}: a content block of a kind the model should know: {block:?}"
                    );
                }
            }
        }
    }
    // The captures hold at least this much of each; fewer means the walk above lost them.
    for (what, at_least) in [
        ("Tool", 20),
        ("Resource", 5),
        ("ResourceTemplate", 1),
        ("Prompt", 3),
        ("serverInfo", 8),
        ("ServerCapabilities", 8),
        ("CallToolResult", 8),
        ("id", 50),
        ("progressToken", 2),
    ] {
        let n = seen.counts.get(what).copied().unwrap_or(0);
        assert!(n >= at_least, "only {n} {what} found in the captures");
    }
    // Dropped on purpose (see the module doc); anything else lost is a field to add.
    let allowed = [
        "Resource.annotations",
        "Resource.icons",
        "Tool.icons",
        "Tool.execution",
    ];
    let unexpected: Vec<_> = seen
        .dropped
        .keys()
        .filter(|k| !allowed.iter().any(|a| k.starts_with(a)))
        .collect();
    assert!(unexpected.is_empty(), "members dropped: {unexpected:?}");
    println!(
        "decoded: {:?}\ndropped on purpose: {:?}",
        seen.counts, seen.dropped
    );
}

#[test]
fn lenient_where_a_client_must_be_and_strict_where_an_entry_is_useless() {
    // Unknown members and a missing inputSchema or version do not cost the entry.
    let t: Tool = serde_json::from_value(json!({"name": "t", "futureField": {"x": 1}})).unwrap();
    assert!(t.input_schema.is_empty());
    let i: Implementation = serde_json::from_value(json!({"name": "srv"})).unwrap();
    assert_eq!((i.name.as_str(), i.version.as_str()), ("srv", ""));
    let c: ServerCapabilities =
        serde_json::from_value(json!({"tools": {}, "somethingNew": true})).unwrap();
    assert!(c.tools.is_some() && c.prompts.is_none());
    // Without what identifies it, an entry is refused (and `decode_page` skips just that one).
    assert!(serde_json::from_value::<Tool>(json!({"description": "x"})).is_err());
    assert!(serde_json::from_value::<Resource>(json!({"name": "x"})).is_err());
    assert!(serde_json::from_value::<ResourceTemplate>(json!({"name": "x"})).is_err());
    assert!(serde_json::from_value::<Prompt>(json!({"title": "x"})).is_err());
    // A tool result: a new block kind is kept, not fatal; an `input_required` is not a result.
    let r: CallToolResult = serde_json::from_value(json!({
        "content": [{"type": "text", "text": "hi"}, {"type": "hologram", "depth": 3}],
        "structuredContent": null
    }))
    .unwrap();
    assert!(matches!(&r.content[1], ContentBlock::Other(v) if v["type"] == "hologram"));
    assert_eq!(r.structured_content, Some(Value::Null));
    assert!(
        serde_json::from_value::<CallToolResult>(json!({"resultType": "input_required"})).is_err()
    );
    assert!(serde_json::from_value::<CallToolResult>(json!({})).is_err());
}
