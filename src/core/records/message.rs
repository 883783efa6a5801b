//! A message as the conversation stores it: who wrote it, its text and thinking, how it
//! ended, the tool calls it made and the files attached to it.
//!
//! A message's `status` is the single source of truth for "is this answer whole?": the UI shows
//! a retry button for anything but `Done`, and a reload turns a `Streaming` message into
//! `Interrupted` so a cut-off answer is never mistaken for a complete one.

use serde::{Deserialize, Serialize};

use super::attachment::Attachment;
use super::finish_reason::FinishReason;
use super::speed::AnswerSpeed;
use super::thought::Thought;
use super::tool_call::ToolCallRecord;
use super::tool_mode::ToolMode;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// Token accounting as reported by the provider (never estimated).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u32,
    pub completion_tokens: u32,
    pub total_tokens: u32,
}

/// Where an assistant message stands. User and system messages are always `Done`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "detail", rename_all = "lowercase")]
pub enum MessageStatus {
    /// Complete: the provider said it was finished.
    Done,
    /// Still arriving in this tab.
    Streaming,
    /// The user pressed Stop; the partial text is kept.
    Stopped,
    /// The page was closed or reloaded while the answer streamed.
    Interrupted,
    /// The request or the stream failed; the text is the sentence shown to the user.
    Error(String),
}

impl MessageStatus {
    /// The status's stored name (`kind`), also the message's `data-status` in the page.
    pub fn as_str(&self) -> &'static str {
        match self {
            MessageStatus::Done => "done",
            MessageStatus::Streaming => "streaming",
            MessageStatus::Stopped => "stopped",
            MessageStatus::Interrupted => "interrupted",
            MessageStatus::Error(_) => "error",
        }
    }

    pub fn is_final(&self) -> bool {
        !matches!(self, MessageStatus::Streaming)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub id: String,
    pub role: Role,
    pub content: String,
    /// Model "thinking" (`reasoning_content`), shown collapsed; never sent back as text.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reasoning: String,
    /// The thinking the provider signed (or encrypted), in order, as it must go back when a
    /// tool loop continues (`crate::thinking`, [`Thought`]). Absent in records without any, so they load
    /// and save byte for byte as before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub thinking: Vec<Thought>,
    pub created_ms: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub status: MessageStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Why generation ended: the provider's word (`stop`, `length`, ...), or the step limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<FinishReason>,
    /// How fast the answer came (shown under it); absent where nothing was timed, so older
    /// records load and save unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed: Option<AnswerSpeed>,
    /// Tools this answer called, in the order the model asked (rendered as cards).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCallRecord>,
    /// How this answer's request offered tools (`Native` or `Prompt`); decides how its calls
    /// and results are replayed to the model. `None` for answers made without tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_mode: Option<ToolMode>,
    /// Files the user attached (`crate::attach`): records only, the bytes live in the blob
    /// store. Absent in records written before attachments, which therefore load unchanged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
}

impl Message {
    pub fn new(id: String, role: Role, content: String, now_ms: f64) -> Self {
        Message {
            id,
            role,
            content,
            reasoning: String::new(),
            thinking: Vec::new(),
            created_ms: now_ms,
            model: None,
            status: MessageStatus::Done,
            usage: None,
            finish_reason: None,
            speed: None,
            tool_calls: Vec::new(),
            tool_mode: None,
            attachments: Vec::new(),
        }
    }
}
