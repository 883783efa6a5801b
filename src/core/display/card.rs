//! What a tool-call card says: its status (the `data-status` and CSS name), its state line,
//! its labels and its progress line, from the record alone.
//!
//! The record's own status says where the call stands in the loop; the card shows one more
//! distinction the user cares about: an answered call whose result says `isError` is shown as
//! an error. Labels come from the server and the model, so they pass through
//! [`super::text::name`].

use crate::format::decimal;
use serde_json::Value;

use super::text;
use crate::records::tool_call::{ToolCallRecord, ToolCallStatus, ToolProgress};

/// A card's status as shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardStatus {
    Pending,
    AwaitingApproval,
    Running,
    Done,
    Error,
    Cancelled,
    Denied,
}

impl CardStatus {
    pub const ALL: [CardStatus; 7] = [
        CardStatus::Pending,
        CardStatus::AwaitingApproval,
        CardStatus::Running,
        CardStatus::Done,
        CardStatus::Error,
        CardStatus::Cancelled,
        CardStatus::Denied,
    ];

    pub fn of(r: &ToolCallRecord) -> CardStatus {
        match r.status() {
            ToolCallStatus::Pending => CardStatus::Pending,
            ToolCallStatus::AwaitingApproval => CardStatus::AwaitingApproval,
            ToolCallStatus::Running => CardStatus::Running,
            ToolCallStatus::Done if r.is_error() => CardStatus::Error,
            ToolCallStatus::Done => CardStatus::Done,
            ToolCallStatus::Error(_) => CardStatus::Error,
            ToolCallStatus::Cancelled => CardStatus::Cancelled,
            ToolCallStatus::Denied => CardStatus::Denied,
        }
    }

    /// The card's `data-status`, which CSS and the end-to-end tests select on.
    pub fn as_str(self) -> &'static str {
        match self {
            CardStatus::Pending => "pending",
            CardStatus::AwaitingApproval => "awaiting_approval",
            CardStatus::Running => "running",
            CardStatus::Done => "done",
            CardStatus::Error => "error",
            CardStatus::Cancelled => "cancelled",
            CardStatus::Denied => "denied",
        }
    }

    /// The card opens by itself when the user has something to do or read.
    pub fn opens_card(self) -> bool {
        matches!(self, CardStatus::AwaitingApproval | CardStatus::Error)
    }

    /// The state line: "Running… 1.2 s", "Done in 340 ms". `started_ms` and `duration_ms`
    /// come from the record, `now_ms` from the caller's clock.
    pub fn state_text(
        self,
        started_ms: Option<f64>,
        duration_ms: Option<f64>,
        now_ms: f64,
    ) -> String {
        match self {
            CardStatus::AwaitingApproval => "Waiting for approval".into(),
            CardStatus::Running => match started_ms {
                Some(start) => format!(
                    "Running… {} s",
                    crate::format::fixed(((now_ms - start) / 1000.0).max(0.0), 1)
                ),
                None => "Running…".into(),
            },
            CardStatus::Done => match duration_ms {
                Some(ms) => format!("Done in {}", format_ms(ms)),
                None => "Done".into(),
            },
            CardStatus::Error => "Error".into(),
            CardStatus::Cancelled => "Cancelled".into(),
            CardStatus::Denied => "Denied".into(),
            CardStatus::Pending => "Pending".into(),
        }
    }
}

/// A duration for the state line: milliseconds below a second, tenths of seconds above.
pub fn format_ms(ms: f64) -> String {
    if ms < 1000.0 {
        format!("{} ms", crate::format::fixed(ms.max(0.0), 0))
    } else {
        format!("{} s", crate::format::fixed(ms / 1000.0, 1))
    }
}

/// The line a call running as an MCP task shows: the task's status and the server's message
/// ("Task: working — Analyzing content..."), `None` for a call that is no task. The message
/// is the server's, so it passes through [`text::prose`].
pub fn task_line(r: &ToolCallRecord) -> Option<String> {
    let t = r.task()?;
    let status = t.status.label();
    Some(
        match t
            .message
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
        {
            Some(m) => format!("Task: {status} — {}", text::prose(m)),
            None => format!("Task: {status}"),
        },
    )
}

/// The tool's name as shown: its own name on its server, else the name the model used.
pub fn tool_label(r: &ToolCallRecord) -> String {
    let raw = if r.tool_name.is_empty() {
        &r.name
    } else {
        &r.tool_name
    };
    text::name(raw).into_owned()
}

/// The server's name as shown at the time of the call, else its id, else empty.
pub fn server_label(r: &ToolCallRecord) -> String {
    match (&r.server_name, &r.server_id) {
        (n, _) if !n.is_empty() => text::name(n).into_owned(),
        (_, Some(id)) => text::name(id).into_owned(),
        _ => String::new(),
    }
}

/// The arguments as the user should read them: indented when they are JSON, as written when
/// they are not (the model's broken JSON is worth seeing as is). The user approves a call by
/// reading these, and JSON strings may carry a U+202E as is, so they pass through
/// [`text::prose`]: an injected instruction cannot make the arguments read otherwise.
pub fn pretty_arguments(raw: &str) -> String {
    let pretty = match serde_json::from_str::<Value>(raw) {
        Ok(v) => serde_json::to_string_pretty(&v).unwrap_or_else(|_| raw.to_string()),
        Err(_) => raw.to_string(),
    };
    text::prose(&pretty).into_owned()
}

