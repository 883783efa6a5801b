//! The handles every component may need, provided once by the app shell. All `Copy`.

use leptos::prelude::*;

use crate::runner::chat::ChatRunner;
use crate::runner::mcp::McpRunner;
use crate::stores::conversations::ConversationsStore;
use crate::stores::mcp::McpStore;
use crate::stores::memory::MemoryStore;
use crate::stores::notices::Notices;
use crate::stores::settings::SettingsStore;
use crate::stores::update::AppUpdate;

#[derive(Clone, Copy)]
pub struct Ctx {
    pub settings: SettingsStore,
    pub convs: ConversationsStore,
    pub notices: Notices,
    pub runner: ChatRunner,
    pub mcp: McpStore,
    pub mcp_runner: McpRunner,
    /// The built-in tools' memory and their on/off switch.
    pub memory: MemoryStore,
    /// A new deployment waiting for the user's Reload.
    pub update: AppUpdate,
    pub show_settings: RwSignal<bool>,
    /// The keyboard shortcuts sheet (`ui::shortcuts`).
    pub show_help: RwSignal<bool>,
    /// The conversation search (`ui::search_dialog`).
    pub show_search: RwSignal<bool>,
    /// The sidebar as an overlay on narrow screens.
    pub sidebar_open: RwSignal<bool>,
}

pub fn ctx() -> Ctx {
    // Provided by `App` before any child renders; a missing context is a programming error.
    expect_context::<Ctx>()
}
