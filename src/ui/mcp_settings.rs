//! MCP servers in Settings: each server with a live status dot and message, add / edit /
//! remove, retry now, the tools it offers with a "try" form that shows the raw result (the way a
//! server author checks their server), and import / export of the `mcpServers` JSON that Claude
//! Desktop and Cursor use.

//!
//! What a form may save is decided by `skiff_core::mcp::config::ServerForm`; names,
//! descriptions and messages a server sends are shown through `skiff_core::display::text`.

use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::display::text;
use skiff_core::format::{decimal, fixed};
use skiff_core::mcp::backoff::HealthStatus;
use skiff_core::mcp::config::{
    import_export_html, tools_html, try_out_html, ServerConfig, ServerForm, TryState, TryTool,
};
use wasm_bindgen::JsCast;

use super::clock_hook::use_timestamp;
use super::context::ctx;
use super::keyed_list::keyed_list;
use super::when::When;
use crate::platform::clock;
use crate::platform::form::{act_of, inner_form_pairs, redraw};

#[component]
pub fn McpSettings() -> impl IntoView {
    let ctx = ctx();
    // For "reconnecting in N s" and "last answer N s ago" while Settings is open.
    let now = use_timestamp(Duration::from_millis(500));
    let adding = RwSignal::new(false);
    view! {
        <section class="mcp-section">
            <p class="hint">
                "Skiff reaches MCP servers straight from this page over Streamable HTTP, HTTP+SSE or WebSocket. The server must allow this page's origin (CORS), or set a CORS proxy prefix."
            </p>
            <p class="mcp-summary">
                {move || ctx.mcp.summary().sentence()}
            </p>
            <ul class="mcp-servers">
                {keyed_list(
                    move || ctx.mcp.servers.get(),
                    // By id: an edited server keeps its row (its open tool list, typed
                    // arguments, a confirmation), and the row reads its settings as they
                    // change.
                    |c| c.id.clone(),
                    move |cfg| view! { <ServerRow cfg=cfg now=now /> },
                )}
            </ul>
            {move || ctx.mcp.servers.with(Vec::is_empty).then(|| view! { <p class="muted">"No MCP servers yet."</p> })}
            <When
                when=move || adding.get()
                fallback=move || view! { <button class="primary mcp-add-open" on:click=move |_| adding.set(true)>"Add server"</button> }
            >
                <ServerForm initial=None on_done=Callback::new(move |_| adding.set(false)) />
            </When>
            <ImportExport />
        </section>
    }
}

