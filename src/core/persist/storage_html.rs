//! Settings → Storage's health block, as HTML text (see `crate::html`): where conversations
//! are kept, whether the browser keeps them under pressure (with "Ask again"), usage per store,
//! and the offer to export or delete conversations not changed lately, which asks before it
//! deletes. Buttons carry `data-act`: `persist`, `export`, `delete`, `delete-yes`, `delete-no`.

use crate::format::count;
use crate::html::Html;

/// What the block shows; the sentences come from the store (`StorageStatus::sentences`,
/// `Usage::lines`).
pub struct StorageView<'a> {
    /// Where conversations are kept, the migration's trouble ("" when none), persistence.
    pub sentences: &'a [String; 3],
    pub usage: &'a [String],
    /// Conversations not changed in `prune_days`.
    pub old: usize,
    pub prune_days: u32,
    /// Delete was clicked once: the confirmation shows.
    pub confirming: bool,
    /// Saved values that could not be read, left untouched: `(key, why, download URL)`.
    pub unreadable: &'a [(String, String, String)],
}

fn button(h: &mut Html, class: &str, act: &str, label: &str, disabled: bool) {
    h.action_open(class, act)
        .flag("disabled", disabled)
        .body()
        .text(label)
        .close("button");
}

pub fn storage_html(v: &StorageView<'_>) -> String {
    let [backend, migration, persist] = v.sentences;
    let mut h = Html::new();
    h.el("p", "hint storage-backend", backend);
    h.open("p")
        .attr("class", "error storage-migration")
        .attr("role", "alert")
        .flag("hidden", migration.is_empty())
        .body()
        .text(migration)
        .close("p");
    h.open("p")
        .attr("class", "hint storage-persist")
        .body()
        .text(persist)
        .text(" ");
    button(
        &mut h,
        "small storage-persist-ask",
        "persist",
        "Ask again",
        false,
    );
    h.close("p");
    h.open("ul").attr("class", "storage-usage").body();
    for line in v.usage {
        h.open("li").body().text(line).close("li");
    }
    h.close("ul");
    let n = count(v.old, "conversation", "conversations");
    let days = v.prune_days;
    h.open("p")
        .attr("class", "hint prune")
        .body()
        .text(&format!("Not changed in {days} days: {n}. "));
    button(
        &mut h,
        "small prune-export",
        "export",
        "Export them",
        v.old == 0,
    );
    h.text(" ");
    button(
        &mut h,
        "danger small prune-delete",
        "delete",
        "Delete them…",
        v.old == 0,
    );
    h.close("p");
    if v.confirming {
        h.open("p")
            .attr("class", "error prune-confirm")
            .attr("role", "alert")
            .body()
            .text(&format!(
                "Delete {n} not changed in {days} days? This cannot be undone; export them first to keep a copy. "
            ));
        button(
            &mut h,
            "danger small prune-confirm-yes",
            "delete-yes",
            "Delete",
            false,
        );
        h.text(" ");
        button(
            &mut h,
            "small prune-confirm-no",
            "delete-no",
            "Cancel",
            false,
        );
        h.close("p");
    }
    if !v.unreadable.is_empty() {
        h.el(
            "p",
            "error",
            "Saved data that could not be read (left untouched):",
        );
        h.open("ul").attr("class", "unreadable").body();
        for (key, why, href) in v.unreadable {
            h.open("li").body();
            h.open("code").body().text(key).close("code");
            h.open("small").body().text(why).close("small");
            h.open("a")
                .attr("href", href)
                .attr("download", &format!("{}.txt", key.replace(':', "-")))
                .body()
                .text("Download")
                .close("a");
            button(
                &mut h,
                "danger small",
                &format!("discard:{key}"),
                "Delete",
                false,
            );
            h.close("li");
        }
        h.close("ul");
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentences(migration: &str) -> [String; 3] {
        [
            "Kept in <IndexedDB>.".into(),
            migration.into(),
            "Persistent storage: granted.".into(),
        ]
    }

    #[test]
    fn the_block_says_where_and_how_much_and_offers_pruning() {
        let s = sentences("");
        let usage = ["Conversations: 2 KB".to_string()];
        let html = storage_html(&StorageView {
            sentences: &s,
            usage: &usage,
            old: 2,
            prune_days: 30,
            confirming: false,
            unreadable: &[],
        });
        for part in [
            r#"<p class="hint storage-backend">Kept in &lt;IndexedDB&gt;.</p>"#,
            r#"<p class="error storage-migration" role="alert" hidden></p>"#,
            r#"Persistent storage: granted. <button type="button" class="small storage-persist-ask" data-act="persist">Ask again</button>"#,
            "<li>Conversations: 2 KB</li>",
            r#"Not changed in 30 days: 2 conversations. <button type="button" class="small prune-export" data-act="export">Export them</button>"#,
        ] {
            assert!(html.contains(part), "missing {part} in {html}");
        }
        assert!(
            !html.contains("prune-confirm"),
            "no confirmation before Delete"
        );
    }

    #[test]
    fn nothing_old_disables_the_offer_and_a_migration_problem_shows() {
        let s = sentences("Some conversations could not be moved.");
        let bad = [(
            "skiff:conv:<b>".to_string(),
            "not valid JSON".to_string(),
            "data:text/plain;charset=utf-8,%7B".to_string(),
        )];
        let html = storage_html(&StorageView {
            sentences: &s,
            usage: &[],
            old: 0,
            prune_days: 30,
            confirming: false,
            unreadable: &bad,
        });
        assert!(html.contains(r#"<li><code>skiff:conv:&lt;b&gt;</code><small>not valid JSON</small><a href="data:text/plain;charset=utf-8,%7B" download="skiff-conv-&lt;b&gt;.txt">Download</a><button type="button" class="danger small" data-act="discard:skiff:conv:&lt;b&gt;">Delete</button></li>"#), "{html}");
        assert!(
            html.contains(r#"role="alert">Some conversations could not be moved.</p>"#),
            "{html}"
        );
        assert!(
            html.contains(r#"data-act="export" disabled>"#)
                && html.contains(r#"data-act="delete" disabled>"#),
            "{html}"
        );
        assert!(html.contains("0 conversations."));
    }

    #[test]
    fn delete_asks_first() {
        let s = sentences("");
        let html = storage_html(&StorageView {
            sentences: &s,
            usage: &[],
            old: 1,
            prune_days: 30,
            confirming: true,
            unreadable: &[],
        });
        assert!(!html.contains("unreadable"));
        assert!(html.contains(r#"<p class="error prune-confirm" role="alert">Delete 1 conversation not changed in 30 days? This cannot be undone"#), "{html}");
        assert!(html.contains(r#"data-act="delete-yes">Delete</button> <button type="button" class="small prune-confirm-no" data-act="delete-no">Cancel</button>"#), "{html}");
    }
}
