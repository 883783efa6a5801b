//! A server's roots editor (issue 13 item 9): the `file://` roots the user lets it know about.
//! The list is `ask_ui::RootsForm`'s (validation, what is stored and whether the server must
//! hear of it); saved, it is the exact `roots/list` result the connection runner answers from.
//!
//! Entry (called from `ui::mcp::McpSurfaceHost` only): [`roots_dialog`].

use leptos::prelude::*;
use skiff_core::mcp::ask_ui::{
    roots_key, RootsFocus, RootsForm, RootsIntent, RootsOutcome, ROOTS_TITLE_ID,
};
use wasm_bindgen::JsCast;

use super::McpSurfaces;
use crate::platform::storage;
use crate::ui::announcer::announcements;
use crate::ui::context::Ctx;
use crate::ui::dialog::Modal;

const URI_ID: &str = "ask-root-uri";
const NAME_ID: &str = "ask-root-name";

fn focus(target: RootsFocus) {
    request_animation_frame(move || {
        let el = match target {
            RootsFocus::Uri => document().get_element_by_id(URI_ID),
            RootsFocus::Remove(i) => document()
                .query_selector(&format!(".ask-root-remove[data-index=\"{i}\"]"))
                .ok()
                .flatten(),
        };
        if let Some(el) = el.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
            let _ = el.focus();
        }
    });
}

/// The roots editor for `server`.
pub fn roots_dialog(ctx: Ctx, surfaces: McpSurfaces, server: String) -> AnyView {
    let said = announcements();
    let name = ctx
        .mcp
        .server_name(&server)
        .unwrap_or_else(|| server.clone());
    let stored = storage::get(&roots_key(&server));
    if let Err(e) = &stored {
        ctx.notices.push(
            crate::stores::notices::Level::Error,
            format!("The roots could not be read: {e}"),
        );
        surfaces.roots.set(None);
        return ().into_any();
    }
    let form = RwSignal::new(RootsForm::new(
        &server,
        &name,
        stored.ok().flatten().as_deref(),
    ));
    let uri = RwSignal::new(String::new());
    let root_name = RwSignal::new(String::new());
    let close = move || surfaces.roots.set(None);
    let server = StoredValue::new(server);
    let act = move |intent: RootsIntent| {
        let out = form
            .try_update(|f| f.act(intent, &uri.get_untracked(), &root_name.get_untracked()))
            .unwrap_or(RootsOutcome::Nothing);
        let (u, n) = form.with_untracked(|f| {
            let v = f.view();
            (v.uri, v.name)
        });
        uri.set(u);
        root_name.set(n);
        match out {
            RootsOutcome::Nothing => {}
            RootsOutcome::Draw { focus: f } => focus(f),
            RootsOutcome::Close => close(),
            RootsOutcome::Save {
                key,
                value,
                announce,
            } => {
                if let Err(e) = storage::set(&key, &value) {
                    form.update(|f| f.failed(&RootsForm::not_saved(&e.to_string())));
                    focus(RootsFocus::Uri);
                    return;
                }
                form.update(RootsForm::stored);
                said.say(form.with_untracked(RootsForm::said_on_save));
                if announce {
                    ctx.mcp_runner
                        .notify(&server.get_value(), "notifications/roots/list_changed");
                }
                close();
            }
        }
    };
    let view = move || form.with(RootsForm::view);
    view! {
        <Modal
            label="Roots"
            labelled_by=ROOTS_TITLE_ID
            initial_focus="#ask-root-uri"
            class="ask-dialog ask-roots"
            on_close=move || act(RootsIntent::Cancel)
        >
            <h2 class="ask-title" id=ROOTS_TITLE_ID>
                "Roots for "
                <bdi class="ask-server">{move || view().server_name}</bdi>
            </h2>
            <p class="muted ask-lead">{move || view().lead}</p>
            {move || view().unreadable.map(|u| view! { <p class="error ask-unreadable" role="alert">{u}</p> })}
            {move || {
                let v = view();
                match v.empty {
                    Some(e) => view! { <p class="muted ask-roots-empty">{e}</p> }.into_any(),
                    None => {
                        let rows = v
                            .roots
                            .into_iter()
                            .enumerate()
                            .map(|(i, r)| view! {
                                <li class="ask-root">
                                    <span class="ask-root-text">
                                        {r.name.map(|n| view! { <bdi class="ask-root-name">{n}</bdi> })}
                                        <code class="ask-root-uri">{r.uri}</code>
                                    </span>
                                    <button
                                        type="button"
                                        class="small ask-root-remove"
                                        data-index=i.to_string()
                                        aria-label=r.remove_label
                                        on:click=move |_| act(RootsIntent::Remove(i))
                                    >
                                        "Remove"
                                    </button>
                                </li>
                            })
                            .collect_view();
                        view! { <ul class="ask-roots">{rows}</ul> }.into_any()
                    }
                }
            }}
            <form
                class="ask-root-add"
                novalidate
                autocomplete="off"
                on:submit=move |ev| {
                    ev.prevent_default();
                    act(RootsIntent::Add);
                }
            >
                <div class="ask-field">
                    <label for=URI_ID>"Folder or file URI"</label>
                    <input
                        type="text"
                        id=URI_ID
                        name="uri"
                        placeholder="file:///home/me/project"
                        spellcheck="false"
                        aria-invalid=move || if view().error.is_some() { "true" } else { "false" }
                        aria-describedby="ask-root-err"
                        prop:value=move || uri.get()
                        on:input=move |ev| uri.set(event_target_value(&ev))
                    />
                </div>
                <div class="ask-field">
                    <label for=NAME_ID>"Name " <span class="muted">"(optional)"</span></label>
                    <input
                        type="text"
                        id=NAME_ID
                        name="name"
                        prop:value=move || root_name.get()
                        on:input=move |ev| root_name.set(event_target_value(&ev))
                    />
                </div>
                <p class="error ask-error" id="ask-root-err" role="alert">{move || view().error}</p>
                <div class="ask-actions">
                    <button type="submit" class="ask-root-addbtn">"Add root"</button>
                </div>
            </form>
            <div class="ask-actions ask-dialog-actions">
                <button type="button" class="primary ask-save" on:click=move |_| act(RootsIntent::Save)>"Save"</button>
                <button type="button" class="ask-cancel" on:click=move |_| act(RootsIntent::Cancel)>"Cancel"</button>
            </div>
        </Modal>
    }
    .into_any()
}
