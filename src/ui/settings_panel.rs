//! The Settings dialog: its frame (title and close button) in the one modal
//! (`ui::dialog::Modal`: focus trap, Escape, focus back to the opener), around
//! `ui::settings::settings_body`, the single entry of everything behind Settings' tabs.
//! Every field applies as it is edited; invalid values are reported beside the field and
//! never saved.

use leptos::prelude::*;

use super::context::ctx;
use super::dialog::Modal;
use super::icons;
use super::settings::settings_body;

#[component]
pub fn SettingsPanel() -> impl IntoView {
    let ctx = ctx();
    let close = move || ctx.show_settings.set(false);
    view! {
        <Modal label="Settings" class="settings" on_close=close>
            <header class="settings-header">
                <h2>"Settings"</h2>
                <button class="icon-button" aria-label="Close settings" on:click=move |_| close()>{icons::close()}</button>
            </header>
            {settings_body()}
        </Modal>
    }
}
