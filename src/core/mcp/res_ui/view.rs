//! What the resource browser, its preview and template panes and the `@` picker show, as plain
//! values the page's components lay out: every sentence, label and flag decided here.
//!
//! Server names, resource names and descriptions arrive untrusted: they pass through
//! `display::text` (invisible and direction-changing characters shown as `<U+XXXX>`); images
//! and audio only as `display::media` allows them (never SVG, base64 only).
//!
//! Architecture Invariant: no markup here. The components escape text as they render it, and
//! they name their buttons with [`Action::as_str`]; they decide none of what is shown.

use super::form::TemplateForm;
use super::read::{pretty_json, Part};
use super::search::Item;
use super::store::Store;
use crate::display::media::{audio_src, clean_mime, image_src};
use crate::display::text;
use crate::format::{fixed, human_bytes};
use crate::mcp::resource_cache::Freshness;

/// Longest text a preview shows (the whole text is still what is attached).
pub const PREVIEW_CHARS: usize = 100_000;

/// What the user can do in the browser. The name is the button's `data-act` (the page's own
/// tests find the buttons by it); the label is what it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Close,
    Back,
    Reset,
    Attach,
    Subscribe,
    Unsubscribe,
    Reload,
    Download,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Close => "close",
            Action::Back => "back",
            Action::Reset => "reset",
            Action::Attach => "attach",
            Action::Subscribe => "subscribe",
            Action::Unsubscribe => "unsubscribe",
            Action::Reload => "reload",
            Action::Download => "download",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Action::Close => "\u{2715}",
            Action::Back => "\u{2190} All resources",
            Action::Reset => "Start afresh",
            Action::Attach => "Attach",
            Action::Subscribe => "Subscribe",
            Action::Unsubscribe => "Unsubscribe",
            Action::Reload => "Read again",
            Action::Download => "Download",
        }
    }
}

/// One entry of the server choice (`""` is every server).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerOption {
    pub id: String,
    pub label: String,
}

/// The server choice: every server first, then each present server (offline ones say so).
pub fn server_options(store: &Store) -> Vec<ServerOption> {
    let mut out = vec![ServerOption {
        id: String::new(),
        label: "All servers".into(),
    }];
    for s in store.servers.iter().filter(|s| s.present) {
        let mut label = text::name(&s.name).into_owned();
        if !s.connected {
            label.push_str(" (offline)");
        }
        out.push(ServerOption {
            id: s.id.clone(),
            label,
        });
    }
    out
}

/// One listed resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceRow {
    pub uri: String,
    pub label: String,
    /// Type, size, "cached", "subscribed", joined with " · ".
    pub meta: String,
    pub description: Option<String>,
    /// It is the one open in the pane.
    pub current: bool,
    /// Its server is down and nothing of it is kept: it cannot be opened.
    pub disabled: bool,
}

/// One listed template (its index in the server's list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateRow {
    pub index: usize,
    pub label: String,
    pub uri_template: String,
    pub disabled: bool,
}

/// One server's part of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerSection {
    pub id: String,
    pub name: String,
    /// Said beside the name while the server is down.
    pub offline: Option<&'static str>,
    /// Why nothing is listed under it.
    pub empty: Option<&'static str>,
    pub resources: Vec<ResourceRow>,
    pub templates: Vec<TemplateRow>,
}

