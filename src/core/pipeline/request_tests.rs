//! The assembly order and the budget, checked on the bytes each provider would send.

use serde_json::{json, Value};

use super::instructions::ServerInstructions;
use super::request::{assemble, Offer, UserClock};
use crate::profiles::Target;
use crate::provider::{ProviderKind, StepContext};
use crate::records::memory::Memory;
use crate::records::message::{Message, Role};
use crate::records::tool_mode::ToolMode;
use crate::settings::{ChatSettings, TurnSettings};
use crate::tools::spec::ToolSpec;

const CLOCK: UserClock<'static> = UserClock {
    // 2026-11-24T01:52:30Z
    now_ms: 1_795_485_150_000.0,
    offset_minutes: 60,
    zone: "Europe/Berlin",
    lang: "de-DE",
};

fn settings(kind: ProviderKind) -> ChatSettings {
    ChatSettings {
        target: Target {
            kind,
            base_url: "http://127.0.0.1:9/v1".into(),
            model: "gpt-4o-mini".into(),
            ..Target::default()
        },
        system_prompt: "Be brief.".into(),
        system_template: "Model {{model}} via {{ServiceProvider}}, cutoff {{cutoff}}; now {{time}}; lang {{lang}}.".into(),
        input_template: "[{{lang}}] {{input}}".into(),
        ..ChatSettings::default()
    }
}

/// The turn a test's settings make, with no mask and no project unless the test resolved
/// them ([`TurnSettings::with_target`]: the tests set the target by hand).
trait AsTurn {
    fn as_turn(&self) -> TurnSettings;
}

impl AsTurn for ChatSettings {
    fn as_turn(&self) -> TurnSettings {
        TurnSettings::with_target(self.clone(), None, None)
    }
}

impl AsTurn for TurnSettings {
    fn as_turn(&self) -> TurnSettings {
        self.clone()
    }
}

fn tool() -> ToolSpec {
    ToolSpec {
        exposed_name: "echo".into(),
        server_id: "srv".into(),
        server_name: "Echo".into(),
        tool_name: "echo".into(),
        description: "Echo a message".into(),
        input_schema: json!({"type":"object","properties":{"message":{"type":"string"}}})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        read_only: true,
    }
}

fn offer<'a>(
    tools: &'a [ToolSpec],
    mode: ToolMode,
    servers: &'a [ServerInstructions],
) -> Offer<'a> {
    Offer {
        tools,
        mode,
        servers,
    }
}

fn history() -> Vec<Message> {
    let mut h = Vec::new();
    for i in 0..4 {
        h.push(Message::new(
            format!("u{i}"),
            Role::User,
            format!("question {i}"),
            0.0,
        ));
        h.push(Message::new(
            format!("a{i}"),
            Role::Assistant,
            format!("answer {i}"),
            0.0,
        ));
    }
    h.push(Message::new(
        "u4".into(),
        Role::User,
        "question 4".into(),
        0.0,
    ));
    h
}

fn body(s: &impl AsTurn, history: &[Message], cleared: Option<&str>, mode: ToolMode) -> Value {
    body_with(s, history, cleared, None, mode, &[])
}

fn body_with(
    s: &impl AsTurn,
    history: &[Message],
    cleared: Option<&str>,
    memory: Option<&Memory>,
    mode: ToolMode,
    servers: &[ServerInstructions],
) -> Value {
    let tools = [tool()];
    let s = s.as_turn();
    let a = assemble(
        history,
        cleared,
        memory,
        &s,
        &offer(&tools, mode, servers),
        &CLOCK,
    );
    let ctx = StepContext {
        system_template: &a.system_template,
        system_prompt: &a.system_prompt,
        recap: &a.recap,
        history: &a.messages,
        tools: &tools,
        mode,
        result_char_limit: 1000,
        vision: false,
    };
    let provider = s.settings.provider().expect("valid settings");
    let req = provider.step_request(&ctx);
    serde_json::from_str(req.body.as_deref().unwrap_or("null")).expect("JSON body")
}

