//! The built-in memory: short notes the model (through `memory_save`) or the user (in
//! Settings) keeps across conversations, with the rules both must obey in one place.
//!
//! It exists in core so that the limits, the id scheme and the search order are the same
//! whether a tool call or the settings page changes the book, and so they are tested
//! natively. The book is stored whole under [`MEMORY_KEY`] in the usual `{"v":N,"data":..}`
//! envelope, together with the switch that turns the built-in tools on or off.

use std::collections::HashSet;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::persist::PersistError;

pub const MEMORY_KEY: &str = "skiff:memory";
pub const MEMORY_VERSION: u32 = 1;

/// Enough for a personal notebook; small enough that the whole book stays well under the
/// 5 MB localStorage quota (500 × 4,000 characters is 4 MB only in the worst case).
pub const MAX_ENTRIES: usize = 500;
pub const MAX_TEXT_CHARS: usize = 4_000;
pub const MAX_TAGS: usize = 10;
pub const MAX_TAG_CHARS: usize = 40;

/// Query words shorter than this only match whole words: "s" in "user's" must not match
/// every word starting with s.
const PREFIX_MIN_CHARS: usize = 3;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryEntry {
    pub id: String,
    pub text: String,
    #[serde(default)]
    pub tags: Vec<String>,
    pub created_ms: f64,
    pub updated_ms: f64,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MemoryBook {
    /// Oldest first (the order they were saved in).
    #[serde(default)]
    pub entries: Vec<MemoryEntry>,
    /// Ids are never reused, so a deleted id the model still remembers cannot silently point
    /// at a different memory.
    #[serde(default)]
    next_id: u64,
}

/// Why a change to the book was refused; each message is a sentence fit for the user or the
/// model.
#[derive(Debug, Clone, PartialEq)]
pub enum MemoryError {
    EmptyText,
    TextTooLong {
        chars: usize,
    },
    TooManyTags {
        count: usize,
    },
    TagTooLong {
        tag: String,
    },
    Full,
    NotFound {
        id: String,
    },
    /// The page is closing and its state is gone.
    Unavailable,
}

impl fmt::Display for MemoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemoryError::EmptyText => {
                f.write_str("The memory text is empty: write what should be remembered.")
            }
            MemoryError::TextTooLong { chars } => write!(
                f,
                "The memory text is {chars} characters long, and the limit is {MAX_TEXT_CHARS}. Shorten it or split it into several memories."
            ),
            MemoryError::TooManyTags { count } => write!(
                f,
                "{count} tags were given, and a memory can have at most {MAX_TAGS}."
            ),
            MemoryError::TagTooLong { tag } => write!(
                f,
                "The tag \"{}\" is longer than {MAX_TAG_CHARS} characters.",
                shorten(tag, MAX_TAG_CHARS)
            ),
            MemoryError::Full => write!(
                f,
                "The memory is full ({MAX_ENTRIES} entries). Delete memories that are no longer needed before saving new ones."
            ),
            MemoryError::NotFound { id } => {
                write!(f, "No memory has the id \"{}\".", shorten(id, 40))
            }
            MemoryError::Unavailable => {
                f.write_str("The memory is not available right now; reload the page.")
            }
        }
    }
}

impl std::error::Error for MemoryError {}

fn shorten(s: &str, max_chars: usize) -> String {
    if s.chars().count() <= max_chars {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(max_chars).collect();
        out.push('…');
        out
    }
}

/// What a save did.
#[derive(Debug, Clone, PartialEq)]
pub enum Saved {
    New(String),
    /// The same text (ignoring case and surrounding space) was already saved under this id;
    /// nothing changed. Models tend to save the same fact again in every conversation.
    Duplicate(String),
}

impl Saved {
    pub fn id(&self) -> &str {
        match self {
            Saved::New(id) | Saved::Duplicate(id) => id,
        }
    }
}

/// Search results: at most `limit` entries, and how many matched in all.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHits<'a> {
    pub entries: Vec<&'a MemoryEntry>,
    pub total: usize,
}

fn clean_text(text: &str) -> Result<String, MemoryError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(MemoryError::EmptyText);
    }
    let chars = text.chars().count();
    if chars > MAX_TEXT_CHARS {
        return Err(MemoryError::TextTooLong { chars });
    }
    Ok(text.to_string())
}

