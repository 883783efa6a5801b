use serde_json::{json, Value};

use super::*;
use crate::mcp::sampling::{Limiter, PER_WINDOW};

/// server-everything's `trigger-sampling-request`, as its tool sends it.
fn everything_ask(key: &str) -> Value {
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
    let mut ask = everything_ask("k1");
    ask["params"]["maxTokens"] = json!(0);
    assert_eq!(
        admit(&ask, &mut limiter, 0.0),
        Admission::Refuse {
            answer: json!({"server": "everything", "key": "k1", "error": {"code": -32602,
                "message": "Invalid sampling request: maxTokens must be a positive whole number"}}),
            sentence: "Refused a request from everything to use your model: Invalid sampling request: maxTokens must be a positive whole number".into(),
        }
    );
    let mut other = everything_ask("k2");
    other["method"] = json!("roots/list");
    assert!(matches!(
        admit(&other, &mut limiter, 0.0),
        Admission::Refuse { answer, .. } if answer["error"]["code"] == -32601
    ));
}

#[test]
fn a_flooding_server_is_refused_and_others_are_not() {
    let mut limiter = Limiter::default();
    for i in 0..PER_WINDOW {
        shown(admit(
            &everything_ask(&i.to_string()),
            &mut limiter,
            i as f64,
        ));
    }
    match admit(&everything_ask("over"), &mut limiter, 10.0) {
        Admission::Refuse { answer, sentence } => {
            assert_eq!(answer["error"]["code"], -1);
            assert!(
                sentence.contains("Too many sampling requests"),
                "{sentence}"
            );
        }
        Admission::Show(_) => panic!("a sixth request within a minute was shown"),
    }
    let mut other = everything_ask("o");
    other["server"] = json!("another");
    shown(admit(&other, &mut limiter, 10.0));
    // A minute later the server may ask again.
    shown(admit(&everything_ask("later"), &mut limiter, 70_000.0));
}

#[test]
fn the_card_escapes_hostile_text_and_shows_what_the_model_would_see() {
    let mut limiter = Limiter::default();
    let ask = json!({
        "server": "evil", "name": "Evil\u{202E}gnp.exe<script>", "key": "7",
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
}

#[test]
fn the_user_edits_the_last_message_and_approve_sends_the_edit() {
    let mut limiter = Limiter::default();
    let mut card = shown(admit(&everything_ask("k"), &mut limiter, 0.0));
    assert!(card.can_edit());
    let untouched = card.approved_request();
    assert_eq!(
        untouched,
        everything_ask("k")["params"],
        "unchanged when not edited"
    );
    card.set_draft("   ");
    assert_eq!(card.approve(), None, "an emptied message is not sent");
    assert!(card.html("c").contains("The message is empty"));
    card.set_draft("Say hello in French");
    let sent = card.approve().unwrap_or_default();
    assert_eq!(sent["server"], "everything");
    assert_eq!(
        sent["request"]["messages"][0]["content"],
        json!({"type": "text", "text": "Say hello in French"})
    );
    assert_eq!(
        sent["request"]["systemPrompt"],
        "You are a helpful test server."
    );
    assert_eq!(sent["request"]["maxTokens"], 100);
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
fn a_last_message_that_is_not_plain_text_is_not_editable() {
    let mut limiter = Limiter::default();
    let mut ask = everything_ask("k");
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
    let mut card = shown(admit(&everything_ask("k9"), &mut limiter, 0.0));
    assert_eq!(
        card.deny(),
        json!({"server": "everything", "key": "k9", "error": {"code": -1, "message": "User rejected sampling request"}})
    );
    card.approve();
    card.failed("No model is set up.");
    assert_eq!(card.stage(), &Stage::Failed("No model is set up.".into()));
    assert!(card
        .html("c")
        .contains(r#"data-act="approve">Try again</button>"#));
    assert!(card.approve().is_some(), "a failure can be tried again");
    // The whole result, as the host may give it.
    let whole = json!({"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m", "stopReason": "endTurn"});
    assert_eq!(
        card.sampled(&whole),
        Ok(json!({"server": "everything", "key": "k9", "result": whole}))
    );
    // Or its parts, with the provider's finish words mapped to the protocol's.
    assert_eq!(
        card.sampled(&json!({"text": "hi", "model": "m", "stopReason": "length"})),
        Ok(json!({"server": "everything", "key": "k9", "result":
            {"role": "assistant", "content": {"type": "text", "text": "hi"}, "model": "m", "stopReason": "maxTokens"}}))
    );
    assert_eq!(
        card.sampled(&json!({"text": "hi", "model": "m", "stopReason": "maxTokens"}))
            .map(|a| a["result"]["stopReason"].clone()),
        Ok(json!("maxTokens"))
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
        card.sampled(&whole).is_err(),
        "an answer that arrives after the server stopped waiting is not sent"
    );
    assert_eq!(card.stage(), &Stage::Gone);
}
