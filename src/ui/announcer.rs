//! The page's polite live region: when a turn in the open conversation ends, screen readers
//! hear how it ended ("Answer finished: …" with its opening words, or the error sentence).
//!
//! Once per turn, never per token; the sentence is `skiff_core::announce`'s. Opening a
//! conversation whose answer ended earlier announces nothing: only an end seen here does.

use std::time::Duration;

use crate::stores::reactive::effect;
use leptos::prelude::*;
use skiff_core::announce::turn_ended;
use skiff_core::records::message::Role;

use super::context::ctx;

/// How long an announcement stays in the region after it was made.
const CLEAR_AFTER: Duration = Duration::from_secs(7);

#[component]
pub fn Announcer() -> impl IntoView {
    let ctx = ctx();
    let text = RwSignal::new(String::new());
    // (conversation id, was a turn running in it) at the last look.
    let last_seen = StoredValue::new(None::<(String, bool)>);
    // Which announcement is showing, so only its own timer clears it.
    let shown = StoredValue::new(0u32);
    effect(move || {
        let Some(conv) = ctx.convs.current.get() else {
            last_seen.set_value(None);
            return;
        };
        // Another tab may delete the open conversation while its turn winds down: the store
        // disposes it then, and every read here must survive that (`try_*`), or the page dies.
        let Some(id) = conv.try_id() else {
            last_seen.set_value(None);
            return;
        };
        let sending = ctx.runner.is_sending(&id);
        let before = last_seen
            .try_update_value(|seen| seen.replace((id.clone(), sending)))
            .flatten();
        if sending || before != Some((id, true)) {
            return;
        }
        let last = conv
            .messages
            .try_with_untracked(|ms| ms.last().copied())
            .flatten();
        let Some(msg) = last.filter(|m| m.role == Role::Assistant) else {
            return;
        };
        let sentence = msg
            .status
            .try_with_untracked(|status| {
                msg.content
                    .try_with_untracked(|c| turn_ended(status, c))
                    .flatten()
            })
            .flatten();
        if let Some(sentence) = sentence {
            // Emptied first, so the same sentence twice is still a change to announce; emptied
            // again once read (as react-aria's announcer does), so it is not found later as
            // stale page text. A newer announcement is never cleared by an older timer.
            let generation = shown.get_value().wrapping_add(1);
            shown.set_value(generation);
            text.set(String::new());
            set_timeout(move || text.set(sentence), Duration::from_millis(60));
            set_timeout(
                move || {
                    if shown.try_get_value() == Some(generation) {
                        text.set(String::new());
                    }
                },
                CLEAR_AFTER,
            );
        }
    });
    view! {
        <div class="visually-hidden announcer" role="status" aria-live="polite" aria-atomic="true">
            {move || text.get()}
        </div>
    }
}
