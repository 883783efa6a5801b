use super::*;

fn state() -> State {
    serde_json::from_str(
        r#"{"models":[{"id":"smollm2","name":"SmolLM2 135M Instruct","architecture":"llama","quantization":"Q4_1","context_length":8192,"context":2048,"size":98362432,"parameters":134515008,"added_ms":1,"top_k":40}],
            "jobs":[{"job":3,"kind":"url","name":"gemma.gguf","bytes":25000000,"total":100000000,"started_ms":1000,"error":null,"done":false},
                    {"job":4,"kind":"file","name":"notes.txt","bytes":0,"total":10,"started_ms":0,"error":"This file is not a GGUF model.","done":true}],
            "loaded":{"model":"smollm2","context":2048,"load_ms":1234,"bytes":180000000},"generating":{"model":"smollm2","id":1},"waiting":1,"unknown":true}"#,
    )
    .unwrap()
}

#[test]
fn the_worker_state_reads_with_unknown_and_missing_fields() {
    let s = state();
    assert_eq!(s.models[0].context, 2048);
    assert_eq!(
        s.jobs[1].error.as_deref(),
        Some("This file is not a GGUF model.")
    );
    let empty: State = serde_json::from_str("{}").unwrap();
    assert_eq!(empty, State::default());
}

#[test]
fn the_list_shows_progress_time_left_errors_models_and_what_is_loaded() {
    let html = list_html(&state(), None, 11_000.0);
    // 25 MB in 10 s: 75 MB more take 30 s.
    assert!(html.contains("25 MB of 100 MB · 30 s left"), "{html}");
    assert!(
        html.contains(r#"<progress max="1000" value="250""#),
        "{html}"
    );
    assert!(html.contains(r#"data-act="cancel" data-job="3""#), "{html}");
    assert!(
        html.contains("notes.txt: This file is not a GGUF model."),
        "{html}"
    );
    assert!(
        html.contains("llama · Q4_1 · 135 M parameters · 98 MB · up to 8192 tokens"),
        "{html}"
    );
    assert!(
        html.contains(r#"<option value="2048" selected>2048 tokens</option>"#),
        "{html}"
    );
    assert!(
        !html.contains("16384 tokens"),
        "contexts stop at the model's maximum: {html}"
    );
    assert!(html.contains("Loaded: smollm2, context 2048 tokens, in 1.2 s, 180 MB of memory · answering · 1 waiting."), "{html}");
    assert!(html.contains(r#"data-act="ask_delete" data-model="smollm2""#));
}

#[test]
fn deleting_asks_first_and_names_the_model() {
    let html = list_html(&state(), Some("smollm2"), 0.0);
    assert!(html.contains("Delete smollm2? "), "{html}");
    // The file's name leads; the GGUF's own name is the tooltip.
    assert!(
        html.contains(r#"title="SmolLM2 135M Instruct">smollm2</strong>"#),
        "{html}"
    );
    assert!(html.contains(r#"data-act="delete" data-model="smollm2""#));
    assert!(html.contains(r#"data-act="keep""#));
    assert!(!html.contains("ask_delete"));
}

#[test]
fn hostile_names_are_escaped_and_no_time_is_promised_too_early() {
    let mut s = state();
    s.models[0].name = "<img src=x onerror=alert(1)>".into();
    s.jobs[0].name = "\"><script>".into();
    let html = list_html(&s, None, 1_500.0);
    assert!(
        !html.contains("<img") && !html.contains("<script>"),
        "{html}"
    );
    // Half a second in: no estimate yet.
    let line = progress_line(&s.jobs[0], 1_500.0);
    assert_eq!(line, "25 MB of 100 MB");
    let unknown = Job {
        total: None,
        bytes: 5_000_000,
        ..Job::default()
    };
    assert_eq!(progress_line(&unknown, 60_000.0), "5.0 MB");
    assert!(list_html(&State::default(), None, 0.0).contains("No model is stored yet."));
}

#[test]
fn the_form_offers_a_file_and_an_address() {
    let html = form_html();
    assert!(html.contains(r#"type="file" accept=".gguf""#), "{html}");
    assert!(html.contains(r#"<input name="url" type="url""#), "{html}");
    assert!(html.contains("CORS"));
}

#[test]
fn context_choices_stop_at_the_maximum_and_keep_the_current_one() {
    assert_eq!(context_choices(2048, 2048), vec![512, 1024, 2048]);
    assert_eq!(context_choices(3000, 700), vec![512, 700, 1024, 2048, 3000]);
    assert_eq!(time_left(3599.0), "60 min left");
    assert_eq!(time_left(7200.0), "2.0 h left");
}

#[test]
fn sampling_defaults_show_as_fields_and_missing_facts_are_left_out() {
    let html = list_html(&state(), None, 0.0);
    assert!(
        html.contains(r#"data-act="set_top_k" data-model="smollm2" value="40""#),
        "{html}"
    );
    assert!(
        html.contains(r#"data-act="set_seed" data-model="smollm2" value="""#),
        "{html}"
    );
    let mut s: State = serde_json::from_str(
        r#"{"models":[{"id":"m","name":"M","architecture":"gemma3","quantization":"Q8_0","context_length":null,"context":2048,"size":10,"parameters":null}]}"#,
    )
    .unwrap();
    let html = list_html(&s, None, 0.0);
    assert!(html.contains("gemma3 · Q8_0 · 10 bytes<"), "{html}");
    s.models[0].repeat_penalty = Some(1.1);
    assert!(list_html(&s, None, 0.0).contains(r#"value="1.10""#));
    assert!(notice_html("Top k must be <a whole number>.")
        .contains("Top k must be &lt;a whole number&gt;."));
}

#[test]
fn a_model_being_loaded_shows_progress_and_the_frames_own_cancel() {
    let mut s = state();
    s.jobs = vec![Job {
        job: 7,
        kind: "load".into(),
        name: "smollm2".into(),
        bytes: 49_000_000,
        total: Some(98_000_000),
        started_ms: 0.0,
        ..Job::default()
    }];
    let html = list_html(&s, None, 2_000.0);
    assert!(html.contains(r#"data-kind="load""#), "{html}");
    assert!(html.contains("Loading smollm2"), "{html}");
    assert!(html.contains("49 MB of 98 MB · 2 s left"), "{html}");
    assert!(
        html.contains(r#"data-act="cancel_load" data-job="7""#),
        "{html}"
    );
    assert!(!html.contains(r#"data-act="cancel""#), "{html}");
}
