//! Skiff, the browser app. Layers, top to bottom (dependencies point down only):
//! `ui` renders state and dispatches intents; `runner` drives core logic with platform IO;
//! `stores` hold reactive state with versioned persistence; `platform` wraps browser APIs.
//! The sans-IO logic lives in the separate `skiff-core` crate. See ARCHITECTURE.md.

pub mod platform;
pub mod runner;
pub mod stores;
pub mod ui;

/// Entry point called by `main`: installs the panic hook and mounts the app on `<body>`.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(ui::app::App);
}
