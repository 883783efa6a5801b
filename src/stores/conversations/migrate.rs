//! The first start with IndexedDB: every `skiff:conv:*` localStorage body is copied into it,
//! read back and compared, and only then its old key removed (`skiff_core::persist::migrate`
//! decides what each body needs). Any failure leaves that body's old key untouched, and the
//! page keeps reading it from there (`bodies.rs` prefers an old key); the next start tries
//! again. Unreadable bodies move as they are and stay listed as unreadable.

use skiff_core::format::count;
use skiff_core::persist::{self, migrate::Step};

use crate::platform::idb::Db;
use crate::platform::storage;

/// Bodies per transaction: a failure (the quota, say) costs one batch, not the whole move.
const BATCH: usize = 100;

/// How the move went: bodies moved, and a sentence for each reason some stayed behind.
#[derive(Debug, Default)]
pub(super) struct Report {
    pub moved: usize,
    pub left: usize,
    pub reasons: Vec<String>,
}

impl Report {
    /// The sentence for Settings → Storage, when something stayed behind.
    pub(super) fn problem(&self) -> Option<String> {
        (self.left > 0).then(|| {
            let mut reasons = self.reasons.clone();
            reasons.dedup();
            format!(
                "{} could not be moved to IndexedDB ({}). They were left untouched in \
                 localStorage and are read from there; the move is tried again at the next start.",
                count(self.left, "conversation", "conversations"),
                reasons.join("; ")
            )
        })
    }
}

pub(super) async fn run(db: &Db) -> Report {
    let mut report = Report::default();
    let keys = match storage::keys_with_prefix(persist::CONVERSATION_PREFIX) {
        Ok(keys) if keys.is_empty() => return report,
        Ok(keys) => keys,
        Err(e) => {
            leptos::logging::warn!("migration skipped: {e}");
            return report;
        }
    };
    let fail = |report: &mut Report, why: String| {
        report.left += 1;
        report.reasons.push(why);
    };
    // Sorted by id (IndexedDB's key order).
    let stored = match db.all().await {
        Ok(all) => all,
        Err(e) => {
            for _ in &keys {
                fail(&mut report, e.to_string());
            }
            return report;
        }
    };
    let mut copies: Vec<(String, String, String)> = Vec::new(); // (key, id, text)
    for key in &keys {
        let (Some(id), Ok(Some(old))) = (persist::conversation_id_from_key(key), storage::get(key))
        else {
            continue;
        };
        let there = stored
            .binary_search_by(|(k, _)| k.as_str().cmp(id))
            .ok()
            .map(|at| stored[at].1.as_str());
        match persist::migrate::decide(&old, there) {
            Step::Copy(text) => copies.push((key.clone(), id.to_string(), text)),
            Step::RemoveOld => {
                let _ = storage::remove(key);
                report.moved += 1;
            }
            Step::Leave(why) => fail(&mut report, why),
        }
    }
    for batch in copies.chunks(BATCH) {
        let items: Vec<(&str, &str)> = batch
            .iter()
            .map(|(_, id, text)| (id.as_str(), text.as_str()))
            .collect();
        let refused = match db.put_all(&items).await {
            Ok(refused) => refused,
            Err(e) => {
                for _ in batch {
                    fail(&mut report, e.to_string());
                }
                continue;
            }
        };
        // Read back and compare before anything old is removed.
        for (key, id, text) in batch {
            // Deleted in another tab after it was left here: the old copy goes too.
            if refused.contains(id) {
                let _ = storage::remove(key);
                continue;
            }
            match db.get(id).await {
                Ok(Some(back)) if back == *text => match storage::remove(key) {
                    Ok(()) => report.moved += 1,
                    Err(e) => fail(&mut report, e.to_string()),
                },
                Ok(_) => fail(&mut report, "the copy read back differed".to_string()),
                Err(e) => fail(&mut report, e.to_string()),
            }
        }
    }
    report
}
