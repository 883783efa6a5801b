//! The resource browser: a dialog (the page's one `Modal`) with the server choice and search,
//! the list beside the pane (one at a time on a phone), and the pane showing a resource or a
//! template's form. What each part shows is `res_ui::view`'s; reading, attaching and
//! subscribing are the resource runner's.

use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::mcp::res_ui::read::Part;
use skiff_core::mcp::res_ui::view::{server_options, Action};
use skiff_core::mcp::resource_cache::ReadPlan;
use wasm_bindgen::JsCast;

use super::list::list;
use super::preview::preview;
use super::template::template;
use crate::platform::clock;
use crate::runner::mcp_resources::ResourceRunner;
use crate::stores::reactive::effect;
use crate::ui::dialog::Modal;
use crate::ui::mcp::McpSurfaces;

/// What the pane shows.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Pane {
    Resource { server: String, uri: String },
    Template { server: String, index: usize },
}

/// The open resource's content, and the line about it.
#[derive(Debug, Clone, PartialEq, Default)]
pub(super) struct Shown {
    pub parts: Vec<Part>,
    /// It is being read (a kept copy shows meanwhile).
    pub reading: bool,
    pub note: String,
    pub error: bool,
}

/// The browser's state, shared by its parts.
#[derive(Clone, Copy)]
pub(super) struct Browser {
    pub runner: ResourceRunner,
    pub pane: RwSignal<Option<Pane>>,
    pub shown: RwSignal<Shown>,
    /// The line under the search (what an action did, why the store is locked).
    pub notice: RwSignal<String>,
    /// Which open is the latest: an earlier read answering late is dropped.
    reads: StoredValue<u64>,
    root: NodeRef<html::Div>,
}

/// Focus the first element matching `selector` inside the browser once it is drawn.
pub(super) fn focus_soon(root: NodeRef<html::Div>, selector: &'static str) {
    request_animation_frame(move || {
        // A frame later the dialog may be gone (closed, or the page reloaded its surface):
        // a disposed NodeRef must read as "nothing to focus", not panic.
        let el = root
            .try_get_untracked()
            .flatten()
            .and_then(|r| r.query_selector(selector).ok().flatten())
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
        if let Some(el) = el {
            let _ = el.focus();
        }
    });
}

impl Browser {
    pub fn focus(&self, selector: &'static str) {
        focus_soon(self.root, selector);
    }

    /// Open `uri` of `server` in the pane: the kept copy at once, then what the read gives.
    pub fn open_resource(&self, server: String, uri: String, force: bool) {
        let this = *self;
        let read = self.reads.get_value() + 1;
        self.reads.set_value(read);
        self.pane.set(Some(Pane::Resource {
            server: server.clone(),
            uri: uri.clone(),
        }));
        self.runner
            .store
            .open
            .set(Some((server.clone(), uri.clone())));
        self.shown.set(Shown {
            reading: true,
            ..Shown::default()
        });
        self.focus("#res-pane-title");
        let latest = move || this.reads.try_get_value() == Some(read);
        spawn_local(async move {
            let plan = this
                .runner
                .store
                .with(|s| s.plan(&server, &uri, clock::now_ms()));
            let kept = if plan == (ReadPlan::Fetch { cached: false }) {
                None
            } else {
                this.runner.cached_parts(&server, &uri).await
            };
            if !latest() {
                return;
            }
            let kept = kept.unwrap_or_default();
            this.shown.update(|s| s.parts = kept.clone());
            let got = this.runner.load(&server, &uri, force).await;
            if !latest() {
                return;
            }
            this.shown.set(match got {
                Ok(l) => Shown {
                    parts: l.parts,
                    reading: false,
                    note: l.note,
                    error: l.error,
                },
                Err(e) => Shown {
                    parts: kept,
                    reading: false,
                    note: e,
                    error: true,
                },
            });
        });
    }

    pub fn open_template(&self, server: String, index: usize) {
        self.reads.update_value(|r| *r += 1);
        self.runner.store.open.set(None);
        self.pane.set(Some(Pane::Template { server, index }));
        self.focus(".res-form input");
    }

    /// Back to the list (a phone shows one at a time).
    pub fn back(&self) {
        self.reads.update_value(|r| *r += 1);
        self.runner.store.open.set(None);
        self.pane.set(None);
        self.focus("#res-search");
    }

