//! One turn of the agent loop, performed: the machine (`skiff_core::agent::AgentRun`) decides,
//! this task does. Each step streams a model request into its own assistant message; the
//! calls it asks for run on their MCP servers concurrently (after approval), and their results
//! go back in the next request, until the model answers in text, the step limit is reached,
//! something fails, or the user presses Stop.
//!
//! Approvals, tool results, progress and Stop all arrive on one channel ([`TurnMsg`]), so the
//! machine is only ever touched from this task, in the order things happened.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use futures::channel::mpsc;
use futures::{FutureExt, StreamExt};
use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::agent::approval::ApprovalRule;
use skiff_core::agent::{
    tools, Action, AgentConfig, AgentRun, ToolCallStatus, ToolMode, ToolModeSetting, TurnEnd,
};
use skiff_core::chat::{Message, MessageStatus, Role};
use skiff_core::provider::{Provider, ProviderError, StepContext};
use skiff_core::settings::ChatSettings;

use super::mcp::{CallKey, McpRunner};
use super::step::{stream_step, End};
use crate::platform::abort::AbortHandle;
use crate::platform::{clock, ids};
use crate::stores::conversations::{ConversationsStore, Loaded};
use crate::stores::live_message::LiveMessage;
use crate::stores::settings::SettingsStore;

/// How often a waiting turn re-saves its conversation: well inside
/// `conversations::STALE_STREAM_MS`.
const HEARTBEAT_MS: u32 = 5_000;

