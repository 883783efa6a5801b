//! A thin async adapter over IndexedDB, where conversation bodies live (localStorage holds
//! ~5 M characters per origin; IndexedDB's quota is a share of the disk).
//!
//! One database, [`DB_NAME`], with two object stores created by a versioned upgrade:
//! - [`CONVERSATIONS`]: key = conversation id, value = the same versioned JSON text the
//!   localStorage key held, so `skiff_core::persist` decodes it and an unreadable value is
//!   kept as it is.
//! - [`BLOBS`]: key = a content hash the caller computed, value = `{ mime, bytes }`. Stored
//!   once per hash (attachments and the MCP resource cache will share it).
//! - [`DELETED`]: key = a deleted conversation's id, value = when (ms). Deleting writes this
//!   mark in the same transaction that removes the body, and every write of a body checks it in
//!   its own transaction, so a tab that had not yet heard of a delete in another tab cannot
//!   bring the conversation back: IndexedDB runs the two transactions one after the other,
//!   whichever order they arrive in. Ids are never reused; importing a file revives one.
//!
//! Like `storage.rs`, this module must never parse, migrate or drop what it stores, and never
//! panic when IndexedDB is missing, full or blocked: those are [`IdbError`]s with sentences.
//! Writes are issued when the function is called (not when its future is first polled), so a
//! write started in a `pagehide` handler reaches the database before the page goes.

use std::cell::RefCell;
use std::fmt;
use std::future::Future;
use std::rc::Rc;

use js_sys::{Array, Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{Event, IdbDatabase, IdbObjectStore, IdbRequest, IdbTransaction, IdbTransactionMode};

use super::{js_error_name, js_error_text};

pub const DB_NAME: &str = "skiff";
/// 1: `conversations` and `blobs`; 2: `deleted`. A later version adds its stores in `upgrade`.
pub const DB_VERSION: u32 = 2;
pub const CONVERSATIONS: &str = "conversations";
pub const BLOBS: &str = "blobs";
pub const DELETED: &str = "deleted";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdbError {
    /// No IndexedDB (some private modes, disabled site data), or it refused to open.
    Unavailable(String),
    /// The write would pass the origin's quota; nothing of it was stored.
    QuotaExceeded,
    /// Another tab holds the database open at an older version and did not let go.
    Blocked,
    /// The transaction was aborted (by the browser, or a failed request in it).
    Aborted(String),
}

impl fmt::Display for IdbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdbError::Unavailable(detail) => write!(
                f,
                "The browser's database (IndexedDB) is not available, so conversations are kept \
                 in the smaller localStorage instead. (Browser said: {detail})"
            ),
            IdbError::QuotaExceeded => write!(
                f,
                "Browser storage is full: the conversation could not be saved. It stays in this \
                 tab and is saved again with the next change; delete or export old \
                 conversations to make room. Nothing already saved was lost."
            ),
            IdbError::Blocked => write!(
                f,
                "Another Skiff tab is running an older version and keeps the database closed to \
                 this one. Close or reload the other tabs, then reload this one."
            ),
            IdbError::Aborted(detail) => write!(
                f,
                "The browser's database stopped a save ({detail}). Nothing already saved was \
                 lost; the change is tried again with the next one."
            ),
        }
    }
}

impl std::error::Error for IdbError {}

impl IdbError {
    fn from_js(e: &JsValue) -> IdbError {
        match js_error_name(e).as_deref() {
            Some("QuotaExceededError") => IdbError::QuotaExceeded,
            Some("InvalidStateError") | Some("UnknownError") | Some("VersionError") => {
                IdbError::Unavailable(js_error_text(e))
            }
            _ => IdbError::Aborted(js_error_text(e)),
        }
    }
}

/// A stored blob: its bytes and the media type it was stored with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredBlob {
    pub mime: String,
    pub bytes: Vec<u8>,
}

/// An open database. Cheap to clone (a handle to the same connection).
#[derive(Clone, Debug)]
pub struct Db {
    db: IdbDatabase,
}

