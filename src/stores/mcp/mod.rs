//! The MCP store: the configured servers (persisted), one [`ServerLive`] per server (what the
//! runner observed), and what the model may call, derived from them (the tool index, tool
//! count, connected servers).
//!
//! Invariants:
//! - `servers` is written to storage whole on every change, at `skiff_core`'s key and format;
//!   a saved list that cannot be read is copied aside first, and one written by a newer Skiff
//!   is never overwritten (changes then stay in memory and a notice says so).
//! - `live` has exactly one entry per configured server plus one per in-page server, in that
//!   order; each entry's signals live under a child owner of the store's own (see
//!   `stores::owners`), so no component or effect disposes them, and removing the server
//!   disposes them.
//! - The tool index only counts servers whose health is `Connected`, in the order of Settings,
//!   so the names the model sees are stable.
//!
//! It never talks to a server: connecting, calling and reconnecting are `runner::mcp`'s job.

mod inbox;
mod live;

pub use inbox::{AskEvent, McpInbox};
pub use live::{ServerLive, LOG_LIMIT};
pub use skiff_core::mcp::model::{Prompt, Resource, ResourceTemplate, Tool};

use crate::stores::reactive::memo;
use leptos::prelude::*;
use skiff_core::mcp::backoff::HealthStatus;
use skiff_core::mcp::config::{
    export_mcp_servers, import_mcp_servers, ImportError, ImportReport, ServerConfig, ServerList,
    SERVERS_KEY,
};
use skiff_core::mcp::tool_index::{ServerTools, ToolIndex};
use skiff_core::mcp::EraCache;
use skiff_core::pipeline::instructions::ServerInstructions;
use std::collections::HashMap;

use super::notices::Notices;
use super::owners::{dispose_later, store_root};
use super::whole_value::{Texts, WholeValue};
use crate::platform::storage;

/// Prefix of the per-server era cache keys (`skiff:mcp-era:<server id>`).
pub const ERA_KEY_PREFIX: &str = "skiff:mcp-era:";

pub fn era_key(server_id: &str) -> String {
    format!("{ERA_KEY_PREFIX}{server_id}")
}

#[derive(Clone, Copy)]
pub struct McpStore {
    /// Configured servers, in the order Settings shows them.
    pub servers: RwSignal<Vec<ServerConfig>>,
    /// One entry per configured server, then per in-page server.
    pub live: RwSignal<Vec<(String, ServerLive)>>,
    /// In-page servers (built-in tools): `(id, name)`, never persisted.
    pub in_page: RwSignal<Vec<(String, String)>>,
    pub notices: Notices,
    /// Questions and resource updates waiting for the MCP surfaces.
    pub inbox: McpInbox,
    persisted: WholeValue,
    /// The store's root owner and one child per `live` entry.
    owners: StoredValue<(Owner, HashMap<String, Owner>)>,
    index: Memo<ToolIndex>,
    count: Signal<usize>,
    connected: Signal<Vec<String>>,
}

impl McpStore {
    /// Load the servers from storage and start mirroring changes back to it.
    pub fn load(notices: Notices) -> Self {
        let (initial, persisted) = WholeValue::load(
            SERVERS_KEY,
            notices,
            Texts {
                save_key: "mcp-servers-save",
                unsaved_key: "mcp-servers-unsaved",
                unsaved_text: "MCP server changes are not being saved: the saved server list could not be read or was written by a newer Skiff, and would be lost. Reload, or free some browser storage.",
                failed_suffix: "",
            },
            ServerList::decode,
        );
        let servers = RwSignal::new(initial.map(|l| l.servers).unwrap_or_default());
        let live = RwSignal::new(Vec::<(String, ServerLive)>::new());
        let in_page = RwSignal::new(Vec::<(String, String)>::new());
        let index = memo(move || build_index(servers, live, in_page));
        let count = Signal::derive(move || index.with(ToolIndex::len));
        let connected = Signal::derive(move || {
            live.with(|l| {
                l.iter()
                    .filter(|(_, s)| s.is_connected())
                    .map(|(id, _)| id.clone())
                    .collect()
            })
        });
        let store = McpStore {
            servers,
            live,
            in_page,
            notices,
            inbox: McpInbox::new(),
            persisted,
            owners: StoredValue::new((store_root(), HashMap::new())),
            index,
            count,
            connected,
        };
        store.sync_live();

        persisted.mirror(move || {
            let raw = store
                .servers
                .with(|s| ServerList { servers: s.clone() }.encode());
            // Direct writes to `servers` (not through the methods) still get their live entry.
            store.sync_live();
            raw
        });
        store
    }

