//! llama.cpp web UI's conversation format, both ways, branches kept.
//!
//! llama.cpp keeps a tree: every message names its `parent` and lists its `children`, under a
//! `root` message, and `currNode` is the leaf on screen. Skiff keeps the path on screen as
//! `messages` and every other continuation as a [`Branch`] keyed by the message it follows
//! (`core::branches`). The two hold the same information:
//! - out: the path hangs from the root, each branch from the message it follows (the root for
//!   a branch with no `after`), and `currNode` is the last message on screen;
//! - in: the path from the root to `currNode` becomes `messages`; every other child of a
//!   message becomes a branch following that child's newest line, whose own other children
//!   become branches in turn.
//!
//! The file shape is what the web UI's `downloadConversationFile({ conv, messages })` writes
//! (types `DatabaseConversation`, `DatabaseMessage`; see tests/fixtures/llamacpp/README.md);
//! its JSONL export is one such object per line.

use serde::{Deserialize, Serialize};

use crate::records::branch::Branch;
use crate::records::conversation::Conversation;
use crate::records::message::{Message, Role};

#[derive(Serialize)]
struct File<'a> {
    conv: Conv<'a>,
    messages: Vec<Node<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Conv<'a> {
    id: &'a str,
    name: &'a str,
    last_modified: f64,
    curr_node: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Node<'a> {
    id: &'a str,
    conv_id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    timestamp: f64,
    role: &'static str,
    content: &'a str,
    parent: Option<&'a str>,
    thinking: &'a str,
    children: Vec<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    model: Option<&'a str>,
}

/// The conversation as one line of llama.cpp web UI's JSONL export (also the JSON file it
/// downloads for one conversation).
pub fn to_jsonl_line(c: &Conversation) -> String {
    let root_id = format!("{}-root", c.id);
    // (message, parent id) for every message, on screen first.
    let mut all: Vec<(&Message, &str)> = Vec::new();
    let mut parent = root_id.as_str();
    for m in &c.messages {
        all.push((m, parent));
        parent = &m.id;
    }
    for b in &c.branches {
        let mut parent = b.after.as_deref().unwrap_or(&root_id);
        for m in &b.messages {
            all.push((m, parent));
            parent = &m.id;
        }
    }
    // Children oldest first, the order llama.cpp shows versions in. A linear scan: a
    // conversation holds hundreds of messages, and a map would cost page bytes.
    let kids = |id: &str| -> Vec<&str> {
        let mut v: Vec<(f64, &str)> = all
            .iter()
            .filter(|(_, p)| *p == id)
            .map(|(m, _)| (m.created_ms, m.id.as_str()))
            .collect();
        crate::order::sort_by(&mut v, |a, b| {
            a.0.total_cmp(&b.0).then_with(|| a.1.cmp(b.1))
        });
        v.into_iter().map(|(_, id)| id).collect()
    };
    let mut messages = vec![Node {
        id: &root_id,
        conv_id: &c.id,
        kind: "root",
        timestamp: c.messages.first().map_or(c.created_ms, |m| m.created_ms),
        role: "system",
        content: "",
        parent: None,
        thinking: "",
        children: kids(&root_id),
        model: None,
    }];
    for (m, p) in &all {
        messages.push(Node {
            id: &m.id,
            conv_id: &c.id,
            kind: "text",
            timestamp: m.created_ms,
            role: m.role.as_str(),
            content: &m.content,
            parent: Some(p),
            thinking: &m.reasoning,
            children: kids(&m.id),
            model: m.model.as_deref(),
        });
    }
    let file = File {
        conv: Conv {
            id: &c.id,
            name: &c.title,
            last_modified: c.updated_ms,
            curr_node: c
                .messages
                .last()
                .map_or(root_id.as_str(), |m| m.id.as_str()),
        },
        messages,
    };
    // Serializing plain structs with string keys cannot fail.
    serde_json::to_string(&file).unwrap_or_default()
}