/// The list beside the pane.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ListView {
    /// The stored value could not be read (with "Start afresh").
    pub locked: Option<String>,
    /// No server to list at all.
    pub empty: Option<&'static str>,
    pub sections: Vec<ServerSection>,
    /// Servers with nothing to show, named in one line at the end.
    pub quiet: Option<String>,
    /// The search matched nothing.
    pub no_match: Option<String>,
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
        // `fixed`, not `{}`: formatting an f64 links Rust's float printing into the page.
        format!("{} min ago", fixed((s / 60.0).floor(), 0))
    } else if s < 86_400.0 {
        format!("{} h ago", fixed((s / 3600.0).floor(), 0))
    } else {
        let d = (s / 86_400.0).floor();
        format!("{} day{} ago", fixed(d, 0), if d == 1.0 { "" } else { "s" })
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

fn resource_label(r: &crate::mcp::model::Resource) -> &str {
    r.title
        .as_deref()
        .filter(|t| !t.is_empty())
        .unwrap_or(if r.name.is_empty() { &r.uri } else { &r.name })
}

/// The list: per server its resources and templates matching `query`; `selected` is the open
/// resource's `(server, uri)`.
pub fn list_view(
    store: &Store,
    filter: &str,
    query: &str,
    selected: Option<(&str, &str)>,
) -> ListView {
    let q = query.trim().to_lowercase();
    let mut out = ListView {
        locked: store.locked.clone(),
        ..ListView::default()
    };
    let servers: Vec<_> = store
        .servers
        .iter()
        .filter(|s| s.present && (filter.is_empty() || s.id == filter))
        .collect();
    if servers.is_empty() {
        out.empty = Some(if filter.is_empty() {
            "No MCP server is set up. Add one in Settings \u{2192} MCP servers."
        } else {
            "This server is not set up any more."
        });
        return out;
    }
    let mut shown = 0usize;
    // In the all-servers view, servers with nothing to show are named in one line at the end
    // instead of a section each (the built-in server has no resources).
    let mut quiet: Vec<String> = Vec::new();
    for s in servers {
        let name = text::name(&s.name).into_owned();
        let resources: Vec<ResourceRow> = s
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
            .map(|r| {
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
                ResourceRow {
                    uri: r.uri.clone(),
                    label: text::name(resource_label(r)).into_owned(),
                    meta: meta.join(" \u{b7} "),
                    description: r
                        .description
                        .as_deref()
                        .filter(|d| !d.is_empty())
                        .map(|d| text::prose(d).into_owned()),
                    current: selected == Some((s.id.as_str(), r.uri.as_str())),
                    disabled: !s.connected && !cached,
                }
            })
            .collect();
        let templates: Vec<TemplateRow> = s
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
            .map(|(i, t)| TemplateRow {
                index: i,
                label: text::name(
                    t.title
                        .as_deref()
                        .filter(|x| !x.is_empty())
                        .unwrap_or(&t.name),
                )
                .into_owned(),
                uri_template: t.uri_template.clone(),
                disabled: !s.connected,
            })
            .collect();
        let nothing = resources.is_empty() && templates.is_empty();
        if nothing && filter.is_empty() {
            if q.is_empty() {
                quiet.push(name);
            }
            continue;
        }
        shown += resources.len() + templates.len();
        out.sections.push(ServerSection {
            id: s.id.clone(),
            name,
            offline: (!s.connected).then_some(" offline: cached copies only"),
            empty: nothing.then_some(if !q.is_empty() {
                "Nothing here matches."
            } else if s.connected {
                "This server offers no resources."
            } else {
                "Nothing of this server is known yet: it has been offline since Skiff started."
            }),
            resources,
            templates,
        });
    }
    if !quiet.is_empty() {
        out.quiet = Some(format!("No resources from {}.", quiet.join(", ")));
    }
    if shown == 0 && !q.is_empty() {
        out.no_match = Some(format!(
            "No resource matches \u{201c}{}\u{201d}.",
            query.trim()
        ));
    }
    out
}

/// A line under the actions: what an update changed, or why a read failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub text: String,
    pub error: bool,
}

/// One content part, as the preview shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PartView {
    /// Its bytes are no longer in the browser's storage.
    Gone(&'static str),
    /// Text (JSON pretty-printed); `cut` says the preview stops early.
    Text {
        text: String,
        cut: Option<&'static str>,
    },
    Image {
        src: String,
        alt: String,
    },
    Audio {
        src: String,
    },
    /// Bytes that are not shown, in a sentence.
    Binary(String),
}

impl PartView {
    /// Bytes that can be downloaded (every binary part).
    pub fn downloadable(&self) -> bool {
        matches!(
            self,
            PartView::Image { .. } | PartView::Audio { .. } | PartView::Binary(_)
        )
    }
}

/// The pane for one resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviewView {
    pub title: String,
    pub server_name: String,
    pub uri: String,
    pub description: Option<String>,
    /// Types, size and number of parts.
    pub meta: String,
    /// How fresh the copy is ("" when there is nothing to say).
    pub fresh: String,
    pub note: Option<Note>,
    /// Something usable is there to attach.
    pub can_attach: bool,
    /// Subscribe or Unsubscribe, when either is offered.
    pub subscription: Option<Action>,
    /// The server is up: Read again is offered.
    pub can_reload: bool,
    pub parts: Vec<PartView>,
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

fn part_view(part: &Part, name: &str) -> PartView {
    let Some(data) = part.data.as_deref() else {
        return PartView::Gone(
            "This copy's content is gone from the browser's storage; read it again when the server is back.",
        );
    };
    let mime = clean_mime(&part.mime).unwrap_or_default();
    if !part.binary {
        let shown = pretty_json(&mime, data).unwrap_or_else(|| data.to_string());
        return match shown.char_indices().nth(PREVIEW_CHARS) {
            Some((at, _)) => PartView::Text {
                text: shown[..at].to_string(),
                cut: Some("The preview stops here; Attach sends the whole text."),
            },
            None => PartView::Text {
                text: shown,
                cut: None,
            },
        };
    }
    if let Some(src) = image_src(&mime, data) {
        PartView::Image {
            src,
            alt: text::name(name).into_owned(),
        }
    } else if let Some(src) = audio_src(&mime, data) {
        PartView::Audio { src }
    } else {
        PartView::Binary(format!(
            "Binary content ({}, {}): not shown.",
            if mime.is_empty() { "no type" } else { &mime },
            human_bytes(part.size)
        ))
    }
}

