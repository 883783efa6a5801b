use serde_json::json;

use super::*;

fn pairs(uri: &str, name: &str) -> Vec<(String, String)> {
    vec![("uri".into(), uri.into()), ("name".into(), name.into())]
}

#[test]
fn add_remove_and_save_store_the_exact_roots_list_result() {
    let mut f = RootsForm::new("everything", "everything", None);
    assert_eq!(roots_key("everything"), "skiff.roots.everything");
    assert_eq!(
        f.act("add", &pairs("https://example.com", "")),
        RootsOutcome::Draw {
            focus: "#ask-root-uri".into()
        }
    );
    let html = f.html();
    assert!(html.contains("is not a file:// URI"), "{html}");
    assert!(
        html.contains(r#"value="https://example.com""#),
        "the typed text stays: {html}"
    );
    f.act("add", &pairs(" file:///home/me/project ", "Project"));
    assert_eq!(f.roots().len(), 1);
    assert!(!f.html().contains("is not a file"), "{}", f.html());
    f.act("add", &pairs("file:///home/me/project/", ""));
    assert!(f.html().contains("is already a root"));
    f.act("add", &pairs("file:///tmp/a", ""));
    // Save with an address typed but not added: it is added first.
    let out = f.act("save", &pairs("file:///srv/data", "Data"));
    assert_eq!(
        out,
        RootsOutcome::Save {
            key: "skiff.roots.everything".into(),
            value: json!({"roots": [
                {"uri": "file:///home/me/project", "name": "Project"},
                {"uri": "file:///tmp/a"},
                {"uri": "file:///srv/data", "name": "Data"}
            ]})
            .to_string(),
            announce: true
        }
    );
    f.stored();
    // Saved again unchanged: stored, not announced.
    assert!(matches!(
        f.act("save", &pairs("", "")),
        RootsOutcome::Save {
            announce: false,
            ..
        }
    ));
    assert_eq!(
        f.act("remove:1", &pairs("", "")),
        RootsOutcome::Draw {
            focus: "[data-act=\"remove:1\"]".into()
        }
    );
    assert_eq!(f.act("remove:7", &pairs("", "")), RootsOutcome::Nothing);
    assert!(matches!(
        f.act("save", &pairs("", "")),
        RootsOutcome::Save { announce: true, .. }
    ));
    // A bad address typed at Save stops the save.
    assert!(matches!(
        f.act("save", &pairs("C:\\x", "")),
        RootsOutcome::Draw { .. }
    ));
    assert_eq!(f.act("cancel", &[]), RootsOutcome::Close);
}

#[test]
fn stored_roots_load_and_unreadable_ones_are_kept_until_an_explicit_save() {
    let f = RootsForm::new(
        "s",
        "",
        Some(r#"{"roots":[{"uri":"file:///a","name":"<b>A</b>"},{"uri":"file:///b"}]}"#),
    );
    assert_eq!(f.roots().len(), 2);
    let html = f.html();
    assert!(
        html.contains("Roots for <bdi class=\"ask-server\">s</bdi>"),
        "{html}"
    );
    assert!(html.contains("&lt;b&gt;A&lt;/b&gt;"), "{html}");
    assert!(html.contains(r#"aria-label="Remove file:///b""#), "{html}");
    let mut bad = RootsForm::new("s", "S", Some("{not json"));
    assert!(bad.roots().is_empty());
    assert!(bad.html().contains("could not be read"), "{}", bad.html());
    // Saving (even an empty list) replaces it, and the server hears of it.
    assert!(matches!(
        bad.act("save", &pairs("", "")),
        RootsOutcome::Save { announce: true, .. }
    ));
    bad.failed("Storage is full.");
    assert!(bad.html().contains("Storage is full."));
}
