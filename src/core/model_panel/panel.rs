//! The panel's decisions: what each click or edit does (a message to the worker, a question
//! first, or ending the worker), the page's own view state (which Delete waits for its second
//! click, what input was refused last), and what is worth announcing.

use super::failure::Refusal;
use super::sampling::Sampling;
use super::view::{build, PanelView};
use super::wire::{JobKind, ToWorker, WorkerState};

/// What the user did in the panel. Files are handed to the worker directly (a `File` is the
/// browser's and is not checked here; the worker reads its header).
#[derive(Debug, Clone, PartialEq)]
pub enum Intent {
    /// Download from the address typed.
    AddUrl(String),
    /// A job's Cancel.
    Cancel { job: u64 },
    /// Yes to the question a load's Cancel asked.
    CancelLoadConfirmed,
    /// Forget a failed job.
    Dismiss { job: u64 },
    /// A model's first Delete click.
    AskDelete { model: String },
    /// "Keep" instead of the second click.
    Keep,
    /// The second click.
    Delete { model: String },
    /// A context chosen (the `<select>`'s value).
    SetContext { model: String, value: String },
    /// A sampling default typed.
    SetSampling {
        model: String,
        setting: Sampling,
        text: String,
    },
}

/// What the page must do for an intent.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    Send(ToWorker),
    /// Ask this question first; [`Intent::CancelLoadConfirmed`] is the yes.
    Confirm(String),
    /// End the worker and start a fresh one: a load is synchronous, so the worker reads no
    /// message until it ends. Answers waiting on it end as stopped ones do.
    EndWorker,
}

/// The page's side of the panel.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Panel {
    confirming: Option<String>,
    /// What was refused last, and the model whose field it was (shown beside that field).
    refusal: Option<(Option<String>, Refusal)>,
}

impl Panel {
    /// Decides what `intent` does, given the worker's last state.
    pub fn handle(&mut self, intent: Intent, state: &WorkerState) -> Option<Effect> {
        match intent {
            Intent::AddUrl(text) => {
                let url = text.trim();
                if url.is_empty() {
                    return None;
                }
                let scheme = url.split_once("://").map(|(s, _)| s.to_ascii_lowercase());
                if !matches!(scheme.as_deref(), Some("http" | "https")) {
                    self.refusal = Some((None, Refusal::NotAnAddress));
                    return None;
                }
                self.refusal = None;
                Some(Effect::Send(ToWorker::AddUrl {
                    url: url.to_string(),
                }))
            }
            Intent::Cancel { job } => {
                let kind = state.jobs.iter().find(|j| j.job == job)?.kind;
                if kind != JobKind::Load {
                    return Some(Effect::Send(ToWorker::Cancel { job }));
                }
                let adding = state
                    .jobs
                    .iter()
                    .filter(|j| j.kind.is_add() && j.error.is_none())
                    .count();
                Some(match adding {
                    0 => Effect::EndWorker,
                    1 => Effect::Confirm(
                        "Cancelling the load also stops the model being added. Cancel the load?"
                            .to_string(),
                    ),
                    n => Effect::Confirm(format!(
                        "Cancelling the load also stops the {n} models being added. Cancel the load?"
                    )),
                })
            }
            Intent::CancelLoadConfirmed => Some(Effect::EndWorker),
            Intent::Dismiss { job } => Some(Effect::Send(ToWorker::Dismiss { job })),
            Intent::AskDelete { model } => {
                self.confirming = Some(model);
                None
            }
            Intent::Keep => {
                self.confirming = None;
                None
            }
            Intent::Delete { model } => {
                self.confirming = None;
                Some(Effect::Send(ToWorker::Delete { model }))
            }
            Intent::SetContext { model, value } => {
                let context = value.trim().parse::<u64>().ok()?;
                Some(Effect::Send(ToWorker::SetContext { model, context }))
            }
            Intent::SetSampling {
                model,
                setting,
                text,
            } => match setting.parse(&text) {
                Ok(value) => {
                    self.refusal = None;
                    Some(Effect::Send(ToWorker::SetSampling { model, value }))
                }
                Err(why) => {
                    self.refusal = Some((Some(model), why));
                    None
                }
            },
        }
    }

    /// What to show for the worker's `state` at `now_ms`.
    pub fn view(&self, state: &WorkerState, now_ms: f64) -> PanelView {
        let (model, refusal) = match &self.refusal {
            Some((model, why)) => (model.as_deref(), Some(why)),
            None => (None, None),
        };
        build(
            state,
            self.confirming.as_deref(),
            refusal.map(|why| (model, why)),
            now_ms,
        )
    }
}

/// A sentence for the page's live region when the stored models change (a failure needs none:
/// its line is an alert of its own).
pub fn announcement(before: &WorkerState, after: &WorkerState) -> Option<String> {
    let had = |s: &WorkerState, id: &str| s.models.iter().any(|m| m.id == id);
    if let Some(new) = after.models.iter().find(|m| !had(before, &m.id)) {
        return Some(format!("{} is stored in this browser.", new.id));
    }
    let gone = before.models.iter().find(|m| !had(after, &m.id))?;
    Some(format!("{} was deleted.", gone.id))
}
