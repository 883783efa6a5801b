//! "View request": the body a given answer's request carried. Exact when this tab sent it
//! (`stores::sent_requests`); otherwise rebuilt from the stored conversation with today's
//! settings and time, and said to be rebuilt. Rebuilding runs the request pipeline and the
//! provider's codec, so it is reached only through `send_path` (their chunk).

use skiff_core::pipeline::request::{assemble, Offer};
use skiff_core::provider::StepContext;
use skiff_core::settings::TurnSettings;

use skiff_core::chunk_load::ChunkLoadFailure;

use super::chat::ChatRunner;
use super::compact::offered_tools;
use super::send_path;
use crate::platform::clock;
use crate::stores::conversations::Loaded;

/// What the "View request" dialog shows.
pub struct ShownRequest {
    pub url: String,
    /// Pretty-printed JSON (or the text as sent when it is not JSON).
    pub body: String,
    /// False when rebuilt (the answer was made before this page was loaded).
    pub exact: bool,
}

pub async fn request_for(
    runner: ChatRunner,
    conv: Loaded,
    message_id: String,
) -> Result<Option<ShownRequest>, ChunkLoadFailure> {
    if let Some((url, body)) = runner.sent.get(&message_id) {
        return Ok(Some(ShownRequest {
            url,
            body: pretty(&body),
            exact: true,
        }));
    }
    let path = send_path::load().await?;
    Ok((path.rebuilt)(runner, &conv, &message_id))
}

/// A request this tab did not send, rebuilt (in the `send` chunk: `send_path`).
pub(super) fn rebuilt(runner: ChatRunner, conv: &Loaded, message_id: &str) -> Option<ShownRequest> {
    let c = conv.try_snapshot()?;
    let at = c.messages.iter().position(|m| m.id == message_id)?;
    let turn = TurnSettings::resolve(
        &runner.settings_now(),
        c.model.as_ref(),
        c.mask.as_ref(),
        c.project.as_deref(),
    );
    let settings = &turn.settings;
    let (specs, mode) = offered_tools(runner.mcp_runner(), &c, settings);
    let place = clock::user_place();
    let a = assemble(
        &c.messages[..at],
        c.cleared_after.as_deref(),
        c.memory.as_ref(),
        &turn,
        &Offer {
            tools: &specs,
            mode,
            servers: &runner.mcp_runner().store().instructions(),
        },
        &place.at(clock::now_ms()),
    );
    let provider = settings.provider().ok()?;
    let req = provider.step_request(&StepContext {
        system_template: &a.system_template,
        system_prompt: &a.system_prompt,
        recap: &a.recap,
        history: &a.messages,
        tools: &specs,
        mode,
        result_char_limit: settings.result_char_limit.max(1),
        vision: settings.images_to_model(),
    });
    Some(ShownRequest {
        url: req.url,
        body: pretty(req.body.as_deref().unwrap_or("")),
        exact: false,
    })
}

fn pretty(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| body.to_string())
}
