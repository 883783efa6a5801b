//! What a sampling card shows, as a view-model: who asks, what the model would see (system
//! prompt, every message, the tools it may call), the limits and preferences, then Approve and
//! Deny — or, once approved, the answer as it streams.
//!
//! Everything here came from a server and is untrusted: names through `display::text::name`,
//! prose through `display::text::prose`; media are named, never shown.

use super::sampling_card::{message_text, SamplingCard, Stage};
use crate::display::text;
use crate::format::decimal_f32;
use crate::mcp::sampling::{IncludeContext, Part, Role, ToolChoice};

/// One message of the request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageView {
    /// `user` or `assistant` (the row's `data-role`).
    pub role: &'static str,
    /// "User" or "Assistant"; the editable message says the user may edit it.
    pub label: String,
    /// What it says (the user's edit once approved); empty for the box being edited.
    pub text: String,
    /// This is the message the user may edit now: a box with the draft.
    pub editable: bool,
}

/// One tool the model may call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolView {
    pub name: String,
    pub description: Option<String>,
}

/// Where the card is, and what its buttons say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StageView {
    /// Waiting for the user; `failure` is why the last try did not answer.
    Asking {
        approve: &'static str,
        failure: Option<String>,
    },
    /// The model is writing (its text so far).
    Sampling { text: String },
    /// The server no longer waits: only Dismiss.
    Gone(String),
}

/// The whole card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CardView {
    pub server_name: String,
    pub lead: &'static str,
    pub system: Option<String>,
    pub messages: Vec<MessageView>,
    /// The draft of the editable message and why Approve did not go.
    pub draft: String,
    pub problem: Option<String>,
    /// "Tools the model may call (N)", when it may.
    pub tools_summary: Option<String>,
    pub tools: Vec<ToolView>,
    /// Limits, preferences and what Skiff cannot pass on, as term and value.
    pub details: Vec<(&'static str, String)>,
    pub stage: StageView,
}

/// The busy line under a streaming answer, and the sampling stage's one button.
pub const WRITING: &str = "Your model is writing the answer\u{2026}";
pub const STOP_AND_DENY: &str = "Stop and deny";

fn role_names(role: Role) -> (&'static str, &'static str) {
    match role {
        Role::User => ("user", "User"),
        Role::Assistant => ("assistant", "Assistant"),
    }
}

