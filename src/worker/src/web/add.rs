//! Adding, deleting and configuring stored models: a File or a URL is streamed chunk by chunk
//! into `<id>.part`, its header checked as soon as it has arrived (a file that is not a
//! model this worker can run is refused before the rest is downloaded), then the sidecar
//! `<id>.json` is written and the part renamed `<id>.gguf`. On any failure or cancel the
//! part (and a sidecar) is deleted, so nothing half-stored remains.

use super::js::{error_name, error_text, field, now_epoch_ms, scope};
use super::opfs;
use super::Shared;
use crate::store::{
    self, HeaderProbe, Job, JobError, JobKind, ModelRecord, Probe, Refusal, SamplingValue,
};
use js_sys::{Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortController, FileSystemDirectoryHandle, ReadableStreamDefaultReader, RequestInit,
};

/// Opens `models/`, deletes what an interrupted add left, reads the sidecars.
pub(crate) async fn open_and_clean(state: &Shared) {
    let dir = match opfs::models_dir().await {
        Ok(d) => d,
        Err(e) => {
            let mut s = state.borrow_mut();
            s.dir_error = Some(JobError::StorageRefused {
                detail: error_text(&e),
            });
            s.post_state();
            return;
        }
    };
    let names = opfs::list(&dir).await.unwrap_or_default();
    for name in store::cleanup(&names) {
        let _ = opfs::remove(&dir, &name).await;
    }
    let mut models = Vec::new();
    for name in names.iter().filter(|n| n.ends_with(".gguf")) {
        let Some(id) = name.strip_suffix(".gguf") else {
            continue;
        };
        let Ok(text) = opfs::read_text(&dir, &format!("{id}.json")).await else {
            continue;
        };
        // A sidecar that does not parse is left alone (never overwritten) and not listed.
        if let Ok(record) = serde_json::from_str::<ModelRecord>(&text) {
            models.push(record);
        }
    }
    store::sort_newest_first(&mut models);
    let mut s = state.borrow_mut();
    s.dir = Some(dir);
    s.models = models;
    s.post_state();
}

pub(crate) fn new_job(state: &Shared, kind: JobKind, name: &str, total: Option<u64>) -> u64 {
    let mut s = state.borrow_mut();
    s.next_job += 1;
    let job = s.next_job;
    s.jobs
        .push(Job::start(job, kind, name, total, now_epoch_ms()));
    s.post_state();
    job
}

fn finish_job(state: &Shared, job: u64, result: Result<(), JobError>) {
    let mut s = state.borrow_mut();
    s.aborters.retain(|(j, _)| *j != job);
    if let Some(j) = s.jobs.iter_mut().find(|j| j.job == job) {
        match result {
            Ok(()) => j.succeed(),
            Err(e) => j.fail(e),
        }
    }
    // A stored model shows in the list, and a cancel is what the user asked for: neither
    // needs a line. A failure stays listed (its sentence) until dismissed or the next add.
    s.jobs
        .retain(|j| !j.done || (j.error.is_some() && !j.cancelled));
    s.post_state();
}

pub(crate) fn spawn_file(state: &Shared, file: JsValue) {
    let Ok(file) = file.dyn_into::<web_sys::File>() else {
        return;
    };
    let name = file.name();
    let total = file.size() as u64;
    prune_finished(state);
    let job = new_job(state, JobKind::File, &name, Some(total));
    let state = state.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let reader: Result<ReadableStreamDefaultReader, JsValue> =
            file.stream().get_reader().dyn_into().map_err(JsValue::from);
        let result = match reader {
            Ok(reader) => store_stream(&state, job, &name, reader, Some(total)).await,
            Err(e) => Err(JobError::Unreadable {
                detail: error_text(&e),
            }),
        };
        finish_job(&state, job, result);
    });
}

pub(crate) fn spawn_url(state: &Shared, url: String) {
    let name = url
        .split(['?', '#'])
        .next()
        .unwrap_or(&url)
        .rsplit('/')
        .next()
        .filter(|n| !n.is_empty())
        .unwrap_or("model.gguf")
        .to_string();
    prune_finished(state);
    let job = new_job(state, JobKind::Url, &name, None);
    let state = state.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let result = download(&state, job, &url, &name).await;
        finish_job(&state, job, result);
    });
}

/// Drops ended jobs from the list, so it shows the current adds and the latest outcomes.
fn prune_finished(state: &Shared) {
    state.borrow_mut().jobs.retain(|j| !j.done);
}

