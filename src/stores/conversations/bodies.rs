//! Where conversation bodies are read and written: IndexedDB, or localStorage when the
//! browser has no IndexedDB (some private modes). The index stays in localStorage either way,
//! so the sidebar draws before any of this has opened.
//!
//! Reading prefers a `skiff:conv:<id>` localStorage key when one exists: such a key is only
//! left by a migration that could not finish for it, and it is then the copy to trust. A
//! successful IndexedDB write of that id removes the old key (it is behind from then on).
//! This module never decides what a body means; it moves text.

use skiff_core::persist;

use crate::platform::idb::{Db, IdbError};
use crate::platform::storage::{self, StorageError};

#[derive(Clone, Debug)]
pub(super) enum Bodies {
    Idb(Db),
    /// IndexedDB could not be opened: bodies stay in localStorage as before.
    Local,
}

/// A failed write: whether it was the quota (the storage-full notice), and the sentence.
#[derive(Debug, Clone)]
pub(super) struct WriteError {
    pub full: bool,
    pub sentence: String,
}

impl From<IdbError> for WriteError {
    fn from(e: IdbError) -> Self {
        WriteError {
            full: e == IdbError::QuotaExceeded,
            sentence: e.to_string(),
        }
    }
}

impl From<StorageError> for WriteError {
    fn from(e: StorageError) -> Self {
        WriteError {
            full: matches!(e, StorageError::QuotaExceeded { .. }),
            sentence: e.to_string(),
        }
    }
}

fn old_key(id: &str) -> Option<String> {
    let key = persist::conversation_key(id);
    storage::get(&key).ok().flatten().map(|_| key)
}

impl Bodies {
    pub(super) async fn get(&self, id: &str) -> Result<Option<String>, String> {
        let key = persist::conversation_key(id);
        if let Some(raw) = storage::get(&key).map_err(|e| e.to_string())? {
            // A `pagehide` copy of a conversation another tab deleted meanwhile.
            if let Bodies::Idb(db) = self {
                if db.is_deleted(id).await.unwrap_or(false) {
                    let _ = storage::remove(&key);
                    return Ok(None);
                }
            }
            return Ok(Some(raw));
        }
        match self {
            Bodies::Idb(db) => db.get(id).await.map_err(|e| e.to_string()),
            Bodies::Local => Ok(None),
        }
    }

    /// Store `raw` as `id`'s body: `Ok(false)` when `id` was deleted (in any tab), and then
    /// nothing is stored. The IndexedDB request is issued before this returns (a write from
    /// `pagehide` must not wait for a later poll); the future says how it ended.
    pub(super) fn put(
        &self,
        id: &str,
        raw: &str,
    ) -> impl std::future::Future<Output = Result<bool, WriteError>> {
        let issued = match self {
            Bodies::Idb(db) => Ok(db.put(id, raw)),
            Bodies::Local => Err(storage::set(&persist::conversation_key(id), raw)),
        };
        let id = id.to_string();
        async move {
            match issued {
                Ok(write) => {
                    let stored = write.await?;
                    // Behind from now on (or deleted).
                    if let Some(key) = old_key(&id) {
                        let _ = storage::remove(&key);
                    }
                    Ok(stored)
                }
                Err(local) => Ok(local.map(|()| true)?),
            }
        }
    }

    /// Store an imported body, even under the id of a conversation deleted before.
    pub(super) async fn revive(&self, id: &str, raw: &str) -> Result<(), WriteError> {
        match self {
            Bodies::Idb(db) => Ok(db.revive(id, raw).await?),
            Bodies::Local => Ok(storage::set(&persist::conversation_key(id), raw)?),
        }
    }

    /// Delete `id`'s body for good: IndexedDB keeps a mark (made at `at_ms`) that refuses
    /// any later write of it from a tab that has not heard yet.
    pub(super) async fn delete(&self, id: &str, at_ms: f64) -> Result<(), String> {
        storage::remove(&persist::conversation_key(id)).map_err(|e| e.to_string())?;
        match self {
            Bodies::Idb(db) => db.delete(id, at_ms).await.map_err(|e| e.to_string()),
            Bodies::Local => Ok(()),
        }
    }

    /// Every stored body's id, sorted: IndexedDB's (in key order) and any left in localStorage.
    pub(super) async fn ids(&self) -> Result<Vec<String>, String> {
        let mut ids = match self {
            Bodies::Idb(db) => db.keys().await.map_err(|e| e.to_string())?,
            Bodies::Local => Vec::new(),
        };
        for key in
            storage::keys_with_prefix(persist::CONVERSATION_PREFIX).map_err(|e| e.to_string())?
        {
            if let Some(id) = persist::conversation_id_from_key(&key) {
                if let Err(at) = ids.binary_search_by(|x| x.as_str().cmp(id)) {
                    ids.insert(at, id.to_string());
                }
            }
        }
        Ok(ids)
    }

    /// Every body as `(id, text)` sorted by id, the localStorage copy winning where both exist.
    pub(super) async fn all(&self) -> Result<Vec<(String, String)>, String> {
        let mut out = match self {
            Bodies::Idb(db) => db.all().await.map_err(|e| e.to_string())?,
            Bodies::Local => Vec::new(),
        };
        let keys =
            storage::keys_with_prefix(persist::CONVERSATION_PREFIX).map_err(|e| e.to_string())?;
        for key in keys {
            let (Some(id), Ok(Some(raw))) =
                (persist::conversation_id_from_key(&key), storage::get(&key))
            else {
                continue;
            };
            match out.binary_search_by(|(i, _)| i.as_str().cmp(id)) {
                Ok(at) => out[at].1 = raw,
                Err(at) => out.insert(at, (id.to_string(), raw)),
            }
        }
        Ok(out)
    }
}
