//! Recorded Gemini streams (see `tests/fixtures/gemini/README.md`), fed whole, split in two at
//! the offsets `split_points` picks, and one byte at a time: every chunking must give the same
//! events. Then a whole agent round trip over the recorded parallel calls, and the recorded
//! error bodies.

use serde_json::{json, Value};

use super::{error_from_response, step_request, GeminiStream};
use crate::agent::assemble::{AssembledCall, ToolCallAssembler};
use crate::agent::{Action, AgentConfig, AgentRun};
use crate::records::approval::{ApprovalPolicy, ApprovalRule};
use crate::records::message::{Message, Role, Usage};
use crate::records::tool_mode::ToolMode;
use crate::seam::{ChatParams, ProviderError, StepContext, StreamEvent};
use crate::tools::spec::ToolSpec;

macro_rules! fixture {
    ($name:literal) => {
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/gemini/",
            $name
        ))
    };
}

#[derive(Debug, PartialEq)]
struct Run {
    events: Vec<StreamEvent>,
    /// The first error from `feed`, or what `finish` said.
    end: Result<(), ProviderError>,
}

fn run<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> Run {
    let mut s = GeminiStream::new();
    let mut events = Vec::new();
    for c in chunks {
        match s.feed(c) {
            Ok(e) => events.extend(e),
            Err(e) => {
                return Run {
                    events,
                    end: Err(e),
                }
            }
        }
    }
    let end = s.finish().map(|e| events.extend(e));
    assert_eq!(s.is_complete(), end.is_ok());
    Run { events, end }
}

/// Feed `bytes` every way and return the run after checking all chunkings agree.
fn decode_every_way(bytes: &[u8]) -> Run {
    let whole = run([bytes]);
    for i in crate::split_points::split_points(bytes) {
        let split = run([&bytes[..i], &bytes[i..]]);
        assert_eq!(split, whole, "split at byte {i}");
    }
    assert_eq!(run(bytes.chunks(1)), whole, "one byte at a time");
    whole
}

#[derive(Debug, Default, PartialEq)]
struct Summary {
    content: String,
    reasoning: String,
    usage: Option<Usage>,
    finish: Option<String>,
    done: bool,
    calls: Vec<AssembledCall>,
}

fn summarize(events: &[StreamEvent]) -> Summary {
    let mut s = Summary::default();
    let mut assembler = ToolCallAssembler::new();
    for e in events {
        match e {
            StreamEvent::Content(t) => s.content.push_str(t),
            StreamEvent::Reasoning(t) => s.reasoning.push_str(t),
            StreamEvent::Usage(u) => {
                assert!(s.usage.is_none(), "usage is sent once");
                s.usage = Some(*u);
            }
            StreamEvent::Finish(f) => {
                assert!(s.finish.is_none(), "two finish events");
                s.finish = Some(f.clone());
            }
            StreamEvent::Done => s.done = true,
            StreamEvent::ReasoningSignature(_) | StreamEvent::RedactedReasoning(_) => {}
            StreamEvent::Progress(_) | StreamEvent::Timings(_) => {}
            StreamEvent::ToolCall(d) => assembler.push(d),
            StreamEvent::Image(_) => panic!("no recording here holds an image"),
        }
    }
    s.calls = assembler.finish();
    s
}

fn usage(prompt_tokens: u32, completion_tokens: u32, total_tokens: u32) -> Option<Usage> {
    Some(Usage {
        prompt_tokens,
        completion_tokens,
        total_tokens,
    })
}

fn call(id: &str, arguments: &str) -> AssembledCall {
    AssembledCall {
        id: id.into(),
        name: "sum".into(),
        arguments: arguments.into(),
    }
}

