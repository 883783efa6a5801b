//! The notice area: problems the user must see, until dismissed.

use leptos::prelude::*;

use super::context::ctx;
use super::icons;
use super::keyed_list::keyed_list;
use crate::stores::notices::{shown_in_settings, Level};

#[component]
pub fn NoticesView() -> impl IntoView {
    let ctx = ctx();
    // A notice about what Settings itself shows (a server that is down) would only cover the
    // open dialog; it waits until Settings closes.
    let shown = move || {
        let settings = ctx.show_settings.get();
        ctx.notices.items.with(|items| {
            items
                .iter()
                .filter(|n| !(settings && n.key.as_deref().is_some_and(shown_in_settings)))
                .cloned()
                .collect::<Vec<_>>()
        })
    };
    view! {
        <div class="notices" role="status" aria-live="polite">
            {keyed_list(shown, |n| n.id.to_string(), move |n| view! {
                <div
                    class="notice"
                    class:notice-error=n.level == Level::Error
                    class:notice-warning=n.level == Level::Warning
                    role=if n.level == Level::Error { "alert" } else { "status" }
                >
                    <span class="notice-text">{n.text.clone()}</span>
                    <button
                        class="icon-button"
                        title="Dismiss"
                        aria-label="Dismiss"
                        on:click=move |_| ctx.notices.dismiss(n.id)
                    >
                        {icons::close()}
                    </button>
                </div>
            })}
        </div>
    }
}