    /// Another tab saved the server list: take it (whole-value, last writer wins).
    pub fn apply_remote(&self, raw: Option<&str>) {
        let write_back = || {
            self.servers
                .with_untracked(|s| ServerList { servers: s.clone() }.encode())
        };
        let Some(list) = self.persisted.remote(raw, ServerList::decode, write_back) else {
            return;
        };
        if self.servers.with_untracked(|cur| *cur != list.servers) {
            self.servers.set(list.servers);
        }
    }

    pub fn live_for(&self, id: &str) -> Option<ServerLive> {
        self.live
            .with_untracked(|l| l.iter().find(|(i, _)| i == id).map(|(_, s)| *s))
    }

    pub fn server(&self, id: &str) -> Option<ServerConfig> {
        self.servers
            .with_untracked(|s| s.iter().find(|c| c.id == id).cloned())
    }

    /// The instructions of the configured servers whose "send to the model" switch is on, as
    /// they last arrived (tracked, so the context gauge re-plans when one arrives).
    /// `pipeline::instructions` decides which a request carries.
    pub fn instructions(&self) -> Vec<ServerInstructions> {
        self.servers.with(|servers| {
            servers
                .iter()
                .filter(|c| c.enabled && c.send_instructions)
                .filter_map(|c| {
                    let text = self.live_for(&c.id)?.instructions.get()?;
                    Some(ServerInstructions {
                        server_id: c.id.clone(),
                        server_name: c.name.clone(),
                        text,
                    })
                })
                .collect()
        })
    }

    /// Display name of a configured or in-page server.
    pub fn server_name(&self, id: &str) -> Option<String> {
        self.server(id).map(|c| c.name).or_else(|| {
            self.in_page.with_untracked(|p| {
                p.iter()
                    .find(|(i, _)| i == id)
                    .map(|(_, name)| name.clone())
            })
        })
    }

    /// Add a server; an empty or already used id is replaced by a fresh one.
    pub fn add_server(&self, cfg: ServerConfig) {
        self.insert_server(cfg);
    }

    /// [`McpStore::add_server`], returning the id the server got.
    pub fn insert_server(&self, mut cfg: ServerConfig) -> String {
        let taken = self.id_taken(&cfg.id);
        if cfg.id.trim().is_empty() || taken {
            cfg.id = self.fresh_id(&cfg.name);
        }
        let id = cfg.id.clone();
        self.servers.update(|s| s.push(cfg));
        self.sync_live();
        id
    }

    /// Replace the server with `cfg.id`. A changed URL or transport forgets the detected era.
    pub fn update_server(&self, cfg: ServerConfig) {
        let Some(old) = self.server(&cfg.id) else {
            return;
        };
        if old == cfg {
            return;
        }
        if old.url != cfg.url || old.transport != cfg.transport {
            self.set_era_cache(&cfg.id, None);
        }
        self.servers.update(|s| {
            if let Some(slot) = s.iter_mut().find(|c| c.id == cfg.id) {
                *slot = cfg;
            }
        });
    }

    pub fn remove_server(&self, id: &str) {
        if self.server(id).is_none() {
            return;
        }
        self.servers.update(|s| s.retain(|c| c.id != id));
        self.set_era_cache(id, None);
        self.sync_live();
    }

    /// Import an `mcpServers` JSON (Claude Desktop, Cursor, VS Code); the servers that could
    /// be imported are added, the report lists those that could not and why.
    pub fn import(&self, text: &str) -> Result<ImportReport, ImportError> {
        let existing = ServerList {
            servers: self.servers.get_untracked(),
        };
        let mut report = import_mcp_servers(text, &existing)?;
        for cfg in &mut report.imported {
            cfg.id = self.insert_server(cfg.clone());
        }
        Ok(report)
    }

    /// The servers as `{"mcpServers": {...}}`.
    pub fn export(&self) -> String {
        self.servers
            .with_untracked(|s| export_mcp_servers(&ServerList { servers: s.clone() }))
    }

