//! What the supervisor makes of each `SessionEvent`: the lines and values the settings page
//! shows (status, log, negotiated version, lists), the replies callers wait for, and the
//! failures that end a connection.

use serde_json::Value;

use super::era::Era;
use super::error::McpError;
use super::messages::ListKind;
use super::session_types::{Phase, SessionEvent};
use super::supervisor::Supervisor;
use super::supervisor_types::Action;
use super::task;

impl Supervisor {
    pub(super) fn on_event(&mut self, event: SessionEvent, now: f64) {
        match event {
            SessionEvent::StateChanged(Phase::Ready {
                version,
                era,
                server_info,
                capabilities,
                instructions,
            }) => {
                let auto_list = self.auto_list();
                self.ready(auto_list && capabilities.tools.is_some(), now);
                self.emit(Action::Checked(now));
                let icon = server_info
                    .as_ref()
                    .and_then(|i| super::icon::pick(&i.icons, &self.setup.config.url));
                let info = server_info.map(|i| format!("{} {}", i.name, i.version));
                let transport = self.link_label();
                self.log(format!(
                    "Connected over {transport}: MCP {version} ({} era){}.",
                    era_name(era),
                    info.as_deref()
                        .map(|i| format!(", server {i}"))
                        .unwrap_or_default()
                ));
                self.emit(Action::Negotiated {
                    era,
                    version,
                    server_info: info,
                    instructions,
                    icon,
                    capabilities: self
                        .link
                        .as_ref()
                        .map(|l| l.session().capabilities_json().clone())
                        .unwrap_or_default(),
                });
                // A Streamable HTTP session is kept for this tab, so a reload can take it up
                // (`kept_session`); any other leaves nothing to keep.
                if let Some(super::supervisor_link::Link::Http(c)) = self.link.as_ref() {
                    let kept = c.keepable().map(|k| super::kept_session::encode(&k));
                    self.emit(Action::KeepSession(kept));
                }
                // What the server no longer offers must not linger from a previous session.
                if capabilities.tools.is_none() {
                    self.emit(Action::Tools(Vec::new()));
                }
                if capabilities.resources.is_none() {
                    self.emit(Action::Resources(Vec::new()));
                    self.emit(Action::ResourceTemplates(Vec::new()));
                }
                if capabilities.prompts.is_none() {
                    self.emit(Action::Prompts(Vec::new()));
                }
            }
            SessionEvent::StateChanged(Phase::Failed(error)) => self.set_lost(error),
            SessionEvent::StateChanged(_) => {}
            SessionEvent::EraDetected(cache) => self.emit(Action::EraDetected(cache)),
            SessionEvent::ToolsListed(tools) => {
                self.emit(Action::Checked(now));
                self.tools_listed();
                self.log(format!("Listed {} tool(s).", tools.len()));
                self.tasks.tools_listed(&tools);
                self.emit(Action::Tools(tools));
            }
            SessionEvent::ResourcesListed(r) => self.emit(Action::Resources(r)),
            SessionEvent::ResourceTemplatesListed(r) => self.emit(Action::ResourceTemplates(r)),
            SessionEvent::PromptsListed(p) => self.emit(Action::Prompts(p)),
            SessionEvent::ListFailed { kind, error } => {
                if kind == ListKind::Tools {
                    self.tools_listed();
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
                    Ok(_) => self.emit(Action::Checked(now)),
                    Err(e) => self.log(format!("{method} failed: {e}")),
                }
                if let Some((key, role)) = self.answered(&id) {
                    self.route_answer(&id, key, role, result, now);
                }
            }
            SessionEvent::Progress {
                id,
                progress,
                total,
                message,
            } => {
                if let Some(key) = self.call_key(&id) {
                    self.emit(Action::Progress {
                        key,
                        progress,
                        total,
                        message,
                    });
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
            SessionEvent::HealthOk { at_ms, .. } => self.emit(Action::Checked(at_ms)),
            SessionEvent::HealthFailed { error, .. } => {
                // An unanswered health check means the connection is gone in practice. A
                // ping without an answer is a server that is not answering (frozen, stopped,
                // overloaded): said so, in the words the status, the log and the notice use.
                let why = match &error {
                    McpError::Timeout { .. } => {
                        format!("the server is not answering: {}", error.cause())
                    }
                    other => format!("the health check failed: {}", other.cause()),
                };
                self.health_failed(&why, now);
            }
            SessionEvent::Notice(text) => self.log(text),
            SessionEvent::Ask {
                id,
                method,
                params,
                raw,
            } => self.ask_opened(id, method, params, raw),
            SessionEvent::Notified { method, params } if method == task::STATUS_NOTIFICATION => {
                self.task_notified(&params, now)
            }
            SessionEvent::Notified { method, params } => {
                self.emit(Action::Notified { method, params })
            }
            SessionEvent::ElicitGone { id } => self.elicit_gone(&id),
        }
    }
}

fn era_name(era: Era) -> &'static str {
    match era {
        Era::Modern => "modern",
        Era::Legacy => "legacy",
    }
}