#[component]
fn ServerRow(cfg: ServerConfig, now: Signal<f64>) -> impl IntoView {
    let ctx = ctx();
    let surfaces = super::mcp::surfaces();
    let id = StoredValue::new(cfg.id.clone());
    let live = ctx.mcp.live_for(&cfg.id);
    let editing = RwSignal::new(false);
    let show_tools = RwSignal::new(false);
    let confirm_remove = RwSignal::new(false);
    let status = move || {
        live.map(|l| l.health.get().status)
            .unwrap_or(HealthStatus::Idle)
    };
    let status_text = move || {
        let s = status();
        // `now` only schedules the re-render; the tick can be 500 ms old, and a countdown
        // computed from it showed "in 2 s" for a 1 s wait.
        now.track();
        let now_ms = clock::now_ms();
        // An error status carries the server's own words.
        let mut text = text::prose(&s.describe(now_ms)).into_owned();
        if let Some(checked) = live.and_then(|l| l.health.get().last_checked_ms) {
            let ago = fixed(((now_ms - checked) / 1000.0).max(0.0), 0);
            text.push_str(&format!(" · last answer {ago} s ago"));
        }
        text
    };
    let negotiated = move || {
        live.and_then(|l| l.negotiated.get())
            .map(|(era, version)| format!("protocol {} ({})", text::name(&version), era.as_str()))
    };
    let server_info = move || {
        live.and_then(|l| l.server_info.get())
            .map(|i| text::name(&i).into_owned())
    };
    // The row's server as stored now (tracked): name, address and switches follow edits.
    let current = move |f: fn(&ServerConfig) -> String| {
        ctx.mcp.servers.with(|all| {
            all.iter()
                .find(|c| c.id == id.get_value())
                .map(f)
                .unwrap_or_default()
        })
    };
    let flag = move |f: fn(&ServerConfig) -> bool| {
        ctx.mcp
            .servers
            .with(|all| all.iter().any(|c| c.id == id.get_value() && f(c)))
    };
    let toggle_enabled = move |_| {
        let Some(mut c) = ctx.mcp.server(&id.get_value()) else {
            return;
        };
        c.enabled = !c.enabled;
        let on = c.enabled;
        ctx.mcp.update_server(c);
        if on {
            ctx.mcp_runner.connect(&id.get_value());
        } else {
            ctx.mcp_runner.disconnect(&id.get_value());
        }
    };
    let toggle_send = move |ev| {
        if let Some(mut c) = ctx.mcp.server(&id.get_value()) {
            c.send_instructions = event_target_checked(&ev);
            ctx.mcp.update_server(c);
        }
    };
    // What the server says about using it, shown as its words (prose rules: no direction
    // overrides or invisible characters) with the switch that sends it to the model.
    let instructions = move || {
        live.and_then(|l| l.instructions.get())
            .filter(|t| !t.trim().is_empty())
            .map(|t| text::prose(&t).into_owned())
    };
    view! {
        <li class="mcp-server" data-server-name=move || current(|c| c.name.clone()) data-status=move || status().as_str()>
            <div class="mcp-server-head">
                <span class="status-dot" title=move || status().as_str()></span>
                {move || live.and_then(|l| l.icon.get()).map(|src| view! { <img class="mcp-icon" src=src alt="" width="20" height="20" /> })}
                <div class="mcp-server-id">
                    <strong>{move || text::name(&current(|c| c.name.clone())).into_owned()}</strong>
                    <small class="muted">{move || text::name(&current(|c| c.url.clone())).into_owned()}</small>
                </div>
                <label class="mcp-enabled" title="Enabled">
                    <input type="checkbox" prop:checked=move || flag(|c| c.enabled) on:change=toggle_enabled />
                    "on"
                </label>
            </div>
            <div class="mcp-status-text" role="status">{status_text}</div>
            {move || live.and_then(|l| l.auth_note.get()).map(|t| view! { <div class="mcp-auth-note muted">{t}</div> })}
            <div class="mcp-protocol muted">
                {move || {
                    [negotiated(), live.and_then(|l| l.transport.get()), server_info()]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join(" · ")
                }}
            </div>
            <div class="row mcp-actions">
                <button class="small mcp-retry" on:click=move |_| ctx.mcp_runner.retry_now(&id.get_value())>"Retry now"</button>
                <button class="small mcp-toggle-tools" on:click=move |_| show_tools.update(|s| *s = !*s)>
                    {move || {
                        let n = live.map(|l| l.tools.with(Vec::len)).unwrap_or(0);
                        format!("Tools ({n})")
                    }}
                </button>
                // Resources, prompts and roots live in the on-demand MCP module (src/extras).
                <button class="small mcp-browse" on:click=move |_| surfaces.open_browser(id.get_value())>"Resources"</button>
                <button class="small mcp-roots" on:click=move |_| surfaces.open_roots(id.get_value())>"Roots"</button>
                <button class="small mcp-account" on:click=move |_| super::extras_host::open("auth", id.get_value())>"Account"</button>
                <button class="small mcp-edit" on:click=move |_| editing.update(|e| *e = !*e)>"Edit"</button>
                <When
                    when=move || confirm_remove.get()
                    fallback=move || view! { <button class="small mcp-remove" on:click=move |_| confirm_remove.set(true)>"Remove"</button> }
                >
                    <span>"Remove this server?"</span>
                    <button class="danger small mcp-remove-confirm" on:click=move |_| {
                        let id = id.get_value();
                        ctx.mcp_runner.disconnect(&id);
                        ctx.mcp.remove_server(&id);
                        // A server added later under this id must not inherit its approvals.
                        ctx.settings.settings.update(|s| {
                            s.approvals.forget_server(&id);
                        });
                    }>"Remove"</button>
                    <button class="small" on:click=move |_| confirm_remove.set(false)>"Cancel"</button>
                </When>
            </div>
            // Plain closures over one flag each (a <When> per toggle costs page bytes).
            {move || editing.get().then(|| view! {
                <ServerForm initial=ctx.mcp.server(&id.get_value()) on_done=Callback::new(move |_| editing.set(false)) />
            })}
            {move || show_tools.get().then(|| view! { <ToolList server_id=id.get_value() /> })}
            <When when=move || instructions().is_some()>
                <details class="mcp-instructions">
                    <summary>"Instructions from the server"</summary>
                    <p class="mcp-instructions-text">{instructions}</p>
                    <label class="check">
                        <input type="checkbox" class="mcp-send-instructions" prop:checked=move || flag(|c| c.send_instructions) on:change=toggle_send />
                        "Send them to the model with this server's tools"
                    </label>
                </details>
            </When>
            <When when=move || live.map(|l| !l.log.with(Vec::is_empty)).unwrap_or(false)>
                <details class="mcp-log">
                    <summary>"Log"</summary>
                    <pre>{move || live.map(|l| text::prose(&l.log.get().join("\n")).into_owned()).unwrap_or_default()}</pre>
                </details>
            </When>
        </li>
    }
}