async fn download(state: &Shared, job: u64, url: &str, name: &str) -> Result<(), JobError> {
    let controller = AbortController::new().map_err(|e| JobError::DownloadStopped {
        detail: error_text(&e),
    })?;
    state.borrow_mut().aborters.push((job, controller.clone()));
    let init = RequestInit::new();
    init.set_signal(Some(&controller.signal()));
    let response = JsFuture::from(scope().fetch_with_str_and_init(url, &init)).await;
    let response: web_sys::Response = match response {
        Ok(r) => r.unchecked_into(),
        Err(e) if error_name(&e) == "AbortError" => return Err(JobError::Cancelled),
        // fetch rejects with a bare TypeError for CORS refusals and network failures alike;
        // from a page that is online, CORS is by far the usual cause.
        Err(_) => return Err(JobError::cors(url)),
    };
    if !response.ok() {
        return Err(JobError::ServerRefused {
            status: response.status(),
            status_text: response.status_text(),
        });
    }
    let total = response
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|v| v.parse::<u64>().ok());
    if let Some(j) = state.borrow_mut().jobs.iter_mut().find(|j| j.job == job) {
        j.total = total;
    }
    let body = response.body().ok_or(JobError::NoBody)?;
    let reader: ReadableStreamDefaultReader =
        body.get_reader()
            .dyn_into()
            .map_err(|e| JobError::DownloadStopped {
                detail: error_text(&e),
            })?;
    store_stream(state, job, name, reader, total).await
}

pub(crate) fn cancel(state: &Shared, job: u64) {
    let mut s = state.borrow_mut();
    if let Some(j) = s.jobs.iter_mut().find(|j| j.job == job && !j.done) {
        j.cancelled = true;
    }
    if let Some((_, c)) = s.aborters.iter().find(|(j, _)| *j == job) {
        c.abort();
    }
}

fn is_cancelled(state: &Shared, job: u64) -> bool {
    state
        .borrow()
        .jobs
        .iter()
        .any(|j| j.job == job && j.cancelled)
}

/// Free bytes by the storage estimate, when the browser gives one.
async fn free_bytes() -> Option<u64> {
    let p: Promise = scope().navigator().storage().estimate().ok()?;
    let est = JsFuture::from(p).await.ok()?;
    let quota = field(&est, "quota").as_f64()?;
    let usage = field(&est, "usage").as_f64().unwrap_or(0.0);
    Some((quota - usage).max(0.0) as u64)
}

async fn store_stream(
    state: &Shared,
    job: u64,
    name: &str,
    reader: ReadableStreamDefaultReader,
    total: Option<u64>,
) -> Result<(), JobError> {
    let dir = {
        let s = state.borrow();
        match (&s.dir, &s.dir_error) {
            (Some(d), _) => d.clone(),
            (None, Some(e)) => return Err(e.clone()),
            (None, None) => return Err(JobError::StorageOpening),
        }
    };
    if let (Some(total), Some(free)) = (total, free_bytes().await) {
        if total > free {
            let _ = JsFuture::from(reader.cancel()).await;
            return Err(JobError::NoRoom {
                needed: Some(total),
            });
        }
    }
    let existing = opfs::list(&dir).await.unwrap_or_default();
    let id = {
        let s = state.borrow();
        let mut taken: Vec<String> = s.models.iter().map(|m| m.id.clone()).collect();
        taken.extend(
            existing
                .iter()
                .filter_map(|n| n.rsplit_once('.').map(|(b, _)| b.to_string())),
        );
        store::model_id(name, &taken)
    };
    let part = format!("{id}.part");
    let result = write_part(state, job, &dir, &part, &reader, total).await;
    let record = match result {
        Ok(info_and_size) => info_and_size,
        Err(e) => {
            let _ = JsFuture::from(reader.cancel()).await;
            let _ = opfs::remove(&dir, &part).await;
            return Err(e);
        }
    };
    let (info, _size) = record;
    let record = ModelRecord::new(&id, &info, now_epoch_ms());
    let sidecar = format!("{id}.json");
    let finish = async {
        let text = serde_json::to_string(&record).map_err(|e| JsValue::from_str(&e.to_string()))?;
        opfs::write_text(&dir, &sidecar, &text).await?;
        let handle = opfs::file(&dir, &part, false).await?;
        opfs::rename(&handle, &format!("{id}.gguf")).await
    };
    if let Err(e) = finish.await {
        let _ = opfs::remove(&dir, &sidecar).await;
        let _ = opfs::remove(&dir, &part).await;
        return Err(storage_error(&e, total));
    }
    let mut s = state.borrow_mut();
    s.models.push(record);
    store::sort_newest_first(&mut s.models);
    Ok(())
}

fn storage_error(e: &JsValue, total: Option<u64>) -> JobError {
    if error_name(e) == "QuotaExceededError" {
        JobError::NoRoom { needed: total }
    } else {
        JobError::NotStored {
            detail: error_text(e),
        }
    }
}

