//! Settings → Masks: the list of masks (the user's, then the built-in ones) and the editor.
//!
//! `skiff_core::masks::MaskPanel` decides everything: what the panel shows (its view-model),
//! what each intent does, what the editor's fields amount to and what is wrong with them. Here
//! the view is laid out with the form-field components and each click or edit is sent as a
//! typed [`MaskIntent`]; the [`Outcome`] is performed. Masks are saved with the settings.

use leptos::prelude::*;
use skiff_core::masks::{MaskEdit, MaskField, MaskIntent, MaskPanel, MaskRow, MaskView, Outcome};
use skiff_core::records::message::Role;

use super::focus_soon;
use crate::platform::ids::new_id;
use crate::ui::context::ctx;
use crate::ui::fields::{EnumSelect, NumberField, Select, TextArea, TextField};

#[component]
pub fn MasksSettings() -> impl IntoView {
    let ctx = ctx();
    let settings = ctx.settings.settings;
    let panel = RwSignal::new(MaskPanel::default());
    // The view follows the stored masks (another tab may change them) and the editor's draft,
    // which lives in the panel, so nothing typed is lost when the list changes underneath.
    let view = Memo::new(move |_| panel.with(|p| settings.with(|s| p.view(s))));
    let send = Callback::new(move |intent: MaskIntent| {
        let masks = settings.with_untracked(|s| s.masks.clone());
        let Some(outcome) = panel.try_update(|p| p.act(intent, &masks, new_id)) else {
            return;
        };
        match outcome {
            Outcome::Show { focus } => {
                if let Some(f) = focus {
                    focus_soon(f.id());
                }
            }
            Outcome::Store { masks, focus } => {
                settings.update(|s| s.masks = masks);
                focus_soon(focus.id());
            }
            Outcome::Chat(mask) => {
                ctx.convs.draft_mask.set(Some(mask.id));
                ctx.convs.select_none();
                ctx.show_settings.set(false);
            }
        }
    });
    let editing = Memo::new(move |_| view.with(|v| v.editor().is_some()));
    view! {
        <section class="masks" aria-label="Masks">
            {move || if editing.get() { editor(view, send) } else { list(view, send) }}
        </section>
    }
}

fn list(view: Memo<MaskView>, send: Callback<MaskIntent>) -> AnyView {
    let rows = move || {
        view.with(|v| match v {
            MaskView::List(rows) => rows.iter().map(|r| row(r, send)).collect_view().into_any(),
            MaskView::Editor(_) => ().into_any(),
        })
    };
    view! {
        <p class="muted">
            "A mask starts a chat with its own prompts, and optionally its own model and sampling. A chat keeps the copy it started with."
        </p>
        <div class="mask-top">
            <button type="button" class="primary" id="mask-new" on:click=move |_| send.run(MaskIntent::New)>
                "New mask"
            </button>
        </div>
        <ul class="mask-list">{rows}</ul>
    }
    .into_any()
}

fn row(r: &MaskRow, send: Callback<MaskIntent>) -> AnyView {
    let buttons = r
        .actions
        .iter()
        .map(|&a| {
            let intent = a.intent(&r.id);
            let class = format!("{}row-{}", if a.danger() { "danger " } else { "" }, a.name());
            // Only one row asks at a time: its Keep is where the cursor goes.
            let id = (a == skiff_core::masks::RowAction::Keep).then_some("mask-keep");
            view! {
                <button type="button" class=class id=id aria-label=a.aria(&r.label) on:click=move |_| send.run(intent.clone())>
                    {a.label()}
                </button>
            }
        })
        .collect_view();
    view! {
        <li class="mask-row" data-mask=r.id.clone()>
            <span class="mask-label">{r.label.clone()}</span>
            <small class="muted mask-about">{r.about.clone()}</small>
            <div class="mask-row-actions">
                {r.question.clone().map(|q| view! { <span class="mask-confirm">{q}</span> })}
                {buttons}
            </div>
        </li>
    }
    .into_any()
}

/// A field of the editor as the view has it now: its text, and its error.
fn field(view: Memo<MaskView>, f: MaskField) -> (Signal<String>, Signal<Option<String>>) {
    let value = Signal::derive(move || {
        view.with(|v| {
            v.editor()
                .map(|e| e.field(f).value.clone())
                .unwrap_or_default()
        })
    });
    let error =
        Signal::derive(move || view.with(|v| v.editor().and_then(|e| e.field(f).error.clone())));
    (value, error)
}

