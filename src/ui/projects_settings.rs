//! Settings → Projects: the list of projects and the editor (name, instructions, default
//! mask). `skiff_core::projects::ProjectPanel` decides what each click does and writes the
//! panel as HTML text; here one listener hands it the click and the form's values and performs
//! the outcome, as Settings → Masks does. Projects are saved with the settings.

use leptos::prelude::*;
use skiff_core::masks::builtins;
use skiff_core::projects::{Outcome, ProjectPanel};

use super::context::ctx;
use crate::platform::form::{act_of, inner_form_pairs, redraw};
use crate::platform::ids::new_id;
use crate::stores::reactive::effect;

#[component]
pub fn ProjectsSettings() -> impl IntoView {
    let ctx = ctx();
    let settings = ctx.settings.settings;
    let panel = StoredValue::new(ProjectPanel::default());
    let node = NodeRef::<leptos::html::Section>::new();

    let draw = move |focus: &str| {
        let Some(el) = node.get_untracked() else {
            return;
        };
        let html = settings.with_untracked(|s| {
            let masks: Vec<(String, String)> = s
                .masks
                .iter()
                .chain(builtins().iter())
                .map(|m| (m.id.clone(), m.label()))
                .collect();
            ctx.convs.index.with_untracked(|ix| {
                let counts = |id: &str| {
                    ix.iter()
                        .filter(|c| c.project.as_deref() == Some(id))
                        .count()
                };
                panel.with_value(|p| p.html(&s.projects, &masks, counts))
            })
        });
        redraw(&el, &html, focus);
    };
    // The list follows the stored projects (another tab may change them); an open editor
    // keeps what is being typed.
    effect(move || {
        settings.with(|s| s.projects.len());
        if !panel.with_value(ProjectPanel::is_editing) {
            draw("");
        }
    });

    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(act) = act_of(&ev) else {
            return;
        };
        let pairs = match node.get_untracked() {
            Some(el) if panel.with_value(ProjectPanel::is_editing) => inner_form_pairs(&el),
            _ => Vec::new(),
        };
        let projects = settings.with_untracked(|s| s.projects.clone());
        let outcome = panel
            .try_update_value(|p| p.act(&act, &pairs, &projects, new_id))
            .unwrap_or(Outcome::Nothing);
        match outcome {
            Outcome::Nothing => {}
            Outcome::Draw { focus } => draw(&focus),
            Outcome::Store { projects, focus } => {
                settings.update(|s| s.projects = projects);
                draw(&focus);
            }
            Outcome::Chat(project) => {
                super::sidebar::new_chat_in(Some(&project));
                ctx.show_settings.set(false);
            }
        }
    };
    view! {
        <section
            class="projects"
            aria-label="Projects"
            node_ref=node
            on:click=on_click
            on:submit=|ev| ev.prevent_default()
        ></section>
    }
}