    /// The open resource's line, and the one under the search.
    pub fn note(&self, text: String, error: bool) {
        self.notice.set(text.clone());
        self.shown.update(|s| {
            s.note = text;
            s.error = error;
        });
    }

    pub fn reset(&self) {
        let said = match self.runner.store.reset() {
            Ok(s) | Err(s) => s,
        };
        self.notice.set(said);
    }
}

fn narrow() -> bool {
    window()
        .match_media("(max-width: 640px)")
        .ok()
        .flatten()
        .is_some_and(|m| m.matches())
}

pub(super) fn browser(surfaces: McpSurfaces, filter: String) -> AnyView {
    let runner = surfaces.resources;
    let b = Browser {
        runner,
        pane: RwSignal::new(None),
        shown: RwSignal::new(Shown::default()),
        notice: RwSignal::new(runner.store.with(|s| s.locked.clone()).unwrap_or_default()),
        reads: StoredValue::new(0),
        root: NodeRef::new(),
    };
    let filter = RwSignal::new(filter);
    let query = RwSignal::new(String::new());
    // An update of the open resource, read again: shown in the pane with what changed.
    effect(move || {
        let Some(news) = runner.store.news.get() else {
            return;
        };
        runner.store.news.update_untracked(|n| *n = None);
        let here = b.pane.with_untracked(|p| {
            p.as_ref()
                == Some(&Pane::Resource {
                    server: news.server.clone(),
                    uri: news.uri.clone(),
                })
        });
        if here {
            b.shown.set(Shown {
                parts: news.parts,
                reading: false,
                note: news.summary,
                error: false,
            });
        }
    });
    // A resource link from a tool's result: shown in the pane, on its server's list.
    effect(move || {
        let Some((server, uri)) = surfaces.pending.get() else {
            return;
        };
        surfaces.pending.update_untracked(|p| *p = None);
        if filter.get_untracked() != server {
            filter.set(server.clone());
        }
        b.open_resource(server, uri, false);
    });
    on_cleanup(move || {
        runner.store.open.try_set(None);
        surfaces.pending.try_set(None);
    });
    let close = move || surfaces.browse.set(None);
    // Escape on a phone with the pane open goes back to the list; otherwise it closes.
    let on_close = move || {
        if b.pane.with_untracked(Option::is_some) && narrow() {
            b.back();
        } else {
            close();
        }
    };
    let options = move || {
        runner.store.track();
        runner.store.with(server_options)
    };
    view! {
        <Modal label="Resources" class="res-dialog" initial_focus="#res-search" on_close=on_close>
            <div class="res-frame" node_ref=b.root>
                <header class="res-head">
                    <h2 id="res-title">"Resources"</h2>
                    <button
                        type="button"
                        class="res-close"
                        data-act=Action::Close.as_str()
                        aria-label="Close resources"
                        on:click=move |_| close()
                    >
                        {Action::Close.label()}
                    </button>
                </header>
                <div class="res-bar">
                    <select
                        id="res-server"
                        aria-label="Server"
                        prop:value=move || filter.get()
                        on:change=move |ev| filter.set(event_target_value(&ev))
                    >
                        {move || {
                            options()
                                .into_iter()
                                .map(|o| {
                                    let selected = filter.with_untracked(|f| *f == o.id);
                                    view! { <option value=o.id selected=selected>{o.label}</option> }
                                })
                                .collect_view()
                        }}
                    </select>
                    <input
                        id="res-search"
                        type="search"
                        aria-label="Search resources"
                        placeholder="Search resources"
                        autocomplete="off"
                        on:input=move |ev| query.set(event_target_value(&ev))
                    />
                </div>
                <p id="res-notice" class="res-notice" role="status">{move || b.notice.get()}</p>
                <div class="res-body" class:has-pane=move || b.pane.with(Option::is_some)>
                    <div id="res-list" class="res-list">{list(b, filter, query)}</div>
                    <section id="res-pane" class="res-pane" aria-label="Resource">
                        {move || match b.pane.get() {
                            None => view! {
                                <p class="res-empty">"Choose a resource or a template to see it here."</p>
                            }
                                .into_any(),
                            Some(Pane::Resource { server, uri }) => preview(b, server, uri),
                            Some(Pane::Template { server, index }) => template(b, server, index),
                        }}
                    </section>
                </div>
            </div>
        </Modal>
    }
    .into_any()
}
