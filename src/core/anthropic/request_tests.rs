use serde_json::json;

use super::*;

fn msg(role: Role, content: &str) -> Message {
    Message::new(format!("m-{content}"), role, content.into(), 0.0)
}

fn done(id: &str, name: &str, arguments: &str, result: Value) -> ToolCallRecord {
    let mut r = ToolCallRecord::new(id.into(), name.into(), arguments.into());
    r.server_id = Some("srv".into());
    r.tool_name = name.into();
    r.start(0.0);
    r.finish(result, 1.0);
    r
}

fn answer(content: &str, mode: ToolMode, calls: Vec<ToolCallRecord>) -> Message {
    let mut m = msg(Role::Assistant, content);
    m.tool_calls = calls;
    m.tool_mode = Some(mode);
    m
}

fn echo() -> ToolSpec {
    ToolSpec {
        exposed_name: "echo".into(),
        server_id: "srv".into(),
        server_name: "Server".into(),
        tool_name: "echo".into(),
        description: String::new(),
        input_schema: Map::new(),
        read_only: false,
    }
}

fn ctx<'a>(history: &'a [Message], tools: &'a [ToolSpec], mode: ToolMode) -> StepContext<'a> {
    StepContext {
        system_template: "",
        system_prompt: "",
        recap: "",
        history,
        tools,
        mode,
        result_char_limit: 1000,
        vision: true,
    }
}

fn lit(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

#[test]
fn headers_url_and_defaults() {
    let req = step_request(
        "https://api.anthropic.com/v1/",
        Some(" sk-ant-1 "),
        &ChatParams {
            model: " claude-x ".into(),
            temperature: Some(1.7),
            top_p: Some(0.5),
            max_tokens: Some(0),
            ..ChatParams::default()
        },
        &ctx(&[msg(Role::User, "hi")], &[], ToolMode::Off),
    );
    assert_eq!(req.method, Method::Post);
    assert_eq!(req.url, "https://api.anthropic.com/v1/messages");
    let h: Vec<(&str, &str)> = req
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        h,
        [
            ("x-api-key", "sk-ant-1"),
            ("anthropic-version", "2023-06-01"),
            ("content-type", "application/json"),
            ("anthropic-dangerous-direct-browser-access", "true"),
        ]
    );
    assert_eq!(
        req.body.as_deref(),
        Some(
            r#"{"model":"claude-x","max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"stream":true,"temperature":1.0,"top_p":0.5}"#
        )
    );
    let req = step_request(
        "http://h/v1",
        Some("  "),
        &ChatParams::default(),
        &ctx(&[], &[], ToolMode::Off),
    );
    assert_eq!(req.header("x-api-key"), None);
}

