//! Settings → Providers → "In this browser": the panel of the models stored in the page, as
//! HTML text. The model worker (`src/worker`) renders it from its own state and posts it to
//! the panel frame (`worker/panel.html`), so none of it is part of the page's first load.
//!
//! Two parts, painted separately: [`form_html`] (add a file or a URL; painted once, so typing
//! a URL is never interrupted) and [`list_html`] (downloads with progress and time left, the
//! stored models with their facts and context setting, what is loaded), repainted on every
//! change. Buttons carry `data-act` and `data-model`/`data-job`; the frame's script posts
//! them to the worker as `{op, model, job, value}` (except `cancel_load`, which it performs).
//!
//! Deliberately not here: reading files, storage, or deciding what a click does (the worker).

use serde::Deserialize;

use crate::format::{fixed, human_bytes};
use crate::html::Html;

/// The contexts offered, capped by the model's own maximum. Memory grows with the context
/// (the key-value cache), so the choice is the user's.
const CONTEXTS: [u32; 7] = [512, 1024, 2048, 4096, 8192, 16384, 32768];

/// What the worker reports (its `state` message).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct State {
    pub models: Vec<StoredModel>,
    pub jobs: Vec<Job>,
    pub loaded: Option<Loaded>,
    pub generating: Option<Generating>,
    pub waiting: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct StoredModel {
    pub id: String,
    pub name: String,
    pub architecture: String,
    pub quantization: String,
    /// The model's own maximum, when the file says.
    pub context_length: Option<u32>,
    /// The context the user set (tokens).
    pub context: u32,
    pub size: u64,
    pub parameters: Option<u64>,
    /// The sampling defaults the user set for this model (used when a chat does not set them).
    pub top_k: Option<u32>,
    pub repeat_penalty: Option<f64>,
    pub seed: Option<u64>,
}

