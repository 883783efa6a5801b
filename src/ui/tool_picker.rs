//! The chat header's tool picker: which MCP servers and tools this conversation may use.
//! Everything connected is on by default; switches are saved with the conversation.
//! Server and tool names come from servers and are shown through `skiff_core::display::text`.

use leptos::prelude::*;
use skiff_core::display::text;
use skiff_core::mcp::down_badge::down_badge;
use skiff_core::settings::TurnSettings;
use skiff_core::tools::chip::tool_chip;

use super::context::ctx;
use super::popover;
use super::when::When;

#[component]
pub fn ToolPicker() -> impl IntoView {
    let ctx = ctx();
    let open = RwSignal::new(false);
    let toggle = NodeRef::<leptos::html::Button>::new();
    let index = ctx.mcp.tool_index();
    // The count, or "off" when the conversation's model is sent no tools (core decides).
    let chip = move || {
        let overrides = ctx.convs.current_overrides();
        let enabled = index.with(|i| i.enabled(&overrides).count());
        let mode = ctx
            .convs
            .current
            .get()
            .map(|conv| {
                let (choice, mask, project) = conv
                    .meta
                    .with(|m| (m.model.clone(), m.mask.clone(), m.project.clone()));
                ctx.settings.settings.with(|s| {
                    TurnSettings::resolve(s, choice.as_ref(), mask.as_ref(), project.as_deref())
                        .settings
                        .resolved_tool_mode()
                })
            })
            .unwrap_or_else(|| ctx.settings.settings.with(|s| s.resolved_tool_mode()));
        tool_chip(enabled, mode)
    };
    // Configured servers, then in-page ones (built-in tools), as (id, name); only connected
    // servers have tools to switch.
    let servers = move || {
        let connected = ctx.mcp.connected_servers().get();
        let configured = ctx.mcp.servers.with(|s| {
            s.iter()
                .map(|c| (c.id.clone(), c.name.clone()))
                .collect::<Vec<_>>()
        });
        configured
            .into_iter()
            .chain(ctx.mcp.in_page.get())
            .filter(|(id, _)| connected.contains(id))
            .collect::<Vec<_>>()
    };
    // Tools are for a model: with no provider to send them to (a first visit), a count of
    // the built-in tools would only puzzle.
    let any_server = move || {
        ctx.settings.settings.with(|s| s.is_configured())
            && (!ctx.mcp.servers.with(Vec::is_empty) || !ctx.mcp.in_page.with(Vec::is_empty))
    };
    // Enabled servers that are down, by name: said in the header, not only as fewer tools; a
    // server that only waits for a sign-in is named as such (`down_badge`).
    let badge = move || {
        ctx.mcp.servers.with(|s| {
            let (mut down, mut sign_in) = (Vec::new(), Vec::new());
            for c in s.iter().filter(|c| c.enabled) {
                let Some(live) = ctx.mcp.live_for(&c.id) else {
                    continue;
                };
                if !live.health.with(|h| h.status.is_down()) {
                    continue;
                }
                let name = text::name(&c.name).into_owned();
                if live.needs_sign_in.get() {
                    sign_in.push(name);
                } else {
                    down.push(name);
                }
            }
            down_badge(&down, &sign_in)
        })
    };
    // A click anywhere outside the picker closes it, as Escape does.
    let root = NodeRef::<leptos::html::Div>::new();
    popover::close_on_outside_click(root, open);
    view! {
        <When when=any_server>
            <div class="tool-picker" node_ref=root on:keydown=move |ev| popover::escape_closes(&ev, open, toggle)>
                <button
                    node_ref=toggle
                    class="small tool-picker-toggle"
                    aria-expanded=move || open.get().to_string()
                    title=move || chip().title
                    on:click=move |_| open.update(|o| *o = !*o)
                >
                    {move || chip().label}
                </button>
                {move || {
                    badge().map(|what| view! {
                        <button
                            class="small mcp-down"
                            title="Open Settings → MCP servers"
                            on:click=move |_| ctx.show_settings.set(true)
                        >
                            {what}
                        </button>
                    })
                }}
                <When when=move || open.get()>
                    <div class="tool-picker-panel" role="dialog" aria-label="Tools for this conversation">
                        {move || {
                            let list = servers();
                            if list.is_empty() {
                                return view! { <p class="muted">"No MCP server is connected."</p> }.into_any();
                            }
                            let overrides = ctx.convs.current_overrides();
                            let discovery = view! {
                                <label class="tool-discovery" title="The model gets a one-line list of the tools and a find_tools tool that loads the full schemas it needs, instead of every schema on every request">
                                    <input
                                        type="checkbox"
                                        checked=overrides.discovery
                                        on:change=move |ev| ctx.convs.set_tool_discovery(event_target_checked(&ev))
                                    />
                                    "Load tools on demand"
                                </label>
                            };
                            let servers_view = list.into_iter()
                                .map(|(server_id, server_name)| {
                                    let id = StoredValue::new(server_id.clone());
                                    let server_on = overrides.server_enabled(&server_id);
                                    let tools = ctx.mcp.live_for(&server_id).map(|l| l.tools.get()).unwrap_or_default();
                                    let tool_rows = tools
                                        .into_iter()
                                        .map(|t| {
                                            let name = StoredValue::new(t.name.to_string());
                                            let on = overrides.tool_enabled(&server_id, &t.name);
                                            view! {
                                                <label class="tool-switch">
                                                    <input
                                                        type="checkbox"
                                                        checked=on
                                                        disabled=!server_on
                                                        on:change=move |ev| ctx.convs.set_tool_switch(&id.get_value(), Some(&name.get_value()), event_target_checked(&ev))
                                                    />
                                                    <code>{text::name(&t.name).into_owned()}</code>
                                                </label>
                                            }
                                        })
                                        .collect_view();
                                    view! {
                                        <fieldset class="tool-server" data-server-name=server_name.clone()>
                                            <legend>
                                                <label>
                                                    <input
                                                        type="checkbox"
                                                        checked=server_on
                                                        on:change=move |ev| ctx.convs.set_tool_switch(&id.get_value(), None, event_target_checked(&ev))
                                                    />
                                                    <strong>{text::name(&server_name).into_owned()}</strong>
                                                </label>
                                            </legend>
                                            {tool_rows}
                                        </fieldset>
                                    }
                                })
                                .collect_view();
                            view! { {discovery} {servers_view} }.into_any()
                        }}
                    </div>
                </When>
            </div>
        </When>
    }
}
