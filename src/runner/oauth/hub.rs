//! The servers' machines: one `AuthMachine` per server that signs in, made from what the store
//! holds (`vault`), and the loop that performs what a machine asks (`drive`).
//!
//! One thread, one `RefCell`: a borrow is never held across an await or while a command is
//! performed (commands are drained first), so performing one can never find the hub borrowed.
//! Each machine has a generation: an answer (a fetch, a digest, a signature) that comes back
//! after its machine was replaced goes nowhere, since fetch ids restart with every machine.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use futures::channel::oneshot;
use futures::lock::Mutex;
use gloo_timers::callback::{Interval, Timeout};
use leptos::prelude::*;
use skiff_core::oauth::machine_types::{PendingAuthorization, WaiterId};
use skiff_core::oauth::request_auth::carries_tokens;
use skiff_core::oauth::status_text::{ages, status_sentence, waits_for_sign_in};
use skiff_core::oauth::stored::{covering, StoredSetup, PUBLIC_URL_META};
use skiff_core::oauth::{AuthMachine, AuthStatus};

use super::{callback, perform, vault};
use crate::platform::broadcast::Channel;
use crate::platform::clock;
use crate::platform::popup::{self, Popup};
use crate::stores::mcp::McpStore;
use crate::stores::notices::{Level, Notices};

/// Timers longer than ~24 days overflow the browser's; an hour at a time is plenty.
const MAX_TIMER_MS: f64 = 3_600_000.0;
/// How often a card whose sentence ages ("expires in 3 min") says it again.
const RESAY_MS: u32 = 60_000;

/// What the sign-in needs of the page.
#[derive(Clone)]
pub(super) struct Host {
    pub(super) store: McpStore,
    pub(super) notices: Notices,
    /// (Re)connect a server now (after a sign-in nobody waited for).
    pub(super) connect: Rc<dyn Fn(&str)>,
    /// Bumped whenever what the Account dialog shows may have changed.
    pub(super) revision: RwSignal<u64>,
}

/// One server's sign-in.
pub(super) struct Entry {
    pub(super) machine: AuthMachine,
    pub(super) generation: u64,
    /// Requests waiting for a token (`Access::Wait`, a 401), answered by `Resume` / `Fail`.
    pub(super) waiters: HashMap<WaiterId, oneshot::Sender<Option<String>>>,
    /// The sign-in window, while one is open.
    pub(super) popup: Option<Popup>,
    /// Which watch of the window is current (a newer window or a close ends the older watch).
    pub(super) watch: u64,
    timer: Option<Timeout>,
    resay: Option<Interval>,
}

#[derive(Default)]
struct Hub {
    host: Option<Host>,
    entries: HashMap<String, Entry>,
    /// The credential records in the store, decrypted once and kept in step with every
    /// store and delete of this tab.
    records: Option<Vec<skiff_core::oauth::credentials::Credentials>>,
    /// `state` of a request at the authorization server → the server that sent it.
    by_state: HashMap<String, String>,
    channel: Option<Channel>,
    next_waiter: WaiterId,
    next_generation: u64,
}

thread_local! {
    static HUB: RefCell<Hub> = RefCell::new(Hub::default());
    /// Makes machines one at a time: the first to ask for a server's makes it, the others
    /// find it made.
    static CREATING: Rc<Mutex<()>> = Rc::new(Mutex::new(()));
}

pub(super) fn install(host: Host) {
    HUB.with(|h| h.borrow_mut().host = Some(host));
}

pub(super) fn host() -> Option<Host> {
    HUB.with(|h| h.borrow().host.clone())
}

pub(super) fn now() -> f64 {
    clock::now_ms()
}

/// Say the dialog may show something new.
pub(super) fn touched() {
    if let Some(h) = host() {
        h.revision.update(|r| *r = r.wrapping_add(1));
    }
}

pub(super) fn notify(text: String) {
    if let Some(h) = host() {
        h.notices.push(Level::Error, text);
    }
}