/// A file being stored or a download.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Job {
    pub job: u32,
    pub kind: String,
    pub name: String,
    pub bytes: u64,
    pub total: Option<u64>,
    pub started_ms: f64,
    pub error: Option<String>,
    pub done: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Loaded {
    pub model: String,
    pub context: u32,
    pub load_ms: f64,
    pub bytes: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct Generating {
    pub model: String,
}

/// The static part: what the panel is for, and the two ways to add a model.
pub fn form_html() -> String {
    let mut h = Html::new();
    h.el("h4", "", "Models stored in this browser")
        .el(
            "p",
            "hint",
            "A GGUF model runs here, in this page, with no server and no network: Llama-architecture models (such as SmolLM2) and Gemma 3, quantized as Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, the K-quants, F16 or F32. The files stay in this browser's private storage.",
        );
    h.open("div").attr("class", "row lm-add").body();
    h.open("label")
        .attr("class", "button small primary")
        .body()
        .text("Add a GGUF file…");
    h.open("input")
        .attr("type", "file")
        .attr("accept", ".gguf")
        .attr("class", "lm-file")
        .void();
    h.close("label")
        .el("span", "hint", "or drop one on this panel");
    h.close("div");
    h.open("form").attr("class", "row lm-url").body();
    h.open("label").attr("class", "field").body().el(
        "span",
        "",
        "Or download one from an address (its server must allow this page: CORS)",
    );
    h.open("input")
        .attr("name", "url")
        .attr("type", "url")
        .attr("required", "")
        .attr("placeholder", "https://example.org/model.Q4_K_M.gguf")
        .void();
    h.close("label");
    h.open("button")
        .attr("class", "small")
        .body()
        .text("Download")
        .close("button");
    h.close("form");
    h.finish()
}

/// The changing part. `confirming` is the model whose deletion waits for a second click;
/// `now_ms` the clock (for time left).
pub fn list_html(state: &State, confirming: Option<&str>, now_ms: f64) -> String {
    let mut h = Html::new();
    for job in &state.jobs {
        job_html(&mut h, job, now_ms);
    }
    if let Some(l) = &state.loaded {
        let name = &l.model;
        let mut line = format!(
            "Loaded: {name}, context {} tokens, in {} s, {} of memory",
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
        h.el("p", "hint lm-loaded", &line);
    }
    if state.models.is_empty() {
        h.el("p", "muted lm-empty", "No model is stored yet.");
        return h.finish();
    }
    h.open("ul").attr("class", "lm-models").body();
    for m in &state.models {
        h.open("li")
            .attr("class", "lm-model")
            .attr("data-model", &m.id)
            .body();
        // The id is the file's name, which the user chose and the chat's model list shows;
        // the GGUF's own `general.name` ("Smollm2 135M 8k Lc100K Mix1 Ep2") is a tooltip.
        h.open("strong").attr("class", "lm-name");
        if m.name != m.id && !m.name.is_empty() {
            h.attr("title", &m.name);
        }
        h.body().text(&m.id).close("strong");
        let mut facts = vec![m.architecture.clone(), m.quantization.clone()];
        if let Some(p) = m.parameters.filter(|p| *p > 0) {
            facts.push(parameters(p));
        }
        facts.push(human_bytes(m.size));
        if let Some(max) = m.context_length {
            facts.push(format!("up to {max} tokens"));
        }
        h.el("span", "muted lm-facts", &facts.join(" · "));
        h.open("label")
            .attr("class", "lm-context")
            .body()
            .text("Context ");
        h.open("select")
            .attr("data-act", "set_context")
            .attr("data-model", &m.id)
            .body();
        for c in context_choices(m.context_length.unwrap_or(0), m.context) {
            h.option(&c.to_string(), &format!("{c} tokens"), c == m.context);
        }
        h.close("select").close("label");
        sampling_html(&mut h, m);
        if confirming == Some(m.id.as_str()) {
            h.open("span")
                .attr("class", "confirm")
                .attr("role", "alert")
                .body();
            h.text(&format!("Delete {}? ", m.id));
            h.open("button")
                .attr("class", "small danger")
                .attr("data-act", "delete")
                .attr("data-model", &m.id)
                .body()
                .text("Delete")
                .close("button");
            h.open("button")
                .attr("class", "small")
                .attr("data-act", "keep")
                .attr("data-model", &m.id)
                .body()
                .text("Keep")
                .close("button");
            h.close("span");
        } else {
            h.open("button")
                .attr("class", "small lm-delete")
                .attr("data-act", "ask_delete")
                .attr("data-model", &m.id)
                .attr("aria-label", &format!("Delete {}", m.id))
                .body()
                .text("Delete")
                .close("button");
        }
        h.close("li");
    }
    h.close("ul");
    h.finish()
}

/// A refused setting, above the list.
pub fn notice_html(sentence: &str) -> String {
    let mut h = Html::new();
    h.open("p")
        .attr("class", "error")
        .attr("role", "alert")
        .body();
    h.text(sentence).close("p");
    h.finish()
}

/// The model's sampling defaults: each field applies when it changes; empty is the default.
fn sampling_html(h: &mut Html, m: &StoredModel) {
    let fields: [(&str, &str, Option<String>); 3] = [
        ("set_top_k", "Top k", m.top_k.map(|v| v.to_string())),
        (
            "set_repeat_penalty",
            "Repeat penalty",
            m.repeat_penalty.map(|v| fixed(v, 2)),
        ),
        ("set_seed", "Seed", m.seed.map(|v| v.to_string())),
    ];
    h.open("details").attr("class", "lm-sampling").body();
    h.el(
        "summary",
        "",
        "Sampling defaults (when a chat does not set them)",
    );
    for (act, label, value) in fields {
        h.open("label").attr("class", "field number").body();
        h.el("span", "", label);
        h.open("input")
            .attr("inputmode", "decimal")
            .attr("placeholder", "default")
            .attr("data-act", act)
            .attr("data-model", &m.id)
            .attr("value", value.as_deref().unwrap_or(""))
            .void();
        h.close("label");
    }
    h.close("details");
}

fn job_html(h: &mut Html, job: &Job, now_ms: f64) {
    let job_id = job.job.to_string();
    h.open("div")
        .attr("class", "lm-job")
        .attr("data-job", &job_id)
        .attr("data-kind", &job.kind)
        .body();
    if let Some(error) = &job.error {
        h.open("p")
            .attr("class", "error")
            .attr("role", "alert")
            .body();
        h.text(&format!("{}: {error}", job.name));
        h.close("p");
        h.open("button")
            .attr("class", "small")
            .attr("data-act", "dismiss")
            .attr("data-job", &job_id)
            .body()
            .text("Dismiss")
            .close("button");
        h.close("div");
        return;
    }
    // A load runs synchronously in the worker, which cannot read a message meanwhile: its
    // Cancel is the frame's own (`cancel_load`: it restarts the worker).
    let (verb, cancel) = match job.kind.as_str() {
        "url" => ("Downloading", "cancel"),
        "load" => ("Loading", "cancel_load"),
        _ => ("Storing", "cancel"),
    };
    h.el("span", "lm-job-name", &format!("{verb} {}", job.name));
    h.open("progress").attr("max", "1000");
    if let Some(total) = job.total.filter(|t| *t > 0) {
        let permille = (job.bytes.min(total) as f64 / total as f64 * 1000.0).round();
        h.attr("value", &fixed(permille, 0));
    }
    h.attr("aria-label", &format!("{verb} {}", job.name))
        .body()
        .close("progress");
    h.el("span", "muted lm-job-line", &progress_line(job, now_ms));
    h.open("button")
        .attr("class", "small")
        .attr("data-act", cancel)
        .attr("data-job", &job_id)
        .body()
        .text("Cancel")
        .close("button");
    h.close("div");
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

fn time_left(seconds: f64) -> String {
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
fn context_choices(max: u32, current: u32) -> Vec<u32> {
    let mut v: Vec<u32> = CONTEXTS
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

#[cfg(test)]
mod tests;
