//! Paginated `*/list` requests of `McpSession`: follow `nextCursor` until the list is complete,
//! then report the whole list in one event.
//!
//! A list asked for again while one is running is not run twice in parallel: the running one
//! is marked to start over when it finishes, so the last report always reflects the latest
//! `list_changed`. Re-lists caused by `list_changed` start at most once per `RELIST_GAP_MS` per
//! kind (one in flight, one waiting): a server announcing 500 changes a second would otherwise
//! be re-listed as fast as it can answer (93 times a second, measured). List pages are safe to repeat, which is why a session that expires in the
//! middle of a list simply starts that list over on the new session.

use serde_json::{json, Value};

use super::error::McpError;
use super::messages::{ListItems, ListKind, RequestId};
use super::param_headers;
use super::session::{McpSession, PendingKind};
use super::session_types::{Phase, SessionEvent};

/// The least time between the starts of two lists of one kind caused by `list_changed`.
pub(crate) const RELIST_GAP_MS: f64 = 1_000.0;

#[derive(Debug, Clone)]
pub(super) struct ListOp {
    pub items: ListItems,
    pub pages: usize,
    pub cursors: Vec<String>,
    pub skipped: Vec<String>,
    /// The page request in flight, if any.
    pub current: Option<RequestId>,
    /// Start over once this run ends.
    pub rerun: bool,
}

impl ListOp {
    fn new(kind: ListKind) -> Self {
        ListOp {
            items: ListItems::empty(kind),
            pages: 0,
            cursors: Vec::new(),
            skipped: Vec::new(),
            current: None,
            rerun: false,
        }
    }
}

impl McpSession {
    pub fn list_tools(&mut self, now_ms: f64) {
        self.list(ListKind::Tools, now_ms);
    }

    pub fn list_resources(&mut self, now_ms: f64) {
        self.list(ListKind::Resources, now_ms);
    }

    pub fn list_resource_templates(&mut self, now_ms: f64) {
        self.list(ListKind::ResourceTemplates, now_ms);
    }

    pub fn list_prompts(&mut self, now_ms: f64) {
        self.list(ListKind::Prompts, now_ms);
    }

    /// List everything of `kind`, following cursors; reported as one `*Listed` event, or
    /// `ListFailed`. While connecting the list starts once the session is ready.
    pub fn list(&mut self, kind: ListKind, now_ms: f64) {
        if let Some(op) = self.lists.get_mut(&kind) {
            op.rerun = true;
            return;
        }
        if self.phase.is_ready() {
            self.lists.insert(kind, ListOp::new(kind));
            self.request_page(kind, None, now_ms);
        } else if self.phase.is_connecting() {
            // Started by `start_waiting_lists` when the session becomes ready.
            self.lists.insert(kind, ListOp::new(kind));
        } else {
            self.emit(SessionEvent::ListFailed {
                kind,
                error: McpError::NotConnected,
            });
        }
    }

    /// The server said the list of `kind` changed: re-list, coalesced (see the module doc).
    pub(super) fn list_changed(&mut self, kind: ListKind, now_ms: f64) {
        if let Some(op) = self.lists.get_mut(&kind) {
            op.rerun = true;
            return;
        }
        if self.relist_at.contains_key(&kind) {
            return;
        }
        match self.list_started.get(&kind) {
            Some(started) if started + RELIST_GAP_MS > now_ms => {
                self.relist_at.insert(kind, started + RELIST_GAP_MS);
            }
            _ => self.list(kind, now_ms),
        }
    }

    /// The server's notification stream (the Streamable HTTP GET) just opened. A server with
    /// no stream open has nowhere to send `list_changed` and drops it: server-everything
    /// registers three tools right after `initialized` and announces them before the page's GET
    /// arrives, so the first list held 12 of 15 tools in two runs of five. Each list the server
    /// says can change is therefore re-listed once, coalesced like a `list_changed` (a list
    /// still running simply runs again when it ends).
    pub fn listener_opened(&mut self, now_ms: f64) {
        let Phase::Ready { capabilities, .. } = &self.phase else {
            return;
        };
        let changes = |c: Option<Option<bool>>| c.flatten() == Some(true);
        let mut kinds = Vec::new();
        if changes(capabilities.tools.as_ref().map(|c| c.list_changed)) {
            kinds.push(ListKind::Tools);
        }
        if changes(capabilities.prompts.as_ref().map(|c| c.list_changed)) {
            kinds.push(ListKind::Prompts);
        }
        if changes(capabilities.resources.as_ref().map(|c| c.list_changed)) {
            kinds.extend([ListKind::Resources, ListKind::ResourceTemplates]);
        }
        for kind in kinds {
            if self.list_started.contains_key(&kind) || self.lists.contains_key(&kind) {
                self.relist(kind, now_ms);
            }
        }
    }

    /// When the next coalesced re-list is due.
    pub(super) fn next_relist(&self) -> Option<f64> {
        if !self.phase.is_ready() {
            return None;
        }
        self.relist_at.values().copied().reduce(f64::min)
    }