/// Settle a promise from one event of `target`: `ok` events resolve with `value()`, any other
/// event rejects with `error()`. One closure serves every event named, and exactly one of them
/// fires, so it is called once and freed (nothing leaks per request).
pub(super) fn settle_on(
    set: impl FnOnce(&Function),
    ok: &'static str,
    value: impl FnOnce() -> JsValue + 'static,
    error: impl FnOnce() -> JsValue + 'static,
) -> JsFuture {
    let mut set = Some(set);
    let mut value = Some(value);
    let mut error = Some(error);
    let promise = Promise::new(&mut |resolve: Function, reject: Function| {
        let (Some(value), Some(error)) = (value.take(), error.take()) else {
            return;
        };
        let done = Closure::once_into_js(move |event: Event| {
            let _ = if event.type_() == ok {
                resolve.call1(&JsValue::NULL, &value())
            } else {
                reject.call1(&JsValue::NULL, &error())
            };
        });
        if let Some(set) = set.take() {
            set(done.unchecked_ref());
        }
    });
    JsFuture::from(promise)
}

/// The result of one request.
pub(super) fn request(req: IdbRequest) -> impl Future<Output = Result<JsValue, IdbError>> {
    let (r1, r2) = (req.clone(), req.clone());
    let fut = settle_on(
        |f| {
            req.set_onsuccess(Some(f));
            req.set_onerror(Some(f));
        },
        "success",
        move || r1.result().unwrap_or(JsValue::UNDEFINED),
        move || {
            r2.error()
                .ok()
                .flatten()
                .map(JsValue::from)
                .unwrap_or(JsValue::NULL)
        },
    );
    async move { fut.await.map_err(|e| IdbError::from_js(&e)) }
}

/// Done when the transaction has committed; a quota error surfaces here, as the abort's cause.
pub(super) fn committed(tx: IdbTransaction) -> impl Future<Output = Result<(), IdbError>> {
    let t = tx.clone();
    let fut = settle_on(
        |f| {
            tx.set_oncomplete(Some(f));
            tx.set_onabort(Some(f));
        },
        "complete",
        || JsValue::UNDEFINED,
        move || {
            t.error()
                .map(JsValue::from)
                .unwrap_or_else(|| JsValue::from_str("AbortError"))
        },
    );
    async move {
        fut.await.map(|_| ()).map_err(|e| match e.as_string() {
            Some(s) => IdbError::Aborted(s),
            None => IdbError::from_js(&e),
        })
    }
}

fn js_err(e: JsValue) -> IdbError {
    IdbError::from_js(&e)
}

impl Db {
    /// Open Skiff's database, creating or upgrading its stores.
    pub async fn open() -> Result<Db, IdbError> {
        Db::open_named(DB_NAME).await
    }

    /// Open (and create or upgrade) a database by name; tests use their own names.
    pub async fn open_named(name: &str) -> Result<Db, IdbError> {
        let window =
            web_sys::window().ok_or_else(|| IdbError::Unavailable("no window".to_string()))?;
        let factory = window
            .indexed_db()
            .map_err(|e| IdbError::Unavailable(js_error_text(&e)))?
            .ok_or_else(|| IdbError::Unavailable("indexedDB is missing".to_string()))?;
        let req = factory
            .open_with_u32(name, DB_VERSION)
            .map_err(|e| IdbError::Unavailable(js_error_text(&e)))?;
        let upgrading = req.clone();
        let on_upgrade = Closure::once_into_js(move |_: Event| {
            if let Ok(db) = upgrading.result() {
                upgrade(&db.unchecked_into());
            }
        });
        req.set_onupgradeneeded(Some(on_upgrade.unchecked_ref()));
        // `blocked` may fire before `success` (the other tab let go) or instead of it: the
        // first event settles the promise, so only `success`, `error` and `blocked` are
        // watched, each by the one closure, and a later `success` after `blocked` is dropped.
        let (r1, r2) = (req.clone(), req.clone());
        let target = req.clone();
        let opened = settle_on(
            move |f| {
                target.set_onsuccess(Some(f));
                target.set_onerror(Some(f));
                target.set_onblocked(Some(f));
            },
            "success",
            move || r1.result().unwrap_or(JsValue::UNDEFINED),
            move || {
                r2.error()
                    .ok()
                    .flatten()
                    .map(JsValue::from)
                    .unwrap_or_else(|| JsValue::from_str("blocked"))
            },
        )
        .await;
        let db: IdbDatabase = match opened {
            Ok(v) => v.unchecked_into(),
            Err(e) if e.as_string().as_deref() == Some("blocked") => return Err(IdbError::Blocked),
            Err(e) => return Err(IdbError::Unavailable(js_error_text(&e))),
        };
        // A newer Skiff in another tab wants to upgrade: let go rather than block it. This
        // tab's later writes then fail with a sentence asking for a reload.
        let closing = db.clone();
        let on_version = Closure::<dyn Fn()>::new(move || closing.close());
        db.set_onversionchange(Some(on_version.as_ref().unchecked_ref()));
        on_version.forget();
        Ok(Db { db })
    }

