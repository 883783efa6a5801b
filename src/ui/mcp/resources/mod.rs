//! MCP resources (issue 13 items 1–4): the browser (list, preview, template form), the `@`
//! picker, and following subscriptions. Decisions are `skiff_core::mcp::res_ui`'s; reading,
//! caching and subscribing are `runner::mcp_resources`'.
//!
//! Entries (each called from one place, see `ui::mcp`): [`resource_browser`],
//! [`mention_picker`], [`follow`].

mod browser;
mod list;
mod picker;
mod preview;
mod template;

use leptos::prelude::*;

use super::{McpSurfaces, PickerSlot};
use crate::ui::context::Ctx;

/// The resource browser, showing `filter`'s server ("" every server).
pub fn resource_browser(ctx: Ctx, surfaces: McpSurfaces, filter: String) -> AnyView {
    follow(ctx, surfaces);
    browser::browser(surfaces, filter)
}

/// The `@` picker over the message box.
pub fn mention_picker(ctx: Ctx, surfaces: McpSurfaces, slot: PickerSlot) -> AnyView {
    follow(ctx, surfaces);
    picker::picker(ctx, surfaces, slot)
}

/// Keep the resource store in step with the servers from now on (lists, reconnects,
/// subscribed resources' updates).
pub fn follow(_ctx: Ctx, surfaces: McpSurfaces) {
    surfaces.resources.follow();
}
