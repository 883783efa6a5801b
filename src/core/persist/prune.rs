//! Housekeeping decisions for Settings → Storage: which conversations "not changed in N days"
//! names, and when usage is close enough to the quota to warn. Sans-IO: the time, the index
//! and the browser's estimate are arguments.

use crate::records::conversation::ConversationSummary;

const DAY_MS: f64 = 86_400_000.0;

/// Warn once usage passes this share of the quota: writes may start failing soon after.
pub const WARN_SHARE: f64 = 0.9;

/// Ids of conversations last changed more than `days` days before `now_ms`, in the index's
/// order (newest first). `keep` (the open conversation, any a turn streams into) and pinned
/// conversations are never named.
pub fn older_than(
    index: &[ConversationSummary],
    now_ms: f64,
    days: u32,
    keep: &[&str],
) -> Vec<String> {
    let cutoff = now_ms - f64::from(days) * DAY_MS;
    index
        .iter()
        .filter(|s| s.updated_ms < cutoff && !s.pinned && !keep.contains(&s.id.as_str()))
        .map(|s| s.id.clone())
        .collect()
}

/// Whether `usage` of `quota` bytes is close enough to full to tell the user. An unknown or
/// zero quota never warns (nothing to compare against).
pub fn near_full(usage: f64, quota: f64) -> bool {
    quota > 0.0 && usage >= quota * WARN_SHARE
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(id: &str, updated_ms: f64) -> ConversationSummary {
        ConversationSummary {
            id: id.into(),
            title: String::new(),
            updated_ms,
            pinned: false,
            project: None,
        }
    }

    #[test]
    fn never_names_a_pinned_conversation() {
        let now = 100.0 * DAY_MS;
        let index = [
            ConversationSummary {
                pinned: true,
                ..s("kept", 1.0)
            },
            s("old", 2.0),
        ];
        assert_eq!(older_than(&index, now, 30, &[]), ["old"]);
    }

    #[test]
    fn names_only_conversations_older_than_the_cutoff_in_index_order() {
        let now = 100.0 * DAY_MS;
        let index = [
            s("new", now - DAY_MS),
            s("edge", now - 30.0 * DAY_MS),
            s("old", now - 40.0 * DAY_MS),
            s("older", now - 90.0 * DAY_MS),
        ];
        assert_eq!(older_than(&index, now, 30, &[]), ["old", "older"]);
        assert_eq!(
            older_than(&index, now, 0, &[]),
            ["new", "edge", "old", "older"]
        );
        assert!(older_than(&index, now, 365, &[]).is_empty());
    }

    #[test]
    fn the_open_conversation_is_never_named() {
        let now = 100.0 * DAY_MS;
        let index = [s("a", 0.0), s("b", 0.0)];
        assert_eq!(older_than(&index, now, 1, &["a"]), ["b"]);
    }

    #[test]
    fn warns_from_ninety_percent_of_a_known_quota() {
        assert!(!near_full(89.0, 100.0));
        assert!(near_full(90.0, 100.0));
        assert!(near_full(120.0, 100.0));
        assert!(!near_full(10.0, 0.0));
    }
}
