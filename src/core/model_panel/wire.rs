//! The messages between the page and the model worker, as types both sides compile: the page
//! (`platform::local_model`) and the worker (`src/worker/src/web`) each serialize and read
//! these, so a message one side sends and the other does not know is a compile error, not a
//! string dropped in JavaScript.
//!
//! On the wire each message is JSON text (`to_json`/`from_json`); the only thing that travels
//! beside it is the `File` of [`ToWorker::AddFile`], which no JSON can carry.
//!
//! Deliberately not here: what a message means for the worker's storage or engine (the
//! worker's `store`), or how the panel shows the state ([`super::view`]).

use serde::{Deserialize, Serialize};

use super::failure::{JobError, Refusal};
use super::sampling::SamplingValue;
use crate::records::capabilities::{Capabilities, ModelEntry};

/// What the page asks of the worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ToWorker {
    /// A request to the in-browser model as if it were an OpenAI-compatible server: `path`
    /// under `provider::IN_BROWSER_BASE`, `body` the request's JSON. Answered by
    /// [`FromWorker::Head`], then [`FromWorker::Chunk`]s, then [`FromWorker::End`].
    Fetch { id: u64, path: String, body: String },
    /// The page no longer wants request `id` (Stop, or its reader let go).
    Abort { id: u64 },
    /// Send the state now (a panel opened and has nothing to show yet).
    Report,
    /// Store the `File` that travels beside this message.
    AddFile,
    /// Download a model from `url` and store it.
    AddUrl { url: String },
    /// Stop a file being stored or a download (a load is stopped by ending the worker).
    Cancel { job: u64 },
    /// Forget a failed job's sentence.
    Dismiss { job: u64 },
    /// Delete a stored model, file and all.
    Delete { model: String },
    /// The context (tokens) a model runs with.
    SetContext { model: String, context: u64 },
    /// One of a model's sampling defaults, already checked by the page.
    SetSampling { model: String, value: SamplingValue },
}

/// What the worker tells the page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum FromWorker {
    /// Request `id` has an answer: its status, and whether its body is an SSE stream.
    Head { id: u64, status: u16, sse: bool },
    /// The next piece of request `id`'s body.
    Chunk { id: u64, text: String },
    /// Request `id`'s body is complete.
    End { id: u64 },
    /// Everything the panel shows, after every change.
    State(WorkerState),
}

/// A message that could not be read: a page and a worker from different builds (the service
/// worker keeps a worker of the build it cached), or a bug.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireError(pub String);

impl std::fmt::Display for WireError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "The model worker and this page do not understand each other ({}); reload the page.",
            self.0
        )
    }
}

macro_rules! json_both_ways {
    ($ty:ty) => {
        impl $ty {
            /// The message as the JSON text that travels.
            pub fn to_json(&self) -> String {
                // Serializing these types cannot fail: every map key is a string and every
                // value a plain number, string or list.
                serde_json::to_string(self).unwrap_or_default()
            }

            pub fn from_json(text: &str) -> Result<Self, WireError> {
                serde_json::from_str(text).map_err(|e| WireError(e.to_string()))
            }
        }
    };
}
json_both_ways!(ToWorker);
json_both_ways!(FromWorker);

/// The worker's state: the stored models, the jobs under way (and failed ones not yet
/// dismissed), what is loaded and answering.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct WorkerState {
    /// Newest first.
    pub models: Vec<StoredModel>,
    pub jobs: Vec<Job>,
    pub loaded: Option<Loaded>,
    /// The model answering a request now.
    pub generating: Option<String>,
    /// Requests waiting for it.
    pub waiting: u32,
    /// Why nothing can be stored in this browser at all (its storage refused the page).
    pub storage: Option<JobError>,
    /// The last setting the worker could not store (the old value stays).
    pub refused: Option<Refusal>,
}

impl WorkerState {
    /// The stored models as a provider's model list (newest first), with what their files
    /// say: the window they run with, their size, whether they can chat.
    pub fn model_entries(&self) -> Vec<ModelEntry> {
        self.models
            .iter()
            .map(|m| {
                let caps = Capabilities {
                    window: u32::try_from(m.context).ok().filter(|c| *c > 0),
                    parameters: m.parameters,
                    chat_template: m.chat_template,
                    ..Capabilities::default()
                };
                ModelEntry::new(m.id.clone(), caps)
            })
            .collect()
    }

    /// What still holds once the worker was ended (a load's Cancel): the stored models are
    /// files; jobs, the loaded model and waiting requests went with it.
    pub fn after_restart(&self) -> WorkerState {
        WorkerState {
            models: self.models.clone(),
            storage: self.storage.clone(),
            ..WorkerState::default()
        }
    }
}

/// A stored model as the panel lists it (the worker's sidecar record, less what only the
/// worker needs).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct StoredModel {
    /// The file's name, cleaned: what chats name the model by.
    pub id: String,
    /// The GGUF's own `general.name`.
    pub name: String,
    pub architecture: String,
    pub quantization: String,
    /// The model's own maximum context, when the file says.
    pub context_length: Option<u64>,
    /// The context the user set (tokens).
    pub context: u64,
    /// File size in bytes.
    pub size: u64,
    pub parameters: Option<u64>,
    /// Whether the file carries a chat template (`None`: stored before this was recorded).
    pub chat_template: Option<bool>,
    /// The sampling defaults the user set (used when a chat does not set them).
    pub top_k: Option<u64>,
    pub repeat_penalty: Option<f64>,
    pub seed: Option<u64>,
}

/// What a job is doing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// A file from this computer being copied into the browser's storage.
    #[default]
    File,
    /// A download from an address.
    Url,
    /// A stored model being read into memory for a chat.
    Load,
}

crate::names::named_enum!(JobKind, "model job", {
    File => "file",
    Url => "url",
    Load => "load",
});

impl JobKind {
    /// The verb its line opens with.
    pub fn verb(self) -> &'static str {
        match self {
            JobKind::File => "Storing",
            JobKind::Url => "Downloading",
            JobKind::Load => "Loading",
        }
    }

    /// Whether the adds are what a load's Cancel also stops (ending the worker ends them).
    pub fn is_add(self) -> bool {
        !matches!(self, JobKind::Load)
    }
}

/// A file being stored, a download, or a load; or one that failed (its `error`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Job {
    pub job: u64,
    pub kind: JobKind,
    /// The file's name (or the model's id, for a load).
    pub name: String,
    pub bytes: u64,
    pub total: Option<u64>,
    /// When it started (epoch ms): the rate so far predicts the time left.
    pub started_ms: f64,
    /// Why it failed; a failed job stays listed until dismissed or the next add.
    pub error: Option<JobError>,
}

/// The model in memory.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Loaded {
    pub model: String,
    pub context: u64,
    pub load_ms: f64,
    /// The worker's memory after the load, then the peak after each answer.
    pub bytes: u64,
}
