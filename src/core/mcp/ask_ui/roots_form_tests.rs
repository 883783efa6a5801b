use serde_json::json;

use super::*;

#[test]
fn add_remove_and_save_store_the_exact_roots_list_result() {
    let mut f = RootsForm::new("everything", "everything", None);
    assert_eq!(roots_key("everything"), "skiff.roots.everything");
    assert_eq!(
        f.act(RootsIntent::Add, "https://example.com", ""),
        RootsOutcome::Draw {
            focus: RootsFocus::Uri
        }
    );
    let v = f.view();
    assert!(
        v.error
            .as_deref()
            .is_some_and(|e| e.contains("is not a file:// URI")),
        "{v:?}"
    );
    assert_eq!(v.uri, "https://example.com", "the typed text stays");
    f.act(RootsIntent::Add, " file:///home/me/project ", "Project");
    assert_eq!(f.roots().len(), 1);
    let v = f.view();
    assert_eq!(v.error, None);
    assert_eq!(
        (v.uri.as_str(), v.name.as_str()),
        ("", ""),
        "added: the fields empty"
    );
    f.act(RootsIntent::Add, "file:///home/me/project/", "");
    assert!(f
        .view()
        .error
        .is_some_and(|e| e.contains("is already a root")));
    f.act(RootsIntent::Add, "file:///tmp/a", "");
    // Save with an address typed but not added: it is added first.
    let out = f.act(RootsIntent::Save, "file:///srv/data", "Data");
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
    assert_eq!(f.said_on_save(), "Saved 3 roots for everything.");
    // Saved again unchanged: stored, not announced.
    assert!(matches!(
        f.act(RootsIntent::Save, "", ""),
        RootsOutcome::Save {
            announce: false,
            ..
        }
    ));
    assert_eq!(
        f.act(RootsIntent::Remove(1), "", ""),
        RootsOutcome::Draw {
            focus: RootsFocus::Remove(1)
        }
    );
    assert_eq!(f.act(RootsIntent::Remove(7), "", ""), RootsOutcome::Nothing);
    // The last row removed: focus goes to the row before.
    assert_eq!(
        f.act(RootsIntent::Remove(1), "", ""),
        RootsOutcome::Draw {
            focus: RootsFocus::Remove(0)
        }
    );
    assert!(matches!(
        f.act(RootsIntent::Save, "", ""),
        RootsOutcome::Save { announce: true, .. }
    ));
    assert_eq!(f.said_on_save(), "Saved 1 root for everything.");
    // A bad address typed at Save stops the save.
    assert!(matches!(
        f.act(RootsIntent::Save, "C:\\x", ""),
        RootsOutcome::Draw { .. }
    ));
    assert_eq!(
        f.act(RootsIntent::Remove(0), "", ""),
        RootsOutcome::Draw {
            focus: RootsFocus::Uri
        }
    );
    assert_eq!(f.view().empty, Some("No roots yet."));
    assert_eq!(f.act(RootsIntent::Cancel, "", ""), RootsOutcome::Close);
}

#[test]
fn stored_roots_load_and_unreadable_ones_are_kept_until_an_explicit_save() {
    let f = RootsForm::new(
        "s",
        "",
        Some(r#"{"roots":[{"uri":"file:///a","name":"<b>A</b>\u202e"},{"uri":"file:///b"}]}"#),
    );
    assert_eq!(f.roots().len(), 2);
    let v = f.view();
    assert_eq!(v.server_name, "s", "the id names a server without a name");
    assert_eq!(v.roots[0].name.as_deref(), Some("<b>A</b><U+202E>"));
    assert_eq!(v.roots[1].name, None);
    assert_eq!(v.roots[1].remove_label, "Remove file:///b");
    assert_eq!(v.empty, None);
    let mut bad = RootsForm::new("s", "S", Some("{not json"));
    assert!(bad.roots().is_empty());
    assert!(bad
        .view()
        .unreadable
        .is_some_and(|u| u.starts_with("The roots stored for S could not be read")));
    // Saving (even an empty list) replaces it, and the server hears of it.
    assert!(matches!(
        bad.act(RootsIntent::Save, "", ""),
        RootsOutcome::Save { announce: true, .. }
    ));
    bad.failed(&RootsForm::not_saved("QuotaExceededError"));
    assert_eq!(
        bad.view().error.as_deref(),
        Some("The roots were not saved (the browser's storage refused: QuotaExceededError).")
    );
}
