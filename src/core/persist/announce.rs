//! What one tab tells the others after writing a conversation body to IndexedDB, which raises
//! no `storage` event: the id and a revision (its `updated_ms`), or that it was deleted. The
//! other tab re-reads the body and merges it; the message never carries the body itself.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BodyChange {
    pub id: String,
    pub rev: f64,
    #[serde(default)]
    pub deleted: bool,
}

impl BodyChange {
    pub fn encode(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// `None` for anything that is not a body change (another page on the channel, a newer
    /// format): it is ignored, never guessed at.
    pub fn decode(text: &str) -> Option<BodyChange> {
        serde_json::from_str(text)
            .ok()
            .filter(|c: &BodyChange| !c.id.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_ignores_what_is_not_a_change() {
        let c = BodyChange {
            id: "c1".into(),
            rev: 12.0,
            deleted: true,
        };
        assert_eq!(BodyChange::decode(&c.encode()), Some(c));
        assert_eq!(
            BodyChange::decode(r#"{"id":"c2","rev":3}"#).map(|c| c.deleted),
            Some(false)
        );
        for junk in [
            "",
            "hello",
            "{}",
            r#"{"id":"","rev":1}"#,
            r#"{"id":5,"rev":1}"#,
        ] {
            assert_eq!(BodyChange::decode(junk), None, "{junk}");
        }
    }
}
