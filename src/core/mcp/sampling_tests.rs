use serde_json::json;

use super::*;

#[test]
fn the_specifications_example_parses_whole() {
    // The request of the specification's sampling page (2025-11-25), with SEP-1577 tools.
    let params = json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "What is the capital of France?"}},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "call_1", "name": "lookup", "input": {"q": "France"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "toolUseId": "call_1", "content": [{"type": "text", "text": "Paris"}]}
            ]},
            {"role": "user", "content": {"type": "image", "mimeType": "image/png", "data": "iVBO"}}
        ],
        "modelPreferences": {
            "hints": [{"name": "claude-3-sonnet"}, {"name": " gpt "}],
            "intelligencePriority": 0.8,
            "speedPriority": 0.5,
            "costPriority": 7
        },
        "systemPrompt": "You are a helpful assistant.",
        "maxTokens": 100,
        "temperature": 0.2,
        "stopSequences": ["\n\n"],
        "includeContext": "thisServer",
        "tools": [{"name": "lookup", "description": "Look up", "inputSchema": {"type": "object"}}],
        "toolChoice": {"mode": "required"}
    });
    let r = SamplingRequest::parse(&params).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.messages.len(), 4);
    assert_eq!(r.messages[1].role, Role::Assistant);
    assert_eq!(
        r.messages[1].parts[1],
        Part::ToolUse {
            id: "call_1".into(),
            name: "lookup".into(),
            input: json!({"q": "France"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        }
    );
    assert_eq!(
        r.messages[2].parts[0],
        Part::ToolResult {
            tool_use_id: "call_1".into(),
            content: vec![Part::Text("Paris".into())],
            is_error: false,
        }
    );
    assert_eq!(r.hints, ["claude-3-sonnet", "gpt"]);
    // An out-of-range priority is left out, not clamped into a meaning.
    assert_eq!(r.priorities, [None, Some(0.5), Some(0.8)]);
    assert_eq!((r.max_tokens, r.temperature), (100, Some(0.2)));
    assert_eq!(r.stop_sequences, ["\n\n"]);
    assert_eq!(r.include_context, IncludeContext::ThisServer);
    assert_eq!(r.tools.len(), 1);
    assert_eq!(r.tool_choice, ToolChoice::Required);
    assert_eq!(r.system_prompt, "You are a helpful assistant.");
}

#[test]
fn malformed_requests_are_sentences_for_the_server() {
    let base = || json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10});
    assert!(SamplingRequest::parse(&base()).is_ok());
    let cases: Vec<(Value, &str)> = vec![
        (json!({"maxTokens": 10}), "Invalid sampling request: messages must be a non-empty array"),
        (json!({"messages": [], "maxTokens": 10}), "Invalid sampling request: messages must be a non-empty array"),
        ({ let mut v = base(); v["maxTokens"] = json!(0); v }, "Invalid sampling request: maxTokens must be a positive whole number"),
        ({ let mut v = base(); v.as_object_mut().map(|o| o.remove("maxTokens")); v }, "Invalid sampling request: maxTokens must be a positive whole number"),
        ({ let mut v = base(); v["messages"][0]["role"] = json!("system"); v }, "Invalid sampling request: message 1 has no role user or assistant"),
        ({ let mut v = base(); v["messages"][0]["content"] = json!({"type": "video"}); v }, "Invalid sampling request: message 1 has a content type \u{201c}video\u{201d} Skiff cannot send"),
        ({ let mut v = base(); v["messages"][0]["content"] = json!({"type": "tool_use", "id": "a", "name": "b", "input": {}}); v }, "Invalid sampling request: message 1 has a tool block in the wrong role"),
        ({ let mut v = base(); v["tools"] = json!([{"name": "t"}]); v }, "Invalid sampling request: tool 1 has no inputSchema object"),
        ({ let mut v = base(); v["toolChoice"] = json!({"mode": "sometimes"}); v }, "Invalid sampling request: toolChoice mode \u{201c}sometimes\u{201d} is unknown"),
    ];
    for (params, sentence) in cases {
        let e = SamplingRequest::parse(&params)
            .err()
            .unwrap_or(SamplingError::Declined);
        assert_eq!(e.to_string(), sentence);
        assert_eq!(e.code(), -32602);
    }
}

#[test]
fn hints_pick_among_the_users_models_only() {
    let mine = vec![
        "claude-sonnet-4-5".to_string(),
        "gpt-4o-mini".to_string(),
        "gemini-2.5-flash".to_string(),
    ];
    let pick = |hints: &[&str]| {
        let hints: Vec<String> = hints.iter().map(|s| s.to_string()).collect();
        pick_model(&hints, &mine, "chosen-for-sampling").to_string()
    };
    assert_eq!(pick(&["sonnet", "gpt"]), "claude-sonnet-4-5");
    assert_eq!(pick(&["o3", "GPT-4o"]), "gpt-4o-mini");
    assert_eq!(pick(&["some-model-i-do-not-have"]), "chosen-for-sampling");
    assert_eq!(pick(&[]), "chosen-for-sampling");
}

#[test]
fn the_result_says_how_the_answer_stopped() {
    assert_eq!(
        result("Paris.", &[], "gpt-4o-mini", Some("stop")),
        json!({"role": "assistant", "content": {"type": "text", "text": "Paris."}, "model": "gpt-4o-mini", "stopReason": "endTurn"})
    );
    assert_eq!(
        result("", &[], "m", Some("length"))["stopReason"],
        "maxTokens"
    );
    assert_eq!(
        result("", &[], "m", Some("MAX_TOKENS"))["stopReason"],
        "maxTokens"
    );
    assert_eq!(
        result("", &[], "m", Some("stop_sequence"))["stopReason"],
        "stopSequence"
    );
    let input = json!({"q": "x"}).as_object().cloned().unwrap_or_default();
    assert_eq!(
        result(
            "Looking.",
            &[("c1".into(), "lookup".into(), input)],
            "m",
            Some("tool_calls")
        ),
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "Looking."},
            {"type": "tool_use", "id": "c1", "name": "lookup", "input": {"q": "x"}}
        ], "model": "m", "stopReason": "toolUse"})
    );
}

#[test]
fn a_flooding_server_is_refused_while_others_are_not() {
    let mut l = Limiter::default();
    for i in 0..PER_WINDOW {
        assert!(l.admit("noisy", i as f64).is_ok());
    }
    let e = l.admit("noisy", 10.0).err();
    assert_eq!(
        e,
        Some(SamplingError::Flood {
            per_minute: PER_WINDOW
        })
    );
    assert_eq!(
        e.map(|e| e.to_string()).unwrap_or_default(),
        "Too many sampling requests: at most 5 a minute are shown to the user."
    );
    assert!(l.admit("quiet", 10.0).is_ok());
    // A minute after the first, room again.
    assert!(l.admit("noisy", WINDOW_MS + 0.5).is_ok());
    assert_eq!(
        SamplingError::Declined.to_string(),
        "User rejected sampling request"
    );
    assert_eq!(SamplingError::Declined.code(), -1);
}
