//! Versioned records for everything Skiff keeps in browser storage.
//!
//! Every stored value is an envelope `{"v": N, "data": ...}`. Decoding migrates older versions
//! forward and refuses newer ones (a tab running an older Skiff must not overwrite what a newer
//! one wrote). Decoding never panics and never guesses: a value that does not parse is reported
//! as [`PersistError`] and the caller keeps the raw text aside instead of overwriting it.
//!
//! Keys: one per conversation plus a small index, so the cost of a write depends on the size of
//! the conversation being written, never on how many conversations exist.

pub mod announce;
pub mod migrate;
pub mod prune;
pub mod storage_panel;
pub mod whole;

use std::fmt;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::records::conversation::{Conversation, ConversationSummary};

/// Every key Skiff writes starts with this, so foreign keys on the same origin are left alone.
pub const KEY_PREFIX: &str = "skiff:";
pub const SETTINGS_KEY: &str = "skiff:settings";
pub const INDEX_KEY: &str = "skiff:conversations";
pub const CONVERSATION_PREFIX: &str = "skiff:conv:";
/// Where an unreadable value is copied before its key may be written again.
pub const ASIDE_PREFIX: &str = "skiff:aside:";

/// 2: provider profiles (`profiles`, `last_used`) instead of format 1's one flat provider,
/// which `profiles::migrate` turns into the first profile. A build that knows only format 1
/// refuses format 2 rather than saving over the profiles.
pub const SETTINGS_VERSION: u32 = 2;
pub const INDEX_VERSION: u32 = 1;
/// 2: conversations may carry branches, a summary, a clear mark and a title source (issue 12).
/// A version-1 record reads unchanged (every new field has a default); a build that only knows
/// version 1 refuses a version-2 record instead of saving over its branches.
pub const CONVERSATION_VERSION: u32 = 2;

/// How long a deleted conversation's mark is kept (it refuses a late write of the body from a
/// tab that has not yet heard of the delete). A write in flight takes seconds; a week also
/// covers a tab left asleep over a long weekend.
pub const DELETED_MARK_KEEP_MS: f64 = 7.0 * 24.0 * 3_600_000.0;

pub fn conversation_key(id: &str) -> String {
    format!("{CONVERSATION_PREFIX}{id}")
}

pub fn conversation_id_from_key(key: &str) -> Option<&str> {
    key.strip_prefix(CONVERSATION_PREFIX)
        .filter(|id| !id.is_empty())
}

/// The key an unreadable value of `key` is kept under; the timestamp keeps several apart.
pub fn aside_key(key: &str, now_ms: f64) -> String {
    format!(
        "{ASIDE_PREFIX}{}:{}",
        key.trim_start_matches(KEY_PREFIX),
        now_ms as u64
    )
}

/// Why a stored value could not be used.
#[derive(Debug, Clone, PartialEq)]
pub enum PersistError {
    /// Not JSON, or JSON of the wrong shape.
    Corrupt { what: &'static str, detail: String },
    /// Written by a newer Skiff than this one.
    TooNew {
        what: &'static str,
        version: u32,
        known: u32,
    },
}

impl fmt::Display for PersistError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PersistError::Corrupt { what, detail } => write!(
                f,
                "The saved {what} could not be read ({detail}). It was kept aside unchanged; you can download it from Settings."
            ),
            PersistError::TooNew { what, version, known } => write!(
                f,
                "The saved {what} was written by a newer version of Skiff (format {version}, this page knows up to {known}). Reload to update the page; nothing was changed."
            ),
        }
    }
}

impl std::error::Error for PersistError {}

#[derive(Serialize)]
struct EnvelopeOut<'a, T> {
    v: u32,
    data: &'a T,
}

pub(crate) fn encode<T: Serialize>(version: u32, data: &T) -> String {
    // Serializing plain structs of strings and numbers cannot fail; an empty object is a
    // harmless fallback that will simply be reported as corrupt on the next read.
    serde_json::to_string(&EnvelopeOut { v: version, data }).unwrap_or_else(|_| "{}".to_string())
}

