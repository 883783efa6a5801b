//! The loop against scripted provider streams: each test decodes SSE text the way a real
//! server sends it (`openai::ChatStream`), feeds the events to the machine, and plays the
//! runner's part (approvals, results, Stop), checking every action the machine asks for.

use serde_json::{json, Map, Value};

use super::*;
use crate::agent::approval::ApprovalRule;
use crate::openai::ChatStream;

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
    run.begin_step();
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

fn ok_text(text: &str) -> Result<Value, String> {
    Ok(json!({"content": [{"type": "text", "text": text}]}))
}

fn status_of(run: &AgentRun, id: &str) -> ToolCallStatus {
    run.calls()
        .iter()
        .find(|c| c.id == id)
        .map(|c| c.status.clone())
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
    assert_eq!(call.status, ToolCallStatus::Done);
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
    let acts = run.tool_finished("b", Err("The server is not connected.".into()), 2.0);
    assert_eq!(acts, vec![Action::NextStep]);
    assert_eq!(run.calls()[0].status, ToolCallStatus::Done);
    assert!(run.calls()[0].is_error());
    assert_eq!(
        run.calls()[1].status,
        ToolCallStatus::Error("The server is not connected.".into())
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
    let mut policy = ApprovalPolicy::default();
    policy.set_rule("ev", "echo", ApprovalRule::Never);
    run.set_policy(policy.clone());
    assert_eq!(run.deny("b", 5.0), vec![Action::NextStep]);

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
        run.calls()[0].status,
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
    assert_eq!(
        run.calls()[0].progress.as_ref().map(|p| p.progress),
        Some(2.0)
    );
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
    assert_eq!(run.calls()[0].status, ToolCallStatus::AwaitingApproval);
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
