//! The `{"v": N, "data": ...}` envelope for MCP records kept in browser storage, following
//! `crate::persist`: newer versions are refused (an older tab must not overwrite them), bad JSON
//! is reported, never guessed at.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::persist::PersistError;

#[derive(Serialize)]
struct Out<'a, T> {
    v: u32,
    data: &'a T,
}

#[derive(Deserialize)]
struct In {
    v: u32,
    data: Value,
}

pub(crate) fn encode<T: Serialize>(version: u32, data: &T) -> String {
    // Plain structs of strings, numbers and maps cannot fail to serialize; "{}" would be
    // reported as corrupt on the next read rather than silently lost.
    serde_json::to_string(&Out { v: version, data }).unwrap_or_else(|_| "{}".to_string())
}

pub(crate) fn decode<T: DeserializeOwned>(
    raw: &str,
    what: &'static str,
    known: u32,
) -> Result<T, PersistError> {
    let env: In = serde_json::from_str(raw).map_err(|e| PersistError::Corrupt {
        what,
        detail: e.to_string(),
    })?;
    if env.v > known {
        return Err(PersistError::TooNew {
            what,
            version: env.v,
            known,
        });
    }
    crate::persist::typed(env.data).map_err(|e| PersistError::Corrupt {
        what,
        detail: e.to_string(),
    })
}