/// The server's tools, each with a "try" form that shows the raw result (HTML text from
/// core, `tools_html`). Redrawn whole when the tool list changes (rare), which resets open
/// forms; a running call updates only its tool's outcome line, found by name, so a re-list
/// during the call does not send its result to another tool.
#[component]
fn ToolList(server_id: String) -> impl IntoView {
    let ctx = ctx();
    let live = ctx.mcp.live_for(&server_id);
    let server_id = StoredValue::new(server_id);
    let node = NodeRef::<leptos::html::Div>::new();
    // The names as drawn, for `call:N`.
    let names = StoredValue::new(Vec::<String>::new());
    let html = move || {
        let tools = live.map(|l| l.tools.get()).unwrap_or_default();
        let rows: Vec<(String, String, String)> = tools
            .iter()
            .map(|t| {
                (
                    t.name.to_string(),
                    t.description.as_deref().unwrap_or("").to_string(),
                    serde_json::to_string_pretty(&*t.input_schema).unwrap_or_default(),
                )
            })
            .collect();
        names.set_value(rows.iter().map(|r| r.0.clone()).collect());
        let list: Vec<TryTool<'_>> = rows
            .iter()
            .map(|(name, description, schema)| TryTool {
                name,
                description,
                schema,
            })
            .collect();
        tools_html(&list)
    };
    // The `li` of tool `name` as drawn now, if it still is.
    let tool_li = move |name: &str| -> Option<web_sys::Element> {
        let all = node
            .get_untracked()?
            .query_selector_all("li.mcp-tool")
            .ok()?;
        (0..all.length())
            .filter_map(|i| all.item(i)?.dyn_into::<web_sys::Element>().ok())
            .find(|li| li.get_attribute("data-tool").as_deref() == Some(name))
    };
    let show = move |name: &str, state: &TryState| {
        let Some(li) = tool_li(name) else { return };
        let running = matches!(state, TryState::Running(_));
        if let Some(b) = li.query_selector(".mcp-try-call").ok().flatten() {
            let _ = if running {
                b.set_attribute("disabled", "")
            } else {
                b.remove_attribute("disabled")
            };
        }
        if let Some(out) = li.query_selector(".mcp-try-out").ok().flatten() {
            out.set_inner_html(&try_out_html(state));
        }
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(i) = act_of(&ev).and_then(|a| a.strip_prefix("call:")?.parse::<usize>().ok())
        else {
            return;
        };
        let Some(name) = names.with_value(|n| n.get(i).cloned()) else {
            return;
        };
        let typed = tool_li(&name)
            .and_then(|li| li.query_selector("textarea").ok().flatten())
            .and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
            .map(|t| t.value())
            .unwrap_or_default();
        let parsed = match serde_json::from_str::<serde_json::Value>(&typed) {
            Ok(serde_json::Value::Object(map)) => map,
            Ok(_) => {
                return show(
                    &name,
                    &TryState::Failed(
                        "Arguments must be a JSON object, like {\"message\": \"hi\"}.".into(),
                    ),
                )
            }
            Err(e) => {
                return show(
                    &name,
                    &TryState::Failed(format!("Arguments are not valid JSON: {e}.")),
                )
            }
        };
        show(&name, &TryState::Running(String::new()));
        spawn_local(async move {
            let progress_name = name.clone();
            let on_progress = move |done: f64, total: Option<f64>, message: Option<String>| {
                let text = match total {
                    Some(t) => format!("{}/{}", decimal(done), decimal(t)),
                    None => decimal(done),
                };
                let text = match message {
                    Some(m) => format!("{text} — {m}"),
                    None => text,
                };
                show(&progress_name, &TryState::Running(text));
            };
            let result = ctx
                .mcp_runner
                .call_tool(&server_id.get_value(), &name, parsed, on_progress)
                .await;
            show(
                &name,
                &match result {
                    Ok(v) => TryState::Done(
                        serde_json::to_string_pretty(&v).unwrap_or_else(|_| v.to_string()),
                    ),
                    Err(e) => TryState::Failed(e.to_string()),
                },
            );
        });
    };
    view! { <div node_ref=node inner_html=html on:click=on_click></div> }
}

