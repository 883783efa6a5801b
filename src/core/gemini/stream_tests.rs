use super::*;

fn ev(json: &str) -> String {
    format!("data: {json}\r\n\r\n")
}

fn text(t: &str) -> String {
    ev(&format!(
        r#"{{"candidates":[{{"content":{{"parts":[{{"text":{}}}],"role":"model"}},"index":0}}]}}"#,
        serde_json::to_string(t).unwrap()
    ))
}

fn finish(reason: &str) -> String {
    ev(&format!(
        r#"{{"candidates":[{{"content":{{"parts":[{{"text":""}}],"role":"model"}},"finishReason":"{reason}","index":0}}],"usageMetadata":{{"promptTokenCount":4,"candidatesTokenCount":2,"totalTokenCount":6}}}}"#
    ))
}

#[test]
fn an_error_event_first_fails_at_once_and_stays_failed() {
    let mut s = GeminiStream::new();
    let body = ev(
        r#"{"error":{"code":500,"message":"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting","status":"INTERNAL"}}"#,
    );
    let e = ProviderError::InStream("An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting".into());
    assert_eq!(s.feed(body.as_bytes()), Err(e.clone()));
    assert_eq!(s.feed(text("late").as_bytes()), Err(e.clone()));
    assert_eq!(s.finish(), Err(e));
    assert!(!s.is_complete());
}

#[test]
fn text_before_an_error_is_kept_and_the_error_comes_next() {
    let mut s = GeminiStream::new();
    let body = format!(
        "{}{}{}",
        text("Hel"),
        ev(
            r#"{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}"#
        ),
        text("never decoded"),
    );
    assert_eq!(
        s.feed(body.as_bytes()),
        Ok(vec![StreamEvent::Content("Hel".into())])
    );
    let e = ProviderError::InStream("The model is overloaded. Please try again later.".into());
    assert_eq!(s.feed(b""), Err(e.clone()));
    assert_eq!(s.finish(), Err(e));
}

#[test]
fn a_safety_stop_keeps_the_text_and_says_why() {
    let mut s = GeminiStream::new();
    let body = format!("{}{}", text("Part of it"), finish("SAFETY"));
    assert_eq!(
        s.feed(body.as_bytes()),
        Ok(vec![StreamEvent::Content("Part of it".into())])
    );
    let e = ProviderError::Blocked(
        "Gemini stopped the answer because it may break its safety rules (SAFETY)".into(),
    );
    assert_eq!(s.finish(), Err(e.clone()));
    assert_eq!(
        e.to_string(),
        "The provider withheld the answer: Gemini stopped the answer because it may break its safety rules (SAFETY). Rephrase the message, or pick another model."
    );
    assert!(!e.is_retryable());
}

#[test]
fn a_refused_prompt_has_no_candidates_and_says_why() {
    let mut s = GeminiStream::new();
    let body = ev(
        r#"{"promptFeedback":{"blockReason":"PROHIBITED_CONTENT"},"usageMetadata":{"promptTokenCount":8,"totalTokenCount":8}}"#,
    );
    assert_eq!(
        s.feed(body.as_bytes()),
        Err(ProviderError::Blocked(
            "Gemini refused the message because it may ask for prohibited content (PROHIBITED_CONTENT)".into()
        ))
    );
}

#[test]
fn max_tokens_is_whole_and_usage_comes_once_with_the_finish() {
    let mut s = GeminiStream::new();
    let body = format!("{}{}{}", text("a"), text("b"), finish("MAX_TOKENS"));
    let mut events = s.feed(body.as_bytes()).unwrap();
    events.extend(s.finish().unwrap());
    assert_eq!(
        events,
        vec![
            StreamEvent::Content("a".into()),
            StreamEvent::Content("b".into()),
            StreamEvent::Finish("MAX_TOKENS".into()),
            StreamEvent::Usage(Usage {
                prompt_tokens: 4,
                completion_tokens: 2,
                total_tokens: 6
            }),
            StreamEvent::Done,
        ]
    );
    assert!(s.is_complete());
}

