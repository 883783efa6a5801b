use super::*;

fn text(server: &str, uri: &str, chars: usize, fetched_ms: f64, ttl_ms: f64) -> Entry {
    Entry {
        server_id: server.into(),
        uri: uri.into(),
        parts: vec![CachedPart::Text {
            uri: uri.into(),
            mime: "text/plain".into(),
            text: "x".repeat(chars),
        }],
        fetched_ms,
        ttl_ms,
        used_ms: fetched_ms,
        changed: false,
    }
}

fn blob(server: &str, uri: &str, hash: &str, size: u64, at: f64) -> Entry {
    Entry {
        parts: vec![CachedPart::Blob {
            uri: uri.into(),
            mime: "image/png".into(),
            hash: hash.into(),
            size,
        }],
        ..text(server, uri, 0, at, 0.0)
    }
}

#[test]
fn a_copy_is_fresh_for_its_ttl_then_read_again_and_usable_while_the_server_is_down() {
    let mut c = ResourceCache::default();
    c.insert(
        text("s", "file:///a", 10, 1_000.0, 60_000.0),
        1_000.0,
        false,
    );
    assert_eq!(
        c.plan("s", "file:///a", 30_000.0, true),
        ReadPlan::UseCached
    );
    assert_eq!(
        c.freshness("s", "file:///a", 30_000.0, true),
        Some(Freshness::Fresh)
    );
    assert_eq!(
        c.plan("s", "file:///a", 61_000.0, true),
        ReadPlan::Fetch { cached: true }
    );
    // Down: the copy is what there is, fresh or not.
    assert_eq!(
        c.freshness("s", "file:///a", 30_000.0, false),
        Some(Freshness::Stale)
    );
    assert_eq!(c.plan("s", "file:///a", 1e12, false), ReadPlan::UseCached);
    // Keyed by server and URI.
    assert_eq!(
        c.plan("other", "file:///a", 2_000.0, true),
        ReadPlan::Fetch { cached: false }
    );
    assert_eq!(
        c.plan("other", "file:///a", 2_000.0, false),
        ReadPlan::Unavailable
    );
    // No ttl (older servers): stale at once, read again whenever the server is there.
    c.insert(text("s", "file:///b", 10, 5_000.0, 0.0), 5_000.0, false);
    assert_eq!(
        c.plan("s", "file:///b", 5_000.0, true),
        ReadPlan::Fetch { cached: true }
    );
}

#[test]
fn a_change_notice_makes_the_next_use_read_again() {
    let mut c = ResourceCache::default();
    c.insert(text("s", "u", 1, 0.0, 1e9), 0.0, false);
    assert!(c.mark_changed("s", "u"));
    assert!(!c.mark_changed("s", "gone"));
    assert_eq!(
        c.plan("s", "u", 1.0, true),
        ReadPlan::Fetch { cached: true }
    );
    // The new read is fresh again.
    c.insert(text("s", "u", 2, 2.0, 1e9), 2.0, false);
    assert_eq!(c.plan("s", "u", 3.0, true), ReadPlan::UseCached);
    assert_eq!(c.entries().len(), 1, "a read replaces the older copy");
}

#[test]
fn the_least_recently_used_go_first_never_the_copy_just_read() {
    let mut c = ResourceCache {
        max_bytes: 100,
        ..ResourceCache::default()
    };
    c.insert(text("s", "a", 40, 1.0, 0.0), 1.0, false);
    c.insert(text("s", "b", 40, 2.0, 0.0), 2.0, false);
    // Using `a` makes `b` the oldest.
    assert!(c.take("s", "a", 3.0).is_some());
    let r = c.insert(text("s", "c", 40, 4.0, 0.0), 4.0, false);
    assert!(r.kept);
    let uris: Vec<&str> = c.entries().iter().map(|e| e.uri.as_str()).collect();
    assert_eq!(uris, ["a", "c"]);
    assert!(c.total_bytes() <= 100);
    // A copy larger than the bound alone is not kept, and nothing else is evicted for it.
    let r = c.insert(text("s", "huge", 101, 5.0, 0.0), 5.0, false);
    assert!(!r.kept);
    assert_eq!(c.entries().len(), 2);
    // A clock that went backwards (another tab) still never evicts the new copy.
    let r = c.insert(text("s", "d", 90, 0.5, 0.0), 0.5, false);
    assert!(r.kept);
    let uris: Vec<&str> = c.entries().iter().map(|e| e.uri.as_str()).collect();
    assert_eq!(uris, ["d"]);
}

#[test]
fn evicted_bytes_are_candidates_only_while_no_copy_names_them() {
    let mut c = ResourceCache {
        max_bytes: 100,
        ..ResourceCache::default()
    };
    c.insert(blob("s", "img1", "h1", 50, 1.0), 1.0, false);
    c.insert(blob("t", "img1-again", "h1", 50, 2.0), 2.0, false);
    // Evicting the first copy frees nothing: the second names the same bytes.
    let r = c.insert(text("s", "t", 10, 3.0, 0.0), 3.0, false);
    assert_eq!(c.entries().len(), 2);
    assert_eq!(r.freed, Vec::<String>::new());
    assert_eq!(c.all_hashes(), ["h1"]);
    assert_eq!(c.forget_server("t"), ["h1"]);
    assert!(c.all_hashes().is_empty());
}

#[test]
fn a_result_obtained_with_input_responses_is_never_kept() {
    let mut c = ResourceCache::default();
    c.insert(text("s", "u", 1, 0.0, 1e9), 0.0, false);
    let r = c.insert(text("s", "u", 2, 1.0, 1e9), 1.0, true);
    assert!(!r.kept);
    assert_eq!(
        c.plan("s", "u", 2.0, true),
        ReadPlan::Fetch { cached: false }
    );
}

#[test]
fn the_stored_form_round_trips_and_old_fields_default() {
    let mut c = ResourceCache::default();
    c.insert(blob("s", "img", "h", 3, 1.0), 1.0, false);
    c.insert(text("s", "t", 2, 2.0, 5.0), 2.0, false);
    let json = serde_json::to_string(&c).unwrap_or_default();
    let back: ResourceCache = serde_json::from_str(&json).unwrap_or_default();
    assert_eq!(back, c);
    let minimal = r#"{"entries":[{"server_id":"s","uri":"u","parts":[{"kind":"text","uri":"u","text":"hi"}],"fetched_ms":1,"used_ms":1}],"max_bytes":10}"#;
    let c: ResourceCache = serde_json::from_str(minimal).unwrap_or_default();
    assert_eq!(c.entries()[0].ttl_ms, 0.0);
    assert!(!c.entries()[0].changed);
}
