//! Which provider profile and model a conversation (or a mask) chose, as stored with it.

use serde::{Deserialize, Serialize};

/// A conversation's (or the last-used) choice: which profile, which model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelChoice {
    pub profile_id: String,
    /// Empty means the profile's default model.
    #[serde(default)]
    pub model: String,
}
