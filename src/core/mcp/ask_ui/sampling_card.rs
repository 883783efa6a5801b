//! The sampling approval card as a machine: whether a server's `sampling/createMessage` is
//! shown at all ([`admit`]: parsed and checked, within the server's budget), what the user
//! may change (the last user message, when it is text), and what the server gets back
//! (the model's result, or the refusal the specification gives as its example).
//!
//! Nothing reaches the user's model before Approve: [`SamplingCard::approve`] is the only way
//! to the sampling runner, and it sends the request as shown, with the user's edit.

use serde_json::Value;

use crate::mcp::held_ask::{AskReply, HeldAsk};
use crate::mcp::sampling::{Limiter, Part, Role, SamplingError, SamplingRequest};
use crate::mcp::sampling_step::{
    answer_result, calls_said, media_label, SampleCall, SampledAnswer,
};
use crate::mcp::ElicitKey;

/// The method this card answers.
pub const METHOD: &str = "sampling/createMessage";

/// Where a card is.
#[derive(Debug, Clone, PartialEq)]
pub enum Stage {
    /// Waiting for Approve or Deny.
    Asking,
    /// Approved: the model is writing (its text so far).
    Sampling { text: String },
    /// The model or the host failed; the user may try again or deny.
    Failed(String),
    /// The server can no longer be answered (its connection ended).
    Gone,
}

/// A sampling request the user is deciding on.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingCard {
    pub server: String,
    pub server_name: String,
    /// The session's key for the held request, echoed back as it came.
    pub key: ElicitKey,
    pub(super) request: SamplingRequest,
    /// The last user message, when it is text only (index into the messages).
    pub(super) editable: Option<usize>,
    /// The user's text for that message.
    pub(super) draft: String,
    pub(super) stage: Stage,
    /// Why the last Approve did not go (an empty message).
    pub(super) problem: Option<String>,
}

/// What becomes of an `ask` event.
#[derive(Debug, Clone, PartialEq)]
pub enum Admission {
    /// Show the card.
    Show(Box<SamplingCard>),
    /// Answer at once with this, and say `sentence` where the user sees it (or nothing, when
    /// it is empty).
    Refuse { answer: AskReply, sentence: String },
}

/// A held request at `now_ms`: a malformed request is answered with its JSON-RPC error at
/// once (-32602 and the sentence saying what is wrong), a server over its budget is refused
/// (`sampling::Limiter`), and only a well-formed request within budget becomes a card.
pub fn admit(ask: &HeldAsk, limiter: &mut Limiter, now_ms: f64) -> Admission {
    let (server, key) = (ask.server.as_str(), ask.key);
    let name = match ask.name.as_str() {
        "" => server,
        n => n,
    };
    let method = ask.method.as_str();
    if method != METHOD {
        return Admission::Refuse {
            answer: AskReply::error(
                server,
                key,
                -32601,
                &format!("Skiff cannot answer \u{201c}{method}\u{201d}."),
            ),
            sentence: String::new(),
        };
    }
    let checked =
        SamplingRequest::parse(&ask.params).and_then(|r| limiter.admit(server, now_ms).map(|()| r));
    match checked {
        Ok(request) => {
            let editable = last_user_text(&request);
            let draft = editable
                .map(|i| joined_text(&request.messages[i].parts))
                .unwrap_or_default();
            Admission::Show(Box::new(SamplingCard {
                server: server.to_string(),
                server_name: name.to_string(),
                key,
                request,
                editable,
                draft,
                stage: Stage::Asking,
                problem: None,
            }))
        }
        Err(e) => {
            let sentence = format!(
                "Refused a request from {} to use your model: {e}",
                crate::display::text::name(name)
            );
            Admission::Refuse {
                answer: AskReply::error(server, key, e.code(), &e.to_string()),
                sentence,
            }
        }
    }
}

/// The last message when it is the user's and holds text only.
fn last_user_text(r: &SamplingRequest) -> Option<usize> {
    let i = r.messages.len().checked_sub(1)?;
    let m = &r.messages[i];
    let text_only = !m.parts.is_empty() && m.parts.iter().all(|p| matches!(p, Part::Text(_)));
    (m.role == Role::User && text_only).then_some(i)
}

