//! The resource browser's, preview's, template form's and `@` picker's markup, written with
//! `crate::html` (tag and attribute names ours, every value and text escaped). Server names,
//! resource names and descriptions pass through `display::text` so invisible or
//! direction-changing characters show as `<U+XXXX>`; server names are also isolated in
//! `<bdi>`. The module paints these with `innerHTML` and reads clicks by `data-act`.

use super::form::TemplateForm;
use super::read::{pretty_json, Part};
use super::search::Item;
use super::store::Store;
use crate::display::media::{audio_src, clean_mime, image_src};
use crate::display::text;
use crate::format::human_bytes;
use crate::html::Html;
use crate::mcp::resource_cache::Freshness;

/// Longest text a preview shows (the whole text is still what is attached).
pub const PREVIEW_CHARS: usize = 100_000;

/// The dialog's frame: title, close, server choice and search; the list, the pane and the
/// notice are filled by [`list_html`], [`preview_html`] or [`template_html`], and the module.
pub fn shell_html(store: &Store, filter: &str) -> String {
    let mut h = Html::new();
    h.open("div")
        .attr("class", "res-dialog")
        .attr("role", "dialog")
        .attr("aria-modal", "true")
        .attr("aria-labelledby", "res-title")
        .body();
    h.open("header").attr("class", "res-head").body();
    h.open("h2")
        .attr("id", "res-title")
        .body()
        .text("Resources")
        .close("h2");
    h.labeled_action("res-close", "close", "\u{2715}", "Close resources");
    h.close("header");
    h.open("div").attr("class", "res-bar").body();
    h.open("select")
        .attr("id", "res-server")
        .attr("aria-label", "Server")
        .body();
    h.option("", "All servers", filter.is_empty());
    for s in store.servers.iter().filter(|s| s.present) {
        let mut label = text::name(&s.name).into_owned();
        if !s.connected {
            label.push_str(" (offline)");
        }
        h.option(&s.id, &label, s.id == filter);
    }
    h.close("select");
    h.open("input")
        .attr("id", "res-search")
        .attr("type", "search")
        .attr("aria-label", "Search resources")
        .attr("placeholder", "Search resources")
        .attr("autocomplete", "off")
        .void();
    h.close("div");
    h.open("p")
        .attr("id", "res-notice")
        .attr("class", "res-notice")
        .attr("role", "status")
        .attr("aria-live", "polite")
        .body()
        .close("p");
    h.open("div").attr("class", "res-body").body();
    h.open("div")
        .attr("id", "res-list")
        .attr("class", "res-list")
        .body()
        .close("div");
    h.open("section")
        .attr("id", "res-pane")
        .attr("class", "res-pane")
        .attr("aria-label", "Resource")
        .body()
        .close("section");
    h.close("div");
    h.close("div");
    h.finish()
}

fn matches(q: &str, fields: &[&str]) -> bool {
    q.is_empty() || fields.iter().any(|f| f.to_lowercase().contains(q))
}

/// "just now", "5 min ago", "3 h ago", "2 days ago".
pub fn ago(then_ms: f64, now_ms: f64) -> String {
    let s = ((now_ms - then_ms) / 1000.0).max(0.0);
    if s < 60.0 {
        "just now".to_string()
    } else if s < 3600.0 {
        format!("{} min ago", (s / 60.0).floor())
    } else if s < 86_400.0 {
        format!("{} h ago", (s / 3600.0).floor())
    } else {
        let d = (s / 86_400.0).floor();
        format!("{d} day{} ago", if d == 1.0 { "" } else { "s" })
    }
}

/// What the kept copy of `uri` is, in a sentence ("" when there is none).
pub fn fresh_text(store: &Store, server: &str, uri: &str, now_ms: f64) -> String {
    let Some(e) = store.entry(server, uri) else {
        return String::new();
    };
    let when = ago(e.fetched_ms, now_ms);
    match store.freshness(server, uri, now_ms) {
        Some(Freshness::Fresh) => {
            format!("Cached copy read {when}; the server says it is current.")
        }
        Some(Freshness::Expired) if e.changed => {
            format!("The server changed it since the copy read {when}.")
        }
        Some(Freshness::Expired) => format!("Copy read {when}."),
        Some(Freshness::Stale) => format!(
            "{} is offline: this is the copy read {when}, which may be out of date.",
            text::name(store.server_name(server))
        ),
        None => String::new(),
    }
}

