//! A small IndexedDB database of one object store holding browser values that are not text (a
//! `CryptoKey`, which IndexedDB stores by structured clone and localStorage cannot hold at all).
//! The sign-in's sealing key and its DPoP key pairs live in one (`webcrypto`).
//!
//! Like `idb.rs` (whose request helpers it shares), it never parses or drops what it stores and
//! never panics when IndexedDB is missing or refuses: those are `IdbError`s with sentences.

use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Event, IdbDatabase, IdbTransactionMode};

use super::idb::{committed, request, settle_on, IdbError};
use super::js_error_text;

/// An open database with one object store, `store`.
pub struct ValueDb {
    db: IdbDatabase,
    store: &'static str,
}

impl ValueDb {
    /// Open `name` at `version`, creating `store` when the database is new.
    pub async fn open(name: &str, version: u32, store: &'static str) -> Result<ValueDb, IdbError> {
        let factory = web_sys::window()
            .ok_or_else(|| IdbError::Unavailable("no window".into()))?
            .indexed_db()
            .map_err(|e| IdbError::Unavailable(js_error_text(&e)))?
            .ok_or_else(|| IdbError::Unavailable("indexedDB is missing".into()))?;
        let req = factory
            .open_with_u32(name, version)
            .map_err(|e| IdbError::Unavailable(js_error_text(&e)))?;
        let upgrading = req.clone();
        let on_upgrade = Closure::once_into_js(move |_: Event| {
            if let Ok(db) = upgrading.result() {
                let db: IdbDatabase = db.unchecked_into();
                if !db.object_store_names().contains(store) {
                    let _ = db.create_object_store(store);
                }
            }
        });
        req.set_onupgradeneeded(Some(on_upgrade.unchecked_ref()));
        let (r1, r2, target) = (req.clone(), req.clone(), req.clone());
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
        match opened {
            Ok(db) => Ok(ValueDb {
                db: db.unchecked_into(),
                store,
            }),
            Err(e) if e.as_string().as_deref() == Some("blocked") => Err(IdbError::Blocked),
            Err(e) => Err(IdbError::Unavailable(js_error_text(&e))),
        }
    }

    /// The value under `key`, if any.
    pub async fn get(&self, key: &str) -> Result<Option<JsValue>, IdbError> {
        let tx = self
            .db
            .transaction_with_str(self.store)
            .map_err(|e| IdbError::Unavailable(js_error_text(&e)))?;
        let store = tx
            .object_store(self.store)
            .map_err(|e| IdbError::Unavailable(js_error_text(&e)))?;
        let req = store
            .get(&JsValue::from_str(key))
            .map_err(|e| IdbError::Aborted(js_error_text(&e)))?;
        let v = request(req).await?;
        Ok((!v.is_undefined() && !v.is_null()).then_some(v))
    }

    /// Store `value` under `key` unless something is stored there already (then an error);
    /// done once committed.
    pub async fn add(&self, key: &str, value: &JsValue) -> Result<(), IdbError> {
        let tx = self
            .db
            .transaction_with_str_and_mode(self.store, IdbTransactionMode::Readwrite)
            .map_err(|e| IdbError::Unavailable(js_error_text(&e)))?;
        let store = tx
            .object_store(self.store)
            .map_err(|e| IdbError::Unavailable(js_error_text(&e)))?;
        store
            .add_with_key(value, &JsValue::from_str(key))
            .map_err(|e| IdbError::Aborted(js_error_text(&e)))?;
        committed(tx).await
    }

    /// Remove what is stored under `key`, if anything; done once committed.
    pub async fn delete(&self, key: &str) -> Result<(), IdbError> {
        let tx = self
            .db
            .transaction_with_str_and_mode(self.store, IdbTransactionMode::Readwrite)
            .map_err(|e| IdbError::Unavailable(js_error_text(&e)))?;
        let store = tx
            .object_store(self.store)
            .map_err(|e| IdbError::Unavailable(js_error_text(&e)))?;
        store
            .delete(&JsValue::from_str(key))
            .map_err(|e| IdbError::Aborted(js_error_text(&e)))?;
        committed(tx).await
    }

    pub fn close(&self) {
        self.db.close();
    }
}
