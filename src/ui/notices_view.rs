//! The notice area: problems the user must see, until dismissed.

use leptos::prelude::*;

use super::context::ctx;
use super::icons;
use super::keyed_list::keyed_list;
use crate::stores::notices::Level;

#[component]
pub fn NoticesView() -> impl IntoView {
    let ctx = ctx();
    view! {
        <div class="notices" role="status" aria-live="polite">
            {keyed_list(move || ctx.notices.items.get(), |n| n.id.to_string(), move |n| view! {
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
