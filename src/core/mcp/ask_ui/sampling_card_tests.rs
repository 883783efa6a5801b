use serde_json::json;

use super::*;
use crate::mcp::held_ask::{AskReply, HeldAsk};
use crate::mcp::sampling::{Limiter, PER_WINDOW};
use crate::mcp::sampling_step::{SampledAnswer, SampledCall};

fn held(server: &str, key: u64, params: serde_json::Value) -> HeldAsk {
    HeldAsk {
        server: server.into(),
        name: server.into(),
        key,
        method: "sampling/createMessage".into(),
        params,
        raw: String::new(),
    }
}

/// server-everything's `trigger-sampling-request`, as the page holds it.
fn everything_ask(key: u64) -> HeldAsk {
    held(
        "everything",
        key,
        json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "Resource trigger-sampling-request context: Say hi"}}],
            "systemPrompt": "You are a helpful test server.",
            "maxTokens": 100,
            "temperature": 0.7
        }),
    )
}

fn answer(text: &str, finish: Option<&str>, calls: Vec<SampledCall>) -> SampledAnswer {
    SampledAnswer {
        text: text.into(),
        model: "m".into(),
        finish: finish.map(str::to_string),
        calls,
    }
}

fn shown(a: Admission) -> SamplingCard {
    match a {
        Admission::Show(card) => *card,
        Admission::Refuse { answer, .. } => panic!("refused: {answer:?}"),
    }
}

#[test]
fn a_malformed_request_is_answered_at_once_with_its_code_and_sentence() {
    let mut limiter = Limiter::default();
    let mut ask = everything_ask(1);
    ask.params["maxTokens"] = json!(0);
    assert_eq!(
        admit(&ask, &mut limiter, 0.0),
        Admission::Refuse {
            answer: AskReply::error(
                "everything",
                1,
                -32602,
                "Invalid sampling request: maxTokens must be a positive whole number"
            ),
            sentence: "Refused a request from everything to use your model: Invalid sampling request: maxTokens must be a positive whole number".into(),
        }
    );
    let mut other = everything_ask(2);
    other.method = "roots/list".into();
    assert!(matches!(
        admit(&other, &mut limiter, 0.0),
        Admission::Refuse { answer, .. } if matches!(answer.answer, Err((-32601, _))) && answer.key == 2
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
            assert!(matches!(answer.answer, Err((-1, _))));
            assert!(
                sentence.contains("Too many sampling requests"),
                "{sentence}"
            );
        }
        Admission::Show(_) => panic!("a sixth request within a minute was shown"),
    }
    let mut other = everything_ask(100);
    other.server = "another".into();
    shown(admit(&other, &mut limiter, 10.0));
    // A minute later the server may ask again.
    shown(admit(&everything_ask(101), &mut limiter, 70_000.0));
}

#[test]
fn the_card_shows_hostile_text_as_text_and_what_the_model_would_see() {
    let mut limiter = Limiter::default();
    let mut ask = held(
        "evil",
        7,
        json!({
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
        }),
    );
    ask.name = "Evil\u{202E}gnp.exe<script>".into();
    let card = shown(admit(&ask, &mut limiter, 0.0));
    let v = card.view();
    assert_eq!(v.server_name, "Evil<U+202E>gnp.exe<script>");
    assert_eq!(
        card.said_on_arrival(),
        "Evil<U+202E>gnp.exe<script> wants to use your model. Approve or deny the request."
    );
    assert!(!format!("{v:?}").contains('\u{202E}'));
    assert_eq!(v.system.as_deref(), Some("\"><svg onload=alert(3)>"));
    assert_eq!(v.messages[0].text, "<img src=x onerror=alert(1)>");
    assert_eq!(
        (v.messages[0].role, v.messages[1].role),
        ("user", "assistant")
    );
    assert_eq!(v.messages[1].text, "ok\n[Image, image/png, 6 bytes]");
    // The last message is the user's to edit: a box with the server's text as the draft.
    assert!(v.messages[2].editable);
    assert_eq!(
        v.messages[2].label,
        "User (you may edit this before approving)"
    );
    assert_eq!(v.draft, "</textarea><script>alert(2)</script>");
    let detail = |term: &str| {
        v.details
            .iter()
            .find(|(t, _)| *t == term)
            .map(|(_, d)| d.clone())
    };
    assert_eq!(detail("Max tokens").as_deref(), Some("64"));
    assert_eq!(detail("Stops at").as_deref(), Some("\u{201c}<END>\u{201d}"));
    assert_eq!(detail("Preferred models").as_deref(), Some("gpt<4>"));
    assert_eq!(detail("Priorities").as_deref(), Some("speed 0.25"));
    assert!(detail("Context").is_some_and(|c| c.ends_with("Skiff sends only the messages above.")));
    assert_eq!(
        v.tools,
        [ToolView {
            name: "rm<rf>".into(),
            description: Some("<b>deletes</b>".into())
        }]
    );
    assert_eq!(
        v.stage,
        StageView::Asking {
            approve: "Approve",
            failure: None
        }
    );
    // What the page cannot pass on is said before approval.
    assert!(detail("Images and audio").is_some());
    assert!(detail("Tools")
        .is_some_and(|t| t.starts_with("offered to your model. Skiff never runs them")));
}

