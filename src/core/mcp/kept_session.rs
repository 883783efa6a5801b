//! The Streamable HTTP session a tab keeps across a reload, so that a tool call running as an
//! MCP task when the page reloaded can still be followed to its result: the spec binds a task
//! to the session that created it (server-everything keeps one task store per session), so a
//! new `initialize` after the reload would leave the result out of reach.
//!
//! What is kept: the server's URL, the `Mcp-Session-Id`, the server's `initialize` result as
//! it came (negotiated version, capabilities, server info, instructions: everything the
//! session needs to be used without a new handshake) and the next request id. The record is
//! versioned (`{"v": 1, "data": …}`); one that does not read (corrupt, newer, another URL)
//! means a fresh session, never a crash and never a guess.
//!
//! Where: the page keeps it in **sessionStorage**, one key per server. sessionStorage survives
//! a reload of the same tab and is not shared with other tabs, so two tabs never use one
//! session side by side (their request ids and their notification streams would collide).
//! Only a duplicated tab starts with a copy; its ids start from its own load time
//! (`first_id`), so they cannot repeat the ids the original tab sends, and neither tab ever
//! sends a tool call twice (nothing here re-sends one).
//!
//! When: a session becomes ready → its record is written (also covering a tab that dies
//! without `pagehide`). The page leaves while a task is followed or being created → no
//! DELETE, the record is rewritten with the ids used so far (`on_leave`). It leaves otherwise,
//! disconnects, or the server is removed → DELETE and the record goes, so a reload starts a
//! fresh session at once. On load, `plan` decides to resume; the session confirms the kept
//! session with one `ping` before anything else, and a 404 for it (the spec's expired
//! session; TypeScript SDK servers answer a 400 naming the session) or any refusal starts a
//! fresh `initialize` (`McpSession::resume`).
//!
//! Only Streamable HTTP in the legacy era (2025-03-26 … 2025-11-25) has a session to keep:
//! the modern era (2026-07-28) has no session, the deprecated HTTP+SSE transport's session
//! lives exactly as long as its one GET stream (the reload closes it), and a WebSocket's as
//! long as its socket. Those always start afresh.
//!
//! It never performs IO: the page reads and writes the record, the supervisor decides.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::config::TransportChoice;
use super::envelope;

/// sessionStorage key prefix; the server's id follows.
pub const KEY_PREFIX: &str = "skiff:mcp-session:";
/// The record's format version.
pub const VERSION: u32 = 1;

/// The sessionStorage key of server `server_id`'s kept session.
pub fn storage_key(server_id: &str) -> String {
    format!("{KEY_PREFIX}{server_id}")
}

/// One kept session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptSession {
    /// The server's URL as configured when the session was made (a session is the server's,
    /// not the proxy's, so the proxy is not part of it).
    pub url: String,
    pub session_id: String,
    /// The server's `initialize` result, as it came.
    pub initialize: Value,
    /// The lowest request id the next page may use on this session.
    pub next_id: i64,
}

impl KeptSession {
    /// The negotiated protocol version, if the kept `initialize` result names one.
    pub fn protocol_version(&self) -> Option<&str> {
        self.initialize
            .get("protocolVersion")
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
    }
}

pub fn encode(kept: &KeptSession) -> String {
    envelope::encode(VERSION, kept)
}

/// How a connection starts.
#[derive(Debug, Clone, PartialEq)]
pub enum Start {
    /// Use the kept session without a new handshake (confirmed by a first `ping`).
    Resume(KeptSession),
    /// A fresh handshake; `why` says why a record that was there is not used (for the log).
    Fresh { why: Option<String> },
}

/// How the connection to the server at `url` over `transport` starts, given the record this
/// tab kept for it (`stored`, as read from storage).
pub fn plan(stored: Option<&str>, url: &str, transport: TransportChoice) -> Start {
    let Some(raw) = stored else {
        return Start::Fresh { why: None };
    };
    let fresh = |why: String| Start::Fresh { why: Some(why) };
    let kept: KeptSession = match envelope::decode(raw, "kept MCP session", VERSION) {
        Ok(k) => k,
        Err(e) => {
            return fresh(format!(
                "The session kept for this tab did not read ({e}); starting a new session."
            ))
        }
    };
    if !matches!(
        transport,
        TransportChoice::Auto | TransportChoice::StreamableHttp
    ) {
        return fresh(format!(
            "This server's transport is now {}, which cannot resume a session; starting a new one.",
            transport.label()
        ));
    }
    if kept.url.trim() != url.trim() {
        return fresh(
            "The server's address changed since the session was kept; starting a new session."
                .into(),
        );
    }
    if kept.session_id.is_empty() || kept.protocol_version().is_none() {
        return fresh(
            "The session kept for this tab is incomplete; starting a new session.".into(),
        );
    }
    Start::Resume(kept)
}

