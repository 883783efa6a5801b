//! The MCP surfaces: the resource browser and `@` picker, the `/` prompt picker and argument
//! form, the question cards (sampling approval, elicitation) and the roots editor.
//!
//! They are rare, so each group is a chunk of the page's wasm loaded on demand (`ui::lazy`),
//! reached only through its split points below, each shown from one place:
//! - resources (chunk `mcp_resources`): the browser ([`McpSurfaceHost`]), the `@` picker
//!   ([`mention_surface`], from the composer), following subscriptions (at start while they
//!   must resume);
//! - prompts (`mcp_prompts`): the `/` panel ([`prompt_surface`], from the composer);
//! - questions (`mcp_asks`): elicitation and sampling cards (`AskHost`, once a server asked);
//! - roots (`mcp_roots`): the editor ([`McpSurfaceHost`]).
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
use leptos::task::spawn_local;
use skiff_core::chunk_load::ChunkLoadFailure;

use super::context::{ctx, Ctx};
use super::lazy::Lazy;
use crate::platform::online;
use crate::runner::mcp_resources::ResourceRunner;
use crate::stores::mcp::AskEvent;
use crate::stores::mcp_resources::ResourceStore;
use crate::stores::reactive::effect;

/// Which MCP surface is open, and the resource runner they share. Provided by the app shell.
#[derive(Clone, Copy)]
pub struct McpSurfaces {
    /// The resource browser shows, for this server ("" every server).
    pub browse: RwSignal<Option<String>>,
    /// The roots editor shows, for this server.
    pub roots: RwSignal<Option<String>>,
    /// A resource to show in the browser's pane once it is open: `(server, uri)` of a link in
    /// a tool's result (`open_resource`). The browser takes it.
    pub pending: RwSignal<Option<(String, String)>>,
    pub resources: ResourceRunner,
}

impl McpSurfaces {
    pub fn new(ctx: &Ctx) -> Self {
        McpSurfaces {
            browse: RwSignal::new(None),
            roots: RwSignal::new(None),
            pending: RwSignal::new(None),
            resources: ResourceRunner::new(ctx.mcp_runner, ctx.notices),
        }
    }

    /// Open the resource browser for `server` ("" for every server).
    pub fn open_browser(&self, server: String) {
        self.browse.set(Some(server));
    }

    /// Show `uri` of `server` in the resource browser (read, and there to attach), opening
    /// the browser on that server unless it is already open.
    pub fn open_resource(&self, server: String, uri: String) {
        if self.browse.with_untracked(Option::is_none) {
            self.browse.set(Some(server.clone()));
        }
        self.pending.set(Some((server, uri)));
    }

    pub fn open_roots(&self, server: String) {
        self.roots.set(Some(server));
    }
}

/// The page's [`McpSurfaces`].
pub fn surfaces() -> McpSurfaces {
    expect_context::<McpSurfaces>()
}

// The groups' split points (`ui::lazy`): each group's code is a chunk of its own, fetched the
// first time it is needed. The surfaces read their handles from context (they run under the
// owner of the place they show).
crate::split_surface!(browser_surface, mcp_resources, || {
    let s = surfaces();
    let filter = s.browse.get_untracked().unwrap_or_default();
    resources::resource_browser(ctx(), s, filter)
});
crate::split_surface!(pub mention_surface, mcp_resources, || {
    resources::mention_picker(ctx(), surfaces(), expect_context::<PickerSlot>())
});
crate::split_point!(
    follow_point,
    mcp_resources,
    fn(Ctx, McpSurfaces),
    resources::follow
);
crate::split_surface!(pub prompt_surface, mcp_prompts, || {
    prompts::prompt_picker(ctx(), expect_context::<PickerSlot>())
});
crate::split_surface!(roots_surface, mcp_roots, || {
    let s = surfaces();
    match s.roots.get_untracked() {
        Some(server) => roots::roots_dialog(ctx(), s, server),
        None => ().into_any(),
    }
});
crate::split_point!(asks_point, mcp_asks, fn(Ctx) -> AnyView, asks::ask_cards);

/// Where the dialogs and cards mount (in the app shell, after Settings, so they show above it).
#[component]
pub fn McpSurfaceHost(ctx: Ctx, surfaces: McpSurfaces) -> impl IntoView {
    // Subscriptions from the last visit: followed again from the start (the resource runner
    // loads its store only now, and only then). Offline before the chunk was ever stored, they
    // resume on a later visit.
    if ResourceStore::must_resume() {
        spawn_local(async move {
            if let Ok(follow) = follow_point().await {
                follow(ctx, surfaces);
            }
        });
    }
    view! {
        {move || {
            surfaces.browse.with(Option::is_some).then(|| view! {
                <Lazy load=browser_surface surface="MCP resources" on_close=move || surfaces.browse.set(None) />
            })
        }}
        {move || {
            surfaces.roots.with(Option::is_some).then(|| view! {
                <Lazy load=roots_surface surface="Roots" on_close=move || surfaces.roots.set(None) />
            })
        }}
        <AskHost ctx=ctx />
    }
}

/// The question cards, once a server asked. A chunk that cannot load (offline before it was
/// ever stored) refuses the waiting questions at once with a sentence, rather than leaving the
/// servers to their own timeouts; the next question tries again.
#[component]
fn AskHost(ctx: Ctx) -> impl IntoView {
    let cards = RwSignal::new(None::<fn(Ctx) -> AnyView>);
    let loading = StoredValue::new(false);
    effect(move || {
        if !ctx.mcp.inbox.asked() || cards.with(Option::is_some) || loading.get_value() {
            return;
        }
        loading.set_value(true);
        spawn_local(async move {
            match asks_point().await {
                Ok(build) => {
                    cards.try_set(Some(build));
                }
                Err(_) => {
                    loading.set_value(false);
                    refuse_waiting(ctx);
                }
            }
        });
    });
    move || cards.get().map(|build| build(ctx))
}

fn refuse_waiting(ctx: Ctx) {
    let why = ChunkLoadFailure {
        surface: "The cards for questions from MCP servers",
        online: online::is_online(),
    };
    for event in ctx.mcp.inbox.take_asks() {
        if let AskEvent::Held(ask) = event {
            let line = format!("{why} So the server's {} request was refused.", ask.method);
            if let Some(live) = ctx.mcp.live_for(&ask.server) {
                live.push_log(line.clone());
            }
            ctx.mcp_runner
                .answer_ask(&ask.server, ask.key, Err((-32603, line)));
        }
    }
}
