//! One turn of the agent loop, performed: the machine (`skiff_core::agent::AgentRun`) decides,
//! this task does. Each step streams a model request into its own assistant message; the
//! calls it asks for run on their MCP servers concurrently (after approval), and their results
//! go back in the next request, until the model answers in text, the step limit is reached,
//! something fails, or the user presses Stop.
//!
//! Approvals, tool results, progress and Stop all arrive on one channel ([`TurnMsg`]), so the
//! machine is only ever touched from this task, in the order things happened. This file must
//! not decide anything about the turn (which calls run, what a remembered answer applies to,
//! when auto mode falls back or what it learns, how the turn ended): it only performs the
//! machine's actions and persists what the machine hands it.

use std::cell::RefCell;
use std::collections::VecDeque;

use skiff_core::small_map::SmallMap;
use std::rc::Rc;

use futures::channel::mpsc;
use futures::{FutureExt, StreamExt};
use leptos::prelude::*;
use leptos::task::spawn_local;
use skiff_core::agent::{Action, AgentRun};
use skiff_core::mcp::tool_index;
use skiff_core::mcp::McpError;
use skiff_core::pipeline::request::{self, Offer};
use skiff_core::provider::{ProviderError, StepContext};
use skiff_core::records::message::{Message, MessageStatus, Role};
use skiff_core::records::task::TaskRef;
use skiff_core::records::tool_mode::ToolMode;
use skiff_core::settings::{ChatSettings, TurnSettings};

use super::mcp::{CallKey, McpRunner};
use super::step::{stream_step, End};
use crate::platform::abort::AbortHandle;
use crate::platform::{clock, ids};
use crate::stores::conversations::{ConversationsStore, Loaded};
use crate::stores::live_message::LiveMessage;
use crate::stores::sent_requests::SentRequests;
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
    /// The MCP task a call runs as was created or changed status.
    Task {
        call_id: String,
        task: TaskRef,
    },
    /// A call's raw `CallToolResult`, or the typed reason there is none (which keeps whether
    /// the tool may have run; the machine words it for the user and the model).
    ToolDone {
        call_id: String,
        outcome: Result<serde_json::Value, McpError>,
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
    /// Where each step's exact request body goes, for "View request".
    pub sent: SentRequests,
}

