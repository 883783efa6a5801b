//! The decisions of the agent loop, as a sans-IO state machine.
//!
//! One `AgentRun` serves one user turn. The runner feeds it what happened, always with
//! `now_ms`: a step began (`begin_step`), the step's stream events (`on_event`), how the step's
//! request ended (`end_step`, `step_refused`, `step_failed`), the user's answer on an approval
//! card (`answer`), a call's progress and typed result (`tool_progress`, `tool_finished`), and
//! Stop (`stop`). Each answers with [`Action`]s the runner performs in order: ask the user,
//! start or cancel a call, persist what the turn learned (an approval rule, a tool mode), send
//! the step's request (again), go on to the next step in a new message, or finish.
//!
//! Rules it keeps:
//! - calls of one step start together (parallel) and their results stay in the order the model
//!   asked, whatever order they finish in;
//! - bad input from the model (invalid JSON arguments, an unknown tool) becomes an error result
//!   the model can read and correct, never a failure of the turn;
//! - the next request goes out only when every call of the step is final;
//! - the step limit counts model requests; when the last allowed step asked for tools, those
//!   calls still run (the user may have approved them) and the turn ends saying so;
//! - an answer remembered on a card ("always allow", "never allow") is a rule for its server
//!   and tool, so it also answers the other calls of that tool waiting in the same step;
//! - auto mode: a server that refuses `tools` gets the same step again, prompt-based, once, and
//!   that is learned; "native works" is learned only from a real native tool call, never from
//!   a server that merely accepted `tools` (many accept them and ignore them);
//! - after `stop`, nothing starts again: running calls are cancelled, waiting ones dropped.
//!
//! It never reads settings or storage: what it learns leaves as actions the runner persists.

use serde_json::{Map, Value};

use super::assemble::ToolCallAssembler;
use super::call_error;
use super::turn_end::TurnEnd;
use crate::mcp::McpError;
use crate::provider::StreamEvent;
use crate::records::approval::{ApprovalPolicy, ApprovalRule, Decision};
use crate::records::message::Message;
use crate::records::task::TaskRef;
use crate::records::tool_call::{ToolCallRecord, ToolCallStatus, ToolProgress};
use crate::records::tool_mode::{ToolMode, ToolModeSetting};
use crate::settings::ChatSettings;
pub use crate::settings::DEFAULT_STEP_LIMIT;
use crate::tools::spec::{find, ToolSpec};
use crate::tools::{discovery, prompt};

#[derive(Debug, Clone, PartialEq)]
pub struct AgentConfig {
    /// Resolved for this turn: `Native`, `Prompt`, or `Off` (a plain answer, one step).
    pub mode: ToolMode,
    /// At most this many model requests in one turn (at least 1).
    pub step_limit: u32,
    pub policy: ApprovalPolicy,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Show the approval card of this call.
    AskApproval {
        call_id: String,
    },
    /// Send `tools/call` now.
    StartTool {
        call_id: String,
        server_id: String,
        tool_name: String,
        arguments: Map<String, Value>,
    },
    /// Cancel a running call (`notifications/cancelled`).
    CancelTool {
        call_id: String,
    },
    /// Store this approval rule in the settings (the machine already follows it).
    RememberRule {
        server_id: String,
        tool_name: String,
        rule: ApprovalRule,
    },
    /// Store what auto mode found for this model (`ChatSettings::model_key`).
    LearnToolMode {
        model_key: String,
        mode: ToolMode,
    },
    /// Send the current step's request (the first time, or again in another tool mode).
    SendStep,
    /// Every call of the step is final: close this step's message as done, open a new one,
    /// and `begin_step`.
    NextStep,
    Finish(TurnEnd),
}

/// Auto tool mode, for a turn whose user chose it.
#[derive(Debug)]
struct Auto {
    model_key: String,
    /// What was stored for this model when the turn began.
    known: Option<ToolMode>,
    /// The current step was already retried prompt-based.
    fell_back: bool,
}

/// A call as the model wrote it, before it is checked.
struct RawCall {
    id: String,
    server_hint: Option<String>,
    name: String,
    arguments: String,
    parse_error: Option<String>,
}

