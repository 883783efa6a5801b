//! The `@` picker: which resources match what the user typed after `@` (every server's listed
//! resources and every cached copy, offline servers included), and where the `@query` is in
//! the composer's text so choosing one can remove it.

use super::store::Store;
use crate::mcp::resource_cache::Freshness;

/// Most items the picker shows.
pub const PICKER_MAX: usize = 8;

/// One match.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub server: String,
    pub server_name: String,
    pub uri: String,
    /// Title, name or the URI, as listed.
    pub label: String,
    pub mime: String,
    /// A kept copy exists.
    pub cached: bool,
    /// The server is down: only the kept copy can be used.
    pub offline: bool,
}

/// How well `label`/`uri`/`description` match `q` (lowercase); lower is better.
fn score(q: &str, label: &str, uri: &str, description: &str) -> Option<u8> {
    if q.is_empty() {
        return Some(5);
    }
    let l = label.to_lowercase();
    if l.starts_with(q) {
        return Some(0);
    }
    if l.split(|c: char| !c.is_alphanumeric())
        .any(|w| w.starts_with(q))
    {
        return Some(1);
    }
    if l.contains(q) {
        return Some(2);
    }
    if uri.to_lowercase().contains(q) {
        return Some(3);
    }
    if description.to_lowercase().contains(q) {
        return Some(4);
    }
    None
}

/// The picker's items for `query`, best first: by match, then usable now (server up or a kept
/// copy), then label. Resources of servers that are down and have no kept copy are left out:
/// choosing them could only fail.
pub fn search(store: &Store, query: &str, now_ms: f64) -> Vec<Item> {
    let q = query.trim().to_lowercase();
    let mut found: Vec<(u8, bool, Item)> = Vec::new();
    for s in &store.servers {
        if !s.present {
            continue;
        }
        for r in &s.resources {
            let label = r
                .title
                .as_deref()
                .filter(|t| !t.is_empty())
                .unwrap_or(if r.name.is_empty() { &r.uri } else { &r.name });
            let cached = store.entry(&s.id, &r.uri).is_some();
            if !s.connected && !cached {
                continue;
            }
            let Some(sc) = score(&q, label, &r.uri, r.description.as_deref().unwrap_or("")) else {
                continue;
            };
            found.push((
                sc,
                !s.connected,
                Item {
                    server: s.id.clone(),
                    server_name: s.name.clone(),
                    uri: r.uri.clone(),
                    label: label.to_string(),
                    mime: r.mime_type.clone().unwrap_or_default(),
                    cached,
                    offline: !s.connected,
                },
            ));
        }
    }
    // Copies read from templates (not listed) are findable by their URI.
    for e in store.cache.entries() {
        let Some(s) = store.server(&e.server_id).filter(|s| s.present) else {
            continue;
        };
        if s.resources.iter().any(|r| r.uri == e.uri) {
            continue;
        }
        let Some(sc) = score(&q, &e.uri, &e.uri, "") else {
            continue;
        };
        let offline = store.freshness(&s.id, &e.uri, now_ms) == Some(Freshness::Stale);
        let mime = e
            .parts
            .first()
            .map(|p| match p {
                crate::mcp::resource_cache::CachedPart::Text { mime, .. }
                | crate::mcp::resource_cache::CachedPart::TextBlob { mime, .. }
                | crate::mcp::resource_cache::CachedPart::Blob { mime, .. } => mime.clone(),
            })
            .unwrap_or_default();
        found.push((
            sc,
            offline,
            Item {
                server: s.id.clone(),
                server_name: s.name.clone(),
                uri: e.uri.clone(),
                label: e.uri.clone(),
                mime,
                cached: true,
                offline,
            },
        ));
    }
    crate::order::sort_by(&mut found, |a, b| {
        (a.0, a.1)
            .cmp(&(b.0, b.1))
            .then_with(|| a.2.label.to_lowercase().cmp(&b.2.label.to_lowercase()))
    });
    found.into_iter().take(PICKER_MAX).map(|f| f.2).collect()
}

/// The `@query` that ends at `caret` (a UTF-16 offset, as a textarea counts): where its `@` is
/// (UTF-16 offset) and the query. `@` must start the text or follow whitespace, and the query
/// has no whitespace, so an e-mail address does not open the picker.
pub fn mention_at(value: &str, caret: usize) -> Option<(usize, String)> {
    let units: Vec<u16> = value.encode_utf16().collect();
    let caret = caret.min(units.len());
    let before = String::from_utf16_lossy(&units[..caret]);
    let at = before.rfind('@')?;
    let query = &before[at + 1..];
    if query.chars().any(char::is_whitespace) {
        return None;
    }
    let prev = before[..at].chars().next_back();
    if prev.is_some_and(|c| !c.is_whitespace()) {
        return None;
    }
    let start = before[..at].encode_utf16().count();
    Some((start, query.to_string()))
}

/// The composer's text with the `@query` from `start` to `caret` (UTF-16 offsets) removed, and
/// where the caret goes.
pub fn strip_mention(value: &str, start: usize, caret: usize) -> (String, usize) {
    let units: Vec<u16> = value.encode_utf16().collect();
    let end = caret.min(units.len());
    let start = start.min(end);
    let mut out: Vec<u16> = Vec::with_capacity(units.len());
    out.extend_from_slice(&units[..start]);
    out.extend_from_slice(&units[end..]);
    (String::from_utf16_lossy(&out), start)
}