    /// Which server answers which tool name, over connected servers.
    pub fn tool_index(&self) -> Memo<ToolIndex> {
        self.index
    }

    pub fn tool_count(&self) -> Signal<usize> {
        self.count
    }

    /// Ids of the servers whose health is `Connected`.
    pub fn connected_servers(&self) -> Signal<Vec<String>> {
        self.connected
    }

    /// Settings' one-line summary: the user's own servers and their tools, with the built-in
    /// tools counted apart (they are an in-page server the user never added, and counting it
    /// showed "4 tool(s) from 1 connected server(s)" above "No MCP servers yet"). Reactive.
    pub fn summary(&self) -> McpSummary {
        let in_page: Vec<String> = self
            .in_page
            .with(|p| p.iter().map(|(id, _)| id.clone()).collect());
        let builtin = |id: &str| in_page.iter().any(|i| i == id);
        let (builtin_tools, tools) = self.index.with(|ix| {
            let b = ix
                .entries()
                .iter()
                .filter(|e| builtin(&e.server_id))
                .count();
            (b, ix.len() - b)
        });
        McpSummary {
            configured: self.servers.with(Vec::len),
            connected: self
                .connected
                .with(|c| c.iter().filter(|id| !builtin(id)).count()),
            tools,
            builtin_tools,
        }
    }

    /// The era and version last detected for a server (a cache: unreadable means absent).
    pub fn era_cache(&self, id: &str) -> Option<EraCache> {
        let raw = storage::get(&era_key(id)).ok().flatten()?;
        EraCache::decode(&raw).ok()
    }

    /// Remember (or with `None` forget) what was detected, so the next connection skips the
    /// probe. A cache, not user data: an unreadable old value is simply replaced.
    pub fn set_era_cache(&self, id: &str, cache: Option<EraCache>) {
        let key = era_key(id);
        let result = match cache {
            Some(c) => storage::set(&key, &c.encode()),
            None => storage::remove(&key),
        };
        if let Err(e) = result {
            if let Some(live) = self.live_for(id) {
                live.push_log(format!("Could not remember the protocol version: {e}"));
            }
        }
    }

    /// Add an in-page server (built-in tools) with its live entry; not persisted. Returns its
    /// live entry. Registering an id twice only renames it.
    pub fn register_in_page(&self, id: &str, name: &str) -> ServerLive {
        let known = self
            .in_page
            .with_untracked(|p| p.iter().any(|(i, _)| i == id));
        if known {
            self.in_page.update(|p| {
                for entry in p.iter_mut().filter(|(i, _)| i == id) {
                    entry.1 = name.to_string();
                }
            });
        } else {
            self.in_page
                .update(|p| p.push((id.to_string(), name.to_string())));
        }
        self.sync_live();
        self.live_for(id).unwrap_or_else(|| self.new_live(id))
    }

    /// Whether an in-page server is registered under `id` (reactive).
    pub fn is_in_page(&self, id: &str) -> bool {
        self.in_page.with(|p| p.iter().any(|(i, _)| i == id))
    }

    /// Whether server `id` has settled after connecting (reactive): its tools are listed, or
    /// the connection failed. A turn waiting for a server it must offer waits for this.
    pub fn settled(&self, id: &str) -> bool {
        self.live.with(|l| {
            l.iter().find(|(i, _)| i == id).is_some_and(|(_, s)| {
                s.tools.with(|t| !t.is_empty())
                    || s.health.with(|h| {
                        matches!(
                            h.status,
                            HealthStatus::Error { .. } | HealthStatus::Reconnecting { .. }
                        )
                    })
            })
        })
    }

    pub fn unregister_in_page(&self, id: &str) {
        self.in_page.update(|p| p.retain(|(i, _)| i != id));
        self.sync_live();
    }

    fn id_taken(&self, id: &str) -> bool {
        self.servers
            .with_untracked(|s| s.iter().any(|c| c.id == id))
            || self
                .in_page
                .with_untracked(|p| p.iter().any(|(i, _)| i == id))
    }