/// Tags are trimmed, lower-cased and de-duplicated so "Work" and "work " are one tag; empty
/// ones are dropped.
pub fn normalize_tags<S: AsRef<str>>(tags: &[S]) -> Result<Vec<String>, MemoryError> {
    let mut out: Vec<String> = Vec::new();
    for tag in tags {
        let tag = tag.as_ref().trim().to_lowercase();
        if tag.is_empty() || out.contains(&tag) {
            continue;
        }
        if tag.chars().count() > MAX_TAG_CHARS {
            return Err(MemoryError::TagTooLong { tag });
        }
        out.push(tag);
    }
    if out.len() > MAX_TAGS {
        return Err(MemoryError::TooManyTags { count: out.len() });
    }
    Ok(out)
}

/// Tags as typed in a settings field: `work, travel plans`.
pub fn parse_tag_list(input: &str) -> Vec<String> {
    input
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect()
}

/// Lower-cased runs of letters and digits, in any script.
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

fn word_matches(entry_word: &str, query_word: &str) -> bool {
    entry_word == query_word
        || (query_word.chars().count() >= PREFIX_MIN_CHARS && entry_word.starts_with(query_word))
}

impl MemoryBook {
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn get(&self, id: &str) -> Option<&MemoryEntry> {
        let id = id.trim();
        self.entries.iter().find(|e| e.id == id)
    }

    /// Entries as Settings lists them: most recently changed first.
    pub fn newest_first(&self) -> Vec<&MemoryEntry> {
        let mut all: Vec<(usize, &MemoryEntry)> = self.entries.iter().enumerate().collect();
        crate::order::sort_by(&mut all, |(ia, a), (ib, b)| {
            b.updated_ms.total_cmp(&a.updated_ms).then(ib.cmp(ia))
        });
        all.into_iter().map(|(_, e)| e).collect()
    }

    fn allocate_id(&mut self) -> String {
        // A hand-edited or merged book may hold ids beyond the counter: never collide.
        let highest = self
            .entries
            .iter()
            .filter_map(|e| e.id.strip_prefix('m')?.parse::<u64>().ok())
            .max()
            .unwrap_or(0);
        let n = self.next_id.max(highest.saturating_add(1)).max(1);
        self.next_id = n.saturating_add(1);
        format!("m{n}")
    }

    /// Save a new memory. The same text saved again returns the existing id and changes
    /// nothing.
    pub fn add<S: AsRef<str>>(
        &mut self,
        text: &str,
        tags: &[S],
        now_ms: f64,
    ) -> Result<Saved, MemoryError> {
        let text = clean_text(text)?;
        let tags = normalize_tags(tags)?;
        let folded = text.to_lowercase();
        if let Some(same) = self
            .entries
            .iter()
            .find(|e| e.text.to_lowercase() == folded)
        {
            return Ok(Saved::Duplicate(same.id.clone()));
        }
        if self.entries.len() >= MAX_ENTRIES {
            return Err(MemoryError::Full);
        }
        let id = self.allocate_id();
        let now = finite(now_ms);
        self.entries.push(MemoryEntry {
            id: id.clone(),
            text,
            tags,
            created_ms: now,
            updated_ms: now,
        });
        Ok(Saved::New(id))
    }

    /// Add the memories of `other` (a backup's) that are not here: one with the same text
    /// is already here whatever its id, and the others get ids of this book, keeping their
    /// dates. Returns how many were added; what cannot be added (a full book) is left out.
    pub fn merge(&mut self, other: &MemoryBook) -> usize {
        let mut added = 0;
        for e in &other.entries {
            if let Ok(Saved::New(id)) = self.add(&e.text, &e.tags, e.created_ms) {
                if let Some(new) = self.entries.iter_mut().find(|x| x.id == id) {
                    new.updated_ms = finite(e.updated_ms);
                }
                added += 1;
            }
        }
        added
    }

    /// Replace a memory's text and tags. Returns whether anything changed.
    pub fn edit<S: AsRef<str>>(
        &mut self,
        id: &str,
        text: &str,
        tags: &[S],
        now_ms: f64,
    ) -> Result<bool, MemoryError> {
        let text = clean_text(text)?;
        let tags = normalize_tags(tags)?;
        let id = id.trim();
        let entry = self
            .entries
            .iter_mut()
            .find(|e| e.id == id)
            .ok_or_else(|| MemoryError::NotFound { id: id.to_string() })?;
        if entry.text == text && entry.tags == tags {
            return Ok(false);
        }
        entry.text = text;
        entry.tags = tags;
        entry.updated_ms = finite(now_ms).max(entry.created_ms);
        Ok(true)
    }

