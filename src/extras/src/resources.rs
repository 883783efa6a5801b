//! Resources, templates, subscriptions and the `@` picker (issue 13 items 1–4), exported to
//! `page/resources.js`. One [`Resources`] object holds the mcpResource store
//! (`skiff_core::mcp::res_ui::store`); every decision and every piece of markup is a
//! `skiff_core::mcp::res_ui` function. Arguments and answers that are not plain strings or
//! numbers are JSON text; malformed JSON from JavaScript is treated as empty, never a panic.

use serde_json::{json, Value};
use skiff_core::mcp::prompt_result::suggestions;
use skiff_core::mcp::res_ui::form::TemplateForm;
use skiff_core::mcp::res_ui::html::{self, PreviewInfo};
use skiff_core::mcp::res_ui::read::{attach_check, change_summary, parse_read, Part};
use skiff_core::mcp::res_ui::search::{mention_at, search, strip_mention};
use skiff_core::mcp::res_ui::store::Store;
use skiff_core::mcp::resource_cache::ReadPlan;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen::prelude::*;

fn parse(json: &str) -> Value {
    serde_json::from_str(json).unwrap_or(Value::Null)
}

fn parts(json: &str) -> Vec<Part> {
    serde_json::from_str(json).unwrap_or_default()
}

fn pairs(json: &str) -> Vec<(String, String)> {
    match parse(json) {
        Value::Object(m) => m
            .into_iter()
            .map(|(k, v)| (k, v.as_str().unwrap_or("").to_string()))
            .collect(),
        _ => Vec::new(),
    }
}

/// The store and the module's questions about it.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub struct Resources {
    store: Store,
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
impl Resources {
    /// The store from localStorage's text (`undefined`: never saved).
    #[cfg_attr(target_arch = "wasm32", wasm_bindgen(constructor))]
    pub fn new(raw: Option<String>) -> Resources {
        Resources {
            store: Store::load(raw.as_deref()),
        }
    }

    /// The store's key in localStorage.
    pub fn key() -> String {
        skiff_core::mcp::res_ui::store::STORE_KEY.to_string()
    }

    /// Why the stored value was not used (nothing is saved over it), if so.
    pub fn locked(&self) -> Option<String> {
        self.store.locked.clone()
    }

    /// The text to store, or `undefined` while locked.
    pub fn save(&self) -> Option<String> {
        self.store.save()
    }

    pub fn reset(&mut self) {
        self.store.reset();
    }

    /// The host's `servers` answer (JSON).
    pub fn sync(&mut self, servers: &str) {
        self.store.sync(&parse(servers));
    }

    pub fn up(&self, server: &str) -> bool {
        self.store.up(server)
    }

    pub fn server_name(&self, server: &str) -> String {
        self.store.server_name(server).to_string()
    }

    /// `"cached"`, `"fetch"` (nothing kept), `"refresh"` (show the copy, read again) or
    /// `"unavailable"`.
    pub fn plan(&self, server: &str, uri: &str, now_ms: f64) -> String {
        match self.store.plan(server, uri, now_ms) {
            ReadPlan::UseCached => "cached",
            ReadPlan::Fetch { cached: false } => "fetch",
            ReadPlan::Fetch { cached: true } => "refresh",
            ReadPlan::Unavailable => "unavailable",
        }
        .to_string()
    }

    /// The kept copy's parts (JSON array; blob-backed ones have `hash` and no `data`), or
    /// `undefined`.
    pub fn cached_parts(&mut self, server: &str, uri: &str, now_ms: f64) -> Option<String> {
        let p = self.store.cached_parts(server, uri, now_ms)?;
        serde_json::to_string(&p).ok()
    }

    /// A `resources/read` result (JSON) as `{parts, ttl_ms}` or `{error}`.
    pub fn parse_read(&self, uri: &str, result: &str) -> String {
        match parse_read(uri, &parse(result)) {
            Ok(out) => serde_json::to_string(&out).unwrap_or_else(|_| "{}".into()),
            Err(e) => json!({ "error": e }).to_string(),
        }
    }

    /// Keep a read's parts (JSON, `hash` set on stored ones); answers the freed hashes (JSON).
    pub fn keep(
        &mut self,
        server: &str,
        uri: &str,
        parts_json: &str,
        ttl_ms: f64,
        now_ms: f64,
    ) -> String {
        let freed = self
            .store
            .keep(server, uri, &parts(parts_json), ttl_ms, now_ms);
        serde_json::to_string(&freed).unwrap_or_else(|_| "[]".into())
    }

    /// Every hash a kept copy names (JSON): IndexedDB keeps only these.
    pub fn hashes(&self) -> String {
        serde_json::to_string(&self.store.cache.all_hashes()).unwrap_or_else(|_| "[]".into())
    }

    pub fn mark_changed(&mut self, server: &str, uri: &str) -> bool {
        self.store.mark_changed(server, uri)
    }

    pub fn subscribed(&self, server: &str, uri: &str) -> bool {
        self.store.subscribed(server, uri)
    }

    pub fn can_subscribe(&self, server: &str) -> bool {
        self.store.can_subscribe(server)
    }

    pub fn subscribe(&mut self, server: &str, uri: &str) -> bool {
        self.store.subscribe(server, uri)
    }

