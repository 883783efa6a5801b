//! What one tab tells the others after writing a conversation body to IndexedDB, which raises
//! no `storage` event: the id and a revision (its `updated_ms`), or that it was deleted. The
//! other tab re-reads the body and merges it; the message never carries the body itself.
//!
//! The text is `"<rev> <w|d> <id>"`, not JSON: three fields need no parser in the page.

#[derive(Debug, Clone, PartialEq)]
pub struct BodyChange {
    pub id: String,
    pub rev: f64,
    pub deleted: bool,
}

impl BodyChange {
    pub fn encode(&self) -> String {
        let kind = if self.deleted { 'd' } else { 'w' };
        format!("{} {kind} {}", self.rev as u64, self.id)
    }

    /// `None` for anything that is not a body change (another page on the channel, a newer
    /// format): it is ignored, never guessed at.
    pub fn decode(text: &str) -> Option<BodyChange> {
        let mut parts = text.splitn(3, ' ');
        let rev = parts.next()?.parse::<u64>().ok()? as f64;
        let deleted = match parts.next()? {
            "w" => false,
            "d" => true,
            _ => return None,
        };
        let id = parts.next().filter(|id| !id.is_empty())?.to_string();
        Some(BodyChange { id, rev, deleted })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_ignores_what_is_not_a_change() {
        for deleted in [false, true] {
            let c = BodyChange {
                id: "c1 with space".into(),
                rev: 12.0,
                deleted,
            };
            assert_eq!(BodyChange::decode(&c.encode()), Some(c));
        }
        for junk in [
            "",
            "hello",
            "12 w ",
            "12 x c1",
            "x w c1",
            "-1 w c1",
            "{\"id\":\"c\"}",
        ] {
            assert_eq!(BodyChange::decode(junk), None, "{junk}");
        }
    }
}
