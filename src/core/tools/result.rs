//! MCP tool results, two ways: in full for the user (typed parts the UI renders), and as what
//! the model receives (text, plus images for vision models), cut to a limit that says so.
//!
//! Choices the model-facing text makes:
//! - `structuredContent` is sent (compact JSON) only when the content has no text item: the spec
//!   asks servers to repeat structured output as serialized JSON in a text item, so sending both
//!   would pay for the same data twice.
//! - base64 payloads are never sent as text; the model learns their MIME type and decoded size.
//! - the truncation note is appended after the cut and does not count against the limit, so
//!   the limit is the amount of tool output the model sees, whatever the note's length.

use serde_json::Value;

use crate::base64::base64_decoded_len;
use crate::records::message::{MessageStatus, Role};
use crate::records::tool_call::{ToolCallRecord, ToolCallStatus};

/// Default cap on the characters of one result sent to the model.
pub const DEFAULT_RESULT_CHAR_LIMIT: usize = 16_000;

/// What the model reads for a call the user refused.
pub const DENIED_TEXT: &str =
    "The user denied this tool call. Do not retry it; continue without it or ask the user.";
/// What the model reads for a call the user stopped.
pub const CANCELLED_TEXT: &str = "The call was cancelled by the user before it finished.";
/// What the model reads for a call left unfinished (the page closed or crashed mid-call).
pub const INTERRUPTED_TEXT: &str = "The call was interrupted before it finished.";
/// Put before the content of a result with `isError: true`.
pub const TOOL_ERROR_PREFIX: &str = "The tool reported an error:";

/// One piece of a `CallToolResult`, for display.
#[derive(Debug, Clone, PartialEq)]
pub enum ResultPart {
    Text(String),
    /// Base64 data with its MIME type.
    Image {
        mime: String,
        data: String,
    },
    Audio {
        mime: String,
        data: String,
    },
    /// An embedded resource: text, or a base64 blob.
    Resource {
        uri: String,
        mime: Option<String>,
        text: Option<String>,
        blob: Option<String>,
    },
    ResourceLink {
        uri: String,
        name: String,
        title: Option<String>,
        description: Option<String>,
        mime: Option<String>,
    },
    /// `structuredContent`, pretty-printed.
    Structured(String),
    /// A content item of a type Skiff does not know, pretty-printed.
    Other(String),
}

/// Used when a server omits `mimeType` on binary content, which the spec requires but some
/// servers forget; the data is still worth showing.
const UNKNOWN_MIME: &str = "application/octet-stream";

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
}

fn str_field(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// One content item, typed; `None` when its type is unknown or a required field is missing,
/// so the caller shows it raw instead of guessing.
fn typed_item(item: &Value) -> Option<ResultPart> {
    match item.get("type").and_then(Value::as_str)? {
        "text" => Some(ResultPart::Text(str_field(item, "text")?)),
        "image" => Some(ResultPart::Image {
            mime: str_field(item, "mimeType").unwrap_or_else(|| UNKNOWN_MIME.into()),
            data: str_field(item, "data")?,
        }),
        "audio" => Some(ResultPart::Audio {
            mime: str_field(item, "mimeType").unwrap_or_else(|| UNKNOWN_MIME.into()),
            data: str_field(item, "data")?,
        }),
        "resource" => {
            let r = item.get("resource")?;
            Some(ResultPart::Resource {
                uri: str_field(r, "uri")?,
                mime: str_field(r, "mimeType"),
                text: str_field(r, "text"),
                blob: str_field(r, "blob"),
            })
        }
        "resource_link" => Some(ResultPart::ResourceLink {
            uri: str_field(item, "uri")?,
            name: str_field(item, "name").unwrap_or_default(),
            title: str_field(item, "title"),
            description: str_field(item, "description"),
            mime: str_field(item, "mimeType"),
        }),
        _ => None,
    }
}

/// The parts of a raw `CallToolResult`, in order, `structuredContent` last.
pub fn parts(result: &Value) -> Vec<ResultPart> {
    if !result.is_object() {
        return vec![ResultPart::Other(pretty(result))];
    }
    let mut out = Vec::new();
    match result.get("content") {
        Some(Value::Array(items)) => out.extend(
            items
                .iter()
                .map(|item| typed_item(item).unwrap_or_else(|| ResultPart::Other(pretty(item)))),
        ),
        None | Some(Value::Null) => {}
        Some(other) => out.push(ResultPart::Other(pretty(other))),
    }
    if let Some(s) = result.get("structuredContent").filter(|v| !v.is_null()) {
        out.push(ResultPart::Structured(pretty(s)));
    }
    out
}

/// An image to hand a vision model.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageData {
    pub mime: String,
    pub data: String,
}

