//! Settings → Storage's block as a machine: where conversations are kept, whether the browser
//! keeps them under pressure (with "Ask again"), usage per store, the full backup (with its
//! keys switch), the offer to export or delete conversations not changed lately (which asks
//! before it deletes), and saved values that could not be read. [`StoragePanel::view`] is what
//! the block shows, [`StoragePanel::act`] what an intent does; the page performs the
//! [`StorageEffect`]. Never markup.

use crate::format::count;

/// What the block is drawn from; the sentences come from the store (`StorageStatus::sentences`,
/// `Usage::lines`).
pub struct StorageFacts<'a> {
    /// Where conversations are kept, the migration's trouble ("" when none), persistence.
    pub sentences: &'a [String; 3],
    pub usage: &'a [String],
    /// Conversations not changed in `prune_days`.
    pub old: usize,
    pub prune_days: u32,
    /// Saved values that could not be read, left untouched: `(key, why)`.
    pub unreadable: &'a [(String, String)],
}

/// A saved value that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreadableRow {
    pub key: String,
    pub why: String,
    /// The name its download is saved under.
    pub file_name: String,
}

/// What the block shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageBlock {
    pub backend: String,
    /// Empty when the migration went well (the line is then hidden, not removed).
    pub migration: String,
    pub persist: String,
    pub usage: Vec<String>,
    /// Whether the backup takes API keys and MCP headers.
    pub include_keys: bool,
    /// "Not changed in 30 days: 2 conversations."
    pub prune: String,
    /// Whether "Export them" and "Delete them…" can be used (there is something old).
    pub can_prune: bool,
    /// The question shown after the first click on "Delete them…".
    pub question: Option<String>,
    pub unreadable: Vec<UnreadableRow>,
}

/// What the user asks of the block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StorageIntent {
    /// "Ask again" for persistent storage.
    AskPersistence,
    IncludeKeys(bool),
    BackUp,
    ExportOld,
    /// The first click on "Delete them…": the block asks again.
    DeleteOld,
    /// "Cancel" on the question.
    KeepOld,
    DeleteOldForGood,
    /// Delete the unreadable value stored under this key.
    Discard(String),
}

/// What the page performs after an intent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StorageEffect {
    Nothing,
    AskPersistence,
    BackUp { include_keys: bool },
    ExportOld,
    DeleteOld,
    Discard(String),
}

/// Where the cursor goes after an intent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageFocus {
    /// The question's "Cancel".
    KeepOld,
    /// "Delete them…".
    DeleteOld,
}

impl StorageFocus {
    pub fn id(self) -> &'static str {
        match self {
            StorageFocus::KeepOld => "prune-confirm-no",
            StorageFocus::DeleteOld => "prune-delete",
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StoragePanel {
    confirming: bool,
    include_keys: bool,
}

impl StoragePanel {
    pub fn view(&self, f: &StorageFacts<'_>) -> StorageBlock {
        let [backend, migration, persist] = f.sentences;
        let n = count(f.old, "conversation", "conversations");
        let days = f.prune_days;
        StorageBlock {
            backend: backend.clone(),
            migration: migration.clone(),
            persist: persist.clone(),
            usage: f.usage.to_vec(),
            include_keys: self.include_keys,
            prune: format!("Not changed in {days} days: {n}."),
            can_prune: f.old > 0,
            question: (self.confirming && f.old > 0).then(|| {
                format!(
                    "Delete {n} not changed in {days} days? This cannot be undone; export them first to keep a copy."
                )
            }),
            unreadable: f
                .unreadable
                .iter()
                .map(|(key, why)| UnreadableRow {
                    key: key.clone(),
                    why: why.clone(),
                    file_name: format!("{}.txt", key.replace(':', "-")),
                })
                .collect(),
        }
    }

    /// Performs `intent`; `old` is how many conversations the offer is about now.
    pub fn act(
        &mut self,
        intent: StorageIntent,
        old: usize,
    ) -> (StorageEffect, Option<StorageFocus>) {
        match intent {
            StorageIntent::AskPersistence => (StorageEffect::AskPersistence, None),
            StorageIntent::IncludeKeys(on) => {
                self.include_keys = on;
                (StorageEffect::Nothing, None)
            }
            StorageIntent::BackUp => (
                StorageEffect::BackUp {
                    include_keys: self.include_keys,
                },
                None,
            ),
            StorageIntent::ExportOld if old > 0 => (StorageEffect::ExportOld, None),
            StorageIntent::DeleteOld if old > 0 => {
                self.confirming = true;
                (StorageEffect::Nothing, Some(StorageFocus::KeepOld))
            }
            StorageIntent::KeepOld => {
                self.confirming = false;
                (StorageEffect::Nothing, Some(StorageFocus::DeleteOld))
            }
            StorageIntent::DeleteOldForGood if self.confirming => {
                self.confirming = false;
                (StorageEffect::DeleteOld, None)
            }
            StorageIntent::Discard(key) => (StorageEffect::Discard(key), None),
            StorageIntent::ExportOld
            | StorageIntent::DeleteOld
            | StorageIntent::DeleteOldForGood => (StorageEffect::Nothing, None),
        }
    }
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

    fn facts<'a>(
        s: &'a [String; 3],
        usage: &'a [String],
        old: usize,
        unreadable: &'a [(String, String)],
    ) -> StorageFacts<'a> {
        StorageFacts {
            sentences: s,
            usage,
            old,
            prune_days: 30,
            unreadable,
        }
    }

