use serde_json::{json, Value};

use super::*;
use crate::mcp::sampling::{Limiter, PER_WINDOW};

/// server-everything's `trigger-sampling-request`, as the page forwards it (its key is the
/// page's number for the held request).
fn everything_ask(key: u64) -> Value {
    json!({
        "kind": "ask", "server": "everything", "name": "everything", "key": key,
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Resource trigger-sampling-request context: Say hi"}}],
            "systemPrompt": "You are a helpful test server.",
            "maxTokens": 100,
            "temperature": 0.7
        }
    })
}

fn shown(a: Admission) -> SamplingCard {
    match a {
        Admission::Show(card) => *card,
        Admission::Refuse { answer, .. } => panic!("refused: {answer}"),
    }
}

#[test]
fn a_malformed_request_is_answered_at_once_with_its_code_and_sentence() {
    let mut limiter = Limiter::default();
    let mut ask = everything_ask(1);
    ask["params"]["maxTokens"] = json!(0);
    assert_eq!(
        admit(&ask, &mut limiter, 0.0),
        Admission::Refuse {
            answer: json!({"server": "everything", "key": 1, "error": {"code": -32602,
                "message": "Invalid sampling request: maxTokens must be a positive whole number"}}),
            sentence: "Refused a request from everything to use your model: Invalid sampling request: maxTokens must be a positive whole number".into(),
        }
    );
    let mut other = everything_ask(2);
    other["method"] = json!("roots/list");
    assert!(matches!(
        admit(&other, &mut limiter, 0.0),
        Admission::Refuse { answer, .. } if answer["error"]["code"] == -32601 && answer["key"] == 2
    ));
}

#[test]
fn a_flooding_server_is_refused_and_others_are_not() {
    let mut limiter = Limiter::default();
    for i in 0..PER_WINDOW {
        shown(admit(&everything_ask(i as u64), &mut limiter, i as f64));
    }
    match admit(&everything_ask(99), &mut limiter, 10.0) {
        Admission::Refuse { answer, sentence } => {
            assert_eq!(answer["error"]["code"], -1);
            assert!(
                sentence.contains("Too many sampling requests"),
                "{sentence}"
            );
        }
        Admission::Show(_) => panic!("a sixth request within a minute was shown"),
    }
    let mut other = everything_ask(100);
    other["server"] = json!("another");
    shown(admit(&other, &mut limiter, 10.0));
    // A minute later the server may ask again.
    shown(admit(&everything_ask(101), &mut limiter, 70_000.0));
}