#[test]
fn the_user_edits_the_last_message_and_approve_sends_the_edit() {
    let mut limiter = Limiter::default();
    let mut ask = everything_ask(3);
    ask.params["messages"] = json!([
        {"role": "user", "content": [{"type": "text", "text": "Earlier"}, {"type": "image", "mimeType": "image/png", "data": "AAAA"}]},
        {"role": "assistant", "content": {"type": "text", "text": "Seen."}},
        {"role": "user", "content": {"type": "text", "text": "Resource trigger-sampling-request context: Say hi"}}
    ]);
    let mut card = shown(admit(&ask, &mut limiter, 0.0));
    assert!(card.can_edit());
    card.set_draft("   ");
    assert_eq!(card.approve(), None, "an emptied message is not sent");
    assert_eq!(
        card.view().problem.as_deref(),
        Some("The message is empty: write what the model should answer, or Deny.")
    );
    card.set_draft("Say hello in French");
    assert_eq!(card.view().problem, None, "typing clears it");
    // The call: the system prompt, every message as the conversation's (the image named in
    // the text), the edit in place of the last message, the limits.
    let call = card.approve().unwrap_or_default();
    let texts: Vec<(crate::records::message::Role, &str)> = call
        .messages
        .iter()
        .map(|m| (m.role, m.content.as_str()))
        .collect();
    assert_eq!(
        texts,
        [
            (
                crate::records::message::Role::User,
                "Earlier\n[Image, image/png, 3 bytes]"
            ),
            (crate::records::message::Role::Assistant, "Seen."),
            (crate::records::message::Role::User, "Say hello in French")
        ]
    );
    assert_eq!(call.system, "You are a helpful test server.");
    assert_eq!(
        (call.max_tokens, call.temperature, call.tool_choice),
        (100, Some(0.7f32), crate::mcp::sampling::ToolChoice::Auto)
    );
    assert!(call.tools.is_empty());
    // Approved: no second approve, no edit, the text streams in.
    assert_eq!(card.approve(), None);
    card.set_draft("changed later");
    assert_eq!(card.chunk("Bon"), Some("Bon"));
    assert_eq!(card.chunk("jour <b>"), Some("Bonjour <b>"));
    let v = card.view();
    assert_eq!(
        v.stage,
        StageView::Sampling {
            text: "Bonjour <b>".into()
        }
    );
    assert_eq!(
        v.messages[2].text, "Say hello in French",
        "the sent text stays shown"
    );
    assert!(
        v.messages.iter().all(|m| !m.editable),
        "no box once approved"
    );
}

#[test]
fn an_unedited_message_goes_as_the_server_wrote_it() {
    let mut limiter = Limiter::default();
    let mut card = shown(admit(&everything_ask(4), &mut limiter, 0.0));
    let call = card.approve().unwrap_or_default();
    assert_eq!(
        call.messages[0].content,
        "Resource trigger-sampling-request context: Say hi"
    );
    assert_eq!(call.messages.len(), 1);
}

#[test]
fn a_last_message_that_is_not_plain_text_is_not_editable() {
    let mut limiter = Limiter::default();
    let mut ask = everything_ask(5);
    ask.params["messages"] = json!([
        {"role": "user", "content": {"type": "text", "text": "q"}},
        {"role": "assistant", "content": {"type": "text", "text": "a"}}
    ]);
    let card = shown(admit(&ask, &mut limiter, 0.0));
    assert!(!card.can_edit());
    assert!(card.view().messages.iter().all(|m| !m.editable));
}