#[test]
fn native_parallel_calls_errors_images_and_merged_turns() {
    let image = json!({"content": [
        {"type": "text", "text": "a chart"},
        {"type": "image", "data": "iVBORw0=", "mimeType": "image/png"},
        {"type": "image", "data": "AAAA", "mimeType": "image/tiff"}
    ]});
    let mut denied = ToolCallRecord::new("call:2".into(), "echo".into(), "[1]".into());
    denied.deny(0.0);
    let history = vec![
        msg(Role::System, "Old system note."),
        msg(Role::User, "first"),
        msg(Role::User, "second"),
        answer(
            "",
            ToolMode::Native,
            vec![done("toolu_1", "echo", r#"{"message":"x"}"#, image), denied],
        ),
        msg(Role::User, "thanks"),
        msg(Role::Assistant, "   "),
    ];
    let tools = [echo()];
    let mut c = ctx(&history, &tools, ToolMode::Native);
    c.system_prompt = "Be brief.";
    let body = step_request("http://h/v1", None, &ChatParams::default(), &c)
        .body
        .unwrap();
    let denied_text = result::for_model(&history[3].tool_calls[1], 1000).text;
    let expected = format!(
        concat!(
            r#"{{"model":"","max_tokens":4096,"system":"Be brief.\n\nOld system note.","messages":["#,
            r#"{{"role":"user","content":[{{"type":"text","text":"first"}},{{"type":"text","text":"second"}}]}},"#,
            r#"{{"role":"assistant","content":[{{"type":"tool_use","id":"toolu_1","name":"echo","input":{{"message":"x"}}}},"#,
            r#"{{"type":"tool_use","id":"call_2","name":"echo","input":{{}}}}]}},"#,
            r#"{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_1","content":[{{"type":"text","text":"a chart\n[image: image/png, 5 bytes]\n[image: image/tiff, 3 bytes]"}},"#,
            r#"{{"type":"image","source":{{"type":"base64","media_type":"image/png","data":"iVBORw0="}}}}],"is_error":false}},"#,
            r#"{{"type":"tool_result","tool_use_id":"call_2","content":[{{"type":"text","text":{denied}}}],"is_error":true}},"#,
            r#"{{"type":"text","text":"thanks"}}]}}],"#,
            r#""tools":[{{"name":"echo","input_schema":{{"type":"object"}}}}],"stream":true}}"#
        ),
        denied = lit(&denied_text)
    );
    assert_eq!(body, expected);
}

#[test]
fn prompt_and_off_modes_replay_calls_as_text() {
    let call = done(
        "toolu_1",
        "echo",
        r#"{"message":"x"}"#,
        json!({"content": [{"type": "text", "text": "x"}]}),
    );
    let history = vec![
        msg(Role::User, "go"),
        answer("Calling.", ToolMode::Native, vec![call.clone()]),
    ];
    let tools = [echo()];
    let turn = prompt::response_turn(&history[1].tool_calls, 1000);
    let assistant = format!("Calling.\n\n{}", prompt::call_block(&call));
    for mode in [ToolMode::Prompt, ToolMode::Off] {
        let mut c = ctx(&history, &tools, mode);
        c.vision = false;
        let body = step_request("http://h/v1", None, &ChatParams::default(), &c)
            .body
            .unwrap();
        let system = match mode {
            ToolMode::Prompt => format!(
                r#""system":{},"#,
                lit(&prompt::system_prompt_section(&tools))
            ),
            _ => String::new(),
        };
        let expected = format!(
            concat!(
                r#"{{"model":"","max_tokens":4096,{system}"messages":["#,
                r#"{{"role":"user","content":[{{"type":"text","text":"go"}}]}},"#,
                r#"{{"role":"assistant","content":[{{"type":"text","text":{assistant}}}]}},"#,
                r#"{{"role":"user","content":[{{"type":"text","text":{turn}}}]}}],"stream":true}}"#
            ),
            system = system,
            assistant = lit(&assistant),
            turn = lit(&turn),
        );
        assert_eq!(body, expected, "{mode:?}");
    }
}

#[test]
fn a_stopped_answer_to_continue_ends_the_request_without_trailing_whitespace() {
    let history = [
        msg(Role::User, "Write a poem"),
        msg(Role::Assistant, "Roses are red,\n\n"),
    ];
    let req = step_request(
        "https://api.anthropic.com/v1",
        None,
        &ChatParams::default(),
        &ctx(&history, &[], ToolMode::Off),
    );
    let body: Value = serde_json::from_str(req.body.as_deref().unwrap_or("")).unwrap();
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "Write a poem"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "Roses are red,"}]}
        ])
    );
    // An assistant turn in the middle keeps its text as written.
    let history = [
        msg(Role::User, "a"),
        msg(Role::Assistant, "b \n"),
        msg(Role::User, "c"),
    ];
    let req = step_request(
        "https://api.anthropic.com/v1",
        None,
        &ChatParams::default(),
        &ctx(&history, &[], ToolMode::Off),
    );
    let body: Value = serde_json::from_str(req.body.as_deref().unwrap_or("")).unwrap();
    assert_eq!(body["messages"][1]["content"][0]["text"], "b \n");
}

fn thinking(budget: u32) -> ChatParams {
    ChatParams {
        model: "claude-t".into(),
        thinking_budget: Some(budget),
        ..ChatParams::default()
    }
}

#[test]
fn thinking_on_sends_its_budget_no_temperature_and_room_above_the_budget() {
    let history = [msg(Role::User, "hi")];
    let body = |p: &ChatParams| {
        step_request("http://h/v1", None, p, &ctx(&history, &[], ToolMode::Off))
            .body
            .unwrap()
    };
    // The default answer room (4096) is above a 2000 budget: unchanged. Temperature is left
    // out, top_p raised into 0.95–1.
    let p = ChatParams {
        temperature: Some(0.3),
        top_p: Some(0.5),
        ..thinking(2000)
    };
    assert_eq!(
        body(&p),
        r#"{"model":"claude-t","max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":2000},"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"stream":true,"top_p":0.95}"#
    );
    // A budget at or above max_tokens: the answer room comes on top of it.
    let p = ChatParams {
        max_tokens: Some(1000),
        ..thinking(16000)
    };
    assert!(body(&p).starts_with(
        r#"{"model":"claude-t","max_tokens":17000,"thinking":{"type":"enabled","budget_tokens":16000},"#
    ));
    // Below the API's minimum: raised to 1024 (and max_tokens still above it).
    let p = ChatParams {
        max_tokens: Some(512),
        ..thinking(100)
    };
    assert!(body(&p).starts_with(
        r#"{"model":"claude-t","max_tokens":1536,"thinking":{"type":"enabled","budget_tokens":1024},"#
    ));
    // A budget of 0 is no thinking: temperature goes as before.
    let p = ChatParams {
        temperature: Some(0.3),
        ..thinking(0)
    };
    assert_eq!(
        body(&p),
        r#"{"model":"claude-t","max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"stream":true,"temperature":0.3}"#
    );
}

