//! MCP resources between the page and their servers: reading through the cache (kept copies,
//! long ones' bytes in IndexedDB by SHA-256), the files a resource is attached as, subscribing,
//! and following updates and reconnects while any surface or subscription needs it.
//!
//! A thin loop: what a read becomes, what is kept and for how long, what an update says and
//! whether a copy may be attached are `skiff_core::mcp::res_ui`'s decisions; this performs the
//! requests (through the page's own sessions, `McpRunner::request`) and the storage.
//! Every failure is a sentence for the user.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::{json, Value};
use skiff_core::base64::{base64, unbase64};
use skiff_core::mcp::res_ui::form::TemplateForm;
use skiff_core::mcp::res_ui::read::{attach_check, change_summary, parse_read, Part};
use skiff_core::mcp::resource_cache::ReadPlan;
use skiff_core::records::attachment::TEXT;

use crate::platform::{clock, files};
use crate::runner::mcp::McpRunner;
use crate::stores::mcp::McpStore;
use crate::stores::mcp_resources::{ResourceNews, ResourceStore};
use crate::stores::notices::{Level, Notices};
use crate::stores::reactive::effect;

/// What a read gave: the parts to show and attach, and a line about them.
pub struct Loaded {
    pub parts: Vec<Part>,
    pub note: String,
    pub error: bool,
}

#[derive(Clone, Copy)]
pub struct ResourceRunner {
    pub store: ResourceStore,
    mcp: McpRunner,
    notices: Notices,
    following: StoredValue<bool>,
    /// The owner it was made under (the app's): following outlives the surface that started it.
    owner: StoredValue<Option<Owner>>,
}

fn str_err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

impl ResourceRunner {
    pub fn new(mcp: McpRunner, notices: Notices) -> Self {
        ResourceRunner {
            store: ResourceStore::new(notices),
            mcp,
            notices,
            following: StoredValue::new(false),
            owner: StoredValue::new(Owner::current()),
        }
    }

    pub fn mcp(&self) -> McpStore {
        self.mcp.store()
    }

    /// The kept copy's parts with their bytes loaded back from IndexedDB, if a copy is kept.
    pub async fn cached_parts(&self, server: &str, uri: &str) -> Option<Vec<Part>> {
        let now = clock::now_ms();
        let mut parts = self.store.touch(|s| s.cached_parts(server, uri, now))?;
        for p in parts.iter_mut().filter(|p| p.data.is_none()) {
            let Some(hash) = p.hash.clone() else { continue };
            if let Some(bytes) = self.store.blob(&hash).await {
                p.data = Some(if p.binary {
                    base64(&bytes)
                } else {
                    String::from_utf8_lossy(&bytes).into_owned()
                });
            }
        }
        Some(parts)
    }

    /// Read `uri` from the server and keep the copy (its bytes in IndexedDB first).
    async fn fetch_parts(&self, server: &str, uri: &str) -> Result<Vec<Part>, String> {
        let result = self
            .mcp
            .request(server, "resources/read".into(), Some(json!({ "uri": uri })))
            .await
            .map_err(str_err)?;
        let mut out = parse_read(uri, &result)?;
        for p in out.parts.iter_mut().filter(|p| p.to_store) {
            let bytes = match (&p.data, p.binary) {
                (Some(d), true) => unbase64(d).unwrap_or_default(),
                (Some(d), false) => d.as_bytes().to_vec(),
                (None, _) => Vec::new(),
            };
            // No IndexedDB or no crypto.subtle (an insecure origin): the copy is shown and
            // attached but not kept (core's `keep` refuses a part without its hash).
            let hash = files::sha256_hex(&bytes, uri).await.ok();
            p.hash = match hash {
                Some(h) if self.store.put_blob(&h, &bytes).await => Some(h),
                _ => None,
            };
        }
        let now = clock::now_ms();
        let freed = self
            .store
            .update(|s| s.keep(server, uri, &out.parts, out.ttl_ms, now));
        let store = self.store;
        spawn_local(async move { store.delete_blobs(freed).await });
        Ok(out.parts)
    }

