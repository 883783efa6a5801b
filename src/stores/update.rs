//! Whether a new deployment of Skiff is installed and waiting, and the way to switch to it.
//! The page shows "A new version is ready — Reload" from `ready`; nothing switches by itself.

use leptos::prelude::*;

use crate::platform::online;
use crate::platform::service_worker::{self, Registration};

#[derive(Clone, Copy)]
pub struct AppUpdate {
    /// A newer version is installed and waits for the user's Reload.
    pub ready: RwSignal<bool>,
    registration: StoredValue<Option<Registration>, LocalStorage>,
    online: StoredValue<Option<online::OnlineListener>, LocalStorage>,
}

impl AppUpdate {
    /// Registers the service worker; call once, from the app's root.
    pub fn start() -> Self {
        let update = AppUpdate {
            ready: RwSignal::new(false),
            registration: StoredValue::new_local(None),
            online: StoredValue::new_local(None),
        };
        service_worker::register(
            move |reg| update.registration.set_value(Some(reg)),
            move || update.ready.set(true),
        );
        // A deployment made while this page was offline is found as soon as it is back.
        let listener = online::on_online(move || {
            update
                .registration
                .with_value(|r| r.as_ref().map(Registration::check_for_update));
        });
        update.online.set_value(Some(listener));
        update
    }

    /// The user pressed Reload.
    pub fn apply(&self) {
        self.registration.with_value(|r| match r {
            Some(reg) => reg.activate_waiting(),
            None => service_worker::reload(),
        });
    }
}