fn signed(model: &str) -> Message {
    let mut m = answer(
        "Let me echo.",
        ToolMode::Native,
        vec![done("toolu_1", "echo", r#"{"message":"x"}"#, text("x"))],
    );
    m.model = Some(model.into());
    m.reasoning = "I should echo.".into();
    m.thinking = vec![
        Thought::signed("I should echo.".into(), "EqQBsig==".into()),
        Thought::redacted("EmwKAhgBEgy3va3pzix/LafPsn4a".into()),
    ];
    m
}

fn text(t: &str) -> Value {
    json!({"content": [{"type": "text", "text": t}]})
}

#[test]
fn a_tool_loop_with_thinking_gives_back_the_signed_thinking_first_in_the_turn() {
    let history = [msg(Role::User, "echo x"), signed("claude-t")];
    let tools = [echo()];
    let body = step_request(
        "http://h/v1",
        None,
        &thinking(2048),
        &ctx(&history, &tools, ToolMode::Native),
    )
    .body
    .unwrap();
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        v["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "echo x"}]},
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "I should echo.", "signature": "EqQBsig=="},
                {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"},
                {"type": "text", "text": "Let me echo."},
                {"type": "tool_use", "id": "toolu_1", "name": "echo", "input": {"message": "x"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "x"}], "is_error": false}
            ]}
        ])
    );
}

#[test]
fn thinking_goes_back_only_to_its_own_model_with_thinking_on_and_only_when_signed() {
    let tools = [echo()];
    let assistant_turn = |history: &[Message], p: &ChatParams| {
        let body = step_request(
            "http://h/v1",
            None,
            p,
            &ctx(history, &tools, ToolMode::Native),
        )
        .body
        .unwrap();
        let v: Value = serde_json::from_str(&body).unwrap();
        v["messages"][1]["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["type"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    let no_thinking = ["text", "tool_use"];
    // Another model's signature would be refused.
    let other = [msg(Role::User, "echo x"), signed("claude-other")];
    assert_eq!(assistant_turn(&other, &thinking(2048)), no_thinking);
    // This request does not think.
    let same = [msg(Role::User, "echo x"), signed("claude-t")];
    let off = ChatParams {
        model: "claude-t".into(),
        ..ChatParams::default()
    };
    assert_eq!(assistant_turn(&same, &off), no_thinking);
    // Shown reasoning that nothing signed (another provider's, an older record) never goes.
    let mut unsigned = signed("claude-t");
    unsigned.thinking.clear();
    let history = [msg(Role::User, "echo x"), unsigned];
    assert_eq!(assistant_turn(&history, &thinking(2048)), no_thinking);
    // A message without a model (an older record) is never assumed to be this model's.
    let mut anon = signed("claude-t");
    anon.model = None;
    let history = [msg(Role::User, "echo x"), anon];
    assert_eq!(assistant_turn(&history, &thinking(2048)), no_thinking);
    // The control: the same message, same model, thinking on.
    assert_eq!(
        assistant_turn(&same, &thinking(2048)),
        ["thinking", "redacted_thinking", "text", "tool_use"]
    );
}

#[test]
fn a_message_without_thinking_saves_as_before_and_an_old_record_loads() {
    let old = r#"{"id":"a","role":"assistant","content":"hi","reasoning":"hm","created_ms":0.0,"status":{"kind":"done"}}"#;
    let m: Message = serde_json::from_str(old).unwrap();
    assert!(m.thinking.is_empty());
    assert_eq!(serde_json::to_string(&m).unwrap(), old);
    let with = signed("claude-t");
    let back: Message = serde_json::from_str(&serde_json::to_string(&with).unwrap()).unwrap();
    assert_eq!(back.thinking, with.thinking);
}
