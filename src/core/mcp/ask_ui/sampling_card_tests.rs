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
        html.contains("<dt>Tools</dt><dd>not offered to your model"),
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
    // The host's `sample` argument: the system prompt, every message as text (the image
    // named), the edit in place of the last message, the limits.
    assert_eq!(
        card.approve(),
        Some(json!({
            "system": "You are a helpful test server.",
            "messages": [
                {"role": "user", "text": "Earlier\n[Image, image/png, 3 bytes]"},
                {"role": "assistant", "text": "Seen."},
                {"role": "user", "text": "Say hello in French"}
            ],
            "maxTokens": 100,
            "temperature": 0.7f32
        }))
    );
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
        arg["messages"],
        json!([{"role": "user", "text": "Resource trigger-sampling-request context: Say hi"}])
    );
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