#[test]
fn thought_summaries_become_reasoning_and_thinking_counts_as_completion() {
    let r = decode_every_way(fixture!("adk_gemini25_thoughts.sse"));
    assert_eq!(r.end, Ok(()));
    let s = summarize(&r.events);
    assert!(
        s.reasoning
            .starts_with("**Calculating Prime Sum**\n\nI've begun"),
        "{}",
        s.reasoning
    );
    assert!(s.reasoning.ends_with("I stand by my answer.\n\n\n"));
    assert_eq!(s.reasoning.chars().count(), 878);
    assert!(s
        .content
        .starts_with("To find the sum of the first 50 prime numbers"));
    assert!(s
        .content
        .ends_with("The sum of the first 50 prime numbers is 5117."));
    assert_eq!(s.content.chars().count(), 980);
    // 745 answer tokens + 1234 thinking tokens; the prompt 51.
    assert_eq!(s.usage, usage(51, 1979, 2030));
    assert_eq!(s.finish.as_deref(), Some("STOP"));
    assert!(s.done);
    assert!(s.calls.is_empty());
    // All thinking comes before the answer, as it streamed.
    let first_content = r
        .events
        .iter()
        .position(|e| matches!(e, StreamEvent::Content(_)));
    let last_reasoning = r
        .events
        .iter()
        .rposition(|e| matches!(e, StreamEvent::Reasoning(_)));
    assert!(last_reasoning < first_content);
}

#[test]
fn a_long_answer_with_multibyte_text_survives_every_split() {
    let r = decode_every_way(fixture!("adk_gemini25_text_utf8.sse"));
    assert_eq!(r.end, Ok(()));
    let s = summarize(&r.events);
    assert!(s
        .content
        .starts_with("The capital of Poland is **Warsaw** (Polish: *Warszawa*)."));
    assert!(s.content.contains("Łazienki"));
    assert!(s
        .content
        .ends_with("a blend of rich history with dynamic modernity."));
    assert_eq!(s.content.chars().count(), 2358);
    assert_eq!(s.reasoning, "");
    assert_eq!(s.usage, usage(30, 555, 585));
    assert!(s.done);
}

