//! Listing models: the settings panel's model picker, "test connection", and the first-run
//! probe of local servers.

use futures::future::join_all;
use leptos::task::spawn_local;
use skiff_core::provider::{ChatParams, Provider, ProviderError, ProviderKind};
use skiff_core::settings::{LocalCandidate, LOCAL_CANDIDATES};

use crate::platform::abort::AbortHandle;
use crate::platform::clock;
use crate::platform::fetch::{self, FetchError};

/// A local probe must not hang the first screen: servers that answer, answer fast.
const PROBE_TIMEOUT_MS: u32 = 1_500;
const LIST_TIMEOUT_MS: u32 = 15_000;

/// The provider's model list (`GET {base}/models` in its own format), with a timeout.
pub async fn list_models(
    kind: ProviderKind,
    base_url: &str,
    api_key: &str,
    timeout_ms: u32,
) -> Result<Vec<String>, ProviderError> {
    let provider = Provider::new(kind, base_url, api_key, ChatParams::default())?;
    let req = provider.models_request();
    let abort = AbortHandle::new().map_err(|e| ProviderError::Network(e.to_string()))?;
    let timer = abort.clone();
    spawn_local(async move {
        clock::sleep_ms(timeout_ms).await;
        timer.abort();
    });
    let result = async {
        let resp = fetch::send(&req, Some(&abort))
            .await
            .map_err(|e| fetch_error(e, timeout_ms))?;
        let status = resp.status;
        let ok = resp.ok;
        let body = resp.text().await.map_err(|e| fetch_error(e, timeout_ms))?;
        if ok {
            provider.parse_models(&body)
        } else {
            Err(provider.error_from_response(status, &body, None))
        }
    }
    .await;
    // Nothing left to time out; aborting a finished fetch is a no-op.
    abort.abort();
    result
}

pub async fn list_models_default(
    kind: ProviderKind,
    base_url: &str,
    api_key: &str,
) -> Result<Vec<String>, ProviderError> {
    list_models(kind, base_url, api_key, LIST_TIMEOUT_MS).await
}

fn fetch_error(e: FetchError, timeout_ms: u32) -> ProviderError {
    match e {
        FetchError::Aborted => {
            ProviderError::Network(format!("no answer within {} s", timeout_ms / 1000))
        }
        other => crate::runner::chat::provider_error(other),
    }
}

/// A local server that answered the probe, with its models.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub candidate: LocalCandidate,
    pub models: Vec<String>,
}

/// Probe the usual local servers concurrently; only those that answer `/models` are returned.
pub async fn probe_local() -> Vec<Found> {
    let probes = LOCAL_CANDIDATES.iter().map(|c| async move {
        list_models(
            ProviderKind::OpenAiCompatible,
            c.base_url,
            "",
            PROBE_TIMEOUT_MS,
        )
        .await
        .ok()
        .map(|models| Found {
            candidate: *c,
            models,
        })
    });
    join_all(probes).await.into_iter().flatten().collect()
}
