//! What the panel shows, built from the worker's state: plain values a component lays out
//! as they are (every sentence, number and choice decided here).

use super::failure::Refusal;
use super::sampling::Sampling;
use super::wire::{Job, JobKind, Loaded, StoredModel, WorkerState};
use crate::format::{fixed, human_bytes};

/// The contexts offered, capped by the model's own maximum. Memory grows with the context
/// (the key-value cache), so the choice is the user's.
const CONTEXTS: [u64; 7] = [512, 1024, 2048, 4096, 8192, 16384, 32768];

/// The whole panel below its add controls.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PanelView {
    /// A refused input or setting, or storage the browser refuses: shown above the list.
    pub notice: Option<String>,
    pub jobs: Vec<JobView>,
    /// "Loaded: smollm2, context 2048 tokens, in 1.2 s, 180 MB of memory · answering."
    pub loaded: Option<String>,
    /// Newest first; empty shows "No model is stored yet."
    pub models: Vec<ModelView>,
}

/// One job's line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobView {
    pub job: u64,
    pub kind: JobKind,
    /// "Downloading gemma.gguf" (also the progress bar's and Cancel's name).
    pub title: String,
    /// Progress in thousandths, when the size is known.
    pub permille: Option<u32>,
    /// "25 MB of 100 MB · 30 s left".
    pub line: String,
    /// "notes.txt: This file is not a GGUF model." for a failed job (then no progress).
    pub failure: Option<String>,
    /// Its Cancel button's name: "Cancel downloading gemma.gguf".
    pub cancel_label: String,
}

/// One stored model's row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelView {
    /// The file's name, which chats use.
    pub id: String,
    /// The GGUF's own name, as a tooltip, when it says something the id does not.
    pub title: Option<String>,
    /// "llama · Q4_1 · 135 M parameters · 98 MB · up to 8192 tokens".
    pub facts: String,
    pub context: u64,
    /// The contexts offered, the current one among them.
    pub contexts: Vec<u64>,
    /// Each sampling default and its value as shown (empty: the default).
    pub sampling: Vec<(Sampling, String)>,
    /// Its Delete waits for the second click.
    pub confirming: bool,
    /// A value typed into one of its fields that was refused (beside the fields).
    pub notice: Option<String>,
}

/// Builds the view. `confirming`: the model whose Delete was clicked once; `refusal`: what the
/// page refused last, with the model whose field it was; `now_ms`: the clock, for time left.
pub(crate) fn build(
    state: &WorkerState,
    confirming: Option<&str>,
    refusal: Option<(Option<&str>, &Refusal)>,
    now_ms: f64,
) -> PanelView {
    // A refused field's sentence goes beside it; one of its model's fields if that model is
    // listed, else above the list.
    let listed = |id: &str| state.models.iter().any(|m| m.id == id);
    let (beside, above) = match refusal {
        Some((Some(model), why)) if listed(model) => (Some((model, why.to_string())), None),
        Some((_, why)) => (None, Some(why.to_string())),
        None => (None, None),
    };
    let notice = above
        .or_else(|| state.refused.as_ref().map(ToString::to_string))
        .or_else(|| state.storage.as_ref().map(ToString::to_string));
    PanelView {
        notice,
        jobs: state.jobs.iter().map(|j| job_view(j, now_ms)).collect(),
        loaded: state.loaded.as_ref().map(|l| loaded_line(l, state)),
        models: state
            .models
            .iter()
            .map(|m| {
                let mut v = model_view(m, confirming == Some(m.id.as_str()));
                v.notice = beside
                    .as_ref()
                    .filter(|(id, _)| *id == m.id)
                    .map(|(_, why)| why.clone());
                v
            })
            .collect(),
    }
}

fn loaded_line(l: &Loaded, state: &WorkerState) -> String {
    let mut line = format!(
        "Loaded: {}, context {} tokens, in {} s, {} of memory",
        l.model,
        l.context,
        fixed(l.load_ms / 1000.0, 1),
        human_bytes(l.bytes)
    );
    if state.generating.is_some() {
        line.push_str(" · answering");
    }
    if state.waiting > 0 {
        line.push_str(&format!(" · {} waiting", state.waiting));
    }
    line.push('.');
    line
}

