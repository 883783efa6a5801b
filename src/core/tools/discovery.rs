//! Progressive tool discovery: a conversation that turns it on (`ToolOverrides::discovery`)
//! offers the model one tool, `find_tools`, whose description lists every enabled tool in one
//! short line, instead of every tool's full schema; a `find_tools` call loads the full
//! schemas of the tools it names or finds, and from then on (this turn and every later one)
//! those tools are offered in full. Which tools are loaded is read back from the
//! conversation's own `find_tools` results, so a reload or another tab offers the same.
//!
//! Many servers' tools would otherwise fill the context window on every request (65 tools
//! took about 55 % of the default window); with discovery the cost is one line per tool plus
//! the schemas actually used. Nothing here performs IO: the agent machine answers
//! `find_tools` itself, from `search`.

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

use super::spec::ToolSpec;
use crate::records::message::Message;
use crate::records::tool_call::ToolCallStatus;

/// The name the model calls.
pub const FIND_TOOLS: &str = "find_tools";
/// The server id `find_tools` carries in records: no configured server has it (their ids are
/// generated), so it never reaches an MCP server.
pub const SERVER_ID: &str = "skiff:find-tools";
/// How many tools one search loads at most.
pub const MAX_LOADED_PER_CALL: usize = 5;
/// A summary line's description is cut here.
const SUMMARY_CHARS: usize = 90;

/// One tool as the compact list shows it: its name and the start of its description.
pub fn summary_line(spec: &ToolSpec) -> String {
    let first = spec
        .description
        .split(['\n', '.'])
        .map(str::trim)
        .find(|s| !s.is_empty())
        .unwrap_or("");
    let cut: String = first.chars().take(SUMMARY_CHARS).collect();
    let more = if first.chars().count() > SUMMARY_CHARS {
        "…"
    } else {
        ""
    };
    if cut.is_empty() {
        format!("- {}", spec.exposed_name)
    } else {
        format!("- {}: {cut}{more}", spec.exposed_name)
    }
}

/// The `find_tools` tool, listing `all` compactly.
pub fn finder(all: &[ToolSpec]) -> ToolSpec {
    let list: Vec<String> = all.iter().map(summary_line).collect();
    let description = format!(
        "Load tools before calling them. Only tools loaded through this tool can be called; \
         pass their exact names in `names`, or search words in `query`. Available tools:\n{}",
        list.join("\n")
    );
    let schema = json!({
        "type": "object",
        "properties": {
            "names": {"type": "array", "items": {"type": "string"}, "description": "Exact names of tools to load."},
            "query": {"type": "string", "description": "Words to search the tools' names and descriptions for."}
        }
    });
    ToolSpec {
        exposed_name: FIND_TOOLS.into(),
        server_id: SERVER_ID.into(),
        server_name: "Skiff".into(),
        tool_name: FIND_TOOLS.into(),
        description,
        input_schema: schema.as_object().cloned().unwrap_or_default(),
        read_only: true,
    }
}

/// What a turn offers with discovery on: `find_tools`, then the loaded tools in full (in the
/// order of `all`).
pub fn offered(all: &[ToolSpec], loaded: &BTreeSet<String>) -> Vec<ToolSpec> {
    std::iter::once(finder(all))
        .chain(
            all.iter()
                .filter(|s| loaded.contains(&s.exposed_name))
                .cloned(),
        )
        .collect()
}

/// The tools a `find_tools` call loads: the exact `names` it gave (unknown ones ignored),
/// else the best matches of `query` (each word found in a name counts 3, in a description 1),
/// at most [`MAX_LOADED_PER_CALL`].
pub fn search<'a>(all: &'a [ToolSpec], args: &Map<String, Value>) -> Vec<&'a ToolSpec> {
    let names: Vec<&str> = args
        .get("names")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let named: Vec<&ToolSpec> = all
        .iter()
        .filter(|s| names.contains(&s.exposed_name.as_str()))
        .take(MAX_LOADED_PER_CALL)
        .collect();
    if !named.is_empty() {
        return named;
    }
    let query = args
        .get("query")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_lowercase();
    let words: Vec<&str> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 1)
        .collect();
    let mut scored: Vec<(usize, usize, &ToolSpec)> = all
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let name = s.exposed_name.to_lowercase();
            let desc = s.description.to_lowercase();
            let score = words
                .iter()
                .map(|w| 3 * usize::from(name.contains(w)) + usize::from(desc.contains(w)))
                .sum();
            (score, i, s)
        })
        .filter(|(score, ..)| *score > 0)
        .collect();
    crate::order::sort_by(&mut scored, |a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(MAX_LOADED_PER_CALL)
        .map(|(.., s)| s)
        .collect()
}

/// The `CallToolResult` of a `find_tools` call that loaded `found`: the names and schemas in
/// text (the model can call them in its next step), and `structuredContent.loaded`, which
/// [`loaded_in`] reads back.
pub fn result(found: &[&ToolSpec]) -> Value {
    let names: Vec<&str> = found.iter().map(|s| s.exposed_name.as_str()).collect();
    let text = if found.is_empty() {
        "No tool matched. Try other words, or names from the list.".to_string()
    } else {
        let schemas: Vec<String> = found
            .iter()
            .map(|s| {
                format!(
                    "{}: {}\nInput schema: {}",
                    s.exposed_name,
                    s.description,
                    Value::Object(s.object_schema())
                )
            })
            .collect();
        format!(
            "Loaded {}; call them directly from now on.\n\n{}",
            names.join(", "),
            schemas.join("\n\n")
        )
    };
    json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": {"loaded": names},
    })
}

/// The tools a request of this conversation offers: every enabled tool, or with discovery on,
/// `find_tools` and the tools loaded so far in `history`.
pub fn offered_for(all: Vec<ToolSpec>, discovery: bool, history: &[Message]) -> Vec<ToolSpec> {
    if discovery && !all.is_empty() {
        offered(&all, &loaded_in(history))
    } else {
        all
    }
}

/// The tools earlier `find_tools` calls of this conversation loaded.
pub fn loaded_in(messages: &[Message]) -> BTreeSet<String> {
    messages
        .iter()
        .flat_map(|m| &m.tool_calls)
        .filter(|c| c.name == FIND_TOOLS && *c.status() == ToolCallStatus::Done)
        .filter_map(|c| {
            c.result()?
                .pointer("/structuredContent/loaded")?
                .as_array()
                .cloned()
        })
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

#[cfg(test)]
#[path = "discovery_tests.rs"]
mod tests;
