//! A server's Account dialog (OAuth sign-in, issue 10): its status and account facts, Sign in,
//! Sign out, and the advanced "How Skiff signs in" section (client id and secret, a private key
//! for client credentials, an identity provider for cross-app access).
//!
//! It renders `skiff_core::oauth::account::AccountView` (re-read whenever the sign-in changes,
//! `runner::oauth::revision`) and hands the user's intents to `runner::oauth::account`; what a
//! state offers, how the facts read and what Save writes are core's. What the user typed stays
//! in the fields while the status changes under it; secrets typed are cleared once saved and
//! never shown back.
//!
//! One entry, `account_dialog`, called from one place (the server card), so the dialog can
//! load on demand with the sign-in's `account` half.

use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::oauth::account::{AccountBody, AccountForm, AccountView, WEBSOCKET_NOTE};
use skiff_core::oauth::grant::SignInMethod;

use super::dialog::Modal;
use crate::runner::oauth;

/// The Account dialog of `server_id`; `on_close` hides it.
pub fn account_dialog(server_id: String, on_close: Callback<()>) -> AnyView {
    view! { <AccountDialog server_id=server_id on_close=on_close /> }.into_any()
}

/// A text field's value as typed.
fn typed(ev: &leptos::ev::Event) -> String {
    event_target_value(ev)
}

#[component]
fn AccountDialog(server_id: String, on_close: Callback<()>) -> impl IntoView {
    oauth::account::opened(&server_id);
    let id = StoredValue::new(server_id);
    let revision = oauth::revision();
    let account = Memo::new(move |_| {
        revision.track();
        oauth::account::view(&id.get_value())
    });
    let first = account.get_untracked();
    let title = move || account.with(|a| a.title.clone());
    let body = match &first.body {
        AccountBody::WebSocket => view! {
            <p class="oauth-note">{WEBSOCKET_NOTE}</p>
            <div class="oauth-actions">
                <button class="oauth-close" on:click=move |_| on_close.run(())>"Close"</button>
            </div>
        }
        .into_any(),
        AccountBody::Http(_) => http_body(id, account, &first, on_close).into_any(),
    };
    view! {
        <Modal label="Account" class="oauth-dialog" on_close=on_close>
            <h2 id="oauth-dialog-title">{title}</h2>
            {body}
        </Modal>
    }
}

