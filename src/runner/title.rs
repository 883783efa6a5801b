//! Asking the model for a conversation title: what to send and how to read the answer are
//! `skiff_core::pipeline::title`'s; this only performs the request.
//!
//! The request goes through the same provider seam and stream decoder as an answer (one code
//! path for every wire format), without tools, system template or history beyond the few
//! messages the title needs, and with a time limit: a title is never worth a hung request.

use skiff_core::agent::ToolMode;
use skiff_core::pipeline::title;
use skiff_core::provider::{Provider, ProviderError, StepContext, StreamEvent};
use skiff_core::settings::ChatSettings;

use crate::platform::abort::AbortHandle;
use crate::platform::clock;
use crate::platform::fetch;
use crate::stores::conversations::Loaded;

/// A title request that has not finished by then is given up.
const TITLE_TIMEOUT_MS: u32 = 30_000;

/// The model's title for `conv`, cleaned; `Ok(None)` when its answer held nothing usable.
pub async fn generate(
    settings: &ChatSettings,
    conv: &Loaded,
) -> Result<Option<String>, ProviderError> {
    let Some(messages) = conv
        .try_snapshot()
        .map(|c| title::request_messages(&c.messages, clock::now_ms()))
    else {
        return Ok(None);
    };
    let provider = Provider::from_settings(settings)?;
    let ctx = StepContext {
        system_template: "",
        system_prompt: "",
        history: &messages,
        tools: &[],
        mode: ToolMode::Off,
        result_char_limit: 1,
        vision: false,
    };
    let req = provider.step_request(&ctx);
    let abort = AbortHandle::new().map_err(|e| ProviderError::Network(e.to_string()))?;
    let timer = abort.clone();
    leptos::task::spawn_local(async move {
        clock::sleep_ms(TITLE_TIMEOUT_MS).await;
        timer.abort();
    });
    let result = async {
        let mut resp = fetch::send(&req, Some(&abort))
            .await
            .map_err(super::chat::provider_error)?;
        if !resp.ok {
            let status = resp.status;
            let body = resp.text().await.map_err(super::chat::provider_error)?;
            return Err(provider.error_from_response(status, &body, None));
        }
        let mut decoder = provider.decoder();
        let mut text = String::new();
        let mut take = |events: Vec<StreamEvent>| {
            for e in events {
                if let StreamEvent::Content(t) = e {
                    text.push_str(&t);
                }
            }
        };
        while let Some(bytes) = resp
            .next_chunk()
            .await
            .map_err(super::chat::provider_error)?
        {
            take(decoder.feed(&bytes)?);
        }
        take(decoder.finish()?);
        Ok(title::clean(&text))
    }
    .await;
    abort.abort();
    result
}