#[test]
fn nothing_after_the_finish_belongs_to_the_answer() {
    let mut s = GeminiStream::new();
    let body = format!("{}{}", finish("STOP"), text("extra"));
    let events = s.feed(body.as_bytes()).unwrap();
    assert!(!events.contains(&StreamEvent::Content("extra".into())));
    assert_eq!(s.finish(), Ok(vec![]));
}

#[test]
fn a_call_without_args_gets_an_empty_object_and_calls_number_across_events() {
    let mut s = GeminiStream::new();
    let call = |name: &str| {
        ev(&format!(
            r#"{{"candidates":[{{"content":{{"parts":[{{"functionCall":{{"name":"{name}"}}}}],"role":"model"}},"index":0}}]}}"#
        ))
    };
    let body = format!("{}{}{}", call("get_time"), call("get_date"), finish("STOP"));
    let events = s.feed(body.as_bytes()).unwrap();
    let calls: Vec<&ToolCallDelta> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCall(d) => Some(d),
            _ => None,
        })
        .collect();
    assert_eq!(
        calls,
        [
            &ToolCallDelta {
                index: 0,
                id: None,
                name: Some("get_time".into()),
                arguments: "{}".into()
            },
            &ToolCallDelta {
                index: 1,
                id: None,
                name: Some("get_date".into()),
                arguments: "{}".into()
            },
        ]
    );
}

#[test]
fn broken_json_is_malformed_and_a_body_without_a_finish_is_cut() {
    let mut s = GeminiStream::new();
    match s.feed(b"data: {\"candidates\":\r\n\r\n") {
        Err(ProviderError::Malformed(m)) => assert!(m.contains("not valid JSON"), "{m}"),
        other => panic!("{other:?}"),
    }
    let mut s = GeminiStream::new();
    assert_eq!(
        s.feed(text("only this").as_bytes()),
        Ok(vec![StreamEvent::Content("only this".into())])
    );
    assert_eq!(s.finish(), Err(ProviderError::StreamCut));
    assert!(!s.is_complete());
}

#[test]
fn an_unknown_finish_reason_is_kept_verbatim_in_the_sentence() {
    let mut s = GeminiStream::new();
    assert_eq!(
        s.feed(finish("SOMETHING_NEW").as_bytes()),
        Err(ProviderError::InStream(
            "Gemini stopped the answer for a reason Skiff does not know (SOMETHING_NEW)".into()
        ))
    );
}

#[test]
fn an_inline_image_part_is_one_image_event_at_every_split() {
    let body: &[u8] = include_bytes!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/gemini/image_inline_png.written.sse"
    ));
    let run = |chunks: &[&[u8]]| {
        let mut s = GeminiStream::new();
        let mut out = Vec::new();
        for c in chunks {
            out.extend(s.feed(c).expect("feed"));
        }
        out.extend(s.finish().expect("finish"));
        out
    };
    let whole = run(&[body]);
    assert_eq!(whole.len(), 5, "{whole:?}");
    assert_eq!(
        whole[0],
        StreamEvent::Content("Here is a red square".into())
    );
    match &whole[1] {
        StreamEvent::Image(i) => {
            assert_eq!(i.mime, "image/png");
            assert_eq!(i.bytes.len(), 73);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(whole[2], StreamEvent::Finish("STOP".into()));
    assert_eq!(whole[4], StreamEvent::Done);
    for i in 0..=body.len() {
        assert_eq!(run(&[&body[..i], &body[i..]]), whole, "split at {i}");
    }
}

#[test]
fn thought_images_are_drafts_and_other_inline_data_is_a_note() {
    let mut s = GeminiStream::new();
    let body = ev(
        r#"{"candidates":[{"content":{"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="},"thought":true},{"inlineData":{"mimeType":"audio/L16;codec=pcm;rate=24000","data":"AAAA"}},{"inlineData":{"mimeType":"image/png","data":"%%"}}],"role":"model"},"index":0}]}"#,
    );
    let events = s.feed(body.as_bytes()).expect("feed");
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(
        matches!(&events[0], StreamEvent::Content(t) if t.contains("“audio/l16”")),
        "{events:?}"
    );
    assert!(
        matches!(&events[1], StreamEvent::Content(t) if t.contains("data is damaged")),
        "{events:?}"
    );
}
