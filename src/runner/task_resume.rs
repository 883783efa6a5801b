//! Tool calls that a reloaded page finds still running as MCP tasks, followed again on their
//! servers (`tasks/get` … `tasks/result`, never the tool) until their results land on their
//! cards. Which calls, and how an outcome settles a call, are `core::agent::resume`'s
//! decisions; this loop only waits for the server, performs the follow and stores the record.

use std::collections::HashSet;

use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::agent::resume::{self, TaskToFollow};
use skiff_core::mcp::McpError;
use skiff_core::records::message::Message;

use super::mcp::McpRunner;
use crate::platform::clock;
use crate::stores::conversations::{ConversationsStore, Loaded};
use crate::stores::live_message::LiveMessage;
use crate::stores::reactive::effect;

/// How long a follower waits for its server to connect after a reload before asking anyway
/// (the answer then says why it could not follow).
const CONNECT_WAIT_MS: f64 = 20_000.0;

/// Follow the task-backed calls of each conversation the page opens.
pub fn start(convs: ConversationsStore, mcp: McpRunner) {
    let followed: StoredValue<HashSet<String>> = StoredValue::new(HashSet::new());
    effect(move || {
        let Some(conv) = convs.current.get() else {
            return;
        };
        let messages: Vec<Message> = conv
            .messages
            .with(|ms| ms.iter().map(LiveMessage::snapshot).collect());
        for task in resume::tasks_to_follow(&messages) {
            let new = followed
                .try_update_value(|f| f.insert(task.call_id.clone()))
                .unwrap_or(false);
            if new {
                spawn_local(follow(convs, mcp, conv, task));
            }
        }
    });
}

async fn follow(convs: ConversationsStore, mcp: McpRunner, conv: Loaded, t: TaskToFollow) {
    let store = mcp.store();
    let server = t.server_id.clone();
    let connected = move || {
        store
            .live
            .with_untracked(|l| l.iter().any(|(id, s)| *id == server && s.is_connected()))
    };
    let since = clock::now_ms();
    while !connected() && clock::now_ms() - since < CONNECT_WAIT_MS {
        clock::sleep_ms(250).await;
    }
    let (message_id, call_id) = (t.message_id.clone(), t.call_id.clone());
    let handle = mcp.follow_task(&t.server_id, t.task_id.clone(), move |task| {
        update_call(&conv, &message_id, &call_id, |c| {
            c.report_task(&task.id, task.status, task.message.clone())
        });
    });
    let outcome: Result<serde_json::Value, McpError> = handle.result().await;
    let now = clock::now_ms();
    if update_call(&conv, &t.message_id, &t.call_id, |c| {
        resume::settle(c, outcome, now)
    }) {
        convs.save(&conv);
    }
}

/// Change one stored call through `f`; returns whether it changed.
fn update_call(
    conv: &Loaded,
    message_id: &str,
    call_id: &str,
    f: impl FnOnce(&mut skiff_core::records::tool_call::ToolCallRecord) -> bool,
) -> bool {
    let Some(message) = conv.messages.try_with_untracked(|ms| {
        ms.iter()
            .find(|m| m.id.with_value(|id| id == message_id))
            .copied()
    }) else {
        return false;
    };
    let Some(message) = message else {
        return false;
    };
    let mut changed = false;
    message.tool_calls.update(|calls| {
        if let Some(c) = calls.iter_mut().find(|c| c.id == call_id) {
            changed = f(c);
        }
    });
    changed
}
