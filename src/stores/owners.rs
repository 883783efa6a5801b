//! The one ownership rule for reactive domain state, in code.
//!
//! Architecture Invariant: a store creates the signals it hands out under an owner it holds
//! (a child of the app's owner, and one child owner per item: a conversation, a message, an
//! MCP server), never under whichever component, effect or event handler called it, because
//! Leptos disposes everything created under an owner when that owner re-runs or goes away.
//! When the item goes, the store disposes its owner, so signals do not pile up for the life
//! of the page and a handle never outlives its data by more than one render pass.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::platform::clock;

/// A root owner for a store: a child of the owner running now (the app's, at start-up), so it
/// lives exactly as long as the app.
pub fn store_root() -> Owner {
    Owner::current().map(|o| o.child()).unwrap_or_default()
}

/// Dispose `owners` after the current render pass. Views that still show a removed item go
/// away in the render pass its removal triggers (Leptos runs effects as microtasks); waiting
/// one macrotask means nothing mounted can read a disposed signal.
pub fn dispose_later(owners: Vec<Owner>) {
    if owners.is_empty() {
        return;
    }
    spawn_local(async move {
        clock::sleep_ms(0).await;
        for o in owners {
            o.cleanup();
        }
    });
}