/// What the model receives for one call.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelResult {
    pub text: String,
    pub images: Vec<ImageData>,
    pub is_error: bool,
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

fn bytes(n: usize) -> String {
    plural(n, "byte", "bytes")
}

/// The text of a `Done` result, and its images. Items of unknown types go to the model as
/// compact JSON at their position (the user sees them pretty, via `parts`).
fn done_text(result: &Value) -> (String, Vec<ImageData>) {
    if !result.is_object() {
        return (result.to_string(), Vec::new());
    }
    let mut lines: Vec<String> = Vec::new();
    let mut images = Vec::new();
    let mut has_text = false;
    match result.get("content") {
        Some(Value::Array(items)) => {
            for item in items {
                match typed_item(item) {
                    Some(part) => lines.push(part_text(part, &mut images, &mut has_text)),
                    None => lines.push(item.to_string()),
                }
            }
        }
        None | Some(Value::Null) => {}
        Some(other) => lines.push(other.to_string()),
    }
    if !has_text {
        if let Some(s) = result.get("structuredContent").filter(|v| !v.is_null()) {
            lines.push(s.to_string());
        }
    }
    (lines.join("\n"), images)
}

fn part_text(part: ResultPart, images: &mut Vec<ImageData>, has_text: &mut bool) -> String {
    match part {
        ResultPart::Text(t) => {
            *has_text = true;
            t
        }
        ResultPart::Image { mime, data } => {
            let line = format!("[image: {mime}, {}]", bytes(base64_decoded_len(&data)));
            images.push(ImageData { mime, data });
            line
        }
        ResultPart::Audio { mime, data } => {
            format!("[audio: {mime}, {}]", bytes(base64_decoded_len(&data)))
        }
        ResultPart::Resource {
            uri,
            mime,
            text,
            blob,
        } => match text {
            Some(text) => {
                *has_text = true;
                format!("[resource: {uri}]\n{text}")
            }
            None => format!(
                "[binary resource {uri}, {}, {}]",
                mime.as_deref().unwrap_or(UNKNOWN_MIME),
                bytes(blob.as_deref().map(base64_decoded_len).unwrap_or(0))
            ),
        },
        ResultPart::ResourceLink {
            uri,
            name,
            title,
            description,
            ..
        } => {
            let label = title.filter(|t| !t.is_empty()).unwrap_or(name);
            let mut line = if label.is_empty() {
                format!("Resource link: {uri}")
            } else {
                format!("Resource link: {label} ({uri})")
            };
            if let Some(d) = description.filter(|d| !d.is_empty()) {
                line.push_str(" — ");
                line.push_str(&d);
            }
            line
        }
        // typed_item never yields these; parts() adds them around the items.
        ResultPart::Structured(s) | ResultPart::Other(s) => s,
    }
}

/// Cuts `text` to `limit` characters at a char boundary, with a note when something was cut.
pub fn truncate_chars(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        None => text.to_string(),
        Some((cut, _)) => {
            let total = text.chars().count();
            format!(
                "{}\n[Result truncated by Skiff: showing the first {limit} of {total} characters.]",
                &text[..cut]
            )
        }
    }
}

