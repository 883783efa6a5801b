//! What the Account dialog (`ui::account_dialog`) asks of the sign-in: its view
//! (`core::oauth::account::AccountView`), and the user's Sign in, Sign out and Save. Used only
//! by the dialog, so it can load with it.

use skiff_core::oauth::account::{AccountForm, AccountInput, AccountView, AfterSave, FieldWrite};
use skiff_core::oauth::grant::SignInMethod;
use skiff_core::oauth::request_auth::carries_tokens;
use skiff_core::oauth::stored::{POPUP_FEATURES, POPUP_NAME};
use wasm_bindgen_futures::spawn_local;

use super::hub::{self, now, with_entry};
use super::{callback, vault};
use crate::platform::popup::Popup;

/// What the dialog shows for `server` now.
pub fn view(server: &str) -> AccountView {
    let host = hub::host();
    let cfg = host.as_ref().and_then(|h| h.store.server(server));
    let name = host
        .as_ref()
        .and_then(|h| h.store.server_name(server))
        .unwrap_or_else(|| server.to_string());
    let websocket = cfg
        .as_ref()
        .is_some_and(|c| !carries_tokens(c.transport, &c.url));
    let proxy = cfg.and_then(|c| c.proxy);
    let fields = vault::fields(server);
    let input = AccountInput {
        server_name: &name,
        websocket,
        status: None,
        credentials: None,
        fields: &fields,
        proxy: proxy.as_deref(),
        now_ms: now(),
    };
    with_entry(server, |e| {
        AccountView::build(AccountInput {
            status: e.machine.status(),
            credentials: e.machine.credentials(),
            ..input
        })
    })
    .unwrap_or_else(|| AccountView::build(input))
}

/// The dialog opened: a machine made for an address or proxy the server no longer has is made
/// again (`AuthMachine::outdated`), and a server with stored credentials shows them.
pub fn opened(server: &str) {
    let cfg = hub::host().and_then(|h| h.store.server(server));
    if let Some(cfg) = cfg {
        let outdated = with_entry(server, |e| {
            e.machine.outdated(&cfg.url, cfg.proxy.as_deref())
        });
        if outdated == Some(true) {
            hub::remove(server);
        }
    }
    let server = server.to_string();
    spawn_local(async move {
        if hub::entry_if_stored(&server).await {
            hub::drive(&server);
        }
        hub::touched();
    });
}

/// Sign in. Called from the click itself: a browser sign-in needs a window, and only a click
/// may open one, so it opens now (blank) and is sent to the authorization page once the
/// machine has it ready (discovery may still run). Blocked, the machine's page opens in this
/// tab instead. A way without a browser window opens none.
pub fn sign_in(server: &str) {
    let browser = vault::fields(server).method == SignInMethod::Browser;
    let window = browser
        .then(|| Popup::open("", POPUP_NAME, POPUP_FEATURES))
        .flatten();
    let server = server.to_string();
    spawn_local(async move {
        if !hub::entry_for(&server, None).await {
            if let Some(w) = window {
                w.close();
            }
            return;
        }
        if let Some(w) = window {
            callback::hold(&server, w);
        }
        with_entry(&server, |e| e.machine.sign_in(now()));
        hub::drive(&server);
    });
}

/// Sign out: the machine revokes and forgets the credentials, the secrets that sign in without
/// the user are forgotten, and the next sign-in starts from the store.
pub fn sign_out(server: &str) {
    if with_entry(server, |e| e.machine.sign_out(now())).is_none() {
        return;
    }
    hub::drive(server);
    vault::forget_secrets(server);
    hub::remove(server);
}

/// Save the advanced section. `Err`: a sentence for the dialog (a key that cannot sign, storage
/// that refused); nothing was written then, or what was written is said.
pub async fn save(server: &str, form: AccountForm) -> Result<(), String> {
    let (writes, after) = form.plan().map_err(|e| e.to_string())?;
    for w in writes {
        match w {
            FieldWrite::Set(field, value) => vault::set_field(server, field, &value)
                .await
                .map_err(|e| format!("It could not be saved: {e}"))?,
            FieldWrite::Remove(field) => vault::remove_field(server, field),
        }
    }
    match after {
        AfterSave::RebuildUnlessSignedIn => {
            if with_entry(server, |e| e.machine.credentials().is_none()) == Some(true) {
                hub::remove(server);
            }
        }
    }
    hub::touched();
    Ok(())
}
