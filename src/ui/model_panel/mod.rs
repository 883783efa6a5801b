//! Settings → Providers → "In this browser": the models stored in this browser, drawn from
//! `skiff_core::model_panel`'s view and talking to the model worker through
//! `platform::local_model` (typed messages, no frame, no script of its own).
//!
//! One entry, [`model_panel`], called from one place (the in-browser profile's form), so the
//! panel can be a chunk loaded on demand. It decides nothing: every click becomes a core
//! `Intent`, and the `Effect` core returns is performed as it says.

mod add;
mod jobs;
mod models;

use crate::stores::reactive::memo;
use leptos::prelude::*;
use skiff_core::model_panel::{announcement, Effect, Intent, Panel, PanelView, WorkerState};

use super::announcer::announce;
use super::dialog::Modal;
use super::when::When;
use crate::platform::clock;
use crate::platform::local_model::{self, Status};

/// What the parts of the panel share: the view to draw and where intents go (`act` answers
/// whether the intent did something: a refused one leaves what was typed in place).
#[derive(Clone, Copy)]
struct Shared {
    view: Memo<Option<PanelView>>,
    act: Callback<Intent, bool>,
}

/// The panel, for the in-browser profile's form.
pub fn model_panel() -> AnyView {
    view! { <ModelPanel /> }.into_any()
}

#[component]
fn ModelPanel() -> impl IntoView {
    let status = RwSignal::new(Status::Starting);
    let panel = RwSignal::new(Panel::default());
    // The question a load's Cancel asks first, while it waits for the answer.
    let question = RwSignal::new(None::<String>);
    // The last state seen, so a model stored or deleted is announced once.
    let seen = StoredValue::new(None::<WorkerState>);
    let settings = super::context::ctx().settings.settings;
    let watch = local_model::watch(move |s| {
        if let Status::Ready(state) = s {
            let before = seen
                .try_update_value(|seen| seen.replace(state.clone()))
                .flatten();
            // The picker lists a model as soon as it is stored, and never one deleted.
            if before.as_ref().is_none_or(|b| b.models != state.models) {
                let entries = state.model_entries();
                settings.maybe_update(|s| s.sync_stored_models(&entries));
            }
            if let Some(sentence) = before.and_then(|b| announcement(&b, state)) {
                announce(sentence);
            }
        }
        status.try_set(s.clone());
    });
    on_cleanup(move || local_model::unwatch(watch));

    let view = memo(move || {
        status.with(|s| match s {
            Status::Ready(state) => Some(panel.with(|p| p.view(state, clock::now_ms()))),
            _ => None,
        })
    });
    let act = Callback::new(move |intent: Intent| {
        let effect = status.with_untracked(|s| match s {
            Status::Ready(state) => panel.try_update(|p| p.handle(intent, state)).flatten(),
            _ => None,
        });
        match &effect {
            Some(Effect::Send(message)) => local_model::send(message),
            Some(Effect::Confirm(q)) => question.set(Some(q.clone())),
            Some(Effect::EndWorker) => local_model::restart(),
            None => {}
        }
        effect.is_some()
    });
    let shared = Shared { view, act };
    let dropping = RwSignal::new(false);

    view! {
        <section
            class="local-models"
            class:dropping=move || dropping.get()
            aria-label="Models stored in this browser"
            on:dragover=move |ev: leptos::ev::DragEvent| {
                ev.prevent_default();
                dropping.set(true);
            }
            on:dragleave=move |_| dropping.set(false)
            on:drop=move |ev: leptos::ev::DragEvent| {
                ev.prevent_default();
                dropping.set(false);
                add::files(ev.data_transfer().and_then(|d| d.files()));
            }
        >
            <h4>"Models stored in this browser"</h4>
            <p class="hint">
                "A GGUF model runs here, in this page, with no server and no network: Llama-architecture models (such as SmolLM2) and Gemma 3, quantized as Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, the K-quants, F16 or F32. The files stay in this browser's private storage."
            </p>
            {move || status.with(|s| match s {
                Status::Starting => {
                    view! { <p class="muted lm-starting">"Starting the model worker…"</p> }.into_any()
                }
                Status::Unavailable(why) => view! {
                    <p class="error lm-unavailable" role="alert">{why.to_string()}</p>
                    <button class="small lm-retry" on:click=move |_| local_model::retry()>"Try again"</button>
                }
                .into_any(),
                _ => ().into_any(),
            })}
            <When when=move || view.with(Option::is_some)>
                {add::controls(shared)}
                {move || view.with(|v| v.as_ref().and_then(|v| v.notice.clone())).map(|notice| view! {
                    <p class="error lm-notice" role="alert">{notice}</p>
                })}
                {jobs::list(shared)}
                {move || view.with(|v| v.as_ref().and_then(|v| v.loaded.clone())).map(|line| view! {
                    <p class="hint lm-loaded">{line}</p>
                })}
                {models::list(shared)}
            </When>
            <When when=move || question.with(Option::is_some)>
                <Modal label="Cancel the load?" class="settings lm-confirm" on_close=move || question.set(None)>
                    <p>{move || question.get()}</p>
                    <div class="row">
                        <button class="small danger lm-confirm-cancel" on:click=move |_| {
                            question.set(None);
                            act.run(Intent::CancelLoadConfirmed);
                        }>"Cancel the load"</button>
                        <button class="small" on:click=move |_| question.set(None)>"Keep loading"</button>
                    </div>
                </Modal>
            </When>
        </section>
    }
}
