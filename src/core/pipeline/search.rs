//! Search across every conversation: titles and message text, case-insensitive, newest
//! conversations first, with a snippet around each match.
//!
//! The page loads the stored conversations once when the search opens ([`Corpus`]) and each
//! keystroke only scans that text, so results keep up with typing over a thousand
//! conversations. Every query word must occur (in any order) in the title or in one message.

/// One conversation's searchable text.
#[derive(Debug, Clone, Default)]
pub struct Entry {
    pub id: String,
    pub title: String,
    pub updated_ms: f64,
    /// (message id, text), in order.
    pub messages: Vec<(String, String)>,
}

/// What the search runs over, newest conversation first.
#[derive(Debug, Default)]
pub struct Corpus {
    entries: Vec<Entry>,
}

/// A match, with the text around it split so the page can mark the matched part.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub conversation_id: String,
    pub title: String,
    /// The message to open at; `None` when only the title matched.
    pub message_id: Option<String>,
    pub before: String,
    pub matched: String,
    pub after: String,
}

/// Results shown at most (the rest would not fit on a screen anyway).
pub const MAX_HITS: usize = 50;
/// Characters of context on each side of a match.
const CONTEXT_CHARS: usize = 48;

impl Corpus {
    pub fn new(mut entries: Vec<Entry>) -> Self {
        crate::order::sort_by(&mut entries, |a, b| b.updated_ms.total_cmp(&a.updated_ms));
        Corpus { entries }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The matches for `query`: per conversation the title if it matches, then each matching
    /// message (at most three per conversation, so one long chat does not fill the list).
    pub fn search(&self, query: &str) -> Vec<Hit> {
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        if words.is_empty() {
            return Vec::new();
        }
        let mut hits = Vec::new();
        for e in &self.entries {
            if hits.len() >= MAX_HITS {
                break;
            }
            let mut per_conversation = 0;
            if let Some(h) = hit_in(&e.title, &words) {
                hits.push(Hit {
                    conversation_id: e.id.clone(),
                    title: e.title.clone(),
                    message_id: None,
                    ..h
                });
                per_conversation += 1;
            }
            for (mid, text) in &e.messages {
                if per_conversation >= 3 || hits.len() >= MAX_HITS {
                    break;
                }
                if let Some(h) = hit_in(text, &words) {
                    hits.push(Hit {
                        conversation_id: e.id.clone(),
                        title: e.title.clone(),
                        message_id: Some(mid.clone()),
                        ..h
                    });
                    per_conversation += 1;
                }
            }
        }
        hits
    }
}

/// Whether every word occurs in `text`; the snippet is around the first word's first match.
fn hit_in(text: &str, words: &[String]) -> Option<Hit> {
    let mut first = None;
    for (i, w) in words.iter().enumerate() {
        let at = find_ci(text, w)?;
        if i == 0 {
            first = Some(at);
        }
    }
    let (start, end) = first?;
    let before_start = char_back(text, start, CONTEXT_CHARS);
    let after_end = char_forward(text, end, CONTEXT_CHARS);
    let mut before = one_line(&text[before_start..start]);
    if before_start > 0 {
        before.insert(0, '…');
    }
    let mut after = one_line(&text[end..after_end]);
    if after_end < text.len() {
        after.push('…');
    }
    Some(Hit {
        conversation_id: String::new(),
        title: String::new(),
        message_id: None,
        before,
        matched: text[start..end].to_string(),
        after,
    })
}

/// The byte range of the first case-insensitive occurrence of `word` (already lowercase) in
/// `text`. Compares character by character (each text character by the first character of
/// its lowercase form, so "izmir" finds "İzmir"), so the range is always in `text`'s own
/// bytes even where lowercasing changes a character's length.
fn find_ci(text: &str, word: &str) -> Option<(usize, usize)> {
    let needle: Vec<char> = word.chars().collect();
    let first = *needle.first()?;
    for (start, c) in text.char_indices() {
        if c.to_lowercase().next() != Some(first) {
            continue;
        }
        let mut it = text[start..].char_indices();
        let mut ok = true;
        let mut end = start;
        for &n in &needle {
            match it.next() {
                Some((off, c)) if c.to_lowercase().next() == Some(n) => {
                    end = start + off + c.len_utf8();
                }
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            return Some((start, end));
        }
    }
    None
}

fn char_back(text: &str, from: usize, n: usize) -> usize {
    text[..from]
        .char_indices()
        .rev()
        .nth(n.saturating_sub(1))
        .map_or(0, |(i, _)| i)
}

fn char_forward(text: &str, from: usize, n: usize) -> usize {
    text[from..]
        .char_indices()
        .nth(n)
        .map_or(text.len(), |(i, _)| from + i)
}

fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = true;
        } else {
            if space && !out.is_empty() {
                out.push(' ');
            }
            space = false;
            out.push(c);
        }
    }
    if space && !out.is_empty() {
        out.push(' ');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, title: &str, updated: f64, messages: &[&str]) -> Entry {
        Entry {
            id: id.into(),
            title: title.into(),
            updated_ms: updated,
            messages: messages
                .iter()
                .enumerate()
                .map(|(i, t)| (format!("{id}-m{i}"), t.to_string()))
                .collect(),
        }
    }

    #[test]
    fn titles_and_messages_case_insensitive_newest_first_every_word() {
        let c = Corpus::new(vec![
            entry(
                "old",
                "Sourdough starter",
                1.0,
                &["Feed the starter daily."],
            ),
            entry(
                "new",
                "Trip to Kyoto",
                2.0,
                &["Which temples?", "Kinkaku-ji and the Moss Temple at dawn."],
            ),
        ]);
        let hits = c.search("TEMPLE");
        assert_eq!(hits.len(), 2);
        assert_eq!(hits[0].message_id.as_deref(), Some("new-m0"));
        assert_eq!(
            (
                hits[0].before.as_str(),
                hits[0].matched.as_str(),
                hits[0].after.as_str()
            ),
            ("Which ", "temple", "s?")
        );
        assert_eq!(hits[1].matched, "Temple");
        // Every word must occur in the same place; order does not matter.
        assert_eq!(c.search("dawn moss").len(), 1);
        assert!(c.search("dawn sourdough").is_empty());
        // A title match opens the conversation at its top.
        let t = c.search("sourdough");
        assert_eq!(
            (t[0].conversation_id.as_str(), t[0].message_id.as_deref()),
            ("old", None)
        );
        assert!(c.search("   ").is_empty());
    }

    #[test]
    fn snippets_are_cut_around_the_match_on_one_line() {
        let long = format!("{}\nneedle here\n{}", "a ".repeat(100), "b ".repeat(100));
        let c = Corpus::new(vec![entry("c", "t", 0.0, &[&long])]);
        let h = &c.search("NEEDLE")[0];
        assert!(h.before.starts_with('…') && h.after.ends_with('…'));
        assert!(!h.before.contains('\n') && !h.after.contains('\n'));
        assert_eq!(h.matched, "needle");
        assert!(
            h.before.chars().count() <= CONTEXT_CHARS + 2,
            "{}",
            h.before
        );
    }

    #[test]
    fn unicode_case_and_lengths_never_break_the_snippet() {
        let c = Corpus::new(vec![entry("c", "Straße in İzmir", 0.0, &["ÉCOLE élève"])]);
        assert_eq!(c.search("straße")[0].matched, "Straße");
        assert_eq!(c.search("école")[0].matched, "ÉCOLE");
        // İ lowercases to i + a combining dot; typing a plain i still finds it.
        assert_eq!(c.search("izmir")[0].matched, "İzmir");
    }

    #[test]
    fn results_are_bounded() {
        let many: Vec<Entry> = (0..200)
            .map(|i| entry(&format!("c{i}"), "x", f64::from(i), &["x", "x", "x", "x"]))
            .collect();
        let hits = Corpus::new(many).search("x");
        assert_eq!(hits.len(), MAX_HITS);
        assert_eq!(hits[0].conversation_id, "c199");
        // Three per conversation at most.
        assert_eq!(
            hits.iter().filter(|h| h.conversation_id == "c199").count(),
            3
        );
    }
}