    /// What to show and attach for `uri`: a fresh kept copy, a new read, or the kept copy when
    /// the server is down or the read fails (with a note). `Err` when there is nothing.
    pub async fn load(&self, server: &str, uri: &str, force: bool) -> Result<Loaded, String> {
        let mut plan = self.store.with(|s| s.plan(server, uri, clock::now_ms()));
        if force && self.store.with(|s| s.up(server)) {
            plan = ReadPlan::Fetch { cached: true };
        }
        let cached = match plan {
            ReadPlan::Fetch { cached: false } => None,
            _ => self.cached_parts(server, uri).await,
        };
        match (plan, cached) {
            (ReadPlan::UseCached, Some(parts)) => Ok(Loaded {
                parts,
                note: String::new(),
                error: false,
            }),
            (ReadPlan::Unavailable, _) => Err(format!(
                "{} is offline and Skiff has no copy of {uri}.",
                self.store.with(|s| s.server_name(server).to_string())
            )),
            (_, cached) => match self.fetch_parts(server, uri).await {
                Ok(parts) => Ok(Loaded {
                    parts,
                    note: String::new(),
                    error: false,
                }),
                Err(e) => match cached {
                    Some(parts) => Ok(Loaded {
                        parts,
                        note: format!("Could not read it again: {e} The kept copy is shown."),
                        error: true,
                    }),
                    None => Err(e),
                },
            },
        }
    }

    /// The files a resource is attached as, with the name it is announced under: each usable
    /// part named with the resource's URI (the model reads text as "File: <name>"), typed
    /// with its MIME, `text/plain` for any text. The composer's own checks apply as for a
    /// picked file.
    pub fn files(
        &self,
        server: &str,
        uri: &str,
        parts: &[Part],
    ) -> Result<(String, Vec<web_sys::File>), String> {
        attach_check(parts)?;
        let name = self.store.with(|s| s.display_name(server, uri));
        let mut out = Vec::new();
        for p in parts {
            let Some(data) = p.data.as_deref() else {
                continue;
            };
            let file_name = if p.uri.is_empty() { uri } else { &p.uri };
            let (bytes, mime) = if p.binary {
                let mime = if p.mime.is_empty() {
                    "application/octet-stream"
                } else {
                    &p.mime
                };
                (unbase64(data).unwrap_or_default(), mime)
            } else {
                (data.as_bytes().to_vec(), TEXT)
            };
            out.push(file(&bytes, file_name, mime)?);
        }
        Ok((name, out))
    }

    /// Subscribe to (or unsubscribe from) `uri`: asked the same way in both eras (the
    /// session turns it into its listen filter on a modern server). The sentence says how it
    /// went; an unsubscribe the server does not confirm still stops following it.
    pub async fn subscribe(&self, server: &str, uri: &str, on: bool) -> (String, bool) {
        let method = if on {
            "resources/subscribe"
        } else {
            "resources/unsubscribe"
        };
        let asked = self
            .mcp
            .request(server, method.into(), Some(json!({ "uri": uri })))
            .await;
        let (note, error) = match (&asked, on) {
            (Ok(_), true) => (
                "Subscribed: when the server changes it, Skiff reads it again and tells you."
                    .to_string(),
                false,
            ),
            (Ok(_), false) => ("Unsubscribed.".to_string(), false),
            (Err(e), true) => return (format!("Could not subscribe: {e}"), true),
            (Err(e), false) => (
                format!("The server did not confirm: {e} Skiff stopped following it anyway."),
                true,
            ),
        };
        self.store.update(|s| {
            if on {
                s.subscribe(server, uri)
            } else {
                s.unsubscribe(server, uri)
            }
        });
        self.follow();
        (note, error)
    }

    /// Suggestions for `field` of template `index` as typed (`completion/complete`); none when
    /// the server offers none (a help, never a step).
    pub async fn complete(
        &self,
        server: &str,
        index: usize,
        values: &[(String, String)],
        field: &str,
    ) -> Option<Value> {
        let params = self.store.with(|s| {
            let t = s.server(server)?.templates.get(index)?;
            TemplateForm::new(t, values).ok()?.completion(field)
        })?;
        self.mcp
            .request(server, "completion/complete".into(), Some(params))
            .await
            .ok()
    }

