//! Anthropic's documented example streams (see `tests/fixtures/anthropic/README.md`), fed whole,
//! split in two at every byte offset, and one byte at a time: every chunking must give the
//! same events. Then a whole agent round trip over the tool-use example, and the HTTP error
//! body check.

use serde_json::{json, Value};

use super::{step_request, AnthropicStream};
use crate::agent::assemble::{AssembledCall, ToolCallAssembler};
use crate::agent::{Action, AgentConfig, AgentRun};
use crate::records::approval::{ApprovalPolicy, ApprovalRule};
use crate::records::message::{Message, Role, Usage};
use crate::records::thought::Thought;
use crate::records::tool_mode::ToolMode;
use crate::seam::{error_from_response, ChatParams, ProviderError, StepContext, StreamEvent};
use crate::thinking::ThoughtLog;
use crate::tools::spec::ToolSpec;

macro_rules! fixture {
    ($name:literal) => {
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/anthropic/",
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
    let mut s = AnthropicStream::new();
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
    thoughts: Vec<Thought>,
}

fn summarize(events: &[StreamEvent]) -> Summary {
    let mut s = Summary::default();
    let mut assembler = ToolCallAssembler::new();
    let mut log = ThoughtLog::default();
    for e in events {
        s.thoughts.extend(log.on_event(e));
        match e {
            StreamEvent::Content(t) => s.content.push_str(t),
            StreamEvent::Reasoning(t) => s.reasoning.push_str(t),
            StreamEvent::Usage(u) => s.usage = Some(*u),
            StreamEvent::Finish(f) => {
                assert!(s.finish.is_none(), "two finish events");
                s.finish = Some(f.clone());
            }
            StreamEvent::Done => s.done = true,
            StreamEvent::ToolCall(d) => assembler.push(d),
            StreamEvent::Image(_) => panic!("no recording here holds an image"),
            StreamEvent::ReasoningSignature(_) | StreamEvent::RedactedReasoning(_) => {}
            StreamEvent::Progress(_) | StreamEvent::Timings(_) => {}
        }
    }
    s.calls = assembler.finish();
    s
}

fn usage(prompt_tokens: u32, completion_tokens: u32) -> Option<Usage> {
    Some(Usage {
        prompt_tokens,
        completion_tokens,
        total_tokens: prompt_tokens + completion_tokens,
    })
}

#[test]
fn docs_basic_text_stream() {
    let r = decode_every_way(fixture!("docs_basic_text.sse"));
    assert_eq!(r.end, Ok(()));
    assert_eq!(
        r.events,
        vec![
            StreamEvent::Content("Hello".into()),
            StreamEvent::Content("!".into()),
            StreamEvent::Finish("end_turn".into()),
            StreamEvent::Usage(Usage {
                prompt_tokens: 25,
                completion_tokens: 15,
                total_tokens: 40
            }),
            StreamEvent::Done,
        ]
    );
}

#[test]
fn docs_tool_use_stream_assembles_one_call() {
    let r = decode_every_way(fixture!("docs_tool_use.sse"));
    assert_eq!(r.end, Ok(()));
    assert_eq!(
        summarize(&r.events),
        Summary {
            content: "Okay, let's check the weather for San Francisco, CA:".into(),
            reasoning: String::new(),
            usage: usage(472, 89),
            finish: Some("tool_use".into()),
            done: true,
            calls: vec![AssembledCall {
                id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6".into(),
                name: "get_weather".into(),
                arguments: r#"{"location": "San Francisco, CA", "unit": "fahrenheit"}"#.into(),
            }],
            thoughts: vec![],
        }
    );
}

const REASONING: &str = concat!(
    "I need to find the GCD of 1071 and 462 using the Euclidean algorithm.\n\n",
    "1071 = 2 × 462 + 147\n462 = 3 × 147 + 21\n147 = 7 × 21 + 0\n",
    "The remainder is 0, so GCD(1071, 462) = 21."
);

#[test]
fn docs_extended_thinking_stream_has_reasoning_and_no_usage() {
    let r = decode_every_way(fixture!("docs_extended_thinking.sse"));
    assert_eq!(r.end, Ok(()));
    assert_eq!(
        summarize(&r.events),
        Summary {
            content: "The greatest common divisor of 1071 and 462 is **21**.".into(),
            reasoning: REASONING.into(),
            usage: None,
            finish: Some("end_turn".into()),
            done: true,
            calls: vec![],
            // The signature closes the thinking block, so the whole text is sealed by it.
            thoughts: vec![Thought::signed(
                REASONING.into(),
                "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds...".into(),
            )],
        }
    );
}

#[test]
fn docs_overloaded_error_event() {
    let r = decode_every_way(fixture!("docs_error_overloaded.sse"));
    assert_eq!(
        r,
        Run {
            events: vec![],
            end: Err(ProviderError::InStream("Overloaded".into())),
        }
    );
    // Mid-answer: the text already decoded is kept, then the error.
    let text = fixture!("docs_basic_text.sse");
    let cut = text.len() - "event: message_stop\ndata: {\"type\": \"message_stop\"}\n\n".len();
    let mut body = text[..cut].to_vec();
    body.extend_from_slice(fixture!("docs_error_overloaded.sse"));
    let r = decode_every_way(&body);
    assert_eq!(r.end, Err(ProviderError::InStream("Overloaded".into())));
    assert_eq!(summarize(&r.events).content, "Hello!");
}

#[test]
fn docs_tool_use_stream_without_its_last_blank_line_is_cut() {
    let bytes = fixture!("docs_tool_use.sse");
    let r = decode_every_way(&bytes[..bytes.len() - 1]);
    assert_eq!(r.end, Err(ProviderError::StreamCut));
    assert!(!r.events.contains(&StreamEvent::Done));
}

#[test]
fn http_error_bodies_are_read_by_the_shared_classifier() {
    // The shape of https://platform.claude.com/docs/en/api/errors.
    let body = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}"#;
    assert_eq!(
        error_from_response(529, body),
        ProviderError::Server {
            status: 529,
            detail: "Overloaded".into()
        }
    );
    let body =
        r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#;
    assert_eq!(
        error_from_response(401, body),
        ProviderError::Unauthorized {
            status: 401,
            detail: "invalid x-api-key".into()
        }
    );
    let body = r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}"#;
    assert_eq!(
        error_from_response(400, body),
        ProviderError::Http {
            status: 400,
            detail: "max_tokens: Field required".into()
        }
    );
    let body = r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}"#;
    assert!(matches!(
        error_from_response(429, body),
        ProviderError::RateLimited { detail, .. } if detail.starts_with("Number of request tokens")
    ));
}