    #[test]
    fn the_block_says_where_and_how_much_and_offers_pruning() {
        let s = sentences("");
        let usage = ["Conversations: 2 KB".to_string()];
        let block = StoragePanel::default().view(&facts(&s, &usage, 2, &[]));
        assert_eq!(
            block,
            StorageBlock {
                backend: "Kept in <IndexedDB>.".into(),
                migration: String::new(),
                persist: "Persistent storage: granted.".into(),
                usage: vec!["Conversations: 2 KB".into()],
                include_keys: false,
                prune: "Not changed in 30 days: 2 conversations.".into(),
                can_prune: true,
                question: None,
                unreadable: vec![],
            }
        );
    }

    #[test]
    fn nothing_old_disables_the_offer_and_a_migration_problem_shows() {
        let s = sentences("Some conversations could not be moved.");
        let bad = [("skiff:conv:<b>".to_string(), "not valid JSON".to_string())];
        let mut panel = StoragePanel::default();
        let block = panel.view(&facts(&s, &[], 0, &bad));
        assert_eq!(block.migration, "Some conversations could not be moved.");
        assert_eq!(block.prune, "Not changed in 30 days: 0 conversations.");
        assert!(!block.can_prune);
        assert_eq!(
            block.unreadable,
            vec![UnreadableRow {
                key: "skiff:conv:<b>".into(),
                why: "not valid JSON".into(),
                file_name: "skiff-conv-<b>.txt".into(),
            }]
        );
        // Nothing old: the offer's buttons do nothing even if reached.
        assert_eq!(
            panel.act(StorageIntent::DeleteOld, 0),
            (StorageEffect::Nothing, None)
        );
        assert_eq!(
            panel.act(StorageIntent::ExportOld, 0),
            (StorageEffect::Nothing, None)
        );
        assert_eq!(panel.view(&facts(&s, &[], 0, &bad)).question, None);
        assert_eq!(
            panel.act(StorageIntent::Discard("skiff:conv:<b>".into()), 0),
            (StorageEffect::Discard("skiff:conv:<b>".into()), None)
        );
    }

    #[test]
    fn delete_asks_first_and_cancel_takes_the_question_back() {
        let s = sentences("");
        let mut panel = StoragePanel::default();
        assert_eq!(
            panel.act(StorageIntent::DeleteOldForGood, 1),
            (StorageEffect::Nothing, None),
            "never without the question"
        );
        assert_eq!(
            panel.act(StorageIntent::DeleteOld, 1),
            (StorageEffect::Nothing, Some(StorageFocus::KeepOld))
        );
        assert_eq!(
            panel.view(&facts(&s, &[], 1, &[])).question.as_deref(),
            Some("Delete 1 conversation not changed in 30 days? This cannot be undone; export them first to keep a copy.")
        );
        assert_eq!(
            panel.act(StorageIntent::KeepOld, 1),
            (StorageEffect::Nothing, Some(StorageFocus::DeleteOld))
        );
        assert_eq!(panel.view(&facts(&s, &[], 1, &[])).question, None);
        panel.act(StorageIntent::DeleteOld, 1);
        assert_eq!(
            panel.act(StorageIntent::DeleteOldForGood, 1),
            (StorageEffect::DeleteOld, None)
        );
        assert_eq!(panel.view(&facts(&s, &[], 1, &[])).question, None);
        assert_eq!(StorageFocus::KeepOld.id(), "prune-confirm-no");
    }

    #[test]
    fn the_backup_keeps_the_keys_switch() {
        let s = sentences("");
        let mut panel = StoragePanel::default();
        assert!(!panel.view(&facts(&s, &[], 0, &[])).include_keys);
        assert_eq!(
            panel.act(StorageIntent::BackUp, 0),
            (
                StorageEffect::BackUp {
                    include_keys: false
                },
                None
            )
        );
        panel.act(StorageIntent::IncludeKeys(true), 0);
        assert!(panel.view(&facts(&s, &[], 0, &[])).include_keys);
        assert_eq!(
            panel.act(StorageIntent::BackUp, 0),
            (StorageEffect::BackUp { include_keys: true }, None)
        );
        assert_eq!(
            panel.act(StorageIntent::AskPersistence, 0),
            (StorageEffect::AskPersistence, None)
        );
    }
}