fn editor(view: Memo<MaskView>, send: Callback<MaskIntent>) -> AnyView {
    let change = move |edit: MaskEdit| send.run(MaskIntent::Change(edit));
    let text = move |f: MaskField,
                     label: &'static str,
                     hint: &'static str,
                     edit: fn(String) -> MaskEdit| {
        let (value, error) = field(view, f);
        view! {
            <TextField label=label id=f.id() value=value error=error placeholder=hint on_input=move |v| change(edit(v)) />
        }
    };
    let number = move |f: MaskField, label: &'static str, edit: fn(String) -> MaskEdit| {
        let (value, error) = field(view, f);
        view! {
            <NumberField label=label id=f.id() value=value error=error placeholder="The provider's" on_input=move |v| change(edit(v)) />
        }
    };
    let (profile, _) = field(view, MaskField::Profile);
    let profiles = Signal::derive(move || {
        view.with(|v| v.editor().map(|e| e.profiles.clone()).unwrap_or_default())
    });
    let (template, _) = field(view, MaskField::InputTemplate);
    let prompts = Memo::new(move |_| view.with(|v| v.editor().map_or(0, |e| e.prompts.len())));
    let prompt_rows = move || {
        (0..prompts.get())
            .map(|i| prompt_row(view, send, i))
            .collect_view()
    };
    let title = move || view.with(|v| v.editor().map(|e| e.title).unwrap_or_default());
    let prompts_error = move || view.with(|v| v.editor().and_then(|e| e.prompts_error.clone()));
    let summary = move || view.with(|v| v.editor().and_then(|e| e.summary.clone()));
    view! {
        <form class="mask-editor" aria-labelledby="mask-editor-title" on:submit=|ev| ev.prevent_default()>
            <h3 id="mask-editor-title">{title}</h3>
            {text(MaskField::Name, "Name", "Translator", MaskEdit::Name)}
            {text(MaskField::Emoji, "Emoji", "🌐", MaskEdit::Emoji)}
            <Select
                label="Provider"
                id=MaskField::Profile.id()
                options=profiles
                value=profile
                on_change=move |v| change(MaskEdit::Profile(v))
            />
            {text(MaskField::Model, "Model", "The provider's default model", MaskEdit::Model)}
            {number(MaskField::Temperature, "Temperature", MaskEdit::Temperature)}
            {number(MaskField::TopP, "Top-p", MaskEdit::TopP)}
            {number(MaskField::MaxTokens, "Max tokens", MaskEdit::MaxTokens)}
            <TextArea
                label="Input template ({{input}} is the message; empty keeps the one in Settings)"
                id=MaskField::InputTemplate.id()
                rows=2
                value=template
                on_input=move |v| change(MaskEdit::InputTemplate(v))
            />
            <fieldset class="mask-context">
                <legend>"Context prompts, sent before the chat"</legend>
                {prompt_rows}
                <button
                    type="button"
                    id=MaskField::Prompts.id()
                    aria-describedby=format!("{}-err", MaskField::Prompts.id())
                    on:click=move |_| send.run(MaskIntent::AddPrompt)
                >
                    "Add prompt"
                </button>
                <p class="error field-error" id=format!("{}-err", MaskField::Prompts.id())>{prompts_error}</p>
            </fieldset>
            {move || summary().map(|s| view! { <p class="error mask-summary" role="alert">{s}</p> })}
            <div class="mask-editor-actions">
                <button type="button" class="primary mask-save" on:click=move |_| send.run(MaskIntent::Save)>"Save"</button>
                <button type="button" class="mask-cancel" on:click=move |_| send.run(MaskIntent::Cancel)>"Cancel"</button>
            </div>
        </form>
    }
    .into_any()
}

/// Context prompt `i`: its role, its text and its Remove button. Drawn again when the number of
/// prompts changes (their numbers shift); the text always comes from the panel's draft.
fn prompt_row(view: Memo<MaskView>, send: Callback<MaskIntent>, i: usize) -> AnyView {
    let n = i + 1;
    let f = MaskField::Prompt(i);
    let (content, error) = field(view, f);
    let role = Signal::derive(move || {
        view.with(|v| {
            v.editor()
                .and_then(|e| e.prompts.get(i))
                .map_or(Role::System, |p| p.role)
        })
    });
    view! {
        <div class="mask-prompt">
            <EnumSelect<Role>
                label=format!("Role of prompt {n}")
                label_hidden=true
                value=role
                on_change=move |r: Role| send.run(MaskIntent::Change(MaskEdit::Role(i, r)))
            />
            <TextArea
                label=format!("Prompt {n}")
                label_hidden=true
                id=f.id()
                rows=3
                value=content
                error=error
                on_input=move |v| send.run(MaskIntent::Change(MaskEdit::Prompt(i, v)))
            />
            <button type="button" aria-label=format!("Remove prompt {n}") on:click=move |_| send.run(MaskIntent::RemovePrompt(i))>
                "Remove"
            </button>
        </div>
    }
    .into_any()
}
