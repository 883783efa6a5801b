//! "A new version is ready — Reload": shown when a new deployment's service worker waits.
//! Nothing switches versions until the user presses Reload, so an answer being written is never
//! cut by a deployment; the banner says so when one is.

use leptos::prelude::*;

use super::context::ctx;
use super::when::When;

#[component]
pub fn UpdateBanner() -> impl IntoView {
    let ctx = ctx();
    let streaming = move || {
        ctx.convs
            .current
            .get()
            .is_some_and(|c| ctx.runner.is_sending(&c.id()))
    };
    view! {
        <When when=move || ctx.update.ready.get()>
            <div class="notice update-banner" role="status">
                <span class="notice-text">
                    "A new version of Skiff is ready."
                    {move || streaming().then_some(" Reloading now stops the answer being written.")}
                </span>
                <button class="small primary update-reload" on:click=move |_| ctx.update.apply()>
                    "Reload"
                </button>
            </div>
        </When>
    }
}
