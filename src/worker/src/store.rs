//! The rules of model storage, as plain data: model ids from file names, the sidecar record
//! written next to each stored model, the download jobs and their throttled progress, what
//! to clean up at startup, how a header arriving in pieces is accepted or refused, and the
//! state the page shows (`skiff_core::model_panel::WorkerState`). `web/opfs.rs` performs the
//! file operations.

use serde::{Deserialize, Serialize};
use skiff_core::local_model::{read_header, GgufError, GgufHeader, ModelInfo, MAX_HEADER_BYTES};
use skiff_core::model_panel::wire;
pub use skiff_core::model_panel::{JobError, JobKind, Loaded, Refusal, SamplingValue};

/// The directory in the origin private file system that holds models.
pub const MODELS_DIR: &str = "models";
/// A context larger than this is never the default: RoPE tables and KV cache grow with it.
pub const DEFAULT_CONTEXT_CAP: u64 = 2048;
/// The smallest context a user may set (a system prompt and a question need some room).
pub const MIN_CONTEXT: u64 = 256;
/// Progress reports per job are at most one per this many ms (≤ 4 per second).
pub const PROGRESS_INTERVAL_MS: f64 = 250.0;

/// The sidecar `<id>.json`: what the listing shows without opening the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRecord {
    pub id: String,
    pub name: String,
    pub architecture: String,
    pub quantization: String,
    pub context_length: Option<u64>,
    /// The context the user set (tokens), default min(2048, context_length).
    pub context: u64,
    /// File size in bytes.
    pub size: u64,
    pub parameters: Option<u64>,
    /// Whether the file has a chat template (absent in sidecars written before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chat_template: Option<bool>,
    pub added_ms: f64,
    /// The user's sampling defaults for this model, used when a request does not set them
    /// (the page sends temperature, top-p and max tokens from its profile, not these).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_k: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repeat_penalty: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

impl ModelRecord {
    pub fn new(id: &str, info: &ModelInfo, added_ms: f64) -> Self {
        Self {
            id: id.to_string(),
            name: info.name.clone(),
            architecture: info.architecture.as_str().to_string(),
            quantization: info.quantization.clone(),
            context_length: info.context_length,
            context: default_context(info.context_length),
            size: info.file_size,
            parameters: info.parameter_count,
            chat_template: Some(info.has_chat_template),
            added_ms,
            top_k: None,
            repeat_penalty: None,
            seed: None,
        }
    }

    /// The record with one sampling default set (the page checked it:
    /// `skiff_core::model_panel::Sampling::parse`); `None` clears it.
    pub fn with_sampling(&self, value: SamplingValue) -> Self {
        let mut r = self.clone();
        match value {
            SamplingValue::TopK(v) => r.top_k = v,
            SamplingValue::RepeatPenalty(v) => r.repeat_penalty = v,
            SamplingValue::Seed(v) => r.seed = v,
        }
        r
    }

    /// The record as the panel lists it.
    pub fn listed(&self) -> wire::StoredModel {
        wire::StoredModel {
            id: self.id.clone(),
            name: self.name.clone(),
            architecture: self.architecture.clone(),
            quantization: self.quantization.clone(),
            context_length: self.context_length,
            context: self.context,
            size: self.size,
            parameters: self.parameters,
            chat_template: self.chat_template,
            top_k: self.top_k,
            repeat_penalty: self.repeat_penalty,
            seed: self.seed,
        }
    }

    /// The user's context, kept within [MIN_CONTEXT, context_length].
    pub fn with_context(&self, requested: u64) -> Self {
        let max = self.context_length.unwrap_or(u64::MAX).max(MIN_CONTEXT);
        Self {
            context: requested.clamp(MIN_CONTEXT, max),
            ..self.clone()
        }
    }
}

pub fn default_context(context_length: Option<u64>) -> u64 {
    context_length
        .unwrap_or(DEFAULT_CONTEXT_CAP)
        .min(DEFAULT_CONTEXT_CAP)
}

