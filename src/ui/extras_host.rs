//! What the on-demand MCP module (`extras/`, contract in `src/extras/README.md`) may ask of the
//! page: `skiff_host(op, arg)`, exported to JavaScript as `wasmBindings.skiff_host`.
//!
//! Only the OAuth sign-in is left in that module; every other MCP surface is a Leptos
//! component of the page (`ui::mcp`). This hands the module the page's live server list and
//! takes what its sign-in decided for a server. Every failure reaches the module as a
//! sentence it shows.

use std::cell::Cell;

use leptos::prelude::*;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use super::context::Ctx;
use crate::platform::extras;

thread_local! {
    static HOST: Cell<Option<Ctx>> = const { Cell::new(None) };
}

// OAuth: the module's host, from the page's start.

/// Called once the app's stores exist.
pub fn install(ctx: Ctx) {
    HOST.set(Some(ctx));
}

/// Open one of the module's surfaces (the Account dialog); a module that cannot load says why
/// in a notice.
pub fn open(op: &'static str, arg: String) {
    let Some(ctx) = HOST.get() else { return };
    let failed = move |why: String| {
        ctx.notices.push(crate::stores::notices::Level::Error, format!(
            "Skiff's MCP module could not open ({why}). It is fetched the first time it is used: reload while online."
        ))
    };
    match extras::open(op, &arg) {
        Ok(p) => leptos::task::spawn_local(async move {
            if let Err(e) = wasm_bindgen_futures::JsFuture::from(p).await {
                failed(sentence(&e));
            }
        }),
        Err(e) => failed(sentence(&e)),
    }
}

fn sentence(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .unwrap_or_else(|| "unknown error".into())
}

/// The module's request `op` with `arg` (a JSON string): a Promise of a JSON string, or a
/// rejection with an `Error` whose message is a sentence.
#[wasm_bindgen]
pub fn skiff_host(op: String, arg: JsValue) -> js_sys::Promise {
    wasm_bindgen_futures::future_to_promise(async move {
        host(&op, arg)
            .await
            .map(|v| JsValue::from_str(&v.to_string()))
            .map_err(|e| js_sys::Error::new(&e).into())
    })
}

async fn host(op: &str, arg: JsValue) -> Result<Value, String> {
    let ctx = HOST
        .get()
        .ok_or("Skiff has not finished starting; try again in a moment.")?;
    let a: Value = serde_json::from_str(&arg.as_string().unwrap_or_default())
        .map_err(|e| format!("The MCP module sent the page something unreadable ({e})."))?;
    let server = a["server"].as_str().unwrap_or_default();
    match op {
        // OAuth: which servers there are (the sign-in finds those its credentials cover).
        "servers" => Ok(servers(ctx)),
        // OAuth: whether this server's requests carry its token, what its card says, and
        // whether to connect now (after a sign-in).
        "auth" => {
            crate::runner::mcp::auth::set(server, a["enabled"].as_bool().unwrap_or(false));
            if let Some(live) = ctx.mcp.live_for(server) {
                live.auth_note.set(a["status"].as_str().map(str::to_string));
            }
            if a["connect"].as_bool() == Some(true) {
                ctx.mcp_runner.connect(server);
            }
            Ok(Value::Null)
        }
        _ => Err(format!(
            "The page has no \u{201c}{op}\u{201d} for the MCP module."
        )),
    }
}

// OAuth: every server the page knows, with what the sign-in reads of it.
fn servers(ctx: Ctx) -> Value {
    let store = ctx.mcp;
    let list: Vec<Value> = store.live.with_untracked(|l| {
        l.iter()
            .map(|(id, live)| {
                let negotiated = live.negotiated.get_untracked();
                let config = store.server(id);
                json!({
                    "id": id,
                    "name": store.server_name(id).unwrap_or_else(|| id.clone()),
                    "url": config.as_ref().map(|c| c.url.clone()),
                    "transport": config.as_ref().map(|c| c.transport.as_str()),
                    "proxy": config.and_then(|c| c.proxy),
                    "connected": live.health.with_untracked(|h| matches!(h.status, skiff_core::mcp::backoff::HealthStatus::Connected { .. })),
                    "version": negotiated.map(|n| n.1),
                    "instructions": live.instructions.get_untracked(),
                    "capabilities": live.capabilities.get_untracked(),
                    "resources": live.resources.get_untracked(),
                    "templates": live.resource_templates.get_untracked(),
                    "prompts": live.prompts.get_untracked(),
                })
            })
            .collect()
    });
    Value::Array(list)
}
