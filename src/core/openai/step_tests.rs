use serde_json::json;

use super::*;
use crate::http::Method;
use crate::records::message::Role;
use crate::records::tool_call::ToolCallStatus;

fn spec(name: &str, description: &str, schema: Value) -> ToolSpec {
    ToolSpec {
        exposed_name: name.into(),
        server_id: "srv".into(),
        server_name: "Server".into(),
        tool_name: name.into(),
        description: description.into(),
        input_schema: schema.as_object().cloned().unwrap_or_default(),
        read_only: false,
    }
}

fn msg(role: Role, content: &str) -> Message {
    Message::new(format!("m-{content}"), role, content.into(), 0.0)
}

fn done(id: &str, name: &str, arguments: &str, text: &str) -> ToolCallRecord {
    let mut r = ToolCallRecord::new(id.into(), name.into(), arguments.into());
    r.server_id = Some("srv".into());
    r.tool_name = name.into();
    r.start(0.0);
    r.finish(json!({"content": [{"type": "text", "text": text}]}), 1.0);
    r
}

fn answer(content: &str, mode: ToolMode, calls: Vec<ToolCallRecord>) -> Message {
    let mut m = msg(Role::Assistant, content);
    m.tool_calls = calls;
    m.tool_mode = Some(mode);
    m
}

fn ctx<'a>(
    system_prompt: &'a str,
    history: &'a [Message],
    tools: &'a [ToolSpec],
    mode: ToolMode,
) -> StepContext<'a> {
    StepContext {
        system_template: "",
        system_prompt,
        recap: "",
        history,
        tools,
        mode,
        result_char_limit: 1000,
        vision: false,
    }
}

fn body(c: &StepContext<'_>) -> String {
    step_request("http://h/v1", None, &ChatParams::default(), c)
        .body
        .unwrap()
}

