//! Settings → MCP servers → Tools: each tool of a server with its schema and a "try" form that
//! shows the raw result, the way a server author checks their server. What a tool shows
//! (neutralised names and words), what the arguments box amounts to and the outcome line come
//! from `skiff_core::mcp::config::{TryTool, TryState, read_arguments}`.

use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::mcp::config::{read_arguments, TryState, TryTool};

use crate::ui::context::ctx;
use crate::ui::fields::TextArea;
use crate::ui::keyed_list::keyed_list;

/// The server's tools. A tool keeps its form (typed arguments, a running call) while it is
/// listed unchanged; one re-listed with another description or schema gets a fresh form.
#[component]
pub fn ToolList(server_id: String) -> impl IntoView {
    let ctx = ctx();
    let live = ctx.mcp.live_for(&server_id);
    let server_id = StoredValue::new(server_id);
    let tools = move || {
        live.map(|l| {
            l.tools
                .with(|ts| ts.iter().map(TryTool::of).collect::<Vec<_>>())
        })
        .unwrap_or_default()
    };
    view! {
        <ul class="mcp-tools">
            {keyed_list(tools, TryTool::key, move |t| try_form(server_id.get_value(), t))}
        </ul>
    }
}

fn try_form(server_id: String, tool: TryTool) -> AnyView {
    let ctx = ctx();
    let args = RwSignal::new("{}".to_string());
    let state = RwSignal::new(None::<TryState>);
    let name = StoredValue::new(tool.name.clone());
    let server_id = StoredValue::new(server_id);
    let call = move |_| {
        let parsed = match read_arguments(&args.get_untracked()) {
            Ok(map) => map,
            Err(failed) => return state.set(Some(failed)),
        };
        state.set(Some(TryState::Running(String::new())));
        spawn_local(async move {
            // The row may be gone by the time the server answers (`try_set`).
            let on_progress = move |done: f64, total: Option<f64>, message: Option<String>| {
                state.try_set(Some(TryState::progress(done, total, message.as_deref())));
            };
            let result = ctx
                .mcp_runner
                .call_tool(
                    &server_id.get_value(),
                    &name.get_value(),
                    parsed,
                    on_progress,
                )
                .await;
            state.try_set(Some(match result {
                Ok(v) => TryState::done(&v),
                Err(e) => TryState::Failed(e.to_string()),
            }));
        });
    };
    let running = move || state.with(|s| s.as_ref().is_some_and(TryState::is_running));
    let outcome = move || {
        state.with(|s| {
            s.as_ref().map(|s| {
                let text = s.text();
                match s {
                    TryState::Running(_) => {
                        view! { <span class="muted mcp-try-running">{text}</span> }.into_any()
                    }
                    TryState::Done(_) => {
                        view! { <pre class="mcp-try-result">{text}</pre> }.into_any()
                    }
                    TryState::Failed(_) => {
                        view! { <p class="error mcp-try-error">{text}</p> }.into_any()
                    }
                }
            })
        })
    };
    view! {
        <li class="mcp-tool" data-tool=tool.name>
            <details>
                <summary>
                    <code class="mcp-tool-name">{tool.shown_name}</code>
                    " "
                    <span class="muted">{tool.description}</span>
                </summary>
                <pre class="mcp-schema">{tool.schema}</pre>
                <TextArea
                    label="Arguments (JSON)"
                    class="mcp-try-args"
                    rows=3
                    verbatim=true
                    value=args
                    on_input=move |v| args.set(v)
                />
                <button type="button" class="small primary mcp-try-call" disabled=running on:click=call>"Call"</button>
                <div class="mcp-try-out">{outcome}</div>
            </details>
        </li>
    }
    .into_any()
}