/// Run one turn starting with the (empty, streaming) assistant message `first`.
///
/// One flat loop: perform the machine's actions in order, then wait for the next thing that
/// happens (an approval, a tool's progress or result, Stop) and hand it to the machine. A
/// step's request is one action, awaited in place: while it streams, its events go to the
/// machine through `stream_step`, and what else arrives waits in the channel.
///
/// `extends`: `first` already holds the start of the answer (Continue on a stopped or cut-off
/// answer). Its words end the first request, as the model's own, and what the model writes
/// goes on in the same message.
pub async fn run_turn(
    deps: TurnDeps,
    conv: Loaded,
    first: LiveMessage,
    turn: TurnSettings,
    handle: TurnHandle,
    mut rx: mpsc::UnboundedReceiver<TurnMsg>,
    extends: bool,
) {
    let extended = extends.then(|| first.id());
    let TurnDeps { store, mcp, .. } = deps;
    // A message sent as the page opens must not go without the built-in tools, which attach
    // once the browser is idle.
    crate::runner::builtin::ready(mcp).await;
    let overrides = conv.tool_overrides.get_untracked();
    let mcp_store = mcp.store();
    let specs = mcp_store.tool_index().with_untracked(|index| {
        tool_index::enabled_specs(index, &overrides, |id| {
            mcp_store.server_name(id).unwrap_or_else(|| id.to_string())
        })
    });
    let mut run = AgentRun::for_turn(&turn.settings, specs.clone());
    if overrides.discovery {
        run = run.with_discovery(specs, &history_before(&conv, &first.id()));
    }
    let run = RefCell::new(run);
    let mut live = first;
    store.set_live(&live.id(), true);
    // Calls in flight: call id → (server, key), so Stop can cancel them.
    let mut running: SmallMap<String, (String, CallKey)> = SmallMap::new();
    let mut pending: VecDeque<Action> = run.borrow_mut().begin_step().into();

    loop {
        while let Some(action) = pending.pop_front() {
            match action {
                Action::AskApproval { .. } => {} // the card shows it from the record
                Action::StartTool {
                    call_id,
                    server_id,
                    tool_name,
                    arguments,
                } => {
                    let key = start_tool(mcp, &handle, &call_id, &server_id, &tool_name, arguments);
                    running.insert(call_id, (server_id, key));
                }
                Action::CancelTool { call_id } => {
                    if let Some((server, key)) = running.remove(&call_id) {
                        mcp.cancel_tool(&server, key, Some("the user pressed Stop"));
                    }
                }
                Action::RememberRule {
                    server_id,
                    tool_name,
                    rule,
                } => deps
                    .settings
                    .settings
                    .update(|s| s.approvals.set_rule(&server_id, &tool_name, rule)),
                Action::LearnToolMode { model_key, mode } => deps
                    .settings
                    .settings
                    .maybe_update(|s| s.learn_tool_mode(model_key, mode)),
                Action::SendStep => {
                    let prefill = extended.as_deref() == Some(live.id().as_str());
                    let outcome = send_step(deps, &conv, live, &turn, &handle, &run, prefill).await;
                    let now = clock::now_ms();
                    let mut r = run.borrow_mut();
                    pending.extend(match outcome {
                        Ok(()) => r.end_step(&live.content.get_untracked(), now),
                        Err(End::Refused {
                            rejects_tools,
                            error,
                        }) => r.step_refused(rejects_tools, error.to_string()),
                        Err(end) => match end.into_error() {
                            None => r.stop(now),
                            Some(e) => r.step_failed(e.to_string()),
                        },
                    });
                    drop(r);
                    mirror(&run, live);
                    store.save(&conv);
                }
                Action::NextStep => {
                    // The next step gets its own message, after this one.
                    mirror(&run, live);
                    finish_message(&store, &conv, live, MessageStatus::Done);
                    // Deleted meanwhile (here or in another tab): nowhere to answer.
                    let Some(next) = new_reply(&store, &conv, &turn.settings) else {
                        return;
                    };
                    live = next;
                    store.set_live(&live.id(), true);
                    pending.extend(run.borrow_mut().begin_step());
                }
                Action::Finish(end) => {
                    mirror(&run, live);
                    if let Some(reason) = end.finish_reason() {
                        live.finish_reason.set(Some(reason));
                    }
                    finish_message(&store, &conv, live, end.message_status());
                    return;
                }
            }
        }
        mirror(&run, live);
        store.save_throttled(&conv);

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
        let now = clock::now_ms();
        let mut r = run.borrow_mut();
        pending.extend(match msg {
            // Nobody can reach this turn any more: as if stopped.
            None => r.stop(now),
            // Approvals are broadcast to every turn; this one answers only for its message.
            Some(TurnMsg::Approve {
                message_id,
                call_id,
                remember,
            }) if message_id == live.id() => r.answer(&call_id, true, remember, now),
            Some(TurnMsg::Deny {
                message_id,
                call_id,
                remember,
            }) if message_id == live.id() => r.answer(&call_id, false, remember, now),
            Some(TurnMsg::Approve { .. } | TurnMsg::Deny { .. }) => Vec::new(),
            Some(TurnMsg::Progress {
                call_id,
                progress,
                total,
                message,
            }) => {
                r.tool_progress(&call_id, progress, total, message);
                Vec::new()
            }
            Some(TurnMsg::Task { call_id, task }) => {
                r.tool_task(&call_id, task);
                Vec::new()
            }
            Some(TurnMsg::ToolDone { call_id, outcome }) => {
                running.remove(&call_id);
                r.tool_finished(&call_id, outcome, now)
            }
            Some(TurnMsg::Stop) => r.stop(now),
        });
    }
}

