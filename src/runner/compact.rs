//! Compaction: when `skiff_core::pipeline::memory` says a summary is due (the next request
//! would leave messages out, or running memory passed its threshold) or the user asks, the
//! older messages are summarized by the model and the summary stands in for them.
//! What to summarize, when and how it is used are core's; this performs the request and
//! stores the result.

use leptos::prelude::*;
use skiff_core::mcp::tool_index;
use skiff_core::pipeline::memory;
use skiff_core::pipeline::memory::Reason;
use skiff_core::pipeline::request::{next_plan, Offer};
use skiff_core::provider::ProviderError;
use skiff_core::records::conversation::Conversation;
use skiff_core::records::memory::Memory;
use skiff_core::records::tool_mode::ToolMode;
use skiff_core::settings::{ChatSettings, TurnSettings};
use skiff_core::tools::spec::ToolSpec;

use super::mcp::McpRunner;
use super::side_request;
use crate::platform::clock;
use crate::stores::conversations::Loaded;

/// The tools a request from `conv` would offer, and how: the fixed cost the plan counts.
pub fn offered_tools(
    mcp: McpRunner,
    conv: &Conversation,
    settings: &ChatSettings,
) -> (Vec<ToolSpec>, ToolMode) {
    let store = mcp.store();
    let all = store.tool_index().with_untracked(|index| {
        tool_index::enabled_specs(index, &conv.tool_overrides, |id| {
            store.server_name(id).unwrap_or_else(|| id.to_string())
        })
    });
    let specs = skiff_core::tools::discovery::offered_for(
        all,
        conv.tool_overrides.discovery,
        &conv.messages,
    );
    let mode = if specs.is_empty() {
        ToolMode::Off
    } else {
        settings.resolved_tool_mode()
    };
    (specs, mode)
}

/// Whether a summary is due for `conv` after a turn.
pub fn due(mcp: McpRunner, conv: &Conversation, turn: &TurnSettings) -> Option<Reason> {
    let settings = &turn.settings;
    let (specs, mode) = offered_tools(mcp, conv, settings);
    let place = clock::user_place();
    let plan = next_plan(
        &conv.messages,
        conv.cleared_after.as_deref(),
        conv.memory.as_ref(),
        turn,
        &Offer {
            tools: &specs,
            mode,
            servers: &mcp.store().instructions(),
        },
        &place.at(clock::now_ms()),
    );
    memory::due(
        &conv.messages,
        conv.cleared_after.as_deref(),
        conv.memory.as_ref(),
        &plan,
        settings.auto_compact,
        settings.memory_threshold_chars,
    )
}

/// The new summary of `conv` (previous summary plus what it does not cover yet), or
/// `Ok(None)` when there is nothing older than the newest question to summarize.
pub async fn summarize(
    turn: &TurnSettings,
    conv: &Loaded,
) -> Result<Option<Memory>, ProviderError> {
    let Some(c) = conv.try_snapshot() else {
        return Ok(None);
    };
    let Some(span) = memory::span(&c.messages, c.cleared_after.as_deref(), c.memory.as_ref())
    else {
        return Ok(None);
    };
    let previous = memory::start(&c.messages, c.cleared_after.as_deref(), c.memory.as_ref())
        .1
        .then_some(c.memory.as_ref())
        .flatten();
    let Some((messages, through)) =
        memory::request_messages(&c.messages, span, previous, clock::now_ms())
    else {
        return Ok(None);
    };
    let text = side_request::answer_text(&turn.settings, &messages).await?;
    let text = text.trim();
    if text.is_empty() {
        return Err(ProviderError::Malformed(
            "the summary came back empty".into(),
        ));
    }
    Ok(Some(Memory {
        text: text.to_string(),
        through,
    }))
}
