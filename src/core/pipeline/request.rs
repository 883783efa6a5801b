//! Everything a request says besides the tools' wire format, assembled in one place: the
//! system template filled with the time and model, the input template around each user
//! message, and the recent messages the budget allows.
//!
//! Order of the system text (see `StepContext::system_text` and the request builders): the
//! system template, the user's system prompt and the MCP servers' instructions
//! (`instructions`), (prompt-based tools) the tools section, then
//! the recap of what a summary covers; then the conversation's mask's context prompts
//! (`masks`), then the recent messages. Project instructions take their slot before the
//! recap when they exist. A system message among those (a mask's system prompt) joins the
//! one system text in every provider's request, after the recap: strict chat templates take
//! a single system message, first (`agent::wire_openai`).

use crate::provider::ProviderKind;
use crate::records::message::{Message, Role};
use crate::records::tool_mode::ToolMode;
use crate::settings::{ChatSettings, TurnSettings};
use crate::tools::prompt;
use crate::tools::spec::ToolSpec;

use super::context::{self, Limits, Plan};
use super::instructions::{self, ServerInstructions};
use super::memory;
use super::template::{self, TemplateValues};
use super::tokens;
use crate::records::memory::Memory;

/// Where and when the user is: the browser's values, passed in (core has no clock).
#[derive(Debug, Clone, Copy)]
pub struct UserClock<'a> {
    pub now_ms: f64,
    /// Minutes east of UTC (JavaScript's `-getTimezoneOffset()`).
    pub offset_minutes: i32,
    /// IANA zone name, when the browser gives one.
    pub zone: &'a str,
    /// `navigator.language`.
    pub lang: &'a str,
}

/// What a request offers the model besides the conversation: the tools, how they are offered,
/// and the instructions of the servers they come from (`instructions` picks which apply).
#[derive(Debug, Clone, Copy)]
pub struct Offer<'a> {
    pub tools: &'a [ToolSpec],
    pub mode: ToolMode,
    pub servers: &'a [ServerInstructions],
}

/// One request's assembled parts.
#[derive(Debug, Clone)]
pub struct Assembled {
    /// The filled system template ("" when turned off).
    pub system_template: String,
    /// The user's system prompt, then the instructions of the MCP servers whose tools are
    /// offered (`instructions`).
    pub system_prompt: String,
    /// The summary standing in for older messages, as a recap ("" when there is none or a
    /// clear mark after it made it moot).
    pub recap: String,
    /// The messages to send, user messages already wrapped in the input template.
    pub messages: Vec<Message>,
    /// What was left out and how full the request is.
    pub plan: Plan,
}

/// Assembles the request for the answer that follows `history`.
pub fn assemble(
    history: &[Message],
    cleared_after: Option<&str>,
    memory: Option<&Memory>,
    turn: &TurnSettings,
    offer: &Offer<'_>,
    clock: &UserClock<'_>,
) -> Assembled {
    let settings = &turn.settings;
    let Offer {
        tools,
        mode,
        servers,
    } = *offer;
    let system_template = system_template(settings, clock);
    let system_prompt = instructions::system_prompt(
        &settings.system_prompt,
        &instructions::section(servers, tools, mode),
    );
    let (start, with_memory) = memory::start(history, cleared_after, memory);
    // The project's instructions come after the tools prompt and before the recap: the
    // slot after the tools section that every provider's request has.
    let recap = [
        turn.project_instructions.clone(),
        memory
            .filter(|_| with_memory)
            .map(memory::recap)
            .unwrap_or_default(),
    ]
    .into_iter()
    .filter(|s| !s.is_empty())
    .collect::<Vec<_>>()
    .join("\n\n");
    let context = turn
        .mask
        .as_ref()
        .map(|m| m.context_messages(clock.now_ms))
        .unwrap_or_default();
    let fixed = fixed_tokens(&system_template, &system_prompt, tools, mode)
        + tokens::estimate(&recap)
        + context
            .iter()
            .map(|m| tokens::PER_MESSAGE + tokens::estimate(&m.content))
            .sum::<u32>();
    let limits = Limits::new(
        settings.context_window,
        settings.history_count as usize,
        settings.target.max_tokens,
    );
    let mut plan = context::plan_from(
        history,
        start,
        &limits,
        fixed,
        settings.result_char_limit.max(1),
    );
    plan.tool_tokens = tool_tokens(tools, mode);
    // The mask's prompts open the messages; the input template wraps only the user's own.
    let mut messages = context;
    messages.extend(
        plan.select(history)
            .iter()
            .map(|m| with_input_template(m, settings, clock)),
    );
    Assembled {
        system_template,
        system_prompt,
        recap,
        messages,
        plan,
    }
}