/// A JSON string literal, for splicing expected text into expected bodies.
fn lit(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn echo() -> ToolSpec {
    spec(
        "echo",
        "Echo a message",
        json!({"type": "object", "properties": {"message": {"type": "string"}}}),
    )
}

#[test]
fn native_request_whole_body_and_headers() {
    let history = vec![
        msg(Role::User, "Say hi twice"),
        answer(
            "",
            ToolMode::Native,
            vec![
                done("call_1", "echo", r#"{"message":"hi"}"#, "hi"),
                done("call_2", "echo", r#"{"message":"hi again"}"#, "hi again"),
            ],
        ),
    ];
    let tools = [echo(), spec("ping", "", json!({}))];
    let params = ChatParams {
        model: " gpt-4o-mini ".into(),
        temperature: Some(0.5),
        top_p: None,
        max_tokens: Some(100),
        ..ChatParams::default()
    };
    let c = ctx("Be brief.", &history, &tools, ToolMode::Native);
    let req = step_request("https://api.openai.com/v1/", Some("sk-1"), &params, &c);
    assert_eq!(req.method, Method::Post);
    assert_eq!(req.url, "https://api.openai.com/v1/chat/completions");
    assert_eq!(req.header("accept"), Some("text/event-stream"));
    assert_eq!(req.header("authorization"), Some("Bearer sk-1"));
    // The only check that spells out `result::for_model`'s text: the rest compute it.
    assert_eq!(
        req.body.as_deref(),
        Some(concat!(
            r#"{"model":"gpt-4o-mini","messages":[{"role":"system","content":"Be brief."},"#,
            r#"{"role":"user","content":"Say hi twice"},"#,
            r#"{"role":"assistant","content":null,"tool_calls":["#,
            r#"{"id":"call_1","type":"function","function":{"name":"echo","arguments":"{\"message\":\"hi\"}"}},"#,
            r#"{"id":"call_2","type":"function","function":{"name":"echo","arguments":"{\"message\":\"hi again\"}"}}]},"#,
            r#"{"role":"tool","tool_call_id":"call_1","content":"hi"},"#,
            r#"{"role":"tool","tool_call_id":"call_2","content":"hi again"}],"#,
            r#""tools":[{"type":"function","function":{"name":"echo","description":"Echo a message","#,
            r#""parameters":{"properties":{"message":{"type":"string"}},"type":"object"}}},"#,
            r#"{"type":"function","function":{"name":"ping","parameters":{"properties":{},"type":"object"}}}],"#,
            r#""stream":true,"stream_options":{"include_usage":true},"temperature":0.5,"max_tokens":100}"#
        ))
    );
}

#[test]
fn native_results_in_record_order_with_text_kept_and_unfinished_calls_passed_through() {
    let mut running = ToolCallRecord::new("c2".into(), "echo".into(), "{}".into());
    running.start(0.0);
    let mut denied = done("c3", "echo", "{}", "x");
    denied.deny(0.0);
    let calls = vec![done("c1", "echo", "{}", "one"), running, denied];
    let history = vec![answer("Checking.", ToolMode::Native, calls.clone())];
    let c = ctx("  ", &history, &[], ToolMode::Native);
    let tool_msgs: Vec<String> = calls
        .iter()
        .map(|r| {
            format!(
                r#"{{"role":"tool","tool_call_id":{},"content":{}}}"#,
                lit(&r.id),
                lit(&result::for_model(r, 1000).text)
            )
        })
        .collect();
    assert_eq!(
        body(&c),
        format!(
            concat!(
                r#"{{"messages":[{{"role":"assistant","content":"Checking.","tool_calls":["#,
                r#"{{"id":"c1","type":"function","function":{{"name":"echo","arguments":"{{}}"}}}},"#,
                r#"{{"id":"c2","type":"function","function":{{"name":"echo","arguments":"{{}}"}}}},"#,
                r#"{{"id":"c3","type":"function","function":{{"name":"echo","arguments":"{{}}"}}}}]}},"#,
                r#"{}],"stream":true,"stream_options":{{"include_usage":true}}}}"#
            ),
            tool_msgs.join(",")
        )
    );
    // Unfinished and refused calls still get an answer the model can read.
    assert!(tool_msgs[1].contains(result::INTERRUPTED_TEXT));
}

#[test]
fn native_arguments_that_are_not_an_object_go_back_as_empty_object() {
    for bad in ["{\"message\": \"hi", "", "[1]", "nonsense"] {
        let history = vec![answer(
            "",
            ToolMode::Native,
            vec![done("c", "echo", bad, "x")],
        )];
        let b = body(&ctx("", &history, &[], ToolMode::Native));
        assert!(
            b.contains(r#""function":{"name":"echo","arguments":"{}"}"#),
            "{bad:?}: {b}"
        );
    }
}

#[test]
fn images_follow_in_a_user_turn_only_for_vision_models() {
    let mut r = done("c1", "shot", "{}", "");
    r.set_for_test(
        ToolCallStatus::Done,
        Some(json!({"content": [
            {"type": "text", "text": "a screenshot"},
            {"type": "image", "mimeType": "image/png", "data": "iVBORw0KGgo="}
        ]})),
    );
    let history = vec![answer("", ToolMode::Native, vec![r.clone()])];
    let text = result::for_model(&r, 1000).text;
    let tool_msg = format!(
        r#"{{"role":"tool","tool_call_id":"c1","content":{}}}"#,
        lit(&text)
    );
    let mut c = ctx("", &history, &[], ToolMode::Native);
    let without = body(&c);
    assert!(without.contains(&format!("{tool_msg}]")), "{without}");
    c.vision = true;
    assert!(body(&c).contains(&format!(
        concat!(
            r#"{},{{"role":"user","content":[{{"type":"text","text":"Images returned by the tool calls above:"}},"#,
            r#"{{"type":"image_url","image_url":{{"url":"data:image/png;base64,iVBORw0KGgo="}}}}]}}]"#
        ),
        tool_msg
    )));
}

#[test]
fn prompt_mode_system_prompt_and_native_history_replayed_as_blocks() {
    let calls = vec![
        done("call_1", "echo", r#"{"message":"hi"}"#, "hi"),
        done("call_2", "echo", "not json", "bad"),
    ];
    let history = vec![
        msg(Role::User, "Go"),
        answer("Sure.", ToolMode::Native, calls.clone()),
        msg(Role::Assistant, "Done."),
    ];
    let tools = [echo()];
    let section = prompt::system_prompt_section(&tools);
    let assistant = format!(
        "Sure.\n\n{}\n\n{}",
        prompt::call_block(&calls[0]),
        prompt::call_block(&calls[1])
    );
    let expected = |system: &str| {
        format!(
            concat!(
                r#"{{"messages":[{{"role":"system","content":{}}},{{"role":"user","content":"Go"}},"#,
                r#"{{"role":"assistant","content":{}}},{{"role":"user","content":{}}},"#,
                r#"{{"role":"assistant","content":"Done."}}],"stream":true,"stream_options":{{"include_usage":true}}}}"#
            ),
            lit(system),
            lit(&assistant),
            lit(&prompt::response_turn(&calls, 1000))
        )
    };
    assert_eq!(
        body(&ctx("Be brief.", &history, &tools, ToolMode::Prompt)),
        expected(&format!("Be brief.\n\n{section}"))
    );
    assert_eq!(
        body(&ctx(" \n", &history, &tools, ToolMode::Prompt)),
        expected(&section)
    );
}

#[test]
fn prompt_made_answer_keeps_its_own_blocks_even_in_a_native_request() {
    let calls = vec![done("mcp-1-1", "echo", r#"{"message":"hi"}"#, "hi")];
    let content = format!("Let me check.\n\n{}", prompt::call_block(&calls[0]));
    let history = vec![answer(&content, ToolMode::Prompt, calls.clone())];
    let tools = [echo()];
    for mode in [ToolMode::Native, ToolMode::Prompt, ToolMode::Off] {
        let b = body(&ctx("", &history, &tools, mode));
        let messages = format!(
            r#"{{"role":"assistant","content":{}}},{{"role":"user","content":{}}}]"#,
            lit(&content),
            lit(&prompt::response_turn(&calls, 1000))
        );
        assert!(b.contains(&messages), "{mode:?}: {b}");
        assert_eq!(b.contains(r#""tools":"#), mode == ToolMode::Native, "{b}");
        assert!(!b.contains("tool_calls"), "{b}");
    }
}

#[test]
fn off_mode_offers_nothing_and_blank_turns_and_reasoning_stay_home() {
    let mut thinking = msg(Role::Assistant, "Answer");
    thinking.reasoning = "secret thoughts".into();
    let history = vec![
        msg(Role::User, "Q"),
        msg(Role::Assistant, "  "),
        msg(Role::System, "Note"),
        thinking,
    ];
    let tools = [echo()];
    assert_eq!(
        body(&ctx("Sys", &history, &tools, ToolMode::Off)),
        concat!(
            r#"{"messages":[{"role":"system","content":"Sys\n\nNote"},{"role":"user","content":"Q"},"#,
            r#"{"role":"assistant","content":"Answer"}],"#,
            r#""stream":true,"stream_options":{"include_usage":true}}"#
        )
    );
    // Native with no tools sends no `tools` field (an empty array is rejected by some servers).
    assert!(!body(&ctx("", &history, &[], ToolMode::Native)).contains("tools"));
}

#[test]
fn one_system_message_opens_the_request_whatever_the_mask_and_history_hold() {
    // A mask's prompts open the history (a system prompt of its own, then an example
    // exchange), after the system template, the user's prompt and the recap. Strict chat
    // templates take one system message, first: everything joins it, in order.
    let history = vec![
        msg(Role::System, "You translate to French."),
        msg(Role::System, "Keep the register."),
        msg(Role::User, "Hello"),
        msg(Role::Assistant, "Bonjour"),
        msg(Role::User, "Thanks"),
    ];
    let mut c = ctx("Be brief.", &history, &[], ToolMode::Off);
    c.system_template = "Today is Monday.";
    c.recap = "Earlier: greetings.";
    let b: Value = serde_json::from_str(&body(&c)).unwrap();
    let roles: Vec<&str> = b["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user", "assistant", "user"]);
    assert_eq!(
        b["messages"][0]["content"],
        "Today is Monday.\n\nBe brief.\n\nEarlier: greetings.\n\nYou translate to French.\n\nKeep the register."
    );
    // With no system text of its own, the mask's prompt is the one system message.
    let b: Value =
        serde_json::from_str(&body(&ctx("", &history[1..], &[], ToolMode::Off))).unwrap();
    assert_eq!(b["messages"][0]["role"], "system");
    assert_eq!(b["messages"][0]["content"], "Keep the register.");
    assert_eq!(b["messages"][1]["role"], "user");
}

#[test]
fn rejects_tools_for_real_server_answers() {
    let yes: &[(u16, &str)] = &[
        // llama.cpp without --jinja (ramalama#988, Qwen issue): a 500 server_error.
        (
            500,
            r#"{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}"#,
        ),
        // Older llama.cpp (llama.cpp#10920).
        (
            500,
            r#"{"code":500,"message":"Unsupported param: tools","type":"server_error"}"#,
        ),
        // Ollama's OpenAI endpoint (ollama#6027) and native error (ollama#14795).
        (
            400,
            r#"{"error":{"message":"stablelm2:latest does not support tools","type":"api_error","param":null,"code":null}}"#,
        ),
        (
            400,
            r#"{"error":"registry.ollama.ai/library/Qwen3.5:0.8b does not support tools"}"#,
        ),
        // vLLM without a tool parser (langchain4j#3475).
        (
            400,
            r#"{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}"#,
        ),
        // Pydantic validators forbidding the field (php-mistral#76).
        (
            422,
            r#"{"object":"Error","detail":[{"type":"extra_forbidden","loc":["body","tools"],"msg":"Extra inputs are not permitted","input":[]}],"type":"invalid_request_error","code":3001}"#,
        ),
        (
            400,
            r#"{"error":{"message":"Unrecognized request argument supplied: tools","type":"invalid_request_error"}}"#,
        ),
        (400, r#"{"error":"Tools are not supported by this model"}"#),
    ];
    for (status, b) in yes {
        assert!(rejects_tools(*status, b), "{status} {b}");
    }
    let no: &[(u16, &str)] = &[
        (
            401,
            r#"{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}"#,
        ),
        (
            429,
            r#"{"error":{"message":"Rate limit reached; tools are not supported in this tier"}}"#,
        ),
        (502, "Bad Gateway: upstream does not support tools"),
        (503, r#"{"error":"tools param requires --jinja flag"}"#),
        (
            500,
            r#"{"error":{"message":"Internal server error","type":"server_error"}}"#,
        ),
        (
            400,
            r#"{"error":{"message":"This model's maximum context length is 8192 tokens","type":"invalid_request_error"}}"#,
        ),
        // About a message's shape (mistralai_client_dart#44), or a field inside a tool
        // (opencode#24696): not "no tools here".
        (
            422,
            r#"{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","messages",0,"user","tool_calls"],"msg":"Extra inputs are not permitted","input":null}]}}"#,
        ),
        (
            400,
            "Extra inputs are not permitted, field: 'tools[0].eager_input_streaming', value: True",
        ),
        (
            400,
            r#"{"error":"Invalid tool_choice type: 'object'. Supported string values: none, auto, required"}"#,
        ),
        (200, "does not support tools"),
    ];
    for (status, b) in no {
        assert!(!rejects_tools(*status, b), "{status} {b}");
    }
}