#[test]
fn the_card_escapes_hostile_text_and_shows_what_the_model_would_see() {
    let mut limiter = Limiter::default();
    let ask = json!({
        "server": "evil", "name": "Evil\u{202E}gnp.exe<script>", "key": 7,
        "method": "sampling/createMessage",
        "params": {
            "messages": [
                {"role": "user", "content": {"type": "text", "text": "<img src=x onerror=alert(1)>"}},
                {"role": "assistant", "content": [{"type": "text", "text": "ok"}, {"type": "image", "mimeType": "image/png", "data": "AAAAAAAA"}]},
                {"role": "user", "content": {"type": "text", "text": "</textarea><script>alert(2)</script>"}}
            ],
            "systemPrompt": "\"><svg onload=alert(3)>",
            "maxTokens": 64,
            "stopSequences": ["<END>"],
            "modelPreferences": {"hints": [{"name": "gpt<4>"}], "speedPriority": 0.25},
            "includeContext": "allServers",
            "tools": [{"name": "rm<rf>", "description": "<b>deletes</b>", "inputSchema": {"type": "object"}}]
        }
    });
    let card = shown(admit(&ask, &mut limiter, 0.0));
    let html = card.html("ask-s1");
    for raw in [
        "<script",
        "<img",
        "<svg",
        "<b>",
        "</textarea><script",
        "\u{202E}",
    ] {
        assert!(!html.contains(raw), "{raw} reached the card: {html}");
    }
    assert!(
        html.contains("Evil&lt;U+202E&gt;gnp.exe&lt;script&gt;</bdi> wants to use your model"),
        "{html}"
    );
    assert!(
        html.contains("&lt;/textarea&gt;&lt;script&gt;alert(2)&lt;/script&gt;</textarea>"),
        "the last message is editable: {html}"
    );
    assert!(
        html.contains("&lt;img src=x onerror=alert(1)&gt;"),
        "{html}"
    );
    assert!(html.contains("[Image, image/png, 6 bytes]"), "{html}");
    assert!(html.contains("<dt>Max tokens</dt><dd>64</dd>"), "{html}");
    assert!(
        html.contains("<dd>\u{201c}&lt;END&gt;\u{201d}</dd>"),
        "{html}"
    );
    assert!(html.contains("<dd>gpt&lt;4&gt;</dd>"), "{html}");
    assert!(html.contains("<dd>speed 0.25</dd>"), "{html}");
    assert!(
        html.contains("Skiff sends only the messages above"),
        "{html}"
    );
    assert!(
        html.contains("rm&lt;rf&gt;</bdi>: &lt;b&gt;deletes&lt;/b&gt;"),
        "{html}"
    );
    assert!(
        html.contains(r#"data-act="approve">Approve</button>"#),
        "{html}"
    );
    // What the page cannot pass on is said before approval.
    assert!(html.contains("<dt>Images and audio</dt>"), "{html}");
    assert!(
        html.contains("<dt>Tools</dt><dd>offered to your model. Skiff never runs them"),
        "{html}"
    );
}

#[test]
fn the_user_edits_the_last_message_and_approve_sends_the_edit() {
    let mut limiter = Limiter::default();
    let mut ask = everything_ask(3);
    ask["params"]["messages"] = json!([
        {"role": "user", "content": [{"type": "text", "text": "Earlier"}, {"type": "image", "mimeType": "image/png", "data": "AAAA"}]},
        {"role": "assistant", "content": {"type": "text", "text": "Seen."}},
        {"role": "user", "content": {"type": "text", "text": "Resource trigger-sampling-request context: Say hi"}}
    ]);
    let mut card = shown(admit(&ask, &mut limiter, 0.0));
    assert!(card.can_edit());
    card.set_draft("   ");
    assert_eq!(card.approve(), None, "an emptied message is not sent");
    assert!(card.html("c").contains("The message is empty"));
    card.set_draft("Say hello in French");
    // The host's `sample` argument (a `SampleCall`): the system prompt, every message as
    // the conversation's (the image named in the text), the edit in place of the last
    // message, the limits.
    let arg = card.approve().unwrap_or_default();
    let texts: Vec<(&str, &str)> = arg["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            (
                m["role"].as_str().unwrap_or(""),
                m["content"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        texts,
        [
            ("user", "Earlier\n[Image, image/png, 3 bytes]"),
            ("assistant", "Seen."),
            ("user", "Say hello in French")
        ]
    );
    assert_eq!(
        (
            &arg["system"],
            &arg["maxTokens"],
            &arg["temperature"],
            &arg["toolChoice"]
        ),
        (
            &json!("You are a helpful test server."),
            &json!(100),
            &json!(0.7f32),
            &json!("auto")
        )
    );
    assert!(arg.get("tools").is_none(), "{arg}");
    // Approved: no second approve, no edit, the text streams in.
    assert_eq!(card.approve(), None);
    card.set_draft("changed later");
    assert_eq!(card.chunk("Bon"), Some("Bon"));
    assert_eq!(card.chunk("jour <b>"), Some("Bonjour <b>"));
    let html = card.html("c");
    assert!(html.contains("Bonjour &lt;b&gt;"), "{html}");
    assert!(
        html.contains("Say hello in French"),
        "the sent text stays shown: {html}"
    );
    assert!(!html.contains("changed later"));
    assert!(!html.contains("<textarea"));
}

#[test]
fn an_unedited_message_goes_as_the_server_wrote_it() {
    let mut limiter = Limiter::default();
    let mut card = shown(admit(&everything_ask(4), &mut limiter, 0.0));
    let arg = card.approve().unwrap_or_default();
    assert_eq!(
        arg["messages"][0]["content"],
        "Resource trigger-sampling-request context: Say hi"
    );
    assert_eq!(arg["messages"].as_array().map(Vec::len), Some(1));
}

#[test]
fn a_last_message_that_is_not_plain_text_is_not_editable() {
    let mut limiter = Limiter::default();
    let mut ask = everything_ask(5);
    ask["params"]["messages"] = json!([
        {"role": "user", "content": {"type": "text", "text": "q"}},
        {"role": "assistant", "content": {"type": "text", "text": "a"}}
    ]);
    let card = shown(admit(&ask, &mut limiter, 0.0));
    assert!(!card.can_edit());
    assert!(!card.html("c").contains("<textarea"));
}

#[test]
fn answers_deny_failures_and_gone() {
    let mut limiter = Limiter::default();
    let mut card = shown(admit(&everything_ask(9), &mut limiter, 0.0));
    assert_eq!(
        card.deny(),
        json!({"server": "everything", "key": 9, "error": {"code": -1, "message": "User rejected sampling request"}})
    );
    card.approve();
    card.failed("No model is set up.");
    assert_eq!(card.stage(), &Stage::Failed("No model is set up.".into()));
    assert!(card
        .html("c")
        .contains(r#"data-act="approve">Try again</button>"#));
    assert!(card.approve().is_some(), "a failure can be tried again");
    // The host's `{text, model, finish}`, the provider's finish mapped to the protocol's.
    let answer = json!({"text": "hi", "model": "m", "finish": "length"});
    assert_eq!(
        card.sampled(&answer),
        Ok(json!({"server": "everything", "key": 9, "result":
            {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m", "stopReason": "maxTokens"}}))
    );
    assert_eq!(
        card.sampled(&json!({"text": "hi", "model": "m", "finish": null}))
            .map(|a| a["result"]["stopReason"].clone()),
        Ok(json!("endTurn"))
    );
    assert!(card.sampled(&json!(42)).is_err());
    card.gone();
    let html = card.html("c");
    assert!(html.contains("no longer waits for this answer"), "{html}");
    assert!(html.contains(r#"data-act="dismiss""#));
    assert!(!html.contains(r#"data-act="approve""#));
    card.failed("late");
    assert_eq!(card.stage(), &Stage::Gone);
    assert!(
        card.sampled(&answer).is_err(),
        "an answer that arrives after the server stopped waiting is not sent"
    );
    assert_eq!(card.stage(), &Stage::Gone);
}

/// A server's first request of a tool loop: a question and a tool the model may call.
fn weather_ask(key: u64) -> Value {
    json!({
        "kind": "ask", "server": "weather", "name": "weather", "key": key,
        "method": "sampling/createMessage",
        "params": {
            "messages": [{"role": "user", "content": {"type": "text", "text": "Weather in Paris?"}}],
            "maxTokens": 200,
            "tools": [{"name": "get_weather", "description": "Current weather for a city",
                       "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}],
            "toolChoice": {"mode": "auto"}
        }
    })
}

#[test]
fn the_models_tool_call_is_shown_then_goes_back_as_tool_use() {
    let mut limiter = Limiter::default();
    let mut card = shown(admit(&weather_ask(8), &mut limiter, 0.0));
    let html = card.html("c");
    assert!(
        html.contains(r#"<details class="ask-tools-box"><summary class="ask-sub">Tools the model may call (1)</summary>"#),
        "collapsed: {html}"
    );
    assert!(
        html.contains("get_weather</bdi>: Current weather for a city"),
        "{html}"
    );
    let arg = card.approve().unwrap_or_default();
    assert_eq!(arg["tools"][0]["name"], "get_weather");
    assert_eq!(arg["tools"][0]["inputSchema"]["type"], "object");
    card.chunk("Let me check.");
    let answer = card
        .sampled(&json!({"text": "Let me check.", "model": "m", "finish": "tool_calls",
            "calls": [{"id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}]}))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(answer["key"], 8);
    assert_eq!(answer["result"]["stopReason"], "toolUse");
    assert_eq!(
        answer["result"]["content"][1],
        json!({"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}})
    );
    // Before it goes back, the card says what the model asks for.
    assert_eq!(
        card.chunk(""),
        Some("Let me check.\nYour model asks to call get_weather({\"city\":\"Paris\"})")
    );
}

#[test]
fn the_servers_second_request_shows_the_call_and_its_result_readably() {
    let mut limiter = Limiter::default();
    let mut ask = weather_ask(9);
    ask["params"]["messages"] = json!([
        {"role": "user", "content": {"type": "text", "text": "Weather in Paris?"}},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}}]},
        {"role": "user", "content": [{"type": "tool_result", "toolUseId": "call_1", "content": [{"type": "text", "text": "Sunny, 21 C"}]}]}
    ]);
    let mut card = shown(admit(&ask, &mut limiter, 0.0));
    assert!(!card.can_edit(), "a tool result is not the user's to edit");
    let html = card.html("c");
    assert!(
        html.contains("Asks to call get_weather({&quot;city&quot;:&quot;Paris&quot;})"),
        "{html}"
    );
    assert!(html.contains("Tool result: Sunny, 21 C"), "{html}");
    let arg = card.approve().unwrap_or_default();
    assert_eq!(arg["messages"][1]["tool_calls"][0]["id"], "call_1");
    assert_eq!(
        arg["messages"][1]["tool_calls"][0]["result"]["content"][0]["text"],
        "Sunny, 21 C"
    );
    let answer = card
        .sampled(
            &json!({"text": "It is sunny in Paris.", "model": "m", "finish": "stop", "calls": []}),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        answer["result"]["content"],
        json!({"type": "text", "text": "It is sunny in Paris."})
    );
    assert_eq!(answer["result"]["stopReason"], "endTurn");
}

#[test]
fn a_call_with_unreadable_arguments_fails_the_card_and_sends_nothing() {
    let mut limiter = Limiter::default();
    let mut card = shown(admit(&weather_ask(10), &mut limiter, 0.0));
    card.approve();
    let out = card.sampled(&json!({"text": "", "model": "m",
        "calls": [{"id": "c", "name": "get_weather", "arguments": "{\"city\":"}]}));
    assert!(out.is_err());
    assert!(matches!(card.stage(), Stage::Failed(s) if s.contains("not a JSON object")));
    assert!(card.html("c").contains("Try again"));
}