#[test]
fn gemini_3_parallel_calls_keep_their_ids_and_order() {
    let r = decode_every_way(fixture!("adk_gemini3_parallel_calls.sse"));
    assert_eq!(r.end, Ok(()));
    let s = summarize(&r.events);
    assert_eq!(
        s.calls,
        vec![
            call("3ae8iwca", r#"{"a":2,"b":3}"#),
            call("up3kf30e", r#"{"a":4,"b":5}"#),
            call("ycroch25", r#"{"a":6,"b":7}"#),
        ]
    );
    // The last event's empty text part says nothing.
    assert_eq!(s.content, "");
    assert_eq!(s.usage, usage(161, 93, 254));
    assert_eq!(s.finish.as_deref(), Some("STOP"));
}

#[test]
fn gemini_2_5_parallel_calls_without_ids_are_numbered_in_order() {
    let r = decode_every_way(fixture!("adk_gemini25_parallel_calls_no_ids.sse"));
    assert_eq!(r.end, Ok(()));
    let s = summarize(&r.events);
    assert_eq!(
        s.calls,
        vec![
            call("call_0", r#"{"a":2,"b":3}"#),
            call("call_1", r#"{"a":4,"b":5}"#),
            call("call_2", r#"{"a":6,"b":7}"#),
        ]
    );
    assert_eq!(s.usage, usage(171, 131, 302));
    assert!(s.done);
}

#[test]
fn an_unexpected_tool_call_is_an_error_with_its_reason() {
    let r = decode_every_way(fixture!("adk_gemini25_unexpected_tool_call.sse"));
    assert_eq!(
        r,
        Run {
            events: vec![],
            end: Err(ProviderError::InStream(
                "The model called a tool that was not offered (UNEXPECTED_TOOL_CALL)".into()
            )),
        }
    );
}

#[test]
fn a_recorded_stream_cut_before_its_finish_is_cut_and_keeps_its_text() {
    let bytes = fixture!("adk_gemini3_after_calls.sse");
    let last = bytes.len() - 2; // the final event without its closing blank line
    let r = decode_every_way(&bytes[..last]);
    assert_eq!(r.end, Err(ProviderError::StreamCut));
    assert_eq!(
        summarize(&r.events).content,
        "The sum of 2 and 3 is 5, the sum of 4 and 5 is 9, and the sum of 6 and 7 is 13."
    );
}

fn sum_tool() -> ToolSpec {
    ToolSpec {
        exposed_name: "sum".into(),
        server_id: "calc".into(),
        server_name: "Calculator".into(),
        tool_name: "sum".into(),
        description: "sums two integers".into(),
        input_schema: json!({"additionalProperties": false, "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"], "type": "object"})
            .as_object()
            .cloned()
            .unwrap_or_default(),
        read_only: true,
    }
}

#[test]
fn recorded_calls_run_and_go_back_as_function_responses_paired_by_id_and_order() {
    let tools = [sum_tool()];
    let r = decode_every_way(fixture!("adk_gemini3_parallel_calls.sse"));
    let mut policy = ApprovalPolicy::default();
    policy.set_rule("calc", "sum", ApprovalRule::Always);
    let mut run = AgentRun::new(
        AgentConfig {
            mode: ToolMode::Native,
            step_limit: 5,
            policy,
        },
        tools.to_vec(),
    );
    run.begin_step();
    for e in &r.events {
        run.on_event(e);
    }
    let actions = run.end_step("", 1.0);
    let ids: Vec<String> = actions
        .iter()
        .filter_map(|a| match a {
            Action::StartTool { call_id, .. } => Some(call_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(ids, ["3ae8iwca", "up3kf30e", "ycroch25"]);
    let mut last = Vec::new();
    for (id, sum) in ids.iter().zip(["5", "9", "13"]) {
        let result = Ok(json!({"content": [{"type": "text", "text": sum}]}));
        last = run.tool_finished(id, result, 2.0);
    }
    assert_eq!(last, vec![Action::NextStep]);

    let question = Message::new(
        "u1".into(),
        Role::User,
        "Can you add 2 and 3? Also 4 and 5? And 6 and 7?".into(),
        0.0,
    );
    let mut answer = Message::new("a1".into(), Role::Assistant, String::new(), 1.0);
    answer.tool_calls = run.calls().to_vec();
    answer.tool_mode = Some(ToolMode::Native);
    let history = [question, answer];
    let ctx = StepContext {
        system_template: "",
        system_prompt: "",
        recap: "",
        history: &history,
        tools: &tools,
        mode: ToolMode::Native,
        result_char_limit: 1000,
        vision: false,
    };
    let req = step_request(
        "https://generativelanguage.googleapis.com/v1beta",
        Some("k"),
        &ChatParams::default(),
        &ctx,
    );
    let body: Value = serde_json::from_str(req.body.as_deref().unwrap_or_default()).unwrap();
    assert_eq!(
        body["contents"][1],
        json!({"role": "model", "parts": [
            {"functionCall": {"id": "3ae8iwca", "name": "sum", "args": {"a": 2, "b": 3}},
             "thoughtSignature": "skip_thought_signature_validator"},
            {"functionCall": {"id": "up3kf30e", "name": "sum", "args": {"a": 4, "b": 5}}},
            {"functionCall": {"id": "ycroch25", "name": "sum", "args": {"a": 6, "b": 7}}},
        ]})
    );
    assert_eq!(
        body["contents"][2],
        json!({"role": "user", "parts": [
            {"functionResponse": {"id": "3ae8iwca", "name": "sum", "response": {"output": "5"}}},
            {"functionResponse": {"id": "up3kf30e", "name": "sum", "response": {"output": "9"}}},
            {"functionResponse": {"id": "ycroch25", "name": "sum", "response": {"output": "13"}}},
        ]})
    );
    assert_eq!(
        body["tools"],
        json!([{"functionDeclarations": [{"name": "sum", "description": "sums two integers",
            "parameters": {"type": "OBJECT", "properties": {"a": {"type": "INTEGER"}, "b": {"type": "INTEGER"}}, "required": ["a", "b"]}}]}])
    );
}

#[test]
fn recorded_error_bodies_read_as_their_errors() {
    let key = std::str::from_utf8(fixture!("error_api_key_invalid.json")).unwrap();
    let e = error_from_response(400, key);
    assert_eq!(
        e,
        ProviderError::Unauthorized {
            status: 400,
            detail: "API key not valid. Please pass a valid API key.".into()
        }
    );
    assert_eq!(
        e.to_string(),
        "The provider rejected the API key (HTTP 400): API key not valid. Please pass a valid API key. Check the key in Settings."
    );
    let quota = std::str::from_utf8(fixture!("error_resource_exhausted.json")).unwrap();
    let e = error_from_response(429, quota);
    assert!(
        matches!(
            e,
            ProviderError::RateLimited {
                retry_after: Some(47),
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().ends_with("Wait 47 seconds and retry."), "{e}");
}
