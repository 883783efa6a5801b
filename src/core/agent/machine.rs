//! The decisions of the agent loop, as a sans-IO state machine.
//!
//! One `AgentRun` serves one user turn. The runner starts a model step (`begin_step`), feeds
//! it the stream's events, and ends it with the step's visible text (`end_step`). The machine
//! turns what the model asked for into [`ToolCallRecord`]s and [`Action`]s: ask the user, start
//! a call, refuse one, send the next request, or finish. The runner performs them and reports
//! back (`approve`, `deny`, `tool_progress`, `tool_finished`, `stop`), always with `now_ms`.
//!
//! Rules it keeps:
//! - calls of one step start together (parallel) and their results stay in the order the model
//!   asked, whatever order they finish in;
//! - bad input from the model (invalid JSON arguments, an unknown tool) becomes an error result
//!   the model can read and correct, never a failure of the turn;
//! - the next request goes out only when every call of the step is final;
//! - the step limit counts model requests; when the last allowed step asked for tools, those
//!   calls still run (the user may have approved them) and the turn ends saying so;
//! - after `stop`, nothing starts again: running calls are cancelled, waiting ones dropped.

use serde_json::{Map, Value};

use super::approval::{ApprovalPolicy, Decision};
use super::assemble::ToolCallAssembler;
use super::prompt;
use super::record::{ToolCallRecord, ToolCallStatus, ToolMode, ToolProgress};
use super::tools::{self, ToolSpec};
use crate::openai::StreamEvent;

/// Model requests per turn unless the user set another limit.
pub const DEFAULT_STEP_LIMIT: u32 = 15;

#[derive(Debug, Clone, PartialEq)]
pub struct AgentConfig {
    /// Resolved for this turn: `Native`, `Prompt`, or `Off` (a plain answer, one step).
    pub mode: ToolMode,
    /// At most this many model requests in one turn (at least 1).
    pub step_limit: u32,
    pub policy: ApprovalPolicy,
}

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnEnd {
    /// The model answered without calling a tool.
    Answered,
    /// The step limit was reached with tool results the model has not seen.
    StepLimit,
    /// The user pressed Stop.
    Stopped,
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
    /// Every call of the step is final: send the next model request.
    NextStep,
    Finish(TurnEnd),
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
    tools: Vec<ToolSpec>,
    steps: u32,
    assembler: ToolCallAssembler,
    calls: Vec<ToolCallRecord>,
    stopped: bool,
}

impl AgentRun {
    pub fn new(config: AgentConfig, tools: Vec<ToolSpec>) -> Self {
        let tools = if config.mode == ToolMode::Off {
            Vec::new()
        } else {
            tools
        };
        AgentRun {
            config,
            tools,
            steps: 0,
            assembler: ToolCallAssembler::new(),
            calls: Vec::new(),
            stopped: false,
        }
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

    pub fn is_stopped(&self) -> bool {
        self.stopped
    }

    /// Change the mode before a step (auto mode falling back to prompt-based).
    pub fn set_mode(&mut self, mode: ToolMode) {
        self.config.mode = mode;
    }

    /// The user changed a rule mid-turn ("always allow"): later decisions follow it.
    pub fn set_policy(&mut self, policy: ApprovalPolicy) {
        self.config.policy = policy;
    }

    /// A model request is about to be sent.
    pub fn begin_step(&mut self) {
        self.steps += 1;
        self.assembler = ToolCallAssembler::new();
        self.calls.clear();
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
        for call in raw {
            let id = self.unique_id(call.id.clone());
            let (record, action) = self.plan_call(id, call, now_ms);
            self.calls.push(record);
            actions.extend(action);
        }
        actions.extend(self.next_if_settled());
        actions
    }

    /// The user allowed a waiting call.
    pub fn approve(&mut self, call_id: &str, now_ms: f64) -> Vec<Action> {
        let Some(call) = self.waiting_mut(call_id) else {
            return Vec::new();
        };
        call.status = ToolCallStatus::Running;
        call.started_ms = Some(now_ms);
        let arguments = parse_arguments(&call.arguments).unwrap_or_default();
        vec![Action::StartTool {
            call_id: call.id.clone(),
            server_id: call.server_id.clone().unwrap_or_default(),
            tool_name: call.tool_name.clone(),
            arguments,
        }]
    }

    /// The user refused a waiting call; the model is told so.
    pub fn deny(&mut self, call_id: &str, now_ms: f64) -> Vec<Action> {
        let Some(call) = self.waiting_mut(call_id) else {
            return Vec::new();
        };
        call.status = ToolCallStatus::Denied;
        call.ended_ms = Some(now_ms);
        self.next_if_settled()
    }

    /// A call still waiting for the user; after Stop, or once decided (a double click), none.
    fn waiting_mut(&mut self, call_id: &str) -> Option<&mut ToolCallRecord> {
        if self.stopped {
            return None;
        }
        self.call_mut(call_id)
            .filter(|c| c.status == ToolCallStatus::AwaitingApproval)
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
            if call.status == ToolCallStatus::Running {
                call.progress = Some(ToolProgress {
                    progress,
                    total,
                    message,
                });
            }
        }
    }

    /// A call's answer: the raw `CallToolResult`, or a sentence saying why there is none.
    pub fn tool_finished(
        &mut self,
        call_id: &str,
        outcome: Result<Value, String>,
        now_ms: f64,
    ) -> Vec<Action> {
        let Some(call) = self.call_mut(call_id) else {
            return Vec::new();
        };
        if call.status != ToolCallStatus::Running {
            return Vec::new(); // cancelled by Stop: the late answer changes nothing
        }
        call.ended_ms = Some(now_ms);
        match outcome {
            Ok(result) => {
                call.status = ToolCallStatus::Done;
                call.result = Some(result);
            }
            Err(sentence) => call.status = ToolCallStatus::Error(sentence),
        }
        if self.stopped {
            return Vec::new();
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
            match call.status {
                ToolCallStatus::Running => {
                    call.status = ToolCallStatus::Cancelled;
                    call.ended_ms = Some(now_ms);
                    actions.push(Action::CancelTool {
                        call_id: call.id.clone(),
                    });
                }
                ToolCallStatus::Pending | ToolCallStatus::AwaitingApproval => {
                    call.status = ToolCallStatus::Cancelled;
                    call.ended_ms = Some(now_ms);
                }
                _ => {}
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
            record.status = ToolCallStatus::Error(sentence);
            record.ended_ms = Some(now_ms);
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
                record.status = ToolCallStatus::Denied;
                record.ended_ms = Some(now_ms);
                (record, None)
            }
            Decision::Ask => {
                record.status = ToolCallStatus::AwaitingApproval;
                let action = Action::AskApproval {
                    call_id: record.id.clone(),
                };
                (record, Some(action))
            }
            Decision::Allow => {
                record.status = ToolCallStatus::Running;
                record.started_ms = Some(now_ms);
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
        if let Some(t) = tools::find(&self.tools, name) {
            return Some(t);
        }
        let mut same_name = self.tools.iter().filter(|t| t.tool_name == name);
        match (same_name.next(), same_name.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        }
    }

    fn next_if_settled(&self) -> Vec<Action> {
        if self.calls.iter().any(|c| !c.status.is_final()) {
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