/// Streams the body into the part file, checking the header on the way.
async fn write_part(
    state: &Shared,
    job: u64,
    dir: &FileSystemDirectoryHandle,
    part: &str,
    reader: &ReadableStreamDefaultReader,
    total: Option<u64>,
) -> Result<(skiff_core::local_model::ModelInfo, u64), JobError> {
    let handle = opfs::file(dir, part, true)
        .await
        .map_err(|e| storage_error(&e, total))?;
    let sync = opfs::sync_handle(&handle)
        .await
        .map_err(|e| storage_error(&e, total))?;
    let result = async {
        let mut probe = HeaderProbe::default();
        let mut accepted = false;
        let mut written: u64 = 0;
        loop {
            if is_cancelled(state, job) {
                return Err(JobError::Cancelled);
            }
            let step = JsFuture::from(reader.read()).await.map_err(|e| {
                if is_cancelled(state, job) || error_name(&e) == "AbortError" {
                    JobError::Cancelled
                } else {
                    JobError::DownloadStopped {
                        detail: error_text(&e),
                    }
                }
            })?;
            if field(&step, "done").as_bool().unwrap_or(true) {
                break;
            }
            let chunk: Uint8Array = field(&step, "value")
                .dyn_into()
                .map_err(|_| JobError::NotBytes)?;
            let n = opfs::write_at(&sync, &chunk, written).map_err(|e| storage_error(&e, total))?;
            if n != chunk.length() as u64 {
                return Err(JobError::NoRoom { needed: total });
            }
            if !accepted {
                match probe.feed(&chunk.to_vec(), total) {
                    Probe::NeedMore => {}
                    Probe::Accepted => accepted = true,
                    Probe::Refused(sentence) => return Err(sentence),
                }
            }
            written += n;
            let report = {
                let mut s = state.borrow_mut();
                s.jobs
                    .iter_mut()
                    .find(|j| j.job == job)
                    .map(|j| j.progress(written, now_epoch_ms()))
                    .unwrap_or(false)
            };
            if report {
                state.borrow().post_state();
            }
        }
        sync.flush().map_err(|e| storage_error(&e, total))?;
        let info = probe.finish(written)?;
        Ok((info, written))
    }
    .await;
    sync.close();
    result
}

pub(crate) async fn delete(state: &Shared, id: &str) {
    let dir = {
        let mut s = state.borrow_mut();
        // A generation with this model stops, and its engine is dropped when it returns.
        if let Some(g) = s.generating.clone() {
            if g.model == id {
                s.aborted.insert(g.id);
                s.drop_engine = true;
            }
        }
        if s.engine.as_ref().is_some_and(|e| e.record().id == id) {
            s.engine = None;
            s.loaded = None;
        }
        s.dir.clone()
    };
    let Some(dir) = dir else { return };
    // The model file first: a sidecar without its model is cleaned up at the next start.
    let _ = opfs::remove(&dir, &format!("{id}.gguf")).await;
    let _ = opfs::remove(&dir, &format!("{id}.json")).await;
    let mut s = state.borrow_mut();
    s.models.retain(|m| m.id != id);
    s.post_state();
}

pub(crate) async fn set_context(state: &Shared, id: &str, context: u64) {
    let (dir, record) = {
        let s = state.borrow();
        let Some(m) = s.models.iter().find(|m| m.id == id) else {
            return;
        };
        (s.dir.clone(), m.with_context(context))
    };
    let Some(dir) = dir else { return };
    let Ok(text) = serde_json::to_string(&record) else {
        return;
    };
    if opfs::write_text(&dir, &format!("{id}.json"), &text)
        .await
        .is_err()
    {
        // Keep the old value everywhere rather than show one that is not stored.
        let mut s = state.borrow_mut();
        s.notice = Some(Refusal::NotStored);
        s.post_state();
        return;
    }
    let mut s = state.borrow_mut();
    s.notice = None;
    if let Some(m) = s.models.iter_mut().find(|m| m.id == id) {
        *m = record;
    }
    // A loaded engine with another context is reloaded by the next request.
    if s.engine.as_ref().is_some_and(|e| e.record().id == id) {
        s.engine = None;
        s.loaded = None;
    }
    if s.generating.as_ref().is_some_and(|g| g.model == id) {
        s.drop_engine = true;
    }
    s.post_state();
}

/// Stores one of a model's sampling defaults (checked by the page); a write the browser
/// refuses is a sentence on the panel, and the stored value stays.
pub(crate) async fn set_sampling(state: &Shared, id: &str, value: SamplingValue) {
    let (dir, record) = {
        let s = state.borrow();
        let Some(m) = s.models.iter().find(|m| m.id == id) else {
            return;
        };
        (s.dir.clone(), m.with_sampling(value))
    };
    let Some(dir) = dir else { return };
    let Ok(text) = serde_json::to_string(&record) else {
        return;
    };
    let stored = opfs::write_text(&dir, &format!("{id}.json"), &text)
        .await
        .is_ok();
    let mut s = state.borrow_mut();
    if stored {
        s.notice = None;
        if let Some(m) = s.models.iter_mut().find(|m| m.id == id) {
            *m = record;
        }
    } else {
        s.notice = Some(Refusal::NotStored);
    }
    s.post_state();
}