#[derive(Deserialize)]
pub(super) struct LlamaMessage {
    pub id: String,
    #[serde(default, rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub timestamp: f64,
    #[serde(default)]
    pub role: String,
    #[serde(default)]
    pub content: String,
    #[serde(default)]
    pub parent: Option<String>,
    #[serde(default)]
    pub thinking: String,
    #[serde(default)]
    pub model: Option<String>,
}

/// What a llama.cpp tree becomes: the messages on screen, the branches, and how many messages
/// had no place (tool turns of newer builds, a broken parent link).
pub(super) struct FromTree {
    pub messages: Vec<Message>,
    pub branches: Vec<Branch>,
    pub left_out: usize,
}

/// Why a tree cannot be read.
#[derive(Debug, PartialEq)]
pub(super) enum TreeError {
    Loop,
    UnsafeId,
}

/// Reads llama.cpp's tree: the path to `curr_node` (or the newest message) on screen, every
/// other child as a branch. `safe_id` says which ids Skiff can store.
pub(super) fn from_tree(
    all: &[LlamaMessage],
    curr_node: Option<&str>,
    safe_id: impl Fn(&str) -> bool,
) -> Result<FromTree, TreeError> {
    let by_id = |id: &str| all.iter().find(|m| m.id == id);
    let leaf = curr_node.and_then(by_id).or_else(|| {
        all.iter()
            .max_by(|a, b| a.timestamp.total_cmp(&b.timestamp))
    });
    // The path on screen, root first.
    let mut path: Vec<&LlamaMessage> = Vec::new();
    let mut at = leaf;
    while let Some(m) = at {
        if path.len() > all.len() || path.iter().any(|p| p.id == m.id) {
            return Err(TreeError::Loop);
        }
        path.push(m);
        at = m.parent.as_deref().and_then(by_id);
    }
    path.reverse();
    let children = Children(all);
    let mut out = FromTree {
        messages: Vec::new(),
        branches: Vec::new(),
        left_out: 0,
    };
    let mut placed = 0usize;
    // Where a branch hangs: the Skiff message it follows (`None` at the root).
    let mut after: Option<String> = None;
    for (i, m) in path.iter().enumerate() {
        let next = path.get(i + 1).map(|n| n.id.as_str());
        if let Some(msg) = to_message(m, &safe_id)? {
            out.messages.push(msg);
            placed += 1;
            after = Some(m.id.clone());
        }
        for child in children.of(&m.id) {
            if Some(child.id.as_str()) != next {
                placed += stash(
                    child,
                    after.clone(),
                    &children,
                    &safe_id,
                    &mut out.branches,
                    all.len(),
                )?;
            }
        }
    }
    let messages = all.iter().filter(|m| m.kind != "root").count();
    out.left_out = messages.saturating_sub(placed);
    Ok(out)
}

/// One branch starting at `first`: its newest line of children, each other child a nested
/// branch. Returns how many messages were placed.
fn stash(
    first: &LlamaMessage,
    after: Option<String>,
    children: &Children<'_>,
    safe_id: &impl Fn(&str) -> bool,
    branches: &mut Vec<Branch>,
    budget: usize,
) -> Result<usize, TreeError> {
    let mut line: Vec<&LlamaMessage> = vec![first];
    while let Some(newest) = line.last().and_then(|m| children.of(&m.id).pop()) {
        if line.len() > budget || line.iter().any(|m| m.id == newest.id) {
            return Err(TreeError::Loop);
        }
        line.push(newest);
    }
    let mut messages = Vec::new();
    let mut nested = Vec::new();
    let mut last = after.clone();
    for (i, m) in line.iter().enumerate() {
        let next = line.get(i + 1).map(|n| n.id.as_str());
        if let Some(msg) = to_message(m, safe_id)? {
            messages.push(msg);
            last = Some(m.id.clone());
        }
        for child in children.of(&m.id) {
            if Some(child.id.as_str()) != next {
                nested.push((child, last.clone()));
            }
        }
    }
    let mut placed = messages.len();
    if !messages.is_empty() {
        branches.push(Branch { after, messages });
    }
    for (child, after) in nested {
        placed += stash(child, after, children, safe_id, branches, budget)?;
    }
    Ok(placed)
}

