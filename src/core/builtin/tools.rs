//! The built-in tools: their MCP definitions (schemas, descriptions, annotations) and what a
//! call does with its arguments.
//!
//! Kept apart from the JSON-RPC plumbing in `server` because this is the part a model sees and
//! depends on: the descriptions tell it when to use each tool, and every refusal is an
//! `isError` result with a sentence it can act on (MCP: input errors are tool results, not
//! protocol errors, so the model can correct itself).

use serde_json::{json, Map, Value};

use super::memory::{MemoryBook, MemoryEntry, Saved};
#[cfg(test)]
use super::memory::{MAX_TAGS, MAX_TAG_CHARS, MAX_TEXT_CHARS};
use crate::calendar;

pub const MEMORY_SAVE: &str = "memory_save";
pub const MEMORY_SEARCH: &str = "memory_search";
pub const MEMORY_DELETE: &str = "memory_delete";
pub const CURRENT_TIME: &str = "current_time";

pub const DEFAULT_SEARCH_LIMIT: usize = 20;
/// Larger limits are lowered to this: a full book in one result would crowd out the
/// conversation.
pub const MAX_SEARCH_LIMIT: usize = 50;

/// What the protocol version in use lets a tool definition or result carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Features {
    /// `annotations` (2025-03-26 and later).
    pub annotations: bool,
    /// `title`, `outputSchema` and `structuredContent` (2025-06-18 and later).
    pub structured: bool,
}

impl Features {
    pub const ALL: Features = Features {
        annotations: true,
        structured: true,
    };

    /// Version strings are ISO dates, so they compare as text.
    pub fn for_version(version: &str) -> Features {
        Features {
            annotations: version >= "2025-03-26",
            structured: version >= "2025-06-18",
        }
    }
}

/// The four tools as the model reads them. Kept as one JSON text rather than `json!` literals:
/// the macro expands to code that builds every map entry by entry, which cost ~20 KB of wasm
/// for what is data. The limits quoted in the descriptions are checked against the constants
/// in the tests.
const DEFINITIONS: &str = include_str!("tool_definitions.json");

#[derive(serde::Deserialize)]
struct ToolDef {
    name: String,
    title: String,
    description: String,
    input: Value,
    output: Value,
    annotations: Value,
}

fn definitions() -> Vec<ToolDef> {
    // The text is ours and tested; a parse failure would be a build defect, shown as no tools.
    serde_json::from_str(DEFINITIONS).unwrap_or_default()
}

/// The `tools` array of a `tools/list` result.
pub fn list(features: Features) -> Vec<Value> {
    definitions()
        .into_iter()
        .map(|d| {
            let mut tool = Map::new();
            tool.insert("name".into(), Value::String(d.name));
            tool.insert("description".into(), Value::String(d.description));
            tool.insert("inputSchema".into(), d.input);
            if features.structured {
                tool.insert("title".into(), Value::String(d.title));
                tool.insert("outputSchema".into(), d.output);
            }
            if features.annotations {
                tool.insert("annotations".into(), d.annotations);
            }
            Value::Object(tool)
        })
        .collect()
}

/// The clock as the page reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clock {
    pub now_ms: f64,
    /// Minutes east of UTC (UTC+05:30 is 330).
    pub tz_offset_minutes: i32,
}

/// A finished call: what the model reads, and the same as data.
#[derive(Debug, Clone, PartialEq)]
pub struct Success {
    pub text: String,
    pub structured: Value,
}

/// What a call did; `Err` is a sentence for an `isError` result.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub result: Result<Success, String>,
    pub book_changed: bool,
}

impl Outcome {
    fn read(result: Result<Success, String>) -> Outcome {
        Outcome {
            result,
            book_changed: false,
        }
    }
}

/// Run a tool; `None` when no built-in tool has that name.
pub fn call(
    name: &str,
    args: &Map<String, Value>,
    book: &mut MemoryBook,
    clock: Clock,
) -> Option<Outcome> {
    let outcome = match name {
        MEMORY_SAVE => save(args, book, clock),
        MEMORY_SEARCH => Outcome::read(search(args, book, clock)),
        MEMORY_DELETE => delete(args, book),
        CURRENT_TIME => Outcome::read(current_time(args, clock)),
        _ => return None,
    };
    Some(outcome)
}