/// A progress notification as a bar (`Some((value, max))`, or `None` for an indeterminate
/// bar) and a line of text. A total of zero or less cannot be a fraction.
pub fn progress(p: &ToolProgress) -> (Option<(f64, f64)>, String) {
    let total = p.total.filter(|t| *t > 0.0);
    let text = match (&p.message, total) {
        (Some(m), _) if !m.trim().is_empty() => text::prose(m).into_owned(),
        (_, Some(total)) => format!("{} of {}", decimal(p.progress), decimal(total)),
        _ => decimal(p.progress),
    };
    (total.map(|t| (p.progress, t)), text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rec(status: ToolCallStatus, result: Option<Value>) -> ToolCallRecord {
        let mut r = ToolCallRecord::new("c1".into(), "ev__echo".into(), "{\"a\":1}".into());
        r.set_for_test(status, result);
        r
    }

    #[test]
    fn an_answer_that_says_is_error_is_shown_as_an_error() {
        let ok = rec(ToolCallStatus::Done, Some(json!({"content": []})));
        let bad = rec(
            ToolCallStatus::Done,
            Some(json!({"content": [], "isError": true})),
        );
        assert_eq!(CardStatus::of(&ok), CardStatus::Done);
        assert_eq!(CardStatus::of(&bad), CardStatus::Error);
        assert_eq!(
            CardStatus::of(&rec(ToolCallStatus::Error("x".into()), None)),
            CardStatus::Error
        );
        assert!(CardStatus::Error.opens_card() && !CardStatus::Done.opens_card());
    }

    #[test]
    fn names_are_distinct_and_match_the_records_status_names() {
        let names: Vec<_> = CardStatus::ALL.iter().map(|s| s.as_str()).collect();
        let mut unique = names.clone();
        unique.dedup();
        assert_eq!(names, unique);
        for (status, card) in [
            (ToolCallStatus::Pending, CardStatus::Pending),
            (
                ToolCallStatus::AwaitingApproval,
                CardStatus::AwaitingApproval,
            ),
            (ToolCallStatus::Running, CardStatus::Running),
            (ToolCallStatus::Cancelled, CardStatus::Cancelled),
            (ToolCallStatus::Denied, CardStatus::Denied),
        ] {
            assert_eq!(status.as_str(), card.as_str());
        }
    }

    #[test]
    fn state_lines() {
        assert_eq!(
            CardStatus::Running.state_text(Some(1000.0), None, 2250.0),
            "Running… 1.2 s"
        );
        assert_eq!(
            CardStatus::Running.state_text(Some(1000.0), None, 900.0),
            "Running… 0.0 s"
        );
        assert_eq!(
            CardStatus::Done.state_text(None, Some(340.4), 0.0),
            "Done in 340 ms"
        );
        assert_eq!(
            CardStatus::Done.state_text(None, Some(2500.0), 0.0),
            "Done in 2.5 s"
        );
        assert_eq!(
            CardStatus::AwaitingApproval.state_text(None, None, 0.0),
            "Waiting for approval"
        );
    }

    #[test]
    fn labels_are_neutralised() {
        let mut r = rec(ToolCallStatus::Pending, None);
        assert_eq!(tool_label(&r), "ev__echo");
        r.tool_name = "echo\u{202E}olleh".into();
        r.server_id = Some("ev".into());
        assert_eq!(tool_label(&r), "echo<U+202E>olleh");
        assert_eq!(server_label(&r), "ev");
        r.server_name = "Every\u{200B}thing".into();
        assert_eq!(server_label(&r), "Every<U+200B>thing");
    }

    #[test]
    fn a_task_shows_its_status_and_the_servers_message_neutralised() {
        use crate::records::task::TaskStatus;
        let mut r = ToolCallRecord::new("c".into(), "t".into(), "{}".into());
        assert_eq!(task_line(&r), None);
        r.start(0.0);
        r.report_task(
            "T",
            TaskStatus::Working,
            Some("Analyzing\u{202E} content...".into()),
        );
        assert_eq!(
            task_line(&r).as_deref(),
            Some("Task: working — Analyzing<U+202E> content...")
        );
        r.report_task("T", TaskStatus::InputRequired, Some("  ".into()));
        assert_eq!(
            task_line(&r).as_deref(),
            Some("Task: waiting for your answer")
        );
    }

    #[test]
    fn arguments_and_progress() {
        assert_eq!(pretty_arguments("{\"a\":1}"), "{\n  \"a\": 1\n}");
        assert_eq!(pretty_arguments("{broken"), "{broken");
        assert_eq!(
            pretty_arguments(r#"{"path":"a\u202Etxt.exe"}"#),
            "{\n  \"path\": \"a<U+202E>txt.exe\"\n}"
        );
        let p = |progress, total, message: Option<&str>| ToolProgress {
            progress,
            total,
            message: message.map(str::to_string),
        };
        assert_eq!(
            progress(&p(2.0, Some(5.0), None)),
            (Some((2.0, 5.0)), "2 of 5".to_string())
        );
        assert_eq!(progress(&p(2.0, Some(0.0), None)), (None, "2".to_string()));
        assert_eq!(
            progress(&p(1.0, None, Some("step\u{202E}x"))),
            (None, "step<U+202E>x".to_string())
        );
    }
}
