//! The driver's side of the core's outputs: performing what the link asks (fetches, aborts,
//! socket frames, in-page messages), routing session events into the server's `ServerLive`
//! signals, keeping the status line current, and keeping exactly one timer armed.

use gloo_timers::callback::Timeout;
use leptos::prelude::{Set, WithUntracked};
use serde_json::Value;
use skiff_core::mcp::backoff::{ConnectStep, HealthStatus};
use skiff_core::mcp::http_client::ClientAction;
use skiff_core::mcp::http_common::Token;
use skiff_core::mcp::{Era, ListKind, Output, Phase, SessionEvent};

use super::super::link::{spawn_fetch, Link};
use super::{Driver, Msg};
use crate::platform::abort::AbortHandle;

impl Driver {
    /// Perform everything the link asks for until it is quiet, then act on a failure, update
    /// the status line and re-arm the timer.
    pub(super) fn drain(&mut self, now: f64) {
        loop {
            let mut steps: Vec<Step> = Vec::new();
            match self.link.as_mut() {
                None => break,
                Some(Link::Http(c)) => {
                    c.pump(now);
                    while let Some(a) = c.poll_action() {
                        steps.push(match a {
                            ClientAction::Fetch { token, request, .. } => {
                                Step::Fetch(token, request)
                            }
                            ClientAction::Abort(t) => Step::Abort(t),
                            ClientAction::Event(e) => Step::Event(e),
                        });
                    }
                }
                Some(Link::Ws {
                    session, socket, ..
                }) => {
                    while let Some(out) = session.poll_output() {
                        match out {
                            Output::Send(body, _) => {
                                if let Err(e) = socket.send_text(&body) {
                                    steps.push(Step::Lost(e.to_string()));
                                }
                            }
                            // One socket carries every request: nothing to close per request;
                            // the session already sent notifications/cancelled.
                            Output::Abort(_) => {}
                            Output::Event(e) => steps.push(Step::Event(e)),
                        }
                    }
                }
                Some(Link::InPage { session }) => {
                    while let Some(out) = session.poll_output() {
                        match out {
                            Output::Send(body, _) => match self.in_page.as_mut() {
                                Some(server) => steps
                                    .extend(server.handle(&body).into_iter().map(Step::Incoming)),
                                None => steps.push(Step::Lost("the in-page server is gone".into())),
                            },
                            Output::Abort(_) => {}
                            Output::Event(e) => steps.push(Step::Event(e)),
                        }
                    }
                }
            }
            if steps.is_empty() {
                break;
            }
            for step in steps {
                self.apply(step, now);
            }
        }
        if let Some(error) = self.lost.take() {
            self.on_lost(error, now);
        }
        self.refresh_status(now);
        self.rearm(now);
    }

    fn apply(&mut self, step: Step, now: f64) {
        match step {
            Step::Fetch(token, request) => match AbortHandle::new() {
                Ok(handle) => {
                    self.aborts.insert(token, handle.clone());
                    spawn_fetch(self.tx.clone(), self.gen, token, request, handle);
                }
                Err(e) => {
                    if let Some(Link::Http(c)) = self.link.as_mut() {
                        c.on_fetch_error(token, &e.to_string(), now);
                    }
                }
            },
            Step::Abort(token) => {
                if let Some(h) = self.aborts.remove(&token) {
                    h.abort();
                }
            }
            Step::Event(e) => self.on_event(e, now),
            Step::Incoming(text) => {
                if let Some(link) = self.link.as_mut() {
                    link.session_mut().handle_message(&text, now);
                }
            }
            Step::Lost(reason) => {
                if let Some(link) = self.link.as_mut() {
                    if !matches!(link.session().phase(), Phase::Failed(_)) {
                        link.session_mut().transport_lost(&reason, now);
                    }
                }
            }
        }
    }