    /// Start the coalesced re-lists that are due.
    pub(super) fn start_due_relists(&mut self, now_ms: f64) {
        if !self.phase.is_ready() {
            return;
        }
        let mut due: Vec<ListKind> = self
            .relist_at
            .iter()
            .filter(|(_, at)| **at <= now_ms)
            .map(|(k, _)| *k)
            .collect();
        crate::order::sort_by_key(&mut due, |k| k.method());
        for kind in due {
            self.relist_at.remove(&kind);
            self.list(kind, now_ms);
        }
    }

    fn request_page(&mut self, kind: ListKind, cursor: Option<String>, now_ms: f64) {
        if cursor.is_none() {
            self.list_started.insert(kind, now_ms);
        }
        let id = self.alloc_id();
        let params = cursor.map(|c| json!({ "cursor": c }));
        self.send_request(&id, kind.method(), params.clone());
        self.track(
            id.clone(),
            kind.method(),
            params,
            PendingKind::ListPage(kind),
            now_ms,
        );
        if let Some(op) = self.lists.get_mut(&kind) {
            op.current = Some(id);
        }
    }

    /// Lists with no page request in flight (asked for while connecting, or interrupted by an
    /// expired session), in a stable order.
    pub(super) fn waiting_lists(&self) -> Vec<ListKind> {
        let mut waiting: Vec<ListKind> = self
            .lists
            .iter()
            .filter(|(_, op)| op.current.is_none())
            .map(|(k, _)| *k)
            .collect();
        crate::order::sort_by_key(&mut waiting, |k| k.method());
        waiting
    }

    /// Lists asked for while connecting, and lists interrupted by an expired session.
    pub(super) fn start_waiting_lists(&mut self, now_ms: f64) {
        let waiting = self.waiting_lists();
        for kind in waiting {
            self.lists.insert(kind, ListOp::new(kind));
            self.request_page(kind, None, now_ms);
        }
    }

    /// Forget in-flight page requests so the lists restart on the next session.
    pub(super) fn reset_lists_for_new_session(&mut self) {
        for op in self.lists.values_mut() {
            op.current = None;
        }
    }

    pub(super) fn on_list_page(&mut self, kind: ListKind, result: &Value, now_ms: f64) {
        let max_pages = self.config.max_list_pages;
        let Some(op) = self.lists.get_mut(&kind) else {
            return;
        };
        op.current = None;
        op.pages += 1;
        let (skipped, next) = match op.items.extend_from_page(kind, result) {
            Ok(x) => x,
            Err(e) => return self.list_failed(kind, e),
        };
        op.skipped.extend(skipped);
        match next {
            Some(cursor) if op.cursors.contains(&cursor) || op.pages >= max_pages => {
                let pages = op.pages;
                self.list_failed(
                    kind,
                    McpError::EndlessPagination {
                        method: kind.method().into(),
                        pages,
                    },
                );
            }
            Some(cursor) => {
                op.cursors.push(cursor.clone());
                self.request_page(kind, Some(cursor), now_ms);
            }
            None => self.list_complete(kind, now_ms),
        }
    }

    fn list_complete(&mut self, kind: ListKind, now_ms: f64) {
        let Some(op) = self.lists.remove(&kind) else {
            return;
        };
        if op.rerun {
            let started = self.list_started.get(&kind).copied().unwrap_or(now_ms);
            if started + RELIST_GAP_MS <= now_ms {
                // Stale already, and a fresh one can start now: report that one instead.
                self.list(kind, now_ms);
                return;
            }
            // Report what we have (newer than what is shown) and re-list once the gap passed.
            self.relist_at.insert(kind, started + RELIST_GAP_MS);
        }
        if !op.skipped.is_empty() {
            self.emit(SessionEvent::ListEntriesSkipped {
                kind,
                entries: op.skipped,
            });
        }
        let event = match op.items {
            ListItems::Tools(v) => {
                self.param_decls = v
                    .iter()
                    .map(|t| {
                        (
                            t.name.to_string(),
                            param_headers::scan(&t.name, &t.input_schema),
                        )
                    })
                    .filter(|(_, d)| !matches!(d, Ok(d) if d.is_empty()))
                    .collect();
                SessionEvent::ToolsListed(v)
            }
            ListItems::Resources(v) => SessionEvent::ResourcesListed(v),
            ListItems::ResourceTemplates(v) => SessionEvent::ResourceTemplatesListed(v),
            ListItems::Prompts(v) => SessionEvent::PromptsListed(v),
        };
        self.emit(event);
    }

    pub(super) fn list_failed(&mut self, kind: ListKind, error: McpError) {
        if let Some(op) = self.lists.remove(&kind) {
            if let Some(id) = op.current {
                self.pending.remove(&id);
            }
        }
        self.emit(SessionEvent::ListFailed { kind, error });
    }
}
