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
use skiff_core::mcp::config::{ServerConfig, ServerForm, TransportChoice};

use super::clock_hook::use_timestamp;
use super::context::ctx;
use super::keyed_list::keyed_list;
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
                <ServerForm initial=None on_done=Callback::new(move |_| adding.set(false)) />
            </When>
            <ImportExport />
        </section>
    }
}

#[component]
fn ServerRow(cfg: ServerConfig, now: Signal<f64>) -> impl IntoView {
    let ctx = ctx();
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

#[component]
fn ToolList(server_id: String) -> impl IntoView {
    let ctx = ctx();
    let live = ctx.mcp.live_for(&server_id);
    let server_id = StoredValue::new(server_id);
    // Keyed by everything a row shows: a re-list (a server's `list_changed`, a reconnect)
    // that leaves a tool as it was keeps its row, with the arguments typed and a call in
    // flight; rebuilding every row lost the result of a call made during a re-list.
    let rows = move || {
        live.map(|l| l.tools.get())
            .unwrap_or_default()
            .into_iter()
            .map(|t| {
                (
                    t.name.to_string(),
                    text::prose(t.description.as_deref().unwrap_or("")).into_owned(),
                    serde_json::to_string_pretty(&*t.input_schema).unwrap_or_default(),
                )
            })
            .collect::<Vec<_>>()
    };
    view! {
        <ul class="mcp-tools">
            // Redrawn whole when the server's tool list changes (rare), which resets open "try"
            // forms: cheaper in page bytes than a keyed <For>.
            {move || rows().into_iter().map(|row| view! {
                <ToolTry server_id=server_id.get_value() name=row.0 description=row.1 schema=row.2 />
            }).collect_view()}
        </ul>
    }
}

#[derive(Clone, PartialEq)]
enum Try {
    Idle,
    Running { progress: Option<String> },
    Done(String),
    Failed(String),
}

#[component]
fn ToolTry(server_id: String, name: String, description: String, schema: String) -> impl IntoView {
    let ctx = ctx();
    let args = RwSignal::new("{}".to_string());
    let state = RwSignal::new(Try::Idle);
    let server_id = StoredValue::new(server_id);
    let tool = StoredValue::new(name.clone());
    let call = move |_| {
        let parsed = match serde_json::from_str::<serde_json::Value>(&args.get_untracked()) {
            Ok(serde_json::Value::Object(map)) => map,
            Ok(_) => {
                state.set(Try::Failed(
                    "Arguments must be a JSON object, like {\"message\": \"hi\"}.".into(),
                ));
                return;
            }
            Err(e) => {
                state.set(Try::Failed(format!("Arguments are not valid JSON: {e}.")));
                return;
            }
        };
        state.set(Try::Running { progress: None });
        spawn_local(async move {
            let on_progress = move |done: f64, total: Option<f64>, message: Option<String>| {
                let text = match total {
                    Some(t) => format!("{}/{}", decimal(done), decimal(t)),
                    None => decimal(done),
                };
                let text = match message {
                    Some(m) => format!("{text} — {}", text::prose(&m)),
                    None => text,
                };
                state.set(Try::Running {
                    progress: Some(text),
                });
            };
            let result = ctx
                .mcp_runner
                .call_tool(
                    &server_id.get_value(),
                    &tool.get_value(),
                    parsed,
                    on_progress,
                )
                .await;
            state.set(match result {
                Ok(v) => Try::Done(
                    text::prose(
                        &serde_json::to_string_pretty(&v).unwrap_or_else(|_| v.to_string()),
                    )
                    .into_owned(),
                ),
                Err(e) => Try::Failed(text::prose(&e.to_string()).into_owned()),
            });
        });
    };
    view! {
        <li class="mcp-tool" data-tool=name.clone()>
            <details>
                <summary><code class="mcp-tool-name">{text::name(&name).into_owned()}</code> " " <span class="muted">{description}</span></summary>
                <pre class="mcp-schema">{schema}</pre>
                <label class="field">
                    <span>"Arguments (JSON)"</span>
                    <textarea class="mcp-try-args" rows="3" spellcheck="false"
                        prop:value=move || args.get()
                        on:input=move |ev| args.set(event_target_value(&ev))
                    ></textarea>
                </label>
                <button class="small primary mcp-try-call" on:click=call disabled=move || matches!(state.get(), Try::Running { .. })>"Call"</button>
                {move || match state.get() {
                    Try::Idle => view! { <span></span> }.into_any(),
                    Try::Running { progress } => view! { <span class="muted mcp-try-running">{format!("Running… {}", progress.unwrap_or_default())}</span> }.into_any(),
                    Try::Done(text) => view! { <pre class="mcp-try-result">{text}</pre> }.into_any(),
                    Try::Failed(text) => view! { <p class="error mcp-try-error">{text}</p> }.into_any(),
                }}
            </details>
        </li>
    }
}

/// Add (no `initial`) or edit a server. Nothing is saved until every field reads correctly
/// (`ServerForm::to_config` decides; this shows its sentence).
#[component]
fn ServerForm(initial: Option<ServerConfig>, on_done: Callback<()>) -> impl IntoView {
    let ctx = ctx();
    let editing = initial.is_some();
    let base = initial.unwrap_or_else(|| ServerConfig::new("", "", ""));
    let form = RwSignal::new(ServerForm::from_config(&base));
    let error = RwSignal::new(None::<String>);
    let base = StoredValue::new(base);
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let existing = ctx.mcp.servers.get_untracked();
        let cfg = match form.with_untracked(|f| f.to_config(&base.get_value(), &existing)) {
            Ok(cfg) => cfg,
            Err(e) => {
                error.set(Some(e.to_string()));
                return;
            }
        };
        error.set(None);
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
    let text_input = move |label: &'static str,
                           class: &'static str,
                           get: fn(&ServerForm) -> &String,
                           set: fn(&mut ServerForm, String),
                           placeholder: &'static str| {
        view! {
            <label class="field">
                <span>{label}</span>
                <input class=class spellcheck="false" autocomplete="off" placeholder=placeholder
                    prop:value=move || form.with(|f| get(f).clone())
                    on:input=move |ev| form.update(|f| set(f, event_target_value(&ev))) />
            </label>
        }
    };
    view! {
        <form class="mcp-form" on:submit=save>
            {text_input("Server name", "mcp-name", |f| &f.name, |f, v| f.name = v, "my server")}
            {text_input("Server URL", "mcp-url", |f| &f.url, |f, v| f.url = v, "http://127.0.0.1:3001/mcp or ws://…")}
            <label class="field">
                <span>"Transport"</span>
                <select class="mcp-transport" on:change=move |ev| {
                    let t = event_target_value(&ev).parse().unwrap_or_default();
                    form.update(|f| f.transport = t);
                }>
                    {TransportChoice::ALL
                        .iter()
                        .map(|&t| view! { <option value=t.as_str() selected=move || form.with(|f| f.transport == t)>{t.label()}</option> })
                        .collect_view()}
                </select>
            </label>
            <label class="field">
                <span>"Headers (one \"Name: value\" per line)"</span>
                <textarea class="mcp-headers" rows="2" spellcheck="false" placeholder="Authorization: Bearer …"
                    prop:value=move || form.with(|f| f.headers.clone())
                    on:input=move |ev| form.update(|f| f.headers = event_target_value(&ev))></textarea>
            </label>
            {text_input("CORS proxy prefix (optional)", "mcp-proxy", |f| &f.proxy, |f, v| f.proxy = v, "http://127.0.0.1:8089/")}
            {text_input("Maximum reconnect attempts (empty: no limit)", "mcp-attempts", |f| &f.max_attempts, |f, v| f.max_attempts = v, "")}
            {text_input("Request timeout in seconds (empty: 60)", "mcp-timeout", |f| &f.request_timeout_s, |f, v| f.request_timeout_s = v, "60")}
            {text_input("Ping interval in seconds (empty: no pings)", "mcp-ping", |f| &f.ping_interval_s, |f, v| f.ping_interval_s = v, "")}
            {move || error.get().map(|e| view! { <p class="error mcp-form-error" role="alert">{e}</p> })}
            <div class="row">
                <button type="submit" class="primary mcp-save">{if editing { "Save and reconnect" } else { "Add and connect" }}</button>
                <button type="button" on:click=move |_| on_done.run(())>"Cancel"</button>
            </div>
        </form>
    }
}

