//! Elicitation (a server asks the user for input and waits), exported to `page/elicit.js`.
//!
//! The tray's decisions are `skiff_core::mcp::elicit::Tray` (natively tested): here it lives
//! for the page's lifetime and every call hands JavaScript the effects to perform, as JSON
//! (`[{do: "add"|"draw"|"remove"|"answer"|"open", ...}]`). Nothing here paints or sends.
//!
//! Input reaching these functions is untrusted (the server's params, the form's values): a
//! value that does not read is treated as absent, never unwrapped.

use std::cell::RefCell;

use serde_json::Value;
use skiff_core::mcp::elicit::{Effect, Tray};
#[cfg(target_arch = "wasm32")]
use wasm_bindgen::prelude::*;

thread_local! {
    /// The questions on screen. One per page: the module is loaded once.
    static TRAY: RefCell<Tray> = RefCell::new(Tray::new());
}

fn effects(fx: Vec<Effect>) -> String {
    Value::Array(fx.iter().map(Effect::to_json).collect()).to_string()
}

fn with_tray(f: impl FnOnce(&mut Tray) -> Vec<Effect>) -> String {
    effects(TRAY.with(|t| f(&mut t.borrow_mut())))
}

fn parse(json: &str) -> Value {
    serde_json::from_str(json).unwrap_or(Value::Null)
}

fn str_of<'v>(v: &'v Value, k: &str) -> &'v str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

/// An event from the page (`ask` for `elicitation/create`, `ask-gone`, `notify` for
/// `notifications/elicitation/complete`), as its JSON text. Other events yield no effects.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn elicit_event(event_json: &str) -> String {
    let ev = parse(event_json);
    let server = str_of(&ev, "server");
    let null = Value::Null;
    let key = ev.get("key").unwrap_or(&null);
    let params = ev.get("params").unwrap_or(&null);
    let method = str_of(&ev, "method");
    with_tray(|tray| match str_of(&ev, "kind") {
        "ask" if method == skiff_core::mcp::elicit::CREATE_METHOD => tray.ask(
            server,
            str_of(&ev, "name"),
            key.clone(),
            params,
            str_of(&ev, "raw"),
        ),
        "ask-gone" => tray.gone(server, key),
        "notify" if method == skiff_core::mcp::elicit::COMPLETE_NOTIFICATION => {
            tray.complete(server, params)
        }
        _ => Vec::new(),
    })
}

/// The user clicked `act` on entry `id`; `pairs_json` is its form's `[[name, value], ...]`.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn elicit_act(id: &str, act: &str, pairs_json: &str) -> String {
    let pairs: Vec<(String, String)> = serde_json::from_str(pairs_json).unwrap_or_default();
    with_tray(|tray| tray.act(id, act, &pairs))
}

/// After an `open` effect: whether the browser opened the tab.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn elicit_opened(id: &str, ok: bool) -> String {
    with_tray(|tray| tray.opened(id, ok))
}
