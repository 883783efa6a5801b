//! The app shell: creates the stores, wires cross-tab sync, theme and page-hide flushing, and
//! lays out sidebar, chat and settings.

use leptos::prelude::*;
use skiff_core::mcp::config::SERVERS_KEY as MCP_SERVERS_KEY;
use skiff_core::persist::{self, SETTINGS_KEY};

use super::chat_view::ChatView;
use super::context::Ctx;
use super::notices_view::NoticesView;
use super::settings_panel::SettingsPanel;
use super::sidebar::Sidebar;
use crate::platform::{location, storage};
use crate::runner::chat::ChatRunner;
use crate::runner::mcp::McpRunner;
use crate::stores::conversations::ConversationsStore;
use crate::stores::mcp::McpStore;
use crate::stores::memory::MemoryStore;
use crate::stores::notices::Notices;
use crate::stores::settings::SettingsStore;

#[component]
pub fn App() -> impl IntoView {
    let notices = Notices::new();
    let settings = SettingsStore::load(notices);
    let convs = ConversationsStore::load(notices);
    let mcp = McpStore::load(notices);
    let mcp_runner = McpRunner::new(mcp);
    let memory = MemoryStore::load(notices);
    // Built-in tools: an MCP server in the page, attached while switched on.
    crate::runner::builtin::start(mcp_runner, memory);
    let ctx = Ctx {
        settings,
        convs,
        notices,
        runner: ChatRunner::new(settings, mcp_runner),
        mcp,
        mcp_runner,
        memory,
        show_settings: RwSignal::new(false),
        sidebar_open: RwSignal::new(false),
    };
    provide_context(ctx);

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
    Effect::new(move |_| {
        let id = convs.current.get().map(|l| l.id());
        location::replace_hash(id.as_deref());
    });

    // Another tab wrote to storage: merge it in. The listener lives as long as the page.
    let listener = storage::on_change(move |change| {
        let key = change.key.as_deref();
        match key {
            Some(SETTINGS_KEY) => settings.apply_remote(change.new_value.as_deref()),
            Some(MCP_SERVERS_KEY) => mcp.apply_remote(change.new_value.as_deref()),
            Some(skiff_core::builtin::MEMORY_KEY) => {
                memory.apply_remote(change.new_value.as_deref())
            }
            Some(k) if !k.starts_with(persist::KEY_PREFIX) => {}
            None => {
                // Another tab cleared storage: both stores write back what this tab holds.
                memory.apply_remote(None);
                convs.apply_remote(key, change.new_value.as_deref());
            }
            _ => convs.apply_remote(key, change.new_value.as_deref()),
        }
    });
    StoredValue::new_local(listener);

    // Connect every enabled MCP server concurrently, as soon as the page is up.
    mcp_runner.ensure_initialized();

    // Throttled writes still owed when the page goes away are written now.
    let _ = window_event_listener(leptos::ev::pagehide, move |_| convs.on_page_hide());

    Effect::new(move |_| {
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
            <Show when=move || ctx.show_settings.get()>
                <SettingsPanel />
            </Show>
        </div>
    }
}
