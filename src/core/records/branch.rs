//! A continuation the user moved away from (edit, regenerate, switch), kept on the
//! conversation rather than deleted (`crate::branches` holds the rules).

use serde::{Deserialize, Serialize};

use super::message::Message;

/// Messages stashed from one point of the conversation on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Branch {
    /// The message it follows; `None` for an alternative first message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    pub messages: Vec<Message>,
}