    pub fn unsubscribe(&mut self, server: &str, uri: &str) -> bool {
        self.store.unsubscribe(server, uri)
    }

    /// The subscribed URIs of `server` (JSON array).
    pub fn subs_for(&self, server: &str) -> String {
        serde_json::to_string(&self.store.subs_for(server)).unwrap_or_else(|_| "[]".into())
    }

    pub fn needs_boot(&self) -> bool {
        self.store.needs_boot()
    }

    /// The name a resource is attached and announced under.
    pub fn display_name(&self, server: &str, uri: &str) -> String {
        self.store
            .resource(server, uri)
            .map(|r| {
                r.title
                    .clone()
                    .filter(|t| !t.is_empty())
                    .unwrap_or_else(|| r.name.clone())
            })
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| uri.to_string())
    }

    /// What an update changed, between two parts lists (JSON; `old` may be empty: none kept).
    pub fn change_summary(&self, server: &str, uri: &str, old: &str, new: &str) -> String {
        let old = parts(old);
        let name = self.display_name(server, uri);
        change_summary(
            &name,
            (!old.is_empty()).then_some(old.as_slice()),
            &parts(new),
        )
    }

    /// Why these parts (JSON) cannot be attached, or `undefined` when they can.
    pub fn attach_refusal(&self, parts_json: &str) -> Option<String> {
        attach_check(&parts(parts_json)).err()
    }

    /// A safe file name for downloading a part.
    pub fn download_name(&self, uri: &str, mime: &str) -> String {
        skiff_core::display::links::download_name(uri, (!mime.is_empty()).then_some(mime))
    }

    pub fn shell_html(&self, filter: &str) -> String {
        html::shell_html(&self.store, filter)
    }

    /// `sel_server`/`sel_uri` empty when nothing is open.
    pub fn list_html(&self, filter: &str, query: &str, sel_server: &str, sel_uri: &str) -> String {
        let selected = (!sel_server.is_empty()).then_some((sel_server, sel_uri));
        html::list_html(&self.store, filter, query, selected)
    }

    #[allow(clippy::too_many_arguments)]
    pub fn preview_html(
        &self,
        server: &str,
        uri: &str,
        parts_json: &str,
        reading: bool,
        note: &str,
        error: bool,
        now_ms: f64,
    ) -> String {
        let ps = parts(parts_json);
        let info = PreviewInfo {
            server,
            uri,
            parts: &ps,
            reading,
            note,
            error,
        };
        html::preview_html(&self.store, &info, now_ms)
    }

    fn form(&self, server: &str, index: usize, values: &str) -> Result<TemplateForm, String> {
        let t = self
            .store
            .server(server)
            .and_then(|s| s.templates.get(index))
            .ok_or_else(|| "This template is no longer offered by the server.".to_string())?;
        TemplateForm::new(t, &pairs(values))
    }

    /// The template form; `values` is `{name: value}` JSON, `errors` `[[index, sentence]]`.
    pub fn template_html(&self, server: &str, index: usize, values: &str, errors: &str) -> String {
        let errors: Vec<(usize, String)> = serde_json::from_str(errors).unwrap_or_default();
        html::template_html(
            &self.store,
            server,
            index,
            &self.form(server, index, values),
            &errors,
        )
    }

    /// `{uri}` to read, or `{errors: [[index, sentence]]}`.
    pub fn template_expand(&self, server: &str, index: usize, values: &str) -> String {
        match self.form(server, index, values) {
            Ok(f) => match f.expand() {
                Ok(uri) => json!({ "uri": uri }),
                Err(errors) => json!({ "errors": errors }),
            },
            Err(e) => json!({ "errors": [[0, e]] }),
        }
        .to_string()
    }

    /// `completion/complete` params (JSON) for `field`, or `undefined`.
    pub fn completion_params(
        &self,
        server: &str,
        index: usize,
        values: &str,
        field: &str,
    ) -> Option<String> {
        let f = self.form(server, index, values).ok()?;
        f.completion(field).map(|v| v.to_string())
    }

    /// `<option>`s for a `completion/complete` result (JSON).
    pub fn suggestions_html(&self, result: &str) -> String {
        html::suggestions_html(&suggestions(&parse(result)).0)
    }

    /// The picker's items for `query` (JSON array).
    pub fn picker_items(&self, query: &str, now_ms: f64) -> String {
        serde_json::to_string(&search(&self.store, query, now_ms)).unwrap_or_else(|_| "[]".into())
    }

    pub fn picker_html(&self, query: &str, now_ms: f64, active: usize) -> String {
        html::picker_html(&search(&self.store, query, now_ms), query, active)
    }
}

/// `{start, query}` of the `@query` ending at `caret` (UTF-16), or `undefined`.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn res_mention_at(value: &str, caret: usize) -> Option<String> {
    mention_at(value, caret)
        .map(|(start, query)| json!({ "start": start, "query": query }).to_string())
}

/// `{value, caret}`: the text without the `@query` from `start` to `caret`.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen)]
pub fn res_strip_mention(value: &str, start: usize, caret: usize) -> String {
    let (value, caret) = strip_mention(value, start, caret);
    json!({ "value": value, "caret": caret }).to_string()
}
