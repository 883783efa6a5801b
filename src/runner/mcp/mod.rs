//! Connections to MCP servers: one driver task per server (see `driver`), and the handle the
//! UI and the agent loop use to connect, disconnect, call tools and shut down.
//!
//! Servers connect concurrently, each on its own task; a slow server never delays another.
//! Connecting is explicit: `ensure_initialized` at start-up connects the enabled servers, and
//! the settings page calls `connect` / `disconnect` after editing one. Removing a server from
//! the store ends its task.
//!
//! Calls: [`McpRunner::start_tool_call`] gives a [`CallHandle`]; dropping the handle (or the
//! future of [`CallHandle::result`]) before the answer cancels the request on the server
//! (`notifications/cancelled`, or closing the response stream in the modern era).
//! [`McpRunner::call_tool`] is the same as one `await`. An active-flow counter tracks calls in
//! flight so [`McpRunner::shutdown`] can wait for them.
//!
//! The runner never re-sends a request: after a connection loss, a call in flight fails with
//! the core's error (which says whether a tool may have run), and only new calls use the new
//! connection.

mod driver;
mod in_page;
mod link;

pub use in_page::InPageServer;

use std::collections::HashMap;

use crate::stores::reactive::effect;
use futures::channel::{mpsc, oneshot};
use futures::future::join_all;
use leptos::prelude::*;
use serde_json::{Map, Value};
use skiff_core::mcp::{ElicitKey, McpError};
use wasm_bindgen_futures::spawn_local;

use driver::{Driver, Msg, OnTask, Progress, Req};
use futures::future::LocalBoxFuture;
use skiff_core::chunk_load::ChunkLoadFailure;
use skiff_core::mcp::backoff::HealthStatus;
use skiff_core::records::task::TaskRef;

/// What a connection's task is given: its server id, the store, its own sender (for timers and
/// sockets to post back), the in-page server if it is one, and its inbox.
type RunDriver = fn(
    String,
    McpStore,
    mpsc::UnboundedSender<Msg>,
    Option<(String, Box<dyn InPageServer>)>,
    mpsc::UnboundedReceiver<Msg>,
) -> LocalBoxFuture<'static, ()>;

// The connection code (the driver and the core's session, supervisor and transports, about a
// third of the MCP client) is a chunk fetched when the first server connects: the built-in
// tools do so once the page is idle, so a first visit's message box never waits for it.
// Messages sent to a server meanwhile wait in its inbox.
crate::split_point!(
    driver_point,
    mcp_driver,
    RunDriver,
    |id, store, tx, in_page, rx| Box::pin(Driver::new(&id, store, tx, in_page).run(rx))
);

use crate::platform::clock;
use crate::platform::online::{self, OnlineListener};
use crate::stores::mcp::McpStore;

/// Identifies one call made through the runner (not the JSON-RPC id, which a reconnect would
/// reuse).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CallKey(pub u64);

#[derive(Clone, Copy)]
pub struct McpRunner {
    store: McpStore,
    drivers: StoredValue<HashMap<String, mpsc::UnboundedSender<Msg>>, LocalStorage>,
    next_key: StoredValue<u64>,
    /// Calls in flight (tool calls, resource reads, prompts, pings); `shutdown` waits for 0.
    pub active_flows: RwSignal<usize>,
    shutting_down: StoredValue<bool>,
    online: StoredValue<Option<[OnlineListener; 2]>, LocalStorage>,
}

