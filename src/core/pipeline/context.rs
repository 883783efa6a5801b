//! Which stored messages a request carries.
//!
//! A long or tool-heavy chat would otherwise overflow the model's context window and be
//! refused, so each request carries only recent messages: at most a history count, within a
//! token budget (the context window minus what the answer needs and what the system prompt
//! and tools already take), dropping the oldest first. Nothing before the conversation's
//! "clear context" mark is sent.
//!
//! Whole messages only: an answer and the tool calls and results inside it travel together,
//! and a selection never starts on an answer whose question was dropped (Anthropic and Gemini
//! refuse a conversation that opens with the model's turn). The current turn — the newest
//! question and the tool steps answered since — is always sent whole, even over budget: the
//! server then says whether it fits, and the error says what to do.

use crate::records::message::{Message, Role};

use super::tokens;
pub use crate::settings::{DEFAULT_CONTEXT_WINDOW, DEFAULT_HISTORY_COUNT};

/// Smallest window accepted from settings (a typo such as `8` would send nothing useful).
pub const MIN_CONTEXT_WINDOW: u32 = 512;

/// The limits a request is planned under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub context_window: u32,
    pub history_count: usize,
    /// Tokens kept free for the answer.
    pub reserve: u32,
}

impl Limits {
    /// Limits from settings: the answer's reserve is `max_tokens` when set, otherwise an
    /// eighth of the window, and never more than half of it (a huge `max_tokens` must not
    /// leave room for no history at all).
    pub fn new(context_window: u32, history_count: usize, max_tokens: Option<u32>) -> Self {
        let window = context_window.max(MIN_CONTEXT_WINDOW);
        let reserve = max_tokens.unwrap_or(window / 8).min(window / 2);
        Limits {
            context_window: window,
            history_count: history_count.max(1),
            reserve,
        }
    }

    /// Tokens the request itself may take.
    pub fn budget(&self) -> u32 {
        self.context_window.saturating_sub(self.reserve)
    }
}

/// What a request will carry, and how full that makes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Index of the first message sent; everything from here on is sent.
    pub first: usize,
    /// Messages left out because they are before the clear-context mark.
    pub cleared: usize,
    /// Messages after the mark left out by the history count or the budget.
    pub dropped: usize,
    /// Estimated tokens of what every request carries (system prompt, tools, ...).
    pub fixed_tokens: u32,
    /// The tools' part of `fixed_tokens`: their definitions (native) or the tools section
    /// (prompt-based), which every request carries whether or not a tool is called.
    pub tool_tokens: u32,
    /// Estimated tokens of the messages sent.
    pub message_tokens: u32,
    /// The request's budget (window minus the answer's reserve).
    pub budget: u32,
}

impl Plan {
    pub fn total_tokens(&self) -> u32 {
        self.fixed_tokens.saturating_add(self.message_tokens)
    }

    /// Whether even the newest message alone does not fit: the server will likely refuse.
    pub fn over_budget(&self) -> bool {
        self.total_tokens() > self.budget
    }

    /// How full the request is, in percent of the budget (may exceed 100).
    pub fn percent(&self) -> u32 {
        if self.budget == 0 {
            return 100;
        }
        ((u64::from(self.total_tokens()) * 100).div_ceil(u64::from(self.budget))) as u32
    }

    /// The messages to send.
    pub fn select<'a>(&self, history: &'a [Message]) -> &'a [Message] {
        &history[self.first.min(history.len())..]
    }
}

/// Index just past the clear-context mark: the message the mark follows is `cleared_after`.
/// An id no longer in the conversation (that message was deleted) clears nothing.
pub fn start_after_mark(history: &[Message], cleared_after: Option<&str>) -> usize {
    cleared_after
        .and_then(|id| history.iter().position(|m| m.id == id))
        .map_or(0, |i| i + 1)
}

/// Where to put the clear-context mark so that the answer `answer_id` is retried with its
/// question alone: the message just before that question. `None` when nothing older than the
/// question is there to leave out (or the answer is unknown).
pub fn mark_before_question(history: &[Message], answer_id: &str) -> Option<String> {
    let answer = history.iter().position(|m| m.id == answer_id)?;
    let question = history[..answer]
        .iter()
        .rposition(|m| m.role == Role::User)?;
    question.checked_sub(1).map(|i| history[i].id.clone())
}

/// Plans one request over `history` (the messages before the answer being generated).
pub fn plan(
    history: &[Message],
    cleared_after: Option<&str>,
    limits: &Limits,
    fixed_tokens: u32,
    result_char_limit: usize,
) -> Plan {
    let start = start_after_mark(history, cleared_after);
    plan_from(history, start, limits, fixed_tokens, result_char_limit)
}

/// [`plan`] with nothing before index `start` carried (a clear mark, or what a summary
/// covers: `pipeline::memory::start`).
pub fn plan_from(
    history: &[Message],
    start: usize,
    limits: &Limits,
    fixed_tokens: u32,
    result_char_limit: usize,
) -> Plan {
    let start = start.min(history.len());
    let budget = limits.budget();
    let room = budget.saturating_sub(fixed_tokens);
    // The current turn (the newest question and every step answered since) always goes: a
    // tool loop without its question, or its question without its earlier steps, makes no
    // sense to the model.
    let turn = history[start..]
        .iter()
        .rposition(|m| m.role == Role::User)
        .map_or(history.len().saturating_sub(1).max(start), |i| start + i);
    let mut used: u32 = history[turn.min(history.len())..]
        .iter()
        .map(|m| tokens::message(m, result_char_limit))
        .sum();
    let mut first = turn.min(history.len());
    let sent_in_turn = history.len() - first;
    for (count, i) in (sent_in_turn..).zip((start..first).rev()) {
        let cost = tokens::message(&history[i], result_char_limit);
        if count >= limits.history_count || used.saturating_add(cost) > room {
            break;
        }
        used = used.saturating_add(cost);
        first = i;
    }
    // Never open on the model's turn: drop older answers until a question.
    while first < turn && history[first].role == Role::Assistant {
        used = used.saturating_sub(tokens::message(&history[first], result_char_limit));
        first += 1;
    }
    let first = first.min(history.len());
    Plan {
        first,
        cleared: start.min(history.len()),
        dropped: first.saturating_sub(start),
        fixed_tokens,
        tool_tokens: 0,
        message_tokens: used,
        budget,
    }
}