/// The model's view of a finished call (any status: denied, cancelled and errors become
/// sentences the model can act on), text cut to `char_limit` characters with a note saying how
/// much was cut.
pub fn for_model(record: &ToolCallRecord, char_limit: usize) -> ModelResult {
    let (text, images, is_error) = match record.status() {
        ToolCallStatus::Done => {
            let tool_error = record.is_error();
            let (text, images) = match record.result() {
                Some(result) => done_text(result),
                None => (String::new(), Vec::new()),
            };
            let text = match (tool_error, text.trim().is_empty()) {
                (true, true) => format!("{TOOL_ERROR_PREFIX} (no details given)"),
                (true, false) => format!("{TOOL_ERROR_PREFIX}\n{text}"),
                (false, true) if images.is_empty() => "The tool returned no content.".to_string(),
                (false, _) => text,
            };
            (text, images, tool_error)
        }
        ToolCallStatus::Error(sentence) => (sentence.clone(), Vec::new(), true),
        ToolCallStatus::Denied => (DENIED_TEXT.to_string(), Vec::new(), true),
        ToolCallStatus::Cancelled => (CANCELLED_TEXT.to_string(), Vec::new(), true),
        ToolCallStatus::Pending | ToolCallStatus::AwaitingApproval | ToolCallStatus::Running => {
            (INTERRUPTED_TEXT.to_string(), Vec::new(), true)
        }
    };
    ModelResult {
        text: truncate_chars(&text, char_limit),
        images,
        is_error,
    }
}

/// A link or resource worth listing under the final answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub title: String,
    pub uri: String,
}

/// Only web links are kept: the UI can open nothing else, and a `file://` path from a local
/// server means nothing to a page.
fn is_web(uri: &str) -> bool {
    let lower = uri.get(..8).unwrap_or(uri).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

fn title_of(title: Option<&str>, name: Option<&str>, uri: &str) -> String {
    [title, name]
        .into_iter()
        .flatten()
        .map(str::trim)
        .find(|s| !s.is_empty())
        .unwrap_or(uri)
        .to_string()
}

/// Sources from the results of these calls, first occurrence of each URI kept. Only answered
/// calls count, and not those the tool marked `isError` (an error page is not a source).
pub fn sources<'a>(records: impl IntoIterator<Item = &'a ToolCallRecord>) -> Vec<Source> {
    let mut out: Vec<Source> = Vec::new();
    let push = |out: &mut Vec<Source>, uri: &str, title: String| {
        if is_web(uri) && !out.iter().any(|s| s.uri == uri) {
            out.push(Source {
                title,
                uri: uri.to_string(),
            });
        }
    };
    for record in records {
        if *record.status() != ToolCallStatus::Done || record.is_error() {
            continue;
        }
        let Some(Value::Array(items)) = record.result().and_then(|r| r.get("content")) else {
            continue;
        };
        for item in items {
            match item.get("type").and_then(Value::as_str) {
                Some("resource_link") => {
                    if let Some(uri) = item.get("uri").and_then(Value::as_str) {
                        let t = title_of(
                            item.get("title").and_then(Value::as_str),
                            item.get("name").and_then(Value::as_str),
                            uri,
                        );
                        push(&mut out, uri, t);
                    }
                }
                Some("resource") => {
                    let Some(r) = item.get("resource") else {
                        continue;
                    };
                    if let Some(uri) = r.get("uri").and_then(Value::as_str) {
                        let t = title_of(
                            r.get("title").and_then(Value::as_str),
                            r.get("name").and_then(Value::as_str),
                            uri,
                        );
                        push(&mut out, uri, t);
                    }
                }
                _ => {}
            }
        }
    }
    out
}

#[cfg(test)]
#[path = "result_tests.rs"]
mod tests;