#[component]
fn ImportExport() -> impl IntoView {
    let ctx = ctx();
    let text = RwSignal::new(String::new());
    let report = RwSignal::new(None::<Result<String, String>>);
    let import = move |_| {
        let before: Vec<String> = ctx
            .mcp
            .servers
            .with_untracked(|s| s.iter().map(|c| c.id.clone()).collect());
        match ctx.mcp.import(&text.get_untracked()) {
            Ok(r) => {
                let mut lines = vec![format!("Imported {} server(s).", r.imported.len())];
                for s in &r.skipped {
                    lines.push(format!(
                        "Not imported: {}: {}",
                        text::name(&s.name),
                        text::prose(&s.reason)
                    ));
                }
                report.set(Some(Ok(lines.join("\n"))));
                let new_ids: Vec<String> = ctx.mcp.servers.with_untracked(|s| {
                    s.iter()
                        .filter(|c| c.enabled && !before.contains(&c.id))
                        .map(|c| c.id.clone())
                        .collect()
                });
                for id in new_ids {
                    ctx.mcp_runner.connect(&id);
                }
            }
            Err(e) => report.set(Some(Err(e.to_string()))),
        }
    };
    view! {
        <details class="mcp-import-export">
            <summary>"Import or export (Claude Desktop / Cursor mcpServers JSON)"</summary>
            <textarea class="mcp-import-text" rows="6" spellcheck="false" placeholder="{\"mcpServers\": {\"name\": {\"url\": \"https://…\", \"headers\": {…}}}}"
                prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))></textarea>
            <div class="row">
                <button class="small mcp-import" on:click=import>"Import"</button>
                <button class="small mcp-export" on:click=move |_| { text.set(ctx.mcp.export()); report.set(None); }>"Export current servers"</button>
            </div>
            {move || report.get().map(|r| match r {
                Ok(t) => view! { <pre class="mcp-import-report">{t}</pre> }.into_any(),
                Err(e) => view! { <p class="error mcp-import-report" role="alert">{e}</p> }.into_any(),
            })}
        </details>
    }
}
