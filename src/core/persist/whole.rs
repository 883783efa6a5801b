//! The rules for a value stored whole under one key (settings, the memory, the MCP server
//! list), decided here once for every such store and tested natively.
//!
//! - Nothing stored: start from the default, free to write.
//! - Readable: use it, free to write.
//! - Unreadable (corrupt): copy it aside first; write only if that copy succeeded, so the
//!   original is never destroyed. The user is told either way.
//! - Written by a newer Skiff: use the default for this tab but never write, since this
//!   build would overwrite what it cannot represent. The user is told.
//! - Storage unreadable (unavailable): never write.
//!
//! Another tab's write of the same key: a readable value is taken whole (last writer wins); a
//! newer format stops this tab from writing; a removed key (storage cleared) is written back
//! from what this tab shows; an unreadable one is ignored (ours replaces it on our next write).

use super::PersistError;

/// Whether this tab may write the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Write {
    Allowed,
    /// Allowed once the stored value has been copied aside; refused if the copy failed.
    AfterAside,
    /// Refused: the stored value is newer than this build, or storage could not be read.
    Refused,
}

/// What to do with the value found at start-up.
#[derive(Debug, Clone, PartialEq)]
pub struct Start<T> {
    /// The value to use; `None` means the default.
    pub value: Option<T>,
    pub write: Write,
    /// A sentence for the user, when something was wrong.
    pub notice: Option<String>,
}

/// Decide what to do with `stored` (the raw value, `None` when absent) at start-up.
pub fn start<T>(
    stored: Option<&str>,
    decode: impl Fn(&str) -> Result<T, PersistError>,
) -> Start<T> {
    let Some(raw) = stored else {
        return Start {
            value: None,
            write: Write::Allowed,
            notice: None,
        };
    };
    match decode(raw) {
        Ok(v) => Start {
            value: Some(v),
            write: Write::Allowed,
            notice: None,
        },
        Err(e @ PersistError::TooNew { .. }) => Start {
            value: None,
            write: Write::Refused,
            notice: Some(e.to_string()),
        },
        Err(e @ PersistError::Corrupt { .. }) => Start {
            value: None,
            write: Write::AfterAside,
            notice: Some(e.to_string()),
        },
    }
}

/// What to do with another tab's write of the key.
#[derive(Debug, Clone, PartialEq)]
pub enum Remote<T> {
    /// Take this value (it differs or not: the store compares).
    Take(T),
    /// The key was removed (storage cleared elsewhere): write back what this tab holds.
    WriteBack,
    /// Written by a newer Skiff: stop writing, and tell the user this sentence.
    StopWriting(String),
    /// Half-written or foreign: keep ours; our next change replaces it.
    Ignore,
}

pub fn remote<T>(raw: Option<&str>, decode: impl Fn(&str) -> Result<T, PersistError>) -> Remote<T> {
    let Some(raw) = raw else {
        return Remote::WriteBack;
    };
    match decode(raw) {
        Ok(v) => Remote::Take(v),
        Err(e @ PersistError::TooNew { .. }) => Remote::StopWriting(e.to_string()),
        Err(PersistError::Corrupt { .. }) => Remote::Ignore,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::ChatSettings;
    use crate::settings::{decode_settings, encode_settings};

    #[test]
    fn nothing_stored_starts_fresh_and_writable() {
        let s = start(None, decode_settings);
        assert_eq!(s.value, None);
        assert_eq!(s.write, Write::Allowed);
        assert_eq!(s.notice, None);
    }

    #[test]
    fn a_readable_value_is_used() {
        let settings = ChatSettings {
            system_prompt: "qwen".into(),
            ..ChatSettings::default()
        };
        let raw = encode_settings(&settings);
        let s = start(Some(&raw), decode_settings);
        assert_eq!(s.value, Some(settings));
        assert_eq!(s.write, Write::Allowed);
    }

    #[test]
    fn a_corrupt_value_is_kept_aside_before_any_write() {
        let s = start(Some("{not json"), decode_settings);
        assert_eq!(s.value, None);
        assert_eq!(s.write, Write::AfterAside);
        assert!(s.notice.unwrap().contains("could not be read"));
    }

    #[test]
    fn a_newer_format_is_never_written_over() {
        let s = start(Some(r#"{"v": 99, "data": {}}"#), decode_settings);
        assert_eq!(s.value, None);
        assert_eq!(s.write, Write::Refused);
        assert!(s.notice.unwrap().contains("newer version of Skiff"));
    }

    #[test]
    fn another_tabs_writes() {
        let raw = encode_settings(&ChatSettings::default());
        assert_eq!(
            remote(Some(&raw), decode_settings),
            Remote::Take(ChatSettings::default())
        );
        assert_eq!(remote(None, decode_settings), Remote::WriteBack);
        assert_eq!(remote(Some("{"), decode_settings), Remote::Ignore);
        assert!(matches!(
            remote(Some(r#"{"v": 99, "data": {}}"#), decode_settings),
            Remote::StopWriting(_)
        ));
    }
}