/// A model id from a file name: the name without `.gguf`, reduced to letters, digits, `.`,
/// `_` and `-` (ids appear in file names and in request bodies), made unique against
/// `taken` with `-2`, `-3`….
pub fn model_id(file_name: &str, taken: &[String]) -> String {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let base = match base.len().checked_sub(5) {
        Some(cut) if base.is_char_boundary(cut) && base[cut..].eq_ignore_ascii_case(".gguf") => {
            &base[..cut]
        }
        _ => base,
    };
    let mut id = String::with_capacity(base.len());
    for c in base.chars() {
        let keep = c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        let c = if keep { c } else { '-' };
        if c == '-' && id.ends_with('-') {
            continue;
        }
        id.push(c);
    }
    let mut id: String = id
        .trim_matches(|c| c == '-' || c == '.')
        .chars()
        .take(80)
        .collect();
    if id.is_empty() {
        id = "model".to_string();
    }
    if !taken.contains(&id) {
        return id;
    }
    (2..)
        .map(|n| format!("{id}-{n}"))
        .find(|candidate| !taken.contains(candidate))
        .unwrap_or(id)
}

/// Which names in the models directory to delete at startup: every `.part` (an add that
/// did not finish), a `.gguf` without its sidecar (the sidecar is written first, so the
/// add did not finish), and a sidecar without its `.gguf` (the part was never moved).
pub fn cleanup(names: &[String]) -> Vec<String> {
    let has = |n: &str| names.iter().any(|x| x == n);
    names
        .iter()
        .filter(|n| {
            if n.ends_with(".part") {
                return true;
            }
            if let Some(id) = n.strip_suffix(".gguf") {
                return !has(&format!("{id}.json"));
            }
            if let Some(id) = n.strip_suffix(".json") {
                return !has(&format!("{id}.gguf"));
            }
            false
        })
        .cloned()
        .collect()
}

/// Accepts a GGUF header arriving in pieces (a download or a file read in chunks).
#[derive(Debug, Default)]
pub struct HeaderProbe {
    prefix: Vec<u8>,
    need: u64,
    header: Option<GgufHeader>,
}

/// What the probe knows after a piece.
#[derive(Debug, PartialEq)]
pub enum Probe {
    /// Keep feeding.
    NeedMore,
    /// The header is read and the model accepted (as far as a header can tell).
    Accepted,
    /// Not a model this worker can store, and why.
    Refused(JobError),
}

impl HeaderProbe {
    /// Feeds the next bytes of the file (from its start, in order). `total` is the file size
    /// if known. After `Accepted`, further pieces are ignored.
    pub fn feed(&mut self, bytes: &[u8], total: Option<u64>) -> Probe {
        if self.header.is_some() {
            return Probe::Accepted;
        }
        self.prefix.extend_from_slice(bytes);
        if (self.prefix.len() as u64) < self.need {
            return Probe::NeedMore;
        }
        match read_header(&self.prefix) {
            Ok(header) => {
                // Only the header's view of the size can be checked now; the final check
                // with the real size happens in `finish`.
                let size = total.unwrap_or(u64::MAX);
                match ModelInfo::from_header(&header, size) {
                    Ok(_) => {
                        self.header = Some(header);
                        self.prefix = Vec::new();
                        Probe::Accepted
                    }
                    Err(e) => Probe::Refused(JobError::CannotRun(e)),
                }
            }
            Err(GgufError::NeedMore { at_least }) if at_least <= MAX_HEADER_BYTES => {
                // `at_least` is only the end of the next field: wait for half as much again
                // before re-parsing from the start, so a large header is parsed a few times,
                // not once per chunk.
                let grown = self.prefix.len() as u64 + self.prefix.len() as u64 / 2;
                self.need = at_least.max(grown).min(MAX_HEADER_BYTES);
                Probe::NeedMore
            }
            Err(e) => Probe::Refused(JobError::NotAModel(e)),
        }
    }

