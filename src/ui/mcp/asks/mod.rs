//! Questions a server holds open until the user answers (issue 13 items 7 and 8): elicitation
//! cards in a tray above the composer (over Settings too), and sampling requests in one modal
//! dialog. They take the held requests from `stores::mcp::McpInbox` in order; each answer goes
//! back through the connection runner (`McpRunner::answer_ask`).
//!
//! Entry (called from `ui::mcp::McpSurfaceHost` only, once a server asked): [`ask_cards`]. It
//! stays mounted from then on, so a server's sampling budget (`sampling::Limiter`) holds for
//! the life of the page.

mod elicit;
mod elicit_field;
mod sampling;

use leptos::prelude::*;
use skiff_core::mcp::elicit::CREATE_METHOD;
use skiff_core::mcp::held_ask::AskReply;

use crate::runner::mcp::McpRunner;
use crate::stores::mcp::AskEvent;
use crate::stores::reactive::effect;
use crate::ui::context::Ctx;

/// Send a reply to the server that holds the question.
fn reply(mcp: McpRunner, r: AskReply) {
    mcp.answer_ask(&r.server, r.key, r.answer);
}

/// The question cards: elicitation's tray and sampling's dialog.
pub fn ask_cards(ctx: Ctx) -> AnyView {
    let tray = elicit::Tray::new(ctx);
    let desk = sampling::Desk::new(ctx);
    effect(move || {
        for event in ctx.mcp.inbox.take_asks() {
            untrack(|| match event {
                AskEvent::Held(ask) if ask.method == CREATE_METHOD => tray.ask(&ask),
                // Sampling, and anything else a server holds open: the desk answers what it
                // cannot show with the JSON-RPC error it deserves.
                AskEvent::Held(ask) => desk.ask(&ask),
                AskEvent::Gone { server, key } => {
                    tray.gone(&server, key);
                    desk.gone(&server, key);
                }
                AskEvent::Completed { server, params } => tray.complete(&server, &params),
                AskEvent::Settled { server, key } => tray.settled(&server, key),
                AskEvent::Required { server, wait, data } => tray.required(&server, wait, &data),
            });
        }
    });
    view! {
        {tray.view()}
        {desk.view()}
    }
    .into_any()
}
