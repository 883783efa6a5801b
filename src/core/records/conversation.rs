//! The conversation record shared by stores, runners and UI: plain data, no signals. Also the
//! rules that keep a stored conversation whole: a reload marks what was cut off, and two tabs
//! merge their copies without losing each other's messages or settings.

use serde::{Deserialize, Serialize};

use super::branch::Branch;
use super::mask::Mask;
use super::memory::Memory;
use super::message::{Message, MessageStatus};
use super::model_choice::ModelChoice;
use super::title_source::TitleSource;
use super::tool_call::ToolCallRecord;
use super::tool_overrides::ToolOverrides;

/// What a tool call left unfinished by a closed page says.
pub const INTERRUPTED_CALL: &str =
    "The page was closed before this call finished; it may still have run on its server.";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conversation {
    pub id: String,
    pub title: String,
    pub created_ms: f64,
    pub updated_ms: f64,
    pub messages: Vec<Message>,
    /// Which MCP servers and tools this conversation may use (all, unless switched off here).
    #[serde(default, skip_serializing_if = "ToolOverrides::is_empty")]
    pub tool_overrides: ToolOverrides,
    /// Where the title came from: a title the user typed is never replaced by a generated one.
    #[serde(default, skip_serializing_if = "is_first_line")]
    pub title_source: TitleSource,
    /// The "clear context" mark: the id of the message it follows. Requests carry nothing up
    /// to and including that message; the user still sees (and exports) all of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cleared_after: Option<String>,
    /// The summary standing in for the older messages (compaction, `pipeline::memory`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<Memory>,
    /// Continuations the user moved away from (edit, regenerate, switch): `crate::branches`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<Branch>,
    /// The provider profile and model this conversation uses (`profiles::resolve`); absent in
    /// records written before profiles, which means "the last used", so they open unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<ModelChoice>,
    /// Pinned conversations head the sidebar and are never offered for pruning.
    #[serde(default, skip_serializing_if = "is_false")]
    pub pinned: bool,
    /// When a setting of the conversation itself last changed (title, pin, model, tool
    /// switches, branches, summary, clear mark), as opposed to `updated_ms`, which every
    /// streamed save moves on. Between tabs the later settings win as a whole
    /// ([`merge_conversations`]); 0 in records written before it existed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub meta_ms: f64,
    /// The mask this conversation started from, as it was then (`masks`): later edits of
    /// the mask change no conversation under way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask: Option<Mask>,
    /// The id of the project this conversation is in (`projects`); one no project has (it was
    /// deleted) reads as none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
}

fn is_zero(ms: &f64) -> bool {
    *ms == 0.0
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_first_line(s: &TitleSource) -> bool {
    *s == TitleSource::FirstLine
}

/// What the sidebar needs about a conversation without loading its messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConversationSummary {
    pub id: String,
    pub title: String,
    pub updated_ms: f64,
    #[serde(default, skip_serializing_if = "is_false")]
    pub pinned: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
}

impl Conversation {
    pub fn new(id: String, now_ms: f64) -> Self {
        Conversation {
            id,
            title: String::new(),
            created_ms: now_ms,
            updated_ms: now_ms,
            messages: Vec::new(),
            tool_overrides: ToolOverrides::default(),
            title_source: TitleSource::FirstLine,
            cleared_after: None,
            memory: None,
            branches: Vec::new(),
            model: None,
            pinned: false,
            meta_ms: 0.0,
            mask: None,
            project: None,
        }
    }

    pub fn summary(&self) -> ConversationSummary {
        ConversationSummary {
            id: self.id.clone(),
            title: self.title.clone(),
            updated_ms: self.updated_ms,
            pinned: self.pinned,
            project: self.project.clone(),
        }
    }

    /// After a reload nothing can still be streaming: whatever was mid-answer is marked
    /// interrupted (its partial text kept). Returns whether anything changed.
    pub fn mark_interrupted(&mut self) -> bool {
        let mut changed = false;
        for m in &mut self.messages {
            if m.status == MessageStatus::Streaming {
                m.status = MessageStatus::Interrupted;
                changed = true;
            }
        }
        self.settle_orphan_calls() || changed
    }

    /// Tool calls still "running" or "waiting for approval" in a message that is no longer
    /// streaming belong to a closed page: nobody will finish or approve them. They must not
    /// spin (or offer Allow buttons) forever; they may still have run on their server, which
    /// the sentence says. Returns whether anything changed.
    pub fn settle_orphan_calls(&mut self) -> bool {
        let mut changed = false;
        for m in &mut self.messages {
            if m.status != MessageStatus::Streaming {
                changed |= settle_calls(&mut m.tool_calls);
            }
        }
        changed
    }
}

