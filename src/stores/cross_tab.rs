//! Other tabs' writes, routed to the store that owns each key. The stores decide what a
//! change means (`apply_remote`); this only knows which store owns which key, so the UI never
//! touches storage events.

use leptos::prelude::*;
use skiff_core::builtin::MEMORY_KEY;
use skiff_core::mcp::config::SERVERS_KEY;
use skiff_core::persist::{KEY_PREFIX, SETTINGS_KEY};

use super::conversations::ConversationsStore;
use super::mcp::McpStore;
use super::memory::MemoryStore;
use super::settings::SettingsStore;
use crate::platform::storage;

/// Listen for other tabs' writes for as long as the app lives.
pub fn sync_with_other_tabs(
    settings: SettingsStore,
    convs: ConversationsStore,
    mcp: McpStore,
    memory: MemoryStore,
) {
    let listener = storage::on_change(move |change| {
        let key = change.key.as_deref();
        let value = change.new_value.as_deref();
        match key {
            Some(SETTINGS_KEY) => settings.apply_remote(value),
            Some(SERVERS_KEY) => mcp.apply_remote(value),
            Some(MEMORY_KEY) => memory.apply_remote(value),
            Some(k) if !k.starts_with(KEY_PREFIX) => {}
            // Another tab cleared storage: every store writes back what this tab holds.
            None => {
                settings.apply_remote(None);
                mcp.apply_remote(None);
                memory.apply_remote(None);
                convs.apply_remote(None, None);
            }
            Some(_) => convs.apply_remote(key, value),
        }
    });
    // The listener is removed when dropped; the app's owner keeps it for the page's life.
    StoredValue::new_local(listener);
}
