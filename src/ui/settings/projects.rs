//! Settings → Projects: the list of projects and the editor (name, instructions, default mask).
//! `skiff_core::projects::ProjectPanel` decides what the panel shows and what each typed
//! [`ProjectIntent`] does; here the view is laid out and the [`Outcome`] performed, as
//! Settings → Masks does. Projects are saved with the settings.

use leptos::prelude::*;
use skiff_core::masks::builtins;
use skiff_core::projects::{
    Outcome, ProjectEdit, ProjectIntent, ProjectPanel, ProjectRow, ProjectView, RowAction,
    PROJECT_NAME_MAX,
};

use super::focus_soon;
use crate::platform::ids::new_id;
use crate::ui::context::ctx;
use crate::ui::fields::{Select, TextArea, TextField};

#[component]
pub fn ProjectsSettings() -> impl IntoView {
    let ctx = ctx();
    let settings = ctx.settings.settings;
    let panel = RwSignal::new(ProjectPanel::default());
    let view = Memo::new(move |_| {
        panel.with(|p| {
            settings.with(|s| {
                let masks: Vec<(String, String)> = s
                    .masks
                    .iter()
                    .chain(builtins().iter())
                    .map(|m| (m.id.clone(), m.label()))
                    .collect();
                ctx.convs.index.with(|ix| {
                    let counts = |id: &str| {
                        ix.iter()
                            .filter(|c| c.project.as_deref() == Some(id))
                            .count()
                    };
                    p.view(&s.projects, &masks, counts)
                })
            })
        })
    });
    let send = Callback::new(move |intent: ProjectIntent| {
        let projects = settings.with_untracked(|s| s.projects.clone());
        let Some(outcome) = panel.try_update(|p| p.act(intent, &projects, new_id)) else {
            return;
        };
        match outcome {
            Outcome::Show { focus } => {
                if let Some(f) = focus {
                    focus_soon(f.id().to_string());
                }
            }
            Outcome::Store { projects, focus } => {
                settings.update(|s| s.projects = projects);
                focus_soon(focus.id().to_string());
            }
            Outcome::Chat(project) => {
                crate::ui::sidebar::new_chat_in(Some(&project));
                ctx.show_settings.set(false);
            }
        }
    });
    let editing = Memo::new(move |_| view.with(|v| v.editor().is_some()));
    view! {
        <section class="projects" aria-label="Projects">
            {move || if editing.get() { editor(view, send) } else { list(view, send) }}
        </section>
    }
}

fn list(view: Memo<ProjectView>, send: Callback<ProjectIntent>) -> AnyView {
    let rows = move || {
        view.with(|v| match v {
            ProjectView::List(rows) => rows.iter().map(|r| row(r, send)).collect_view().into_any(),
            ProjectView::Editor(_) => ().into_any(),
        })
    };
    let empty = move || view.with(|v| matches!(v, ProjectView::List(rows) if rows.is_empty()));
    view! {
        <p class="muted">
            "A project groups conversations in the sidebar. Its instructions go to the model in each of its chats, and a new chat in it starts with its mask."
        </p>
        <div class="mask-top">
            <button type="button" class="primary" id="project-new" on:click=move |_| send.run(ProjectIntent::New)>
                "New project"
            </button>
        </div>
        {move || empty().then(|| view! { <p class="muted project-empty">"No projects yet."</p> })}
        <ul class="mask-list project-list">{rows}</ul>
    }
    .into_any()
}

fn row(r: &ProjectRow, send: Callback<ProjectIntent>) -> AnyView {
    let buttons = r
        .actions
        .iter()
        .map(|&a| {
            let intent = a.intent(&r.id);
            let class = format!("{}row-{}", if a.danger() { "danger " } else { "" }, a.name());
            let id = (a == RowAction::Keep).then_some("project-keep");
            view! {
                <button type="button" class=class id=id aria-label=a.aria(&r.label) on:click=move |_| send.run(intent.clone())>
                    {a.label()}
                </button>
            }
        })
        .collect_view();
    view! {
        <li class="mask-row project-row" data-project=r.id.clone()>
            <span class="mask-label project-label">{r.label.clone()}</span>
            <small class="muted mask-about project-about">{r.about.clone()}</small>
            <div class="mask-row-actions">
                {r.question.clone().map(|q| view! { <span class="project-confirm">{q}</span> })}
                {buttons}
            </div>
        </li>
    }
    .into_any()
}

fn editor(view: Memo<ProjectView>, send: Callback<ProjectIntent>) -> AnyView {
    let change = move |edit: ProjectEdit| send.run(ProjectIntent::Change(edit));
    let read = move |f: fn(&skiff_core::projects::ProjectEditor) -> String| {
        Signal::derive(move || view.with(|v| v.editor().map(f).unwrap_or_default()))
    };
    let name = read(|e| e.name.value.clone());
    let name_error =
        Signal::derive(move || view.with(|v| v.editor().and_then(|e| e.name.error.clone())));
    let masks = Signal::derive(move || {
        view.with(|v| v.editor().map(|e| e.masks.clone()).unwrap_or_default())
    });
    let title = move || view.with(|v| v.editor().map(|e| e.title).unwrap_or_default());
    view! {
        <form class="mask-editor project-editor" aria-labelledby="project-editor-title" on:submit=|ev| ev.prevent_default()>
            <h3 id="project-editor-title">{title}</h3>
            <TextField
                label="Name"
                id="project-name"
                max_length=PROJECT_NAME_MAX as u32
                value=name
                error=name_error
                on_input=move |v| change(ProjectEdit::Name(v))
            />
            <TextArea
                label="Instructions for the model"
                id="project-instructions"
                rows=5
                placeholder="For example: We are writing a Rust web app; answer with idiomatic Rust."
                value=read(|e| e.instructions.clone())
                on_input=move |v| change(ProjectEdit::Instructions(v))
            />
            <Select
                label="New chats start with the mask"
                id="project-mask"
                options=masks
                value=read(|e| e.mask.clone())
                on_change=move |v| change(ProjectEdit::Mask(v))
            />
            <div class="mask-editor-actions">
                <button type="button" class="primary project-save" on:click=move |_| send.run(ProjectIntent::Save)>"Save"</button>
                <button type="button" class="project-cancel" on:click=move |_| send.run(ProjectIntent::Cancel)>"Cancel"</button>
            </div>
        </form>
    }
    .into_any()
}