impl McpRunner {
    pub fn new(store: McpStore) -> Self {
        let runner = McpRunner {
            store,
            drivers: StoredValue::new_local(HashMap::new()),
            next_key: StoredValue::new(1),
            active_flows: RwSignal::new(0),
            shutting_down: StoredValue::new(false),
            online: StoredValue::new_local(None),
        };
        let listeners = [
            online::on_online(move || runner.broadcast(|| Msg::Online)),
            online::on_offline(move || runner.broadcast(|| Msg::Offline)),
        ];
        runner.online.set_value(Some(listeners));
        // A removed server's task ends with it (its live entry is gone from the store).
        effect(move || {
            let ids: Vec<String> = store
                .live
                .with(|l| l.iter().map(|(id, _)| id.clone()).collect());
            runner.drivers.update_value(|m| {
                m.retain(|id, tx| {
                    let keep = ids.contains(id);
                    if !keep {
                        let _ = tx.unbounded_send(Msg::Stop);
                    }
                    keep
                })
            });
        });
        runner
    }

    pub fn store(&self) -> McpStore {
        self.store
    }

    /// Connect every enabled server, concurrently (start-up). Servers already connected,
    /// connecting or waiting to reconnect are left alone.
    pub fn ensure_initialized(&self) {
        let enabled: Vec<String> = self.store.servers.with_untracked(|s| {
            s.iter()
                .filter(|c| c.enabled)
                .map(|c| c.id.clone())
                .collect()
        });
        for id in enabled {
            self.send(&id, Msg::Ensure);
        }
    }

    /// (Re)connect now with the server's current settings; status shows each phase.
    pub fn connect(&self, id: &str) {
        self.send(id, Msg::Connect);
    }

    /// Leave gracefully: DELETE the session (Streamable HTTP) or close the socket; calls in
    /// flight fail as cancelled; status becomes idle and no reconnect is scheduled.
    pub fn disconnect(&self, id: &str) {
        self.send_existing(id, Msg::Disconnect { done: None });
    }

    /// Skip the wait of a scheduled reconnect (or retry after giving up).
    pub fn retry_now(&self, id: &str) {
        self.send(id, Msg::RetryNow);
    }

    /// Start a tool call; progress notifications are reported to `on_progress(progress,
    /// total, message)`, and the MCP task it runs as (if core decided it runs as one) to
    /// `on_task` whenever it is created or changes status. The result is the raw
    /// `CallToolResult` JSON (`isError: true` is a result, not an `Err`).
    pub fn start_tool_call(
        &self,
        id: &str,
        name: &str,
        args: Map<String, Value>,
        on_progress: impl Fn(f64, Option<f64>, Option<String>) + 'static,
        on_task: impl Fn(TaskRef) + 'static,
    ) -> CallHandle {
        let req = Req::Tool {
            name: name.to_string(),
            args,
        };
        self.start_call(
            id,
            req,
            Some(Box::new(on_progress)),
            Some(Box::new(on_task)),
        )
    }

    /// Follow task `task_id` of server `id` to its result, for a tool call a reloaded page
    /// found still running: only `tasks/*` requests, never the tool again.
    pub fn follow_task(
        &self,
        id: &str,
        task_id: String,
        on_task: impl Fn(TaskRef) + 'static,
    ) -> CallHandle {
        self.start_call(
            id,
            Req::FollowTask { task_id },
            None,
            Some(Box::new(on_task)),
        )
    }

    pub async fn call_tool(
        &self,
        id: &str,
        name: &str,
        args: Map<String, Value>,
        on_progress: impl Fn(f64, Option<f64>, Option<String>) + 'static,
    ) -> Result<Value, McpError> {
        self.start_tool_call(id, name, args, on_progress, |_| {})
            .result()
            .await
    }

    /// Cancel a call started with [`McpRunner::start_tool_call`]; its result becomes
    /// `McpError::Cancelled`. Unknown or finished calls are ignored.
    pub fn cancel_tool(&self, id: &str, call: CallKey, reason: Option<&str>) {
        self.send_existing(
            id,
            Msg::Cancel {
                key: call.0,
                reason: reason.map(str::to_string),
            },
        );
    }

