//! The sign-in's storage: credential records and the Account dialog's fields in localStorage,
//! the secret ones sealed (AES-GCM under the profile's non-extractable key, the storage key as
//! additional data), with the names and shapes `skiff_core::oauth::stored` gives, which are
//! the ones the JavaScript sign-in wrote: a user signed in before stays signed in.
//!
//! A value that does not open is left where it is, never overwritten or removed by reading.

use skiff_core::oauth::credentials::Credentials;
use skiff_core::oauth::stored::{
    credentials_key, parse_record, Sealed, ServerField, ServerFields, ServerSecrets, StoreError,
    CREDENTIALS_PREFIX, IV_BYTES, RETIRED_KEYS,
};

use crate::platform::storage;
use crate::platform::webcrypto;

/// Whether any credential record is stored (a cheap look, no decryption).
pub(super) fn any_credentials() -> bool {
    storage::keys_with_prefix(CREDENTIALS_PREFIX).is_ok_and(|k| !k.is_empty())
}

/// Seal `text` into localStorage `name`.
pub(super) async fn seal(name: &str, text: &str) -> Result<(), String> {
    let iv = webcrypto::random_bytes(IV_BYTES).map_err(|e| e.to_string())?;
    let ct = webcrypto::seal(&iv, name.as_bytes(), text.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    storage::set(name, &Sealed::new(&iv, &ct).to_text()).map_err(|e| e.to_string())
}

/// The text sealed under `name`: `Ok(None)` when nothing is stored there.
pub(super) async fn unseal(name: &str) -> Result<Option<String>, StoreError> {
    let Some(text) = storage::get(name)
        .map_err(|e| StoreError::DoesNotDecrypt(e.to_string()))?
        .filter(|t| !t.is_empty())
    else {
        return Ok(None);
    };
    let (iv, ct) = Sealed::parse(&text)?;
    let plain = webcrypto::unseal(&iv, name.as_bytes(), &ct)
        .await
        .map_err(|e| StoreError::DoesNotDecrypt(e.to_string()))?;
    String::from_utf8(plain)
        .map(Some)
        .map_err(|e| StoreError::NotARecord(e.to_string()))
}

/// The text sealed under `name`, or `None` when there is none or it does not open.
pub(super) async fn sealed(name: &str) -> Option<String> {
    unseal(name).await.ok().flatten()
}

/// Every stored record that opens. One that does not is kept as it is and said in the console
/// (it may be another profile's, or open again once the key is back).
pub(super) async fn records() -> Vec<Credentials> {
    let names = storage::keys_with_prefix(CREDENTIALS_PREFIX).unwrap_or_default();
    let mut out = Vec::new();
    for name in names {
        match unseal(&name).await.and_then(|t| match t {
            Some(t) => parse_record(&t).map(Some),
            None => Ok(None),
        }) {
            Ok(Some(c)) => out.push(c),
            Ok(None) => {}
            Err(e) => leptos::logging::warn!(
                "Skiff: the stored sign-in {} cannot be read: {e}",
                &name[CREDENTIALS_PREFIX.len()..]
            ),
        }
    }
    out
}

pub(super) async fn save_credentials(c: &Credentials) -> Result<(), String> {
    let text = serde_json::to_string(c).map_err(|e| e.to_string())?;
    seal(&credentials_key(&c.issuer, &c.resource), &text).await
}

pub(super) fn delete_credentials(issuer: &str, resource: &str) {
    let _ = storage::remove(&credentials_key(issuer, resource));
}

/// Sign out forgets what signs in without the user (`ServerField::forgotten_on_sign_out`).
pub(super) fn forget_secrets(server: &str) {
    for f in ServerField::ALL {
        if f.forgotten_on_sign_out() {
            let _ = storage::remove(&f.key(server));
        }
    }
}

/// The server's fields in the clear, and which sealed ones exist.
pub(super) fn fields(server: &str) -> ServerFields {
    ServerFields::read(|f| storage::get(&f.key(server)).ok().flatten())
}

/// The server's sealed fields, opened.
pub(super) async fn secrets(server: &str) -> ServerSecrets {
    ServerSecrets {
        client_secret: sealed(&ServerField::Secret.key(server)).await,
        private_key: sealed(&ServerField::Key.key(server)).await,
        id_token: sealed(&ServerField::IdToken.key(server)).await,
    }
}

/// Write one field of the Account dialog (sealed when it is a secret).
pub(super) async fn set_field(server: &str, field: ServerField, value: &str) -> Result<(), String> {
    let key = field.key(server);
    if field.sealed() {
        seal(&key, value).await
    } else {
        storage::set(&key, value).map_err(|e| e.to_string())
    }
}

pub(super) fn remove_field(server: &str, field: ServerField) {
    let _ = storage::remove(&field.key(server));
}

/// Keys nothing reads any more.
pub(super) fn retire_old_keys() {
    for k in RETIRED_KEYS {
        let _ = storage::remove(k);
    }
}