/// Split an envelope into its version and payload. A bare object with no `v` is treated as
/// version 0 (the shape before envelopes), which gives migrations a place to start.
pub(crate) fn open(raw: &str, what: &'static str) -> Result<(u32, Value), PersistError> {
    let value: Value = serde_json::from_str(raw).map_err(|e| PersistError::Corrupt {
        what,
        detail: format!("not valid JSON: {e}"),
    })?;
    let Value::Object(mut map) = value else {
        return Err(PersistError::Corrupt {
            what,
            detail: "not a JSON object".into(),
        });
    };
    match (map.remove("v"), map.remove("data")) {
        (Some(v), Some(data)) => {
            let version = v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| PersistError::Corrupt {
                    what,
                    detail: "bad version field".into(),
                })?;
            Ok((version, data))
        }
        (None, None) => Ok((0, Value::Object(map))),
        _ => Err(PersistError::Corrupt {
            what,
            detail: "incomplete envelope".into(),
        }),
    }
}

pub(crate) fn payload<T: DeserializeOwned>(
    data: Value,
    what: &'static str,
) -> Result<T, PersistError> {
    typed(data).map_err(|e| PersistError::Corrupt {
        what,
        detail: e.to_string(),
    })
}

/// `data` as a `T`, read from its JSON text rather than with `serde_json::from_value`.
///
/// Why: every type read both from text (the usual path) and from a `Value` carries two
/// compiled deserializers, one per input. Reading stored records through text leaves the
/// page one per type (measured: a few KiB of the gzip budget). The cost is printing the
/// value once more, which is small next to parsing it, and only on load.
pub fn typed<T: DeserializeOwned>(data: Value) -> Result<T, serde_json::Error> {
    serde_json::from_str(&data.to_string())
}

pub(crate) fn check_known(
    version: u32,
    known: u32,
    what: &'static str,
) -> Result<(), PersistError> {
    if version > known {
        Err(PersistError::TooNew {
            what,
            version,
            known,
        })
    } else {
        Ok(())
    }
}

// --- conversations ---------------------------------------------------------------------------

pub fn encode_conversation(c: &Conversation) -> String {
    encode(CONVERSATION_VERSION, c)
}

pub fn decode_conversation(raw: &str) -> Result<Conversation, PersistError> {
    const WHAT: &str = "conversation";
    let (version, data) = open(raw, WHAT)?;
    check_known(version, CONVERSATION_VERSION, WHAT)?;
    // Versions 0, 1 and 2 share a shape: 2 only added fields with defaults. A version that
    // changes the shape adds its step here, migrating the `Value` before it is typed.
    payload(data, WHAT)
}

// --- index -----------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct IndexData {
    items: Vec<ConversationSummary>,
}

pub fn encode_index(items: &[ConversationSummary]) -> String {
    encode(
        INDEX_VERSION,
        &IndexData {
            items: items.to_vec(),
        },
    )
}

pub fn decode_index(raw: &str) -> Result<Vec<ConversationSummary>, PersistError> {
    const WHAT: &str = "conversation list";
    let (version, data) = open(raw, WHAT)?;
    check_known(version, INDEX_VERSION, WHAT)?;
    Ok(payload::<IndexData>(data, WHAT)?.items)
}

