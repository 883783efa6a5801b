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