    /// From now on: keep the store's lists in step with the page's, subscribe again when a
    /// server (re)connects, and read subscribed resources again when they change. Started by
    /// the first resource surface, or at start while subscriptions must resume.
    pub fn follow(&self) {
        if self.following.get_value() {
            return;
        }
        self.following.set_value(true);
        let this = *self;
        let mcp = self.mcp.store();
        mcp.inbox.follow_resources();
        match self.owner.get_value() {
            Some(owner) => owner.with(|| this.watch(mcp)),
            None => this.watch(mcp),
        }
    }

    fn watch(self, mcp: McpStore) {
        let this = self;
        // The connected servers now, tracked: each one that was not connected before is
        // (re)subscribed (a fresh session, or the first one after a reload).
        let connected = StoredValue::new(Vec::<String>::new());
        effect(move || {
            mcp.live.with(|l| {
                for (_, live) in l {
                    live.resources.track();
                    live.resource_templates.track();
                    live.capabilities.track();
                }
            });
            let now: Vec<String> = mcp.connected_servers().get();
            this.store.sync(mcp);
            let before = connected.get_value();
            connected.set_value(now.clone());
            for id in now.into_iter().filter(|id| !before.contains(id)) {
                spawn_local(async move { this.resubscribe(&id).await });
            }
        });
        effect(move || {
            for (server, uri) in mcp.inbox.take_updates() {
                spawn_local(async move { this.updated(&server, &uri).await });
            }
        });
    }

    async fn resubscribe(&self, server: &str) {
        let (uris, name) = self
            .store
            .with(|s| (s.subs_for(server), s.server_name(server).to_string()));
        for uri in uris {
            let asked = self
                .mcp
                .request(
                    server,
                    "resources/subscribe".into(),
                    Some(json!({ "uri": uri })),
                )
                .await;
            if let Err(e) = asked {
                let shown = self.store.with(|s| s.display_name(server, &uri));
                self.notices.push(
                    Level::Error,
                    format!("Could not subscribe again to {shown} on {name}: {e}"),
                );
            }
        }
    }

    /// A resource changed on its server: its kept copy is marked, and a subscribed one is
    /// read again; what changed shows on the pane showing it, else as a notice (one per
    /// resource: a later change replaces the earlier notice).
    async fn updated(&self, server: &str, uri: &str) {
        let follow = self.store.update(|s| {
            s.mark_changed(server, uri);
            s.subscribed(server, uri) && s.up(server)
        });
        if !follow {
            return;
        }
        let old = self.cached_parts(server, uri).await;
        let name = self.store.with(|s| s.display_name(server, uri));
        let key = format!("mcp-resource:{server}\u{1f}{uri}");
        let parts = match self.fetch_parts(server, uri).await {
            Ok(p) => p,
            Err(e) => {
                self.notices.push_keyed(
                    Level::Error,
                    format!("{name} changed, but reading it again failed: {e}"),
                    Some(&key),
                );
                return;
            }
        };
        let summary = change_summary(&name, old.as_deref().filter(|o| !o.is_empty()), &parts);
        let shown = self
            .store
            .open
            .with_untracked(|o| o.as_ref() == Some(&(server.to_string(), uri.to_string())));
        if shown {
            self.store.news.set(Some(ResourceNews {
                server: server.to_string(),
                uri: uri.to_string(),
                parts,
                summary,
            }));
        } else {
            self.notices.push_keyed(Level::Info, summary, Some(&key));
        }
    }
}

/// A file of `bytes` named `name`, typed `mime`.
fn file(bytes: &[u8], name: &str, mime: &str) -> Result<web_sys::File, String> {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::FilePropertyBag::new();
    options.set_type(mime);
    web_sys::File::new_with_u8_array_sequence_and_options(&parts, name, &options)
        .map_err(|e| format!("The browser could not make a file of {name}: {e:?}"))
}