#[derive(Debug)]
pub struct AgentRun {
    config: AgentConfig,
    auto: Option<Auto>,
    tools: Vec<ToolSpec>,
    steps: u32,
    assembler: ToolCallAssembler,
    calls: Vec<ToolCallRecord>,
    stopped: bool,
    /// Progressive discovery: every enabled tool, of which `tools` offers `find_tools` and
    /// the loaded ones (`tools::discovery`).
    discovery: Option<Vec<ToolSpec>>,
}

impl AgentRun {
    /// A turn with a fixed tool mode (no auto-mode learning).
    pub fn new(config: AgentConfig, tools: Vec<ToolSpec>) -> Self {
        let tools = if config.mode == ToolMode::Off {
            Vec::new()
        } else {
            tools
        };
        AgentRun {
            config,
            auto: None,
            tools,
            steps: 0,
            assembler: ToolCallAssembler::new(),
            calls: Vec::new(),
            stopped: false,
            discovery: None,
        }
    }

    /// Offer `all` through progressive discovery: `find_tools` and the tools `history`
    /// already loaded; the machine answers `find_tools` itself and offers what it loads from
    /// the next step on. A plain-answer turn (no tools) stays one.
    pub fn with_discovery(mut self, all: Vec<ToolSpec>, history: &[Message]) -> Self {
        if self.config.mode != ToolMode::Off && !all.is_empty() {
            self.tools = discovery::offered(&all, &discovery::loaded_in(history));
            self.discovery = Some(all);
        }
        self
    }

    /// The turn the user's settings ask for, offering `tools` (the conversation's enabled
    /// ones; none means a plain answer).
    pub fn for_turn(settings: &ChatSettings, tools: Vec<ToolSpec>) -> Self {
        let mode = if tools.is_empty() {
            ToolMode::Off
        } else {
            settings.resolved_tool_mode()
        };
        let config = AgentConfig {
            mode,
            step_limit: settings.step_limit.max(1),
            policy: settings.approvals.clone(),
        };
        let mut run = AgentRun::new(config, tools);
        if settings.tool_mode == ToolModeSetting::Auto && mode != ToolMode::Off {
            let model_key = settings.model_key();
            run.auto = Some(Auto {
                known: settings.learned_tool_modes.get(&model_key).copied(),
                model_key,
                fell_back: false,
            });
        }
        run
    }

    pub fn mode(&self) -> ToolMode {
        self.config.mode
    }

    pub fn tools(&self) -> &[ToolSpec] {
        &self.tools
    }

    /// Model requests begun in this turn.
    pub fn steps_taken(&self) -> u32 {
        self.steps
    }

    /// The calls of the current step, in the order the model asked.
    pub fn calls(&self) -> &[ToolCallRecord] {
        &self.calls
    }

    /// How the current step's calls travelled, once it made any: stored on its message, it
    /// decides how they are replayed to the model.
    pub fn calls_mode(&self) -> Option<ToolMode> {
        (!self.calls.is_empty()).then_some(self.config.mode)
    }

    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// A new model request is about to be built (the first of the turn, or after
    /// [`Action::NextStep`] opened its message).
    pub fn begin_step(&mut self) -> Vec<Action> {
        self.steps += 1;
        self.assembler = ToolCallAssembler::new();
        self.calls.clear();
        if let Some(auto) = &mut self.auto {
            auto.fell_back = false;
        }
        vec![Action::SendStep]
    }

    /// Feed every event of the step's stream (only tool-call fragments matter here).
    pub fn on_event(&mut self, event: &StreamEvent) {
        if let (StreamEvent::ToolCall(delta), ToolMode::Native) = (event, self.config.mode) {
            self.assembler.push(delta);
        }
    }

