//! WebCrypto for the OAuth sign-in: random bytes, SHA-256, signing with a PKCS#8 private key,
//! AES-GCM sealing under a non-extractable key that lives in IndexedDB, and the DPoP key pairs
//! (ECDSA P-256, private key not extractable) that DPoP-bound tokens are tied to, kept in the
//! same IndexedDB store as `CryptoKeyPair`s (structured clones: the private key never exists
//! as bytes the page could read).
//!
//! Why an adapter: core never draws randomness or computes a digest (its invariant), and a key
//! that JavaScript cannot read back must be made and used by the browser itself. The sealing
//! key is made once per browser profile, `extractable: false`, and kept as a `CryptoKey` in
//! IndexedDB (`skiff_core::oauth::stored::KEY_DB`), exactly where the JavaScript sign-in kept
//! it, so what it sealed still opens.
//!
//! It decides nothing: which bytes to seal, under which additional data, and what a failure
//! means are the caller's. It never logs a value it is handed.

use std::fmt;
use std::rc::Rc;

use futures::lock::Mutex;
use js_sys::{Array, Object, Reflect, Uint8Array};
use skiff_core::oauth::stored::{KEY_DB, KEY_DB_VERSION, KEY_NAME, KEY_STORE};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{CryptoKey, SubtleCrypto};

use super::idb_values;
use super::js_error_text;

/// Why a WebCrypto step failed (the browser's words).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CryptoError(pub String);

impl fmt::Display for CryptoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CryptoError {}

fn err(e: JsValue) -> CryptoError {
    CryptoError(js_error_text(&e))
}

fn crypto() -> Result<web_sys::Crypto, CryptoError> {
    let global = js_sys::global();
    Reflect::get(&global, &JsValue::from_str("crypto"))
        .ok()
        .and_then(|c| c.dyn_into().ok())
        .ok_or_else(|| CryptoError("this browser has no Web Crypto".into()))
}

fn subtle() -> Result<SubtleCrypto, CryptoError> {
    // `subtle` is missing on plain http:// pages other than localhost (not a secure context).
    let subtle = crypto()?.subtle();
    if subtle.is_undefined() {
        return Err(CryptoError(
            "Web Crypto is only available on https:// pages (and localhost)".into(),
        ));
    }
    Ok(subtle)
}

fn object(pairs: &[(&str, JsValue)]) -> Object {
    let o = Object::new();
    for (k, v) in pairs {
        let _ = Reflect::set(&o, &JsValue::from_str(k), v);
    }
    o
}

fn usages(list: &[&str]) -> JsValue {
    list.iter()
        .map(|u| JsValue::from_str(u))
        .collect::<Array>()
        .into()
}

async fn bytes_of(promise: js_sys::Promise) -> Result<Vec<u8>, CryptoError> {
    let buffer = JsFuture::from(promise).await.map_err(err)?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// `n` bytes from the browser's cryptographic random source.
pub fn random_bytes(n: usize) -> Result<Vec<u8>, CryptoError> {
    let mut out = vec![0u8; n];
    crypto()?
        .get_random_values_with_u8_array(&mut out)
        .map_err(err)?;
    Ok(out)
}

/// SHA-256 of `data`.
pub async fn sha256(data: &[u8]) -> Result<[u8; 32], CryptoError> {
    let promise = subtle()?
        .digest_with_str_and_buffer_source("SHA-256", &Uint8Array::from(data))
        .map_err(err)?;
    bytes_of(promise)
        .await?
        .try_into()
        .map_err(|_| CryptoError("SHA-256 gave a digest of the wrong size".into()))
}

/// The signature algorithms a client assertion is signed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignWith {
    /// ECDSA P-256 with SHA-256: WebCrypto's signature is already JOSE's `r || s`.
    Es256,
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    Rs256,
}

