//! What the on-demand MCP module (`extras/`, contract in `src/extras/README.md`) may ask of the
//! page: `skiff_host(op, arg)`, exported to JavaScript as `wasmBindings.skiff_host`.
//!
//! The module decides what to show and what to send (its decisions are `skiff_core`'s, built
//! into the module); this only hands it the page's live server lists, performs its MCP
//! requests through the page's own sessions (one connection per server, with the page's
//! headers and health checks), and writes what the user chose into the conversation and the
//! composer. Every failure reaches the module as a sentence it shows.

use std::cell::{Cell, RefCell};

use leptos::prelude::*;
use serde_json::{json, Value};
use skiff_core::mcp::sampling_step::SampleCall;
use skiff_core::provider::{StepContext, StreamEvent};
use skiff_core::records::message::{Message, Role};
use skiff_core::seam::image_out;
use skiff_core::tools::result::DEFAULT_RESULT_CHAR_LIMIT;
use wasm_bindgen::prelude::*;

use super::context::Ctx;
use crate::platform::{clock, extras, ids};
use crate::runner::{attach, side_request};

/// How a file joins the composer's next message.
type AttachFn = Box<dyn Fn(web_sys::File)>;

thread_local! {
    static HOST: Cell<Option<Ctx>> = const { Cell::new(None) };
    /// The composer's "attach this file" (it owns the pending attachments).
    static ATTACH: RefCell<Option<AttachFn>> = const { RefCell::new(None) };
}

/// Called once the app's stores exist.
pub fn install(ctx: Ctx) {
    HOST.set(Some(ctx));
}

/// The composer registers how a file joins the next message.
pub fn on_attach(f: impl Fn(web_sys::File) + 'static) {
    ATTACH.with(|a| *a.borrow_mut() = Some(Box::new(f)));
}

/// Open one of the module's surfaces; a module that cannot load says why in a notice.
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

/// The module's request `op` with `arg` (a JSON string, or a `File` for `attach`): a Promise
/// of a JSON string, or a rejection with an `Error` whose message is a sentence.
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
    if op == "attach" {
        let file = arg
            .dyn_into::<web_sys::File>()
            .map_err(|_| "Only a file can be attached.".to_string())?;
        return ATTACH.with(|a| match &*a.borrow() {
            Some(add) => {
                add(file);
                Ok(Value::Null)
            }
            None => Err("Open a conversation first: attachments join the message box.".into()),
        });
    }
    let a: Value = serde_json::from_str(&arg.as_string().unwrap_or_default())
        .map_err(|e| format!("The MCP module sent the page something unreadable ({e})."))?;
    let server = a["server"].as_str().unwrap_or_default();
    let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
    match op {
        "servers" => Ok(servers(ctx)),
        "request" => {
            let params = Some(a["params"].clone()).filter(|p| !p.is_null());
            let mcp = ctx.mcp_runner;
            mcp.request(server, text(&a["method"]), params)
                .await
                .map_err(|e| e.to_string())
        }
        "answer" => {
            let key = a["key"].as_u64().ok_or("The answer names no request.")?;
            let answer = match a.get("error") {
                Some(e) => Err((e["code"].as_i64().unwrap_or(-32603), text(&e["message"]))),
                None => Ok(a["result"].clone()),
            };
            ctx.mcp_runner.answer_ask(server, key, answer);
            Ok(Value::Null)
        }
        "roots" => {
            ctx.mcp_runner
                .notify(server, "notifications/roots/list_changed");
            Ok(Value::Null)
        }
        "insert" => insert(ctx, &a),
        "sample" => sample(ctx, &a).await,
        "models" => Ok(models(ctx)),
        _ => Err(format!(
            "The page has no \u{201c}{op}\u{201d} for the MCP module."
        )),
    }
}

/// Every server the page knows, with what the module shows of it.
/// The user's provider profiles (their stored form, keys left out) and the open conversation's
/// model, for a sampling card's "Answer with" list (`skiff_core::mcp::ask_ui::model_pick`).
fn models(ctx: Ctx) -> Value {
    let choice = ctx
        .convs
        .current
        .get_untracked()
        .and_then(|c| c.meta.try_with_untracked(|m| m.model.clone()).flatten());
    ctx.settings.settings.with_untracked(|s| {
        let current = s
            .resolution(choice.as_ref())
            .map(|r| json!({"profile_id": r.target.profile_id, "model": r.target.model}));
        let mut profiles = s.profiles.clone();
        for p in &mut profiles {
            p.api_key.clear();
        }
        // As text, through the serializer the settings are stored with (no new page code).
        let profiles = serde_json::to_string(&profiles).unwrap_or_default();
        json!({"current": current, "profiles": profiles})
    })
}

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

