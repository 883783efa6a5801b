//! Gemini's error answers, read into the shared `ProviderError`s.
//!
//! Gemini answers with Google's API error shape, `{"error":{"code","message","status",
//! "details":[...]}}`, which `provider::error_from_response` already reads by HTTP status.
//! Two things need Gemini's own reading: a wrong key is a **400** `INVALID_ARGUMENT` whose
//! `details` carry `ErrorInfo.reason = "API_KEY_INVALID"` (read by status alone it would say
//! "check the model and its settings"), and a 429 carries its wait as `RetryInfo.retryDelay`
//! (`"37s"`) in the body rather than a `Retry-After` header.

use serde_json::Value;

use crate::seam::{error_from_response as shared, ProviderError};

/// Classify a non-success answer from Gemini.
pub fn error_from_response(status: u16, body: &str) -> ProviderError {
    let error = shared(status, body);
    let Ok(v) = serde_json::from_str::<Value>(body.trim()) else {
        return error;
    };
    let details = v
        .pointer("/error/details")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let key_invalid = details.iter().any(|d| {
        type_is(d, "ErrorInfo")
            && d.get("reason").and_then(Value::as_str) == Some("API_KEY_INVALID")
    });
    match error {
        ProviderError::Http { status, detail } if key_invalid => {
            ProviderError::Unauthorized { status, detail }
        }
        ProviderError::RateLimited { .. } => {
            let delay = details
                .iter()
                .filter(|d| type_is(d, "RetryInfo"))
                .find_map(|d| d.get("retryDelay").and_then(Value::as_str))
                .and_then(seconds);
            error.with_retry_after(delay)
        }
        other => other,
    }
}

/// `{"@type": "type.googleapis.com/google.rpc.RetryInfo", ...}` is of type `RetryInfo`.
fn type_is(detail: &Value, name: &str) -> bool {
    detail
        .get("@type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.rsplit('.').next() == Some(name))
}

/// A protobuf `Duration` in JSON (`"37s"`, `"1.5s"`), rounded up to whole seconds.
fn seconds(duration: &str) -> Option<u64> {
    let n = duration.trim().strip_suffix('s')?;
    let (whole, frac) = n.split_once('.').unwrap_or((n, ""));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let whole: u64 = whole.parse().ok()?;
    let up = u64::from(frac.bytes().any(|b| b != b'0'));
    Some(whole.saturating_add(up))
}

#[cfg(test)]
#[path = "error_tests.rs"]
mod tests;