/// Mark every unfinished call as interrupted; returns whether any was. A call running as an
/// MCP task is left running: the task lives on its server, and the page follows it again
/// (`mcp::task`) rather than calling the tool twice.
pub fn settle_calls(calls: &mut [ToolCallRecord]) -> bool {
    let mut changed = false;
    for call in calls.iter_mut().filter(|c| !c.is_resumable_task()) {
        changed |= call.interrupt(INTERRUPTED_CALL);
    }
    changed
}

/// Combine what another tab saved with what this tab holds, so neither overwrites the other's
/// messages. Messages are matched by id; `local_live` names the messages this tab is streaming
/// right now, whose local copy is always newer. Otherwise the copy further along wins (longer
/// text, or final over streaming). Order follows creation time, ties keeping the local order.
///
/// The conversation's own settings come whole from the copy whose settings changed last
/// (`meta_ms`): a rename in one tab survives the other tab streaming into the conversation,
/// which saves often and so always has the later `updated_ms`. Records from before `meta_ms`
/// (0 on both sides) fall back to `updated_ms`.
pub fn merge_conversations(
    local: &Conversation,
    remote: &Conversation,
    local_live: &[&str],
) -> Conversation {
    let mut merged = local.clone();
    for theirs in &remote.messages {
        match merged.messages.iter_mut().find(|m| m.id == theirs.id) {
            Some(ours) => {
                if local_live.contains(&ours.id.as_str()) {
                    continue;
                }
                let theirs_ahead = theirs.content.len() > ours.content.len()
                    || (ours.status == MessageStatus::Streaming && theirs.status.is_final())
                    || settled_calls(theirs) > settled_calls(ours);
                if theirs_ahead {
                    *ours = theirs.clone();
                }
            }
            None => merged.messages.push(theirs.clone()),
        }
    }
    // A stable sort keeps local order for equal timestamps.
    crate::order::sort_by(&mut merged.messages, |a, b| {
        a.created_ms.total_cmp(&b.created_ms)
    });
    let theirs_newer = if local.meta_ms == 0.0 && remote.meta_ms == 0.0 {
        remote.updated_ms > local.updated_ms
    } else {
        remote.meta_ms > local.meta_ms
    };
    if theirs_newer {
        merged.meta_ms = remote.meta_ms;
        merged.title = remote.title.clone();
        merged.title_source = remote.title_source;
        merged.pinned = remote.pinned;
        merged.tool_overrides = remote.tool_overrides.clone();
        merged.cleared_after = remote.cleared_after.clone();
        merged.memory = remote.memory.clone();
        merged.branches = remote.branches.clone();
        merged.model = remote.model.clone();
        merged.mask = remote.mask.clone();
        merged.project = remote.project.clone();
    }
    merged.updated_ms = local.updated_ms.max(remote.updated_ms);
    merged
}

/// Whether the tab that merged `remote` into its own copy (giving `merged`) must write the
/// result back: it held messages the other tab lacked, or newer settings. Otherwise the other
/// tab's next save would overwrite them in storage (a rename lost to a tab streaming on). When
/// both copies agree nothing is written, so two tabs never write each other back and forth.
pub fn merge_needs_write_back(merged: &Conversation, remote: &Conversation) -> bool {
    merged.messages != remote.messages || merged.meta_ms != remote.meta_ms
}

/// How far a message's tool calls have got: calls made, plus calls finished.
fn settled_calls(m: &Message) -> usize {
    m.tool_calls.len()
        + m.tool_calls
            .iter()
            .filter(|c| c.status().is_final())
            .count()
}