    /// Once every byte arrived: the model's description, checked against the real size.
    pub fn finish(&self, size: u64) -> Result<ModelInfo, JobError> {
        match &self.header {
            Some(h) => ModelInfo::from_header(h, size).map_err(JobError::CannotRun),
            None => Err(match read_header(&self.prefix) {
                Err(GgufError::NeedMore { .. }) | Ok(_) => JobError::EndsInHeader,
                Err(e) => JobError::NotAModel(e),
            }),
        }
    }
}

/// One add or load in progress (or just ended).
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub job: u64,
    pub kind: JobKind,
    pub name: String,
    pub bytes: u64,
    pub total: Option<u64>,
    pub started_ms: f64,
    pub error: Option<JobError>,
    pub done: bool,
    pub cancelled: bool,
    reported_ms: f64,
}

impl Job {
    pub fn start(job: u64, kind: JobKind, name: &str, total: Option<u64>, now_ms: f64) -> Self {
        Self {
            job,
            kind,
            name: name.to_string(),
            bytes: 0,
            total,
            started_ms: now_ms,
            error: None,
            done: false,
            cancelled: false,
            reported_ms: now_ms,
        }
    }

    /// Records progress; true when the page should hear about it (throttled).
    pub fn progress(&mut self, bytes: u64, now_ms: f64) -> bool {
        self.bytes = bytes;
        if now_ms - self.reported_ms >= PROGRESS_INTERVAL_MS {
            self.reported_ms = now_ms;
            true
        } else {
            false
        }
    }

    pub fn succeed(&mut self) {
        self.done = true;
        self.error = None;
    }

    pub fn fail(&mut self, error: JobError) {
        self.done = true;
        self.error = Some(error);
    }

    /// The job as the panel shows it.
    pub fn listed(&self) -> wire::Job {
        wire::Job {
            job: self.job,
            kind: self.kind,
            name: self.name.clone(),
            bytes: self.bytes,
            total: self.total,
            started_ms: self.started_ms,
            error: self.error.clone(),
        }
    }
}

/// The request being answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Generating {
    pub model: String,
    pub id: u64,
}

/// What the worker holds, as the panel shows it.
pub struct Report<'a> {
    pub models: &'a [ModelRecord],
    pub jobs: &'a [Job],
    pub loaded: Option<&'a Loaded>,
    pub generating: Option<&'a Generating>,
    pub waiting: usize,
    pub storage: Option<&'a JobError>,
    pub refused: Option<&'a Refusal>,
}

impl Report<'_> {
    pub fn state(&self) -> wire::WorkerState {
        wire::WorkerState {
            models: self.models.iter().map(ModelRecord::listed).collect(),
            jobs: self.jobs.iter().map(Job::listed).collect(),
            loaded: self.loaded.cloned(),
            generating: self.generating.map(|g| g.model.clone()),
            waiting: u32::try_from(self.waiting).unwrap_or(u32::MAX),
            storage: self.storage.cloned(),
            refused: self.refused.cloned(),
        }
    }
}

/// The models sorted newest first, as listed and as chosen for an empty `model` field.
pub fn sort_newest_first(models: &mut [ModelRecord]) {
    // The repository's one sort (clippy.toml disallows the slice sorts).
    skiff_core::order::sort_by(models, |a, b| {
        b.added_ms
            .total_cmp(&a.added_ms)
            .then_with(|| a.id.cmp(&b.id))
    });
}

/// The `/models` answer in OpenAI's list shape.
pub fn models_list_json(models: &[ModelRecord]) -> String {
    let data: Vec<_> = models
        .iter()
        .map(|m| serde_json::json!({"id": m.id, "object": "model", "owned_by": "this browser"}))
        .collect();
    serde_json::json!({"object": "list", "data": data}).to_string()
}
