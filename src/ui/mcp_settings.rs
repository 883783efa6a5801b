//! MCP servers in Settings: each server with a live status dot and message, add / edit /
//! remove, retry now, the tools it offers with a "try" form that shows the raw result (the way a
//! server author checks their server), and import / export of the `mcpServers` JSON that Claude
//! Desktop and Cursor use.

//!
//! What a form may save is decided by `skiff_core::mcp::config::ServerForm`; names,
//! descriptions and messages a server sends are shown through `skiff_core::display::text`.

use std::time::Duration;

use leptos::prelude::*;
use skiff_core::display::text;
use skiff_core::format::fixed;
use skiff_core::mcp::backoff::HealthStatus;
use skiff_core::mcp::config::ServerConfig;

use super::clock_hook::use_timestamp;
use super::context::ctx;
use super::fields::Checkbox;
use super::keyed_list::keyed_list;
use super::settings::{ImportExport, ServerEditor, ToolList};
use super::when::When;
use crate::platform::clock;

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
                <ServerEditor initial=None on_done=Callback::new(move |_| adding.set(false)) />
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
    let show_account = RwSignal::new(false);
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
    let toggle_send = move |on: bool| {
        if let Some(mut c) = ctx.mcp.server(&id.get_value()) {
            c.send_instructions = on;
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
                // Resources and roots open on-demand chunks (ui::mcp).
                <button class="small mcp-browse" on:click=move |_| surfaces.open_browser(id.get_value())>"Resources"</button>
                <button class="small mcp-roots" on:click=move |_| surfaces.open_roots(id.get_value())>"Roots"</button>
                <button class="small mcp-account" on:click=move |_| show_account.set(true)>"Account"</button>
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
                <ServerEditor initial=ctx.mcp.server(&id.get_value()) on_done=Callback::new(move |_| editing.set(false)) />
            })}
            {move || show_tools.get().then(|| view! { <ToolList server_id=id.get_value() /> })}
            // The sign-in's dialog (OAuth): its one entry, loadable on demand.
            {move || show_account.get().then(|| super::account_dialog::account_dialog(
                id.get_value(),
                Callback::new(move |_| show_account.set(false)),
            ))}
            <When when=move || instructions().is_some()>
                <details class="mcp-instructions">
                    <summary>"Instructions from the server"</summary>
                    <p class="mcp-instructions-text">{instructions}</p>
                    <Checkbox
                        label="Send them to the model with this server's tools"
                        class="mcp-send-instructions"
                        checked=move || flag(|c| c.send_instructions)
                        on_change=toggle_send
                    />
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
