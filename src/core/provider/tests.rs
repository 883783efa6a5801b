//! The seam itself, driven the way the runner drives it: a `Provider` made from settings builds
//! the step request, hands out the decoder the body is fed to, and reads error answers. The
//! OpenAI-compatible kind must send exactly what `openai::step_request` sends (its snapshot
//! tests fix those bytes); the Anthropic kind is tested end to end through the same value.

use serde_json::{json, Value};

use super::*;
use crate::agent::assemble::{AssembledCall, ToolCallAssembler};
use crate::agent::{Action, AgentConfig, AgentRun};
use crate::http::Method;
use crate::records::approval::{ApprovalPolicy, ApprovalRule};
use crate::records::message::{Message, Role};
use crate::records::tool_mode::ToolMode;
use crate::settings::ChatSettings;
use crate::tools::spec::ToolSpec;

macro_rules! fixture {
    ($dir:literal, $name:literal) => {
        include_bytes!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/fixtures/",
            $dir,
            "/",
            $name
        ))
    };
}

/// Settings with one profile, resolved as a request resolves them.
fn settings(kind: ProviderKind, base_url: &str) -> ChatSettings {
    ChatSettings {
        profiles: vec![crate::profiles::ProviderProfile {
            base_url: base_url.into(),
            api_key: "  secret  ".into(),
            default_model: " the-model ".into(),
            temperature: Some(0.5),
            max_tokens: Some(300),
            ..crate::profiles::ProviderProfile::new("p".into(), kind)
        }],
        system_prompt: "Be brief.".into(),
        ..ChatSettings::default()
    }
    .for_conversation(None)
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
            .unwrap_or_default(),
        read_only: true,
    }
}

fn ctx<'a>(history: &'a [Message], tools: &'a [ToolSpec]) -> StepContext<'a> {
    StepContext {
        system_template: "",
        system_prompt: "Be brief.",
        recap: "",
        history,
        tools,
        mode: ToolMode::Native,
        result_char_limit: 1000,
        vision: false,
    }
}

fn question() -> Message {
    Message::new(
        "u1".into(),
        Role::User,
        "What is the weather like in San Francisco?".into(),
        0.0,
    )
}

/// Feed `chunks` to a fresh decoder of `provider`: the events, and how the body ended.
fn decode<'a>(
    provider: &Provider,
    chunks: impl IntoIterator<Item = &'a [u8]>,
) -> (Vec<StreamEvent>, Result<(), ProviderError>) {
    let mut decoder = provider.decoder();
    let mut events = Vec::new();
    for chunk in chunks {
        match decoder.feed(chunk) {
            Ok(e) => events.extend(e),
            Err(e) => return (events, Err(e)),
        }
    }
    let end = decoder.finish().map(|e| events.extend(e));
    assert_eq!(decoder.is_complete(), end.is_ok());
    (events, end)
}

/// Whole, one byte at a time and in 7-byte pieces: a decoder handed out by the seam must give
/// the same events however the network splits the body.
fn decode_three_ways(
    provider: &Provider,
    bytes: &[u8],
) -> (Vec<StreamEvent>, Result<(), ProviderError>) {
    let whole = decode(provider, [bytes]);
    assert_eq!(
        decode(provider, bytes.chunks(1)),
        whole,
        "one byte at a time"
    );
    assert_eq!(decode(provider, bytes.chunks(7)), whole, "7-byte pieces");
    whole
}

fn calls(events: &[StreamEvent]) -> Vec<AssembledCall> {
    let mut a = ToolCallAssembler::new();
    for e in events {
        if let StreamEvent::ToolCall(d) = e {
            a.push(d);
        }
    }
    a.finish()
}