/// A part as the card shows it: text as it is; media named; a tool call and a tool result
/// in words (the model receives them as calls and results, not as this text).
pub(super) fn part_text(p: &Part) -> String {
    match p {
        Part::Text(t) => t.clone(),
        Part::Media { kind, mime, data } => media_label(*kind, mime, data),
        Part::ToolUse { name, input, .. } => format!(
            "Asks to call {}({})",
            crate::display::text::name(name),
            Value::Object(input.clone())
        ),
        Part::ToolResult {
            content, is_error, ..
        } => {
            let body: Vec<String> = content.iter().map(part_text).collect();
            let what = if *is_error {
                "Tool error"
            } else {
                "Tool result"
            };
            format!("{what}: {}", body.join(" "))
        }
    }
}

/// A message's parts as one text: text parts apart by a blank line, the rest named.
pub(super) fn message_text(parts: &[Part]) -> String {
    if parts.iter().all(|p| matches!(p, Part::Text(_))) {
        joined_text(parts)
    } else {
        parts.iter().map(part_text).collect::<Vec<_>>().join("\n")
    }
}

pub(super) fn joined_text(parts: &[Part]) -> String {
    parts
        .iter()
        .filter_map(|p| match p {
            Part::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

impl SamplingCard {
    pub fn stage(&self) -> &Stage {
        &self.stage
    }

    /// Whether the user can still change the last user message.
    pub fn can_edit(&self) -> bool {
        self.editable.is_some() && matches!(self.stage, Stage::Asking | Stage::Failed(_))
    }

    /// The user typed in the last user message's box.
    pub fn set_draft(&mut self, text: &str) {
        if self.can_edit() {
            self.draft = text.to_string();
            self.problem = None;
        }
    }

    /// The request as the user approved it: the last user message is the user's text; tool
    /// calls and results travel as the conversation's own, so every provider gets them in its
    /// wire format.
    pub fn approved_call(&self) -> SampleCall {
        let edit = self.editable.map(|i| (i, self.draft.as_str()));
        SampleCall::from_request(&self.request, edit)
    }

    /// Approve (or try again after a failure): what the sampling runner sends, or `None` when
    /// there is nothing to send (an emptied message, whose sentence the card now shows, or a
    /// card no longer asking).
    pub fn approve(&mut self) -> Option<SampleCall> {
        if !matches!(self.stage, Stage::Asking | Stage::Failed(_)) {
            return None;
        }
        if self.editable.is_some() && self.draft.trim().is_empty() {
            self.problem =
                Some("The message is empty: write what the model should answer, or Deny.".into());
            return None;
        }
        self.problem = None;
        self.stage = Stage::Sampling {
            text: String::new(),
        };
        Some(self.approved_call())
    }

    /// Streamed text of the approved request (each piece appended).
    pub fn chunk(&mut self, text: &str) -> Option<&str> {
        match &mut self.stage {
            Stage::Sampling { text: so_far } => {
                so_far.push_str(text);
                Some(so_far)
            }
            _ => None,
        }
    }

    /// The model's answer: the reply with the `CreateMessageResult`
    /// (`sampling_step::answer_result`); the model's tool calls are added to the card's
    /// answer ("Your model asks to call ...") as they go back. A call that cannot be passed on
    /// is a failure the card shows.
    pub fn sampled(&mut self, answer: &SampledAnswer) -> Result<AskReply, String> {
        if self.stage == Stage::Gone {
            // The server stopped waiting while the model wrote: nothing goes back.
            return Err(format!(
                "{} no longer waits for this answer.",
                crate::display::text::name(&self.server_name)
            ));
        }
        let r = &self.request;
        let offered =
            !r.tools.is_empty() && r.tool_choice != crate::mcp::sampling::ToolChoice::None;
        match answer_result(answer, offered) {
            Ok(result) => {
                if let Stage::Sampling { text } = &mut self.stage {
                    text.push_str(&calls_said(&result));
                }
                Ok(AskReply::result(&self.server, self.key, result))
            }
            Err(s) => {
                self.stage = Stage::Failed(s.clone());
                Err(s)
            }
        }
    }

    /// The model could not answer (no model set up, the provider refused): the sentence shows
    /// on the card, which can be tried again or denied.
    pub fn failed(&mut self, sentence: &str) {
        if !matches!(self.stage, Stage::Gone) {
            self.stage = Stage::Failed(sentence.to_string());
        }
    }

    /// Deny: the specification's refusal (-1, "User rejected sampling request").
    pub fn deny(&self) -> AskReply {
        let e = SamplingError::Declined;
        AskReply::error(&self.server, self.key, e.code(), &e.to_string())
    }

    /// The server can no longer be answered: the card says so until dismissed.
    pub fn gone(&mut self) {
        self.stage = Stage::Gone;
    }
}
