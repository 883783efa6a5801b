//! One sealed piece of a model's thinking, kept on the answer (`Message::thinking`) because a
//! provider that signs its model's thinking refuses a tool loop that continues without it
//! (`crate::thinking` collects them from the stream).

use serde::{Deserialize, Serialize};

/// One piece of thinking as the provider must receive it again: thinking text and the
/// signature that sealed it, or encrypted thinking (`redacted`, the other two then empty).
///
/// A plain struct rather than a tagged enum on purpose: every message record deserializes
/// through it, and serde's tagged-enum path costs the page several KiB of wasm.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Thought {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub signature: String,
    /// Encrypted thinking: opaque data, never shown.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub redacted: String,
}

impl Thought {
    pub fn signed(text: String, signature: String) -> Self {
        Thought {
            text,
            signature,
            redacted: String::new(),
        }
    }

    pub fn redacted(data: String) -> Self {
        Thought {
            redacted: data,
            ..Thought::default()
        }
    }
}
