use super::*;

fn ev(kind: &str, data: &str) -> String {
    format!("event: {kind}\ndata: {data}\n\n")
}

const START: &str =
    r#"{"type":"message_start","message":{"usage":{"input_tokens":10,"output_tokens":1}}}"#;
const STOP: &str = r#"{"type":"message_stop"}"#;

fn text(t: &str) -> String {
    ev(
        "content_block_delta",
        &format!(
            r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":{}}}}}"#,
            serde_json::to_string(t).unwrap()
        ),
    )
}

#[test]
fn error_event_first_fails_at_once_and_stays_failed() {
    let mut s = AnthropicStream::new();
    let body = ev(
        "error",
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    );
    let e = ProviderError::InStream("Overloaded".into());
    assert_eq!(s.feed(body.as_bytes()), Err(e.clone()));
    assert_eq!(s.feed(text("late").as_bytes()), Err(e.clone()));
    assert_eq!(s.finish(), Err(e));
}

#[test]
fn events_before_an_error_are_kept_and_the_error_comes_next() {
    let mut s = AnthropicStream::new();
    let body = format!(
        "{}{}{}{}",
        ev("message_start", START),
        text("Hi"),
        ev(
            "error",
            r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#
        ),
        text("never decoded"),
    );
    assert_eq!(
        s.feed(body.as_bytes()),
        Ok(vec![StreamEvent::Content("Hi".into())])
    );
    let e = ProviderError::InStream("Internal server error".into());
    assert_eq!(s.feed(b""), Err(e.clone()));
    assert_eq!(s.finish(), Err(e));
}

#[test]
fn error_without_a_message_says_its_type_and_a_non_json_error_its_text() {
    let mut s = AnthropicStream::new();
    let body = ev(
        "error",
        r#"{"type":"error","error":{"type":"overloaded_error"}}"#,
    );
    assert_eq!(
        s.feed(body.as_bytes()),
        Err(ProviderError::InStream("overloaded_error".into()))
    );
    let mut s = AnthropicStream::new();
    assert_eq!(
        s.feed(ev("error", "upstream timed out").as_bytes()),
        Err(ProviderError::InStream("upstream timed out".into()))
    );
}