    /// Any request the MCP module makes (`resources/read`, `prompts/get`,
    /// `completion/complete`, `resources/subscribe`, ...); the raw `result` JSON.
    pub async fn request(
        &self,
        id: &str,
        method: String,
        params: Option<Value>,
    ) -> Result<Value, McpError> {
        let req = Req::Raw { method, params };
        self.start_call(id, req, None, None).result().await
    }

    /// Answer a request server `id` holds open (`Action::Ask`: sampling, roots).
    pub fn answer_ask(&self, id: &str, key: ElicitKey, answer: Result<Value, (i64, String)>) {
        self.send_existing(id, Msg::AskAnswer { key, answer });
    }

    /// Send server `id` a notification of ours (`notifications/roots/list_changed`).
    pub fn notify(&self, id: &str, method: &'static str) {
        self.send_existing(id, Msg::Notify(method));
    }

    /// An explicit health check (`ping`, or `server/discover` in the modern era).
    pub async fn ping(&self, id: &str) -> Result<Value, McpError> {
        self.start_call(id, Req::Ping, None, None).result().await
    }

    /// The page is going away (`pagehide`, not into the back-forward cache): end every
    /// session now, DELETE for Streamable HTTP (sent with `keepalive`, so it outlives the page)
    /// and a close for sockets, except a Streamable HTTP session with a task running on it,
    /// which is left open and kept for the reloaded page (`core::mcp::kept_session`). Nothing
    /// can be awaited inside `pagehide`, so calls in flight are not waited for: the unload
    /// ends them anyway.
    pub fn leave(&self) {
        self.broadcast(|| Msg::LeavePage);
    }

    /// Wait until no call is in flight, then close every connection (waiting up to 2 s per
    /// server for its session DELETE). New calls fail from the moment this is called.
    pub async fn shutdown(&self) {
        self.shutting_down.set_value(true);
        while self.active_flows.get_untracked() > 0 {
            clock::sleep_ms(20).await;
        }
        let senders: Vec<mpsc::UnboundedSender<Msg>> =
            self.drivers.with_value(|m| m.values().cloned().collect());
        let mut waits = Vec::new();
        for tx in senders {
            let (done, closed) = oneshot::channel();
            if tx
                .unbounded_send(Msg::Disconnect { done: Some(done) })
                .is_ok()
            {
                waits.push(closed);
            }
        }
        join_all(waits).await;
    }

    /// Serve an in-page MCP server (built-in tools) under `id`, through the same session code
    /// as remote servers, and connect it. It gets a live entry and joins the tool index, but
    /// is not saved with the configured servers. Attaching an id again replaces the server.
    pub fn attach_in_page(&self, id: &str, name: &str, server: Box<dyn InPageServer>) {
        self.store.register_in_page(id, name);
        if let Some(old) = self.drivers.with_value(|m| m.get(id).cloned()) {
            let _ = old.unbounded_send(Msg::Stop);
        }
        let tx = self.spawn_driver(id, Some((name.to_string(), server)));
        let _ = tx.unbounded_send(Msg::Connect);
    }

    /// Remove an in-page server (its task ends, its tools leave the index).
    pub fn detach_in_page(&self, id: &str) {
        self.store.unregister_in_page(id);
        let old = self.drivers.try_update_value(|m| m.remove(id)).flatten();
        if let Some(tx) = old {
            let _ = tx.unbounded_send(Msg::Stop);
        }
    }

    fn start_call(
        &self,
        id: &str,
        req: Req,
        progress: Option<Progress>,
        on_task: Option<OnTask>,
    ) -> CallHandle {
        let key = self.next_key.get_value();
        self.next_key.set_value(key + 1);
        self.active_flows.update(|n| *n += 1);
        let (reply, rx) = oneshot::channel();
        let handle = CallHandle {
            server: id.to_string(),
            key: CallKey(key),
            runner: *self,
            rx: Some(rx),
            done: false,
        };
        if self.shutting_down.get_value() {
            let _ = reply.send(Err(McpError::Cancelled {
                reason: Some("Skiff is shutting down its MCP connections".into()),
            }));
            return handle;
        }
        let msg = Msg::Request {
            key,
            req,
            reply,
            progress,
            on_task,
        };
        // Without a task (unknown server) the reply is dropped, and `result` says "not
        // connected".
        if let Some(tx) = self.sender(id) {
            let _ = tx.unbounded_send(msg);
        }
        handle
    }

