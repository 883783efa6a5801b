//! Settings → Providers → "In this browser": the panel of the models stored in the page, as
//! typed values, and the messages between the page and the model worker (`src/worker`).
//!
//! - [`wire`]: every message either side sends ([`ToWorker`], [`FromWorker`]) and the state
//!   the worker reports ([`WorkerState`]); both crates compile these types.
//! - [`failure`]: every failure as a typed value with its sentence.
//! - [`sampling`]: a model's sampling defaults, their ranges, and reading a typed value.
//! - [`panel`]: what each intent does ([`Panel::handle`] → [`Effect`]) and the view the
//!   component lays out ([`Panel::view`] → [`PanelView`]).
//! - [`welcome`]: the welcome screen's offer of a suggested model, and where its download is.
//!
//! Deliberately not here: markup (the page's `ui::model_panel` draws it), reading files,
//! storage, or the worker's engine.

pub mod failure;
pub mod panel;
pub mod sampling;
pub mod view;
pub mod welcome;
pub mod wire;

pub use failure::{JobError, Refusal, WorkerUnavailable};
pub use panel::{announcement, Effect, Intent, Panel};
pub use sampling::{Sampling, SamplingValue};
pub use view::{progress_line, JobView, ModelView, PanelView};
pub use wire::{FromWorker, Job, JobKind, Loaded, StoredModel, ToWorker, WireError, WorkerState};

#[cfg(test)]
mod tests;
