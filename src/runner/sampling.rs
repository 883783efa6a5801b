//! A server's sampling request, approved by the user, through one of the user's models: the
//! card's "Answer with" choice, else the open conversation's profile and model. Its messages
//! and tools go through the provider's own wire format (`sampling_step::SampleCall`),
//! streamed piece by piece to the card. The model's tool calls are returned, never run: the
//! server runs them.

use leptos::prelude::*;
use skiff_core::mcp::sampling_step::{SampleCall, SampledAnswer, SampledCall};
use skiff_core::provider::StepContext;
use skiff_core::records::model_choice::ModelChoice;
use skiff_core::tools::result::DEFAULT_RESULT_CHAR_LIMIT;

use crate::runner::side_request;
use crate::stores::conversations::ConversationsStore;
use crate::stores::settings::SettingsStore;

/// The open conversation's model choice, as its own requests resolve it (`None`: none open or
/// none chosen).
pub fn conversation_choice(convs: ConversationsStore) -> Option<ModelChoice> {
    convs
        .current
        .get_untracked()
        .and_then(|c| c.meta.try_with_untracked(|m| m.model.clone()).flatten())
}

/// The model a sampling card starts on when nothing is remembered: the open conversation's,
/// resolved as its requests are (its profile's default model named).
pub fn current_model(settings: SettingsStore, convs: ConversationsStore) -> Option<ModelChoice> {
    let choice = conversation_choice(convs);
    settings
        .settings
        .with_untracked(|s| s.resolution(choice.as_ref()).map(|r| r.target.choice()))
}

/// Run `call` through `choice` (else the conversation's model), each piece of text handed to
/// `on_text`. `Err` is the sentence the card shows.
pub async fn sample(
    settings: SettingsStore,
    convs: ConversationsStore,
    call: SampleCall,
    choice: Option<ModelChoice>,
    on_text: &dyn Fn(&str),
) -> Result<SampledAnswer, String> {
    let choice = choice.or_else(|| conversation_choice(convs));
    let settings = settings
        .settings
        .get_untracked()
        .for_conversation(choice.as_ref());
    if !settings.is_configured() {
        return Err("No model is set up: choose a provider in Settings first.".into());
    }
    let mut provider = settings.provider().map_err(|e| e.to_string())?;
    call.apply(provider.params_mut());
    let tools = call.tool_specs();
    let step = StepContext {
        system_template: "",
        system_prompt: &call.system,
        recap: "",
        history: &call.messages,
        tools: &tools,
        mode: call.tool_mode(),
        result_char_limit: DEFAULT_RESULT_CHAR_LIMIT,
        vision: false,
    };
    let answer = side_request::answer_streamed(&provider, &step, on_text)
        .await
        .map_err(|e| e.to_string())?;
    Ok(SampledAnswer {
        text: answer.text,
        model: settings.target.model,
        finish: answer.finish,
        calls: answer
            .calls
            .into_iter()
            .map(|c| SampledCall {
                id: c.id,
                name: c.name,
                arguments: c.arguments,
            })
            .collect(),
    })
}