pub(super) fn has_entry(server: &str) -> bool {
    HUB.with(|h| h.borrow().entries.contains_key(server))
}

/// Run `f` on a server's entry, if it has one.
pub(super) fn with_entry<R>(server: &str, f: impl FnOnce(&mut Entry) -> R) -> Option<R> {
    HUB.with(|h| h.borrow_mut().entries.get_mut(server).map(f))
}

/// Run `f` on a server's machine if it is still the one of `generation`.
pub(super) fn with_machine<R>(
    server: &str,
    generation: u64,
    f: impl FnOnce(&mut AuthMachine) -> R,
) -> Option<R> {
    with_entry(server, |e| {
        (e.generation == generation).then(|| f(&mut e.machine))
    })
    .flatten()
}

/// A new waiter for a request to `server`, registered with its entry.
pub(super) fn new_waiter(server: &str) -> Option<(WaiterId, oneshot::Receiver<Option<String>>)> {
    HUB.with(|h| {
        let mut h = h.borrow_mut();
        h.next_waiter += 1;
        let id = h.next_waiter;
        let e = h.entries.get_mut(server)?;
        let (tx, rx) = oneshot::channel();
        e.waiters.insert(id, tx);
        Some((id, rx))
    })
}

/// Answer a waiting request (`None`: send it as it is / report the refusal).
pub(super) fn answer(server: &str, waiter: WaiterId, authorization: Option<String>) {
    if let Some(tx) = with_entry(server, |e| e.waiters.remove(&waiter)).flatten() {
        let _ = tx.send(authorization);
    }
}

/// Remember which server sent the authorization request with `state`.
pub(super) fn route_state(state: &str, server: &str) {
    HUB.with(|h| {
        h.borrow_mut()
            .by_state
            .insert(state.to_string(), server.to_string())
    });
}

/// The server a callback with `state` is for: the one that sent it, else the one waiting for
/// the user (its machine judges the answer either way).
pub(super) fn routed(state: Option<&str>) -> Option<String> {
    HUB.with(|h| {
        let mut h = h.borrow_mut();
        if let Some(server) = state.and_then(|s| h.by_state.remove(s)) {
            return Some(server);
        }
        h.entries
            .iter()
            .find(|(_, e)| matches!(e.machine.status(), Some(AuthStatus::WaitingForUser { .. })))
            .map(|(id, _)| id.clone())
    })
}

pub(super) fn set_channel(open: impl FnOnce() -> Option<Channel>) {
    HUB.with(|h| {
        let mut h = h.borrow_mut();
        if h.channel.is_none() {
            h.channel = open();
        }
    });
}

/// The stored records (decrypted the first time they are needed).
pub(super) async fn records() -> Vec<skiff_core::oauth::credentials::Credentials> {
    if let Some(r) = HUB.with(|h| h.borrow().records.clone()) {
        return r;
    }
    let loaded = vault::records().await;
    HUB.with(|h| h.borrow_mut().records.get_or_insert(loaded).clone())
}

/// Keep the cached records in step with a store (`Some`) or a delete of (issuer, resource).
pub(super) fn records_changed(
    key: (&str, &str),
    stored: Option<&skiff_core::oauth::credentials::Credentials>,
) {
    HUB.with(|h| {
        if let Some(records) = h.borrow_mut().records.as_mut() {
            records.retain(|c| (c.issuer.as_str(), c.resource.as_str()) != key);
            if let Some(c) = stored {
                records.push(c.clone());
            }
        }
    });
}

/// Forget a server's machine: its window closes, its timers stop, and the requests that
/// waited on it are sent as they are.
pub(super) fn remove(server: &str) {
    let gone = HUB.with(|h| h.borrow_mut().entries.remove(server));
    if let Some(e) = gone {
        if let Some(p) = e.popup {
            p.close();
        }
        for (_, tx) in e.waiters {
            let _ = tx.send(None);
        }
    }
    touched();
}