const TEMPLATE_FILLED: &str = "Model gpt-4o-mini via OpenAI-compatible, cutoff 2023-10; now Tuesday, 24 November 2026, 02:52 (UTC+01:00, Europe/Berlin); lang de-DE.";

#[test]
fn server_instructions_follow_the_system_prompt_and_count_against_the_budget() {
    let s = settings(ProviderKind::OpenAiCompatible);
    let servers = [
        ServerInstructions {
            server_id: "srv".into(),
            server_name: "Echo".into(),
            text: "Echo only what the user wrote.".into(),
        },
        // Its tools are not offered: its instructions stay out.
        ServerInstructions {
            server_id: "other".into(),
            server_name: "Other".into(),
            text: "Unrelated.".into(),
        },
    ];
    let b = body_with(&s, &history(), None, None, ToolMode::Prompt, &servers);
    let system = b["messages"][0]["content"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let at = |needle: &str| {
        system
            .find(needle)
            .unwrap_or_else(|| panic!("{needle} in {system}"))
    };
    assert!(at(TEMPLATE_FILLED) < at("Be brief."));
    assert!(at("Be brief.") < at("Instructions from the MCP server \"Echo\""));
    assert!(at("Echo only what the user wrote.") < at("Server id: srv"));
    assert!(!system.contains("Unrelated."));
    // Anthropic's top-level system carries them the same way.
    let a = body_with(
        &settings(ProviderKind::Anthropic),
        &history(),
        None,
        None,
        ToolMode::Native,
        &servers,
    );
    assert!(
        a["system"]
            .as_str()
            .unwrap_or("")
            .contains("Echo only what the user wrote."),
        "{a}"
    );
    // The budget counts them.
    let tools = [tool()];
    let with = assemble(
        &history(),
        None,
        None,
        &s.as_turn(),
        &offer(&tools, ToolMode::Native, &servers),
        &CLOCK,
    );
    let without = assemble(
        &history(),
        None,
        None,
        &s.as_turn(),
        &offer(&tools, ToolMode::Native, &[]),
        &CLOCK,
    );
    assert!(with.plan.fixed_tokens > without.plan.fixed_tokens);
}

#[test]
fn openai_order_is_template_then_system_prompt_then_tools_then_recent_messages() {
    let s = ChatSettings {
        history_count: 3,
        ..settings(ProviderKind::OpenAiCompatible)
    };
    let b = body(&s, &history(), None, ToolMode::Prompt);
    let msgs = b["messages"].as_array().cloned().unwrap_or_default();
    let system = msgs[0]["content"].as_str().unwrap_or("");
    assert_eq!(msgs[0]["role"], "system");
    let (head, section) = system.split_at(system.find("\n\nBe brief.\n\n").unwrap_or(0));
    assert_eq!(head, TEMPLATE_FILLED);
    assert!(section.contains("Server id: srv"), "{section}");
    // History count 3: the newest three are u3 a3 u4, each wrapped in the input template.
    let rest: Vec<(&str, &str)> = msgs[1..]
        .iter()
        .map(|m| {
            (
                m["role"].as_str().unwrap_or(""),
                m["content"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        rest,
        [
            ("user", "[de-DE] question 3"),
            ("assistant", "answer 3"),
            ("user", "[de-DE] question 4"),
        ]
    );
}

#[test]
fn a_turned_off_template_and_the_default_input_template_change_nothing() {
    let s = ChatSettings {
        system_template_enabled: false,
        input_template: "{{input}}".into(),
        ..settings(ProviderKind::OpenAiCompatible)
    };
    let h = [Message::new("u".into(), Role::User, "hi".into(), 0.0)];
    let b = body(&s, &h, None, ToolMode::Off);
    assert_eq!(
        b["messages"],
        json!([{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}])
    );
}

#[test]
fn anthropic_and_gemini_put_the_same_system_text_in_their_own_field() {
    let h = [Message::new("u".into(), Role::User, "hi".into(), 0.0)];
    let mut s = settings(ProviderKind::Anthropic);
    s.target.base_url = "https://api.anthropic.com/v1".into();
    let b = body(&s, &h, None, ToolMode::Off);
    let want = TEMPLATE_FILLED.replace("OpenAI-compatible", "Anthropic") + "\n\nBe brief.";
    assert_eq!(b["system"], json!(want));
    assert_eq!(
        b["messages"],
        json!([{"role":"user","content":[{"type":"text","text":"[de-DE] hi"}]}])
    );

    let mut s = settings(ProviderKind::Gemini);
    s.target.base_url = "https://generativelanguage.googleapis.com/v1beta".into();
    let b = body(&s, &h, None, ToolMode::Off);
    let want = TEMPLATE_FILLED.replace("OpenAI-compatible", "Google Gemini") + "\n\nBe brief.";
    assert_eq!(b["systemInstruction"], json!({"parts":[{"text": want}]}));
}

#[test]
fn clear_context_and_a_small_window_trim_what_is_sent() {
    let s = settings(ProviderKind::OpenAiCompatible);
    let b = body(&s, &history(), Some("a2"), ToolMode::Off);
    let contents: Vec<&str> = b["messages"]
        .as_array()
        .map(|a| a.iter().filter_map(|m| m["content"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        contents[1..],
        ["[de-DE] question 3", "answer 3", "[de-DE] question 4"]
    );

    // A system text alone over the budget: only the newest message goes, and the plan says
    // the request is over (the composer's gauge shows it before sending).
    let s = ChatSettings {
        context_window: 600,
        system_prompt: "x".repeat(1800),
        ..settings(ProviderKind::OpenAiCompatible)
    };
    let s = ChatSettings {
        target: Target {
            max_tokens: Some(100),
            ..s.target.clone()
        },
        ..s
    };
    let tools = [tool()];
    let a = assemble(
        &history(),
        None,
        None,
        &s.as_turn(),
        &offer(&tools, ToolMode::Native, &[]),
        &CLOCK,
    );
    assert_eq!(a.messages.len(), 1);
    assert_eq!(a.plan.dropped, 8);
    assert!(
        a.plan.fixed_tokens > 500,
        "system text and tool schema count: {}",
        a.plan.fixed_tokens
    );
    assert!(a.plan.over_budget());
    // The tool schemas count only when tools are offered natively.
    let off = assemble(
        &history(),
        None,
        None,
        &s.as_turn(),
        &offer(&tools, ToolMode::Off, &[]),
        &CLOCK,
    );
    assert!(off.plan.fixed_tokens < a.plan.fixed_tokens);
    // A window with room: everything goes.
    let s = ChatSettings {
        context_window: 2000,
        ..s
    };
    let a = assemble(
        &history(),
        None,
        None,
        &s.as_turn(),
        &offer(&tools, ToolMode::Native, &[]),
        &CLOCK,
    );
    assert_eq!(a.messages.len(), 9);
    assert!(!a.plan.over_budget());
}

#[test]
fn a_summary_replaces_the_messages_it_covers_and_comes_after_the_tools() {
    let s = settings(ProviderKind::OpenAiCompatible);
    let memory = Memory {
        text: "They discussed questions 0 to 2.".into(),
        through: "a2".into(),
    };
    let b = body_with(&s, &history(), None, Some(&memory), ToolMode::Prompt, &[]);
    let msgs = b["messages"].as_array().cloned().unwrap_or_default();
    let system = msgs[0]["content"].as_str().unwrap_or("");
    let tools_at = system.find("Server id: srv").unwrap_or(usize::MAX);
    let recap_at = system
        .find("This is a summary of the chat history as a recap: They discussed questions 0 to 2.")
        .unwrap_or(0);
    assert!(
        tools_at < recap_at && system.ends_with("0 to 2."),
        "{system}"
    );
    let rest: Vec<&str> = msgs[1..]
        .iter()
        .filter_map(|m| m["content"].as_str())
        .collect();
    assert_eq!(
        rest,
        ["[de-DE] question 3", "answer 3", "[de-DE] question 4"]
    );
    // A clear mark after the summary makes it moot: no recap.
    let b = body_with(
        &s,
        &history(),
        Some("a3"),
        Some(&memory),
        ToolMode::Off,
        &[],
    );
    assert!(!b["messages"][0]["content"]
        .as_str()
        .unwrap_or("")
        .contains("recap"));
    // Anthropic: the same recap at the end of `system`.
    let mut s = settings(ProviderKind::Anthropic);
    s.target.base_url = "https://api.anthropic.com/v1".into();
    let b = body_with(&s, &history(), None, Some(&memory), ToolMode::Off, &[]);
    assert!(b["system"].as_str().unwrap_or("").ends_with("Be brief.\n\nThis is a summary of the chat history as a recap: They discussed questions 0 to 2."));
}

#[test]
fn the_gauge_does_not_count_files_the_model_cannot_take() {
    let mut s = settings(ProviderKind::OpenAiCompatible);
    let mut m = Message::new("u".into(), Role::User, "Look".into(), 0.0);
    m.attachments.push(crate::records::attachment::Attachment {
        name: "dot.png".into(),
        mime: "image/png".into(),
        size: 70,
        hash: "h".into(),
        w: 1,
        h: 1,
        ow: 1,
        oh: 1,
        data: None,
    });
    let history = [m];
    let plan = |s: &dyn AsTurn| {
        super::request::next_plan(
            &history,
            None,
            None,
            &s.as_turn(),
            &offer(&[], ToolMode::Off, &[]),
            &CLOCK,
        )
        .message_tokens
    };
    let seeing = plan(&s);
    s.target.caps.vision = crate::records::capabilities::Flag::User(false);
    let blind = plan(&s);
    assert!(
        blind + 500 < seeing,
        "an image left out costs nothing: {blind} vs {seeing}"
    );
}

/// A conversation started from a mask: its prompts come after the system text and recap and
/// before the recent messages, untouched by the input template; its template and sampling
/// replace the settings' ones; the budget counts the prompts.
#[test]
fn a_masks_prompts_open_the_messages_and_its_settings_apply() {
    use crate::records::mask::{ContextPrompt, Mask};
    let mask = Mask {
        id: "m1".into(),
        name: "Pirate".into(),
        context: vec![
            ContextPrompt {
                role: Role::System,
                content: "Talk like a pirate.".into(),
            },
            ContextPrompt {
                role: Role::User,
                content: "Who are you?".into(),
            },
            ContextPrompt {
                role: Role::Assistant,
                content: "Arr, yer captain.".into(),
            },
            ContextPrompt {
                role: Role::User,
                content: "   ".into(),
            },
        ],
        temperature: Some(1.5),
        input_template: "Q: {{input}}".into(),
        ..Mask::default()
    };
    let plain = ChatSettings {
        history_count: 3,
        ..settings(ProviderKind::OpenAiCompatible)
    };
    let masked = TurnSettings::with_target(plain.clone(), Some(&mask), None);
    let memory = Memory {
        text: "They asked about ships.".into(),
        through: "a0".into(),
    };
    let b = body_with(&masked, &history(), None, Some(&memory), ToolMode::Off, &[]);
    let msgs = b["messages"].as_array().expect("messages");
    let roles: Vec<&str> = msgs
        .iter()
        .map(|m| m["role"].as_str().unwrap_or(""))
        .collect();
    // One system message: strict chat templates (llama.cpp `--jinja`) refuse a second, so
    // the mask's system prompt joins the system text, after the recap (the documented order).
    assert_eq!(
        roles,
        ["system", "user", "assistant", "user", "assistant", "user"],
        "{b}"
    );
    let system = msgs[0]["content"].as_str().unwrap_or("");
    assert!(
        system.contains("They asked about ships.\n\nTalk like a pirate."),
        "{b}"
    );
    assert!(system.ends_with("Talk like a pirate."), "{b}");
    assert_eq!(
        msgs[1]["content"], "Who are you?",
        "the input template leaves the mask's prompts alone"
    );
    assert_eq!(msgs[2]["content"], "Arr, yer captain.");
    assert_eq!(
        msgs[5]["content"], "Q: question 4",
        "the mask's input template"
    );
    assert_eq!(b["temperature"], 1.5);
    // Without the mask: the settings' template, no prompts, and a smaller fixed cost.
    let b = body_with(&plain, &history(), None, None, ToolMode::Off, &[]);
    assert_eq!(b["messages"][1]["content"], "[de-DE] question 3", "{b}");
    assert_eq!(b["messages"].as_array().map(Vec::len), Some(4));
    assert!(b.get("temperature").is_none(), "{b}");
    let fixed = |s: &dyn AsTurn| {
        assemble(
            &history(),
            None,
            None,
            &s.as_turn(),
            &offer(&[], ToolMode::Off, &[]),
            &CLOCK,
        )
        .plan
        .fixed_tokens
    };
    assert!(fixed(&masked) > fixed(&plain) + 10);
    // Anthropic: the mask's system prompt joins the top-level system; the rest stay messages.
    let anthropic = TurnSettings::with_target(settings(ProviderKind::Anthropic), Some(&mask), None);
    let a = body_with(&anthropic, &history(), None, None, ToolMode::Off, &[]);
    assert!(
        a["system"]
            .as_str()
            .unwrap_or("")
            .contains("Talk like a pirate."),
        "{a}"
    );
    assert_eq!(
        a["messages"][0]["content"][0]["text"], "Who are you?",
        "{a}"
    );
}

/// Issue 12, items 2 and 8: a project's instructions follow the tools prompt and come before
/// the memory recap, for OpenAI-compatible servers and Anthropic alike, and count in the
/// budget; a conversation whose project was deleted gets nothing.
#[test]
fn a_projects_instructions_sit_between_the_tools_prompt_and_the_recap() {
    use crate::projects::Project;
    let base = ChatSettings {
        projects: vec![Project {
            id: "p1".into(),
            name: "Garden\nplanner".into(),
            instructions: "Answer for a small balcony garden.".into(),
            ..Project::default()
        }],
        ..settings(ProviderKind::OpenAiCompatible)
    };
    let memory = Memory {
        text: "They grow basil.".into(),
        through: "a0".into(),
    };
    let inside = TurnSettings::with_target(base.clone(), None, Some("p1"));
    let b = body_with(
        &inside,
        &history(),
        None,
        Some(&memory),
        ToolMode::Prompt,
        &[],
    );
    let system = b["messages"][0]["content"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let tools_at = system.find("tool").expect("tools prompt");
    let project_at = system
        .find("This conversation belongs to the project “Garden planner”. The project's instructions:\nAnswer for a small balcony garden.")
        .expect("project instructions, its name on one line");
    let recap_at = system.find("They grow basil.").expect("recap");
    assert!(tools_at < project_at && project_at < recap_at, "{system}");
    let fixed = |s: &dyn AsTurn| {
        assemble(
            &history(),
            None,
            None,
            &s.as_turn(),
            &offer(&[], ToolMode::Off, &[]),
            &CLOCK,
        )
        .plan
        .fixed_tokens
    };
    assert!(fixed(&inside) > fixed(&base) + 10);
    // A deleted project, or none: nothing.
    for gone in [Some("p-deleted"), None] {
        let s = TurnSettings::with_target(base.clone(), None, gone);
        assert!(s.project_instructions.is_empty());
        let b = body_with(&s, &history(), None, None, ToolMode::Off, &[]);
        assert!(!b.to_string().contains("balcony"), "{b}");
    }
    // Anthropic: in the top-level system text, before the recap.
    let a = body_with(
        &settings(ProviderKind::Anthropic),
        &history(),
        None,
        None,
        ToolMode::Off,
        &[],
    );
    assert!(!a.to_string().contains("balcony"));
    let anthropic = TurnSettings::with_target(
        ChatSettings {
            projects: base.projects.clone(),
            ..settings(ProviderKind::Anthropic)
        },
        None,
        Some("p1"),
    );
    let a = body_with(
        &anthropic,
        &history(),
        None,
        Some(&memory),
        ToolMode::Off,
        &[],
    );
    let system = a["system"].as_str().unwrap_or("");
    let p = system.find("balcony").expect("instructions in system");
    assert!(p < system.find("They grow basil.").unwrap_or(0), "{a}");
}
