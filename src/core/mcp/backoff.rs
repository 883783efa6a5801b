//! Reconnect schedule and the health status a server shows in Settings.
//!
//! After a transport loss the next attempt waits min(30 s, 1 s · 2^attempt): 1, 2, 4, 8, 16,
//! 30, 30, ... seconds. "Retry now" and the browser's `online` event skip the wait. Time is
//! always an argument; this module never reads a clock or sets a timer.

use serde::{Deserialize, Serialize};

pub const BASE_DELAY_MS: f64 = 1_000.0;
pub const MAX_DELAY_MS: f64 = 30_000.0;

/// The delay before reconnect attempt number `attempt` (0-based).
pub fn delay_ms(attempt: u32) -> f64 {
    // 2^5 · 1 s already exceeds the cap; clamping the exponent keeps the power finite.
    let factor = 2f64.powi(attempt.min(16) as i32);
    (BASE_DELAY_MS * factor).min(MAX_DELAY_MS)
}

/// What to do after a failure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Decision {
    /// Reconnect at `at_ms`; `attempt` is 1 for the first retry.
    RetryAt { at_ms: f64, attempt: u32 },
    /// The configured number of attempts is used up.
    GiveUp,
}

/// Reconnect bookkeeping for one server.
#[derive(Debug, Clone, PartialEq)]
pub struct Backoff {
    /// Failures since the last success.
    failures: u32,
    /// `None` means retry forever.
    max_attempts: Option<u32>,
    next_at_ms: Option<f64>,
}

impl Backoff {
    pub fn new(max_attempts: Option<u32>) -> Self {
        Backoff {
            failures: 0,
            max_attempts,
            next_at_ms: None,
        }
    }

    /// A connection attempt or a live connection failed at `now_ms`.
    pub fn on_failure(&mut self, now_ms: f64) -> Decision {
        let attempt = self.failures;
        self.failures += 1;
        if self.max_attempts.is_some_and(|max| self.failures > max) {
            self.next_at_ms = None;
            return Decision::GiveUp;
        }
        let at_ms = now_ms + delay_ms(attempt);
        self.next_at_ms = Some(at_ms);
        Decision::RetryAt {
            at_ms,
            attempt: self.failures,
        }
    }

    /// Connected: the next failure starts the schedule from 1 s again.
    pub fn on_success(&mut self) {
        self.failures = 0;
        self.next_at_ms = None;
    }

    /// "Retry now": due at once; the schedule keeps counting.
    pub fn retry_now(&mut self, now_ms: f64) {
        self.next_at_ms = Some(now_ms);
    }

    /// The browser came back online: retry at once if a retry was waiting, and restart the
    /// count, since the failures were probably the network's, not the server's.
    pub fn online(&mut self, now_ms: f64) -> bool {
        if self.next_at_ms.is_some() || self.gave_up() {
            self.failures = 0;
            self.next_at_ms = Some(now_ms);
            true
        } else {
            false
        }
    }

    pub fn gave_up(&self) -> bool {
        self.next_at_ms.is_none() && self.max_attempts.is_some_and(|max| self.failures > max)
    }

    pub fn next_deadline(&self) -> Option<f64> {
        self.next_at_ms
    }

    /// Whether the reconnect is due; clears it so it fires once.
    pub fn take_due(&mut self, now_ms: f64) -> bool {
        if self.next_at_ms.is_some_and(|t| t <= now_ms) {
            self.next_at_ms = None;
            true
        } else {
            false
        }
    }

    pub fn failures(&self) -> u32 {
        self.failures
    }
}

/// Which step of connecting a server is in, for the status line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConnectStep {
    /// Modern probe (`server/discover`).
    Discovering,
    /// Legacy `initialize` handshake.
    Initializing,
    /// Opening the deprecated HTTP+SSE stream and waiting for its endpoint.
    OpeningSse,
    /// Opening a WebSocket.
    OpeningSocket,
    ListingTools,
}

