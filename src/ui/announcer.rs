//! The page's polite live region: when a turn in the open conversation ends, screen readers
//! hear how it ended ("Answer finished: …" with its opening words, or the error sentence), and
//! any surface may have a sentence said through [`Announcements::say`] (a prompt inserted, a
//! server asking to use the model).
//!
//! Once per turn, never per token; the sentence is `skiff_core::announce`'s. Opening a
//! conversation whose answer ended earlier announces nothing: only an end seen here does.
//! Other surfaces say their rare events through [`announce`] or [`Announcements::say`] (the
//! model panel: a model stored or deleted; MCP: a prompt inserted), so the page keeps one region.

use std::cell::Cell;
use std::time::Duration;

use crate::stores::reactive::effect;
use leptos::prelude::*;
use skiff_core::announce::turn_ended;
use skiff_core::records::message::Role;

use super::context::ctx;

/// How long an announcement stays in the region after it was made.
const CLEAR_AFTER: Duration = Duration::from_secs(7);

/// The region's text, and which announcement is showing (so only its own timer clears it).
#[derive(Clone, Copy)]
struct Region {
    text: RwSignal<String>,
    shown: StoredValue<u32>,
}

thread_local! {
    static REGION: Cell<Option<Region>> = const { Cell::new(None) };
}

/// Says `sentence` in the page's live region (nothing while the region is not on the page).
pub fn announce(sentence: String) {
    if let Some(region) = REGION.with(Cell::get) {
        say(region, sentence);
    }
}

fn say(Region { text, shown }: Region, sentence: String) {
    // Emptied first, so the same sentence twice is still a change to announce; emptied
    // again once read (as react-aria's announcer does), so it is not found later as
    // stale page text. A newer announcement is never cleared by an older timer.
    let Some(generation) = shown.try_update_value(|g| {
        *g = g.wrapping_add(1);
        *g
    }) else {
        return;
    };
    text.try_set(String::new());
    set_timeout(
        move || _ = text.try_set(sentence),
        Duration::from_millis(60),
    );
    set_timeout(
        move || {
            if shown.try_get_value() == Some(generation) {
                text.try_set(String::new());
            }
        },
        CLEAR_AFTER,
    );
}

/// A handle for saying sentences in the live region, from anywhere on the page (provided by the
/// app shell as context, so a surface asks for it rather than reaching for a global).
#[derive(Clone, Copy, Default)]
pub struct Announcements;

impl Announcements {
    pub fn new() -> Self {
        Announcements
    }

    /// Have screen readers hear `sentence` (politely, after what they are saying).
    pub fn say(&self, sentence: impl Into<String>) {
        let sentence = sentence.into();
        if !sentence.is_empty() {
            announce(sentence);
        }
    }
}

/// The page's [`Announcements`].
pub fn announcements() -> Announcements {
    Announcements
}

#[component]
pub fn Announcer() -> impl IntoView {
    let ctx = ctx();
    let text = RwSignal::new(String::new());
    // (conversation id, was a turn running in it) at the last look.
    let last_seen = StoredValue::new(None::<(String, bool)>);
    let region = Region {
        text,
        shown: StoredValue::new(0u32),
    };
    REGION.with(|r| r.set(Some(region)));
    on_cleanup(|| REGION.with(|r| r.set(None)));
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
            say(region, sentence);
        }
    });
    view! {
        <div class="visually-hidden announcer" role="status" aria-live="polite" aria-atomic="true">
            {move || text.get()}
        </div>
    }
}
