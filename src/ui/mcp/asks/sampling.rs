//! Sampling requests: every pending one as a card in one modal dialog (the page's `Modal`,
//! shown over Settings too). Nothing reaches the user's model before Approve; the answer
//! streams into the card, then goes back to the server. What the card shows, what is sent
//! and what the server gets are `skiff_core::mcp::ask_ui`'s (`admit`, `SamplingCard`,
//! `model_options`); running the model is `runner::sampling`'s.

use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::mcp::ask_ui::{
    admit, could_not_answer, initial_model, model_key, model_options, Admission, CardView,
    ModelOption, SamplingCard, Stage, StageView, MODEL_LABEL, STOP_AND_DENY, WRITING,
};
use skiff_core::mcp::held_ask::HeldAsk;
use skiff_core::mcp::sampling::Limiter;
use skiff_core::mcp::ElicitKey;
use skiff_core::records::model_choice::ModelChoice;
use wasm_bindgen::JsCast;

use super::reply;
use crate::platform::focus::active_element;
use crate::platform::{clock, storage};
use crate::runner::sampling;
use crate::stores::notices::Level;
use crate::stores::reactive::memo;
use crate::ui::announcer::{announcements, Announcements};
use crate::ui::context::Ctx;
use crate::ui::dialog::Modal;
use crate::ui::keyed_list::keyed_list;
use crate::ui::when::When;

/// One request on screen.
#[derive(Debug, Clone)]
struct Slot {
    id: String,
    card: SamplingCard,
    /// The "Answer with" list and the entry chosen in it.
    models: Vec<ModelOption>,
    pick: usize,
}

#[derive(Clone, Copy)]
pub(super) struct Desk {
    ctx: Ctx,
    said: Announcements,
    cards: RwSignal<Vec<Slot>>,
    limiter: StoredValue<Limiter>,
    next: StoredValue<u32>,
}

fn focus_id(id: String) {
    request_animation_frame(move || {
        if let Some(el) = document()
            .get_element_by_id(&id)
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = el.focus();
        }
    });
}

impl Desk {
    pub fn new(ctx: Ctx) -> Self {
        Desk {
            ctx,
            said: announcements(),
            cards: RwSignal::new(Vec::new()),
            limiter: StoredValue::new(Limiter::default()),
            next: StoredValue::new(0),
        }
    }

    fn with_card<T>(&self, id: &str, f: impl FnOnce(&mut Slot) -> T) -> Option<T> {
        self.cards
            .try_update(|cs| cs.iter_mut().find(|s| s.id == id).map(f))
            .flatten()
    }

    pub fn ask(&self, ask: &HeldAsk) {
        let now = clock::now_ms();
        let admitted = self.limiter.try_update_value(|l| admit(ask, l, now));
        match admitted {
            Some(Admission::Show(card)) => {
                let n = self.next.get_value().wrapping_add(1);
                self.next.set_value(n);
                let id = format!("ask-s{n}");
                // The user's models now (profiles may have changed since the last card).
                let models = self
                    .ctx
                    .settings
                    .settings
                    .with_untracked(|s| model_options(&s.profiles));
                let remembered: Option<ModelChoice> = storage::get(&model_key(&card.server))
                    .ok()
                    .flatten()
                    .and_then(|s| serde_json::from_str(&s).ok());
                let current = sampling::current_model(self.ctx.settings, self.ctx.convs);
                let pick = initial_model(&models, remembered.as_ref(), current.as_ref());
                self.said.say(card.said_on_arrival());
                // The dialog opens on the first card (`initial_focus`); a later one waits its
                // turn without taking focus.
                self.cards.update(|cs| {
                    cs.push(Slot {
                        id,
                        card: *card,
                        models,
                        pick,
                    })
                });
            }
            Some(Admission::Refuse { answer, sentence }) => {
                if !sentence.is_empty() {
                    self.ctx.notices.push(Level::Error, sentence);
                }
                reply(self.ctx.mcp_runner, answer);
            }
            None => {}
        }
    }

    pub fn gone(&self, server: &str, key: ElicitKey) {
        let said = self
            .cards
            .try_update(|cs| {
                let s = cs
                    .iter_mut()
                    .find(|s| s.card.server == server && s.card.key == key)?;
                s.card.gone();
                Some(s.card.said_when_gone())
            })
            .flatten();
        if let Some(said) = said {
            self.said.say(said);
        }
    }

    fn remove(&self, id: &str) {
        self.cards.update(|cs| cs.retain(|s| s.id != id));
        if let Some(first) = self
            .cards
            .with_untracked(|cs| cs.first().map(|s| s.id.clone()))
        {
            focus_id(first);
        }
    }

    fn deny(&self, id: &str) {
        let Some((answer, said)) = self.with_card(id, |s| (s.card.deny(), s.card.said_on_deny()))
        else {
            return;
        };
        self.remove(id);
        reply(self.ctx.mcp_runner, answer);
        self.said.say(said);
    }