    pub(super) fn on_event(&mut self, event: SessionEvent, now: f64) {
        match event {
            SessionEvent::StateChanged(Phase::Ready {
                version,
                era,
                server_info,
                capabilities,
                instructions,
            }) => {
                self.backoff.on_success();
                self.last_error = None;
                self.connected_since = Some(now);
                self.live.checked(now);
                let info = server_info.map(|i| format!("{} {}", i.name, i.version));
                let transport = self.link.as_ref().map(Link::label).unwrap_or("?");
                self.log(format!(
                    "Connected over {transport}: MCP {version} ({} era){}.",
                    era_name(era),
                    info.as_deref()
                        .map(|i| format!(", server {i}"))
                        .unwrap_or_default()
                ));
                self.live.negotiated.set(Some((era, version)));
                self.live.server_info.set(info);
                self.live.instructions.set(instructions);
                let auto_list = self
                    .link
                    .as_ref()
                    .is_some_and(|l| l.session().config().auto_list);
                self.listing_tools = auto_list && capabilities.tools.is_some();
                // What the server no longer offers must not linger from a previous session.
                if capabilities.tools.is_none() {
                    self.live.tools.set(Vec::new());
                }
                if capabilities.resources.is_none() {
                    self.live.resources.set(Vec::new());
                    self.live.resource_templates.set(Vec::new());
                }
                if capabilities.prompts.is_none() {
                    self.live.prompts.set(Vec::new());
                }
            }
            SessionEvent::StateChanged(Phase::Failed(error)) => self.lost = Some(error),
            SessionEvent::StateChanged(_) => {}
            SessionEvent::EraDetected(cache) => self.store.set_era_cache(&self.id, Some(cache)),
            SessionEvent::ToolsListed(tools) => {
                self.live.checked(now);
                self.listing_tools = false;
                self.log(format!("Listed {} tool(s).", tools.len()));
                self.live.tools.set(tools);
            }
            SessionEvent::ResourcesListed(r) => self.live.resources.set(r),
            SessionEvent::ResourceTemplatesListed(r) => self.live.resource_templates.set(r),
            SessionEvent::PromptsListed(p) => self.live.prompts.set(p),
            SessionEvent::ListFailed { kind, error } => {
                if kind == ListKind::Tools {
                    self.listing_tools = false;
                }
                self.log(format!("Could not list ({}): {error}", kind.method()));
            }
            SessionEvent::ListEntriesSkipped { kind, entries } => self.log(format!(
                "Skipped {} entr{} of {} that did not decode: {}",
                entries.len(),
                if entries.len() == 1 { "y" } else { "ies" },
                kind.method(),
                entries.join("; ")
            )),
            SessionEvent::Response { id, method, result } => {
                match &result {
                    Ok(_) => self.live.checked(now),
                    Err(e) => self.log(format!("{method} failed: {e}")),
                }
                if let Some(slot) = self.calls.remove(&id) {
                    self.keys.remove(&slot.key);
                    let _ = slot.reply.send(result);
                }
            }
            SessionEvent::Progress {
                id,
                progress,
                total,
                message,
            } => {
                if let Some(f) = self.calls.get(&id).and_then(|s| s.progress.as_ref()) {
                    f(progress, total, message);
                }
            }
            SessionEvent::Log {
                level,
                logger,
                data,
            } => {
                let text = match data {
                    Value::String(s) => s,
                    other => other.to_string(),
                };
                let logger = logger.map(|l| format!(" {l}")).unwrap_or_default();
                self.log(format!("Server log [{level}]{logger}: {text}"));
            }
            SessionEvent::HealthOk { at_ms, .. } => self.live.checked(at_ms),
            SessionEvent::HealthFailed { error, .. } => {
                // An unanswered health check means the connection is gone in practice.
                if let Some(link) = self.link.as_mut() {
                    let why = format!("the health check failed: {error}");
                    link.session_mut().transport_lost(&why, now);
                }
            }
            SessionEvent::Notice(text) => self.log(text),
        }
    }

    fn refresh_status(&mut self, now: f64) {
        let Some(link) = self.link.as_ref() else {
            return;
        };
        let status = match link {
            Link::Ws { open: false, .. } => HealthStatus::Connecting {
                step: ConnectStep::OpeningSocket,
            },
            _ => match link.session().phase() {
                Phase::Discovering => HealthStatus::Connecting {
                    step: ConnectStep::Discovering,
                },
                Phase::Initializing => HealthStatus::Connecting {
                    step: match link {
                        Link::Http(c) if c.uses_legacy_sse() => ConnectStep::OpeningSse,
                        _ => ConnectStep::Initializing,
                    },
                },
                Phase::Ready { .. } if self.listing_tools => HealthStatus::Connecting {
                    step: ConnectStep::ListingTools,
                },
                Phase::Ready { .. } => HealthStatus::Connected {
                    since_ms: self.connected_since.unwrap_or(now),
                },
                Phase::Idle | Phase::Failed(_) => return,
            },
        };
        let label = link.label();
        if self
            .live
            .transport
            .with_untracked(|t| t.as_deref() != Some(label))
        {
            self.live.transport.set(Some(label.to_string()));
        }
        self.live.set_status(status);
    }

    /// Keep exactly one timer, at the earliest of the link's deadline and the reconnect.
    pub(super) fn rearm(&mut self, now: f64) {
        let link = self.link.as_ref().and_then(Link::next_deadline);
        let want = [link, self.reconnect_at]
            .into_iter()
            .flatten()
            .reduce(f64::min);
        if want == self.timer_at && (want.is_none() || self.timer.is_some()) {
            return;
        }
        self.timer_gen += 1;
        self.timer = None;
        self.timer_at = want;
        if let Some(at) = want {
            let delay = (at - now).ceil().clamp(0.0, f64::from(i32::MAX)) as u32;
            let tx = self.tx.clone();
            let gen = self.timer_gen;
            self.timer = Some(Timeout::new(delay, move || {
                let _ = tx.unbounded_send(Msg::Timer { gen });
            }));
        }
    }
}

enum Step {
    Fetch(Token, skiff_core::http::HttpRequest),
    Abort(Token),
    Event(SessionEvent),
    /// A message from the in-page server.
    Incoming(String),
    /// The transport could not send.
    Lost(String),
}

fn era_name(era: Era) -> &'static str {
    match era {
        Era::Modern => "modern",
        Era::Legacy => "legacy",
    }
}