/// What reaches a running turn from the UI and from its tool calls.
pub enum TurnMsg {
    Approve {
        message_id: String,
        call_id: String,
        remember: bool,
    },
    Deny {
        message_id: String,
        call_id: String,
        remember: bool,
    },
    Progress {
        call_id: String,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    ToolDone {
        call_id: String,
        outcome: Result<serde_json::Value, String>,
    },
    Stop,
}

/// The handle the chat runner keeps for a turn in progress.
#[derive(Clone)]
pub struct TurnHandle {
    pub tx: mpsc::UnboundedSender<TurnMsg>,
    /// The model request in flight, if any (Stop aborts it).
    pub abort: Rc<RefCell<Option<AbortHandle>>>,
}

impl TurnHandle {
    pub fn stop(&self) {
        if let Some(a) = self.abort.borrow().as_ref() {
            a.abort();
        }
        let _ = self.tx.unbounded_send(TurnMsg::Stop);
    }
}

/// Everything a turn needs from the app.
#[derive(Clone, Copy)]
pub struct TurnDeps {
    pub store: ConversationsStore,
    pub settings: SettingsStore,
    pub mcp: McpRunner,
    /// The owner new messages' signals live under (see `ChatRunner`).
    pub owner: StoredValue<Option<Owner>, LocalStorage>,
}

/// Run one turn starting with the (empty, streaming) assistant message `first`.
pub async fn run_turn(
    deps: TurnDeps,
    conv: Loaded,
    first: LiveMessage,
    settings: ChatSettings,
    handle: TurnHandle,
    mut rx: mpsc::UnboundedReceiver<TurnMsg>,
) {
    let TurnDeps { store, mcp, .. } = deps;
    let overrides = conv.tool_overrides.get_untracked();
    let mcp_store = mcp.store();
    let specs = mcp_store.tool_index().with_untracked(|index| {
        tools::enabled_specs(index, &overrides, |id| {
            mcp_store.server_name(id).unwrap_or_else(|| id.to_string())
        })
    });
    let mut mode = settings.resolved_tool_mode();
    if specs.is_empty() {
        mode = ToolMode::Off;
    }
    let run = RefCell::new(AgentRun::new(
        AgentConfig {
            mode,
            step_limit: settings.step_limit.max(1),
            policy: settings.approvals.clone(),
        },
        specs,
    ));
    let mut live = first;
    store.set_live(&live.id(), true);
    // Calls in flight: call id → (server, key), so Stop can cancel them.
    let mut running: HashMap<String, (String, CallKey)> = HashMap::new();

    loop {
        run.borrow_mut().begin_step();
        let step = run_step(deps, &conv, live, &settings, &handle, &run).await;
        if let Err(end) = step {
            let status = match end.into_error() {
                None => MessageStatus::Stopped,
                Some(e) => MessageStatus::Error(e.to_string()),
            };
            finish_message(&store, &conv, live, status);
            return;
        }
        let content = live.content.get_untracked();
        let actions = run.borrow_mut().end_step(&content, clock::now_ms());
        let mode_used = run.borrow().mode();
        if !run.borrow().calls().is_empty() {
            live.tool_mode.set(Some(mode_used));
        }
        mirror(&run, live);
        store.save(&conv);

        let mut pending = actions;
        let next = loop {
            let mut decided = None;
            for action in std::mem::take(&mut pending) {
                match action {
                    Action::AskApproval { .. } => {} // the card shows it from the record
                    Action::StartTool {
                        call_id,
                        server_id,
                        tool_name,
                        arguments,
                    } => {
                        let key =
                            start_tool(mcp, &handle, &call_id, &server_id, &tool_name, arguments);
                        running.insert(call_id, (server_id, key));
                    }
                    Action::CancelTool { call_id } => {
                        if let Some((server, key)) = running.remove(&call_id) {
                            mcp.cancel_tool(&server, key, Some("the user pressed Stop"));
                        }
                    }
                    Action::NextStep => decided = Some(None),
                    Action::Finish(end) => decided = Some(Some(end)),
                }
            }
            mirror(&run, live);
            store.save_throttled(&conv);
            if let Some(d) = decided {
                break d;
            }
            let msg = loop {
                // A turn waiting on the user or a slow tool writes nothing; without a heartbeat
                // another tab opening this conversation would take it for a closed page's
                // (`STALE_STREAM_MS`) and mark it interrupted.
                let heartbeat = clock::sleep_ms(HEARTBEAT_MS).fuse();
                let next = rx.next().fuse();
                futures::pin_mut!(heartbeat, next);
                futures::select! {
                    msg = next => break msg,
                    _ = heartbeat => store.save(&conv),
                }
            };
            let Some(msg) = msg else {
                break Some(TurnEnd::Stopped);
            };
            let now = clock::now_ms();
            let live_id = live.id();
            pending = match msg {
                TurnMsg::Approve {
                    message_id,
                    call_id,
                    remember,
                } if message_id == live_id => decide(
                    deps.settings,
                    &run,
                    &call_id,
                    remember,
                    ApprovalRule::Always,
                    now,
                ),
                TurnMsg::Deny {
                    message_id,
                    call_id,
                    remember,
                } if message_id == live_id => decide(
                    deps.settings,
                    &run,
                    &call_id,
                    remember,
                    ApprovalRule::Never,
                    now,
                ),
                TurnMsg::Approve { .. } | TurnMsg::Deny { .. } => Vec::new(),
                TurnMsg::Progress {
                    call_id,
                    progress,
                    total,
                    message,
                } => {
                    run.borrow_mut()
                        .tool_progress(&call_id, progress, total, message);
                    Vec::new()
                }
                TurnMsg::ToolDone { call_id, outcome } => {
                    running.remove(&call_id);
                    run.borrow_mut().tool_finished(&call_id, outcome, now)
                }
                TurnMsg::Stop => run.borrow_mut().stop(now),
            };
        };

        match next {
            None => {
                // The next step gets its own message, after this one.
                finish_message(&store, &conv, live, MessageStatus::Done);
                live = new_reply(&store, &conv, &settings, deps.owner);
                store.set_live(&live.id(), true);
            }
            Some(TurnEnd::Answered) => {
                finish_message(&store, &conv, live, MessageStatus::Done);
                return;
            }
            Some(TurnEnd::StepLimit) => {
                live.finish_reason.set(Some("step_limit".to_string()));
                finish_message(&store, &conv, live, MessageStatus::Done);
                return;
            }
            Some(TurnEnd::Stopped) => {
                mirror(&run, live);
                finish_message(&store, &conv, live, MessageStatus::Stopped);
                return;
            }
        }
    }
}

/// Stream one model request into `live`. In auto mode, a server that refuses `tools` gets the
/// same step again, prompt-based, and the model is remembered as needing that.
async fn run_step(
    deps: TurnDeps,
    conv: &Loaded,
    live: LiveMessage,
    settings: &ChatSettings,
    handle: &TurnHandle,
    run: &RefCell<AgentRun>,
) -> Result<(), End> {
    let provider = Provider::from_settings(settings).map_err(End::Failed)?;
    let history = history_before(conv, &live.id());
    let mut fell_back = false;
    loop {
        let req = {
            let r = run.borrow();
            let ctx = StepContext {
                system_prompt: &settings.system_prompt,
                history: &history,
                tools: r.tools(),
                mode: r.mode(),
                result_char_limit: settings.result_char_limit.max(1),
                vision: settings.tool_images_to_model,
            };
            provider.step_request(&ctx)
        };
        let abort =
            AbortHandle::new().map_err(|e| End::Failed(ProviderError::Network(e.to_string())))?;
        *handle.abort.borrow_mut() = Some(abort.clone());
        let outcome = stream_step(&deps.store, conv, live, &provider, &req, &abort, run).await;
        *handle.abort.borrow_mut() = None;
        let mode = run.borrow().mode();
        let auto = settings.tool_mode == ToolModeSetting::Auto;
        match outcome {
            Err(End::Refused { status, body, .. })
                if auto
                    && !fell_back
                    && mode == ToolMode::Native
                    && provider.rejects_tools(status, &body) =>
            {
                fell_back = true;
                run.borrow_mut().set_mode(ToolMode::Prompt);
                learn_mode(deps.settings, settings, ToolMode::Prompt);
            }
            Ok(()) => {
                if auto && mode == ToolMode::Native && !run.borrow().tools().is_empty() {
                    learn_mode(deps.settings, settings, ToolMode::Native);
                }
                return Ok(());
            }
            Err(e) => return Err(e),
        }
    }
}

fn learn_mode(store: SettingsStore, used: &ChatSettings, mode: ToolMode) {
    let key = used.model_key();
    let known = store
        .settings
        .with_untracked(|s| s.learned_tool_modes.get(&key).copied());
    if known != Some(mode) {
        store.settings.update(|s| {
            s.learned_tool_modes.insert(key, mode);
        });
    }
}

/// The conversation before `reply_id`, as plain records.
fn history_before(conv: &Loaded, reply_id: &str) -> Vec<Message> {
    conv.messages.with_untracked(|ms| {
        ms.iter()
            .take_while(|m| m.id.with_value(|id| id != reply_id))
            .map(LiveMessage::snapshot)
            .collect()
    })
}

fn start_tool(
    mcp: McpRunner,
    handle: &TurnHandle,
    call_id: &str,
    server_id: &str,
    tool_name: &str,
    arguments: serde_json::Map<String, serde_json::Value>,
) -> CallKey {
    let progress_tx = handle.tx.clone();
    let progress_id = call_id.to_string();
    let call = mcp.start_tool_call(server_id, tool_name, arguments, move |p, total, message| {
        let _ = progress_tx.unbounded_send(TurnMsg::Progress {
            call_id: progress_id.clone(),
            progress: p,
            total,
            message,
        });
    });
    let key = call.key();
    let done_tx = handle.tx.clone();
    let call_id = call_id.to_string();
    spawn_local(async move {
        let outcome = call.result().await.map_err(|e| e.to_string());
        let _ = done_tx.unbounded_send(TurnMsg::ToolDone { call_id, outcome });
    });
    key
}

/// The user's answer on an approval card: `Always` allows, `Never` refuses; `remember` stores
/// the rule and applies it to the same tool waiting elsewhere in this step.
fn decide(
    settings: SettingsStore,
    run: &RefCell<AgentRun>,
    call_id: &str,
    remember: bool,
    rule: ApprovalRule,
    now: f64,
) -> Vec<Action> {
    let mut r = run.borrow_mut();
    let mut ids = vec![call_id.to_string()];
    if remember {
        remember_rule(settings, &mut r, call_id, rule);
        ids.extend(same_tool_waiting(&r, call_id));
    }
    let mut out = Vec::new();
    for id in ids {
        out.extend(if rule == ApprovalRule::Never {
            r.deny(&id, now)
        } else {
            r.approve(&id, now)
        });
    }
    out
}

fn same_tool_waiting(run: &AgentRun, call_id: &str) -> Vec<String> {
    let Some(this) = run.calls().iter().find(|c| c.id == call_id) else {
        return Vec::new();
    };
    run.calls()
        .iter()
        .filter(|c| {
            c.id != call_id
                && c.status == ToolCallStatus::AwaitingApproval
                && c.server_id == this.server_id
                && c.tool_name == this.tool_name
        })
        .map(|c| c.id.clone())
        .collect()
}

fn remember_rule(settings: SettingsStore, run: &mut AgentRun, call_id: &str, rule: ApprovalRule) {
    let Some(call) = run.calls().iter().find(|c| c.id == call_id) else {
        return;
    };
    let Some(server) = call.server_id.clone() else {
        return;
    };
    let tool = call.tool_name.clone();
    settings
        .settings
        .update(|s| s.approvals.set_rule(&server, &tool, rule));
    let policy = settings.settings.with_untracked(|s| s.approvals.clone());
    run.set_policy(policy);
}

/// Copy the machine's records into the message, only when they changed.
fn mirror(run: &RefCell<AgentRun>, live: LiveMessage) {
    let r = run.borrow();
    if live
        .tool_calls
        .with_untracked(|c| c.as_slice() != r.calls())
    {
        live.tool_calls.set(r.calls().to_vec());
    }
}

/// An empty assistant message at the end of the conversation, streaming, saved. Its signals
/// live under `owner` (see `ChatRunner`), not under whatever view triggered it.
pub fn new_reply(
    store: &ConversationsStore,
    conv: &Loaded,
    settings: &ChatSettings,
    owner: StoredValue<Option<Owner>, LocalStorage>,
) -> LiveMessage {
    let mut reply = Message::new(
        ids::new_id(),
        Role::Assistant,
        String::new(),
        clock::now_ms(),
    );
    reply.status = MessageStatus::Streaming;
    reply.model = Some(settings.model.clone()).filter(|m| !m.is_empty());
    let push = || store.push_message(conv, &reply);
    let live = match owner.with_value(|o| o.clone()) {
        Some(owner) => owner.with(push),
        None => push(),
    };
    store.save(conv);
    live
}

fn finish_message(
    store: &ConversationsStore,
    conv: &Loaded,
    live: LiveMessage,
    status: MessageStatus,
) {
    // The page is unloading (see `on_page_hide`): "interrupted" was saved and must stay.
    if live.status.get_untracked() != MessageStatus::Interrupted {
        live.status.set(status);
    }
    store.set_live(&live.id(), false);
    store.save(conv);
}