/// Children of a message, oldest first (the order llama.cpp shows versions in). A linear
/// scan: a conversation holds hundreds of messages, and a map would cost page bytes.
struct Children<'a>(&'a [LlamaMessage]);

impl<'a> Children<'a> {
    fn of(&self, id: &str) -> Vec<&'a LlamaMessage> {
        let mut v: Vec<&LlamaMessage> = self
            .0
            .iter()
            .filter(|m| m.parent.as_deref() == Some(id))
            .collect();
        crate::order::sort_by(&mut v, |a, b| {
            a.timestamp
                .total_cmp(&b.timestamp)
                .then_with(|| a.id.cmp(&b.id))
        });
        v
    }
}

/// A llama.cpp message as Skiff's, or `None` for what has no place in a line of messages.
fn to_message(
    m: &LlamaMessage,
    safe_id: &impl Fn(&str) -> bool,
) -> Result<Option<Message>, TreeError> {
    let role = match (m.kind.as_str(), m.role.as_str()) {
        ("root", _) => return Ok(None),
        (_, "user") => Role::User,
        (_, "assistant") => Role::Assistant,
        (_, "system") => Role::System,
        // Tool turns of newer builds have no place in Skiff's line of messages.
        _ => return Ok(None),
    };
    if !safe_id(&m.id) {
        return Err(TreeError::UnsafeId);
    }
    let mut msg = Message::new(m.id.clone(), role, m.content.clone(), m.timestamp);
    msg.reasoning = m.thinking.clone();
    msg.model = m.model.clone().filter(|s| !s.is_empty());
    Ok(Some(msg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::import::read;
    use serde_json::json;

    fn m(id: &str, role: Role, t: f64) -> Message {
        let mut msg = Message::new(id.into(), role, format!("text {id}"), t);
        if role == Role::Assistant {
            msg.model = Some("qwen".into());
        }
        msg
    }

    /// u1 a1 u2 a2 on screen; a1x an older answer to u1 with its own follow-up u3x and answer
    /// a3x, a3y an older answer to u3x; u0 an alternative first question.
    fn branched() -> Conversation {
        let mut c = Conversation::new("conv-1".into(), 1.0);
        c.title = "Tides".into();
        c.updated_ms = 99.0;
        c.messages = vec![
            m("u1", Role::User, 1.0),
            m("a1", Role::Assistant, 5.0),
            m("u2", Role::User, 6.0),
            m("a2", Role::Assistant, 7.0),
        ];
        c.branches = vec![
            Branch {
                after: Some("u1".into()),
                messages: vec![
                    m("a1x", Role::Assistant, 2.0),
                    m("u3x", Role::User, 3.0),
                    m("a3x", Role::Assistant, 4.0),
                ],
            },
            Branch {
                after: Some("u3x".into()),
                messages: vec![m("a3y", Role::Assistant, 3.5)],
            },
            Branch {
                after: None,
                messages: vec![m("u0", Role::User, 0.5)],
            },
        ];
        c
    }

    #[test]
    fn out_the_tree_hangs_every_branch_from_the_message_it_follows() {
        let v: serde_json::Value = serde_json::from_str(&to_jsonl_line(&branched())).expect("JSON");
        assert_eq!(v["conv"]["currNode"], "a2");
        assert_eq!(v["conv"]["name"], "Tides");
        let msgs = v["messages"].as_array().cloned().unwrap_or_default();
        let get = |id: &str| {
            msgs.iter()
                .find(|x| x["id"] == id)
                .cloned()
                .unwrap_or_default()
        };
        assert_eq!(get("conv-1-root")["type"], "root");
        assert_eq!(get("conv-1-root")["children"], json!(["u0", "u1"]));
        assert_eq!(get("u1")["parent"], "conv-1-root");
        assert_eq!(get("u1")["children"], json!(["a1x", "a1"]));
        assert_eq!(get("a1x")["children"], json!(["u3x"]));
        assert_eq!(get("u3x")["children"], json!(["a3y", "a3x"]));
        assert_eq!(get("a2")["parent"], "u2");
        assert_eq!(get("a2")["model"], "qwen");
        assert_eq!(get("u1")["type"], "text");
        assert_eq!(msgs.len(), 1 + 4 + 5);
        // Every child names its parent, every parent lists its child.
        for x in &msgs {
            if let Some(p) = x["parent"].as_str() {
                assert!(
                    get(p)["children"].as_array().unwrap().contains(&x["id"]),
                    "{x}"
                );
            }
        }
    }

    #[test]
    fn a_round_trip_through_llamacpp_keeps_the_screen_and_every_branch() {
        let original = branched();
        let line = to_jsonl_line(&original);
        let report = read(&line, |_| false).expect("reads its own export");
        assert_eq!(report.left_out_messages, 0);
        let back = &report.added[0];
        let ids = |ms: &[Message]| ms.iter().map(|m| m.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&back.messages), ids(&original.messages));
        assert_eq!(back.messages[3].model.as_deref(), Some("qwen"));
        // The same branches, whatever their order.
        let mut want: Vec<(Option<String>, Vec<String>)> = original
            .branches
            .iter()
            .map(|b| (b.after.clone(), ids(&b.messages)))
            .collect();
        let mut got: Vec<(Option<String>, Vec<String>)> = back
            .branches
            .iter()
            .map(|b| (b.after.clone(), ids(&b.messages)))
            .collect();
        crate::order::sort(&mut want);
        crate::order::sort(&mut got);
        assert_eq!(got, want);
        // And the versions read the same: ‹ 2/2 › on a1, ‹ 2/2 › on the first question.
        assert_eq!(
            crate::branches::siblings(&back.messages, &back.branches, 1),
            Some((2, 2))
        );
        assert_eq!(
            crate::branches::siblings(&back.messages, &back.branches, 0),
            Some((2, 2))
        );
        // Switching to the older answer brings its follow-up and the nested versions back.
        let (mut ms, mut bs) = (back.messages.clone(), back.branches.clone());
        assert!(crate::branches::switch(&mut ms, &mut bs, 1, 1));
        assert_eq!(ids(&ms), ["u1", "a1x", "u3x", "a3x"]);
        assert_eq!(crate::branches::siblings(&ms, &bs, 3), Some((2, 2)));
    }

    #[test]
    fn a_tree_with_tool_turns_and_orphans_says_what_it_left_out() {
        let line = json!({
            "conv": {"id": "c2", "name": "", "lastModified": 10.0, "currNode": "a1"},
            "messages": [
                {"id": "r", "type": "root", "role": "system", "content": "", "parent": null},
                {"id": "u1", "type": "text", "role": "user", "content": "hi", "parent": "r", "timestamp": 1.0},
                {"id": "t1", "type": "text", "role": "tool", "content": "{}", "parent": "u1", "timestamp": 2.0},
                {"id": "a1", "type": "text", "role": "assistant", "content": "hello", "parent": "t1", "timestamp": 3.0},
                {"id": "lost", "type": "text", "role": "user", "content": "?", "parent": "gone", "timestamp": 4.0}
            ]
        })
        .to_string();
        let report = read(&line, |_| false).expect("reads");
        let c = &report.added[0];
        assert_eq!(
            c.messages
                .iter()
                .map(|m| m.content.as_str())
                .collect::<Vec<_>>(),
            ["hi", "hello"]
        );
        assert!(c.branches.is_empty());
        assert_eq!(report.left_out_messages, 2, "the tool turn and the orphan");
        assert!(
            report.summary().contains("left out 2 messages"),
            "{}",
            report.summary()
        );
        // A loop is refused with a sentence, not followed forever.
        let looped = json!({
            "conv": {"id": "c3", "currNode": "x"},
            "messages": [
                {"id": "x", "type": "text", "role": "user", "content": "a", "parent": "y"},
                {"id": "y", "type": "text", "role": "assistant", "content": "b", "parent": "x"}
            ]
        })
        .to_string();
        let r = read(&looped, |_| false).expect("a report");
        assert!(r.added.is_empty());
        assert!(r.invalid[0].contains("loop"), "{:?}", r.invalid);
    }
}