/// `{role, text}` messages, in order, for the conversation or a request.
fn messages(a: &Value, now: f64) -> Vec<Message> {
    let list = a["messages"].as_array().cloned().unwrap_or_default();
    list.iter()
        .map(|m| {
            let role = match m["role"].as_str() {
                Some("assistant") => Role::Assistant,
                Some("system") => Role::System,
                _ => Role::User,
            };
            let text = m["text"].as_str().unwrap_or_default().to_string();
            Message::new(ids::new_id(), role, text, now)
        })
        .collect()
}

/// A prompt's messages join the open conversation, as the prompt gave their roles.
fn insert(ctx: Ctx, a: &Value) -> Result<Value, String> {
    // As sending does: with none open, the messages start a new one.
    let conv = ctx
        .convs
        .current
        .get_untracked()
        .unwrap_or_else(|| ctx.convs.create(None));
    let list = a["messages"].as_array().cloned().unwrap_or_default();
    for (m, raw) in messages(a, clock::now_ms()).iter().zip(list) {
        let live = ctx
            .convs
            .push_message(&conv, m)
            .ok_or("The conversation was deleted meanwhile.")?;
        // A prompt's images join the message as the model's own images do: checked
        // (`image_out`), stored once by hash, shown as chips and sent to vision models.
        for img in raw["images"].as_array().into_iter().flatten() {
            let mime = img["mime"].as_str().unwrap_or_default();
            let event = image_out::from_base64(mime, img["b64"].as_str().unwrap_or_default());
            let store = ctx.convs;
            leptos::task::spawn_local(async move {
                let note = match event {
                    StreamEvent::Image(image) => {
                        attach::keep_returned(store, conv, live, image).await.err()
                    }
                    StreamEvent::Content(note) => Some(note),
                    _ => None,
                };
                // What could not be kept is said in the message, as for a model's image.
                if let Some(note) = note {
                    live.content.update(|t| t.push_str(&note));
                    store.save_throttled(&conv);
                }
            });
        }
    }
    ctx.convs.save(&conv);
    Ok(Value::Null)
}

/// A server's sampling request, approved by the user (`mcp::sampling_step::SampleCall`, as
/// the module mapped it): its messages and tools through the user's model, streamed to the
/// module as `chunk` events. The model's tool calls are returned, never run: the server runs
/// them.
async fn sample(ctx: Ctx, a: &Value) -> Result<Value, String> {
    let call = SampleCall::from_host(a)?;
    // The open conversation's profile and model, as its own requests resolve them.
    let choice = ctx
        .convs
        .current
        .get_untracked()
        .and_then(|c| c.meta.try_with_untracked(|m| m.model.clone()).flatten());
    // The model the user picked on the card (`ask_ui::model_pick`), else the conversation's.
    let picked = serde_json::from_value(a["choice"].clone()).ok();
    let settings = ctx
        .settings
        .settings
        .get_untracked()
        .for_conversation(picked.as_ref().or(choice.as_ref()));
    if !settings.is_configured() {
        return Err("No model is set up: choose a provider in Settings first.".into());
    }
    let mut provider = settings.provider().map_err(|e| e.to_string())?;
    call.apply(provider.params_mut());
    let tools = call.tool_specs();
    let step = StepContext {
        system_template: "",
        system_prompt: &call.system,
        recap: "",
        history: &call.messages,
        tools: &tools,
        mode: call.tool_mode(),
        result_char_limit: DEFAULT_RESULT_CHAR_LIMIT,
        vision: false,
    };
    let id = a["id"].clone();
    let on_text = |t: &str| extras::event(&json!({"kind": "chunk", "id": id, "text": t}));
    let answer = side_request::answer_streamed(&provider, &step, &on_text)
        .await
        .map_err(|e| e.to_string())?;
    let calls: Vec<Value> = answer
        .calls
        .iter()
        .map(|c| json!({"id": c.id, "name": c.name, "arguments": c.arguments}))
        .collect();
    Ok(
        json!({"text": answer.text, "model": settings.target.model, "finish": answer.finish, "calls": calls}),
    )
}
