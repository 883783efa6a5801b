use serde_json::{json, Value};

use super::*;
use crate::provider::{Provider, ProviderKind, StepContext};
use crate::records::tool_call::ToolCallStatus;

/// A server's second request of a tool loop: the question, the model's call, its result.
fn weather_exchange() -> Value {
    json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Weather in Paris?"}},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Let me look."},
                {"type": "tool_use", "id": "call_w1", "name": "get_weather", "input": {"city": "Paris"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "toolUseId": "call_w1", "content": [{"type": "text", "text": "Sunny, 21 C"}]}
            ]}
        ],
        "systemPrompt": "You report the weather.",
        "maxTokens": 200,
        "temperature": 0.3,
        "stopSequences": ["END"],
        "tools": [{"name": "get_weather", "description": "Current weather for a city",
                   "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}],
        "toolChoice": {"mode": "auto"}
    })
}

fn call_of(params: &Value) -> SampleCall {
    let r = SamplingRequest::parse(params).unwrap_or_else(|e| panic!("{e}"));
    SampleCall::from_request(&r, None)
}

/// The request body `kind`'s provider would send for this call, as JSON.
fn body(kind: ProviderKind, call: &SampleCall) -> Value {
    let mut provider = Provider::new(kind, "http://127.0.0.1:9/v1", "", Default::default())
        .unwrap_or_else(|e| panic!("{e}"));
    call.apply(provider.params_mut());
    let specs = call.tool_specs();
    let ctx = StepContext {
        system_template: "",
        system_prompt: &call.system,
        recap: "",
        history: &call.messages,
        tools: &specs,
        mode: call.tool_mode(),
        result_char_limit: 16_000,
        vision: false,
    };
    let req = provider.step_request(&ctx);
    serde_json::from_str(req.body.as_deref().unwrap_or("")).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_tool_exchange_becomes_the_conversations_calls_and_results() {
    let call = call_of(&weather_exchange());
    assert_eq!(
        call.messages.len(),
        2,
        "the tool result joins the call it answers"
    );
    let asked = &call.messages[1];
    assert_eq!(asked.content, "Let me look.");
    assert_eq!(asked.tool_mode, Some(ToolMode::Native));
    let record = &asked.tool_calls[0];
    assert_eq!(
        (record.id.as_str(), record.name.as_str()),
        ("call_w1", "get_weather")
    );
    assert_eq!(record.arguments, r#"{"city":"Paris"}"#);
    assert_eq!(record.status(), &ToolCallStatus::Done);
    assert_eq!(
        record.result(),
        Some(&json!({"content": [{"type": "text", "text": "Sunny, 21 C"}], "isError": false}))
    );
}

#[test]
fn every_provider_gets_the_tools_calls_and_results_in_its_own_words() {
    let call = call_of(&weather_exchange());

    let openai = body(ProviderKind::OpenAiCompatible, &call);
    assert_eq!(openai["tools"][0]["function"]["name"], "get_weather");
    assert_eq!(
        openai["tools"][0]["function"]["parameters"]["required"],
        json!(["city"])
    );
    assert_eq!(openai["max_tokens"], 200);
    assert_eq!(openai["stop"], json!(["END"]));
    assert!(openai.get("tool_choice").is_none(), "auto is the default");
    let m = &openai["messages"];
    assert_eq!(
        m[0],
        json!({"role": "system", "content": "You report the weather."})
    );
    assert_eq!(m[2]["tool_calls"][0]["id"], "call_w1");
    assert_eq!(
        m[2]["tool_calls"][0]["function"]["arguments"],
        r#"{"city":"Paris"}"#
    );
    assert_eq!(m[3]["role"], "tool");
    assert_eq!(m[3]["tool_call_id"], "call_w1");
    assert_eq!(m[3]["content"], "Sunny, 21 C");

    let anthropic = body(ProviderKind::Anthropic, &call);
    assert_eq!(anthropic["tools"][0]["name"], "get_weather");
    assert_eq!(anthropic["stop_sequences"], json!(["END"]));
    assert_eq!(anthropic["system"], "You report the weather.");
    let text = anthropic["messages"].to_string();
    assert!(
        text.contains(r#""type":"tool_use""#) && text.contains(r#""tool_use_id":"call_w1""#),
        "{text}"
    );
    assert!(text.contains("Sunny, 21 C"), "{text}");

    let gemini = body(ProviderKind::Gemini, &call);
    assert_eq!(
        gemini["tools"][0]["functionDeclarations"][0]["name"],
        "get_weather"
    );
    assert_eq!(gemini["generationConfig"]["stopSequences"], json!(["END"]));
    let text = gemini["contents"].to_string();
    assert!(
        text.contains("functionCall") && text.contains("functionResponse"),
        "{text}"
    );
}

#[test]
fn tool_choice_required_forces_a_call_and_none_offers_no_tools() {
    let mut params = weather_exchange();
    params["toolChoice"] = json!({"mode": "required"});
    let call = call_of(&params);
    assert_eq!(
        body(ProviderKind::OpenAiCompatible, &call)["tool_choice"],
        "required"
    );
    assert_eq!(
        body(ProviderKind::Anthropic, &call)["tool_choice"],
        json!({"type": "any"})
    );
    assert_eq!(
        body(ProviderKind::Gemini, &call)["toolConfig"],
        json!({"functionCallingConfig": {"mode": "ANY"}})
    );

    params["toolChoice"] = json!({"mode": "none"});
    let call = call_of(&params);
    assert_eq!(call.tool_mode(), ToolMode::Off);
    for kind in [
        ProviderKind::OpenAiCompatible,
        ProviderKind::Anthropic,
        ProviderKind::Gemini,
    ] {
        let b = body(kind, &call);
        assert!(b.get("tools").is_none(), "{kind:?}: {b}");
        assert!(
            b.get("tool_choice").is_none() && b.get("toolConfig").is_none(),
            "{b}"
        );
    }
    // The earlier exchange still reaches the model, as text.
    let text = body(ProviderKind::OpenAiCompatible, &call)["messages"].to_string();
    assert!(text.contains("Sunny, 21 C"), "{text}");
}

#[test]
fn tool_results_must_answer_the_calls_right_before_them() {
    let cases: Vec<(Value, &str)> = vec![
        (
            json!([{"role": "user", "content": [{"type": "tool_result", "toolUseId": "x", "content": []}]}]),
            "Invalid sampling request: message 1 has a tool result for \u{201c}x\u{201d}, which the message before it did not call",
        ),
        (
            json!([
                {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}]},
                {"role": "user", "content": {"type": "text", "text": "never mind"}}
            ]),
            "Invalid sampling request: message 2 does not answer the tool call \u{201c}a\u{201d} of the message before it",
        ),
        (
            json!([
                {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "toolUseId": "a", "content": []},
                    {"type": "text", "text": "and also"}
                ]}
            ]),
            "Invalid sampling request: message 2 mixes tool results with other content; tool results come alone",
        ),
        (
            json!([
                {"role": "user", "content": {"type": "text", "text": "go"}},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}]}
            ]),
            "Invalid sampling request: the last message calls the tool \u{201c}a\u{201d}; its result must follow before the model can answer",
        ),
        (
            json!([
                {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "toolUseId": "a", "content": []}]},
                {"role": "user", "content": [{"type": "tool_result", "toolUseId": "a", "content": []}]}
            ]),
            "Invalid sampling request: message 3 has a tool result for \u{201c}a\u{201d}, which the message before it did not call",
        ),
    ];
    for (messages, want) in cases {
        let params = json!({"messages": messages, "maxTokens": 10});
        let got = SamplingRequest::parse(&params).map(|_| ());
        assert_eq!(
            got,
            Err(SamplingError::Invalid(
                want["Invalid sampling request: ".len()..].into()
            )),
            "{messages}"
        );
        assert_eq!(
            got.map_err(|e| (e.code(), e.to_string())),
            Err((-32602, want.to_string()))
        );
    }
}

