//! The loop against scripted provider streams: each test decodes SSE text the way a real
//! server sends it (`openai::ChatStream`), feeds the events to the machine, and plays the
//! runner's part (approvals, results, Stop), checking every action the machine asks for.

use serde_json::{json, Map, Value};

use super::*;
use crate::openai::ChatStream;
use crate::settings::ChatSettings;

fn spec(server: &str, name: &str, read_only: bool) -> ToolSpec {
    ToolSpec {
        exposed_name: name.to_string(),
        server_id: server.to_string(),
        server_name: format!("{server} server"),
        tool_name: name.to_string(),
        description: format!("the {name} tool"),
        input_schema: Map::new(),
        read_only,
    }
}

fn tools() -> Vec<ToolSpec> {
    vec![
        spec("ev", "echo", false),
        spec("ev", "get-sum", true),
        spec("ev", "trigger-long-running-operation", false),
    ]
}

fn config(mode: ToolMode) -> AgentConfig {
    AgentConfig {
        mode,
        step_limit: DEFAULT_STEP_LIMIT,
        policy: ApprovalPolicy::default(),
    }
}

/// A streamed answer with these `tool_calls` entries (id, name, argument fragments), in the
/// shape llama.cpp and OpenAI send: id and name first, then argument pieces.
fn tool_stream(calls: &[(&str, &str, &[&str])]) -> String {
    let mut s = String::from(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null}}]}\n\n",
    );
    for (i, (id, name, pieces)) in calls.iter().enumerate() {
        let head = json!({"choices":[{"index":0,"delta":{"tool_calls":[
            {"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}
        ]}}]});
        s.push_str(&format!("data: {head}\n\n"));
        for p in *pieces {
            let part = json!({"choices":[{"index":0,"delta":{"tool_calls":[
                {"index": i, "function": {"arguments": p}}
            ]}}]});
            s.push_str(&format!("data: {part}\n\n"));
        }
    }
    s.push_str(
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
    );
    s.push_str("data: [DONE]\n\n");
    s
}

fn text_stream(text: &str) -> String {
    let chunk = json!({"choices":[{"index":0,"delta":{"content": text}}]});
    format!(
        "data: {chunk}\n\ndata: {{\"choices\":[{{\"index\":0,\"delta\":{{}},\"finish_reason\":\"stop\"}}]}}\n\ndata: [DONE]\n\n"
    )
}

/// Run one step: decode `sse`, feed the machine, end the step with the decoded text.
fn step(run: &mut AgentRun, sse: &str, now: f64) -> Vec<Action> {
    assert_eq!(run.begin_step(), vec![Action::SendStep]);
    let mut dec = ChatStream::new();
    let mut events = dec.feed(sse.as_bytes()).unwrap();
    events.extend(dec.finish().unwrap());
    let mut content = String::new();
    for ev in &events {
        if let StreamEvent::Content(t) = ev {
            content.push_str(t);
        }
        run.on_event(ev);
    }
    run.end_step(&content, now)
}

fn ok_text(text: &str) -> Result<Value, McpError> {
    Ok(json!({"content": [{"type": "text", "text": text}]}))
}

fn status_of(run: &AgentRun, id: &str) -> ToolCallStatus {
    run.calls()
        .iter()
        .find(|c| c.id == id)
        .map(|c| c.status().clone())
        .unwrap()
}