impl SamplingCard {
    /// What the card shows now.
    pub fn view(&self) -> CardView {
        let name = text::name(&self.server_name).into_owned();
        let r = &self.request;
        let editing = self.can_edit();
        let messages = r
            .messages
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let (role, label) = role_names(m.role);
                if editing && self.editable == Some(i) {
                    return MessageView {
                        role,
                        label: format!("{label} (you may edit this before approving)"),
                        text: String::new(),
                        editable: true,
                    };
                }
                let shown = if self.editable == Some(i) {
                    // Approved: what was sent, the user's edit included.
                    self.draft.clone()
                } else {
                    message_text(&m.parts)
                };
                MessageView {
                    role,
                    label: label.to_string(),
                    text: text::prose(&shown).into_owned(),
                    editable: false,
                }
            })
            .collect();
        let stage = match &self.stage {
            Stage::Gone => StageView::Gone(format!(
                "{name} no longer waits for this answer (its connection ended), so nothing was \
                 sent."
            )),
            Stage::Sampling { text: so_far } => StageView::Sampling {
                text: so_far.clone(),
            },
            Stage::Failed(why) => StageView::Asking {
                approve: "Try again",
                failure: Some(text::prose(why).into_owned()),
            },
            Stage::Asking => StageView::Asking {
                approve: "Approve",
                failure: None,
            },
        };
        CardView {
            lead: "Nothing reaches your model unless you approve. The server receives only the answer.",
            system: (!r.system_prompt.trim().is_empty())
                .then(|| text::prose(&r.system_prompt).into_owned()),
            messages,
            draft: self.draft.clone(),
            problem: self.problem.clone(),
            tools_summary: (!r.tools.is_empty())
                .then(|| format!("Tools the model may call ({})", r.tools.len())),
            tools: r
                .tools
                .iter()
                .map(|t| ToolView {
                    name: text::name(&t.name).into_owned(),
                    description: (!t.description.trim().is_empty())
                        .then(|| text::prose(&t.description).into_owned()),
                })
                .collect(),
            details: self.details(&name),
            stage,
            server_name: name,
        }
    }

    fn details(&self, name: &str) -> Vec<(&'static str, String)> {
        let r = &self.request;
        let mut rows: Vec<(&'static str, String)> = Vec::new();
        rows.push(("Max tokens", r.max_tokens.to_string()));
        if let Some(t) = r.temperature {
            rows.push(("Temperature", decimal_f32(t)));
        }
        if !r.stop_sequences.is_empty() {
            let quoted: Vec<String> = r
                .stop_sequences
                .iter()
                .map(|s| format!("\u{201c}{}\u{201d}", text::name(s)))
                .collect();
            rows.push(("Stops at", quoted.join(", ")));
        }
        if !r.hints.is_empty() {
            let hints: Vec<String> = r.hints.iter().map(|s| text::name(s).into_owned()).collect();
            rows.push(("Preferred models", hints.join(", ")));
        }
        let priorities: Vec<String> = ["cost", "speed", "intelligence"]
            .iter()
            .zip(r.priorities)
            .filter_map(|(k, v)| v.map(|v| format!("{k} {}", decimal_f32(v))))
            .collect();
        if !priorities.is_empty() {
            rows.push(("Priorities", priorities.join(" \u{b7} ")));
        }
        match r.tool_choice {
            ToolChoice::Required if !r.tools.is_empty() => {
                rows.push(("Tool use", "required".into()))
            }
            ToolChoice::None if !r.tools.is_empty() => rows.push(("Tool use", "none".into())),
            _ => {}
        }
        // What Skiff cannot pass on is said before the user approves, not discovered after.
        let media = r
            .messages
            .iter()
            .flat_map(|m| &m.parts)
            .any(|p| matches!(p, Part::Media { .. }));
        if media {
            rows.push((
                "Images and audio",
                "named to your model in the text; Skiff sends it text only.".into(),
            ));
        }
        if !r.tools.is_empty() {
            rows.push((
                "Tools",
                match r.tool_choice {
                    ToolChoice::None => "not offered to your model: the server asks for text.",
                    _ => {
                        "offered to your model. Skiff never runs them: a call your model \
                         asks for goes back to the server, which runs it."
                    }
                }
                .into(),
            ));
        }
        match r.include_context {
            IncludeContext::None => {}
            IncludeContext::ThisServer | IncludeContext::AllServers => rows.push((
                "Context",
                format!(
                    "{name} asked for context from your conversations; Skiff sends only the \
                     messages above."
                ),
            )),
        }
        rows
    }
}

/// What screen readers hear about a card (the page's one live region says it).
impl SamplingCard {
    pub fn said_on_arrival(&self) -> String {
        format!(
            "{} wants to use your model. Approve or deny the request.",
            text::name(&self.server_name)
        )
    }

    pub fn said_on_deny(&self) -> String {
        format!(
            "Denied {}'s request to use your model.",
            text::name(&self.server_name)
        )
    }

    pub fn said_on_sent(&self) -> String {
        format!(
            "Sent your model's answer to {}.",
            text::name(&self.server_name)
        )
    }

    pub fn said_when_gone(&self) -> String {
        format!(
            "{} no longer waits for an answer.",
            text::name(&self.server_name)
        )
    }
}

/// The card's sentence when the user's model could not answer.
pub fn could_not_answer(why: &str) -> String {
    format!("Your model could not answer: {why}")
}