#[test]
fn malformed_json_is_malformed() {
    let mut s = AnthropicStream::new();
    match s.feed(ev("content_block_delta", "{\"type\":").as_bytes()) {
        Err(ProviderError::Malformed(m)) => assert!(m.contains("not valid JSON"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_body_ending_before_message_stop_is_cut_even_after_a_stop_reason() {
    let mut s = AnthropicStream::new();
    let body = format!(
        "{}{}{}",
        ev("message_start", START),
        text("Hel"),
        ev(
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":3}}"#
        ),
    );
    let events = s.feed(body.as_bytes()).unwrap();
    assert_eq!(
        events,
        vec![
            StreamEvent::Content("Hel".into()),
            StreamEvent::Finish("end_turn".into()),
            StreamEvent::Usage(Usage {
                prompt_tokens: 10,
                completion_tokens: 3,
                total_tokens: 13
            }),
        ]
    );
    assert!(!s.is_complete());
    assert_eq!(s.finish(), Err(ProviderError::StreamCut));
    // The final event without its blank line is dropped, per the SSE rules.
    let mut s = AnthropicStream::new();
    s.feed(format!("{}data: {STOP}\n", ev("message_start", START)).as_bytes())
        .unwrap();
    assert_eq!(s.finish(), Err(ProviderError::StreamCut));
}

#[test]
fn nothing_after_message_stop_is_decoded() {
    let mut s = AnthropicStream::new();
    let body = format!(
        "{}{}{}",
        ev("message_stop", STOP),
        text("extra"),
        ev("error", "{}")
    );
    assert_eq!(s.feed(body.as_bytes()), Ok(vec![StreamEvent::Done]));
    assert!(s.is_complete());
    assert_eq!(s.finish(), Ok(vec![]));
}

#[test]
fn server_tool_input_and_unknown_events_are_ignored_client_tools_are_not() {
    let mut s = AnthropicStream::new();
    let body = [
        ev("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}"#),
        ev("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\":\"x\"}"}}"#),
        ev("brand_new_event", r#"{"type":"brand_new_event","stuff":1}"#),
        ev("content_block_delta", r#"{"type":"content_block_delta","index":1,"delta":{"type":"citations_delta","citation":{}}}"#),
        ev("content_block_start", r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_9","name":"echo","input":{"message":"whole"}}}"#),
        ev("content_block_delta", r#"{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{}"}}"#),
        ev("ping", r#"{"type": "ping"}"#),
    ]
    .concat();
    assert_eq!(
        s.feed(body.as_bytes()),
        Ok(vec![StreamEvent::ToolCall(ToolCallDelta {
            index: 2,
            id: Some("toolu_9".into()),
            name: Some("echo".into()),
            arguments: r#"{"message":"whole"}"#.into(),
        })])
    );
}

#[test]
fn usage_counts_cached_prompt_tokens_and_takes_a_restated_input_count() {
    let mut s = AnthropicStream::new();
    let body = [
        ev("message_start", r#"{"type":"message_start","message":{"usage":{"input_tokens":5,"cache_creation_input_tokens":100,"cache_read_input_tokens":1000,"output_tokens":1}}}"#),
        ev("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":7}}"#),
        ev("message_delta", r#"{"type":"message_delta","delta":{},"usage":{"input_tokens":20,"output_tokens":9}}"#),
    ]
    .concat();
    assert_eq!(
        s.feed(body.as_bytes()),
        Ok(vec![
            StreamEvent::Finish("tool_use".into()),
            StreamEvent::Usage(Usage {
                prompt_tokens: 1105,
                completion_tokens: 7,
                total_tokens: 1112
            }),
            StreamEvent::Usage(Usage {
                prompt_tokens: 20,
                completion_tokens: 9,
                total_tokens: 29
            }),
        ])
    );
}

/// A thinking block whose signature comes in two `signature_delta`s, a `redacted_thinking`
/// block, a `ping` between them, then a tool call; every split of the body gives the same
/// events, and the seal comes after all of its text.
#[test]
fn signatures_and_redacted_thinking_survive_every_split() {
    let body = [
        ev("message_start", START),
        ev(
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}"#,
        ),
        ev(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Echo it, × twice."}}"#,
        ),
        ev(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}"#,
        ),
        ev("ping", r#"{"type": "ping"}"#),
        ev(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"Cg=="}}"#,
        ),
        ev(
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        ev(
            "content_block_start",
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"EmwKAhgB"}}"#,
        ),
        ev(
            "content_block_stop",
            r#"{"type":"content_block_stop","index":1}"#,
        ),
        ev(
            "content_block_start",
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_9","name":"echo","input":{}}}"#,
        ),
        ev(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{}"}}"#,
        ),
        ev(
            "content_block_stop",
            r#"{"type":"content_block_stop","index":2}"#,
        ),
        ev(
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":7}}"#,
        ),
        ev("message_stop", STOP),
    ]
    .concat();
    let bytes = body.as_bytes();
    let decode = |chunks: &[&[u8]]| {
        let mut s = AnthropicStream::new();
        let mut out = Vec::new();
        for c in chunks {
            out.extend(s.feed(c).unwrap());
        }
        out.extend(s.finish().unwrap());
        out
    };
    let whole = decode(&[bytes]);
    assert_eq!(
        whole,
        vec![
            StreamEvent::Reasoning("Echo it, × twice.".into()),
            StreamEvent::ReasoningSignature("EqQBCg==".into()),
            StreamEvent::RedactedReasoning("EmwKAhgB".into()),
            StreamEvent::ToolCall(ToolCallDelta {
                index: 2,
                id: Some("toolu_9".into()),
                name: Some("echo".into()),
                arguments: String::new(),
            }),
            StreamEvent::ToolCall(ToolCallDelta {
                index: 2,
                id: None,
                name: None,
                arguments: "{}".into(),
            }),
            StreamEvent::Finish("tool_use".into()),
            StreamEvent::Usage(Usage {
                prompt_tokens: 10,
                completion_tokens: 7,
                total_tokens: 17
            }),
            StreamEvent::Done,
        ]
    );
    for i in 0..=bytes.len() {
        assert_eq!(
            decode(&[&bytes[..i], &bytes[i..]]),
            whole,
            "split at byte {i}"
        );
    }
    let ones: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(decode(&ones), whole, "one byte at a time");
}

#[test]
fn a_thinking_block_sent_whole_or_unsigned() {
    let mut s = AnthropicStream::new();
    let body = [
        ev(
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"All at once.","signature":"SIG"}}"#,
        ),
        ev("content_block_stop", r#"{"type":"content_block_stop","index":0}"#),
        // A proxy that streams thinking without signing it: no seal.
        ev(
            "content_block_start",
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"thinking","thinking":""}}"#,
        ),
        ev(
            "content_block_delta",
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"unsigned"}}"#,
        ),
        ev("content_block_stop", r#"{"type":"content_block_stop","index":1}"#),
        ev("message_stop", STOP),
    ]
    .concat();
    assert_eq!(
        s.feed(body.as_bytes()).unwrap(),
        vec![
            StreamEvent::Reasoning("All at once.".into()),
            StreamEvent::ReasoningSignature("SIG".into()),
            StreamEvent::Reasoning("unsigned".into()),
            StreamEvent::Done,
        ]
    );
}