#[test]
fn the_models_calls_go_back_as_tool_use_blocks_after_its_text() {
    let answer = SampledAnswer {
        text: "Checking.".into(),
        model: "m1".into(),
        finish: Some("tool_calls".into()),
        calls: vec![
            call("call_1", "get_weather", "{\"city\":\"Paris\"}"),
            call("call_2", "get_time", ""),
        ],
    };
    let result = answer_result(&answer, true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        result,
        json!({"role": "assistant", "model": "m1", "stopReason": "toolUse", "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "tool_use", "id": "call_2", "name": "get_time", "input": {}}
        ]})
    );
    assert_eq!(
        calls_said(&result),
        "\nYour model asks to call get_weather({\"city\":\"Paris\"})\nYour model asks to call get_time({})"
    );
    // Not offered tools: a call is not passed on, the text is.
    let plain = answer_result(&answer, false).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        plain["content"],
        json!({"type": "text", "text": "Checking."})
    );
    assert_eq!(plain["stopReason"], "endTurn");
    assert_eq!(calls_said(&plain), "");
    // Cut short by the token cap, in the protocol's words.
    let cut = SampledAnswer {
        text: "Sun".into(),
        model: "m1".into(),
        finish: Some("length".into()),
        calls: Vec::new(),
    };
    assert_eq!(
        answer_result(&cut, true).map(|r| r["stopReason"].clone()),
        Ok(json!("maxTokens"))
    );
}

#[test]
fn a_call_the_server_could_not_read_is_a_sentence_not_an_answer() {
    let bad = SampledAnswer {
        calls: vec![call("c", "get_weather", "[1,2]")],
        ..SampledAnswer::default()
    };
    assert_eq!(
        answer_result(&bad, true),
        Err("Your model asked to call get_weather with arguments that are not a JSON object, so nothing was sent. Try again or deny.".into())
    );
    let nameless = SampledAnswer {
        calls: vec![call("c", "", "{}")],
        ..SampledAnswer::default()
    };
    assert_eq!(
        answer_result(&nameless, true),
        Err("Your model asked for a tool call without a name or id, so nothing was sent.".into())
    );
}

fn call(id: &str, name: &str, arguments: &str) -> SampledCall {
    SampledCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}