    /// Send to a server's task, starting it if the server exists and has none.
    fn send(&self, id: &str, msg: Msg) {
        if let Some(tx) = self.sender(id) {
            let _ = tx.unbounded_send(msg);
        }
    }

    /// Send only to a running task (a disconnect needs no new task).
    fn send_existing(&self, id: &str, msg: Msg) {
        // `try_`: a call handle may be dropped while the page tears the app down.
        if let Some(tx) = self
            .drivers
            .try_with_value(|m| m.get(id).cloned())
            .flatten()
        {
            let _ = tx.unbounded_send(msg);
        }
    }

    fn broadcast(&self, msg: impl Fn() -> Msg) {
        let senders: Vec<_> = self
            .drivers
            .try_with_value(|m| m.values().cloned().collect())
            .unwrap_or_default();
        for tx in senders {
            let _ = tx.unbounded_send(msg());
        }
    }

    fn sender(&self, id: &str) -> Option<mpsc::UnboundedSender<Msg>> {
        if let Some(tx) = self.drivers.with_value(|m| m.get(id).cloned()) {
            if !tx.is_closed() {
                return Some(tx);
            }
        }
        // In-page servers are attached with their server; only configured ones start here.
        self.store.server(id)?;
        Some(self.spawn_driver(id, None))
    }

    fn spawn_driver(
        &self,
        id: &str,
        in_page: Option<(String, Box<dyn InPageServer>)>,
    ) -> mpsc::UnboundedSender<Msg> {
        let (tx, rx) = mpsc::unbounded();
        let (store, own, id_owned) = (self.store, tx.clone(), id.to_string());
        spawn_local(async move {
            match driver_point().await {
                Ok(run) => run(id_owned, store, own, in_page, rx).await,
                // The inbox goes with `rx`: calls waiting in it fail as not connected, and the
                // card says why; Reconnect (a new driver) tries the load again.
                Err(_) => {
                    let why = ChunkLoadFailure {
                        surface: "The MCP connection code",
                        online: online::is_online(),
                    };
                    if let Some(live) = store.live_for(&id_owned) {
                        live.set_status(HealthStatus::Error {
                            message: why.to_string(),
                        });
                    }
                }
            }
        });
        self.drivers.update_value(|m| {
            m.insert(id.to_string(), tx.clone());
        });
        tx
    }
}

/// A call in flight. Dropping it before its result arrived cancels the request.
pub struct CallHandle {
    server: String,
    key: CallKey,
    runner: McpRunner,
    rx: Option<oneshot::Receiver<Result<Value, McpError>>>,
    done: bool,
}

impl CallHandle {
    pub fn key(&self) -> CallKey {
        self.key
    }

    pub fn server_id(&self) -> &str {
        &self.server
    }

    /// Cancel now; `result` then returns `McpError::Cancelled`.
    pub fn cancel(&self, reason: Option<&str>) {
        self.runner.cancel_tool(&self.server, self.key, reason);
    }

    pub async fn result(mut self) -> Result<Value, McpError> {
        let outcome = match self.rx.take() {
            Some(rx) => rx.await.unwrap_or(Err(McpError::NotConnected)),
            None => Err(McpError::NotConnected),
        };
        self.done = true;
        outcome
    }
}

impl Drop for CallHandle {
    fn drop(&mut self) {
        if !self.done {
            self.runner
                .cancel_tool(&self.server, self.key, Some("the caller stopped waiting"));
        }
        self.runner
            .active_flows
            .try_update(|n| *n = n.saturating_sub(1));
    }
}