    fn approve(&self, id: String) {
        let this = *self;
        let Some((call, choice, server)) = self.with_card(&id, |s| {
            let choice = s.models.get(s.pick).map(ModelOption::choice);
            (s.card.approve(), choice, s.card.server.clone())
        }) else {
            return;
        };
        let Some(call) = call else {
            focus_id(format!("{id}-last"));
            return;
        };
        focus_id(id.clone());
        if let Some(c) = &choice {
            if let Ok(text) = serde_json::to_string(c) {
                let _ = storage::set(&model_key(&server), &text);
            }
        }
        spawn_local(async move {
            let stream_id = id.clone();
            let on_text = move |t: &str| {
                this.with_card(&stream_id, |s| {
                    s.card.chunk(t);
                });
            };
            let got =
                sampling::sample(this.ctx.settings, this.ctx.convs, call, choice, &on_text).await;
            // Denied or gone meanwhile: nothing more to do here.
            let out = this.with_card(&id, |s| match got {
                Err(e) => {
                    s.card.failed(&could_not_answer(&e));
                    None
                }
                Ok(answer) => s.card.sampled(&answer).ok().map(|r| {
                    // The tool calls the model asks for are said on the card before they go
                    // back (the server runs them, never Skiff).
                    s.card.chunk("");
                    (r, s.card.said_on_sent())
                }),
            });
            if let Some(Some((answer, said))) = out {
                // Drawn first: what the model asked for is on the card before it goes back.
                clock::sleep_ms(50).await;
                reply(this.ctx.mcp_runner, answer);
                this.remove(&id);
                this.said.say(said);
            }
        });
    }

    /// Escape answers the request it was pressed in (or the oldest) as its Deny or Dismiss.
    fn escape(&self) {
        let inside = active_element()
            .and_then(|a| a.closest("section.ask-card").ok().flatten())
            .map(|c| c.id());
        let id = inside.or_else(|| {
            self.cards
                .with_untracked(|cs| cs.first().map(|s| s.id.clone()))
        });
        let Some(id) = id else { return };
        let gone = self.cards.with_untracked(|cs| {
            cs.iter()
                .any(|s| s.id == id && *s.card.stage() == Stage::Gone)
        });
        if gone {
            self.remove(&id);
        } else {
            self.deny(&id);
        }
    }

    pub fn view(self) -> AnyView {
        let ids = memo(move || {
            self.cards
                .with(|cs| cs.iter().map(|s| s.id.clone()).collect::<Vec<_>>())
        });
        view! {
            <When when=move || ids.with(|i| !i.is_empty())>
                <Modal
                    label="Requests to use your model"
                    class="ask-dialog ask-sampling"
                    persistent=true
                    // The card, not Approve: a user typing Enter elsewhere must not approve by
                    // accident.
                    initial_focus="section.ask-card"
                    on_close=move || self.escape()
                >
                    <div class="ask-cards">
                        {keyed_list(move || ids.get(), String::clone, move |id| self.card(id))}
                    </div>
                </Modal>
            </When>
        }
        .into_any()
    }

    fn card(self, id: String) -> impl IntoView {
        // What the card shows, without the streaming text and the draft (the body is drawn
        // anew only when its stage or sentences change, not per token or keystroke).
        let shape = {
            let id = id.clone();
            memo(move || {
                self.cards.with(|cs| {
                    cs.iter().find(|s| s.id == id).map(|s| {
                        let mut v = s.card.view();
                        v.draft.clear();
                        if let StageView::Sampling { text } = &mut v.stage {
                            text.clear();
                        }
                        (v, s.models.clone())
                    })
                })
            })
        };
        let stream = {
            let id = id.clone();
            memo(move || {
                self.cards.with(|cs| {
                    cs.iter()
                        .find(|s| s.id == id)
                        .and_then(|s| match s.card.view().stage {
                            StageView::Sampling { text } => Some(text),
                            _ => None,
                        })
                        .unwrap_or_default()
                })
            })
        };
        let body_id = id.clone();
        view! {
            <section class="ask-card" id=id.clone() tabindex="-1" aria-labelledby=format!("{id}-title")>
                {move || shape.get().map(|(v, models)| self.body(body_id.clone(), v, models, stream))}
            </section>
        }
    }