/// The system template filled for now, or "" when the user turned it off.
pub fn system_template(settings: &ChatSettings, clock: &UserClock<'_>) -> String {
    if !settings.system_template_enabled {
        return String::new();
    }
    let time = template::local_time_text(clock.now_ms, clock.offset_minutes, clock.zone);
    template::fill(
        &settings.system_template,
        &values(settings, "", &time, clock.lang),
    )
}

/// What every request carries whatever the history: the system text and, when tools are
/// offered, their schemas (native) or the tools section (prompt-based).
pub fn fixed_tokens(
    system_template: &str,
    system_prompt: &str,
    tools: &[ToolSpec],
    mode: ToolMode,
) -> u32 {
    tokens::PER_MESSAGE
        + tokens::estimate(system_template)
        + tokens::estimate(system_prompt)
        + tool_tokens(tools, mode)
}

/// What offering `tools` costs every request: their definitions (native) or the tools section
/// of the system prompt (prompt-based).
pub fn tool_tokens(tools: &[ToolSpec], mode: ToolMode) -> u32 {
    match mode {
        ToolMode::Off => 0,
        ToolMode::Native => tokens::tools(tools),
        ToolMode::Prompt => tokens::estimate(&prompt::system_prompt_section(tools)),
    }
}

/// A user message as the model receives it; answers and system messages pass unchanged. The
/// time a user message's template sees is when it was written, so a resent conversation
/// reads the same each time.
fn with_input_template(m: &Message, settings: &ChatSettings, clock: &UserClock<'_>) -> Message {
    if m.role != Role::User {
        return m.clone();
    }
    let t = settings.input_template.as_str();
    if t.trim().is_empty() || t == template::DEFAULT_INPUT_TEMPLATE {
        return m.clone();
    }
    let time = template::local_time_text(m.created_ms, clock.offset_minutes, clock.zone);
    let mut out = m.clone();
    out.content = template::fill_input(t, &values(settings, &m.content, &time, clock.lang));
    out
}

fn values<'a>(
    settings: &'a ChatSettings,
    input: &'a str,
    time: &'a str,
    lang: &'a str,
) -> TemplateValues<'a> {
    TemplateValues {
        input,
        model: settings.target.model.trim(),
        provider: provider_name(settings.target.kind),
        cutoff: template::knowledge_cutoff(&settings.target.model),
        time,
        lang,
    }
}

fn provider_name(kind: ProviderKind) -> &'static str {
    kind.label()
}

/// The plan of the request that would follow `history` if the user asked something now (an
/// empty question in its place): what the composer's gauge shows and what decides automatic
/// compaction.
pub fn next_plan(
    history: &[Message],
    cleared_after: Option<&str>,
    memory: Option<&Memory>,
    turn: &TurnSettings,
    offer: &Offer<'_>,
    clock: &UserClock<'_>,
) -> Plan {
    let mut next = history.to_vec();
    // What the request will leave out (files this model cannot take) does not fill it.
    crate::attach::withhold(&turn.settings.target, &mut next);
    next.push(Message::new(
        String::new(),
        Role::User,
        String::new(),
        clock.now_ms,
    ));
    assemble(&next, cleared_after, memory, turn, offer, clock).plan
}