fn job_view(job: &Job, now_ms: f64) -> JobView {
    let title = format!("{} {}", job.kind.verb(), job.name);
    let failure = job.error.as_ref().map(|e| format!("{}: {e}", job.name));
    let permille = job
        .total
        .filter(|t| *t > 0 && failure.is_none())
        .map(|total| {
            // At most 1000 by the `min`; rounding a ratio in [0, 1] cannot overflow.
            (job.bytes.min(total) as f64 / total as f64 * 1000.0).round() as u32
        });
    JobView {
        job: job.job,
        kind: job.kind,
        cancel_label: format!("Cancel {} {}", job.kind.verb().to_lowercase(), job.name),
        title,
        permille,
        line: progress_line(job, now_ms),
        failure,
    }
}

fn model_view(m: &StoredModel, confirming: bool) -> ModelView {
    let mut facts = vec![m.architecture.clone(), m.quantization.clone()];
    if let Some(p) = m.parameters.filter(|p| *p > 0) {
        facts.push(parameters(p));
    }
    facts.push(human_bytes(m.size));
    if let Some(max) = m.context_length {
        facts.push(format!("up to {max} tokens"));
    }
    // Said before it is used: a base model continues text rather than answering.
    if m.chat_template == Some(false) {
        facts.push("base model: no chat template".to_string());
    }
    ModelView {
        id: m.id.clone(),
        // The id is the file's name, which the user chose and the chat's model list shows;
        // the GGUF's own `general.name` ("Smollm2 135M 8k Lc100K Mix1 Ep2") is a tooltip.
        title: Some(m.name.clone()).filter(|n| !n.is_empty() && *n != m.id),
        facts: facts.join(" · "),
        context: m.context,
        contexts: context_choices(m.context_length.unwrap_or(0), m.context),
        sampling: Sampling::ALL.iter().map(|&s| (s, s.shown(m))).collect(),
        confirming,
        notice: None,
    }
}

/// "12 MB of 98 MB · 8 s left": the rate so far predicts the rest (nothing is promised
/// before a second has passed or when the size is unknown).
pub fn progress_line(job: &Job, now_ms: f64) -> String {
    let mut line = human_bytes(job.bytes);
    if let Some(total) = job.total.filter(|t| *t > 0) {
        line = format!("{line} of {}", human_bytes(total));
        let elapsed = now_ms - job.started_ms;
        if elapsed >= 1000.0 && job.bytes > 0 && job.bytes < total {
            let left_s = (total - job.bytes) as f64 * elapsed / job.bytes as f64 / 1000.0;
            line.push_str(" · ");
            line.push_str(&time_left(left_s));
        }
    }
    line
}

pub(crate) fn time_left(seconds: f64) -> String {
    let s = seconds.ceil().max(1.0);
    if s < 60.0 {
        format!("{} s left", fixed(s, 0))
    } else if s < 3600.0 {
        format!("{} min left", fixed((s / 60.0).ceil(), 0))
    } else {
        format!("{} h left", fixed(s / 3600.0, 1))
    }
}

/// "135 M parameters", "1.0 B parameters".
fn parameters(n: u64) -> String {
    if n >= 1_000_000_000 {
        format!("{} B parameters", fixed(n as f64 / 1e9, 1))
    } else {
        format!("{} M parameters", fixed(n as f64 / 1e6, 0))
    }
}

/// The offered contexts up to the model's maximum, with the current one always among them.
pub(crate) fn context_choices(max: u64, current: u64) -> Vec<u64> {
    let mut v: Vec<u64> = CONTEXTS
        .iter()
        .copied()
        .filter(|c| max == 0 || *c <= max)
        .collect();
    if max > 0 && !v.contains(&max) {
        v.push(max);
    }
    if current > 0 && !v.contains(&current) {
        v.push(current);
        crate::order::sort_by_key(&mut v, |c| *c);
    }
    v
}