/// A title from the first user message: first line, whitespace collapsed, cut at a word
/// boundary near `max_chars`. Used until the model-generated titles of a later issue.
pub fn title_from_text(text: &str, max_chars: usize) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut out = String::new();
    for w in words {
        let extra = if out.is_empty() { 0 } else { 1 } + w.chars().count();
        if out.chars().count() + extra > max_chars {
            if out.is_empty() {
                out = w.chars().take(max_chars).collect();
            }
            out.push('…');
            return out;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::message::Role;
    use crate::records::tool_call::ToolCallStatus;

    #[test]
    fn title_cuts_at_word_boundary() {
        assert_eq!(
            title_from_text("\n  hello   world \nsecond", 40),
            "hello world"
        );
        assert_eq!(title_from_text("one two three", 8), "one two…");
        assert_eq!(title_from_text("abcdefghijkl", 5), "abcde…");
        assert_eq!(title_from_text("", 5), "");
    }

    #[test]
    fn reload_marks_streaming_interrupted_and_keeps_text() {
        let mut c = Conversation::new("c".into(), 0.0);
        let mut m = Message::new("m".into(), Role::Assistant, "partial".into(), 0.0);
        m.status = MessageStatus::Streaming;
        c.messages.push(m);
        assert!(c.mark_interrupted());
        assert_eq!(c.messages[0].status, MessageStatus::Interrupted);
        assert_eq!(c.messages[0].content, "partial");
        assert!(!c.mark_interrupted());
    }

    #[test]
    fn reload_settles_unfinished_tool_calls_and_merge_prefers_the_copy_further_along() {
        use crate::records::tool_call::ToolCallRecord;
        let mut c = Conversation::new("c".into(), 0.0);
        let mut m = Message::new("m".into(), Role::Assistant, "Let me look.".into(), 0.0);
        m.status = MessageStatus::Done;
        let mut running = ToolCallRecord::new("a".into(), "echo".into(), "{}".into());
        running.start(1.0);
        let mut done = ToolCallRecord::new("b".into(), "echo".into(), "{}".into());
        done.start(1.0);
        done.finish(serde_json::json!({"content": []}), 2.0);
        m.tool_calls = vec![running, done];
        c.messages.push(m);
        let before = c.clone();
        assert!(c.mark_interrupted());
        assert_eq!(
            *c.messages[0].tool_calls[0].status(),
            ToolCallStatus::Error(INTERRUPTED_CALL.into())
        );
        assert_eq!(*c.messages[0].tool_calls[1].status(), ToolCallStatus::Done);
        // A message saved as interrupted (page hidden) whose calls were left waiting.
        let mut hidden = before.clone();
        hidden.messages[0].status = MessageStatus::Interrupted;
        assert!(hidden.settle_orphan_calls());
        assert_eq!(hidden.messages[0].tool_calls, c.messages[0].tool_calls);
        assert!(!hidden.settle_orphan_calls());
        // Same text, but the other tab's calls got further: take them.
        let merged = merge_conversations(&before, &c, &[]);
        assert_eq!(merged.messages[0].tool_calls, c.messages[0].tool_calls);
        let merged = merge_conversations(&c, &before, &[]);
        assert_eq!(merged.messages[0].tool_calls, c.messages[0].tool_calls);
    }

    #[test]
    fn reload_leaves_a_call_running_as_a_task_for_the_page_to_follow() {
        use crate::records::task::TaskStatus;
        use crate::records::tool_call::ToolCallRecord;
        let mut c = Conversation::new("c".into(), 0.0);
        let mut m = Message::new("m".into(), Role::Assistant, String::new(), 0.0);
        m.status = MessageStatus::Streaming;
        let mut task = ToolCallRecord::new("a".into(), "research".into(), "{}".into());
        task.start(1.0);
        task.report_task("t1", TaskStatus::Working, None);
        let mut plain = ToolCallRecord::new("b".into(), "echo".into(), "{}".into());
        plain.start(1.0);
        m.tool_calls = vec![task.clone(), plain];
        c.messages.push(m);
        assert!(c.mark_interrupted());
        assert_eq!(
            c.messages[0].tool_calls[0], task,
            "followed again, never re-sent"
        );
        assert_eq!(
            *c.messages[0].tool_calls[1].status(),
            ToolCallStatus::Error(INTERRUPTED_CALL.into())
        );
    }

    fn msg(id: &str, role: Role, text: &str, at: f64) -> Message {
        Message::new(id.into(), role, text.into(), at)
    }

    #[test]
    fn merge_keeps_both_tabs_messages() {
        let mut a = Conversation::new("c".into(), 0.0);
        a.messages.push(msg("u1", Role::User, "q1", 1.0));
        let mut b = a.clone();
        a.messages.push(msg("u2a", Role::User, "from tab A", 2.0));
        b.messages.push(msg("u2b", Role::User, "from tab B", 3.0));
        b.updated_ms = 3.0;
        b.title = "B title".into();
        let m = merge_conversations(&a, &b, &[]);
        let ids: Vec<&str> = m.messages.iter().map(|m| m.id.as_str()).collect();
        assert_eq!(ids, ["u1", "u2a", "u2b"]);
        assert_eq!(m.title, "B title");
        assert_eq!(m.updated_ms, 3.0);
    }

    #[test]
    fn a_rename_elsewhere_survives_a_tab_streaming_into_the_conversation() {
        // Tab B renames at t=10; tab A keeps streaming and saving until t=20.
        let mut a = Conversation::new("c".into(), 0.0);
        a.title = "first question".into();
        a.messages.push(msg("r", Role::Assistant, "streaming", 1.0));
        let mut b = a.clone();
        b.title = "Renamed in B".into();
        b.title_source = TitleSource::User;
        b.pinned = true;
        b.meta_ms = 10.0;
        b.updated_ms = 10.0;
        a.messages[0].content = "streaming, much further along".into();
        a.updated_ms = 20.0;
        // A hears of B's save: B's settings win, A's streamed text stays.
        let in_a = merge_conversations(&a, &b, &["r"]);
        assert_eq!(in_a.title, "Renamed in B");
        assert_eq!(in_a.title_source, TitleSource::User);
        assert!(in_a.pinned);
        assert_eq!(in_a.meta_ms, 10.0);
        assert_eq!(in_a.updated_ms, 20.0);
        assert_eq!(in_a.messages[0].content, "streaming, much further along");
        // B hears of A's later streamed save (which carries the rename by now, or not): B
        // keeps its settings either way, and takes the text.
        let in_b = merge_conversations(&b, &a, &[]);
        assert_eq!(in_b.title, "Renamed in B");
        assert!(in_b.pinned);
        assert_eq!(in_b.messages[0].content, "streaming, much further along");
        // A later setting in A (it unpins at t=30) wins in B.
        let mut a2 = in_a.clone();
        a2.pinned = false;
        a2.meta_ms = 30.0;
        assert!(!merge_conversations(&in_b, &a2, &[]).pinned);
        // Records from before `meta_ms`: the later save wins, as before.
        let (mut old_a, mut old_b) = (a.clone(), b.clone());
        old_a.meta_ms = 0.0;
        old_b.meta_ms = 0.0;
        assert_eq!(
            merge_conversations(&old_a, &old_b, &[]).title,
            "first question"
        );
        assert_eq!(
            merge_conversations(&old_b, &old_a, &[]).title,
            "first question"
        );
        // A holds B's settings and more text: A writes back, B's copy of A's then agrees on
        // settings; B, with nothing A lacks, writes nothing.
        assert!(merge_needs_write_back(&in_a, &b));
        let in_b_after = merge_conversations(&b, &in_a, &[]);
        assert!(!merge_needs_write_back(&in_b_after, &in_a));
        // B heard A's older-settings copy before A heard of the rename: B writes back its
        // newer settings, or A's next save would bury the rename in storage.
        assert!(merge_needs_write_back(&in_b, &a));
        // Stored only when set.
        assert!(!serde_json::to_string(&old_a).unwrap().contains("meta_ms"));
        assert!(serde_json::to_string(&b)
            .unwrap()
            .contains("\"meta_ms\":10"));
    }

    #[test]
    fn merge_never_rolls_back_a_live_local_stream() {
        let mut a = Conversation::new("c".into(), 0.0);
        let mut live = msg("r", Role::Assistant, "short", 1.0);
        live.status = MessageStatus::Streaming;
        a.messages.push(live);
        let mut b = a.clone();
        b.messages[0].content = "short plus a lot more from elsewhere".into();
        assert_eq!(
            merge_conversations(&a, &b, &["r"]).messages[0].content,
            "short"
        );
        // Not live here: the copy further along wins.
        assert_eq!(
            merge_conversations(&a, &b, &[]).messages[0].content,
            "short plus a lot more from elsewhere"
        );
    }

    #[test]
    fn tool_overrides_are_optional_in_records_and_follow_the_newer_copy() {
        let old: Conversation = serde_json::from_str(
            r#"{"id":"c","title":"t","created_ms":0,"updated_ms":0,"messages":[]}"#,
        )
        .unwrap();
        assert!(old.tool_overrides.is_empty());
        assert!(!serde_json::to_string(&old)
            .unwrap()
            .contains("tool_overrides"));
        let mut remote = old.clone();
        remote.updated_ms = 5.0;
        remote.tool_overrides.set_server("srv", false);
        let merged = merge_conversations(&old, &remote, &[]);
        assert!(!merged.tool_overrides.server_enabled("srv"));
        let back: Conversation =
            serde_json::from_str(&serde_json::to_string(&merged).unwrap()).unwrap();
        assert_eq!(back.tool_overrides, merged.tool_overrides);
    }

    #[test]
    fn status_round_trips_through_json() {
        let s = MessageStatus::Error("boom".into());
        let j = serde_json::to_string(&s).unwrap();
        assert_eq!(j, r#"{"kind":"error","detail":"boom"}"#);
        assert_eq!(serde_json::from_str::<MessageStatus>(&j).unwrap(), s);
        assert_eq!(
            serde_json::to_string(&MessageStatus::Done).unwrap(),
            r#"{"kind":"done"}"#
        );
    }
}