fn http_body(
    id: StoredValue<String>,
    account: Memo<AccountView>,
    first: &AccountView,
    on_close: Callback<()>,
) -> impl IntoView {
    let http = move |f: &dyn Fn(&skiff_core::oauth::account::HttpAccount) -> String| {
        account.with(|a| match &a.body {
            AccountBody::Http(h) => f(h),
            AccountBody::WebSocket => String::new(),
        })
    };
    let flag = move |f: fn(&skiff_core::oauth::account::HttpAccount) -> bool| {
        account.with(|a| matches!(&a.body, AccountBody::Http(h) if f(h)))
    };
    let AccountBody::Http(start) = &first.body else {
        return ().into_any();
    };
    // The form as saved when the dialog opened; from then on it is what the user types.
    let method = RwSignal::new(start.form.method);
    let client_id = RwSignal::new(start.form.client_id.clone());
    let secret = RwSignal::new(String::new());
    let key = RwSignal::new(String::new());
    let idp_endpoint = RwSignal::new(start.form.idp_token_endpoint.clone());
    let idp_client = RwSignal::new(start.form.idp_client_id.clone());
    let id_token = RwSignal::new(String::new());
    let notice = RwSignal::new(None::<String>);
    let placeholder = move |f: fn(&skiff_core::oauth::account::FormView) -> &'static str| {
        account.with(|a| match &a.body {
            AccountBody::Http(h) => f(&h.form),
            AccountBody::WebSocket => "",
        })
    };

    let save = move |_| {
        let form = AccountForm {
            method: method.get_untracked(),
            client_id: client_id.get_untracked(),
            client_secret: secret.get_untracked(),
            private_key: key.get_untracked(),
            idp_token_endpoint: idp_endpoint.get_untracked(),
            idp_client_id: idp_client.get_untracked(),
            id_token: id_token.get_untracked(),
        };
        spawn_local(async move {
            match oauth::account::save(&id.get_value(), form).await {
                Ok(()) => {
                    notice.set(None);
                    for s in [secret, key, id_token] {
                        s.set(String::new());
                    }
                }
                Err(why) => notice.set(Some(why)),
            }
        });
    };
    let shown = |on: bool| if on { "" } else { "none" };

    view! {
        <p
            class="oauth-state"
            class:oauth-failed=move || flag(|h| h.failed)
            role="status"
            data-state=move || account.with(|a| match &a.body {
                AccountBody::Http(h) => h.state,
                AccountBody::WebSocket => "none",
            })
        >
            {move || http(&|h| h.sentence.clone())}
        </p>
        {move || {
            let facts = account.with(|a| match &a.body {
                AccountBody::Http(h) => h.facts.clone(),
                AccountBody::WebSocket => Vec::new(),
            });
            (!facts.is_empty()).then(|| view! {
                <dl class="oauth-facts">
                    {facts.into_iter().map(|f| view! {
                        <dt>{f.label}</dt>
                        <dd class=f.class>{f.value}</dd>
                    }).collect_view()}
                </dl>
            })
        }}
        <div class="oauth-actions">
            {move || flag(|h| h.can_sign_out).then(|| view! {
                <button class="oauth-sign-out" on:click=move |_| oauth::account::sign_out(&id.get_value())>
                    "Sign out"
                </button>
            })}
            <button class="oauth-sign-in" on:click=move |_| oauth::account::sign_in(&id.get_value())>
                {move || account.with(|a| match &a.body {
                    AccountBody::Http(h) => h.sign_in_label,
                    AccountBody::WebSocket => "",
                })}
            </button>
            <button class="oauth-close" on:click=move |_| on_close.run(())>"Close"</button>
        </div>
        <details class="oauth-advanced" open=start.advanced_open>
            <summary>"How Skiff signs in, client id and proxy"</summary>
            <fieldset class="oauth-method">
                <legend>"How Skiff signs in"</legend>
                {SignInMethod::ALL.into_iter().map(|m| {
                    let input_id = format!("oauth-method-{}", m.as_str());
                    let label_for = input_id.clone();
                    view! {
                        <label class="oauth-choice" for=label_for>
                            <input
                                id=input_id
                                type="radio"
                                name="method"
                                value=m.as_str()
                                prop:checked=move || method.get() == m
                                on:change=move |_| method.set(m)
                            />
                            " "
                            {m.label()}
                        </label>
                    }
                }).collect_view()}
            </fieldset>
            <label for="oauth-client-id">
                "Client id registered with the authorization server (optional for a browser window)"
            </label>
            <input
                id="oauth-client-id"
                name="client_id"
                type="text"
                autocomplete="off"
                spellcheck="false"
                prop:value=move || client_id.get()
                on:input=move |ev| client_id.set(typed(&ev))
            />
            <label for="oauth-client-secret">
                "Its client secret, if that registration gave one (kept encrypted)"
            </label>
            <input
                id="oauth-client-secret"
                name="client_secret"
                type="password"
                autocomplete="off"
                spellcheck="false"
                placeholder=move || placeholder(|f| f.secret_placeholder)
                prop:value=move || secret.get()
                on:input=move |ev| secret.set(typed(&ev))
            />
            <div class="oauth-for-application" style:display=move || shown(method.get().uses_key())>
                <label for="oauth-private-key">
                    "Or its private key, to sign in with a signed assertion instead of a secret \
                     (PKCS#8 PEM, EC P-256 for ES256 or RSA for RS256; kept encrypted)"
                </label>
                <textarea
                    id="oauth-private-key"
                    name="private_key"
                    rows="3"
                    spellcheck="false"
                    autocomplete="off"
                    placeholder=move || placeholder(|f| f.key_placeholder)
                    prop:value=move || key.get()
                    on:input=move |ev| key.set(typed(&ev))
                ></textarea>
            </div>
            <div class="oauth-for-cross-app" style:display=move || shown(method.get().uses_idp())>
                <label for="oauth-idp-token-endpoint">"Your identity provider's token endpoint"</label>
                <input
                    id="oauth-idp-token-endpoint"
                    name="idp_token_endpoint"
                    type="url"
                    autocomplete="off"
                    spellcheck="false"
                    placeholder="https://idp.example.com/oauth2/token"
                    prop:value=move || idp_endpoint.get()
                    on:input=move |ev| idp_endpoint.set(typed(&ev))
                />
                <label for="oauth-idp-client-id">"Skiff's client id at the identity provider"</label>
                <input
                    id="oauth-idp-client-id"
                    name="idp_client_id"
                    type="text"
                    autocomplete="off"
                    spellcheck="false"
                    prop:value=move || idp_client.get()
                    on:input=move |ev| idp_client.set(typed(&ev))
                />
            </div>
            <div class="oauth-for-identity-token" style:display=move || shown(method.get().uses_identity_token())>
                <label for="oauth-id-token">{move || method.get().identity_token_label()}</label>
                <textarea
                    id="oauth-id-token"
                    name="id_token"
                    rows="3"
                    spellcheck="false"
                    autocomplete="off"
                    placeholder=move || placeholder(|f| f.id_token_placeholder)
                    prop:value=move || id_token.get()
                    on:input=move |ev| id_token.set(typed(&ev))
                ></textarea>
                <p class="oauth-note">{move || method.get().identity_token_note()}</p>
            </div>
            {move || notice.get().map(|n| view! { <p class="oauth-notice" role="alert">{n}</p> })}
            <button class="oauth-save-client" on:click=save>"Save"</button>
            <p class="oauth-note">{move || http(&|h| h.proxy_note.clone())}</p>
        </details>
    }
    .into_any()
}