    fn fresh_id(&self, name: &str) -> String {
        let mut list = ServerList {
            servers: self.servers.get_untracked(),
        };
        // In-page ids count as taken too.
        for (id, _) in self.in_page.get_untracked() {
            list.servers.push(ServerConfig::new(&id, "", ""));
        }
        list.fresh_id(name)
    }

    /// A server's live entry, under its own child of the store's owner.
    fn new_live(&self, id: &str) -> ServerLive {
        let made = self.owners.try_update_value(|(root, per)| {
            let owner = root.child();
            let live = owner.with(ServerLive::new);
            if let Some(old) = per.insert(id.to_string(), owner) {
                dispose_later(vec![old]);
            }
            live
        });
        // `None` only while the app is being torn down.
        made.unwrap_or_else(ServerLive::new)
    }

    /// Make `live` match `servers` + `in_page`: same ids, same order, existing entries kept.
    fn sync_live(&self) {
        let ids: Vec<String> = self
            .servers
            .with_untracked(|s| s.iter().map(|c| c.id.clone()).collect::<Vec<_>>())
            .into_iter()
            .chain(
                self.in_page
                    .with_untracked(|p| p.iter().map(|(i, _)| i.clone()).collect::<Vec<_>>()),
            )
            .collect();
        let same = self.live.with_untracked(|l| {
            l.len() == ids.len() && l.iter().zip(&ids).all(|((a, _), b)| a == b)
        });
        if same {
            return;
        }
        let old = self.live.get_untracked();
        let mut next = Vec::with_capacity(ids.len());
        for id in ids {
            if next.iter().any(|(i, _): &(String, ServerLive)| *i == id) {
                continue;
            }
            let entry = old
                .iter()
                .find(|(i, _)| *i == id)
                .map(|(_, s)| *s)
                .unwrap_or_else(|| self.new_live(&id));
            next.push((id, entry));
        }
        let gone: Vec<String> = old
            .iter()
            .filter(|(i, _)| !next.iter().any(|(n, _)| n == i))
            .map(|(i, _)| i.clone())
            .collect();
        self.live.set(next);
        let owners: Vec<Owner> = self
            .owners
            .try_update_value(|(_, per)| gone.iter().filter_map(|i| per.remove(i)).collect())
            .unwrap_or_default();
        dispose_later(owners);
    }
}

/// What [`McpStore::summary`] counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpSummary {
    /// The user's servers in Settings, connected or not.
    pub configured: usize,
    /// The user's servers that are connected.
    pub connected: usize,
    /// Tools the model may call from the user's servers.
    pub tools: usize,
    /// Tools of the built-in (in-page) server, when it is on.
    pub builtin_tools: usize,
}

impl McpSummary {
    pub fn sentence(&self) -> String {
        use skiff_core::format::count;
        let builtin = (self.builtin_tools > 0).then(|| match self.builtin_tools {
            1 => "1 built-in tool is on.".to_string(),
            n => format!("{n} built-in tools are on."),
        });
        let own = (self.configured > 0).then(|| {
            format!(
                "{} from {}.",
                count(self.tools, "tool", "tools"),
                count(self.connected, "connected server", "connected servers")
            )
        });
        own.into_iter().chain(builtin).collect::<Vec<_>>().join(" ")
    }
}

fn build_index(
    servers: RwSignal<Vec<ServerConfig>>,
    live: RwSignal<Vec<(String, ServerLive)>>,
    in_page: RwSignal<Vec<(String, String)>>,
) -> ToolIndex {
    let mut named: Vec<(String, String)> = servers.with(|s| {
        s.iter()
            .filter(|c| c.enabled)
            .map(|c| (c.id.clone(), c.name.clone()))
            .collect()
    });
    named.extend(in_page.get());
    let input: Vec<ServerTools> = live.with(|l| {
        named
            .into_iter()
            .filter_map(|(id, name)| {
                let (_, state) = l.iter().find(|(i, _)| *i == id)?;
                let connected = state
                    .health
                    .with(|h| matches!(h.status, HealthStatus::Connected { .. }));
                connected.then(|| ServerTools {
                    server_id: id,
                    server_name: name,
                    tools: state.tools.get(),
                    runs_tasks: state
                        .capabilities
                        .with(skiff_core::mcp::task::server_runs_tool_tasks),
                })
            })
            .collect()
    });
    ToolIndex::build(&input)
}
