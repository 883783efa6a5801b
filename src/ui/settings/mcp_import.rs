//! Settings → MCP servers → "Import or export": the `mcpServers` JSON of Claude Desktop and
//! Cursor in a text box, Import and Export, and what the last import did
//! (`ImportReport::summary`). Imported servers are connected as servers added by hand are.

use leptos::prelude::*;

use crate::ui::context::ctx;
use crate::ui::fields::TextArea;

#[component]
pub fn ImportExport() -> impl IntoView {
    let ctx = ctx();
    let text = RwSignal::new(String::new());
    let report = RwSignal::new(None::<Result<String, String>>);
    // Opened by an action, so its report shows where the user clicked.
    let open = RwSignal::new(false);
    let import = move |_| {
        let typed = text.get_untracked();
        report.set(Some(match ctx.mcp.import(&typed) {
            Ok(r) => {
                for cfg in r.imported.iter().filter(|c| c.enabled) {
                    ctx.mcp_runner.connect(&cfg.id);
                }
                Ok(r.summary())
            }
            Err(e) => Err(e.to_string()),
        }));
        open.set(true);
    };
    let export = move |_| {
        text.set(ctx.mcp.export());
        report.set(None);
        open.set(true);
    };
    let shown = move || {
        report.get().map(|r| match r {
            Ok(lines) => view! { <pre class="mcp-import-report">{lines}</pre> }.into_any(),
            Err(e) => view! { <p class="error mcp-import-report" role="alert">{e}</p> }.into_any(),
        })
    };
    view! {
        <details class="mcp-import-export" prop:open=move || open.get()>
            <summary>"Import or export (Claude Desktop / Cursor mcpServers JSON)"</summary>
            <TextArea
                label="mcpServers JSON"
                label_hidden=true
                class="mcp-import-text"
                rows=6
                verbatim=true
                placeholder="{\"mcpServers\": {\"name\": {\"url\": \"https://…\", \"headers\": {…}}}}"
                value=text
                on_input=move |v| text.set(v)
            />
            <div class="row">
                <button type="button" class="small mcp-import" on:click=import>"Import"</button>
                <button type="button" class="small mcp-export" on:click=export>"Export current servers"</button>
            </div>
            {shown}
        </details>
    }
}