/// Sign `data` with a PKCS#8 (DER) private key, imported for this one signature and never
/// extractable.
pub async fn sign_pkcs8(der: &[u8], alg: SignWith, data: &[u8]) -> Result<Vec<u8>, CryptoError> {
    let subtle = subtle()?;
    let algorithm = match alg {
        SignWith::Es256 => object(&[
            ("name", "ECDSA".into()),
            ("namedCurve", "P-256".into()),
            ("hash", "SHA-256".into()),
        ]),
        SignWith::Rs256 => object(&[
            ("name", "RSASSA-PKCS1-v1_5".into()),
            ("hash", "SHA-256".into()),
        ]),
    };
    let import = subtle
        .import_key_with_object(
            "pkcs8",
            &Uint8Array::from(der),
            &algorithm,
            false,
            &usages(&["sign"]),
        )
        .map_err(err)?;
    let key: CryptoKey = JsFuture::from(import).await.map_err(err)?.unchecked_into();
    let sign = subtle
        .sign_with_object_and_buffer_source(&algorithm, &key, &Uint8Array::from(data))
        .map_err(err)?;
    bytes_of(sign).await
}

/// A DPoP key pair as the proofs need it: the private key that signs (not extractable) and
/// the public key's coordinates for the proof's `jwk` header (base64url, as WebCrypto
/// exports them).
#[derive(Clone)]
pub struct DpopKey {
    private: CryptoKey,
    pub x: String,
    pub y: String,
}

fn ecdsa_p256() -> Object {
    object(&[("name", "ECDSA".into()), ("namedCurve", "P-256".into())])
}

fn key_db_error(e: impl fmt::Display) -> CryptoError {
    CryptoError(e.to_string())
}

async fn public_coordinates(pair: &JsValue) -> Result<DpopKey, CryptoError> {
    let get = |o: &JsValue, k: &str| Reflect::get(o, &JsValue::from_str(k)).ok();
    let private: CryptoKey = get(pair, "privateKey")
        .and_then(|k| k.dyn_into().ok())
        .ok_or_else(|| CryptoError("the stored DPoP key has no private key".into()))?;
    let public: CryptoKey = get(pair, "publicKey")
        .and_then(|k| k.dyn_into().ok())
        .ok_or_else(|| CryptoError("the stored DPoP key has no public key".into()))?;
    // A generated key pair's public key is always extractable (WebCrypto), whatever the flag.
    let jwk = JsFuture::from(subtle()?.export_key("jwk", &public).map_err(err)?)
        .await
        .map_err(err)?;
    let coordinate = |k: &str| {
        get(&jwk, k)
            .and_then(|v| v.as_string())
            .ok_or_else(|| CryptoError(format!("the DPoP public key has no {k}")))
    };
    Ok(DpopKey {
        private,
        x: coordinate("x")?,
        y: coordinate("y")?,
    })
}

thread_local! {
    /// DPoP keys once loaded or made in this page, by name; behind a lock so two first proofs
    /// at once do not each make a key (the token would be bound to one of them only).
    static DPOP_KEYS: Rc<Mutex<Vec<(String, DpopKey)>>> = Rc::new(Mutex::new(Vec::new()));
}

/// The DPoP key pair stored as `name` (`skiff_core::oauth::stored::dpop_key_name`), made
/// (ECDSA P-256, private key not extractable) and stored the first time.
pub async fn dpop_key(name: &str) -> Result<DpopKey, CryptoError> {
    let slot = DPOP_KEYS.with(Rc::clone);
    let mut keys = slot.lock().await;
    if let Some((_, key)) = keys.iter().find(|(n, _)| n == name) {
        return Ok(key.clone());
    }
    let db = idb_values::ValueDb::open(KEY_DB, KEY_DB_VERSION, KEY_STORE)
        .await
        .map_err(key_db_error)?;
    let pair = match db.get(name).await.map_err(key_db_error)? {
        Some(pair) => pair,
        None => {
            let made = subtle()?
                .generate_key_with_object(&ecdsa_p256(), false, &usages(&["sign", "verify"]))
                .map_err(err)?;
            let pair = JsFuture::from(made).await.map_err(err)?;
            // `add`: another tab that made this key first keeps it, and we use theirs.
            match db.add(name, &pair).await {
                Ok(()) => pair,
                Err(e) => db
                    .get(name)
                    .await
                    .ok()
                    .flatten()
                    .ok_or_else(|| key_db_error(e))?,
            }
        }
    };
    db.close();
    let key = public_coordinates(&pair).await?;
    keys.push((name.to_string(), key.clone()));
    Ok(key)
}

