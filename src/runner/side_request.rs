//! A request beside the conversation (a title, a summary): built from given messages, sent
//! through the same provider seam and stream decoder as an answer (one code path for every
//! wire format), without tools or system template, and given up after a time limit — a side
//! request is never worth a hung connection. Returns the answer's text only (and, for an MCP
//! server's sampling request, the tool calls the model asked for: never run here).

use skiff_core::agent::assemble::{AssembledCall, ToolCallAssembler};
use skiff_core::provider::{Provider, ProviderError, StepContext, StreamEvent};
use skiff_core::records::message::Message;
use skiff_core::records::tool_mode::ToolMode;
use skiff_core::settings::ChatSettings;

use crate::platform::abort::AbortHandle;
use crate::platform::clock;
use crate::platform::fetch;

/// A side request that has not finished by then is given up.
const TIMEOUT_MS: u32 = 60_000;

/// The text of the model's answer to `messages` (system messages among them are joined into
/// the system text, as in any request).
pub async fn answer_text(
    settings: &ChatSettings,
    messages: &[Message],
) -> Result<String, ProviderError> {
    // A cheaper model for side requests, where the profile names one.
    let provider = settings.for_side_request().provider()?;
    let ctx = StepContext {
        system_template: "",
        system_prompt: "",
        recap: "",
        history: messages,
        tools: &[],
        mode: ToolMode::Off,
        result_char_limit: 1,
        vision: false,
    };
    Ok(answer_streamed(&provider, &ctx, &|_| {}).await?.text)
}

/// A side request's answer: its text, the provider's finish reason, and the tool calls the
/// model made (only when `ctx` offered tools).
pub struct Answer {
    pub text: String,
    pub finish: Option<String>,
    pub calls: Vec<AssembledCall>,
}

/// The same through `provider` with `ctx` as given (a server's sampling request runs on the
/// conversation's model, with the server's tools), each piece of text handed to `on_text` as
/// it arrives.
pub async fn answer_streamed(
    provider: &Provider,
    ctx: &StepContext<'_>,
    on_text: &dyn Fn(&str),
) -> Result<Answer, ProviderError> {
    let req = provider.step_request(ctx);
    let abort = AbortHandle::new().map_err(|e| ProviderError::Network(e.to_string()))?;
    let timer = abort.clone();
    leptos::task::spawn_local(async move {
        clock::sleep_ms(TIMEOUT_MS).await;
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
        let mut finish = None;
        let mut calls = ToolCallAssembler::new();
        let mut take = |events: Vec<StreamEvent>| {
            for e in events {
                match e {
                    StreamEvent::Content(t) => {
                        on_text(&t);
                        text.push_str(&t);
                    }
                    StreamEvent::Finish(f) => finish = Some(f),
                    StreamEvent::ToolCall(d) => calls.push(&d),
                    _ => {}
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
        Ok(Answer {
            text,
            finish,
            calls: calls.finish(),
        })
    }
    .await;
    abort.abort();
    result
}
