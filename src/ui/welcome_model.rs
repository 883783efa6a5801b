//! The welcome screen's offer of the model that runs in the page (issue 31, item 2): what it
//! costs, one click to the suggested GGUF or a file of one's own, its progress in place, and
//! the chat takes over once it is stored. What is offered and said is core's
//! (`model_panel::welcome`); this draws it and hands the click to the model worker.
//!
//! Loaded on demand with the model bridge (chunk `local_model`), and the worker itself starts
//! only on a click: a first visit that does not take the offer fetches nothing of the model.

use leptos::prelude::*;
use skiff_core::model_panel::welcome::{welcome_step, WelcomeStep, SUGGESTED};
use skiff_core::model_panel::{ToWorker, WorkerState};
use web_sys::HtmlInputElement;

use super::composer::focus_composer;
use super::context::ctx;
use crate::platform::local_model::{self, Status};
use crate::platform::{clock, ids};

crate::split_surface!(pub welcome_model_surface, local_model, || view! { <WelcomeModel /> }
.into_any());

#[component]
fn WelcomeModel() -> impl IntoView {
    let settings = ctx().settings.settings;
    let state = RwSignal::new(None::<WorkerState>);
    let unavailable = RwSignal::new(None::<String>);
    let watching = StoredValue::new(None::<u64>);
    // Starts the worker (on the first click only) and follows its state: the job lines here,
    // and a stored model becomes the in-page profile's at once, which ends this offer.
    let follow = move || {
        if watching.get_value().is_some() {
            return;
        }
        {
            let id = local_model::watch(move |s| match s {
                Status::Ready(st) => {
                    let entries = st.model_entries();
                    let had = state
                        .try_with_untracked(|s| s.as_ref().is_some_and(|s| !s.models.is_empty()))
                        .unwrap_or(true);
                    if !entries.is_empty() && !had {
                        settings.maybe_update(|s| s.sync_stored_models(&entries));
                        // The offer gives way to the chat: typing goes to the message box.
                        focus_composer();
                    }
                    state.try_set(Some(st.clone()));
                }
                Status::Unavailable(why) => {
                    unavailable.try_set(Some(why.to_string()));
                }
                Status::Starting => {}
            });
            watching.set_value(Some(id));
        }
    };
    on_cleanup(move || {
        if let Some(id) = watching.try_get_value().flatten() {
            local_model::unwatch(id);
        }
    });
    let choose = move || {
        settings.update(|s| {
            s.use_in_page_model(ids::new_id());
        });
        follow();
    };
    let download = move |_| {
        choose();
        local_model::send(&ToWorker::AddUrl {
            url: SUGGESTED.url.to_string(),
        });
    };
    let file = move |ev: leptos::ev::Event| {
        let input = event_target::<HtmlInputElement>(&ev);
        if let Some(f) = input.files().and_then(|l| l.get(0)) {
            choose();
            local_model::add_file(&f);
        }
        input.set_value("");
    };
    let offer = SUGGESTED.offer();
    let step = move || {
        state.with(|s| match s {
            Some(s) => welcome_step(s, clock::now_ms()),
            None => WelcomeStep::Offer,
        })
    };
    view! {
        <div class="welcome-model">
            <h3>{offer.heading}</h3>
            <p class="muted welcome-model-facts">{offer.facts}</p>
            {move || match step() {
                WelcomeStep::Working(jobs) => jobs.into_iter().map(|j| view! {
                    <div class="lm-job welcome-model-job">
                        <span class="lm-job-name">{j.title.clone()}</span>
                        <progress max="1000" value=j.permille aria-label=j.title></progress>
                        <span class="muted lm-job-line">{j.line}</span>
                    </div>
                }).collect_view().into_any(),
                WelcomeStep::Stored(_) => ().into_any(),
                other => {
                    let failure = match other {
                        WelcomeStep::Failed(sentence) => Some(sentence),
                        _ => None,
                    };
                    view! {
                        {failure.map(|f| view! { <p class="error" role="alert">{f}</p> })}
                        <div class="row">
                            <button class="primary welcome-model-download" on:click=download>{offer.download_label.clone()}</button>
                            <label class="button small">
                                {offer.file_label}
                                <input type="file" accept=".gguf" class="welcome-model-file" on:change=file />
                            </label>
                        </div>
                    }.into_any()
                }
            }}
            {move || unavailable.get().map(|why| view! { <p class="error" role="alert">{why}</p> })}
            <p class="hint">{offer.offline}</p>
        </div>
    }
}