#[test]
fn one_call_asks_then_runs_then_the_next_step_answers() {
    let mut run = AgentRun::new(config(ToolMode::Native), tools());
    let sse = tool_stream(&[("call_1", "echo", &["{\"mess", "age\":\"hi\"}"])]);
    let actions = step(&mut run, &sse, 10.0);
    assert_eq!(
        actions,
        vec![Action::AskApproval {
            call_id: "call_1".into()
        }]
    );
    assert_eq!(status_of(&run, "call_1"), ToolCallStatus::AwaitingApproval);
    let actions = run.approve("call_1", 20.0);
    let mut args = Map::new();
    args.insert("message".into(), json!("hi"));
    assert_eq!(
        actions,
        vec![Action::StartTool {
            call_id: "call_1".into(),
            server_id: "ev".into(),
            tool_name: "echo".into(),
            arguments: args
        }]
    );
    assert_eq!(
        run.tool_finished("call_1", ok_text("Echo: hi"), 55.0),
        vec![Action::NextStep]
    );
    let call = &run.calls()[0];
    assert_eq!(*call.status(), ToolCallStatus::Done);
    assert_eq!(call.duration_ms(), Some(35.0));
    assert_eq!(call.server_name, "ev server");
    assert_eq!(
        step(&mut run, &text_stream("It said hi."), 60.0),
        vec![Action::Finish(TurnEnd::Answered)]
    );
    assert!(run.calls().is_empty());
    assert_eq!(run.steps_taken(), 2);
}