    /// The step's stream ended well; `content` is its whole visible text.
    pub fn end_step(&mut self, content: &str, now_ms: f64) -> Vec<Action> {
        if self.stopped {
            return vec![Action::Finish(TurnEnd::Stopped)];
        }
        let raw: Vec<RawCall> = match self.config.mode {
            ToolMode::Off => Vec::new(),
            ToolMode::Native => std::mem::take(&mut self.assembler)
                .finish()
                .into_iter()
                .map(|c| RawCall {
                    id: c.id,
                    server_hint: None,
                    name: c.name,
                    arguments: c.arguments,
                    parse_error: None,
                })
                .collect(),
            ToolMode::Prompt => prompt::parse_calls(content)
                .into_iter()
                .enumerate()
                .map(|(i, c)| RawCall {
                    id: format!("mcp-{}-{}", self.steps, i + 1),
                    server_hint: Some(c.server_id),
                    name: c.tool_name,
                    arguments: c.arguments,
                    parse_error: c.parse_error,
                })
                .collect(),
        };
        if raw.is_empty() {
            return vec![Action::Finish(TurnEnd::Answered)];
        }
        let mut actions = Vec::new();
        if self.config.mode == ToolMode::Native {
            actions.extend(self.learn(ToolMode::Native));
        }
        for call in raw {
            let id = self.unique_id(call.id.clone());
            if let Some(record) = self.find_tools(&id, &call, now_ms) {
                self.calls.push(record);
                continue;
            }
            self.load_if_listed(&call.name);
            let (record, action) = self.plan_call(id, call, now_ms);
            self.calls.push(record);
            actions.extend(action);
        }
        actions.extend(self.next_if_settled());
        actions
    }

    /// The server refused the step's request before streaming; `rejects_tools` is the
    /// provider's reading of the refusal ("this server takes no tools", see
    /// `Provider::rejects_tools`) and `sentence` the provider error for the user. In auto
    /// mode, a refusal of `tools` sends the same step again prompt-based, and that is learned.
    pub fn step_refused(&mut self, rejects_tools: bool, sentence: String) -> Vec<Action> {
        let native = self.config.mode == ToolMode::Native;
        let may_fall_back = !self.stopped
            && native
            && self.auto.as_ref().is_some_and(|a| !a.fell_back)
            && rejects_tools;
        if !may_fall_back {
            return self.step_failed(sentence);
        }
        if let Some(auto) = &mut self.auto {
            auto.fell_back = true;
        }
        self.config.mode = ToolMode::Prompt;
        let mut actions = self.learn(ToolMode::Prompt);
        actions.push(Action::SendStep);
        actions
    }

    /// The step's request or stream failed (not by Stop); `sentence` says why, for the user.
    pub fn step_failed(&mut self, sentence: String) -> Vec<Action> {
        if self.stopped {
            return vec![Action::Finish(TurnEnd::Stopped)];
        }
        vec![Action::Finish(TurnEnd::Failed(sentence))]
    }

    /// What auto mode observed, once per turn and only when it is news.
    fn learn(&mut self, mode: ToolMode) -> Vec<Action> {
        let Some(auto) = &mut self.auto else {
            return Vec::new();
        };
        if auto.known == Some(mode) {
            return Vec::new();
        }
        auto.known = Some(mode);
        vec![Action::LearnToolMode {
            model_key: auto.model_key.clone(),
            mode,
        }]
    }

    /// The user's answer on an approval card. With `remember`, it becomes the rule for the
    /// call's server and tool: stored, followed from now on, and applied to the other calls of
    /// that tool waiting in this step.
    pub fn answer(
        &mut self,
        call_id: &str,
        allow: bool,
        remember: bool,
        now_ms: f64,
    ) -> Vec<Action> {
        let Some(call) = self.waiting_mut(call_id) else {
            return Vec::new();
        };
        let mut ids = vec![call.id.clone()];
        let mut actions = Vec::new();
        if let (true, Some(server_id)) = (remember, call.server_id.clone()) {
            let tool_name = call.tool_name.clone();
            let rule = if allow {
                ApprovalRule::Always
            } else {
                ApprovalRule::Never
            };
            self.config.policy.set_rule(&server_id, &tool_name, rule);
            ids.extend(
                self.calls
                    .iter()
                    .filter(|c| {
                        c.id != call_id
                            && *c.status() == ToolCallStatus::AwaitingApproval
                            && c.server_id.as_deref() == Some(server_id.as_str())
                            && c.tool_name == tool_name
                    })
                    .map(|c| c.id.clone()),
            );
            actions.push(Action::RememberRule {
                server_id,
                tool_name,
                rule,
            });
        }
        for id in ids {
            actions.extend(if allow {
                self.approve(&id, now_ms)
            } else {
                self.deny(&id, now_ms)
            });
        }
        actions
    }

    /// The user allowed a waiting call, this once.
    pub fn approve(&mut self, call_id: &str, now_ms: f64) -> Vec<Action> {
        let Some(call) = self.waiting_mut(call_id) else {
            return Vec::new();
        };
        call.start(now_ms);
        let arguments = parse_arguments(&call.arguments).unwrap_or_default();
        vec![Action::StartTool {
            call_id: call.id.clone(),
            server_id: call.server_id.clone().unwrap_or_default(),
            tool_name: call.tool_name.clone(),
            arguments,
        }]
    }

