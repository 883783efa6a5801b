//! One agent step as an OpenAI-compatible chat completions request: the conversation so far,
//! with its tool calls and results, in the shape the step's tool mode needs.

use super::record::ToolMode;
use super::tools::ToolSpec;
use crate::chat::Message;
use crate::http::HttpRequest;
use crate::openai::ChatParams;

/// Everything one step's request is built from.
#[derive(Debug, Clone, Copy)]
pub struct StepContext<'a> {
    /// The user's system prompt (may be empty); prompt mode appends the tool section.
    pub system_prompt: &'a str,
    /// Every message before the answer being generated, in order.
    pub history: &'a [Message],
    /// The tools offered (ignored when `mode` is `Off`).
    pub tools: &'a [ToolSpec],
    pub mode: ToolMode,
    /// Characters of one tool result the model receives.
    pub result_char_limit: usize,
    /// Whether image results go to the model as image input.
    pub vision: bool,
}

/// `POST {base}/chat/completions`, streaming, with `tools` in native mode.
pub fn step_request(
    base_url: &str,
    api_key: Option<&str>,
    params: &ChatParams,
    ctx: &StepContext<'_>,
) -> HttpRequest {
    let _ = (base_url, api_key, params, ctx);
    todo!("helper: step request")
}

/// Whether an error answer means "this model/server does not take `tools`", so auto mode falls
/// back to prompt-based tool use.
pub fn rejects_tools(status: u16, body: &str) -> bool {
    let _ = (status, body);
    todo!("helper: rejects_tools")
}