/// Whether an answer lists the sources of its turn: an assistant message that made no tool
/// calls itself and has stopped streaming (while it streams it may still turn out to call
/// tools). Earlier messages of the turn made the calls whose results are its sources.
pub fn lists_sources(role: Role, made_tool_calls: bool, status: &MessageStatus) -> bool {
    role == Role::Assistant && !made_tool_calls && *status != MessageStatus::Streaming
}

/// The sources listed under an answer that ends a turn, ready to show: the web links in the
/// results of the tool calls made since the user last wrote, oldest call first, each URI once.
///
/// `earlier_newest_first` yields the role and tool calls of the messages before the answer,
/// newest first; it is read only back to the user's last message. Each `uri` is the href to
/// follow (http or https, as `display::links::web_href` cleaned it) and each title is shown
/// through `display::text::name`, since both come from a server.
pub fn turn_sources<I, C>(earlier_newest_first: I) -> Vec<Source>
where
    I: IntoIterator<Item = (Role, C)>,
    C: AsRef<[ToolCallRecord]>,
{
    let mut turn: Vec<C> = earlier_newest_first
        .into_iter()
        .take_while(|(role, _)| *role != Role::User)
        .filter(|(role, _)| *role == Role::Assistant)
        .map(|(_, calls)| calls)
        .collect();
    turn.reverse();
    let mut out: Vec<Source> = Vec::new();
    for s in sources(turn.iter().flat_map(|c| c.as_ref())) {
        let Some(href) = crate::display::links::web_href(&s.uri) else {
            continue;
        };
        if out.iter().all(|o| o.uri != href) {
            out.push(Source {
                title: crate::display::text::name(&s.title).into_owned(),
                uri: href,
            });
        }
    }
    out
}

#[cfg(test)]
mod turn_source_tests {
    use super::*;
    use serde_json::json;

    fn call(uri: &str, title: &str) -> ToolCallRecord {
        let mut r = ToolCallRecord::new("c".into(), "t".into(), "{}".into());
        r.start(0.0);
        r.finish(
            json!({"content": [
                {"type": "resource_link", "uri": uri, "name": title}
            ]}),
            1.0,
        );
        r
    }

    #[test]
    fn only_a_finished_answer_without_calls_lists_sources() {
        assert!(lists_sources(Role::Assistant, false, &MessageStatus::Done));
        assert!(lists_sources(
            Role::Assistant,
            false,
            &MessageStatus::Stopped
        ));
        assert!(!lists_sources(Role::Assistant, true, &MessageStatus::Done));
        assert!(!lists_sources(
            Role::Assistant,
            false,
            &MessageStatus::Streaming
        ));
        assert!(!lists_sources(Role::User, false, &MessageStatus::Done));
    }

    #[test]
    fn sources_come_from_this_turn_only_oldest_first() {
        // Newest first: the step just before the answer, an earlier step, the user's message,
        // and an older turn that must not count.
        let earlier = vec![
            (Role::Assistant, vec![call("https://b.dev/2", "second")]),
            (
                Role::Assistant,
                vec![
                    call("https://a.dev/1", "first"),
                    call("https://b.dev/2", "dup"),
                ],
            ),
            (Role::User, vec![]),
            (Role::Assistant, vec![call("https://old.dev", "old turn")]),
        ];
        let got = turn_sources(earlier);
        let titles: Vec<_> = got.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(titles, ["first", "dup"]);
        assert_eq!(got[0].uri, "https://a.dev/1");
    }

    #[test]
    fn sources_are_ready_to_show() {
        let earlier = vec![(
            Role::Assistant,
            vec![
                call("HTTPS://ok.dev/x", "Docs\u{202E}txt.exe"),
                call("http://?no-host", "no host"),
                call("javascript:alert(1)", "script"),
            ],
        )];
        let got = turn_sources(earlier);
        assert_eq!(
            got,
            [Source {
                title: "Docs<U+202E>txt.exe".into(),
                uri: "https://ok.dev/x".into()
            }]
        );
        let none: Vec<(Role, Vec<ToolCallRecord>)> = Vec::new();
        assert!(turn_sources(none).is_empty());
    }
}