/// Add (no `initial`) or edit a server. Nothing is saved until every field reads correctly
/// (`ServerForm::to_config` decides; this shows its sentence). The form is HTML text from
/// core (`ServerForm::html`), read back from its values on submit.
#[component]
fn ServerForm(initial: Option<ServerConfig>, on_done: Callback<()>) -> impl IntoView {
    let ctx = ctx();
    let editing = initial.is_some();
    let base = initial.unwrap_or_else(|| ServerConfig::new("", "", ""));
    let html = ServerForm::from_config(&base).html(editing, None);
    let base = StoredValue::new(base);
    let node = NodeRef::<leptos::html::Div>::new();
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(el) = node.get_untracked() else {
            return;
        };
        let form = ServerForm::from_pairs(&inner_form_pairs(&el));
        let existing = ctx.mcp.servers.get_untracked();
        let cfg = match form.to_config(&base.get_value(), &existing) {
            Ok(cfg) => cfg,
            Err(e) => {
                // Drawn again with what was typed and the sentence; the cursor goes back to
                // the button that was pressed.
                redraw(&el, &form.html(editing, Some(&e.to_string())), ".mcp-save");
                return;
            }
        };
        if editing {
            let id = cfg.id.clone();
            ctx.mcp.update_server(cfg);
            ctx.mcp_runner.connect(&id);
        } else {
            let id = ctx.mcp.insert_server(cfg);
            ctx.mcp_runner.connect(&id);
        }
        on_done.run(());
    };
    view! {
        <div
            node_ref=node
            inner_html=html
            on:submit=save
            on:click=move |ev| if act_of(&ev).as_deref() == Some("cancel") { on_done.run(()) }
        ></div>
    }
}

/// Import or export the `mcpServers` JSON (HTML text from core, `import_export_html`):
/// imported servers are connected as servers added by hand are.
#[component]
fn ImportExport() -> impl IntoView {
    let ctx = ctx();
    let node = NodeRef::<leptos::html::Div>::new();
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let act = act_of(&ev);
        let Some(el) = node.get_untracked() else {
            return;
        };
        let typed = el
            .query_selector("textarea")
            .ok()
            .flatten()
            .and_then(|t| t.dyn_into::<web_sys::HtmlTextAreaElement>().ok())
            .map(|t| t.value())
            .unwrap_or_default();
        let html = match act.as_deref() {
            Some("export") => import_export_html(&ctx.mcp.export(), None),
            Some("import") => match ctx.mcp.import(&typed) {
                Ok(r) => {
                    let mut lines = vec![format!("Imported {} server(s).", r.imported.len())];
                    for s in &r.skipped {
                        lines.push(format!(
                            "Not imported: {}: {}",
                            text::name(&s.name),
                            text::prose(&s.reason)
                        ));
                    }
                    for cfg in r.imported.iter().filter(|c| c.enabled) {
                        ctx.mcp_runner.connect(&cfg.id);
                    }
                    import_export_html(&typed, Some(Ok(&lines.join("\n"))))
                }
                Err(e) => import_export_html(&typed, Some(Err(&e.to_string()))),
            },
            _ => return,
        };
        el.set_inner_html(&html);
    };
    view! { <div node_ref=node inner_html=import_export_html("", None) on:click=on_click></div> }
}