    /// Close this connection (tests delete their databases after).
    pub fn close(&self) {
        self.db.close();
    }

    fn store(
        &self,
        name: &str,
        mode: IdbTransactionMode,
    ) -> Result<(IdbTransaction, IdbObjectStore), IdbError> {
        let tx = self
            .db
            .transaction_with_str_and_mode(name, mode)
            .map_err(js_err)?;
        let store = tx.object_store(name).map_err(js_err)?;
        Ok((tx, store))
    }

    fn read(&self, name: &str) -> Result<IdbObjectStore, IdbError> {
        Ok(self.store(name, IdbTransactionMode::Readonly)?.1)
    }

    // --- conversations -------------------------------------------------------------------

    /// The text stored under `id`, if any.
    pub async fn get(&self, id: &str) -> Result<Option<String>, IdbError> {
        let req = self.read(CONVERSATIONS)?.get(&id.into()).map_err(js_err)?;
        Ok(as_text(request(req).await?))
    }

    /// Store `text` under `id` (replacing it), unless `id` was deleted: `Ok(false)` then, and
    /// nothing is written. Issued now; the future says whether it committed.
    pub fn put(&self, id: &str, text: &str) -> impl Future<Output = Result<bool, IdbError>> {
        let all = self.put_all(&[(id, text)]);
        async move { Ok(all.await?.is_empty()) }
    }

    /// Store several in one transaction: all of them or, on any failure, none. Ids that were
    /// deleted are skipped and returned (the check and the write share the transaction).
    pub fn put_all(
        &self,
        items: &[(&str, &str)],
    ) -> impl Future<Output = Result<Vec<String>, IdbError>> {
        let refused = Rc::new(RefCell::new(Vec::new()));
        let issued = self.both().and_then(|(tx, bodies, deleted)| {
            for (id, text) in items {
                let check = deleted.count_with_key(&(*id).into()).map_err(js_err)?;
                let (req, bodies, tx) = (check.clone(), bodies.clone(), tx.clone());
                let (id, text) = (id.to_string(), JsValue::from_str(text));
                let refused = refused.clone();
                let on_checked = Closure::once_into_js(move |_: Event| {
                    let marked = req.result().ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
                    if marked > 0.0 {
                        refused.borrow_mut().push(id);
                    } else if bodies.put_with_key(&text, &id.into()).is_err() {
                        let _ = tx.abort();
                    }
                });
                check.set_onsuccess(Some(on_checked.unchecked_ref()));
            }
            Ok(committed(tx))
        });
        async move {
            issued?.await?;
            Ok(refused.take())
        }
    }

    /// Store `text` under `id` even if `id` was deleted, and forget the deletion (an import
    /// brings back a conversation the user exported before deleting it).
    pub fn revive(&self, id: &str, text: &str) -> impl Future<Output = Result<(), IdbError>> {
        let issued = self.both().and_then(|(tx, bodies, deleted)| {
            deleted.delete(&id.into()).map_err(js_err)?;
            bodies
                .put_with_key(&text.into(), &id.into())
                .map_err(js_err)?;
            Ok(committed(tx))
        });
        async move { issued?.await }
    }