/// The first request id a page resuming `kept` uses. Ids must never repeat within a session.
/// The page that kept it wrote the next id it would have used; a page that died without
/// `pagehide` did not, and a duplicated tab copies the record while the original goes on, so
/// ids also start no lower than the page's load time in milliseconds: a page would have to
/// send more than one request per millisecond since it loaded to reach that.
pub fn first_id(kept: &KeptSession, now_ms: f64) -> i64 {
    let by_time = if now_ms.is_finite() && now_ms > 0.0 {
        now_ms.floor() as i64
    } else {
        0
    };
    kept.next_id.max(by_time).max(1)
}

/// What leaving the page does to the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnLeave {
    /// DELETE the session and forget the record: nothing on it is worth coming back for.
    Delete,
    /// Leave the session open on the server and keep the record: a task on it is followed or
    /// being created, and the reloaded page follows it on this very session.
    Keep,
}

/// `tasks`: tool calls running as tasks on the session (followed, or created and not yet
/// answered) when the page goes away.
pub fn on_leave(tasks: usize) -> OnLeave {
    if tasks > 0 {
        OnLeave::Keep
    } else {
        OnLeave::Delete
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kept() -> KeptSession {
        KeptSession {
            url: "http://127.0.0.1:3001/mcp".into(),
            session_id: "S1".into(),
            initialize: json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                "serverInfo": {"name": "everything", "version": "1"}}),
            next_id: 17,
        }
    }

    #[test]
    fn a_record_reads_back_and_resumes_only_its_own_server_over_streamable_http() {
        let raw = encode(&kept());
        assert!(raw.starts_with("{\"v\":1,"), "{raw}");
        let url = "http://127.0.0.1:3001/mcp";
        assert_eq!(
            plan(Some(&raw), url, TransportChoice::Auto),
            Start::Resume(kept())
        );
        assert_eq!(
            plan(Some(&raw), url, TransportChoice::StreamableHttp),
            Start::Resume(kept())
        );
        for t in [TransportChoice::Sse, TransportChoice::WebSocket] {
            assert!(
                matches!(plan(Some(&raw), url, t), Start::Fresh { why: Some(w) } if w.contains("cannot resume"))
            );
        }
        assert!(matches!(
            plan(Some(&raw), "http://127.0.0.1:3002/mcp", TransportChoice::Auto),
            Start::Fresh { why: Some(w) } if w.contains("address changed")
        ));
        assert_eq!(
            plan(None, url, TransportChoice::Auto),
            Start::Fresh { why: None }
        );
    }

    #[test]
    fn an_unreadable_record_means_a_fresh_session_never_a_crash() {
        let url = "http://127.0.0.1:3001/mcp";
        let newer = encode(&kept()).replace("\"v\":1", "\"v\":9");
        let no_version = encode(&KeptSession {
            initialize: json!({"capabilities": {}}),
            ..kept()
        });
        let no_id = encode(&KeptSession {
            session_id: String::new(),
            ..kept()
        });
        for raw in [
            "",
            "{",
            "null",
            "{\"v\":1}",
            "{\"v\":1,\"data\":{\"url\":3}}",
            &newer,
            &no_version,
            &no_id,
        ] {
            match plan(Some(raw), url, TransportChoice::Auto) {
                Start::Fresh { why: Some(_) } => {}
                other => panic!("{raw:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn ids_never_go_back_within_a_session() {
        // The page that kept it said where it stopped.
        assert_eq!(first_id(&kept(), 0.0), 17);
        // A page that died without saying, or a duplicated tab: the load time is above any id
        // the other page could have used.
        assert_eq!(first_id(&kept(), 1_800_000_000_123.7), 1_800_000_000_123);
        let far = KeptSession {
            next_id: 1_900_000_000_000,
            ..kept()
        };
        assert_eq!(first_id(&far, 1_800_000_000_000.0), 1_900_000_000_000);
        assert_eq!(first_id(&far, f64::NAN), 1_900_000_000_000);
    }

    #[test]
    fn only_a_followed_task_keeps_the_session_when_the_page_goes() {
        assert_eq!(on_leave(0), OnLeave::Delete);
        assert_eq!(on_leave(1), OnLeave::Keep);
    }
}
