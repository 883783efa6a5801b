//! Asking the model for a conversation title: what to send and how to read the answer are
//! `skiff_core::pipeline::title`'s; `side_request` performs it.

use skiff_core::pipeline::title;
use skiff_core::provider::ProviderError;
use skiff_core::settings::ChatSettings;

use super::side_request;
use crate::platform::clock;
use crate::stores::conversations::Loaded;

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
    Ok(title::clean(
        &side_request::answer_text(settings, &messages).await?,
    ))
}
