//! The authorization server's page and the way back from it: the sign-in window (a popup the
//! user's click opened, sent on to the authorization page), the full-page way when popups are
//! blocked, and the answer the callback page (`extras/oauth-callback.html`, its own document
//! with its own CSP) hands back: over the `skiff-oauth` BroadcastChannel from a popup, or in
//! this tab's sessionStorage after a full-page redirect, resumed at start (`resume`).
//!
//! What the answer means is the machine's to judge (`AuthMachine::handle_callback`); this only
//! routes it to the server whose request it answers.

use skiff_core::oauth::authorize::callback_state;
use skiff_core::oauth::machine_types::PendingAuthorization;
use skiff_core::oauth::stored::{
    read_callback_message, PendingRedirect, CHANNEL, PENDING_KEY, POPUP_FEATURES, POPUP_NAME,
    RETURNED_KEY,
};
use wasm_bindgen_futures::spawn_local;

use super::hub::{self, now, with_entry};
use crate::platform::broadcast::Channel;
use crate::platform::clock::sleep_ms;
use crate::platform::popup::{self, Popup};

/// How often an open sign-in window is checked for having been closed.
const WATCH_MS: u32 = 400;
/// After the window closed, how long the callback's message may still take to arrive before
/// the sign-in counts as abandoned.
const CLOSED_GRACE_MS: u32 = 1_000;

/// Listen for the callback page's message (once per page).
pub(super) fn listen() {
    hub::set_channel(|| {
        Channel::open(CHANNEL, |text| {
            if let Some(url) = read_callback_message(&text) {
                on_callback(&url);
            }
        })
    });
}

fn on_callback(url: &str) {
    let Some(server) = hub::routed(callback_state(url).as_deref()) else {
        return;
    };
    if with_entry(&server, |e| e.machine.handle_callback(now(), url)).is_some() {
        hub::drive(&server);
    }
}

/// Show the authorization page: in the window the click opened, else a new popup, else (popups
/// blocked) in this tab, after keeping the request in sessionStorage for the way back.
pub(super) fn open(server: &str, url: &str, pending: PendingAuthorization) {
    hub::route_state(&pending.state, server);
    let held = with_entry(server, |e| e.popup.clone())
        .flatten()
        .filter(|p| !p.is_closed());
    if let Some(p) = held {
        if p.navigate(url) {
            watch(server);
            return;
        }
    }
    if let Some(p) = Popup::open(url, POPUP_NAME, POPUP_FEATURES) {
        with_entry(server, |e| e.popup = Some(p));
        watch(server);
        return;
    }
    let saved = PendingRedirect {
        server: server.to_string(),
        pending,
    };
    if !popup::session_set(PENDING_KEY, &saved.to_text()) {
        hub::notify(
            "Popups are blocked and this tab cannot keep the sign-in while it visits the \
             authorization server (session storage is off). Allow popups for Skiff and sign in \
             again."
                .into(),
        );
        return;
    }
    popup::leave_for(url);
}

/// Keep `popup` as the server's sign-in window (opened by the user's click) and watch it.
pub(super) fn hold(server: &str, window: Popup) {
    with_entry(server, |e| e.popup = Some(window));
    watch(server);
}

/// Watch the server's window: once it is closed without an answer (after a moment for the
/// answer still on its way), the machine abandons that request.
fn watch(server: &str) {
    let Some(mine) = with_entry(server, |e| {
        e.watch += 1;
        e.watch
    }) else {
        return;
    };
    let server = server.to_string();
    spawn_local(async move {
        loop {
            sleep_ms(WATCH_MS).await;
            let closed = with_entry(&server, |e| {
                (e.watch == mine).then(|| e.popup.as_ref().is_none_or(Popup::is_closed))
            })
            .flatten();
            match closed {
                None => return,
                Some(false) => continue,
                Some(true) => break,
            }
        }
        with_entry(&server, |e| e.popup = None);
        sleep_ms(CLOSED_GRACE_MS).await;
        let still = with_entry(&server, |e| {
            (e.watch == mine).then(|| e.machine.handle_authorization_closed(now()))
        })
        .flatten();
        if still.is_some() {
            hub::drive(&server);
        }
    });
}

/// Close the server's window (the machine is done with it) and stop watching it.
pub(super) fn close(server: &str) {
    let window = with_entry(server, |e| {
        e.watch += 1;
        e.popup.take()
    })
    .flatten();
    if let Some(w) = window {
        w.close();
    }
}

/// Whether this tab came back from a full-page redirect with an answer to finish.
pub(super) fn returned() -> bool {
    popup::session_get(RETURNED_KEY).is_some()
}

/// Back from a full-page redirect: finish the sign-in that left (first, before any request
/// makes a machine for that server without it).
pub(super) async fn resume() {
    let returned = popup::session_get(RETURNED_KEY);
    let saved = popup::session_get(PENDING_KEY);
    popup::session_remove(RETURNED_KEY);
    let (Some(url), Some(saved)) = (returned, saved) else {
        return;
    };
    popup::session_remove(PENDING_KEY);
    let Some(PendingRedirect { server, pending }) = PendingRedirect::parse(&saved) else {
        hub::notify(
            "The sign-in that left for the authorization server cannot be resumed (what this \
             tab kept of it is unreadable). Sign in again from the server's Account."
                .into(),
        );
        return;
    };
    if hub::entry_for(&server, Some(pending)).await {
        with_entry(&server, |e| e.machine.handle_callback(now(), &url));
        hub::drive(&server);
    }
}
