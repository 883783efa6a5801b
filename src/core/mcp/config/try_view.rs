//! Settings → MCP servers → Tools: each tool as its "try" form shows it, the arguments as
//! typed read into a JSON object, and where a tried call stands. A server's names and words
//! are neutralised here (`display::text`); the page lays the result out. Never markup.

use serde_json::{Map, Value};

use crate::display::text;
use crate::format::decimal;
use crate::mcp::model::Tool;

/// One tool as the list shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct TryTool {
    /// The name as the server gave it (what a call uses).
    pub name: String,
    /// The name as the user should see it.
    pub shown_name: String,
    /// The description by prose rules.
    pub description: String,
    /// The input schema, pretty-printed.
    pub schema: String,
}

impl TryTool {
    pub fn of(tool: &Tool) -> TryTool {
        TryTool {
            name: tool.name.to_string(),
            shown_name: text::name(&tool.name).into_owned(),
            description: text::prose(tool.description.as_deref().unwrap_or("")).into_owned(),
            schema: serde_json::to_string_pretty(&*tool.input_schema).unwrap_or_default(),
        }
    }

    /// A key that changes when anything shown changes (a tool re-listed with another schema
    /// gets a fresh form).
    pub fn key(&self) -> String {
        format!("{}\u{0}{}\u{0}{}", self.name, self.description, self.schema)
    }
}

/// Where a tried call stands.
#[derive(Debug, Clone, PartialEq)]
pub enum TryState {
    /// Running, with the server's last progress ("3/10 — copying") if it sent any.
    Running(String),
    /// The result, as pretty JSON.
    Done(String),
    /// Why the call failed, or why it was not made.
    Failed(String),
}

impl TryState {
    /// Running, with the progress a server reported (`done` of `total`, its message).
    pub fn progress(done: f64, total: Option<f64>, message: Option<&str>) -> TryState {
        let text = match total {
            Some(t) => format!("{}/{}", decimal(done), decimal(t)),
            None => decimal(done),
        };
        TryState::Running(match message {
            Some(m) => format!("{text} — {m}"),
            None => text,
        })
    }

    /// Done, with `result` pretty-printed.
    pub fn done(result: &Value) -> TryState {
        TryState::Done(serde_json::to_string_pretty(result).unwrap_or_else(|_| result.to_string()))
    }

    pub fn is_running(&self) -> bool {
        matches!(self, TryState::Running(_))
    }

    /// The outcome line's text. Text from the server is shown by prose rules (no direction
    /// overrides or invisible characters).
    pub fn text(&self) -> String {
        match self {
            TryState::Running(progress) => format!("Running… {}", text::prose(progress)),
            TryState::Done(s) | TryState::Failed(s) => text::prose(s).into_owned(),
        }
    }
}

/// The arguments box as a JSON object, or the failed state that says why no call was made.
pub fn read_arguments(typed: &str) -> Result<Map<String, Value>, TryState> {
    match serde_json::from_str::<Value>(typed) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(TryState::Failed(
            "Arguments must be a JSON object, like {\"message\": \"hi\"}.".into(),
        )),
        Err(e) => Err(TryState::Failed(format!(
            "Arguments are not valid JSON: {e}."
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_and_outcomes_are_neutralised() {
        let mut schema = Map::new();
        schema.insert("type".into(), "object".into());
        let mut tool = Tool {
            name: "echo\u{202e}".into(),
            description: Some("Echoes \u{202e}back\nand more".into()),
            input_schema: schema.into(),
            ..Tool::default()
        };
        let t = TryTool::of(&tool);
        assert_eq!(t.name, "echo\u{202e}", "a call uses the real name");
        assert_eq!(t.shown_name, "echo<U+202E>");
        assert_eq!(t.description, "Echoes <U+202E>back\nand more");
        assert_eq!(t.schema, "{\n  \"type\": \"object\"\n}");
        tool.description = None;
        let other = TryTool::of(&tool);
        assert_ne!(t.key(), other.key(), "another description, another form");
        assert_eq!(other.description, "");

        assert_eq!(TryState::Running("1/2".into()).text(), "Running… 1/2");
        assert_eq!(
            TryState::progress(3.0, Some(10.0), Some("copying")),
            TryState::Running("3/10 — copying".into())
        );
        assert_eq!(
            TryState::progress(0.5, None, None),
            TryState::Running("0.5".into())
        );
        let done = TryState::done(&serde_json::json!({"a": "<x>\u{200b}"}));
        assert_eq!(done.text(), "{\n  \"a\": \"<x><U+200B>\"\n}");
        assert!(!done.is_running() && TryState::Running(String::new()).is_running());
        assert_eq!(TryState::Failed("no".into()).text(), "no");
    }

    #[test]
    fn arguments_must_be_a_json_object() {
        assert_eq!(
            read_arguments(r#"{"message": "hi"}"#)
                .ok()
                .and_then(|m| m.get("message").cloned()),
            Some(Value::from("hi"))
        );
        assert_eq!(
            read_arguments("[1]"),
            Err(TryState::Failed(
                "Arguments must be a JSON object, like {\"message\": \"hi\"}.".into()
            ))
        );
        match read_arguments("{nope") {
            Err(TryState::Failed(s)) => assert!(s.starts_with("Arguments are not valid JSON: ")),
            other => panic!("{other:?}"),
        }
    }
}
