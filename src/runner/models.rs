//! Listing models: a profile's models (the chat header's picker, "Test connection") and the
//! first-run probe of local servers. A listing goes only to its own profile's address, with
//! that profile's key.

use futures::future::join_all;
use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::profiles::ProviderProfile;
use skiff_core::provider::{ChatParams, Provider, ProviderError, ProviderKind};
use skiff_core::records::capabilities::ModelEntry;
use skiff_core::settings::{LocalCandidate, LOCAL_CANDIDATES};

use crate::stores::settings::SettingsStore;

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
) -> Result<Vec<ModelEntry>, ProviderError> {
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

/// List `profile_id`'s models from its API and keep them (with what the API reported about
/// each) in its cache; the number listed, or why not.
pub async fn refresh_profile(
    settings: SettingsStore,
    profile_id: String,
) -> Result<usize, ProviderError> {
    let Some(p): Option<ProviderProfile> = settings
        .settings
        .with_untracked(|s| s.profiles.iter().find(|p| p.id == profile_id).cloned())
    else {
        return Err(ProviderError::Network("this provider was deleted".into()));
    };
    let list = list_models(p.kind, &p.base_url, &p.api_key, LIST_TIMEOUT_MS).await?;
    let n = list.len();
    settings.settings.update(|s| {
        if let Some(p) = s.profile_mut(&profile_id) {
            if p.default_model.trim().is_empty() {
                if let Some(first) = list.first() {
                    p.default_model = first.id.clone();
                }
            }
            p.refresh_models(list);
        }
    });
    Ok(n)
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
    pub models: Vec<ModelEntry>,
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