#[test]
fn answers_deny_failures_and_gone() {
    let mut limiter = Limiter::default();
    let mut card = shown(admit(&everything_ask(9), &mut limiter, 0.0));
    assert_eq!(
        card.deny(),
        AskReply::error("everything", 9, -1, "User rejected sampling request")
    );
    assert_eq!(
        card.said_on_deny(),
        "Denied everything's request to use your model."
    );
    card.approve();
    card.failed(&could_not_answer("No model is set up."));
    assert_eq!(
        card.stage(),
        &Stage::Failed("Your model could not answer: No model is set up.".into())
    );
    assert_eq!(
        card.view().stage,
        StageView::Asking {
            approve: "Try again",
            failure: Some("Your model could not answer: No model is set up.".into())
        }
    );
    assert!(card.approve().is_some(), "a failure can be tried again");
    // The provider's finish mapped to the protocol's.
    let cut = answer("hi", Some("length"), vec![]);
    assert_eq!(
        card.sampled(&cut),
        Ok(AskReply::result(
            "everything",
            9,
            json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m", "stopReason": "maxTokens"})
        ))
    );
    assert_eq!(
        card.sampled(&answer("hi", None, vec![]))
            .map(|a| a.answer.unwrap_or_default()["stopReason"].clone()),
        Ok(json!("endTurn"))
    );
    assert_eq!(
        card.said_on_sent(),
        "Sent your model's answer to everything."
    );
    card.gone();
    assert_eq!(
        card.said_when_gone(),
        "everything no longer waits for an answer."
    );
    assert_eq!(
        card.view().stage,
        StageView::Gone(
            "everything no longer waits for this answer (its connection ended), so nothing was sent."
                .into()
        )
    );
    card.failed("late");
    assert_eq!(card.stage(), &Stage::Gone);
    assert!(
        card.sampled(&cut).is_err(),
        "an answer that arrives after the server stopped waiting is not sent"
    );
    assert_eq!(card.stage(), &Stage::Gone);
}

/// A server's first request of a tool loop: a question and a tool the model may call.
fn weather_ask(key: u64) -> HeldAsk {
    held(
        "weather",
        key,
        json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": "Weather in Paris?"}}],
            "maxTokens": 200,
            "tools": [{"name": "get_weather", "description": "Current weather for a city",
                       "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}],
            "toolChoice": {"mode": "auto"}
        }),
    )
}

fn call(id: &str, name: &str, arguments: &str) -> SampledCall {
    SampledCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

#[test]
fn the_models_tool_call_is_shown_then_goes_back_as_tool_use() {
    let mut limiter = Limiter::default();
    let mut card = shown(admit(&weather_ask(8), &mut limiter, 0.0));
    let v = card.view();
    assert_eq!(
        v.tools_summary.as_deref(),
        Some("Tools the model may call (1)")
    );
    assert_eq!(
        v.tools,
        [ToolView {
            name: "get_weather".into(),
            description: Some("Current weather for a city".into())
        }]
    );
    let sent = card.approve().unwrap_or_default();
    assert_eq!(sent.tools[0].name, "get_weather");
    assert_eq!(sent.tools[0].input_schema["type"], "object");
    card.chunk("Let me check.");
    let reply = card
        .sampled(&answer(
            "Let me check.",
            Some("tool_calls"),
            vec![call("call_1", "get_weather", "{\"city\":\"Paris\"}")],
        ))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(reply.key, 8);
    let result = reply.answer.unwrap_or_default();
    assert_eq!(result["stopReason"], "toolUse");
    assert_eq!(
        result["content"][1],
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
    ask.params["messages"] = json!([
        {"role": "user", "content": {"type": "text", "text": "Weather in Paris?"}},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}}]},
        {"role": "user", "content": [{"type": "tool_result", "toolUseId": "call_1", "content": [{"type": "text", "text": "Sunny, 21 C"}]}]}
    ]);
    let mut card = shown(admit(&ask, &mut limiter, 0.0));
    assert!(!card.can_edit(), "a tool result is not the user's to edit");
    let v = card.view();
    assert_eq!(
        v.messages[1].text,
        "Asks to call get_weather({\"city\":\"Paris\"})"
    );
    assert_eq!(v.messages[2].text, "Tool result: Sunny, 21 C");
    let sent = card.approve().unwrap_or_default();
    assert_eq!(sent.messages[1].tool_calls[0].id, "call_1");
    assert_eq!(
        sent.messages[1].tool_calls[0]
            .result()
            .map(|r| r["content"][0]["text"].clone()),
        Some(json!("Sunny, 21 C"))
    );
    let reply = card
        .sampled(&answer("It is sunny in Paris.", Some("stop"), vec![]))
        .unwrap_or_else(|e| panic!("{e}"));
    let result = reply.answer.unwrap_or_default();
    assert_eq!(
        result["content"],
        json!({"type": "text", "text": "It is sunny in Paris."})
    );
    assert_eq!(result["stopReason"], "endTurn");
}

#[test]
fn a_call_with_unreadable_arguments_fails_the_card_and_sends_nothing() {
    let mut limiter = Limiter::default();
    let mut card = shown(admit(&weather_ask(10), &mut limiter, 0.0));
    card.approve();
    let out = card.sampled(&answer(
        "",
        None,
        vec![call("c", "get_weather", "{\"city\":")],
    ));
    assert!(out.is_err());
    assert!(matches!(card.stage(), Stage::Failed(s) if s.contains("not a JSON object")));
    assert!(matches!(
        card.view().stage,
        StageView::Asking {
            approve: "Try again",
            ..
        }
    ));
}
