//! The two ways to add a model: a file (chosen, or dropped on the panel) and an address.

use leptos::html;
use leptos::prelude::*;
use skiff_core::model_panel::Intent;
use web_sys::{FileList, HtmlInputElement};

use super::Shared;
use crate::platform::local_model;

/// Hands each file to the worker, which reads its header and stores it or says why not.
pub(super) fn files(list: Option<FileList>) {
    let Some(list) = list else { return };
    for file in (0..list.length()).filter_map(|i| list.get(i)) {
        local_model::add_file(&file);
    }
}

pub(super) fn controls(shared: Shared) -> impl IntoView {
    let url = NodeRef::<html::Input>::new();
    view! {
        <div class="row lm-add">
            <label class="button small primary">
                "Add a GGUF file…"
                <input type="file" accept=".gguf" multiple class="lm-file" on:change=move |ev| {
                    let input = event_target::<HtmlInputElement>(&ev);
                    files(input.files());
                    input.set_value("");
                } />
            </label>
            <span class="hint">"or drop one on this panel"</span>
        </div>
        <form class="row lm-url" on:submit=move |ev| {
            ev.prevent_default();
            let Some(input) = url.get_untracked() else { return };
            if shared.act.run(Intent::AddUrl(input.value())) {
                input.set_value("");
            }
        }>
            <label class="field">
                <span>"Or download one from an address (its server must allow this page: CORS)"</span>
                <input node_ref=url name="url" type="url" required placeholder="https://example.org/model.Q4_K_M.gguf" />
            </label>
            <button class="small">"Download"</button>
        </form>
    }
}
