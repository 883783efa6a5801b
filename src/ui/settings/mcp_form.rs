//! Settings → MCP servers: the form that adds or edits a server. The form's text lives in a
//! `skiff_core::mcp::config::ServerForm`; its fields' labels, classes and placeholders are
//! core's ([`ServerField`]), and nothing is saved until `ServerForm::to_config` accepts every
//! field (its sentence shows under the form otherwise, with everything typed kept).

use leptos::prelude::*;
use skiff_core::mcp::config::{
    submit_label, ServerConfig, ServerField, ServerForm, TransportChoice, TRANSPORT_LABEL,
};

use crate::ui::context::ctx;
use crate::ui::fields::{EnumSelect, TextArea, TextField};

/// Add (no `initial`) or edit a server; `on_done` closes the form.
#[component]
pub fn ServerEditor(initial: Option<ServerConfig>, on_done: Callback<()>) -> impl IntoView {
    let ctx = ctx();
    let editing = initial.is_some();
    let base = initial.unwrap_or_else(|| ServerConfig::new("", "", ""));
    let form = RwSignal::new(ServerForm::from_config(&base));
    let base = StoredValue::new(base);
    let error = RwSignal::new(None::<String>);
    let save = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let existing = ctx.mcp.servers.get_untracked();
        let cfg = match form.with_untracked(|f| f.to_config(&base.get_value(), &existing)) {
            Ok(cfg) => cfg,
            Err(e) => {
                // Said under the form; what was typed stays, and so does the cursor.
                error.set(Some(e.to_string()));
                return;
            }
        };
        let id = if editing {
            let id = cfg.id.clone();
            ctx.mcp.update_server(cfg);
            id
        } else {
            ctx.mcp.insert_server(cfg)
        };
        ctx.mcp_runner.connect(&id);
        on_done.run(());
    };
    let field = move |f: ServerField| {
        let value = Signal::derive(move || form.with(|x| x.text(f).to_string()));
        let on_input = Callback::new(move |v: String| form.update(|x| x.set_text(f, v)));
        if f.multiline() {
            view! {
                <TextArea label=f.label() class=f.class() placeholder=f.placeholder() rows=2 verbatim=true value=value on_input=on_input />
            }
            .into_any()
        } else {
            view! {
                <TextField label=f.label() class=f.class() placeholder=f.placeholder() verbatim=true value=value on_input=on_input />
            }
            .into_any()
        }
    };
    view! {
        <form class="mcp-form" on:submit=save>
            {ServerField::BEFORE_TRANSPORT.map(field)}
            <EnumSelect<TransportChoice>
                label=TRANSPORT_LABEL
                class="mcp-transport"
                value=move || form.with(|f| f.transport)
                on_change=move |t: TransportChoice| form.update(|f| f.transport = t)
            />
            {ServerField::AFTER_TRANSPORT.map(field)}
            {move || error.get().map(|e| view! { <p class="error mcp-form-error" role="alert">{e}</p> })}
            <div class="row">
                <button type="submit" class="primary mcp-save">{submit_label(editing)}</button>
                <button type="button" on:click=move |_| on_done.run(())>"Cancel"</button>
            </div>
        </form>
    }
}