/// The list: per server its resources and templates matching `query`; `selected` is the open
/// resource's `(server, uri)`.
pub fn list_html(
    store: &Store,
    filter: &str,
    query: &str,
    selected: Option<(&str, &str)>,
) -> String {
    let q = query.trim().to_lowercase();
    let mut h = Html::new();
    if let Some(why) = &store.locked {
        h.open("div")
            .attr("class", "res-locked")
            .attr("role", "alert")
            .body();
        h.el("p", "res-locked-text", why);
        h.action("res-reset", "reset", "Start afresh");
        h.close("div");
    }
    let servers: Vec<_> = store
        .servers
        .iter()
        .filter(|s| s.present && (filter.is_empty() || s.id == filter))
        .collect();
    if servers.is_empty() {
        h.el(
            "p",
            "res-empty",
            if filter.is_empty() {
                "No MCP server is set up. Add one in Settings \u{2192} MCP servers."
            } else {
                "This server is not set up any more."
            },
        );
        return h.finish();
    }
    let mut shown = 0usize;
    // In the all-servers view, servers with nothing to show are named in one line at the end
    // instead of a section each (the built-in server has no resources).
    let mut quiet: Vec<String> = Vec::new();
    for s in servers {
        let name = text::name(&s.name);
        let resources: Vec<_> = s
            .resources
            .iter()
            .filter(|r| {
                matches(
                    &q,
                    &[
                        &r.name,
                        r.title.as_deref().unwrap_or(""),
                        &r.uri,
                        r.description.as_deref().unwrap_or(""),
                    ],
                )
            })
            .collect();
        let templates: Vec<(usize, _)> = s
            .templates
            .iter()
            .enumerate()
            .filter(|(_, t)| {
                matches(
                    &q,
                    &[
                        &t.name,
                        t.title.as_deref().unwrap_or(""),
                        &t.uri_template,
                        t.description.as_deref().unwrap_or(""),
                    ],
                )
            })
            .collect();
        let nothing = resources.is_empty() && templates.is_empty();
        if nothing && filter.is_empty() {
            if q.is_empty() {
                quiet.push(name.into_owned());
            }
            continue;
        }
        h.open("section").attr("class", "res-server").body();
        h.open("h3").attr("class", "res-server-name").body();
        h.el("bdi", "", &name);
        h.el(
            "span",
            if s.connected {
                "res-state"
            } else {
                "res-state res-offline"
            },
            if s.connected {
                ""
            } else {
                " offline: cached copies only"
            },
        );
        h.close("h3");
        if nothing {
            h.el(
                "p",
                "res-empty",
                if !q.is_empty() {
                    "Nothing here matches."
                } else if s.connected {
                    "This server offers no resources."
                } else {
                    "Nothing of this server is known yet: it has been offline since Skiff started."
                },
            );
        }
        if !resources.is_empty() {
            h.open("ul").attr("class", "res-items").body();
            for r in resources {
                shown += 1;
                let label = r
                    .title
                    .as_deref()
                    .filter(|t| !t.is_empty())
                    .unwrap_or(if r.name.is_empty() { &r.uri } else { &r.name });
                let cached = store.entry(&s.id, &r.uri).is_some();
                let mut meta: Vec<String> = Vec::new();
                if let Some(m) = r.mime_type.as_deref().and_then(clean_mime) {
                    meta.push(m);
                }
                if let Some(size) = r.size {
                    meta.push(human_bytes(size));
                }
                if cached {
                    meta.push(
                        if s.connected {
                            "cached"
                        } else {
                            "cached, may be stale"
                        }
                        .into(),
                    );
                }
                if store.subscribed(&s.id, &r.uri) {
                    meta.push("subscribed".into());
                }
                let current = selected == Some((s.id.as_str(), r.uri.as_str()));
                h.open("li").body();
                h.action_open("res-item", "open")
                    .attr("data-server", &s.id)
                    .attr("data-uri", &r.uri)
                    .attr_opt("aria-current", current.then_some("true"))
                    .flag("disabled", !s.connected && !cached)
                    .body();
                h.el("span", "res-item-name", &text::name(label));
                h.el("span", "res-item-meta", &meta.join(" \u{b7} "));
                if let Some(d) = r.description.as_deref().filter(|d| !d.is_empty()) {
                    h.el("span", "res-item-desc", &text::prose(d));
                }
                h.close("button").close("li");
            }
            h.close("ul");
        }
        if !templates.is_empty() {
            h.el("h4", "res-subhead", "Templates");
            h.open("ul").attr("class", "res-items").body();
            for (i, t) in templates {
                shown += 1;
                h.open("li").body();
                h.action_open("res-item res-template", "template")
                    .attr("data-server", &s.id)
                    .attr("data-index", &i.to_string())
                    .flag("disabled", !s.connected)
                    .body();
                let label = t
                    .title
                    .as_deref()
                    .filter(|t| !t.is_empty())
                    .unwrap_or(&t.name);
                h.el("span", "res-item-name", &text::name(label));
                h.el("span", "res-item-meta", &t.uri_template);
                h.close("button").close("li");
            }
            h.close("ul");
        }
        h.close("section");
    }
    if !quiet.is_empty() {
        h.el(
            "p",
            "res-empty res-quiet",
            &format!("No resources from {}.", quiet.join(", ")),
        );
    }
    if shown == 0 && !q.is_empty() {
        h.el(
            "p",
            "res-empty",
            &format!("No resource matches \u{201c}{}\u{201d}.", query.trim()),
        );
    }
    h.finish()
}

