//! Where a conversation's title came from, stored with it so a title the user typed is never
//! replaced by a generated one.

use serde::{Deserialize, Serialize};

/// Where a conversation's title came from, which decides whether Skiff may replace it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TitleSource {
    /// Cut from the first user message (conversations stored before titles were generated
    /// decode as this).
    #[default]
    FirstLine,
    /// Written by the model.
    Generated,
    /// Typed by the user: never replaced automatically.
    User,
}
