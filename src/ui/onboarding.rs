//! What an empty conversation shows. With no provider configured: probe the usual local
//! servers and offer the ones that answer (Use makes one a provider profile), or explain how
//! to get started, and offer the model that runs in this page (`welcome_model`, on demand)
//! when none answered. Never a demo model.

use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::format::count;
use skiff_core::profiles::ProviderProfile;

use super::composer::focus_composer;
use super::context::ctx;
use super::lazy::Lazy;
use super::welcome_model::welcome_model_surface;
use super::when::When;
use crate::runner::models::{probe_local, Found};
use crate::stores::reactive::memo;

#[derive(Clone, PartialEq)]
enum Probe {
    Running,
    Done(Vec<Found>),
}

#[component]
pub fn Onboarding() -> impl IntoView {
    let ctx = ctx();
    let configured = move || ctx.settings.settings.with(|s| s.is_configured());
    let probe = RwSignal::new(Probe::Running);
    let run_probe = move || {
        probe.set(Probe::Running);
        spawn_local(async move {
            // Three requests made from the mount itself were ~10 % of the first visit's main
            // thread before the message box took input; the sentence above says we are
            // looking meanwhile.
            crate::platform::clock::after_paint().await;
            let found = probe_local().await;
            probe.set(Probe::Done(found));
        });
    };
    if !ctx.settings.settings.with_untracked(|s| s.is_configured()) {
        run_probe();
    }
    let use_server = move |f: Found| {
        let p = ProviderProfile::found_locally(
            crate::platform::ids::new_id(),
            f.candidate.name,
            f.candidate.base_url,
            f.models,
        );
        ctx.settings.settings.update(|s| s.profiles.push(p));
        // The Use button disappears with the onboarding; typing goes to the message box.
        focus_composer();
    };
    // One memo, so the offer stays mounted (its download's progress in place) while its
    // click turns the welcome into a new conversation with the in-page model.
    let offer = memo(move || {
        let none_answered = probe.with(|p| matches!(p, Probe::Done(found) if found.is_empty()));
        let choice = ctx
            .convs
            .current
            .get()
            .and_then(|c| c.meta.with(|m| m.model.clone()));
        ctx.settings
            .settings
            .with(|s| s.offers_in_page_model(choice.as_ref(), none_answered))
    });
    view! {
        <section class="onboarding">
            <When
                when=configured
                fallback=move || view! {
                    <h2>"Welcome to Skiff"</h2>
                    <p>
                        "Skiff talks to your model provider straight from this page: nothing goes through a server of ours, and your conversations stay in this browser."
                    </p>
                    {move || match probe.get() {
                        Probe::Running => view! { <p class="muted">"Looking for local servers (llama.cpp, Ollama, LM Studio)…"</p> }.into_any(),
                        Probe::Done(found) if !found.is_empty() => view! {
                            <p>"Found on this computer:"</p>
                            <ul class="found-servers">
                                {found.into_iter().map(|f| {
                                    let label = format!("{} at {}", f.candidate.name, f.candidate.base_url);
                                    let n_models = f.models.len();
                                    let f2 = f.clone();
                                    view! {
                                        <li>
                                            <span>{label}" — "{count(n_models, "model", "models")}</span>
                                            <button class="primary small" on:click=move |_| use_server(f2.clone())>"Use"</button>
                                        </li>
                                    }
                                }).collect_view()}
                            </ul>
                        }.into_any(),
                        Probe::Done(_) => view! {
                            <p>"No local server answered. To start:"</p>
                            <ul>
                                <li>"Run a local server: llama.cpp (" <code>"llama-server -m model.gguf"</code> "), Ollama (allow this page with " <code>"OLLAMA_ORIGINS"</code> "), or LM Studio with CORS enabled;"</li>
                                <li>"or use a hosted OpenAI-compatible provider with its base URL and API key."</li>
                            </ul>
                            <button class="link-button" on:click=move |_| run_probe()>"Look again"</button>
                        }.into_any(),
                    }}
                    <button class="primary" on:click=move |_| ctx.show_settings.set(true)>"Open settings"</button>
                }
            >
                <h2>"New conversation"</h2>
                <p class="muted">
                    {move || {
                        let choice = ctx.convs.current.get().and_then(|c| c.meta.with(|m| m.model.clone()));
                        let t = ctx.settings.settings.with(|s| s.for_conversation(choice.as_ref()).target);
                        t.chatting_line()
                    }}
                </p>
            </When>
            <When when=move || offer.get()>
                <Lazy load=welcome_model_surface surface="The model in this page" />
            </When>
        </section>
    }
}