    pub fn delete(&mut self, id: &str) -> Result<MemoryEntry, MemoryError> {
        let id = id.trim();
        let at = self
            .entries
            .iter()
            .position(|e| e.id == id)
            .ok_or_else(|| MemoryError::NotFound { id: id.to_string() })?;
        Ok(self.entries.remove(at))
    }

    /// Entries matching any word of `query` (case-insensitive; a query word of three or more
    /// characters also matches words it starts with, so "birthday" finds "birthdays"), in text
    /// or tags. Entries matching more of the query's words come first, then the most recently
    /// changed. A query without words lists everything, newest first. `tag` keeps only entries
    /// with that tag.
    pub fn search(&self, query: &str, tag: Option<&str>, limit: usize) -> SearchHits<'_> {
        let mut query_words: Vec<String> = Vec::new();
        for w in words(query) {
            if !query_words.contains(&w) {
                query_words.push(w);
            }
        }
        let tag = tag
            .map(|t| t.trim().to_lowercase())
            .filter(|t| !t.is_empty());
        let mut scored: Vec<(usize, usize, &MemoryEntry)> = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, e)| match &tag {
                Some(t) => e.tags.iter().any(|et| et.to_lowercase() == *t),
                None => true,
            })
            .filter_map(|(i, e)| {
                if query_words.is_empty() {
                    return Some((0, i, e));
                }
                let entry_words: HashSet<String> = words(&e.text)
                    .chain(e.tags.iter().flat_map(|t| words(t)))
                    .collect();
                let score = query_words
                    .iter()
                    .filter(|q| entry_words.iter().any(|w| word_matches(w, q)))
                    .count();
                (score > 0).then_some((score, i, e))
            })
            .collect();
        crate::order::sort_by(&mut scored, |(sa, ia, a), (sb, ib, b)| {
            sb.cmp(sa)
                .then(b.updated_ms.total_cmp(&a.updated_ms))
                .then(ib.cmp(ia))
        });
        let total = scored.len();
        SearchHits {
            entries: scored.into_iter().take(limit).map(|(_, _, e)| e).collect(),
            total,
        }
    }
}

fn finite(ms: f64) -> f64 {
    // A NaN would be written as JSON `null` and make the whole book unreadable next time.
    if ms.is_finite() {
        ms
    } else {
        0.0
    }
}

/// What is stored under [`MEMORY_KEY`]: the book and whether the built-in tools are on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemoryRecord {
    #[serde(default = "enabled_by_default")]
    pub builtin_enabled: bool,
    #[serde(default)]
    pub book: MemoryBook,
}

fn enabled_by_default() -> bool {
    true
}

impl Default for MemoryRecord {
    fn default() -> Self {
        MemoryRecord {
            builtin_enabled: true,
            book: MemoryBook::default(),
        }
    }
}

#[derive(Serialize)]
struct EnvelopeOut<'a> {
    v: u32,
    data: RecordOut<'a>,
}

/// [`MemoryRecord`] by reference, so a store can save without cloning its book.
#[derive(Serialize)]
struct RecordOut<'a> {
    builtin_enabled: bool,
    book: &'a MemoryBook,
}

/// What [`MemoryRecord::encode`] writes, from the parts a store holds.
pub fn encode_record(builtin_enabled: bool, book: &MemoryBook) -> String {
    // Strings, finite numbers and booleans always serialize; "{}" would be reported as
    // unreadable on the next load rather than misread.
    serde_json::to_string(&EnvelopeOut {
        v: MEMORY_VERSION,
        data: RecordOut {
            builtin_enabled,
            book,
        },
    })
    .unwrap_or_else(|_| "{}".to_string())
}

const WHAT: &str = "memory";

impl MemoryRecord {
    pub fn encode(&self) -> String {
        encode_record(self.builtin_enabled, &self.book)
    }