/// Make the machine of `server` unless it has one: from its stored record (the first that
/// covers its address), what the Account dialog saved, and `pending` after a full-page
/// redirect. False when the server cannot sign in (no address, a WebSocket) or is unknown.
pub(super) async fn entry_for(server: &str, pending: Option<PendingAuthorization>) -> bool {
    let lock = CREATING.with(Rc::clone);
    let _creating = lock.lock().await;
    if has_entry(server) {
        return true;
    }
    let Some(cfg) = host().and_then(|h| h.store.server(server)) else {
        return false;
    };
    if cfg.url.trim().is_empty() || !carries_tokens(cfg.transport, &cfg.url) {
        return false;
    }
    let stored = covering(&records().await, &cfg.url).cloned();
    let setup = StoredSetup {
        server_url: cfg.url,
        proxy: cfg.proxy,
        page_base: popup::page_base(),
        public_url: popup::meta(PUBLIC_URL_META),
        fields: vault::fields(server),
        secrets: vault::secrets(server).await,
        stored,
        pending,
    }
    .into_setup();
    callback::listen();
    HUB.with(|h| {
        let mut h = h.borrow_mut();
        h.next_generation += 1;
        let generation = h.next_generation;
        h.entries.insert(
            server.to_string(),
            Entry {
                machine: AuthMachine::new(setup),
                generation,
                waiters: HashMap::new(),
                popup: None,
                watch: 0,
                timer: None,
                resay: None,
            },
        );
    });
    true
}

/// The machine of a server whose credentials are stored, made if needed; never one for a
/// server that has none (a server that never asked for a sign-in gets no machine).
pub(super) async fn entry_if_stored(server: &str) -> bool {
    if has_entry(server) {
        return true;
    }
    let Some(url) = host().and_then(|h| h.store.server(server)).map(|c| c.url) else {
        return false;
    };
    if covering(&records().await, &url).is_none() {
        return false;
    }
    entry_for(server, None).await
}

/// Perform everything the machine of `server` asks, then arm its timer.
pub(super) fn drive(server: &str) {
    let Some((generation, commands)) = with_entry(server, |e| {
        let commands: Vec<_> = std::iter::from_fn(|| e.machine.poll_command()).collect();
        (e.generation, commands)
    }) else {
        return;
    };
    let any = !commands.is_empty();
    for c in commands {
        perform::perform(server, generation, c);
    }
    arm_timer(server, generation);
    if any {
        touched();
    }
}

fn arm_timer(server: &str, generation: u64) {
    let at = with_machine(server, generation, |m| m.poll_timeout()).flatten();
    let timer = at.map(|at| {
        let wait = (at - now()).clamp(0.0, MAX_TIMER_MS) as u32;
        let server = server.to_string();
        Timeout::new(wait, move || {
            if with_machine(&server, generation, |m| m.handle_timeout(now())).is_some() {
                drive(&server);
            }
        })
    });
    with_entry(server, |e| {
        if e.generation == generation {
            // The old timer (if any) is dropped, which cancels it.
            e.timer = timer;
        }
    });
}

/// Show the machine's status under the server's card; say it again each minute while it ages.
pub(super) fn show_status(server: &str) {
    let Some(ages) = say_status(server) else {
        return;
    };
    let resay = ages.then(|| {
        let server = server.to_string();
        Interval::new(RESAY_MS, move || {
            say_status(&server);
        })
    });
    with_entry(server, |e| e.resay = resay);
}

/// Set the card's sentence from the machine's status; whether it ages.
fn say_status(server: &str) -> Option<bool> {
    let status = with_entry(server, |e| e.machine.status().cloned()).flatten()?;
    if let Some(live) = host().and_then(|h| h.store.live_for(server)) {
        live.auth_note.set(Some(status_sentence(&status, now())));
        let waits = waits_for_sign_in(&status);
        if live.needs_sign_in.get_untracked() != waits {
            live.needs_sign_in.set(waits);
        }
    }
    Some(ages(&status))
}
