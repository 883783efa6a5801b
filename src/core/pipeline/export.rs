//! One conversation as a file the user keeps: Markdown to read or paste elsewhere, JSON that
//! Skiff can read back with nothing lost.
//!
//! The Markdown is for people: a heading per turn, tool calls with their arguments and
//! results in code fences long enough that nothing inside can close them, reasoning folded in
//! `<details>`. The JSON is the stored record itself inside a small versioned envelope, so a
//! later Skiff knows what it is reading.

use serde::{Deserialize, Serialize};

use crate::records::conversation::Conversation;
use crate::records::message::{MessageStatus, Role};
use crate::records::tool_call::ToolCallStatus;
use crate::tools::result;

/// The envelope's `format` value.
pub const JSON_FORMAT: &str = "skiff-conversation";
/// The envelope's version; a file with a larger one is refused rather than misread.
pub const JSON_VERSION: u32 = 1;

#[derive(Debug, Serialize, Deserialize)]
pub struct Envelope {
    pub format: String,
    pub version: u32,
    pub exported_ms: f64,
    pub conversation: Conversation,
}

/// The conversation as pretty JSON in the export envelope.
pub fn to_json(c: &Conversation, now_ms: f64) -> String {
    let env = Envelope {
        format: JSON_FORMAT.into(),
        version: JSON_VERSION,
        exported_ms: now_ms,
        conversation: c.clone(),
    };
    // Pretty-printed through a `Value`: the compact serializer of a conversation is already in
    // the page (storage uses it) and pretty-printing a `Value` is small, where a pretty
    // serializer of the whole record would be a second copy of it. Serializing plain data with
    // string keys cannot fail; an empty file would say so.
    serde_json::to_string(&env)
        .ok()
        .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_default()
}

