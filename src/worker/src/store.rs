//! The rules of model storage, as plain data: model ids from file names, the sidecar record
//! written next to each stored model, the download jobs and their throttled progress, what
//! to clean up at startup, how a header arriving in pieces is accepted or refused, and the
//! state JSON the page renders. `web/opfs.rs` performs the file operations.

use serde::{Deserialize, Serialize};
use skiff_core::local_model::{read_header, GgufError, GgufHeader, ModelInfo, MAX_HEADER_BYTES};

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
            added_ms,
            top_k: None,
            repeat_penalty: None,
            seed: None,
        }
    }

    /// The record with one sampling default set from the panel's field (`name`, `value` as
    /// typed; empty clears it). A value out of range is refused with a sentence.
    pub fn with_sampling(&self, name: &str, value: &str) -> Result<Self, String> {
        let mut r = self.clone();
        let v = value.trim();
        match name {
            "top_k" => r.top_k = parse_in(v, 1.0, 1000.0, "Top k", true)?.map(|n| n as u64),
            "repeat_penalty" => r.repeat_penalty = parse_in(v, 1.0, 2.0, "Repeat penalty", false)?,
            "seed" => r.seed = parse_in(v, 0.0, 4_294_967_295.0, "Seed", true)?.map(|n| n as u64),
            _ => return Err(format!("\"{name}\" is not a sampling setting.")),
        }
        Ok(r)
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
    /// Not a model this worker can store: the sentence for the user.
    Refused(String),
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
                    Err(e) => Probe::Refused(e.to_string()),
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
            Err(e) => Probe::Refused(e.to_string()),
        }
    }

    /// Once every byte arrived: the model's description, checked against the real size.
    pub fn finish(&self, size: u64) -> Result<ModelInfo, String> {
        match &self.header {
            Some(h) => ModelInfo::from_header(h, size).map_err(|e| e.to_string()),
            None => Err(match read_header(&self.prefix) {
                Err(GgufError::NeedMore { .. }) | Ok(_) => {
                    "This file ends inside its GGUF header: it is incomplete or not a model."
                        .to_string()
                }
                Err(e) => e.to_string(),
            }),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JobKind {
    File,
    Url,
    /// A stored model being read into memory for a chat (panel: "Loading").
    Load,
}

/// One add in progress (or just ended) as the page shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Job {
    pub job: u64,
    pub kind: JobKind,
    pub name: String,
    pub bytes: u64,
    pub total: Option<u64>,
    pub started_ms: f64,
    pub error: Option<String>,
    pub done: bool,
    #[serde(skip)]
    pub cancelled: bool,
    #[serde(skip)]
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

    pub fn fail(&mut self, sentence: String) {
        self.done = true;
        self.error = Some(sentence);
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Loaded {
    pub model: String,
    pub context: u64,
    pub load_ms: f64,
    /// wasm memory size after load, then after each generation (it only grows: the peak).
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Generating {
    pub model: String,
    pub id: u64,
}

/// The `state` message's JSON.
pub fn state_json(
    models: &[ModelRecord],
    jobs: &[Job],
    loaded: Option<&Loaded>,
    generating: Option<&Generating>,
    waiting: usize,
) -> String {
    serde_json::json!({
        "models": models,
        "jobs": jobs,
        "loaded": loaded,
        "generating": generating,
        "waiting": waiting,
    })
    .to_string()
}

/// The sentence for a full storage quota.
pub fn quota_sentence(needed_bytes: Option<u64>) -> String {
    let mb = needed_bytes.map(|b| b.div_ceil(1_000_000));
    match mb {
        Some(mb) => format!(
            "The browser has no room left for this model ({mb} MB needed): free space or delete a model."
        ),
        None => "The browser has no room left for this model: free space or delete a model.".to_string(),
    }
}

/// The sentence for a download the server's CORS policy blocks.
pub fn cors_sentence(url: &str) -> String {
    let host = url
        .split_once("://")
        .map(|(_, rest)| rest)
        .unwrap_or(url)
        .split(['/', '?', '#'])
        .next()
        .unwrap_or(url);
    format!("The server of {host} does not allow this page to download from it (CORS).")
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

/// `v` as a number within `[min, max]` (whole when `integer`); empty is `None`.
fn parse_in(v: &str, min: f64, max: f64, what: &str, integer: bool) -> Result<Option<f64>, String> {
    if v.is_empty() {
        return Ok(None);
    }
    match v.parse::<f64>() {
        Ok(n) if n.is_finite() && n >= min && n <= max && (!integer || n.fract() == 0.0) => {
            Ok(Some(n))
        }
        _ => Err(format!(
            "{what} must be {} from {min} to {max}.",
            if integer {
                "a whole number"
            } else {
                "a number"
            }
        )),
    }
}