    /// Remove `id` and mark it deleted at `at_ms`, so no later write brings it back.
    pub fn delete(&self, id: &str, at_ms: f64) -> impl Future<Output = Result<(), IdbError>> {
        let issued = self.both().and_then(|(tx, bodies, deleted)| {
            bodies.delete(&id.into()).map_err(js_err)?;
            deleted
                .put_with_key(&at_ms.into(), &id.into())
                .map_err(js_err)?;
            Ok(committed(tx))
        });
        async move { issued?.await }
    }

    /// Whether `id` was deleted.
    pub async fn is_deleted(&self, id: &str) -> Result<bool, IdbError> {
        let req = self
            .read(DELETED)?
            .count_with_key(&id.into())
            .map_err(js_err)?;
        Ok(request(req).await?.as_f64().unwrap_or(0.0) > 0.0)
    }

    /// Forget deletion marks made before `before_ms` (a tab that old has long heard of them).
    pub async fn forget_deleted_before(&self, before_ms: f64) -> Result<(), IdbError> {
        let store = self.read(DELETED)?;
        let keys = request(store.get_all_keys().map_err(js_err)?);
        let values = request(store.get_all().map_err(js_err)?);
        let (keys, values) = (Array::from(&keys.await?), Array::from(&values.await?));
        let old: Vec<JsValue> = keys
            .iter()
            .zip(values.iter())
            .filter(|(_, at)| at.as_f64().is_some_and(|at| at < before_ms))
            .map(|(key, _)| key)
            .collect();
        if old.is_empty() {
            return Ok(());
        }
        let (tx, store) = self.store(DELETED, IdbTransactionMode::Readwrite)?;
        for key in &old {
            store.delete(key).map_err(js_err)?;
        }
        committed(tx).await
    }

    fn delete_in(&self, name: &str, key: &str) -> impl Future<Output = Result<(), IdbError>> {
        let issued = self
            .store(name, IdbTransactionMode::Readwrite)
            .and_then(|(tx, store)| {
                store.delete(&key.into()).map_err(js_err)?;
                Ok(committed(tx))
            });
        async move { issued?.await }
    }

    /// A read-write transaction over the bodies and the deletion marks.
    fn both(&self) -> Result<(IdbTransaction, IdbObjectStore, IdbObjectStore), IdbError> {
        let names = Array::of2(&CONVERSATIONS.into(), &DELETED.into());
        let tx = self
            .db
            .transaction_with_str_sequence_and_mode(&names, IdbTransactionMode::Readwrite)
            .map_err(js_err)?;
        let bodies = tx.object_store(CONVERSATIONS).map_err(js_err)?;
        let deleted = tx.object_store(DELETED).map_err(js_err)?;
        Ok((tx, bodies, deleted))
    }

    /// Every stored id, sorted.
    pub async fn keys(&self) -> Result<Vec<String>, IdbError> {
        let req = self.read(CONVERSATIONS)?.get_all_keys().map_err(js_err)?;
        Ok(strings(request(req).await?))
    }

    /// Every stored `(id, text)`, sorted by id, read in one transaction.
    pub async fn all(&self) -> Result<Vec<(String, String)>, IdbError> {
        let store = self.read(CONVERSATIONS)?;
        let keys = request(store.get_all_keys().map_err(js_err)?);
        let values = request(store.get_all().map_err(js_err)?);
        let keys = strings(keys.await?);
        let values: Vec<String> = Array::from(&values.await?)
            .iter()
            .map(|v| as_text(v).unwrap_or_default())
            .collect();
        Ok(keys.into_iter().zip(values).collect())
    }

    // --- blobs ----------------------------------------------------------------------------

