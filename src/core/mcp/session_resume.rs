//! A session kept across a reload (`kept_session`), taken up again by a new `McpSession`
//! without a new handshake: the server's `initialize` result as it came, the negotiated
//! version, and ids that never repeat one the session already used.
//!
//! The kept session is confirmed before anything else uses it: one `ping` carrying its
//! session id. Requests made meanwhile wait, as they do during a handshake. If the server
//! answers, the session is ready as it was (no `notifications/initialized`: the server heard
//! it from the page that made the session). If it refuses the session (the transport's 404
//! rule, `session_expired_refusing`) or refuses the ping in any other way, a fresh
//! `initialize` follows at once; what waited goes out on the new session. It never sends a
//! tool call: nothing that ran on the old page is repeated here.

use serde_json::Value;

use super::era::Era;
use super::error::McpError;
use super::session::{McpSession, PendingKind};
use super::session_types::Phase;

impl McpSession {
    /// Take up the session whose server answered `initialize` with `initialize` (its id is
    /// the transport's business), using request ids from `first_id` on.
    pub fn resume(&mut self, initialize: &Value, first_id: i64, now_ms: f64) {
        self.tried_legacy = true;
        // A kept session is a legacy-era one: a refusal starts `initialize`, not the probe.
        self.tried_modern = true;
        self.expiries_in_handshake = 0;
        self.next_health_ms = None;
        self.next_id = self.next_id.max(first_id);
        self.era = Some(Era::Legacy);
        self.version = initialize
            .get("protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_string);
        self.init_result = initialize.clone();
        self.resumed = true;
        self.set_phase(Phase::Initializing);
        let id = self.alloc_id();
        self.send_request(&id, "ping", None);
        self.track(id, "ping", None, PendingKind::Resume, now_ms);
    }

    /// The kept session could not be used: a fresh handshake, this page's own.
    pub(super) fn resume_refused(&mut self, why: McpError, now_ms: f64) {
        self.emit(super::session_types::SessionEvent::Notice(format!(
            "The session kept from before the reload could not be used ({}); starting a new session.",
            why.cause()
        )));
        self.start_initialize(now_ms);
    }

    /// Whether this session was kept from before the page loaded (not made by this page).
    pub fn was_resumed(&self) -> bool {
        self.resumed
    }

    /// What a reloaded page needs to use this session again: the server's `initialize`
    /// result and the next request id. Only a ready legacy-era session has one.
    pub fn keepable(&self) -> Option<(Value, i64)> {
        let ready_legacy = self.phase.is_ready() && self.era == Some(Era::Legacy);
        (ready_legacy && self.init_result.is_object())
            .then(|| (self.init_result.clone(), self.next_id))
    }
}