    /// The user refused a waiting call, this once; the model is told so.
    pub fn deny(&mut self, call_id: &str, now_ms: f64) -> Vec<Action> {
        let Some(call) = self.waiting_mut(call_id) else {
            return Vec::new();
        };
        call.deny(now_ms);
        self.next_if_settled()
    }

    /// A call still waiting for the user; after Stop, or once decided (a double click), none.
    fn waiting_mut(&mut self, call_id: &str) -> Option<&mut ToolCallRecord> {
        if self.stopped {
            return None;
        }
        self.call_mut(call_id)
            .filter(|c| *c.status() == ToolCallStatus::AwaitingApproval)
    }

    /// `notifications/progress` for a running call.
    pub fn tool_progress(
        &mut self,
        call_id: &str,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) {
        if let Some(call) = self.call_mut(call_id) {
            call.report_progress(ToolProgress {
                progress,
                total,
                message,
            });
        }
    }

    /// The MCP task a running call runs as was created or changed status (stored with the
    /// call, so a reload follows it instead of interrupting it).
    pub fn tool_task(&mut self, call_id: &str, task: TaskRef) {
        if let Some(call) = self.call_mut(call_id) {
            call.report_task(&task.id, task.status, task.message);
        }
    }

    /// A call's answer: the raw `CallToolResult`, or the typed reason there is none (which
    /// says whether the tool may have run; see `call_error`).
    pub fn tool_finished(
        &mut self,
        call_id: &str,
        outcome: Result<Value, McpError>,
        now_ms: f64,
    ) -> Vec<Action> {
        let Some(call) = self.call_mut(call_id) else {
            return Vec::new();
        };
        let moved = match outcome {
            Ok(result) => call.finish(result, now_ms),
            // Only a running call gets an answer; a cancelled one keeps its state.
            Err(e) if *call.status() == ToolCallStatus::Running => {
                call.fail(call_error::sentence(&e), now_ms)
            }
            Err(_) => false,
        };
        if !moved || self.stopped {
            return Vec::new(); // cancelled by Stop: the late answer changes nothing
        }
        self.next_if_settled()
    }

    /// The user pressed Stop: cancel what runs, drop what waits, finish.
    pub fn stop(&mut self, now_ms: f64) -> Vec<Action> {
        if self.stopped {
            return Vec::new();
        }
        self.stopped = true;
        let mut actions = Vec::new();
        for call in &mut self.calls {
            let was_running = *call.status() == ToolCallStatus::Running;
            if call.cancel(now_ms) && was_running {
                actions.push(Action::CancelTool {
                    call_id: call.id.clone(),
                });
            }
        }
        actions.push(Action::Finish(TurnEnd::Stopped));
        actions
    }

    fn call_mut(&mut self, call_id: &str) -> Option<&mut ToolCallRecord> {
        self.calls.iter_mut().find(|c| c.id == call_id)
    }

    /// Some servers give parallel calls the same id; the results must still be told apart.
    fn unique_id(&self, id: String) -> String {
        if !self.calls.iter().any(|c| c.id == id) {
            return id;
        }
        (2..)
            .map(|n| format!("{id}_{n}"))
            .find(|candidate| !self.calls.iter().any(|c| &c.id == candidate))
            .unwrap_or(id)
    }

