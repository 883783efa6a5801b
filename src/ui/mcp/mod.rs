//! The MCP surfaces: the resource browser and `@` picker, the `/` prompt picker and argument
//! form, the question cards (sampling approval, elicitation) and the roots editor.
//!
//! They are rare, so each group is loaded on demand (a split point of the page's wasm) and is
//! reached through one entry function, called from one place only, taking `Copy` handles or
//! owned data:
//! - [`resources::resource_browser`] (from [`McpSurfaceHost`]), [`resources::mention_picker`]
//!   (from the composer), [`resources::follow`] (from [`McpSurfaceHost`], at start while
//!   subscriptions must resume);
//! - [`prompts::prompt_picker`] (from the composer);
//! - [`asks::ask_cards`] (from [`McpSurfaceHost`], once a server asked);
//! - [`roots::roots_dialog`] (from [`McpSurfaceHost`]).
//!
//! What must work without any of them loaded is small and lives here and below it: which
//! surface is open ([`McpSurfaces`]), the message box's hold for the pickers ([`slot`]), the
//! questions waiting (`stores::mcp::McpInbox`) and the roots answer (`runner::mcp`).
//!
//! Architecture Invariant: the surfaces decide nothing: what they show is core's view-models
//! (`mcp::res_ui::view`, `mcp::ask_ui`, `mcp::elicit`), what they do is a typed intent handed
//! to core's machines or a runner.

pub mod asks;
pub mod prompts;
pub mod resources;
pub mod roots;
mod slot;

pub use slot::{scroll_nearest, BoxAria, Hold, PickerSlot, Typed};

use leptos::prelude::*;

use super::context::Ctx;
use super::when::When;
use crate::runner::mcp_resources::ResourceRunner;
use crate::stores::mcp_resources::ResourceStore;

/// Which MCP surface is open, and the resource runner they share. Provided by the app shell.
#[derive(Clone, Copy)]
pub struct McpSurfaces {
    /// The resource browser shows, for this server ("" every server).
    pub browse: RwSignal<Option<String>>,
    /// The roots editor shows, for this server.
    pub roots: RwSignal<Option<String>>,
    pub resources: ResourceRunner,
}

impl McpSurfaces {
    pub fn new(ctx: &Ctx) -> Self {
        McpSurfaces {
            browse: RwSignal::new(None),
            roots: RwSignal::new(None),
            resources: ResourceRunner::new(ctx.mcp_runner, ctx.notices),
        }
    }

    /// Open the resource browser for `server` ("" for every server).
    pub fn open_browser(&self, server: String) {
        self.browse.set(Some(server));
    }

    pub fn open_roots(&self, server: String) {
        self.roots.set(Some(server));
    }
}

/// The page's [`McpSurfaces`].
pub fn surfaces() -> McpSurfaces {
    expect_context::<McpSurfaces>()
}

/// Where the dialogs and cards mount (in the app shell, after Settings, so they show above it).
#[component]
pub fn McpSurfaceHost(ctx: Ctx, surfaces: McpSurfaces) -> impl IntoView {
    // Subscriptions from the last visit: followed again from the start (the resource runner
    // loads its store only now, and only then).
    if ResourceStore::must_resume() {
        resources::follow(ctx, surfaces);
    }
    view! {
        {move || surfaces.browse.get().map(|filter| resources::resource_browser(ctx, surfaces, filter))}
        {move || surfaces.roots.get().map(|server| roots::roots_dialog(ctx, surfaces, server))}
        <When when=move || ctx.mcp.inbox.asked()>
            {move || asks::ask_cards(ctx)}
        </When>
    }
}