#[test]
fn parallel_calls_start_together_and_wait_for_each_other_whatever_order_they_finish() {
    let mut policy = ApprovalPolicy::default();
    policy.set_rule("ev", "echo", ApprovalRule::Always);
    policy.set_rule("ev", "get-sum", ApprovalRule::Always);
    let mut run = AgentRun::new(
        AgentConfig {
            policy,
            ..config(ToolMode::Native)
        },
        tools(),
    );
    let sse = tool_stream(&[
        ("a", "get-sum", &["{\"a\":1,", "\"b\":2}"]),
        ("b", "echo", &["{\"message\":\"x\"}"]),
    ]);
    let actions = step(&mut run, &sse, 0.0);
    let started: Vec<&str> = actions
        .iter()
        .map(|a| match a {
            Action::StartTool { call_id, .. } => call_id.as_str(),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(started, ["a", "b"]);
    // The second finishes first: nothing moves until both are in.
    assert_eq!(run.tool_finished("b", ok_text("x"), 5.0), vec![]);
    assert_eq!(
        run.tool_finished("a", ok_text("3"), 9.0),
        vec![Action::NextStep]
    );
    let order: Vec<&str> = run.calls().iter().map(|c| c.id.as_str()).collect();
    assert_eq!(
        order,
        ["a", "b"],
        "results stay in the order the model asked"
    );
}

#[test]
fn invalid_arguments_and_unknown_tools_become_error_results_for_the_model() {
    let mut run = AgentRun::new(config(ToolMode::Native), tools());
    let sse = tool_stream(&[
        ("a", "echo", &["{\"message\": \"unterminated"]),
        ("b", "no-such-tool", &["{}"]),
        ("c", "echo", &["[1,2]"]),
    ]);
    let actions = step(&mut run, &sse, 0.0);
    assert_eq!(
        actions,
        vec![Action::NextStep],
        "nothing to run, the model goes on"
    );
    match status_of(&run, "a") {
        ToolCallStatus::Error(s) => {
            assert!(s.starts_with("The arguments were not valid JSON"), "{s}")
        }
        other => panic!("{other:?}"),
    }
    match status_of(&run, "b") {
        ToolCallStatus::Error(s) => {
            assert!(s.contains("no tool named \"no-such-tool\""), "{s}");
            assert!(s.contains("echo, get-sum"), "lists what exists: {s}");
        }
        other => panic!("{other:?}"),
    }
    match status_of(&run, "c") {
        ToolCallStatus::Error(s) => {
            assert_eq!(s, "The arguments must be a JSON object, not an array.")
        }
        other => panic!("{other:?}"),
    }
    // The raw text the model wrote is kept for the card.
    assert_eq!(run.calls()[0].arguments, "{\"message\": \"unterminated");
}

#[test]
fn empty_arguments_mean_no_arguments() {
    let policy = ApprovalPolicy {
        allow_read_only: true,
        ..ApprovalPolicy::default()
    };
    let mut run = AgentRun::new(
        AgentConfig {
            policy,
            ..config(ToolMode::Native)
        },
        tools(),
    );
    let actions = step(&mut run, &tool_stream(&[("a", "get-sum", &[])]), 0.0);
    assert!(matches!(&actions[..], [Action::StartTool { arguments, .. }] if arguments.is_empty()));
}

#[test]
fn tool_errors_are_results_and_the_loop_goes_on() {
    let policy = ApprovalPolicy {
        allow_read_only: true,
        ..ApprovalPolicy::default()
    };
    let mut run = AgentRun::new(
        AgentConfig {
            policy,
            ..config(ToolMode::Native)
        },
        tools(),
    );
    step(
        &mut run,
        &tool_stream(&[("a", "get-sum", &["{}"]), ("b", "get-sum", &["{}"])]),
        0.0,
    );
    let is_error =
        Ok(json!({"content": [{"type": "text", "text": "a is required"}], "isError": true}));
    assert_eq!(run.tool_finished("a", is_error, 1.0), vec![]);
    let acts = run.tool_finished("b", Err(McpError::NotConnected), 2.0);
    assert_eq!(acts, vec![Action::NextStep]);
    assert_eq!(*run.calls()[0].status(), ToolCallStatus::Done);
    assert!(run.calls()[0].is_error());
    assert_eq!(
        *run.calls()[1].status(),
        ToolCallStatus::Error(format!("The call was not sent. {}", McpError::NotConnected))
    );
}

#[test]
fn denial_is_final_and_reported_and_never_rules_deny_without_asking() {
    let mut run = AgentRun::new(config(ToolMode::Native), tools());
    step(
        &mut run,
        &tool_stream(&[("a", "echo", &["{}"]), ("b", "echo", &["{}"])]),
        0.0,
    );
    assert_eq!(run.deny("a", 3.0), vec![]);
    assert_eq!(status_of(&run, "a"), ToolCallStatus::Denied);
    // Approving a denied call does nothing.
    assert_eq!(run.approve("a", 4.0), vec![]);
    assert_eq!(
        run.answer("b", false, true, 5.0),
        vec![
            Action::RememberRule {
                server_id: "ev".into(),
                tool_name: "echo".into(),
                rule: ApprovalRule::Never
            },
            Action::NextStep
        ]
    );
    let mut policy = ApprovalPolicy::default();
    policy.set_rule("ev", "echo", ApprovalRule::Never);

    let mut run = AgentRun::new(
        AgentConfig {
            policy,
            ..config(ToolMode::Native)
        },
        tools(),
    );
    let acts = step(&mut run, &tool_stream(&[("a", "echo", &["{}"])]), 0.0);
    assert_eq!(acts, vec![Action::NextStep]);
    assert_eq!(status_of(&run, "a"), ToolCallStatus::Denied);
}

#[test]
fn the_step_limit_ends_the_turn_after_running_the_last_steps_calls() {
    let mut policy = ApprovalPolicy::default();
    policy.set_rule("ev", "echo", ApprovalRule::Always);
    let mut run = AgentRun::new(
        AgentConfig {
            step_limit: 2,
            policy,
            mode: ToolMode::Native,
        },
        tools(),
    );
    let sse = tool_stream(&[("a", "echo", &["{}"])]);
    step(&mut run, &sse, 0.0);
    assert_eq!(
        run.tool_finished("a", ok_text("1"), 1.0),
        vec![Action::NextStep]
    );
    step(&mut run, &sse, 2.0);
    assert_eq!(
        run.tool_finished("a", ok_text("2"), 3.0),
        vec![Action::Finish(TurnEnd::StepLimit)]
    );
    assert_eq!(
        *run.calls()[0].status(),
        ToolCallStatus::Done,
        "the last results are kept"
    );
}

#[test]
fn stop_mid_call_cancels_running_calls_and_drops_waiting_ones() {
    let mut policy = ApprovalPolicy::default();
    policy.set_rule("ev", "trigger-long-running-operation", ApprovalRule::Always);
    let mut run = AgentRun::new(
        AgentConfig {
            policy,
            ..config(ToolMode::Native)
        },
        tools(),
    );
    let acts = step(
        &mut run,
        &tool_stream(&[
            (
                "long",
                "trigger-long-running-operation",
                &["{\"duration\":10,\"steps\":5}"],
            ),
            ("ask", "echo", &["{}"]),
        ]),
        0.0,
    );
    assert_eq!(acts.len(), 2);
    run.tool_progress("long", 2.0, Some(5.0), Some("step 2".into()));
    assert_eq!(run.calls()[0].progress().map(|p| p.progress), Some(2.0));
    let acts = run.stop(100.0);
    assert_eq!(
        acts,
        vec![
            Action::CancelTool {
                call_id: "long".into()
            },
            Action::Finish(TurnEnd::Stopped)
        ]
    );
    assert_eq!(status_of(&run, "long"), ToolCallStatus::Cancelled);
    assert_eq!(status_of(&run, "ask"), ToolCallStatus::Cancelled);
    // The late answer of the cancelled call changes nothing, and nothing starts again.
    assert_eq!(run.tool_finished("long", ok_text("late"), 120.0), vec![]);
    assert_eq!(status_of(&run, "long"), ToolCallStatus::Cancelled);
    assert_eq!(run.approve("ask", 130.0), vec![]);
    assert_eq!(run.stop(140.0), vec![]);
}

#[test]
fn repeated_ids_from_a_server_are_told_apart() {
    let policy = ApprovalPolicy {
        allow_read_only: true,
        ..ApprovalPolicy::default()
    };
    let mut run = AgentRun::new(
        AgentConfig {
            policy,
            ..config(ToolMode::Native)
        },
        tools(),
    );
    let acts = step(
        &mut run,
        &tool_stream(&[
            ("call_0", "get-sum", &["{}"]),
            ("call_0", "get-sum", &["{}"]),
        ]),
        0.0,
    );
    assert_eq!(acts.len(), 2);
    let ids: Vec<&str> = run.calls().iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["call_0", "call_0_2"]);
}

#[test]
fn prompt_mode_reads_blocks_from_the_answer_and_ignores_tool_deltas() {
    let mut run = AgentRun::new(config(ToolMode::Prompt), tools());
    let answer = "Let me check.\n```json:mcp:ev\n{\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"message\":\"hi\"}}}\n```\n";
    let acts = step(&mut run, &text_stream(answer), 0.0);
    assert_eq!(
        acts,
        vec![Action::AskApproval {
            call_id: "mcp-1-1".into()
        }]
    );
    let call = &run.calls()[0];
    assert_eq!(call.server_id.as_deref(), Some("ev"));
    assert_eq!(call.tool_name, "echo");
    assert_eq!(
        serde_json::from_str::<Value>(&call.arguments).unwrap(),
        json!({"message": "hi"})
    );

    // Native fragments mean nothing in prompt mode, and an answer without blocks ends the turn.
    let mut run = AgentRun::new(config(ToolMode::Prompt), tools());
    let acts = step(&mut run, &tool_stream(&[("a", "echo", &["{}"])]), 0.0);
    assert_eq!(acts, vec![Action::Finish(TurnEnd::Answered)]);
}

#[test]
fn prompt_mode_finds_a_tool_named_under_the_wrong_server() {
    let mut run = AgentRun::new(config(ToolMode::Prompt), tools());
    let answer = "```json:mcp:everything\n{\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}\n```";
    step(&mut run, &text_stream(answer), 0.0);
    assert_eq!(run.calls()[0].server_id.as_deref(), Some("ev"));
    assert_eq!(*run.calls()[0].status(), ToolCallStatus::AwaitingApproval);
}

#[test]
fn off_mode_offers_nothing_and_answers_in_one_step() {
    let mut run = AgentRun::new(config(ToolMode::Off), tools());
    assert!(run.tools().is_empty());
    let acts = step(&mut run, &tool_stream(&[("a", "echo", &["{}"])]), 0.0);
    assert_eq!(acts, vec![Action::Finish(TurnEnd::Answered)]);
}

#[test]
fn read_only_tools_run_without_asking_only_when_allowed() {
    let mut run = AgentRun::new(config(ToolMode::Native), tools());
    let acts = step(&mut run, &tool_stream(&[("a", "get-sum", &["{}"])]), 0.0);
    assert!(matches!(&acts[..], [Action::AskApproval { .. }]));
    let policy = ApprovalPolicy {
        allow_read_only: true,
        ..ApprovalPolicy::default()
    };
    let mut run = AgentRun::new(
        AgentConfig {
            policy,
            ..config(ToolMode::Native)
        },
        tools(),
    );
    let acts = step(
        &mut run,
        &tool_stream(&[("a", "get-sum", &["{}"]), ("b", "echo", &["{}"])]),
        0.0,
    );
    assert!(matches!(
        &acts[..],
        [Action::StartTool { .. }, Action::AskApproval { .. }]
    ));
}

// --- Decisions moved out of the runner -------------------------------------------------------

/// Settings as the user keeps them, with `tool_mode` and what auto mode already knows.
fn settings(tool_mode: ToolModeSetting, known: Option<ToolMode>) -> ChatSettings {
    let mut s = ChatSettings {
        target: crate::profiles::Target {
            base_url: "http://127.0.0.1:8080/v1".into(),
            model: "m".into(),
            ..Default::default()
        },
        tool_mode,
        ..ChatSettings::default()
    };
    if let Some(mode) = known {
        s.learned_tool_modes.insert(s.model_key(), mode);
    }
    s
}

fn learned(mode: ToolMode) -> Action {
    Action::LearnToolMode {
        model_key: "http://127.0.0.1:8080/v1 m".into(),
        mode,
    }
}

/// llama.cpp without `--jinja`, answering a request with `tools`.
const LLAMA_NO_JINJA: &str =
    r#"{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}"#;

#[test]
fn remembered_allow_answers_the_same_tool_waiting_in_the_step_and_is_persisted() {
    let mut run = AgentRun::new(config(ToolMode::Native), tools());
    step(
        &mut run,
        &tool_stream(&[
            ("a", "echo", &["{\"message\":\"1\"}"]),
            ("b", "get-sum", &["{}"]),
            ("c", "echo", &["{\"message\":\"2\"}"]),
        ]),
        0.0,
    );
    let acts = run.answer("a", true, true, 5.0);
    let kinds: Vec<String> = acts
        .iter()
        .map(|a| match a {
            Action::RememberRule {
                server_id,
                tool_name,
                rule,
            } => format!("remember {server_id}/{tool_name} {rule:?}"),
            Action::StartTool { call_id, .. } => format!("start {call_id}"),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(kinds, ["remember ev/echo Always", "start a", "start c"]);
    assert_eq!(
        status_of(&run, "b"),
        ToolCallStatus::AwaitingApproval,
        "another tool still asks"
    );
    assert_eq!(run.calls()[2].started_ms(), Some(5.0));

    // The rule holds for the rest of the turn: the next step's echo runs without asking.
    run.tool_finished("a", ok_text("1"), 6.0);
    run.tool_finished("c", ok_text("2"), 6.0);
    assert_eq!(run.deny("b", 7.0), vec![Action::NextStep]);
    let acts = step(&mut run, &tool_stream(&[("d", "echo", &["{}"])]), 8.0);
    assert!(
        matches!(&acts[..], [Action::StartTool { call_id, .. }] if call_id == "d"),
        "{acts:?}"
    );
}

#[test]
fn remembered_deny_refuses_the_same_tool_waiting_and_a_one_off_answer_touches_one_call() {
    let mut run = AgentRun::new(config(ToolMode::Native), tools());
    step(
        &mut run,
        &tool_stream(&[
            ("a", "echo", &["{}"]),
            ("b", "echo", &["{}"]),
            ("c", "echo", &["{}"]),
        ]),
        0.0,
    );
    // Allow once: only that call runs, nothing is stored.
    let acts = run.answer("a", true, false, 1.0);
    assert!(
        matches!(&acts[..], [Action::StartTool { call_id, .. }] if call_id == "a"),
        "{acts:?}"
    );
    assert_eq!(status_of(&run, "b"), ToolCallStatus::AwaitingApproval);
    // Never allow: stored, and the other waiting echo is refused too; the running one runs on.
    let acts = run.answer("b", false, true, 2.0);
    assert_eq!(
        acts,
        vec![Action::RememberRule {
            server_id: "ev".into(),
            tool_name: "echo".into(),
            rule: ApprovalRule::Never
        }]
    );
    assert_eq!(status_of(&run, "c"), ToolCallStatus::Denied);
    assert_eq!(status_of(&run, "a"), ToolCallStatus::Running);
    assert_eq!(
        run.tool_finished("a", ok_text("x"), 3.0),
        vec![Action::NextStep]
    );
    // A second click on a decided card does nothing (and stores nothing).
    assert_eq!(run.answer("b", true, true, 4.0), vec![]);
}

#[test]
fn auto_mode_retries_a_step_refused_for_its_tools_prompt_based_once_and_learns_it() {
    let mut run = AgentRun::for_turn(&settings(ToolModeSetting::Auto, None), tools());
    assert_eq!(run.mode(), ToolMode::Native);
    assert_eq!(run.begin_step(), vec![Action::SendStep]);
    let acts = run.step_refused(refusal(500, LLAMA_NO_JINJA), "refused".into());
    assert_eq!(acts, vec![learned(ToolMode::Prompt), Action::SendStep]);
    assert_eq!(run.mode(), ToolMode::Prompt);
    assert_eq!(run.steps_taken(), 1, "the retry is the same step");
    // The retry is prompt-based: a second refusal is a failure, not another retry.
    assert_eq!(
        run.step_refused(refusal(500, LLAMA_NO_JINJA), "refused again".into()),
        vec![Action::Finish(TurnEnd::Failed("refused again".into()))]
    );
}

#[test]
fn a_refusal_that_is_not_about_tools_or_outside_auto_mode_fails_the_turn() {
    let mut run = AgentRun::for_turn(&settings(ToolModeSetting::Auto, None), tools());
    run.begin_step();
    assert_eq!(
        run.step_refused(
            refusal(401, r#"{"error":"bad key"}"#),
            "The provider refused the key.".into()
        ),
        vec![Action::Finish(TurnEnd::Failed(
            "The provider refused the key.".into()
        ))]
    );
    let mut run = AgentRun::for_turn(&settings(ToolModeSetting::Native, None), tools());
    run.begin_step();
    assert_eq!(
        run.step_refused(refusal(500, LLAMA_NO_JINJA), "no tools".into()),
        vec![Action::Finish(TurnEnd::Failed("no tools".into()))],
        "the user chose native: no silent switch"
    );
    assert_eq!(run.mode(), ToolMode::Native);
    assert_eq!(
        run.step_failed("The stream was cut.".into()),
        vec![Action::Finish(TurnEnd::Failed(
            "The stream was cut.".into()
        ))]
    );
}

#[test]
fn auto_mode_learns_native_only_from_a_real_native_tool_call() {
    // A server that accepts `tools` and answers in text (llama-cpp-python with a plain chat
    // format) has shown nothing about function calling: nothing is learned.
    let mut run = AgentRun::for_turn(&settings(ToolModeSetting::Auto, None), tools());
    let acts = step(&mut run, &text_stream("I have no tools."), 0.0);
    assert_eq!(acts, vec![Action::Finish(TurnEnd::Answered)]);

    // A real call in `tool_calls` is the proof, learned once per turn.
    let mut run = AgentRun::for_turn(&settings(ToolModeSetting::Auto, None), tools());
    let acts = step(&mut run, &tool_stream(&[("a", "echo", &["{}"])]), 0.0);
    assert_eq!(
        acts,
        vec![
            learned(ToolMode::Native),
            Action::AskApproval {
                call_id: "a".into()
            }
        ]
    );
    run.answer("a", true, false, 1.0);
    run.tool_finished("a", ok_text("x"), 2.0);
    let acts = step(&mut run, &tool_stream(&[("b", "echo", &["{}"])]), 3.0);
    assert_eq!(
        acts,
        vec![Action::AskApproval {
            call_id: "b".into()
        }]
    );

    // Already known, or not auto mode: nothing to store.
    let mut run = AgentRun::for_turn(
        &settings(ToolModeSetting::Auto, Some(ToolMode::Native)),
        tools(),
    );
    let acts = step(&mut run, &tool_stream(&[("a", "echo", &["{}"])]), 0.0);
    assert_eq!(
        acts,
        vec![Action::AskApproval {
            call_id: "a".into()
        }]
    );
    let mut run = AgentRun::for_turn(&settings(ToolModeSetting::Native, None), tools());
    let acts = step(&mut run, &tool_stream(&[("a", "echo", &["{}"])]), 0.0);
    assert_eq!(
        acts,
        vec![Action::AskApproval {
            call_id: "a".into()
        }]
    );
}

#[test]
fn a_turn_follows_what_auto_mode_learned_and_offers_nothing_without_tools() {
    let run = AgentRun::for_turn(
        &settings(ToolModeSetting::Auto, Some(ToolMode::Prompt)),
        tools(),
    );
    assert_eq!(run.mode(), ToolMode::Prompt);
    let run = AgentRun::for_turn(&settings(ToolModeSetting::Auto, None), Vec::new());
    assert_eq!(run.mode(), ToolMode::Off);
    let s = ChatSettings {
        step_limit: 0,
        ..settings(ToolModeSetting::Prompt, None)
    };
    let mut run = AgentRun::for_turn(&s, tools());
    let acts = step(&mut run, &text_stream("```json:mcp:ev\n{\"method\":\"tools/call\",\"params\":{\"name\":\"get-sum\",\"arguments\":{}}}\n```"), 0.0);
    assert!(matches!(&acts[..], [Action::AskApproval { .. }]));
    assert_eq!(run.calls_mode(), Some(ToolMode::Prompt));
    assert_eq!(
        run.answer("mcp-1-1", false, false, 1.0),
        vec![Action::Finish(TurnEnd::StepLimit)],
        "a step limit of 0 still allows one request"
    );
}

#[test]
fn a_failed_call_says_whether_the_tool_may_have_run() {
    let mut policy = ApprovalPolicy::default();
    policy.set_rule("ev", "echo", ApprovalRule::Always);
    let mut run = AgentRun::new(
        AgentConfig {
            policy,
            ..config(ToolMode::Native)
        },
        tools(),
    );
    step(&mut run, &tool_stream(&[("a", "echo", &["{}"])]), 0.0);
    let lost = McpError::ConnectionLost {
        reason: "the server closed the stream".into(),
        in_flight_tool: true,
    };
    assert_eq!(
        run.tool_finished("a", Err(lost), 4.0),
        vec![Action::NextStep]
    );
    let call = &run.calls()[0];
    match call.status() {
        ToolCallStatus::Error(s) => {
            assert!(s.contains("the server closed the stream"), "{s}");
            assert!(s.contains("may or may not have run"), "{s}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(call.duration_ms(), Some(4.0));
    // What the model reads of it is the same sentence.
    let model = crate::tools::result::for_model(call, 10_000);
    assert!(
        model.is_error && model.text.contains("did not send it again"),
        "{}",
        model.text
    );
}

#[test]
fn stop_while_the_request_streams_finishes_stopped_and_a_late_failure_changes_nothing() {
    let mut run = AgentRun::for_turn(&settings(ToolModeSetting::Auto, None), tools());
    run.begin_step();
    assert_eq!(run.stop(1.0), vec![Action::Finish(TurnEnd::Stopped)]);
    assert_eq!(
        run.step_failed("aborted".into()),
        vec![Action::Finish(TurnEnd::Stopped)]
    );
    assert_eq!(
        run.step_refused(refusal(500, LLAMA_NO_JINJA), "refused".into()),
        vec![Action::Finish(TurnEnd::Stopped)],
        "no fallback after Stop"
    );
    assert_eq!(
        run.end_step("late text", 2.0),
        vec![Action::Finish(TurnEnd::Stopped)]
    );
}

/// What the OpenAI-compatible provider concludes from a refusal (see `Provider::rejects_tools`).
fn refusal(status: u16, body: &str) -> bool {
    crate::openai::rejects_tools(status, body)
}