    fn plan_call(
        &self,
        id: String,
        call: RawCall,
        now_ms: f64,
    ) -> (ToolCallRecord, Option<Action>) {
        let RawCall {
            server_hint,
            name,
            arguments,
            parse_error,
            ..
        } = call;
        let mut record = ToolCallRecord::new(id, name.clone(), arguments);
        let spec = self.resolve(server_hint.as_deref(), &name);
        let fail = |mut record: ToolCallRecord, sentence: String| {
            record.fail(sentence, now_ms);
            (record, None)
        };
        let Some(spec) = spec else {
            if let Some(hint) = server_hint {
                record.server_id = Some(hint);
            }
            let known: Vec<&str> = self.tools.iter().map(|t| t.exposed_name.as_str()).collect();
            let sentence = if name.is_empty() {
                "The call did not name a tool.".to_string()
            } else {
                format!("There is no tool named \"{name}\".")
            };
            let available = if known.is_empty() {
                " No tools are available.".to_string()
            } else {
                format!(" Available tools: {}.", known.join(", "))
            };
            return fail(record, sentence + &available);
        };
        record.name = spec.exposed_name.clone();
        record.server_id = Some(spec.server_id.clone());
        record.server_name = spec.server_name.clone();
        record.tool_name = spec.tool_name.clone();
        if let Some(e) = parse_error {
            return fail(
                record,
                format!("The tool call block could not be read: {e}."),
            );
        }
        let arguments = match parse_arguments(&record.arguments) {
            Ok(a) => a,
            Err(e) => return fail(record, e),
        };
        match self
            .config
            .policy
            .decide(&spec.server_id, &spec.tool_name, spec.read_only)
        {
            Decision::Deny => {
                record.deny(now_ms);
                (record, None)
            }
            Decision::Ask => {
                record.ask();
                let action = Action::AskApproval {
                    call_id: record.id.clone(),
                };
                (record, Some(action))
            }
            Decision::Allow => {
                record.start(now_ms);
                let action = Action::StartTool {
                    call_id: record.id.clone(),
                    server_id: spec.server_id.clone(),
                    tool_name: spec.tool_name.clone(),
                    arguments,
                };
                (record, Some(action))
            }
        }
    }

    /// A `find_tools` call under discovery, answered here at once: it loads the tools it
    /// names or finds, offered in full from the next step on.
    fn find_tools(&mut self, id: &str, call: &RawCall, now_ms: f64) -> Option<ToolCallRecord> {
        let all = self.discovery.as_ref()?;
        if call.name != discovery::FIND_TOOLS {
            return None;
        }
        let mut record =
            ToolCallRecord::new(id.to_string(), call.name.clone(), call.arguments.clone());
        record.server_id = Some(discovery::SERVER_ID.into());
        record.server_name = "Skiff".into();
        record.tool_name = discovery::FIND_TOOLS.into();
        let args = match parse_arguments(&call.arguments) {
            Ok(a) => a,
            Err(e) => {
                record.fail(e, now_ms);
                return Some(record);
            }
        };
        let found: Vec<ToolSpec> = discovery::search(all, &args).into_iter().cloned().collect();
        record.start(now_ms);
        record.finish(discovery::result(&found.iter().collect::<Vec<_>>()), now_ms);
        for spec in found {
            if find(&self.tools, &spec.exposed_name).is_none() {
                self.tools.push(spec);
            }
        }
        Some(record)
    }

    /// Under discovery, a listed tool the model calls without loading it first is loaded
    /// now: the list named it, and refusing would only cost a step.
    fn load_if_listed(&mut self, name: &str) {
        let Some(all) = &self.discovery else {
            return;
        };
        if find(&self.tools, name).is_none() {
            if let Some(spec) = find(all, name) {
                self.tools.push(spec.clone());
            }
        }
    }

    /// Native calls name the exposed tool; prompt-based blocks name a server and its tool.
    /// Models get either slightly wrong, so both are tried.
    fn resolve(&self, server_hint: Option<&str>, name: &str) -> Option<&ToolSpec> {
        if let Some(server) = server_hint {
            if let Some(t) = self
                .tools
                .iter()
                .find(|t| t.server_id == server && t.tool_name == name)
            {
                return Some(t);
            }
        }
        if let Some(t) = find(&self.tools, name) {
            return Some(t);
        }
        let mut same_name = self.tools.iter().filter(|t| t.tool_name == name);
        match (same_name.next(), same_name.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        }
    }

    fn next_if_settled(&self) -> Vec<Action> {
        if self.calls.iter().any(|c| !c.status().is_final()) {
            return Vec::new();
        }
        if self.steps >= self.config.step_limit.max(1) {
            vec![Action::Finish(TurnEnd::StepLimit)]
        } else {
            vec![Action::NextStep]
        }
    }
}

/// The arguments as a JSON object. Models send `""` for a tool without parameters.
fn parse_arguments(text: &str) -> Result<Map<String, Value>, String> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(format!(
            "The arguments must be a JSON object, not {}.",
            kind_of(&other)
        )),
        Err(e) => Err(format!("The arguments were not valid JSON ({e}).")),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
#[path = "machine_tests.rs"]
mod tests;
