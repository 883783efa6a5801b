use serde_json::json;

use super::*;
use crate::records::tool_call::ToolCallRecord;

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

fn tool(name: &str, schema: Value) -> ToolSpec {
    ToolSpec {
        exposed_name: name.into(),
        server_id: "srv".into(),
        server_name: "Server".into(),
        tool_name: name.into(),
        description: format!("The {name} tool"),
        input_schema: schema.as_object().cloned().unwrap_or_default(),
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

fn text(r: &str) -> Value {
    json!({"content": [{"type": "text", "text": r}]})
}

fn lit(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

#[test]
fn url_key_header_and_generation_config() {
    let req = step_request(
        "https://generativelanguage.googleapis.com/v1beta/",
        Some(" AIza-key "),
        &ChatParams {
            model: " models/gemini-2.5-flash ".into(),
            temperature: Some(1.5),
            top_p: Some(0.9),
            max_tokens: Some(512),
            ..ChatParams::default()
        },
        &ctx(&[msg(Role::User, "hi")], &[], ToolMode::Off),
    );
    assert_eq!(req.method, Method::Post);
    assert_eq!(
        req.url,
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    assert!(!req.url.contains("key"), "the key never goes in the URL");
    assert_eq!(
        req.headers,
        vec![
            ("x-goog-api-key".to_string(), "AIza-key".to_string()),
            ("content-type".to_string(), "application/json".to_string()),
        ]
    );
    assert_eq!(
        req.body.as_deref(),
        Some(
            r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"temperature":1.5,"topP":0.9,"maxOutputTokens":512}}"#
        )
    );

    // No key, no header; no sampling choices, no generationConfig; a model id that is not a
    // plain name cannot change the path.
    let req = step_request(
        "http://h/v1beta",
        Some("   "),
        &ChatParams {
            model: "../x?y#z".into(),
            max_tokens: Some(0),
            temperature: Some(f32::NAN),
            ..ChatParams::default()
        },
        &ctx(&[msg(Role::User, "hi")], &[], ToolMode::Off),
    );
    assert_eq!(req.header("x-goog-api-key"), None);
    assert_eq!(
        req.url,
        "http://h/v1beta/models/..%2Fx%3Fy%23z:streamGenerateContent?alt=sse"
    );
    assert_eq!(
        req.body.as_deref(),
        Some(r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}"#)
    );
}

#[test]
fn system_prompt_merged_turns_and_tools() {
    let history = vec![
        msg(Role::System, "Old system note."),
        msg(Role::User, "first"),
        msg(Role::User, "second"),
        msg(Role::Assistant, "   "),
        msg(Role::Assistant, "An answer."),
        msg(Role::User, "thanks"),
    ];
    let tools = [
        tool(
            "get_weather",
            json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"], "additionalProperties": false}),
        ),
        tool("get_time", json!({})),
    ];
    let mut c = ctx(&history, &tools, ToolMode::Native);
    c.system_prompt = "Be brief.";
    let body = step_request("http://h/v1beta", None, &ChatParams::default(), &c)
        .body
        .unwrap();
    assert_eq!(
        body,
        concat!(
            r#"{"systemInstruction":{"parts":[{"text":"Be brief.\n\nOld system note."}]},"#,
            r#""contents":[{"role":"user","parts":[{"text":"first"},{"text":"second"}]},"#,
            r#"{"role":"model","parts":[{"text":"An answer."}]},"#,
            r#"{"role":"user","parts":[{"text":"thanks"}]}],"#,
            r#""tools":[{"functionDeclarations":["#,
            r#"{"name":"get_weather","description":"The get_weather tool","parameters":{"properties":{"city":{"type":"STRING"}},"required":["city"],"type":"OBJECT"}},"#,
            r#"{"name":"get_time","description":"The get_time tool"}]}]}"#,
        )
    );
    assert_eq!(
        schema_notes(&tools),
        vec!["Tool \u{201c}get_weather\u{201d}: left out \u{201c}additionalProperties\u{201d} at the top level, which Gemini does not accept; Gemini may now send arguments the tool rejects."]
    );
}

#[test]
fn parallel_calls_results_images_and_errors_in_one_exchange() {
    let image = json!({"content": [
        {"type": "text", "text": "a chart"},
        {"type": "image", "data": "iVBORw0=", "mimeType": "image/png"},
        {"type": "image", "data": "R0lG", "mimeType": "image/gif"}
    ]});
    let mut denied = ToolCallRecord::new("call_1".into(), "echo".into(), "[1]".into());
    denied.deny(0.0);
    let history = vec![
        msg(Role::User, "go"),
        answer(
            "Looking.",
            ToolMode::Native,
            vec![done("call_0", "chart", r#"{"q":"x"}"#, image), denied],
        ),
    ];
    let tools = [tool("chart", json!({})), tool("echo", json!({}))];
    let body = step_request(
        "http://h/v1beta",
        None,
        &ChatParams::default(),
        &ctx(&history, &tools, ToolMode::Native),
    )
    .body
    .unwrap();
    let denied_text = result::for_model(&history[1].tool_calls[1], 1000).text;
    let expected = format!(
        concat!(
            r#"{{"contents":[{{"role":"user","parts":[{{"text":"go"}}]}},"#,
            r#"{{"role":"model","parts":[{{"text":"Looking."}},"#,
            r#"{{"functionCall":{{"name":"chart","args":{{"q":"x"}}}},"thoughtSignature":"skip_thought_signature_validator"}},"#,
            r#"{{"functionCall":{{"name":"echo","args":{{}}}}}}]}},"#,
            r#"{{"role":"user","parts":[{{"functionResponse":{{"name":"chart","response":{{"output":"a chart\n[image: image/png, 5 bytes]\n[image: image/gif, 3 bytes]"}}}}}},"#,
            r#"{{"functionResponse":{{"name":"echo","response":{{"error":{denied}}}}}}},"#,
            r#"{{"inlineData":{{"mimeType":"image/png","data":"iVBORw0="}}}}]}}],"#,
            r#""tools":[{{"functionDeclarations":[{{"name":"chart","description":"The chart tool"}},{{"name":"echo","description":"The echo tool"}}]}}]}}"#
        ),
        denied = lit(&denied_text)
    );
    assert_eq!(body, expected);

    // Without vision the image stays a line of text.
    let mut c = ctx(&history, &tools, ToolMode::Native);
    c.vision = false;
    let body = step_request("http://h/v1beta", None, &ChatParams::default(), &c)
        .body
        .unwrap();
    assert!(!body.contains("inlineData"), "{body}");
}

#[test]
fn ids_gemini_gave_go_back_and_only_the_current_turn_is_signed() {
    let history = vec![
        msg(Role::User, "add 1 and 2"),
        answer(
            "",
            ToolMode::Native,
            vec![done("a1b2c3", "sum", r#"{"a":1,"b":2}"#, text("3"))],
        ),
        msg(Role::Assistant, "3"),
        msg(Role::User, "and 3 and 4?"),
        answer(
            "",
            ToolMode::Native,
            vec![done("d4e5f6", "sum", r#"{"a":3,"b":4}"#, text("7"))],
        ),
        answer(
            "",
            ToolMode::Native,
            vec![done("call_0", "sum", r#"{"a":7,"b":0}"#, text("7"))],
        ),
    ];
    let tools = [tool("sum", json!({}))];
    let body: Value = serde_json::from_str(
        &step_request(
            "http://h/v1beta",
            None,
            &ChatParams::default(),
            &ctx(&history, &tools, ToolMode::Native),
        )
        .body
        .unwrap(),
    )
    .unwrap();
    let contents = body["contents"].as_array().unwrap();
    let roles: Vec<&str> = contents
        .iter()
        .map(|c| c["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        ["user", "model", "user", "model", "user", "model", "user", "model", "user"]
    );
    // An earlier turn's call is not signed (Gemini validates only the current turn).
    assert_eq!(
        contents[1],
        json!({"role": "model", "parts": [{"functionCall": {"id": "a1b2c3", "name": "sum", "args": {"a": 1, "b": 2}}}]})
    );
    assert_eq!(
        contents[2],
        json!({"role": "user", "parts": [{"functionResponse": {"id": "a1b2c3", "name": "sum", "response": {"output": "3"}}}]})
    );
    // Each step of the current turn is signed on its first call; a made-up id is not sent.
    assert_eq!(
        contents[5]["parts"][0]["thoughtSignature"],
        json!(SKIP_SIGNATURE)
    );
    assert_eq!(
        contents[5]["parts"][0]["functionCall"]["id"],
        json!("d4e5f6")
    );
    assert_eq!(
        contents[7],
        json!({"role": "model", "parts": [{"functionCall": {"name": "sum", "args": {"a": 7, "b": 0}},
               "thoughtSignature": SKIP_SIGNATURE}]})
    );
    assert_eq!(
        contents[8],
        json!({"role": "user", "parts": [{"functionResponse": {"name": "sum", "response": {"output": "7"}}}]})
    );
}

#[test]
fn prompt_and_off_modes_replay_calls_as_text() {
    let call = done("call_0", "echo", r#"{"message":"x"}"#, text("x"));
    let history = vec![
        msg(Role::User, "go"),
        answer("Calling.", ToolMode::Native, vec![call.clone()]),
    ];
    let tools = [tool("echo", json!({}))];
    let turn = prompt::response_turn(&history[1].tool_calls, 1000);
    let assistant = format!("Calling.\n\n{}", prompt::call_block(&call));
    for mode in [ToolMode::Prompt, ToolMode::Off] {
        let body = step_request(
            "http://h/v1beta",
            None,
            &ChatParams::default(),
            &ctx(&history, &tools, mode),
        )
        .body
        .unwrap();
        let system = match mode {
            ToolMode::Prompt => format!(
                r#""systemInstruction":{{"parts":[{{"text":{}}}]}},"#,
                lit(&prompt::system_prompt_section(&tools))
            ),
            _ => String::new(),
        };
        let expected = format!(
            concat!(
                r#"{{{system}"contents":[{{"role":"user","parts":[{{"text":"go"}}]}},"#,
                r#"{{"role":"model","parts":[{{"text":{assistant}}}]}},"#,
                r#"{{"role":"user","parts":[{{"text":{turn}}}]}}]}}"#
            ),
            system = system,
            assistant = lit(&assistant),
            turn = lit(&turn),
        );
        assert_eq!(body, expected, "{mode:?}");
    }
}

#[test]
fn thinking_config_only_where_the_model_is_known_to_think() {
    let config = |p: ChatParams| {
        let body = step_request(
            "http://h/v1beta",
            None,
            &ChatParams {
                model: "gemini-2.5-flash".into(),
                ..p
            },
            &ctx(&[msg(Role::User, "hi")], &[], ToolMode::Off),
        )
        .body
        .unwrap();
        let v: Value = serde_json::from_str(&body).unwrap();
        v.get("generationConfig").cloned()
    };
    // A budget: thoughts included, the budget sent.
    assert_eq!(
        config(ChatParams {
            thinking_budget: Some(2048),
            max_tokens: Some(8192),
            ..ChatParams::default()
        }),
        Some(
            json!({"maxOutputTokens": 8192, "thinkingConfig": {"includeThoughts": true, "thinkingBudget": 2048}})
        )
    );
    // No budget, but the profile knows the model reasons: thought summaries only.
    assert_eq!(
        config(ChatParams {
            reasoning_model: true,
            ..ChatParams::default()
        }),
        Some(json!({"thinkingConfig": {"includeThoughts": true}}))
    );
    // 0 turns thinking off: nothing to include.
    assert_eq!(
        config(ChatParams {
            thinking_budget: Some(0),
            reasoning_model: true,
            ..ChatParams::default()
        }),
        Some(json!({"thinkingConfig": {"thinkingBudget": 0}}))
    );
    // Nothing known: no thinkingConfig, which a model that cannot think would refuse.
    assert_eq!(config(ChatParams::default()), None);
}