    /// Refuses newer versions (an older tab must not overwrite them) and reports anything that
    /// does not parse; the caller keeps such a value aside.
    pub fn decode(raw: &str) -> Result<MemoryRecord, PersistError> {
        let corrupt = |detail: String| PersistError::Corrupt { what: WHAT, detail };
        let value: Value =
            serde_json::from_str(raw).map_err(|e| corrupt(format!("not valid JSON: {e}")))?;
        let Value::Object(mut map) = value else {
            return Err(corrupt("not a JSON object".into()));
        };
        let data = match (map.remove("v"), map.remove("data")) {
            (Some(v), Some(data)) => {
                let version = v
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .ok_or_else(|| corrupt("bad version field".into()))?;
                if version > MEMORY_VERSION {
                    return Err(PersistError::TooNew {
                        what: WHAT,
                        version,
                        known: MEMORY_VERSION,
                    });
                }
                data
            }
            (None, None) => Value::Object(map),
            _ => return Err(corrupt("incomplete envelope".into())),
        };
        crate::persist::typed(data).map_err(|e| corrupt(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO_TAGS: &[&str] = &[];

    fn book_with(texts: &[(&str, &[&str], f64)]) -> MemoryBook {
        let mut b = MemoryBook::default();
        for (text, tags, at) in texts {
            b.add(text, tags, *at).unwrap();
        }
        b
    }

    #[test]
    fn ids_are_sequential_and_never_reused() {
        let mut b = MemoryBook::default();
        assert_eq!(b.add("one", NO_TAGS, 1.0).unwrap(), Saved::New("m1".into()));
        assert_eq!(b.add("two", NO_TAGS, 2.0).unwrap(), Saved::New("m2".into()));
        b.delete("m2").unwrap();
        assert_eq!(
            b.add("three", NO_TAGS, 3.0).unwrap(),
            Saved::New("m3".into())
        );
        // A book whose counter lags behind its ids (hand-edited) still gets a fresh id.
        b.entries[0].id = "m40".into();
        b.next_id = 0;
        assert_eq!(
            b.add("four", NO_TAGS, 4.0).unwrap(),
            Saved::New("m41".into())
        );
    }

    #[test]
    fn duplicates_are_not_saved_twice() {
        let mut b = MemoryBook::default();
        b.add("Likes tea", NO_TAGS, 1.0).unwrap();
        assert_eq!(
            b.add("  likes TEA ", &["x"], 2.0).unwrap(),
            Saved::Duplicate("m1".into())
        );
        assert_eq!(b.len(), 1);
    }

    #[test]
    fn limits_are_enforced_with_sentences() {
        let mut b = MemoryBook::default();
        assert_eq!(b.add("   ", NO_TAGS, 0.0), Err(MemoryError::EmptyText));
        let long = "é".repeat(MAX_TEXT_CHARS + 1);
        let err = b.add(&long, NO_TAGS, 0.0).unwrap_err();
        assert_eq!(err, MemoryError::TextTooLong { chars: 4001 });
        assert!(err.to_string().contains("limit is 4000"), "{err}");
        assert!(b.add(&"é".repeat(MAX_TEXT_CHARS), NO_TAGS, 0.0).is_ok());
        let tags: Vec<String> = (0..11).map(|i| format!("t{i}")).collect();
        assert_eq!(
            b.add("x", &tags, 0.0),
            Err(MemoryError::TooManyTags { count: 11 })
        );
        let err = b.add("x", &["a".repeat(41)], 0.0).unwrap_err();
        assert!(matches!(err, MemoryError::TagTooLong { .. }));
        assert!(err.to_string().contains("longer than 40"), "{err}");
        for i in 1..MAX_ENTRIES {
            b.add(&format!("fact {i}"), NO_TAGS, 0.0).unwrap();
        }
        assert_eq!(b.len(), MAX_ENTRIES);
        let err = b.add("one too many", NO_TAGS, 0.0).unwrap_err();
        assert_eq!(err, MemoryError::Full);
        assert!(err.to_string().contains("full (500 entries)"));
    }

    #[test]
    fn tags_are_normalized() {
        assert_eq!(
            normalize_tags(&[" Work", "work", "", "Travel Plans "]).unwrap(),
            ["work", "travel plans"]
        );
        assert_eq!(parse_tag_list(" a, b ,,c "), ["a", "b", "c"]);
    }

    #[test]
    fn edit_and_delete() {
        let mut b = book_with(&[("old", &[], 1.0)]);
        assert_eq!(b.edit("m1", "new", &["T"], 5.0), Ok(true));
        assert_eq!(b.edit("m1", "new", &["t"], 6.0), Ok(false));
        let e = b.get("m1").unwrap();
        assert_eq!(
            (e.text.as_str(), e.tags.clone(), e.updated_ms),
            ("new", vec!["t".to_string()], 5.0)
        );
        assert_eq!(e.created_ms, 1.0);
        assert_eq!(b.edit("m1", "", NO_TAGS, 7.0), Err(MemoryError::EmptyText));
        assert_eq!(
            b.edit("m9", "x", NO_TAGS, 7.0),
            Err(MemoryError::NotFound { id: "m9".into() })
        );
        assert_eq!(b.delete(" m1 ").unwrap().text, "new");
        assert!(b.delete("m1").is_err());
        assert!(b.is_empty());
    }

    #[test]
    fn search_matches_words_case_insensitively_best_then_newest() {
        let b = book_with(&[
            ("The user's birthday is March 3", &["personal"], 1.0),
            ("Prefers metric units", &["preferences"], 2.0),
            (
                "Birthdays of the team are in the shared calendar",
                &["work"],
                3.0,
            ),
            ("Works at ACME as an engineer", &["work"], 4.0),
        ]);
        let ids = |h: SearchHits<'_>| h.entries.iter().map(|e| e.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(b.search("BIRTHDAY", None, 10)), ["m3", "m1"]);
        // More matched words rank first, whatever the age.
        assert_eq!(ids(b.search("user birthday", None, 10)), ["m1", "m3"]);
        // Tags are searched too, and filter.
        assert_eq!(ids(b.search("preferences", None, 10)), ["m2"]);
        assert_eq!(ids(b.search("", Some("WORK"), 10)), ["m4", "m3"]);
        assert_eq!(
            ids(b.search("calendar", Some("personal"), 10)),
            Vec::<String>::new()
        );
        // Short words match whole words only ("s" of "user's" is not a prefix search).
        assert_eq!(ids(b.search("s", None, 10)), ["m1"]);
        assert_eq!(ids(b.search("xyz", None, 10)), Vec::<String>::new());
        let all = b.search(" ,. ", None, 2);
        assert_eq!(all.total, 4);
        assert_eq!(ids(all), ["m4", "m3"]);
    }

    #[test]
    fn newest_first_uses_the_last_change() {
        let mut b = book_with(&[("a", &[], 1.0), ("b", &[], 2.0)]);
        b.edit("m1", "a2", NO_TAGS, 3.0).unwrap();
        let order: Vec<&str> = b.newest_first().iter().map(|e| e.id.as_str()).collect();
        assert_eq!(order, ["m1", "m2"]);
    }

    #[test]
    fn record_round_trip_and_refusals() {
        let mut r = MemoryRecord::default();
        r.book.add("fact", &["t"], 12.0).unwrap();
        r.builtin_enabled = false;
        let raw = r.encode();
        assert!(raw.starts_with(r#"{"v":1,"data":{"#), "{raw}");
        assert_eq!(MemoryRecord::decode(&raw).unwrap(), r);
        // A later save still continues the id sequence after a reload.
        let mut back = MemoryRecord::decode(&raw).unwrap();
        back.book.delete("m1").unwrap();
        assert_eq!(back.book.add("next", NO_TAGS, 13.0).unwrap().id(), "m2");

        assert_eq!(
            MemoryRecord::decode(r#"{"v":1,"data":{}}"#).unwrap(),
            MemoryRecord::default()
        );
        assert!(matches!(
            MemoryRecord::decode(r#"{"v":2,"data":{}}"#),
            Err(PersistError::TooNew { version: 2, .. })
        ));
        for bad in [
            "",
            "{",
            "[]",
            r#"{"v":1}"#,
            r#"{"v":1,"data":{"book":{"entries":[{"id":1}]}}}"#,
        ] {
            let err = MemoryRecord::decode(bad).unwrap_err();
            assert!(err.to_string().contains("kept aside"), "{bad}: {err}");
        }
    }

    #[test]
    fn non_finite_times_are_stored_as_zero() {
        let mut b = MemoryBook::default();
        b.add("x", NO_TAGS, f64::NAN).unwrap();
        let raw = MemoryRecord {
            builtin_enabled: true,
            book: b,
        }
        .encode();
        assert!(MemoryRecord::decode(&raw).is_ok(), "{raw}");
    }
}
