//! The body of the Settings dialog: its tabs and every surface behind them (providers and
//! conversation defaults, MCP servers, tools, memory, masks, projects, storage).
//!
//! [`settings_body`] is its one entry, called from one place (`ui::settings_panel`, inside the
//! dialog), and it takes nothing but the `Copy` handles in context; the dialog itself is reached
//! only through the `settings` split point in `ui/app.rs`, so the dialog and its first tab
//! (Providers) are one on-demand chunk. The other tabs are a second chunk (`settings_tabs`),
//! fetched once the browser is idle after Settings opened (or at the first click on one of
//! them): opening Settings waits only for what it shows first. Nothing outside Settings may call
//! into these modules (the build would then keep them in the page's main wasm).
//!
//! Surfaces here lay out what core decides (each one's module says which machine) with the
//! form-field components of `ui::fields`; none writes markup as text or reads a form back.

mod masks;
mod mcp_form;
mod mcp_import;
mod mcp_tools;
mod number;
mod projects;
mod storage;

pub(crate) use mcp_form::ServerEditor;
pub(crate) use mcp_import::ImportExport;
pub(crate) use mcp_tools::ToolList;
pub(crate) use number::{number_input, SettingNumber};

use leptos::prelude::*;
use skiff_core::settings::{Theme, DEFAULT_SILENCE_LIMIT_S};

use super::context::ctx;
use super::conversation_settings::ConversationSettings;
use super::fields::EnumSelect;
use super::lazy::{when_idle, Lazy};
use super::mcp_settings::McpSettings;
use super::memory_settings::MemorySettings;
use super::profiles_settings::ProfilesSettings;
use super::tools_settings::ToolsSettings;
use super::when::When;
use masks::MasksSettings;
use projects::ProjectsSettings;
use storage::StorageSection;

#[derive(Clone, Copy, PartialEq)]
enum Tab {
    Provider,
    Mcp,
    Tools,
    Memory,
    Masks,
    Projects,
    Storage,
}

impl Tab {
    const ALL: [Tab; 7] = [
        Tab::Provider,
        Tab::Mcp,
        Tab::Tools,
        Tab::Memory,
        Tab::Masks,
        Tab::Projects,
        Tab::Storage,
    ];

    fn label(self) -> &'static str {
        match self {
            Tab::Provider => "Providers",
            Tab::Mcp => "MCP servers",
            Tab::Tools => "Tools",
            Tab::Memory => "Memory",
            Tab::Masks => "Masks",
            Tab::Projects => "Projects",
            Tab::Storage => "Storage",
        }
    }
}

// The tabs after the first, each a split point into the one `settings_tabs` chunk.
crate::split_surface!(mcp_tab, settings_tabs, || view! { <McpSettings /> }
    .into_any());
crate::split_surface!(tools_tab, settings_tabs, || view! { <ToolsSettings /> }
    .into_any());
crate::split_surface!(memory_tab, settings_tabs, || {
    view! { <MemorySettings memory=ctx().memory /> }.into_any()
});
crate::split_surface!(masks_tab, settings_tabs, || view! { <MasksSettings /> }
    .into_any());
crate::split_surface!(projects_tab, settings_tabs, || {
    view! { <ProjectsSettings /> }.into_any()
});
crate::split_surface!(storage_tab, settings_tabs, || view! { <StorageSection /> }
    .into_any());

/// Puts the cursor on the element `id` once the change that draws it has been drawn. Leptos
/// updates the page in tasks queued when a signal changes; this task is queued after them, so
/// it runs as soon as they have, before the browser paints or takes the next key press (a
/// frame later if something still had to be drawn).
pub(crate) fn focus_soon(id: String) {
    leptos::task::spawn_local(async move {
        if !crate::platform::focus::focus_id(&id) {
            request_animation_frame(move || {
                crate::platform::focus::focus_id(&id);
            });
        }
    });
}

/// Settings' tabs and panels: the one entry of the on-demand Settings surface.
pub fn settings_body() -> AnyView {
    let tab = RwSignal::new(Tab::Provider);
    let tabs = Tab::ALL
        .into_iter()
        .map(|t| {
            view! {
                <button
                    role="tab"
                    class="tab"
                    class:active=move || tab.get() == t
                    aria-selected=move || (tab.get() == t).to_string()
                    on:click=move |_| tab.set(t)
                >
                    {t.label()}
                </button>
            }
        })
        .collect_view();
    // The other tabs' chunk, fetched while the user reads the first tab, so a tab opens at once.
    when_idle(1_000, || {
        leptos::task::spawn_local(async {
            let _ = mcp_tab().await;
        })
    });
    view! {
        <div class="tabs" role="tablist">{tabs}</div>
        <When when=move || tab.get() == Tab::Mcp>
            <Lazy load=mcp_tab surface="MCP servers" />
        </When>
        <When when=move || tab.get() == Tab::Tools>
            <Lazy load=tools_tab surface="Tools" />
        </When>
        <When when=move || tab.get() == Tab::Memory>
            <Lazy load=memory_tab surface="Memory" />
        </When>
        <When when=move || tab.get() == Tab::Masks>
            <Lazy load=masks_tab surface="Masks" />
        </When>
        <When when=move || tab.get() == Tab::Projects>
            <Lazy load=projects_tab surface="Projects" />
        </When>
        <When when=move || tab.get() == Tab::Storage>
            <Lazy load=storage_tab surface="Storage" />
        </When>
        <When when=move || tab.get() == Tab::Provider>
            <ProfilesSettings />
            <ConversationSettings />
            <General />
        </When>
    }
    .into_any()
}

/// How long to wait for a silent answer, and the theme.
#[component]
fn General() -> impl IntoView {
    let settings = ctx().settings.settings;
    view! {
        <h3>"Answers"</h3>
        <div class="params">
            <SettingNumber
                label="Give up after silence (s)"
                min=1.0
                max=3_600.0
                integer=true
                get=|s| Some(f64::from(s.silence_limit_s))
                set=|s, v| s.silence_limit_s = v.map_or(DEFAULT_SILENCE_LIMIT_S, |v| v as u32)
            />
        </div>
        <h3>"Appearance"</h3>
        <EnumSelect<Theme>
            label="Theme"
            value=move || settings.with(|s| s.theme)
            on_change=move |theme: Theme| settings.update(|s| s.theme = theme)
        />
    }
}
