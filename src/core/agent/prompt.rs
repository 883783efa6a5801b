//! Prompt-based tool use, for models without native function calling (NextChat's convention):
//! the system prompt lists each server's tools and asks for one fenced block
//! ```` ```json:mcp:{serverId} ```` holding `{"method":"tools/call","params":{"name":…,"arguments":{…}}}`;
//! Skiff finds those blocks in the answer, runs the calls, and sends the results back as
//! ```` ```json:mcp-response:{serverId} ```` blocks in the next user turn.

use super::record::ToolCallRecord;
use super::tools::ToolSpec;

/// One call found in an answer, in the order the model wrote them.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptCall {
    /// The id after `json:mcp:`.
    pub server_id: String,
    /// `params.name` (empty when the block could not be read).
    pub tool_name: String,
    /// `params.arguments` as compact JSON text, or the block's raw body when it was not valid
    /// JSON (then `parse_error` says why, and the model is told so).
    pub arguments: String,
    pub parse_error: Option<String>,
}

/// The part of the system prompt that lists the tools (grouped by server id) and explains the
/// block format. Empty when there are no tools.
pub fn system_prompt_section(tools: &[ToolSpec]) -> String {
    let _ = tools;
    todo!("helper: prompt-based system prompt")
}

/// Every ```` ```json:mcp:… ```` block in `answer`.
pub fn parse_calls(answer: &str) -> Vec<PromptCall> {
    let _ = answer;
    todo!("helper: detect blocks")
}

/// A native call written as the block a prompt-based model would have written, so history made
/// in native mode still reads right when the next request is prompt-based.
pub fn call_block(record: &ToolCallRecord) -> String {
    let _ = record;
    todo!("helper: call block")
}

/// The user turn carrying every result of one step, one ```` ```json:mcp-response:{server} ````
/// block per call in the order the model asked, each result cut to `char_limit` characters.
pub fn response_turn(records: &[ToolCallRecord], char_limit: usize) -> String {
    let _ = (records, char_limit);
    todo!("helper: response turn")
}