// --- arguments -------------------------------------------------------------------------------

fn only(args: &Map<String, Value>, tool: &str, allowed: &[&str]) -> Result<(), String> {
    let Some(extra) = args.keys().find(|k| !allowed.contains(&k.as_str())) else {
        return Ok(());
    };
    let takes = if allowed.is_empty() {
        "takes no arguments".to_string()
    } else {
        format!("takes only {}", allowed.join(", "))
    };
    Err(format!("{tool} has no argument \"{extra}\"; it {takes}."))
}

/// Absent and `null` both mean "not given": models often send `null` for optional fields.
fn given<'a>(args: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    args.get(key).filter(|v| !v.is_null())
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn opt_string<'a>(args: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, String> {
    match given(args, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!(
            "\"{key}\" must be a string, not {}.",
            type_name(other)
        )),
    }
}

fn req_string<'a>(args: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    opt_string(args, key)?.ok_or_else(|| format!("\"{key}\" is required."))
}

/// An array of strings; a single comma-separated string is accepted too, since models
/// sometimes send `"tags": "a, b"`.
fn opt_tags(args: &Map<String, Value>, key: &str) -> Result<Vec<String>, String> {
    match given(args, key) {
        None => Ok(Vec::new()),
        Some(Value::String(s)) => Ok(super::memory::parse_tag_list(s)),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(format!(
                    "\"{key}\" must be a list of strings; it contains {}.",
                    type_name(other)
                )),
            })
            .collect(),
        Some(other) => Err(format!(
            "\"{key}\" must be a list of strings, not {}.",
            type_name(other)
        )),
    }
}

fn opt_limit(args: &Map<String, Value>) -> Result<usize, String> {
    let Some(v) = given(args, "limit") else {
        return Ok(DEFAULT_SEARCH_LIMIT);
    };
    let n = match v {
        Value::Number(n) => n.as_f64(),
        // Some models quote numbers.
        Value::String(s) => crate::number::parse_finite(s.trim()),
        _ => None,
    };
    match n {
        Some(n) if n.fract() == 0.0 && n >= 1.0 => Ok((n.min(MAX_SEARCH_LIMIT as f64)) as usize),
        _ => Err(format!(
            "\"limit\" must be a whole number from 1 to {MAX_SEARCH_LIMIT}."
        )),
    }
}

// --- tools -----------------------------------------------------------------------------------

fn save(args: &Map<String, Value>, book: &mut MemoryBook, clock: Clock) -> Outcome {
    let parsed = only(args, MEMORY_SAVE, &["text", "tags"])
        .and_then(|()| Ok((req_string(args, "text")?, opt_tags(args, "tags")?)));
    let (text, tags) = match parsed {
        Ok(p) => p,
        Err(e) => return Outcome::read(Err(e)),
    };
    match book.add(text, &tags, clock.now_ms) {
        Ok(Saved::New(id)) => Outcome {
            result: Ok(Success {
                text: format!("Saved as {id}."),
                structured: json!({"id": id, "duplicate": false}),
            }),
            book_changed: true,
        },
        Ok(Saved::Duplicate(id)) => Outcome::read(Ok(Success {
            text: format!("Already saved as {id}; nothing changed."),
            structured: json!({"id": id, "duplicate": true}),
        })),
        Err(e) => Outcome::read(Err(e.to_string())),
    }
}

fn entry_json(e: &MemoryEntry, offset: i32) -> Value {
    json!({
        "id": e.id,
        "text": e.text,
        "tags": e.tags,
        "created": calendar::iso_local(e.created_ms, offset),
        "updated": calendar::iso_local(e.updated_ms, offset),
    })
}

