//! Under the message box: how full the next request will be (`pipeline::gauge`), and the
//! "Clear context" action that starts the model afresh without deleting anything.
//!
//! The plan is computed when the conversation, its length, its clear mark, the tools or the
//! settings change — never per streamed token (a streaming answer changes none of those) —
//! and typing only adds the draft's estimate to it.

use crate::stores::reactive::memo;
use leptos::prelude::*;
use skiff_core::mcp::tool_index;
use skiff_core::pipeline::gauge::gauge;
use skiff_core::pipeline::request::{next_plan, Offer};
use skiff_core::records::tool_mode::ToolMode;
use skiff_core::settings::TurnSettings;
use skiff_core::tools::discovery;

use super::context::ctx;
use crate::platform::clock;

#[component]
pub fn ContextGauge(draft: RwSignal<String>) -> impl IntoView {
    let ctx = ctx();
    let mcp = ctx.mcp;
    let plan = memo(move || {
        let conv = ctx.convs.current.get()?;
        // Tracked: what changes the next request's size. Untracked: the messages' text, which
        // changes per streamed token; a turn ending (`sending`) brings the final text in.
        let _ = conv.messages.with(Vec::len);
        let (cleared, memory) = conv
            .meta
            .with(|m| (m.cleared_after.clone(), m.memory.clone()));
        let (choice, mask, project) = conv
            .meta
            .with(|m| (m.model.clone(), m.mask.clone(), m.project.clone()));
        let turn = ctx
            .settings
            .settings
            .with(|s| TurnSettings::resolve(s, choice.as_ref(), mask.as_ref(), project.as_deref()));
        let overrides = conv.tool_overrides.get();
        let all = mcp.tool_index().with(|index| {
            tool_index::enabled_specs(index, &overrides, |id| {
                mcp.server_name(id).unwrap_or_else(|| id.to_string())
            })
        });
        let _ = ctx.runner.sending.with(|s| s.contains(&conv.id()));
        let history = untrack(|| conv.snapshot().messages);
        let specs = discovery::offered_for(all, overrides.discovery, &history);
        let mode = if specs.is_empty() {
            ToolMode::Off
        } else {
            turn.settings.resolved_tool_mode()
        };
        let place = clock::user_place();
        Some((
            next_plan(
                &history,
                cleared.as_deref(),
                memory.as_ref(),
                &turn,
                &Offer {
                    tools: &specs,
                    mode,
                    servers: &mcp.instructions(),
                },
                &place.at(clock::now_ms()),
            ),
            overrides.discovery,
        ))
    });
    let shown = move || {
        plan.with(|p| {
            p.as_ref()
                .map(|(p, discovery)| draft.with(|d| gauge(p, d, *discovery)))
        })
    };
    let last_id = move || {
        ctx.convs
            .current
            .get()
            .and_then(|c| c.messages.with(|ms| ms.last().map(|m| m.id())))
    };
    let clear = move |_| {
        if let (Some(conv), Some(last)) = (ctx.convs.current.get_untracked(), last_id()) {
            ctx.convs.set_cleared_after(&conv, Some(last));
        }
    };
    let already_clear = move || {
        ctx.convs.current.get().is_some_and(|c| {
            let mark = c.meta.with(|m| m.cleared_after.clone());
            mark.is_some() && mark == last_id()
        })
    };
    view! {
        {move || shown().map(|g| view! {
            <div class="context-gauge" data-level=g.level.as_str() data-percent=g.percent.to_string()>
                <meter min="0" max="100" low="80" high="100" optimum="0" value=g.percent.min(100).to_string() aria-label="Context used by the next request"></meter>
                <span class="context-gauge-text">{g.text()}</span>
                {g.tools_warning_text().map(|w| view! { <p class="context-gauge-tools-warning" role="note">{w}</p> })}
                <button
                    type="button"
                    class="small clear-context"
                    title="Later requests leave out everything above this point; nothing is deleted"
                    disabled=already_clear
                    on:click=clear
                >"Clear context"</button>
            </div>
        })}
    }
}