/// Build the current step's request and stream its answer into `live`. `prefill`: `live`'s
/// words so far end the request (the model carries on from them).
async fn send_step(
    deps: TurnDeps,
    conv: &Loaded,
    live: LiveMessage,
    turn: &TurnSettings,
    handle: &TurnHandle,
    run: &RefCell<AgentRun>,
    prefill: bool,
) -> Result<(), End> {
    let settings = &turn.settings;
    let provider = settings.provider().map_err(End::Failed)?;
    let mut history = history_before(conv, &live.id());
    if prefill {
        let mut start = live.snapshot();
        // As it stood before this request: an answer, not one being written.
        start.status = MessageStatus::Done;
        history.push(start);
    }
    super::attach::fill(deps.store, &mut history).await;
    // Files attached while the conversation used another model, which this one cannot take.
    skiff_core::attach::withhold(&settings.target, &mut history);
    let (cleared_after, memory) = conv
        .meta
        .with_untracked(|m| (m.cleared_after.clone(), m.memory.clone()));
    let place = clock::user_place();
    // The request, built by the provider's codec from what the pipeline assembled: the
    // system template, the input template, and the recent messages the budget allows.
    let req = {
        let r = run.borrow();
        let assembled = request::assemble(
            &history,
            cleared_after.as_deref(),
            memory.as_ref(),
            turn,
            &Offer {
                tools: r.tools(),
                mode: r.mode(),
                servers: &deps.mcp.store().instructions(),
            },
            &place.at(clock::now_ms()),
        );
        let ctx = StepContext {
            system_template: &assembled.system_template,
            system_prompt: &assembled.system_prompt,
            recap: &assembled.recap,
            history: &assembled.messages,
            tools: r.tools(),
            mode: r.mode(),
            result_char_limit: settings.result_char_limit.max(1),
            vision: settings.images_to_model(),
        };
        // What a provider had to leave out of the tools' schemas (Gemini) goes to the log.
        if r.mode() == ToolMode::Native {
            for note in provider.schema_notes(r.tools()) {
                leptos::logging::log!("{note}");
            }
        }
        provider.step_request(&ctx)
    };
    deps.sent
        .record(&live.id(), &req.url, req.body.as_deref().unwrap_or(""));
    let abort =
        AbortHandle::new().map_err(|e| End::Failed(ProviderError::Network(e.to_string())))?;
    *handle.abort.borrow_mut() = Some(abort.clone());
    // The stream, decoded into `live` and (tool-call fragments) into the machine.
    let outcome = stream_step(&deps.store, conv, live, &provider, &req, &abort, run).await;
    *handle.abort.borrow_mut() = None;
    outcome
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
    let progress = {
        let tx = handle.tx.clone();
        let call_id = call_id.to_string();
        move || {
            let tx = tx.clone();
            let call_id = call_id.clone();
            move |p, total, message| {
                let _ = tx.unbounded_send(TurnMsg::Progress {
                    call_id: call_id.clone(),
                    progress: p,
                    total,
                    message,
                });
            }
        }
    };
    let on_task = {
        let tx = handle.tx.clone();
        let call_id = call_id.to_string();
        move || {
            let tx = tx.clone();
            let call_id = call_id.clone();
            move |task| {
                let _ = tx.unbounded_send(TurnMsg::Task {
                    call_id: call_id.clone(),
                    task,
                });
            }
        }
    };
    let again = arguments.clone();
    let call = mcp.start_tool_call(server_id, tool_name, arguments, progress(), on_task());
    let key = call.key();
    let done_tx = handle.tx.clone();
    let call_id = call_id.to_string();
    let (server_id, tool_name) = (server_id.to_string(), tool_name.to_string());
    spawn_local(async move {
        let mut outcome = call.result().await;
        // Refused until the user finishes steps in the browser (`-32042`): the server did not
        // run it, so once the user finished them it is made again, once. Declined, or the
        // turn ended meanwhile (Stop): the refusal stands.
        let steps = outcome
            .as_ref()
            .err()
            .and_then(skiff_core::mcp::elicit::url_steps_required)
            .cloned();
        if let Some(data) = steps {
            let done = mcp.store().inbox.required(&server_id, data).await;
            if done && !done_tx.is_closed() {
                outcome = mcp
                    .start_tool_call(&server_id, &tool_name, again, progress(), on_task())
                    .result()
                    .await;
            }
        }
        let _ = done_tx.unbounded_send(TurnMsg::ToolDone { call_id, outcome });
    });
    key
}

/// Copy the machine's records (and the mode they travelled in) into the message, only when
/// they changed.
fn mirror(run: &RefCell<AgentRun>, live: LiveMessage) {
    let r = run.borrow();
    if live
        .tool_calls
        .with_untracked(|c| c.as_slice() != r.calls())
    {
        live.tool_calls.set(r.calls().to_vec());
    }
    if let Some(mode) = r.calls_mode() {
        if live.tool_mode.get_untracked() != Some(mode) {
            live.tool_mode.set(Some(mode));
        }
    }
}

/// An empty assistant message at the end of the conversation, streaming, saved (the store
/// owns its signals). `None` when the conversation was deleted meanwhile.
pub fn new_reply(
    store: &ConversationsStore,
    conv: &Loaded,
    settings: &ChatSettings,
) -> Option<LiveMessage> {
    let mut reply = Message::new(
        ids::new_id(),
        Role::Assistant,
        String::new(),
        clock::now_ms(),
    );
    reply.status = MessageStatus::Streaming;
    reply.model = Some(settings.target.model.clone()).filter(|m| !m.is_empty());
    let live = store.push_message(conv, &reply)?;
    store.save(conv);
    Some(live)
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
