//! Leptos components. They render store state and dispatch intents to runners and stores;
//! they hold no protocol logic and never touch storage directly.

pub mod announcer;
pub mod app;
pub mod chat_view;
pub mod clock_hook;
pub mod composer;
pub mod context;
pub mod context_gauge;
pub mod conversation_menu;
pub mod conversation_settings;
pub mod dialog;
pub mod elicit_card;
pub mod icons;
pub mod markdown_body;
pub mod mcp_settings;
pub mod memory_settings;
pub mod message_view;
pub mod notices_view;
pub mod onboarding;
pub mod search_dialog;
pub mod settings_panel;
pub mod shortcuts;
pub mod sidebar;
pub mod tool_card;
pub mod tool_picker;
pub mod tools_settings;
pub mod update_banner;