fn search(args: &Map<String, Value>, book: &MemoryBook, clock: Clock) -> Result<Success, String> {
    only(args, MEMORY_SEARCH, &["query", "tag", "limit"])?;
    let query = opt_string(args, "query")?.unwrap_or("").trim();
    let tag = opt_string(args, "tag")?
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let limit = opt_limit(args)?;
    let hits = book.search(query, tag, limit);
    let offset = clock.tz_offset_minutes;
    let structured = json!({
        "memories": hits.entries.iter().map(|e| entry_json(e, offset)).collect::<Vec<_>>(),
        "total": hits.total,
        "returned": hits.entries.len(),
    });
    let text = if book.is_empty() {
        "The memory is empty.".to_string()
    } else if hits.total == 0 {
        let mut what = String::from("No memory");
        if !query.is_empty() {
            what.push_str(&format!(" matches \"{query}\""));
        }
        if let Some(t) = tag {
            let joiner = if query.is_empty() { " is" } else { " and is" };
            what.push_str(&format!("{joiner} tagged \"{t}\""));
        }
        format!("{what}.")
    } else {
        let order = if query.is_empty() {
            "newest first"
        } else {
            "best match first"
        };
        let mut out = format!(
            "{} of {} matching memories, {order}:",
            hits.entries.len(),
            hits.total
        );
        for e in &hits.entries {
            let date = calendar::civil_time(e.updated_ms, offset).date_text();
            out.push_str(&format!("\n- {} ({date}", e.id));
            if !e.tags.is_empty() {
                out.push_str(&format!("; tags: {}", e.tags.join(", ")));
            }
            out.push_str(&format!("): {}", e.text));
        }
        out
    };
    Ok(Success { text, structured })
}

fn delete(args: &Map<String, Value>, book: &mut MemoryBook) -> Outcome {
    let id = match only(args, MEMORY_DELETE, &["id"]).and_then(|()| req_string(args, "id")) {
        Ok(id) => id,
        Err(e) => return Outcome::read(Err(e)),
    };
    match book.delete(id) {
        Ok(gone) => {
            let mut preview: String = gone.text.chars().take(80).collect();
            if gone.text.chars().count() > 80 {
                preview.push('…');
            }
            Outcome {
                result: Ok(Success {
                    text: format!("Deleted {}: \"{preview}\".", gone.id),
                    structured: json!({"id": gone.id, "deleted": true}),
                }),
                book_changed: true,
            }
        }
        Err(e) => Outcome::read(Err(format!(
            "{e} Use memory_search to see the ids of saved memories."
        ))),
    }
}

fn current_time(args: &Map<String, Value>, clock: Clock) -> Result<Success, String> {
    only(args, CURRENT_TIME, &[])?;
    if !clock.now_ms.is_finite() {
        return Err("The page's clock gave no usable time.".into());
    }
    let offset = calendar::clamp_offset(clock.tz_offset_minutes);
    let local = calendar::civil_time(clock.now_ms, offset);
    let utc = calendar::iso_utc(clock.now_ms);
    let unix_ms = clock.now_ms.floor() as i64;
    let offset_text = calendar::offset_text(offset);
    let text = format!(
        "Local time: {} ({}, UTC{offset_text})\nUTC: {utc}\nUnix time: {unix_ms} ms",
        local.iso(),
        local.weekday
    );
    Ok(Success {
        text,
        structured: json!({
            "local": local.iso(),
            "utc": utc,
            "unix_ms": unix_ms,
            "weekday": local.weekday.name(),
            "date": local.date_text(),
            "time": local.time_text(),
            "utc_offset": offset_text,
            "utc_offset_minutes": offset,
        }),
    })
}

#[cfg(test)]
mod definition_tests {
    use super::*;

    #[test]
    fn the_definitions_parse_and_quote_the_real_limits() {
        let defs = definitions();
        let names: Vec<&str> = defs.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(
            names,
            [MEMORY_SAVE, MEMORY_SEARCH, MEMORY_DELETE, CURRENT_TIME]
        );
        let save = &defs[0].description;
        assert!(
            save.contains(&format!("{MAX_TEXT_CHARS} characters")),
            "{save}"
        );
        assert!(save.contains(&format!("{MAX_TAGS} tags")), "{save}");
        let text = DEFINITIONS;
        for n in [
            MAX_TEXT_CHARS,
            MAX_TAGS,
            MAX_TAG_CHARS,
            MAX_SEARCH_LIMIT,
            DEFAULT_SEARCH_LIMIT,
        ] {
            assert!(text.contains(&n.to_string()), "{n} is quoted somewhere");
        }
    }
}
