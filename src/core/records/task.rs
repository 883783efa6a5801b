//! A tool call that runs as an MCP task (2025-11-25 "tasks" utility): the server's task id
//! and the status it last reported, stored with the tool call so a reload follows the same
//! task again instead of calling the tool a second time.
//!
//! Plain data: which status is final, what the card says and when to poll are decided by
//! `mcp::task`, which imports this leaf (never the reverse).

use serde::{Deserialize, Serialize};

/// The task states the spec names. Unknown states from a newer server read as `Working`
/// (not final), so a follower keeps polling rather than inventing an end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

crate::names::named_enum!(TaskStatus, "task status", {
    Working => "working",
    InputRequired => "input_required",
    Completed => "completed",
    Failed => "failed",
    Cancelled => "cancelled",
});

impl TaskStatus {
    /// Final: the spec allows no transition out of these.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }

    /// The word the tool card shows.
    pub fn label(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "waiting for your answer",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// Reads the spec's name; anything else is `Working` (see the type's doc).
    pub fn from_wire(name: &str) -> TaskStatus {
        name.parse().unwrap_or(TaskStatus::Working)
    }
}

/// The task behind a tool call, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskRef {
    /// The receiver-generated task id (`CreateTaskResult.task.taskId`).
    pub id: String,
    pub status: TaskStatus,
    /// The server's `statusMessage`, untrusted (shown through the display rules).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_form_is_pinned_and_unknown_states_keep_following() {
        let t = TaskRef {
            id: "t-1".into(),
            status: TaskStatus::InputRequired,
            message: None,
        };
        assert_eq!(
            serde_json::to_string(&t).unwrap(),
            r#"{"id":"t-1","status":"input_required"}"#
        );
        for s in TaskStatus::ALL {
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
            assert_eq!(TaskStatus::from_wire(s.as_str()), *s);
        }
        assert_eq!(TaskStatus::from_wire("paused"), TaskStatus::Working);
        assert!(!TaskStatus::InputRequired.is_terminal());
        assert!(TaskStatus::Cancelled.is_terminal());
    }
}