/// Several conversations, one compact export envelope a line (JSONL), which import reads back:
/// "export, then delete old conversations" in Settings → Storage.
pub fn to_json_lines(cs: &[Conversation], now_ms: f64) -> String {
    let mut out = String::new();
    for c in cs {
        let env = Envelope {
            format: JSON_FORMAT.into(),
            version: JSON_VERSION,
            exported_ms: now_ms,
            conversation: c.clone(),
        };
        if let Ok(line) = serde_json::to_string(&env) {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// The conversation as Markdown.
pub fn to_markdown(c: &Conversation) -> String {
    let mut out = String::new();
    let title = if c.title.trim().is_empty() {
        "Untitled conversation"
    } else {
        c.title.trim()
    };
    out.push_str("# ");
    out.push_str(&one_line(title));
    out.push_str("\n\n");
    for m in &c.messages {
        let who = match m.role {
            Role::User => "User".to_string(),
            Role::System => "System".to_string(),
            Role::Assistant => match m.model.as_deref().filter(|s| !s.trim().is_empty()) {
                Some(model) => format!("Assistant ({})", one_line(model)),
                None => "Assistant".to_string(),
            },
        };
        out.push_str(&format!("## {who}\n\n"));
        if !m.reasoning.trim().is_empty() {
            out.push_str("<details><summary>Reasoning</summary>\n\n");
            out.push_str(m.reasoning.trim_end());
            out.push_str("\n\n</details>\n\n");
        }
        for call in &m.tool_calls {
            let tool = if call.server_name.is_empty() {
                call.name.clone()
            } else {
                format!("{} / {}", call.server_name, call.tool_name)
            };
            out.push_str(&format!(
                "**Tool call** `{}` ({})\n\n",
                tool.replace('`', "'"),
                status_word(call.status())
            ));
            push_fenced(&mut out, "json", &call.arguments);
            let r = result::for_model(call, usize::MAX);
            if !r.text.trim().is_empty() {
                out.push_str("Result:\n\n");
                push_fenced(&mut out, "", &r.text);
            }
        }
        if !m.content.trim().is_empty() {
            out.push_str(m.content.trim_end());
            out.push_str("\n\n");
        }
        match &m.status {
            MessageStatus::Error(e) => out.push_str(&format!("> ⚠ {}\n\n", one_line(e))),
            MessageStatus::Stopped => out.push_str("> (stopped before the end)\n\n"),
            MessageStatus::Interrupted => out.push_str("> (interrupted before the end)\n\n"),
            MessageStatus::Done | MessageStatus::Streaming => {}
        }
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// A file name for the export: the title's letters, digits and dashes, never empty, never a
/// path.
pub fn file_name(title: &str, extension: &str) -> String {
    let mut name = String::new();
    for c in title.chars() {
        if c.is_alphanumeric() {
            name.extend(c.to_lowercase());
        } else if !name.ends_with('-') && !name.is_empty() {
            name.push('-');
        }
        if name.chars().count() >= 60 {
            break;
        }
    }
    let name = name.trim_end_matches('-');
    let name = if name.is_empty() {
        "conversation"
    } else {
        name
    };
    format!("{name}.{extension}")
}

fn status_word(s: &ToolCallStatus) -> &'static str {
    s.as_str()
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A fenced block whose fence is longer than any backtick run in `text`.
fn push_fenced(out: &mut String, lang: &str, text: &str) {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let fence = "`".repeat(longest.max(2) + 1);
    out.push_str(&fence);
    out.push_str(lang);
    out.push('\n');
    out.push_str(text.trim_end_matches('\n'));
    out.push('\n');
    out.push_str(&fence);
    out.push_str("\n\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::message::Message;
    use crate::records::tool_call::ToolCallRecord;

    fn sample() -> Conversation {
        let mut c = Conversation::new("c1".into(), 1.0);
        c.title = "Tides\nexplained".into();
        c.messages.push(Message::new(
            "u".into(),
            Role::User,
            "How do tides work?".into(),
            2.0,
        ));
        let mut a = Message::new("a".into(), Role::Assistant, "The moon pulls.\n".into(), 3.0);
        a.model = Some("qwen".into());
        a.reasoning = "Think about gravity.".into();
        let mut call =
            ToolCallRecord::new("t".into(), "lookup".into(), "{\"q\":\"```tides\"}".into());
        call.server_name = "docs".into();
        call.tool_name = "lookup".into();
        call.start(3.0);
        call.finish(
            serde_json::json!({"content":[{"type":"text","text":"High at noon"}]}),
            4.0,
        );
        a.tool_calls.push(call);
        c.messages.push(a);
        let mut e = Message::new("e".into(), Role::Assistant, String::new(), 5.0);
        e.status = MessageStatus::Error("The provider failed.".into());
        c.messages.push(e);
        c
    }

    #[test]
    fn markdown_has_every_turn_tool_and_reasoning_fenced_safely() {
        let md = to_markdown(&sample());
        let want = "# Tides explained

## User

How do tides work?

## Assistant (qwen)

<details><summary>Reasoning</summary>

Think about gravity.

</details>

**Tool call** `docs / lookup` (done)

````json
{\"q\":\"```tides\"}
````

Result:

```
High at noon
```

The moon pulls.

## Assistant

> ⚠ The provider failed.
";
        assert_eq!(md, want);
    }

    #[test]
    fn json_round_trips_inside_a_versioned_envelope() {
        let c = sample();
        let text = to_json(&c, 42.0);
        let env: Envelope = serde_json::from_str(&text).expect("reads back");
        assert_eq!(env.format, JSON_FORMAT);
        assert_eq!(env.version, JSON_VERSION);
        assert_eq!(env.exported_ms, 42.0);
        assert_eq!(env.conversation, c);
    }

    #[test]
    fn file_names_are_safe() {
        assert_eq!(file_name("Tides: explained!", "md"), "tides-explained.md");
        assert_eq!(file_name("../../etc/passwd", "json"), "etc-passwd.json");
        assert_eq!(file_name("", "md"), "conversation.md");
        assert_eq!(file_name("東京 天気", "md"), "東京-天気.md");
        assert!(file_name(&"a".repeat(500), "md").len() <= 63);
    }

    #[test]
    fn json_lines_read_back_through_import_with_nothing_lost() {
        let mut a = Conversation::new("a1".into(), 1.0);
        a.title = "first".into();
        a.messages.push(crate::records::message::Message::new(
            "m1".into(),
            Role::User,
            "line one\nline two".into(),
            2.0,
        ));
        let b = Conversation::new("b2".into(), 3.0);
        let text = to_json_lines(&[a.clone(), b.clone()], 9.0);
        assert_eq!(text.lines().count(), 2);
        let report = crate::pipeline::import::read(&text, |_| false).unwrap();
        assert_eq!(report.added, vec![a, b]);
    }
}