fn weather_tool() -> ToolSpec {
    ToolSpec {
        exposed_name: "get_weather".into(),
        server_id: "wx".into(),
        server_name: "Weather".into(),
        tool_name: "get_weather".into(),
        description: "Get the current weather in a given location".into(),
        input_schema: json!({"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]})
            .as_object()
            .cloned()
            .unwrap(),
        read_only: true,
    }
}

#[test]
fn agent_round_trip_from_tool_use_stream_to_tool_result_request() {
    let mut policy = ApprovalPolicy::default();
    policy.set_rule("wx", "get_weather", ApprovalRule::Always);
    let config = AgentConfig {
        mode: ToolMode::Native,
        step_limit: 5,
        policy,
    };
    let mut run = AgentRun::new(config, vec![weather_tool()]);
    run.begin_step();
    let r = run_chunks(fixture!("docs_tool_use.sse"));
    let mut content = String::new();
    for e in &r {
        if let StreamEvent::Content(t) = e {
            content.push_str(t);
        }
        run.on_event(e);
    }
    let actions = run.end_step(&content, 1.0);
    let Some(Action::StartTool {
        call_id, arguments, ..
    }) = actions.first()
    else {
        panic!("{actions:?}");
    };
    assert_eq!(actions.len(), 1);
    assert_eq!(call_id, "toolu_01T1x1fJ34qAmk2tNTrN7Up6");
    assert_eq!(
        Value::Object(arguments.clone()),
        json!({"location": "San Francisco, CA", "unit": "fahrenheit"})
    );
    let result = Ok(json!({"content": [{"type": "text", "text": "15 degrees"}]}));
    assert_eq!(
        run.tool_finished(call_id, result, 2.0),
        vec![Action::NextStep]
    );

    let mut answer = Message::new("a1".into(), Role::Assistant, content, 1.0);
    answer.tool_calls = run.calls().to_vec();
    answer.tool_mode = Some(ToolMode::Native);
    let history = vec![
        Message::new(
            "u1".into(),
            Role::User,
            "What is the weather like in San Francisco?".into(),
            0.0,
        ),
        answer,
    ];
    let tools = [weather_tool()];
    let ctx = StepContext {
        system_template: "",
        system_prompt: "Be brief.",
        recap: "",
        history: &history,
        tools: &tools,
        mode: ToolMode::Native,
        result_char_limit: 1000,
        vision: false,
    };
    let params = ChatParams {
        model: "claude-opus-4-6".into(),
        ..ChatParams::default()
    };
    let req = step_request(
        "https://api.anthropic.com/v1",
        Some("sk-ant-x"),
        &params,
        &ctx,
    );
    assert_eq!(req.url, "https://api.anthropic.com/v1/messages");
    let expected = concat!(
        r#"{"model":"claude-opus-4-6","max_tokens":4096,"system":"Be brief.","messages":["#,
        r#"{"role":"user","content":[{"type":"text","text":"What is the weather like in San Francisco?"}]},"#,
        r#"{"role":"assistant","content":[{"type":"text","text":"Okay, let's check the weather for San Francisco, CA:"},"#,
        r#"{"type":"tool_use","id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","name":"get_weather","input":{"location":"San Francisco, CA","unit":"fahrenheit"}}]},"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","content":[{"type":"text","text":"15 degrees"}],"is_error":false}]}],"#,
        r#""tools":[{"name":"get_weather","description":"Get the current weather in a given location","#,
        r#""input_schema":{"properties":{"location":{"type":"string"}},"required":["location"],"type":"object"}}],"#,
        r#""stream":true}"#,
    );
    assert_eq!(req.body.as_deref(), Some(expected));
}

/// The events of a stream fed in 7-byte chunks, the way a network hands it over.
fn run_chunks(bytes: &[u8]) -> Vec<StreamEvent> {
    let r = run(bytes.chunks(7));
    assert_eq!(r.end, Ok(()));
    r.events
}
