//! Every way the in-page model's storage and panel can fail, as typed values with the sentence
//! the user reads (`Display`). The worker sends [`JobError`] and [`Refusal`] to the page inside
//! its state; the page decides [`WorkerUnavailable`] from what its probe of the worker's files
//! found.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::sampling::Sampling;
use crate::local_model::{GgufError, UnsupportedModel};

/// Why a file, a download or a load did not end with a stored (or loaded) model. Nothing
/// half-stored remains after any of these.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobError {
    /// Not a GGUF file, or a GGUF header that cannot be read.
    NotAModel(GgufError),
    /// A GGUF model this engine cannot run (architecture, quantization, tokenizer) or a file
    /// cut short.
    CannotRun(UnsupportedModel),
    /// The file ended inside its header.
    EndsInHeader,
    /// The browser's storage is full (`needed`: the file's size, when known).
    NoRoom { needed: Option<u64> },
    /// The download was refused by the browser: from a page that is online, the server's CORS
    /// settings are by far the usual cause (fetch says no more than "failed").
    Cors { host: String },
    /// The server answered with an error status.
    ServerRefused { status: u16, status_text: String },
    /// The server's answer had no body.
    NoBody,
    /// The download broke off (the browser's words).
    DownloadStopped { detail: String },
    /// The download's body gave something other than bytes.
    NotBytes,
    /// The file could not be read (the browser's words).
    Unreadable { detail: String },
    /// Writing to the browser's storage failed for another reason than room.
    NotStored { detail: String },
    /// This browser does not let the page store models at all (its private file system was
    /// refused).
    StorageRefused { detail: String },
    /// The storage is still being opened at the worker's start.
    StorageOpening,
    /// The user cancelled it (not listed: a cancel needs no sentence).
    Cancelled,
}

impl JobError {
    /// The error for a download the browser refused before any answer.
    pub fn cors(url: &str) -> Self {
        let host = url
            .split_once("://")
            .map(|(_, rest)| rest)
            .unwrap_or(url)
            .split(['/', '?', '#'])
            .next()
            .unwrap_or(url);
        JobError::Cors {
            host: host.to_string(),
        }
    }
}

/// The browser's words end a sentence of ours: their own final period goes.
fn detail(text: &str) -> &str {
    text.trim().trim_end_matches('.')
}

impl fmt::Display for JobError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JobError::NotAModel(e) => e.fmt(f),
            JobError::CannotRun(e) => e.fmt(f),
            JobError::EndsInHeader => f.write_str(
                "This file ends inside its GGUF header: it is incomplete or not a model.",
            ),
            JobError::NoRoom { needed: Some(bytes) } => write!(
                f,
                "The browser has no room left for this model ({} MB needed): free space or delete a model.",
                bytes.div_ceil(1_000_000)
            ),
            JobError::NoRoom { needed: None } => f.write_str(
                "The browser has no room left for this model: free space or delete a model.",
            ),
            JobError::Cors { host } => write!(
                f,
                "The server of {host} does not allow this page to download from it (CORS)."
            ),
            JobError::ServerRefused {
                status,
                status_text,
            } => {
                write!(f, "The server answered {status}")?;
                if !status_text.is_empty() {
                    write!(f, " {status_text}")?;
                }
                f.write_str(" for this address.")
            }
            JobError::NoBody => f.write_str("The server sent no file."),
            JobError::DownloadStopped { detail: d } => {
                write!(f, "The download stopped: {}.", detail(d))
            }
            JobError::NotBytes => f.write_str("The download sent something other than bytes."),
            JobError::Unreadable { detail: d } => {
                write!(f, "The file could not be read: {}.", detail(d))
            }
            JobError::NotStored { detail: d } => {
                write!(f, "The model could not be stored: {}.", detail(d))
            }
            JobError::StorageRefused { detail: d } => write!(
                f,
                "This browser does not let the page store models ({}).",
                detail(d)
            ),
            JobError::StorageOpening => {
                f.write_str("The model storage is still opening; try again in a moment.")
            }
            JobError::Cancelled => f.write_str("Cancelled."),
        }
    }
}

impl std::error::Error for JobError {}

/// A value typed into the panel that was refused, or a setting the worker could not store.
/// The stored value stays either way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    /// A sampling default outside what the engine takes.
    OutOfRange { setting: Sampling },
    /// The browser refused to write the model's settings.
    NotStored,
    /// A download address that is not http(s).
    NotAnAddress,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::OutOfRange { setting } => {
                let (min, max) = setting.range_text();
                let what = if setting.is_whole() {
                    "a whole number"
                } else {
                    "a number"
                };
                write!(f, "{} must be {what} from {min} to {max}.", setting.label())
            }
            Refusal::NotStored => {
                f.write_str("The setting could not be stored; the browser refused to write it.")
            }
            Refusal::NotAnAddress => {
                f.write_str("A model can be downloaded only from an http:// or https:// address.")
            }
        }
    }
}

impl std::error::Error for Refusal {}

/// Why the panel cannot reach the model worker. The page serves before the worker finishes
/// compiling (`scripts/serve.sh`), so a missing worker is an expected state, not a crash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkerUnavailable {
    /// The worker's script is not on the server (404): this copy was served before the worker
    /// was built, or copied without it.
    NotBuilt,
    /// The script could not be fetched at all: not stored for offline use, and no network.
    Unreachable,
    /// The script is there but the worker failed (the browser's words).
    Failed { detail: String },
}

impl WorkerUnavailable {
    /// What a failed start means, from a look at the worker's script: `status` is the
    /// server's answer for it (`None`: no answer at all), `detail` the worker's error.
    pub fn from_probe(status: Option<u16>, detail: &str) -> Self {
        match status {
            Some(404) => WorkerUnavailable::NotBuilt,
            None => WorkerUnavailable::Unreachable,
            Some(_) => WorkerUnavailable::Failed {
                detail: detail.to_string(),
            },
        }
    }
}

impl fmt::Display for WorkerUnavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkerUnavailable::NotBuilt => f.write_str(
                "The in-page model is still being built: this page was served before its model worker finished compiling (or was copied without it). Try again in a few minutes.",
            ),
            WorkerUnavailable::Unreachable => f.write_str(
                "The model worker could not be fetched: it is not stored in this browser yet and the network did not answer. Open this once while online.",
            ),
            WorkerUnavailable::Failed { detail: d } if d.trim().is_empty() => f.write_str(
                "The model worker could not start. Reload the page; it is stored for offline use once it has run while online.",
            ),
            WorkerUnavailable::Failed { detail: d } => write!(
                f,
                "The model worker could not start ({}). Reload the page; it is stored for offline use once it has run while online.",
                detail(d)
            ),
        }
    }
}