    /// Store `bytes` under their content hash, once: `Ok(false)` when that hash was already
    /// stored (the stored copy is kept as it was).
    pub async fn put_blob(&self, hash: &str, mime: &str, bytes: &[u8]) -> Result<bool, IdbError> {
        let value = Object::new();
        let _ = Reflect::set(&value, &"mime".into(), &mime.into());
        let _ = Reflect::set(&value, &"bytes".into(), &Uint8Array::from(bytes));
        let (tx, store) = self.store(BLOBS, IdbTransactionMode::Readwrite)?;
        // `add` refuses an existing key with a ConstraintError, which aborts this one-request
        // transaction and nothing else: that is "already stored".
        store.add_with_key(&value, &hash.into()).map_err(js_err)?;
        match committed(tx).await {
            Ok(()) => Ok(true),
            Err(IdbError::Aborted(detail)) if detail.starts_with("ConstraintError") => Ok(false),
            Err(e) => Err(e),
        }
    }

    pub async fn get_blob(&self, hash: &str) -> Result<Option<StoredBlob>, IdbError> {
        let req = self.read(BLOBS)?.get(&hash.into()).map_err(js_err)?;
        let value = request(req).await?;
        if value.is_undefined() {
            return Ok(None);
        }
        // The MCP resource cache's database (`skiff-extras`) holds bytes written by an earlier
        // Skiff as they are, without the `{mime, bytes}` record: read those too.
        if value.is_instance_of::<Uint8Array>() || value.is_instance_of::<js_sys::ArrayBuffer>() {
            return Ok(Some(StoredBlob {
                mime: String::new(),
                bytes: Uint8Array::new(&value).to_vec(),
            }));
        }
        let field = |name: &str| Reflect::get(&value, &name.into()).unwrap_or_default();
        Ok(Some(StoredBlob {
            mime: field("mime").as_string().unwrap_or_default(),
            bytes: field("bytes")
                .dyn_into::<Uint8Array>()
                .map(|a| a.to_vec())
                .unwrap_or_default(),
        }))
    }

    /// The hash of every stored blob.
    pub async fn blob_keys(&self) -> Result<Vec<String>, IdbError> {
        let req = self.read(BLOBS)?.get_all_keys().map_err(js_err)?;
        Ok(strings(request(req).await?))
    }

    pub async fn has_blob(&self, hash: &str) -> Result<bool, IdbError> {
        let req = self
            .read(BLOBS)?
            .count_with_key(&hash.into())
            .map_err(js_err)?;
        Ok(request(req).await?.as_f64().unwrap_or(0.0) > 0.0)
    }

    pub async fn delete_blob(&self, hash: &str) -> Result<(), IdbError> {
        self.delete_in(BLOBS, hash).await
    }

    /// How many blobs are stored.
    pub async fn blob_count(&self) -> Result<u32, IdbError> {
        let req = self.read(BLOBS)?.count().map_err(js_err)?;
        Ok(request(req).await?.as_f64().unwrap_or(0.0) as u32)
    }
}

/// Create the stores a fresh or older database lacks (runs inside `upgradeneeded`).
fn upgrade(db: &IdbDatabase) {
    let names = db.object_store_names();
    for name in [CONVERSATIONS, BLOBS, DELETED] {
        if !names.contains(name) {
            if let Err(e) = db.create_object_store(name) {
                leptos::logging::warn!("could not create store {name}: {}", js_error_text(&e));
            }
        }
    }
}

/// A stored value as text: strings as they are, anything else (written by something other
/// than Skiff) as JSON, so it is listed as unreadable rather than dropped.
fn as_text(v: JsValue) -> Option<String> {
    if v.is_undefined() {
        return None;
    }
    v.as_string().or_else(|| {
        js_sys::JSON::stringify(&v)
            .ok()
            .map(String::from)
            .or(Some(String::new()))
    })
}

fn strings(v: JsValue) -> Vec<String> {
    Array::from(&v)
        .iter()
        .filter_map(|k| k.as_string())
        .collect()
}

/// Delete a whole database (tests start from empty). Resolves when it is gone.
pub async fn delete_database(name: &str) -> Result<(), IdbError> {
    let factory = web_sys::window()
        .and_then(|w| w.indexed_db().ok().flatten())
        .ok_or_else(|| IdbError::Unavailable("indexedDB is missing".to_string()))?;
    let req = factory.delete_database(name).map_err(js_err)?;
    request(req.unchecked_into()).await.map(|_| ())
}
