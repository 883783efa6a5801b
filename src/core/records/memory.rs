//! The summary standing in for a conversation's older messages (compaction and running memory,
//! `crate::pipeline::memory`), as the conversation stores it.

use serde::{Deserialize, Serialize};

/// A summary of the messages up to and including `through`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Memory {
    /// The summary, as the model wrote it (the user may edit it).
    pub text: String,
    /// The last message it covers.
    pub through: String,
}