/// What the preview knows about the resource it shows.
pub struct PreviewInfo<'a> {
    pub server: &'a str,
    pub uri: &'a str,
    pub parts: &'a [Part],
    /// The copy is being read again (the kept one is shown meanwhile).
    pub reading: bool,
    /// What the last update changed, or why a read failed.
    pub note: &'a str,
    pub error: bool,
}

fn back(h: &mut Html) {
    h.action("res-back", "back", "\u{2190} All resources");
}

/// The pane for one resource: name, URI, type and size, how fresh, actions and the content.
pub fn preview_html(store: &Store, p: &PreviewInfo<'_>, now_ms: f64) -> String {
    let listed = store.resource(p.server, p.uri);
    let name = listed
        .map(|r| {
            r.title
                .clone()
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| r.name.clone())
        })
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| p.uri.to_string());
    let mut h = Html::new();
    back(&mut h);
    h.open("h3")
        .attr("class", "res-name")
        .attr("id", "res-pane-title")
        .attr("tabindex", "-1")
        .body()
        .text(&text::name(&name))
        .close("h3");
    h.open("p").attr("class", "res-uri").body();
    h.el("bdi", "", &text::name(store.server_name(p.server)));
    h.text(" \u{b7} ");
    h.el("code", "", &text::name(p.uri));
    h.close("p");
    if let Some(d) = listed
        .and_then(|r| r.description.as_deref())
        .filter(|d| !d.is_empty())
    {
        h.open("p")
            .attr("class", "res-desc")
            .attr("dir", "auto")
            .body()
            .text(&text::prose(d))
            .close("p");
    }
    let size: u64 = p.parts.iter().map(|x| x.size).sum();
    let mimes: Vec<String> =
        p.parts
            .iter()
            .filter_map(|x| clean_mime(&x.mime))
            .fold(Vec::new(), |mut v, m| {
                if !v.contains(&m) {
                    v.push(m);
                }
                v
            });
    let mut meta = mimes.join(", ");
    if !p.parts.is_empty() {
        if !meta.is_empty() {
            meta.push_str(" \u{b7} ");
        }
        meta.push_str(&human_bytes(size));
        if p.parts.len() > 1 {
            meta.push_str(&format!(" in {} parts", p.parts.len()));
        }
    }
    h.el("p", "res-meta", &meta);
    let fresh = if p.reading {
        "Reading\u{2026}".to_string()
    } else {
        fresh_text(store, p.server, p.uri, now_ms)
    };
    if !fresh.is_empty() {
        h.el("p", "res-fresh", &fresh);
    }
    if !p.note.is_empty() {
        h.open("p")
            .attr(
                "class",
                if p.error {
                    "res-note res-error"
                } else {
                    "res-note"
                },
            )
            .attr("role", if p.error { "alert" } else { "status" })
            .body()
            .text(p.note)
            .close("p");
    }
    h.open("div").attr("class", "res-actions").body();
    let usable = p.parts.iter().any(|x| x.data.is_some());
    h.open("button")
        .attr("type", "button")
        .attr("class", "primary res-attach")
        .attr("data-act", "attach")
        .flag("disabled", !usable)
        .body()
        .text("Attach")
        .close("button");
    if store.can_subscribe(p.server) {
        if store.subscribed(p.server, p.uri) {
            h.action("res-unsubscribe", "unsubscribe", "Unsubscribe");
        } else {
            h.action("res-subscribe", "subscribe", "Subscribe");
        }
    } else if store.subscribed(p.server, p.uri) {
        h.action("res-unsubscribe", "unsubscribe", "Unsubscribe");
    }
    if store.up(p.server) {
        h.action("res-reload", "reload", "Read again");
    }
    h.close("div");
    for (i, part) in p.parts.iter().enumerate() {
        part_html(&mut h, part, i, &name);
    }
    h.finish()
}

