//! The app shell: creates the stores, wires cross-tab sync, theme and page-hide flushing, and
//! lays out sidebar, chat and settings.

use crate::stores::reactive::effect;
use leptos::prelude::*;

use super::announcer::Announcer;
use super::chat_view::ChatView;
use super::context::Ctx;
use super::lazy::Lazy;
use super::mcp::{McpSurfaceHost, McpSurfaces};
use super::notices_view::NoticesView;
use super::search_dialog::SearchDialog;
use super::settings_panel::SettingsPanel;
use super::shortcuts::KeyboardShortcuts;
use super::sidebar::Sidebar;
use super::update_banner::UpdateBanner;
use super::when::When;
use crate::platform::location;
use crate::runner::chat::ChatRunner;
use crate::runner::mcp::McpRunner;
use crate::stores::conversations::ConversationsStore;
use crate::stores::cross_tab::sync_with_other_tabs;
use crate::stores::mcp::McpStore;
use crate::stores::memory::MemoryStore;
use crate::stores::notices::Notices;
use crate::stores::settings::SettingsStore;
use crate::stores::update::AppUpdate;

// Settings is opened rarely: its code is a chunk of its own (`ui::lazy`).
crate::split_surface!(settings_surface, settings, || view! { <SettingsPanel /> }
    .into_any());

#[component]
pub fn App() -> impl IntoView {
    let notices = Notices::new();
    let settings = SettingsStore::load(notices);
    let convs = ConversationsStore::load(notices);
    let mcp = McpStore::load(notices);
    let mcp_runner = McpRunner::new(mcp);
    let memory = MemoryStore::load(notices);
    // Built-in tools: an MCP server in the page, attached while switched on.
    crate::runner::builtin::start(mcp_runner, memory, notices);
    let ctx = Ctx {
        settings,
        convs,
        notices,
        runner: ChatRunner::new(settings, mcp_runner, convs),
        mcp,
        mcp_runner,
        memory,
        update: AppUpdate::start(),
        show_settings: RwSignal::new(false),
        show_help: RwSignal::new(false),
        show_search: RwSignal::new(false),
        sidebar_open: RwSignal::new(false),
    };
    provide_context(ctx);
    let surfaces = McpSurfaces::new(&ctx);
    provide_context(surfaces);
    // OAuth: the on-demand module's sign-in asks the page through `skiff_host`.
    // Before any server connects: a sign-in that left by full-page redirect is finished first.
    crate::runner::oauth::install(mcp, notices, move |id| mcp_runner.connect(id));

    // Reopen the conversation named in the URL (a reload or a bookmark), else the newest.
    let wanted = location::hash()
        .filter(|id| {
            convs
                .index
                .with_untracked(|i| i.iter().any(|s| s.id == *id))
        })
        .or_else(|| {
            convs
                .index
                .with_untracked(|i| i.first().map(|s| s.id.clone()))
        });
    if let Some(id) = wanted {
        convs.select(&id);
    }
    effect(move || {
        // A conversation still being read keeps its place in the URL.
        let id = convs
            .current
            .get()
            .map(|l| l.id())
            .or_else(|| convs.loading.get());
        location::replace_hash(id.as_deref());
    });

    // Another tab wrote to storage: each store merges what is its own.
    sync_with_other_tabs(settings, convs, mcp, memory);

    // The markdown renderer is a chunk needed soon, not before the message box takes input.
    super::lazy::when_idle(2_000, super::markdown_body::preload);

    // Connect every enabled MCP server concurrently, as soon as the page is up.
    mcp_runner.ensure_initialized();
    // Tool calls a closed page left running as MCP tasks are followed again, never re-sent.
    crate::runner::task_resume::start(convs, mcp_runner);

    // Throttled writes still owed when the page goes away are written now.
    // MCP sessions end with the page (a DELETE the server can act on instead of a session it
    // keeps until it times out), except a Streamable HTTP session an MCP task runs on: it is
    // kept for the reloaded page (`core::mcp::kept_session`). A page kept in the back-forward
    // cache (`persisted`) is frozen,
    // so nothing it sends would leave; its sessions stay, and `pageshow` checks them when it
    // comes back (on first load every server is already connecting).
    let _ = window_event_listener(leptos::ev::pagehide, move |ev| {
        convs.on_page_hide();
        let cached = js_sys::Reflect::get(&ev, &"persisted".into())
            .ok()
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
        if !cached {
            mcp_runner.leave();
        }
    });
    let _ = window_event_listener(leptos::ev::pageshow, move |_| {
        mcp_runner.ensure_initialized()
    });
    // Hidden is often the last moment a mobile page gets: write what is owed then too.
    let _ = window_event_listener(leptos::ev::visibilitychange, move |_| {
        if document().hidden() {
            convs.flush_all();
        }
    });

    effect(move || {
        let theme = settings.settings.with(|s| s.theme);
        if let Some(root) = document().document_element() {
            let result = match theme.data_theme() {
                None => root.remove_attribute("data-theme"),
                Some(value) => root.set_attribute("data-theme", value),
            };
            if let Err(e) = result {
                leptos::logging::warn!("could not set theme: {e:?}");
            }
        }
    });

    view! {
        <div class="app" class:sidebar-open=move || ctx.sidebar_open.get()>
            <Sidebar />
            <div class="scrim" on:click=move |_| ctx.sidebar_open.set(false)></div>
            <ChatView />
            <NoticesView />
            <UpdateBanner />
            <When when=move || ctx.show_settings.get()>
                <Lazy load=settings_surface surface="Settings" on_close=move || ctx.show_settings.set(false) />
            </When>
            <McpSurfaceHost ctx=ctx surfaces=surfaces />
            <KeyboardShortcuts />
            <SearchDialog />
            <Announcer />
        </div>
    }
}