#[test]
fn settings_without_a_kind_make_the_openai_compatible_provider() {
    let stored = crate::settings::decode_settings(r#"{"base_url":" http://127.0.0.1:8080/v1/ "}"#)
        .unwrap()
        .for_conversation(None);
    let p = stored.provider().unwrap();
    assert_eq!(p.kind(), ProviderKind::OpenAiCompatible);
    assert_eq!(p.base_url(), "http://127.0.0.1:8080/v1");
    assert!(matches!(p.decoder(), Decoder::OpenAiCompatible(_)));
}

#[test]
fn offline_refuses_only_providers_on_the_internet() {
    let cases = [
        (
            ProviderKind::OpenAiCompatible,
            "http://127.0.0.1:8080/v1",
            false,
        ),
        (
            ProviderKind::OpenAiCompatible,
            "http://localhost:11434/v1",
            false,
        ),
        (
            ProviderKind::OpenAiCompatible,
            "http://192.168.1.9:1234/v1",
            false,
        ),
        (
            ProviderKind::OpenAiCompatible,
            "http://studio.local:1234/v1",
            false,
        ),
        (
            ProviderKind::OpenAiCompatible,
            "https://openrouter.ai/api/v1",
            true,
        ),
        (
            ProviderKind::Anthropic,
            "https://api.anthropic.com/v1",
            true,
        ),
        (ProviderKind::Anthropic, "http://127.0.0.1:9000/v1", false),
        (ProviderKind::Gemini, gemini::DEFAULT_BASE_URL, true),
        (ProviderKind::InBrowser, IN_BROWSER_BASE, false),
    ];
    for (kind, url, refused) in cases {
        let p = settings(kind, url).provider().unwrap();
        assert_eq!(p.refusal_before_send(true), None, "{url} online");
        let want = refused.then_some(ProviderError::Offline);
        assert_eq!(p.refusal_before_send(false), want, "{url} offline");
    }
}

#[test]
fn an_unusable_base_url_is_refused_before_any_request_is_built() {
    for &kind in ProviderKind::ALL.iter().filter(|k| k.is_remote()) {
        assert_eq!(
            settings(kind, "localhost:8080").provider(),
            Err(ProviderError::InvalidBaseUrl("localhost:8080".into()))
        );
    }
}

#[test]
fn openai_compatible_provider_sends_the_bytes_openai_step_sends() {
    let p = settings(
        ProviderKind::OpenAiCompatible,
        " http://127.0.0.1:8080/v1/chat/completions ",
    )
    .provider()
    .unwrap();
    let history = [question()];
    let tools = [weather_tool()];
    let req = p.step_request(&ctx(&history, &tools));
    let params = ChatParams {
        model: "the-model".into(),
        temperature: Some(0.5),
        top_p: None,
        max_tokens: Some(300),
        ..ChatParams::default()
    };
    assert_eq!(
        req,
        crate::openai::step_request(
            "http://127.0.0.1:8080/v1",
            Some("  secret  "),
            &params,
            &ctx(&history, &tools)
        )
    );
    assert_eq!(req.method, Method::Post);
    assert_eq!(req.url, "http://127.0.0.1:8080/v1/chat/completions");
    assert_eq!(req.header("authorization"), Some("Bearer secret"));
    let expected = concat!(
        r#"{"model":"the-model","messages":[{"role":"system","content":"Be brief."},"#,
        r#"{"role":"user","content":"What is the weather like in San Francisco?"}],"#,
        r#""tools":[{"type":"function","function":{"name":"get_weather","description":"Get the current weather in a given location","#,
        r#""parameters":{"properties":{"location":{"type":"string"}},"required":["location"],"type":"object"}}}],"#,
        r#""stream":true,"stream_options":{"include_usage":true},"temperature":0.5,"max_tokens":300}"#
    );
    assert_eq!(req.body.as_deref(), Some(expected));

    // A blank key sends no header at all, through the seam as directly.
    let keyless = Provider::new(
        ProviderKind::OpenAiCompatible,
        "http://h/v1",
        "   ",
        ChatParams::default(),
    )
    .unwrap();
    assert_eq!(
        keyless
            .step_request(&ctx(&history, &tools))
            .header("authorization"),
        None
    );
}

#[test]
fn openai_compatible_decoder_is_the_chat_stream() {
    let p = settings(ProviderKind::OpenAiCompatible, "http://h/v1")
        .provider()
        .unwrap();
    let bytes = fixture!("openai", "openai_gpt4_parallel_tool_calls.sse");
    let (events, end) = decode_three_ways(&p, bytes);
    let mut direct = crate::openai::ChatStream::new();
    let mut expected = direct.feed(bytes).unwrap();
    expected.extend(direct.finish().unwrap());
    assert_eq!((events.clone(), end), (expected, Ok(())));
    assert_eq!(calls(&events).len(), 2);

    let cut = &bytes[..bytes.len() / 2];
    assert_eq!(decode(&p, [cut]).1, Err(ProviderError::StreamCut));
}

#[test]
fn openai_compatible_errors_and_tool_refusals() {
    let p = settings(ProviderKind::OpenAiCompatible, "http://h/v1")
        .provider()
        .unwrap();
    assert_eq!(
        p.error_from_response(429, r#"{"error":{"message":"Slow down"}}"#, Some(" 12 ")),
        ProviderError::RateLimited {
            detail: "Slow down".into(),
            retry_after: Some(12)
        }
    );
    // An HTTP-date needs a clock this crate does not have: no delay rather than a wrong one.
    assert_eq!(
        p.error_from_response(429, "", Some("Wed, 21 Oct 2026 07:28:00 GMT")),
        ProviderError::RateLimited {
            detail: String::new(),
            retry_after: None
        }
    );
    let ollama = r#"{"error":"registry.ollama.ai/library/gemma3:4b does not support tools"}"#;
    assert!(p.rejects_tools(400, ollama));
    assert!(!p.rejects_tools(401, ollama));
}

#[test]
fn anthropic_provider_end_to_end_request_stream_next_request_and_errors() {
    let s = settings(ProviderKind::Anthropic, "https://api.anthropic.com/v1/");
    let p = s.provider().unwrap();
    assert_eq!(p.kind(), ProviderKind::Anthropic);
    assert!(matches!(p.decoder(), Decoder::Anthropic(_)));

    // 1. The first step's request.
    let tools = [weather_tool()];
    let history = vec![question()];
    let req = p.step_request(&ctx(&history, &tools));
    assert_eq!(req.method, Method::Post);
    assert_eq!(req.url, "https://api.anthropic.com/v1/messages");
    assert_eq!(
        req.headers,
        vec![
            ("x-api-key".to_string(), "secret".to_string()),
            ("anthropic-version".to_string(), "2023-06-01".to_string()),
            ("content-type".to_string(), "application/json".to_string()),
            (
                "anthropic-dangerous-direct-browser-access".to_string(),
                "true".to_string()
            ),
        ]
    );
    let expected = concat!(
        r#"{"model":"the-model","max_tokens":300,"system":"Be brief.","messages":["#,
        r#"{"role":"user","content":[{"type":"text","text":"What is the weather like in San Francisco?"}]}],"#,
        r#""tools":[{"name":"get_weather","description":"Get the current weather in a given location","#,
        r#""input_schema":{"properties":{"location":{"type":"string"}},"required":["location"],"type":"object"}}],"#,
        r#""stream":true,"temperature":0.5}"#,
    );
    assert_eq!(req.body.as_deref(), Some(expected));

    // 2. Its captured answer, through the decoder the seam hands out, into the agent machine.
    let (events, end) = decode_three_ways(&p, fixture!("anthropic", "docs_tool_use.sse"));
    assert_eq!(end, Ok(()));
    assert_eq!(events.last(), Some(&StreamEvent::Done));
    let mut policy = ApprovalPolicy::default();
    policy.set_rule("wx", "get_weather", ApprovalRule::Always);
    let mut run = AgentRun::new(
        AgentConfig {
            mode: ToolMode::Native,
            step_limit: 5,
            policy,
        },
        tools.to_vec(),
    );
    run.begin_step();
    let mut content = String::new();
    for e in &events {
        if let StreamEvent::Content(t) = e {
            content.push_str(t);
        }
        run.on_event(e);
    }
    let actions = run.end_step(&content, 1.0);
    let Some(Action::StartTool { call_id, .. }) = actions.first() else {
        panic!("expected a tool call to start: {actions:?}");
    };
    let result = Ok(json!({"content": [{"type": "text", "text": "15 degrees"}]}));
    assert_eq!(
        run.tool_finished(call_id, result, 2.0),
        vec![Action::NextStep]
    );

    // 3. The next step's request carries the call and its result in Anthropic's blocks.
    let mut answer = Message::new("a1".into(), Role::Assistant, content, 1.0);
    answer.tool_calls = run.calls().to_vec();
    answer.tool_mode = Some(ToolMode::Native);
    let history = vec![question(), answer];
    let next = p.step_request(&ctx(&history, &tools));
    let body: Value = serde_json::from_str(next.body.as_deref().unwrap_or_default()).unwrap();
    assert_eq!(
        body["messages"][1]["content"][1],
        json!({"type": "tool_use", "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "name": "get_weather",
               "input": {"location": "San Francisco, CA", "unit": "fahrenheit"}})
    );
    assert_eq!(
        body["messages"][2],
        json!({"role": "user", "content": [{"type": "tool_result",
               "tool_use_id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
               "content": [{"type": "text", "text": "15 degrees"}], "is_error": false}]})
    );

    // 4. Errors: an HTTP answer, an error event in the stream, a body cut short.
    let overloaded = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_011CSHoEeqs5C35K2UUqR7Fy"}"#;
    let e = p.error_from_response(529, overloaded, None);
    assert_eq!(
        e,
        ProviderError::Server {
            status: 529,
            detail: "Overloaded".into()
        }
    );
    assert!(e.is_retryable());
    let limited = r#"{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}"#;
    assert_eq!(
        p.error_from_response(429, limited, Some("30")).to_string(),
        "Rate limited by the provider (HTTP 429): Number of request tokens has exceeded your per-minute rate limit. Wait 30 seconds and retry."
    );
    let (events, end) = decode_three_ways(&p, fixture!("anthropic", "docs_error_overloaded.sse"));
    assert_eq!(
        (events, end),
        (vec![], Err(ProviderError::InStream("Overloaded".into())))
    );
    let whole = fixture!("anthropic", "docs_basic_text.sse");
    let (events, end) = decode(&p, [&whole[..whole.len() - 1]]);
    assert_eq!(end, Err(ProviderError::StreamCut));
    assert!(!events.contains(&StreamEvent::Done));
}

#[test]
fn only_the_openai_compatible_kind_reads_a_refusal_as_tools_not_supported() {
    let body = r#"{"type":"error","error":{"type":"invalid_request_error","message":"tools are not supported"}}"#;
    let openai = Provider::new(
        ProviderKind::OpenAiCompatible,
        "http://h/v1",
        "",
        ChatParams::default(),
    )
    .unwrap();
    let anthropic = Provider::new(
        ProviderKind::Anthropic,
        "http://h/v1",
        "",
        ChatParams::default(),
    )
    .unwrap();
    assert!(openai.rejects_tools(400, body));
    assert!(!anthropic.rejects_tools(400, body));
}

#[test]
fn provider_kinds_carry_their_names_and_gemini_is_stored_as_gemini() {
    for &kind in ProviderKind::ALL {
        assert_eq!(kind.as_str().parse::<ProviderKind>().ok(), Some(kind));
        assert_eq!(
            serde_json::to_string(&kind).unwrap(),
            format!("\"{}\"", kind.as_str())
        );
        assert!(!kind.label().is_empty());
        assert!(
            !kind.is_remote() || crate::openai::validate_base_url(kind.base_url_hint()).is_ok()
        );
    }
    assert!("mistral".parse::<ProviderKind>().is_err());
    assert_eq!(
        ProviderKind::Gemini.base_url_hint(),
        "https://generativelanguage.googleapis.com/v1beta"
    );
    let stored = crate::settings::decode_settings(
        r#"{"v":1,"data":{"provider":"gemini","base_url":"https://g/v1beta"}}"#,
    )
    .unwrap();
    assert_eq!(stored.profiles[0].kind, ProviderKind::Gemini);
}

#[test]
fn gemini_provider_end_to_end_request_stream_and_errors() {
    let s = settings(
        ProviderKind::Gemini,
        "https://generativelanguage.googleapis.com/v1beta/",
    );
    let p = s.provider().unwrap();
    assert!(matches!(p.decoder(), Decoder::Gemini(_)));
    let tools = [weather_tool()];
    let history = vec![question()];
    let req = p.step_request(&ctx(&history, &tools));
    assert_eq!(
        req.url,
        "https://generativelanguage.googleapis.com/v1beta/models/the-model:streamGenerateContent?alt=sse"
    );
    assert_eq!(
        req.headers,
        vec![
            ("x-goog-api-key".to_string(), "secret".to_string()),
            ("content-type".to_string(), "application/json".to_string()),
        ]
    );
    assert_eq!(req.header("authorization"), None);
    let expected = concat!(
        r#"{"systemInstruction":{"parts":[{"text":"Be brief."}]},"#,
        r#""contents":[{"role":"user","parts":[{"text":"What is the weather like in San Francisco?"}]}],"#,
        r#""tools":[{"functionDeclarations":[{"name":"get_weather","description":"Get the current weather in a given location","#,
        r#""parameters":{"properties":{"location":{"type":"STRING"}},"required":["location"],"type":"OBJECT"}}]}],"#,
        r#""generationConfig":{"temperature":0.5,"maxOutputTokens":300}}"#,
    );
    assert_eq!(req.body.as_deref(), Some(expected));
    assert!(p.schema_notes(&tools).is_empty());

    let (events, end) = decode_three_ways(&p, fixture!("gemini", "adk_gemini3_parallel_calls.sse"));
    assert_eq!(end, Ok(()));
    assert_eq!(calls(&events).len(), 3);
    let whole = fixture!("gemini", "adk_gemini25_thoughts.sse");
    assert_eq!(
        decode(&p, [&whole[..whole.len() / 2]]).1,
        Err(ProviderError::StreamCut)
    );

    // The header's wait wins over the body's; without a header the body's is read.
    let quota = std::str::from_utf8(fixture!("gemini", "error_resource_exhausted.json")).unwrap();
    assert!(matches!(
        p.error_from_response(429, quota, Some("5")),
        ProviderError::RateLimited {
            retry_after: Some(5),
            ..
        }
    ));
    assert!(matches!(
        p.error_from_response(429, quota, None),
        ProviderError::RateLimited {
            retry_after: Some(47),
            ..
        }
    ));
    let key = std::str::from_utf8(fixture!("gemini", "error_api_key_invalid.json")).unwrap();
    assert!(matches!(
        p.error_from_response(400, key, None),
        ProviderError::Unauthorized { status: 400, .. }
    ));

    // Gemma served by the Gemini API takes no function declarations: auto mode falls back.
    let gemma = r#"{"error":{"code":400,"message":"Function calling is not enabled for models/gemma-3-27b-it","status":"INVALID_ARGUMENT"}}"#;
    assert!(p.rejects_tools(400, gemma));
    assert!(!p.rejects_tools(400, key));
    assert!(!p.rejects_tools(500, gemma));
}

#[test]
fn switching_the_kind_replaces_only_an_untouched_base_url() {
    let gemini = "https://generativelanguage.googleapis.com/v1beta";
    assert_eq!(ProviderKind::Gemini.base_url_after_switch(""), gemini);
    assert_eq!(
        ProviderKind::Gemini.base_url_after_switch("https://api.anthropic.com/v1/"),
        gemini
    );
    assert_eq!(
        ProviderKind::OpenAiCompatible.base_url_after_switch(gemini),
        ""
    );
    assert_eq!(
        ProviderKind::Anthropic.base_url_after_switch(gemini),
        "https://api.anthropic.com/v1"
    );
    // What the user typed (a proxy, a local server) is theirs.
    for typed in [
        "http://127.0.0.1:8080/v1",
        "https://my-proxy.example/gemini/v1beta",
    ] {
        for &kind in ProviderKind::ALL {
            assert_eq!(kind.base_url_after_switch(typed), typed);
        }
    }
}

#[test]
fn the_in_browser_model_is_asked_like_an_openai_compatible_server_at_its_own_address() {
    // Whatever the base URL field holds (a leftover from another kind), the request goes to
    // the address only the page's fetch adapter knows, and no key travels with it.
    let mut s = settings(ProviderKind::InBrowser, "http://127.0.0.1:8080/v1");
    s.target.api_key.clear();
    let p = s.provider().unwrap();
    assert_eq!(p.base_url(), IN_BROWSER_BASE);
    let history = [question()];
    let req = p.step_request(&ctx(&history, &[]));
    assert_eq!(req.url, "in-browser://model/chat/completions");
    assert_eq!(req.header("authorization"), None);
    let body = req.body.unwrap();
    assert!(
        body.ends_with(r#""temperature":0.5,"max_tokens":300}"#),
        "{body}"
    );
    assert!(matches!(p.decoder(), Decoder::OpenAiCompatible(_)));
    assert_eq!(p.models_request().url, "in-browser://model/models");
}

#[test]
fn auto_tool_mode_starts_prompt_based_for_the_in_browser_model() {
    use crate::records::tool_mode::{ToolMode, ToolModeSetting};
    let mut s = settings(ProviderKind::InBrowser, "");
    s.tool_mode = ToolModeSetting::Auto;
    assert_eq!(s.resolved_tool_mode(), ToolMode::Prompt);
    let mut remote = settings(ProviderKind::OpenAiCompatible, "http://h/v1");
    remote.tool_mode = ToolModeSetting::Auto;
    assert_eq!(remote.resolved_tool_mode(), ToolMode::Native);
    // What the user chose, or what was learned, still wins.
    s.tool_mode = ToolModeSetting::Native;
    assert_eq!(s.resolved_tool_mode(), ToolMode::Native);
    assert!(!ProviderKind::InBrowser.takes_thinking_budget());
    // With no address to type, a profile of the kind is set up (no onboarding asks for one).
    let only_browser = ChatSettings {
        profiles: vec![crate::profiles::ProviderProfile::new(
            "b".into(),
            ProviderKind::InBrowser,
        )],
        ..ChatSettings::default()
    };
    assert!(only_browser.is_configured());
    assert_eq!(
        ProviderKind::OpenAiCompatible.base_url_after_switch(IN_BROWSER_BASE),
        ""
    );
}