/// Forget the DPoP key pair `name` (its credentials are gone): a later sign-in makes a new one.
pub async fn forget_dpop_key(name: &str) {
    let slot = DPOP_KEYS.with(Rc::clone);
    let mut keys = slot.lock().await;
    keys.retain(|(n, _)| n != name);
    if let Ok(db) = idb_values::ValueDb::open(KEY_DB, KEY_DB_VERSION, KEY_STORE).await {
        let _ = db.delete(name).await;
        db.close();
    }
}

/// ECDSA P-256 / SHA-256 signature of `data` with a DPoP key: WebCrypto gives JOSE's raw
/// `r || s` (64 bytes), as a JWS needs.
pub async fn sign_dpop(key: &DpopKey, data: &[u8]) -> Result<Vec<u8>, CryptoError> {
    let algorithm = object(&[("name", "ECDSA".into()), ("hash", "SHA-256".into())]);
    let sign = subtle()?
        .sign_with_object_and_buffer_source(&algorithm, &key.private, &Uint8Array::from(data))
        .map_err(err)?;
    bytes_of(sign).await
}

thread_local! {
    /// The sealing key once loaded (or made) in this page. Behind a lock: two first uses at
    /// once must not each make a key, or what one sealed would not open after a reload.
    static SEALING_KEY: Rc<Mutex<Option<CryptoKey>>> = Rc::new(Mutex::new(None));
}

/// The profile's sealing key: read from IndexedDB, or made (AES-GCM 256, not extractable) and
/// stored there the first time.
async fn sealing_key() -> Result<CryptoKey, CryptoError> {
    let slot = SEALING_KEY.with(Rc::clone);
    let mut slot = slot.lock().await;
    if let Some(key) = slot.as_ref() {
        return Ok(key.clone());
    }
    let db = idb_values::ValueDb::open(KEY_DB, KEY_DB_VERSION, KEY_STORE)
        .await
        .map_err(|e| CryptoError(e.to_string()))?;
    let found = db
        .get(KEY_NAME)
        .await
        .map_err(|e| CryptoError(e.to_string()))?;
    let key = match found.and_then(|v| v.dyn_into::<CryptoKey>().ok()) {
        Some(key) => key,
        None => {
            let algorithm = object(&[("name", "AES-GCM".into()), ("length", 256.into())]);
            let made = subtle()?
                .generate_key_with_object(&algorithm, false, &usages(&["encrypt", "decrypt"]))
                .map_err(err)?;
            let key: CryptoKey = JsFuture::from(made).await.map_err(err)?.unchecked_into();
            // `add`, not `put`: another tab making its first key at the same moment must not
            // replace one already sealing records; the one stored first is everyone's.
            match db.add(KEY_NAME, &key).await {
                Ok(()) => key,
                Err(e) => db
                    .get(KEY_NAME)
                    .await
                    .ok()
                    .flatten()
                    .and_then(|v| v.dyn_into::<CryptoKey>().ok())
                    .ok_or_else(|| CryptoError(e.to_string()))?,
            }
        }
    };
    db.close();
    *slot = Some(key.clone());
    Ok(key)
}

fn gcm(iv: &[u8], additional_data: &[u8]) -> Object {
    object(&[
        ("name", "AES-GCM".into()),
        ("iv", Uint8Array::from(iv).into()),
        ("additionalData", Uint8Array::from(additional_data).into()),
    ])
}

/// AES-GCM ciphertext (with its 16-byte tag) of `plain` under the profile's key.
pub async fn seal(iv: &[u8], additional_data: &[u8], plain: &[u8]) -> Result<Vec<u8>, CryptoError> {
    let key = sealing_key().await?;
    let promise = subtle()?
        .encrypt_with_object_and_buffer_source(
            &gcm(iv, additional_data),
            &key,
            &Uint8Array::from(plain),
        )
        .map_err(err)?;
    bytes_of(promise).await
}

/// The plain bytes of what `seal` gave; fails when the key, the IV, the additional data or a
/// byte of it differ.
pub async fn unseal(
    iv: &[u8],
    additional_data: &[u8],
    ciphertext: &[u8],
) -> Result<Vec<u8>, CryptoError> {
    let key = sealing_key().await?;
    let promise = subtle()?
        .decrypt_with_object_and_buffer_source(
            &gcm(iv, additional_data),
            &key,
            &Uint8Array::from(ciphertext),
        )
        .map_err(err)?;
    bytes_of(promise).await
}