fn part_html(h: &mut Html, part: &Part, i: usize, name: &str) {
    let Some(data) = part.data.as_deref() else {
        h.el(
            "p",
            "res-error",
            "This copy's content is gone from the browser's storage; read it again when the server is back.",
        );
        return;
    };
    let mime = clean_mime(&part.mime).unwrap_or_default();
    if !part.binary {
        let shown = pretty_json(&mime, data).unwrap_or_else(|| data.to_string());
        let cut = shown.char_indices().nth(PREVIEW_CHARS).map(|(at, _)| at);
        h.open("pre")
            .attr("class", "res-text")
            .attr("tabindex", "0")
            .attr("dir", "auto")
            .body()
            .text(&shown[..cut.unwrap_or(shown.len())])
            .close("pre");
        if cut.is_some() {
            h.el(
                "p",
                "res-meta",
                "The preview stops here; Attach sends the whole text.",
            );
        }
        return;
    }
    if let Some(src) = image_src(&mime, data) {
        h.open("img")
            .attr("class", "res-img")
            .attr("alt", &text::name(name))
            .attr("src", &src)
            .void();
    } else if let Some(src) = audio_src(&mime, data) {
        h.open("audio")
            .attr("class", "res-audio")
            .attr("controls", "")
            .attr("src", &src)
            .body()
            .close("audio");
    } else {
        h.el(
            "p",
            "res-meta",
            &format!(
                "Binary content ({}, {}): not shown.",
                if mime.is_empty() { "no type" } else { &mime },
                human_bytes(part.size)
            ),
        );
    }
    h.action_open("res-download", "download")
        .attr("data-part", &i.to_string())
        .body()
        .text("Download")
        .close("button");
}

