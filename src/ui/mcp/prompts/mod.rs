//! The `/` prompt picker and a prompt's argument form (issue 13 item 5): a panel right above
//! the composer. While its list shows, focus stays in the message box and the box's keys come
//! here first ([`crate::ui::mcp::PickerSlot`]), so Enter chooses instead of sending; a chosen
//! prompt with arguments opens its form in the same panel; its turns go into the conversation.
//! Decisions are `skiff_core::mcp::ask_ui`'s (`Picker`, `PromptForm`).
//!
//! Entry (called from the composer only): [`prompt_picker`].

mod form;
mod list;

use std::time::Duration;

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::Value;
use skiff_core::mcp::ask_ui::{entries, FormOutcome, Picker, PromptForm, ServerPrompts};

use crate::runner::prompts;
use crate::stores::mcp::McpStore;
use crate::ui::announcer::{announcements, Announcements};
use crate::ui::composer::focus_composer;
use crate::ui::context::Ctx;
use crate::ui::mcp::PickerSlot;

/// The prompts of every connected server, as the page holds them (tracked).
fn servers(mcp: McpStore) -> Vec<ServerPrompts> {
    mcp.live.with(|l| {
        l.iter()
            .map(|(id, live)| ServerPrompts {
                id: id.clone(),
                name: mcp.server_name(id).unwrap_or_else(|| id.clone()),
                connected: live.is_connected(),
                capabilities: live.capabilities.get(),
                prompts: live.prompts.get(),
            })
            .collect()
    })
}

/// The panel's state, shared by the list and the form.
#[derive(Clone, Copy)]
pub(super) struct Panel {
    pub ctx: Ctx,
    pub slot: PickerSlot,
    pub picker: RwSignal<Picker>,
    /// The chosen prompt's form (the panel shows it instead of the list).
    pub form: RwSignal<Option<PromptForm>>,
    pub said: Announcements,
    status_timer: StoredValue<Option<TimeoutHandle>>,
}

impl Panel {
    /// Close the panel; the message box gets focus back when asked.
    pub fn close(&self, focus_box: bool) {
        self.slot.prompt_open.set(false);
        if focus_box {
            focus_composer();
        }
    }

    /// The list's count, once typing pauses (not on every key).
    pub fn status_soon(&self) {
        let this = *self;
        if let Some(t) = self.status_timer.get_value() {
            t.clear();
        }
        let t = set_timeout_with_handle(
            move || {
                if let Some(s) = this.picker.try_with_untracked(Picker::status) {
                    this.said.say(s);
                }
            },
            Duration::from_millis(400),
        )
        .ok();
        self.status_timer.set_value(t);
    }

    /// Prompt `i` of the entries was chosen: its form opens, or (no arguments) it goes in.
    pub fn choose(&self, i: usize) {
        let Some(entry) = self.picker.with_untracked(|p| p.entry(i).cloned()) else {
            return;
        };
        let name = entry.name.clone();
        let form = PromptForm::new(entry);
        let needs = form.needs_form();
        self.form.set(Some(form));
        if needs {
            form::focus("ask-arg-0");
            self.said.say(format!("Arguments for /{name}"));
        } else {
            self.insert();
        }
    }

    /// Insert: check the arguments, get the prompt, put its turns into the conversation.
    pub fn insert(&self) {
        let this = *self;
        let Some(out) = self
            .form
            .try_update(|f| f.as_mut().map(PromptForm::submit))
            .flatten()
        else {
            return;
        };
        let (server, params) = match out {
            FormOutcome::Close => return self.close(true),
            FormOutcome::Draw { focus } => {
                if let Some(i) = focus {
                    form::focus(&skiff_core::mcp::ask_ui::field_id(i));
                }
                return;
            }
            FormOutcome::Get { server, params } => (server, params),
        };
        spawn_local(async move {
            let got = this
                .ctx
                .mcp_runner
                .request(&server, "prompts/get".into(), Some(params))
                .await;
            let still = move || this.slot.prompt_open.try_get_untracked() == Some(true);
            if !still() {
                return;
            }
            let result: Value = match got {
                Ok(v) => v,
                Err(e) => {
                    this.failed(format!("The server could not give the prompt: {e}"));
                    return;
                }
            };
            let turns = match this
                .form
                .try_update(|f| f.as_mut().map(|f| f.got(&result)))
                .flatten()
            {
                Some(Ok(t)) => t,
                Some(Err(_)) => {
                    form::focus_insert();
                    return;
                }
                None => return,
            };
            if let Err(e) = prompts::insert(this.ctx.convs, this.ctx.runner, turns) {
                this.failed(format!(
                    "The prompt could not be added to the conversation: {e}"
                ));
                return;
            }
            let name = this
                .form
                .with_untracked(|f| f.as_ref().map(|f| f.entry().name.clone()))
                .unwrap_or_default();
            this.close(false);
            // The "/…" typed to find the prompt is done with.
            if this.slot.draft.with_untracked(|d| d.starts_with('/')) {
                this.slot.draft.set(String::new());
            }
            this.slot.allow_prompts();
            focus_composer();
            this.said.say(format!(
                "Inserted the prompt /{name} into the conversation."
            ));
        });
    }

    fn failed(&self, sentence: String) {
        self.form.update(|f| {
            if let Some(f) = f {
                f.failed(&sentence);
            }
        });
        form::focus_insert();
    }
}

/// The `/` panel: the list of prompts matching what follows the slash, then a chosen
/// prompt's form.
pub fn prompt_picker(ctx: Ctx, slot: PickerSlot) -> AnyView {
    let typed = slot
        .typed
        .with_untracked(|t| t.as_ref().map(|t| t.query.clone()).unwrap_or_default());
    let panel = Panel {
        ctx,
        slot,
        picker: RwSignal::new(Picker::new(entries(&servers(ctx.mcp)), &typed)),
        form: RwSignal::new(None),
        said: announcements(),
        status_timer: StoredValue::new(None),
    };
    // The servers' prompts changed while the list is open: the highlighted one stays.
    let first = StoredValue::new(true);
    crate::stores::reactive::effect(move || {
        let now = entries(&servers(ctx.mcp));
        if first.get_value() {
            first.set_value(false);
            return;
        }
        panel.picker.update(|p| p.set_entries(now));
    });
    let chosen = crate::stores::reactive::memo(move || panel.form.with(Option::is_some));
    (move || match chosen.get() {
        false => list::list(panel),
        true => form::form(panel),
    })
    .into_any()
}