/// A server's health as the store renders it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum HealthStatus {
    Idle,
    Connecting {
        step: ConnectStep,
    },
    Connected {
        since_ms: f64,
    },
    Reconnecting {
        at_ms: f64,
        attempt: u32,
        /// Why the last attempt failed, in the error's own sentence: shown on the server's card
        /// beside the countdown (it was only in the folded Log). Empty in records from before.
        #[serde(default)]
        why: String,
    },
    /// The browser is offline: no attempt is made (each would fail) until it is back online.
    Offline,
    Error {
        message: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Health {
    pub status: HealthStatus,
    /// When the server last answered anything (handshake, ping, request).
    pub last_checked_ms: Option<f64>,
}

impl Default for Health {
    fn default() -> Self {
        Health {
            status: HealthStatus::Idle,
            last_checked_ms: None,
        }
    }
}

impl HealthStatus {
    /// The state's name: the server row's `data-status` and the status dot's class.
    pub fn as_str(&self) -> &'static str {
        match self {
            HealthStatus::Idle => "idle",
            HealthStatus::Connecting { .. } => "connecting",
            HealthStatus::Connected { .. } => "connected",
            HealthStatus::Reconnecting { .. } => "reconnecting",
            HealthStatus::Offline => "offline",
            HealthStatus::Error { .. } => "error",
        }
    }

    /// One line for the status dot's label, e.g. "reconnecting in 4 s (attempt 3)".
    /// Whether the server is down as far as the user is concerned: it failed and is waiting
    /// to retry, gave up, or the browser is offline. Idle (switched off) and connecting are not.
    pub fn is_down(&self) -> bool {
        matches!(
            self,
            HealthStatus::Reconnecting { .. } | HealthStatus::Error { .. } | HealthStatus::Offline
        )
    }

    pub fn describe(&self, now_ms: f64) -> String {
        match self {
            HealthStatus::Idle => "idle".into(),
            HealthStatus::Connecting { step } => format!(
                "connecting: {}",
                match step {
                    ConnectStep::Discovering => "probing for MCP 2026-07-28",
                    ConnectStep::Initializing => "initialize handshake",
                    ConnectStep::OpeningSse => "opening the HTTP+SSE stream",
                    ConnectStep::OpeningSocket => "opening the WebSocket",
                    ConnectStep::ListingTools => "listing tools",
                }
            ),
            HealthStatus::Connected { .. } => "connected".into(),
            HealthStatus::Reconnecting {
                at_ms,
                attempt,
                why,
            } => {
                let secs = crate::format::fixed(((at_ms - now_ms) / 1000.0).max(0.0).ceil(), 0);
                if why.is_empty() {
                    format!("reconnecting in {secs} s (attempt {attempt})")
                } else {
                    format!("reconnecting in {secs} s (attempt {attempt}) · {why}")
                }
            }
            HealthStatus::Offline => "offline: reconnects when the network is back".into(),
            HealthStatus::Error { message } => message.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn down_means_failed_or_offline_not_idle_or_connecting() {
        assert!(HealthStatus::Reconnecting {
            at_ms: 1.0,
            attempt: 1,
            why: String::new(),
        }
        .is_down());
        assert!(HealthStatus::Error {
            message: "x".into()
        }
        .is_down());
        assert!(HealthStatus::Offline.is_down());
        assert!(!HealthStatus::Idle.is_down());
        assert!(!HealthStatus::Connected { since_ms: 0.0 }.is_down());
        assert!(!HealthStatus::Connecting {
            step: ConnectStep::Initializing
        }
        .is_down());
    }

    #[test]
    fn schedule_is_exactly_1_2_4_8_16_then_30() {
        let delays: Vec<f64> = (0..9).map(delay_ms).collect();
        assert_eq!(delays, [1e3, 2e3, 4e3, 8e3, 16e3, 30e3, 30e3, 30e3, 30e3]);
        assert_eq!(delay_ms(u32::MAX), 30e3);
    }

    #[test]
    fn failures_follow_the_schedule_and_success_resets_it() {
        let mut b = Backoff::new(None);
        let mut now = 0.0;
        let mut waits = Vec::new();
        for _ in 0..7 {
            let Decision::RetryAt { at_ms, .. } = b.on_failure(now) else {
                panic!("gave up without a limit");
            };
            waits.push(at_ms - now);
            assert!(!b.take_due(at_ms - 1.0));
            assert!(b.take_due(at_ms));
            now = at_ms;
        }
        assert_eq!(waits, [1e3, 2e3, 4e3, 8e3, 16e3, 30e3, 30e3]);
        b.on_success();
        assert_eq!(
            b.on_failure(100.0),
            Decision::RetryAt {
                at_ms: 1100.0,
                attempt: 1
            }
        );
    }

    #[test]
    fn max_attempts_then_online_restarts() {
        let mut b = Backoff::new(Some(2));
        assert!(matches!(
            b.on_failure(0.0),
            Decision::RetryAt { attempt: 1, .. }
        ));
        assert!(matches!(
            b.on_failure(0.0),
            Decision::RetryAt { attempt: 2, .. }
        ));
        assert_eq!(b.on_failure(0.0), Decision::GiveUp);
        assert!(b.gave_up());
        assert_eq!(b.next_deadline(), None);
        assert!(b.online(50.0));
        assert!(b.take_due(50.0));
        assert_eq!(b.failures(), 0);
    }

    #[test]
    fn retry_now_is_due_immediately() {
        let mut b = Backoff::new(None);
        b.on_failure(0.0);
        b.retry_now(10.0);
        assert_eq!(b.next_deadline(), Some(10.0));
        assert!(b.take_due(10.0));
        // Not online-triggered when nothing was waiting.
        assert!(!b.online(11.0));
    }

    #[test]
    fn status_lines() {
        let s = HealthStatus::Reconnecting {
            at_ms: 4_000.0,
            attempt: 3,
            why: String::new(),
        };
        assert_eq!(s.describe(100.0), "reconnecting in 4 s (attempt 3)");
        // Why it failed shows beside the countdown, not only in the folded Log (issue 32).
        let refused = HealthStatus::Reconnecting {
            at_ms: 4_000.0,
            attempt: 3,
            why: "The server refused access (HTTP 403).".into(),
        };
        assert_eq!(
            refused.describe(100.0),
            "reconnecting in 4 s (attempt 3) · The server refused access (HTTP 403)."
        );
        // A record from before the reason was kept still reads.
        let old: HealthStatus =
            serde_json::from_str(r#"{"state":"reconnecting","at_ms":1.0,"attempt":2}"#).unwrap();
        assert!(matches!(old, HealthStatus::Reconnecting { ref why, .. } if why.is_empty()));
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.contains("\"state\":\"reconnecting\""), "{json}");
    }
}