/// The pane for a template: its variables as fields with suggestion lists, and Read.
/// `errors` are (field index, sentence) from the last Read.
pub fn template_html(
    store: &Store,
    server: &str,
    index: usize,
    form: &Result<TemplateForm, String>,
    errors: &[(usize, String)],
) -> String {
    let t = store.server(server).and_then(|s| s.templates.get(index));
    let mut h = Html::new();
    back(&mut h);
    let Some(t) = t else {
        h.el(
            "p",
            "res-error",
            "This template is no longer offered by the server.",
        );
        return h.finish();
    };
    let label = t
        .title
        .as_deref()
        .filter(|x| !x.is_empty())
        .unwrap_or(&t.name);
    h.open("h3")
        .attr("class", "res-name")
        .attr("id", "res-pane-title")
        .attr("tabindex", "-1")
        .body()
        .text(&text::name(label))
        .close("h3");
    h.open("p").attr("class", "res-uri").body();
    h.el("bdi", "", &text::name(store.server_name(server)));
    h.text(" \u{b7} ");
    h.el("code", "", &text::name(&t.uri_template));
    h.close("p");
    if let Some(d) = t.description.as_deref().filter(|d| !d.is_empty()) {
        h.open("p")
            .attr("class", "res-desc")
            .attr("dir", "auto")
            .body()
            .text(&text::prose(d))
            .close("p");
    }
    let form = match form {
        Ok(f) => f,
        Err(why) => {
            h.el("p", "res-error", why);
            return h.finish();
        }
    };
    h.open("form")
        .attr("class", "res-form")
        .attr("data-server", server)
        .attr("data-index", &index.to_string())
        .flag("novalidate", true)
        .body();
    for (i, f) in form.fields.iter().enumerate() {
        let id = format!("res-v{i}");
        let err = errors
            .iter()
            .find(|(at, _)| *at == i)
            .map(|(_, e)| e.as_str());
        h.open("div").attr("class", "res-field").body();
        h.open("label").attr("for", &id).body().text(&f.name);
        if f.optional {
            h.el("span", "res-optional", " (optional)");
        }
        h.close("label");
        h.open("input")
            .attr("id", &id)
            .attr("name", &f.name)
            .attr("type", "text")
            .attr("value", &f.value)
            .attr("list", &format!("res-dl{i}"))
            .attr("autocomplete", "off")
            .attr("data-field", &f.name)
            .flag("required", !f.optional)
            .attr_opt("aria-invalid", err.map(|_| "true"))
            .attr_opt(
                "aria-describedby",
                err.map(|_| format!("{id}-err")).as_deref(),
            )
            .void();
        h.open("datalist")
            .attr("id", &format!("res-dl{i}"))
            .body()
            .close("datalist");
        if let Some(e) = err {
            h.open("p")
                .attr("class", "res-error")
                .attr("id", &format!("{id}-err"))
                .body()
                .text(e)
                .close("p");
        }
        h.close("div");
    }
    h.open("button")
        .attr("type", "submit")
        .attr("class", "primary res-read")
        .body()
        .text("Read")
        .close("button");
    h.close("form");
    h.finish()
}

/// A field's `<datalist>` options from `completion/complete` suggestions.
pub fn suggestions_html(values: &[String]) -> String {
    let mut h = Html::new();
    for v in values {
        h.open("option").attr("value", v).body().close("option");
    }
    h.finish()
}

/// The `@` picker's list; `active` is the highlighted item.
pub fn picker_html(items: &[Item], query: &str, active: usize) -> String {
    let mut h = Html::new();
    if items.is_empty() {
        h.el(
            "p",
            "res-empty",
            &if query.is_empty() {
                "No MCP resources yet: connect a server that offers some.".to_string()
            } else {
                format!("No resource matches \u{201c}{query}\u{201d}.")
            },
        );
        return h.finish();
    }
    h.open("ul")
        .attr("class", "res-options")
        .attr("role", "listbox")
        .attr("id", "res-picker-list")
        .attr("aria-label", "MCP resources")
        .body();
    for (i, it) in items.iter().enumerate() {
        h.open("li")
            .attr("role", "option")
            .attr("id", &format!("res-opt{i}"))
            .attr(
                "class",
                if i == active {
                    "res-opt active"
                } else {
                    "res-opt"
                },
            )
            .attr("aria-selected", if i == active { "true" } else { "false" })
            // Reachable for a list long enough to scroll, while focus stays in the message box.
            .attr("tabindex", "-1")
            .attr("data-act", "pick")
            .attr("data-i", &i.to_string())
            .body();
        h.el("span", "res-item-name", &text::name(&it.label));
        h.open("span").attr("class", "res-item-meta").body();
        h.el("bdi", "", &text::name(&it.server_name));
        if it.offline {
            h.text(" \u{b7} offline, cached copy");
        } else if it.cached {
            h.text(" \u{b7} cached");
        }
        h.close("span");
        h.close("li");
    }
    h.close("ul");
    h.finish()
}