/// The pane for one resource: name, URI, type and size, how fresh, actions and the content.
pub fn preview_view(store: &Store, p: &PreviewInfo<'_>, now_ms: f64) -> PreviewView {
    let listed = store.resource(p.server, p.uri);
    let name = store.display_name(p.server, p.uri);
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
    let subscribed = store.subscribed(p.server, p.uri);
    let subscription = if subscribed {
        Some(Action::Unsubscribe)
    } else if store.can_subscribe(p.server) {
        Some(Action::Subscribe)
    } else {
        None
    };
    PreviewView {
        title: text::name(&name).into_owned(),
        server_name: text::name(store.server_name(p.server)).into_owned(),
        uri: text::name(p.uri).into_owned(),
        description: listed
            .and_then(|r| r.description.as_deref())
            .filter(|d| !d.is_empty())
            .map(|d| text::prose(d).into_owned()),
        meta,
        fresh: if p.reading {
            "Reading\u{2026}".to_string()
        } else {
            fresh_text(store, p.server, p.uri, now_ms)
        },
        note: (!p.note.is_empty()).then(|| Note {
            text: p.note.to_string(),
            error: p.error,
        }),
        can_attach: p.parts.iter().any(|x| x.data.is_some()),
        subscription,
        can_reload: store.up(p.server),
        parts: p.parts.iter().map(|x| part_view(x, &name)).collect(),
    }
}

/// One field of a template's form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldView {
    /// The variable's name: the field's label and name.
    pub name: String,
    pub optional: bool,
    pub value: String,
    /// Why the last Read did not go.
    pub error: Option<String>,
}

/// The pane for a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TemplatePane {
    /// The server no longer lists it.
    Gone(&'static str),
    Form(TemplateView),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateView {
    pub title: String,
    pub server_name: String,
    pub uri_template: String,
    pub description: Option<String>,
    /// The fields, or why the template cannot be used.
    pub fields: Result<Vec<FieldView>, String>,
}

/// The pane for template `index` of `server`. `errors` are (field index, sentence) from the
/// last Read.
pub fn template_pane(
    store: &Store,
    server: &str,
    index: usize,
    form: &Result<TemplateForm, String>,
    errors: &[(usize, String)],
) -> TemplatePane {
    let Some(t) = store.server(server).and_then(|s| s.templates.get(index)) else {
        return TemplatePane::Gone("This template is no longer offered by the server.");
    };
    let label = t
        .title
        .as_deref()
        .filter(|x| !x.is_empty())
        .unwrap_or(&t.name);
    TemplatePane::Form(TemplateView {
        title: text::name(label).into_owned(),
        server_name: text::name(store.server_name(server)).into_owned(),
        uri_template: text::name(&t.uri_template).into_owned(),
        description: t
            .description
            .as_deref()
            .filter(|d| !d.is_empty())
            .map(|d| text::prose(d).into_owned()),
        fields: match form {
            Ok(f) => Ok(f
                .fields
                .iter()
                .enumerate()
                .map(|(i, f)| FieldView {
                    name: f.name.clone(),
                    optional: f.optional,
                    value: f.value.clone(),
                    error: errors
                        .iter()
                        .find(|(at, _)| *at == i)
                        .map(|(_, e)| e.clone()),
                })
                .collect()),
            Err(why) => Err(why.clone()),
        },
    })
}

/// One option of the `@` picker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickerRow {
    pub label: String,
    pub server_name: String,
    /// " · offline, cached copy", " · cached" or "".
    pub note: &'static str,
}

/// The `@` picker's options for its items.
pub fn picker_rows(items: &[Item]) -> Vec<PickerRow> {
    items
        .iter()
        .map(|it| PickerRow {
            label: text::name(&it.label).into_owned(),
            server_name: text::name(&it.server_name).into_owned(),
            note: if it.offline {
                " \u{b7} offline, cached copy"
            } else if it.cached {
                " \u{b7} cached"
            } else {
                ""
            },
        })
        .collect()
}

/// What the picker says when nothing matches `query`.
pub fn picker_empty(query: &str) -> String {
    if query.is_empty() {
        "No MCP resources yet: connect a server that offers some.".to_string()
    } else {
        format!("No resource matches \u{201c}{query}\u{201d}.")
    }
}