    fn body(
        self,
        id: String,
        v: CardView,
        models: Vec<ModelOption>,
        stream: Memo<String>,
    ) -> AnyView {
        let CardView {
            server_name,
            lead,
            system,
            messages,
            problem,
            tools_summary,
            tools,
            details,
            stage,
            ..
        } = v;
        let title = view! {
            <h2 class="ask-title" id=format!("{id}-title")>
                <bdi class="ask-server">{server_name}</bdi>
                " wants to use your model"
            </h2>
        };
        if let StageView::Gone(why) = stage {
            let i = id.clone();
            return view! {
                {title}
                <p class="ask-gone" role="status">{why}</p>
                <div class="ask-actions">
                    <button type="button" class="ask-dismiss" on:click=move |_| self.remove(&i)>"Dismiss"</button>
                </div>
            }
            .into_any();
        }
        let draft = self
            .cards
            .with_untracked(|cs| cs.iter().find(|s| s.id == id).map(|s| s.card.view().draft))
            .unwrap_or_default();
        let rows = messages
            .into_iter()
            .map(|m| {
                let content = if m.editable {
                    let box_id = format!("{id}-last");
                    let problem_id = format!("{id}-problem");
                    let i = id.clone();
                    view! {
                        <label class="ask-role" for=box_id.clone()>{m.label}</label>
                        <textarea
                            id=box_id
                            class="ask-edit"
                            name="last"
                            dir="auto"
                            rows="3"
                            aria-invalid=if problem.is_some() { "true" } else { "false" }
                            aria-describedby=problem_id.clone()
                            prop:value=draft.clone()
                            on:input=move |ev| {
                                let text = event_target_value(&ev);
                                // The card keeps what is typed; nothing is redrawn (the box
                                // keeps its caret and selection).
                                self.cards.update_untracked(|cs| {
                                    if let Some(s) = cs.iter_mut().find(|s| s.id == i) {
                                        s.card.set_draft(&text);
                                    }
                                });
                            }
                        ></textarea>
                        <p class="error ask-error" id=problem_id>{problem.clone()}</p>
                    }
                    .into_any()
                } else {
                    view! {
                        <span class="ask-role">{m.label}</span>
                        <div class="ask-text" dir="auto">{m.text}</div>
                    }
                    .into_any()
                };
                view! { <li class="ask-msg" data-role=m.role>{content}</li> }
            })
            .collect_view();
        let tools_box = tools_summary.map(|summary| {
            let items = tools
                .into_iter()
                .map(|t| {
                    view! {
                        <li>
                            <bdi class="ask-tool">{t.name}</bdi>
                            {t.description.map(|d| format!(": {d}"))}
                        </li>
                    }
                })
                .collect_view();
            // Collapsed: a server may offer many tools, and the messages matter first.
            view! {
                <details class="ask-tools-box">
                    <summary class="ask-sub">{summary}</summary>
                    <ul class="ask-tools">{items}</ul>
                </details>
            }
        });
        let rows_dl = details
            .into_iter()
            .map(|(term, value)| view! { <dt>{term}</dt><dd>{value}</dd> })
            .collect_view();
        let (deny_id, approve_id) = (id.clone(), id.clone());
        let deny = move |label: &'static str| {
            let i = deny_id.clone();
            view! { <button type="button" class="ask-deny" on:click=move |_| self.deny(&i)>{label}</button> }
        };
        let end = match stage {
            StageView::Sampling { .. } => view! {
                <h3 class="ask-sub">"Answer"</h3>
                <div class="ask-text ask-stream" id=format!("{id}-stream") dir="auto">{move || stream.get()}</div>
                <p class="muted ask-busy" role="status">{WRITING}</p>
                <div class="ask-actions">{deny(STOP_AND_DENY)}</div>
            }
            .into_any(),
            StageView::Asking { approve, failure } => {
                let model_id = format!("{id}-model");
                let pick_id = id.clone();
                let picker = (!models.is_empty()).then(|| {
                    let start = self
                        .cards
                        .with_untracked(|cs| cs.iter().find(|s| s.id == id).map(|s| s.pick))
                        .unwrap_or(0);
                    let options = models
                        .into_iter()
                        .enumerate()
                        .map(|(i, o)| view! { <option value=i.to_string() selected=i == start>{o.label}</option> })
                        .collect_view();
                    view! {
                        <p class="ask-model">
                            <label for=model_id.clone()>{MODEL_LABEL}</label>
                            <select
                                id=model_id
                                name="model"
                                on:change=move |ev| {
                                    let at = event_target_value(&ev).parse::<usize>().unwrap_or(0);
                                    self.cards.update_untracked(|cs| {
                                        if let Some(s) = cs.iter_mut().find(|s| s.id == pick_id) {
                                            s.pick = at;
                                        }
                                    });
                                }
                            >
                                {options}
                            </select>
                        </p>
                    }
                });
                view! {
                    {failure.map(|f| view! { <p class="error ask-failure" role="alert">{f}</p> })}
                    {picker}
                    <div class="ask-actions">
                        <button type="button" class="primary ask-approve" on:click=move |_| self.approve(approve_id.clone())>
                            {approve}
                        </button>
                        {deny("Deny")}
                    </div>
                }
                .into_any()
            }
            StageView::Gone(_) => ().into_any(),
        };
        view! {
            {title}
            <p class="muted ask-lead">{lead}</p>
            {system.map(|s| view! {
                <h3 class="ask-sub">"System prompt"</h3>
                <div class="ask-text ask-system" dir="auto">{s}</div>
            })}
            <h3 class="ask-sub">"Messages"</h3>
            <ol class="ask-messages">{rows}</ol>
            {tools_box}
            <dl class="ask-details">{rows_dl}</dl>
            {end}
        }
        .into_any()
    }
}