/// Sort summaries in the order the sidebar shows: pinned first, each part newest first.
pub fn sort_index(items: &mut [ConversationSummary]) {
    crate::order::sort_by(items, |a, b| {
        b.pinned
            .cmp(&a.pinned)
            .then_with(|| b.updated_ms.total_cmp(&a.updated_ms))
            .then_with(|| a.id.cmp(&b.id))
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::message::{Message, MessageStatus, Role};

    fn sample() -> Conversation {
        let mut c = Conversation::new("abc".into(), 10.0);
        c.title = "Hello".into();
        let mut m = Message::new("m1".into(), Role::Assistant, "hi **there**".into(), 11.0);
        m.status = MessageStatus::Error("HTTP 500".into());
        m.reasoning = "thinking".into();
        c.messages
            .push(Message::new("m0".into(), Role::User, "hello".into(), 10.5));
        c.messages.push(m);
        c
    }

    #[test]
    fn conversation_round_trip_with_envelope() {
        let c = sample();
        let raw = encode_conversation(&c);
        assert!(raw.starts_with(r#"{"v":2,"data":{"#), "{raw}");
        assert_eq!(decode_conversation(&raw).unwrap(), c);
    }

    #[test]
    fn a_version_one_conversation_opens_unchanged() {
        let c = sample();
        let v1 = encode_conversation(&c).replacen(r#"{"v":2,"#, r#"{"v":1,"#, 1);
        let read = decode_conversation(&v1).unwrap();
        assert_eq!(read, c);
        assert!(read.branches.is_empty() && read.memory.is_none() && read.cleared_after.is_none());
    }

    #[test]
    fn version_zero_bare_object_is_migrated() {
        let c = sample();
        let bare = serde_json::to_string(&c).unwrap();
        assert_eq!(decode_conversation(&bare).unwrap(), c);
    }

    #[test]
    fn newer_version_is_refused_not_misread() {
        let raw = r#"{"v":7,"data":{}}"#;
        let err = decode_conversation(raw).unwrap_err();
        assert_eq!(
            err,
            PersistError::TooNew {
                what: "conversation",
                version: 7,
                known: 2
            }
        );
        assert!(err.to_string().contains("newer version of Skiff"));
    }

    #[test]
    fn corrupt_values_are_reported_with_a_sentence() {
        for raw in [
            "",
            "{",
            "[1,2]",
            "null",
            r#"{"v":"x","data":{}}"#,
            r#"{"v":1}"#,
            r#"{"v":1,"data":{"id":3}}"#,
        ] {
            match decode_conversation(raw) {
                Err(e @ PersistError::Corrupt { .. }) => {
                    assert!(e.to_string().contains("kept aside"), "{raw}")
                }
                other => panic!("{raw:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn index_and_settings_round_trip() {
        let items = vec![sample().summary()];
        assert_eq!(decode_index(&encode_index(&items)).unwrap(), items);
        let s = crate::settings::ChatSettings::default();
        let (encode_settings, decode_settings) = (
            crate::settings::encode_settings,
            crate::settings::decode_settings,
        );
        assert_eq!(decode_settings(&encode_settings(&s)).unwrap(), s);
    }

    #[test]
    fn keys() {
        assert_eq!(conversation_key("x1"), "skiff:conv:x1");
        assert_eq!(conversation_id_from_key("skiff:conv:x1"), Some("x1"));
        assert_eq!(conversation_id_from_key("skiff:conv:"), None);
        assert_eq!(conversation_id_from_key("other"), None);
        assert_eq!(
            aside_key("skiff:conv:x1", 1234.9),
            "skiff:aside:conv:x1:1234"
        );
    }

    #[test]
    fn pinned_is_stored_only_when_set_and_older_records_read_as_unpinned() {
        let c = sample();
        let raw = encode_conversation(&c);
        assert!(!raw.contains("pinned"), "{raw}");
        assert!(!decode_conversation(&raw).unwrap().pinned);
        let mut p = sample();
        p.pinned = true;
        let back = decode_conversation(&encode_conversation(&p)).unwrap();
        assert!(back.pinned);
        assert!(back.summary().pinned);
    }

    #[test]
    fn index_sorted_newest_first() {
        let mut v = vec![
            ConversationSummary {
                id: "a".into(),
                title: String::new(),
                updated_ms: 1.0,
                pinned: false,
                project: None,
            },
            ConversationSummary {
                id: "b".into(),
                title: String::new(),
                updated_ms: 3.0,
                pinned: false,
                project: None,
            },
        ];
        sort_index(&mut v);
        assert_eq!(v[0].id, "b");
    }
}
