use super::context::*;
use super::tokens;
use crate::records::message::{Message, Role};
use crate::records::tool_call::ToolCallRecord;

fn msg(id: &str, role: Role, chars: usize) -> Message {
    Message::new(id.into(), role, "a".repeat(chars), 0.0)
}

/// u0 a0 u1 a1 ... each message `chars` long.
fn chat(pairs: usize, chars: usize) -> Vec<Message> {
    (0..pairs)
        .flat_map(|i| {
            [
                msg(&format!("u{i}"), Role::User, chars),
                msg(&format!("a{i}"), Role::Assistant, chars),
            ]
        })
        .collect()
}

fn ids(ms: &[Message]) -> Vec<&str> {
    ms.iter().map(|m| m.id.as_str()).collect()
}

#[test]
fn everything_fits_and_everything_is_sent() {
    let mut h = chat(3, 40);
    h.push(msg("u3", Role::User, 40));
    let p = plan(&h, None, &Limits::new(16_384, 32, None), 100, 1000);
    assert_eq!(p.first, 0);
    assert_eq!((p.cleared, p.dropped), (0, 0));
    // 7 messages × (4 + 40/4) tokens.
    assert_eq!(p.message_tokens, 7 * 14);
    assert_eq!(p.total_tokens(), 198);
    assert_eq!(p.budget, 16_384 - 2048);
    assert!(!p.over_budget());
    assert_eq!(p.percent(), 2);
}

#[test]
fn the_history_count_keeps_the_newest_and_starts_on_a_question() {
    let mut h = chat(10, 40);
    h.push(msg("u10", Role::User, 40));
    // 4 newest would be a8 u9 a9 u10: a8's question is gone, so a8 goes too.
    let p = plan(&h, None, &Limits::new(16_384, 4, None), 0, 1000);
    assert_eq!(ids(p.select(&h)), ["u9", "a9", "u10"]);
    assert_eq!(p.dropped, 18);
    assert_eq!(p.message_tokens, 3 * 14);
}

#[test]
fn the_budget_drops_the_oldest_first() {
    // Each message costs 4 + 400/4 = 104 tokens. Window 1024, reserve 128 → budget 896;
    // 300 fixed leaves 596: five messages (520) fit, six (624) do not.
    let mut h = chat(5, 400);
    h.push(msg("u5", Role::User, 400));
    let p = plan(&h, None, &Limits::new(1024, 32, Some(128)), 300, 1000);
    // Walking back: u5 a4 u4 a3 u3 fit, a2 does not.
    assert_eq!(ids(p.select(&h)), ["u3", "a3", "u4", "a4", "u5"]);
    assert_eq!(p.total_tokens(), 300 + 5 * 104);
    assert!(p.total_tokens() <= p.budget);
}

#[test]
fn the_newest_message_is_sent_even_alone_over_budget() {
    let h = vec![msg("u0", Role::User, 40), msg("u1", Role::User, 10_000)];
    let p = plan(&h, None, &Limits::new(1024, 32, None), 0, 1000);
    assert_eq!(ids(p.select(&h)), ["u1"]);
    assert!(p.over_budget());
    assert!(p.percent() > 100);
}

#[test]
fn a_tool_heavy_answer_is_kept_whole_or_dropped_whole() {
    let mut answer = msg("a0", Role::Assistant, 40);
    let mut call = ToolCallRecord::new("c1".into(), "fetch".into(), "{\"url\":\"x\"}".into());
    call.start(0.0);
    call.finish(
        serde_json::json!({"content":[{"type":"text","text":"r".repeat(4000)}]}),
        1.0,
    );
    answer.tool_calls.push(call);
    let with_result = tokens::message(&answer, 2000);
    // The result counts as the model sees it: cut to the result limit.
    assert!(with_result > 500 && with_result < 600, "{with_result}");
    let h = vec![msg("u0", Role::User, 40), answer, msg("u1", Role::User, 40)];
    // Room for u1 but not for the tool answer: the answer goes with its question.
    let p = plan(&h, None, &Limits::new(512, 32, Some(0)), 300, 2000);
    assert_eq!(ids(p.select(&h)), ["u1"]);
    // Room for everything: the answer travels with its calls and results.
    let p = plan(&h, None, &Limits::new(4096, 32, Some(0)), 300, 2000);
    assert_eq!(ids(p.select(&h)), ["u0", "a0", "u1"]);
    assert_eq!(p.message_tokens, 14 + with_result + 14);
}

#[test]
fn nothing_before_the_clear_mark_is_sent() {
    let mut h = chat(3, 40);
    h.push(msg("u3", Role::User, 40));
    let p = plan(&h, Some("a1"), &Limits::new(16_384, 32, None), 0, 1000);
    assert_eq!(ids(p.select(&h)), ["u2", "a2", "u3"]);
    assert_eq!((p.cleared, p.dropped), (4, 0));
    // A mark on a message that was since deleted clears nothing.
    let p = plan(&h, Some("gone"), &Limits::new(16_384, 32, None), 0, 1000);
    assert_eq!(p.first, 0);
    // A mark after the last message: the next request carries only what comes after it.
    let p = plan(&h, Some("u3"), &Limits::new(16_384, 32, None), 0, 1000);
    assert!(p.select(&h).is_empty());
    assert_eq!(p.message_tokens, 0);
}

#[test]
fn limits_are_sane_whatever_settings_say() {
    let l = Limits::new(8, 0, Some(1_000_000));
    assert_eq!(l.context_window, MIN_CONTEXT_WINDOW);
    assert_eq!(l.history_count, 1);
    assert_eq!(l.reserve, MIN_CONTEXT_WINDOW / 2);
    assert_eq!(Limits::new(16_384, 32, None).reserve, 2048);
}

#[test]
fn token_estimates() {
    assert_eq!(tokens::estimate(""), 0);
    assert_eq!(tokens::estimate("abcd"), 1);
    assert_eq!(tokens::estimate("abcde"), 2);
    // Non-ASCII counts a token a character.
    assert_eq!(tokens::estimate("日本語"), 3);
    assert_eq!(tokens::estimate("héllo"), 2);
}

#[test]
fn a_tool_loop_in_progress_keeps_its_question_and_every_step() {
    // u0 a0 | u1 s1 s2 s3: the steps s1..s3 answer u1 and are all sent, even past the count.
    let mut h = chat(1, 40);
    h.push(msg("u1", Role::User, 40));
    for i in 1..=3 {
        h.push(msg(&format!("s{i}"), Role::Assistant, 40));
    }
    let p = plan(&h, None, &Limits::new(16_384, 2, None), 0, 1000);
    assert_eq!(ids(p.select(&h)), ["u1", "s1", "s2", "s3"]);
    let p = plan(&h, None, &Limits::new(16_384, 32, None), 0, 1000);
    assert_eq!(ids(p.select(&h)), ["u0", "a0", "u1", "s1", "s2", "s3"]);
    assert_eq!(p.message_tokens, 6 * 14);
}

#[test]
fn retrying_a_too_long_request_with_its_question_alone() {
    let mut h = chat(2, 40);
    h.push(msg("u2", Role::User, 40));
    h.push(msg("a2", Role::Assistant, 0));
    assert_eq!(mark_before_question(&h, "a2").as_deref(), Some("a1"));
    let p = plan(&h[..5], Some("a1"), &Limits::new(16_384, 32, None), 0, 1000);
    assert_eq!(ids(p.select(&h[..5])), ["u2"]);
    // The first question has nothing older to leave out.
    assert_eq!(mark_before_question(&h, "a0"), None);
    assert_eq!(mark_before_question(&h, "nope"), None);
}
