//! The plain-Rust rules of the worker: SSE framing, whole UTF-8 across tokens, stop strings,
//! request parsing, model choice, queue order, and the storage rules.

use skiff_core::local_model::GgufError;
use skiff_core::model_panel::FromWorker;
use skiff_worker::api_error::ApiError;
use skiff_worker::completion::{Completion, Vocab};
use skiff_worker::engine::select_model;
use skiff_worker::generate::{
    mask_below_min_p, reusable_prefix, LogitsSource, SamplingParams, PREFILL_CHUNK,
};
use skiff_worker::model::ModelError;
use skiff_worker::queue::{Aborted, Queue};
use skiff_worker::request::{apply_model_defaults, parse_chat_request, MessageRole};
use skiff_worker::sse::{FinishReason, SseWriter, Timings};
use skiff_worker::store::{
    cleanup, model_id, Generating, HeaderProbe, Job, JobError, JobKind, ModelRecord, Probe,
    Refusal, Report, SamplingValue,
};
use skiff_worker::text_out::TextOut;

/// A model that "generates" a fixed script of token ids greedily.
struct Script {
    ids: Vec<u32>,
    at: usize,
    vocab: usize,
    context: usize,
}

impl LogitsSource for Script {
    fn forward(&mut self, _t: &[u32], _pos: usize) -> Result<candle_core::Tensor, ModelError> {
        let mut logits = vec![0f32; self.vocab];
        logits[self.ids[self.at.min(self.ids.len() - 1)] as usize] = 10.0;
        self.at += 1;
        candle_core::Tensor::new(logits, &candle_core::Device::Cpu)
            .map_err(|e| ModelError::Engine(e.to_string()))
    }
    fn context(&self) -> usize {
        self.context
    }
}

/// Token i is the i-th byte string; token 0 is end-of-generation.
struct Bytes(Vec<Vec<u8>>);

impl Vocab for Bytes {
    fn token_bytes(&self, id: u32) -> Vec<u8> {
        self.0[id as usize].clone()
    }
    fn is_end_of_generation(&self, id: u32) -> bool {
        id == 0
    }
}

fn run(
    ids: &[u32],
    vocab: Bytes,
    max_tokens: Option<usize>,
    stop: &[&str],
    context: usize,
) -> String {
    let mut model = Script {
        ids: ids.to_vec(),
        at: 0,
        vocab: vocab.0.len(),
        context,
    };
    let greedy = SamplingParams {
        temperature: 0.0,
        ..SamplingParams::default()
    };
    let stop = stop.iter().map(|s| s.to_string()).collect();
    let mut c = Completion::new(
        vec![5, 6],
        &greedy,
        max_tokens,
        stop,
        false,
        SseWriter::new(1, "m"),
        0.0,
    );
    let mut out = String::new();
    let mut clock = 0.0;
    for _ in 0..100 {
        let p = c
            .step(&mut model, &vocab, || {
                clock += 1.0;
                clock
            })
            .expect("step");
        out.push_str(&p.sse);
        if p.done {
            return out;
        }
    }
    panic!("never finished: {out}");
}

/// The `content` deltas of an SSE text, in order.
fn contents(sse: &str) -> Vec<String> {
    sse.split("\n\n")
        .filter_map(|e| e.strip_prefix("data: "))
        .filter(|e| *e != "[DONE]")
        .filter_map(|e| {
            let v: serde_json::Value = serde_json::from_str(e).expect("event is JSON");
            v["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_string)
        })
        .collect()
}

fn vocab() -> Bytes {
    // 1: "Ca", 2: first two bytes of "é" (0xC3) + …, split on purpose.
    Bytes(vec![
        b"</s>".to_vec(),
        b"Caf".to_vec(),
        vec![0xC3],
        vec![0xA9, b'!'],
        b" ST".to_vec(),
        b"OP here".to_vec(),
        "€".as_bytes()[..1].to_vec(),
        "€".as_bytes()[1..].to_vec(),
    ])
}

#[test]
fn a_character_split_across_tokens_is_sent_whole() {
    let sse = run(&[1, 2, 3, 6, 7, 0], vocab(), None, &[], 64);
    assert_eq!(contents(&sse), ["Caf", "é!", "€"]);
    assert!(sse.ends_with("data: [DONE]\n\n"));
    assert!(sse.contains(r#""finish_reason":"stop""#));
    assert!(
        sse.contains(r#""usage":{"completion_tokens":5,"prompt_tokens":2,"total_tokens":7}"#),
        "{sse}"
    );
    for key in [
        "prompt_n",
        "prompt_ms",
        "prompt_per_second",
        "predicted_n",
        "predicted_ms",
        "predicted_per_second",
    ] {
        assert!(sse.contains(&format!("\"{key}\":")), "{key} missing: {sse}");
    }
}

#[test]
fn a_stop_string_split_across_tokens_ends_the_answer_unsent() {
    let sse = run(&[1, 4, 5, 1, 1], vocab(), None, &["STOP"], 64);
    assert_eq!(contents(&sse).concat(), "Caf ");
    assert!(sse.contains(r#""finish_reason":"stop""#));
}

#[test]
fn a_partial_stop_string_that_never_completes_is_sent_at_the_end() {
    let sse = run(&[1, 4, 0], vocab(), None, &["STOP"], 64);
    assert_eq!(contents(&sse).concat(), "Caf ST");
}

#[test]
fn max_tokens_and_a_full_context_finish_with_length() {
    let sse = run(&[1, 1, 1, 1], vocab(), Some(2), &[], 64);
    assert_eq!(contents(&sse).concat(), "CafCaf");
    assert!(sse.contains(r#""finish_reason":"length""#));
    // Prompt of 2 in a context of 4: two tokens fit.
    let sse = run(&[1, 1, 1, 1, 1], vocab(), None, &[], 4);
    assert_eq!(contents(&sse).concat(), "CafCaf");
    assert!(sse.contains(r#""finish_reason":"length""#));
}

#[test]
fn text_out_holds_incomplete_utf8_at_every_split() {
    let text = "a€b😀c";
    let bytes = text.as_bytes();
    for cut in 0..=bytes.len() {
        let mut t = TextOut::new(vec![]);
        let mut got = t.push(&bytes[..cut]).text;
        got.push_str(&t.push(&bytes[cut..]).text);
        got.push_str(&t.finish());
        assert_eq!(got, text, "cut at {cut}");
    }
}

#[test]
fn sse_finish_has_done_and_no_empty_deltas() {
    let w = SseWriter::new(3, "x");
    assert_eq!(w.delta(""), None);
    let end = w.finish(
        FinishReason::Length,
        &Timings {
            prompt_n: 4,
            cache_n: 6,
            prompt_ms: 2.0,
            predicted_n: 8,
            predicted_ms: 4.0,
        },
    );
    assert!(end.ends_with("\n\ndata: [DONE]\n\n"));
    assert!(end.contains(r#""predicted_per_second":2000.0"#), "{end}");
    assert!(end.contains(r#""object":"chat.completion.chunk""#));
    // Usage counts the whole prompt; timings split what was read from what was reused.
    assert!(end.contains(r#""prompt_tokens":10"#), "{end}");
    assert!(end.contains(r#""cache_n":6"#), "{end}");
    assert!(end.contains(r#""prompt_n":4"#), "{end}");
}

#[test]
fn the_reusable_prefix_is_the_common_part_less_the_last_prompt_token() {
    assert_eq!(reusable_prefix(&[], &[1, 2, 3]), 0);
    assert_eq!(reusable_prefix(&[1, 2, 9, 9], &[1, 2, 3]), 2);
    // The cache holds the whole prompt and more (the last answer): the last prompt token
    // still runs, or there would be no logits to pick the first new token from.
    assert_eq!(reusable_prefix(&[1, 2, 3, 4, 5], &[1, 2, 3]), 2);
    assert_eq!(reusable_prefix(&[1, 2], &[1, 2, 3, 4]), 2);
    assert_eq!(reusable_prefix(&[7], &[1, 2]), 0);
    assert_eq!(reusable_prefix(&[1], &[]), 0);
}

#[test]
fn prompt_reading_is_announced_then_reported_as_llama_cpp_does() {
    let sse = run(&[1, 0], vocab(), None, &[], 64);
    let first = sse.split("\n\n").next().expect("a first event");
    let v: serde_json::Value =
        serde_json::from_str(first.strip_prefix("data: ").expect("data")).expect("JSON");
    // Announced before any forward pass: nothing read yet, nothing reused.
    assert_eq!(v["prompt_progress"]["total"], 2, "{sse}");
    assert_eq!(v["prompt_progress"]["processed"], 0, "{sse}");
    assert_eq!(v["prompt_progress"]["cache"], 0, "{sse}");
    // No text in a progress chunk: decoders that ignore the field show nothing.
    assert_eq!(v["choices"][0]["delta"], serde_json::json!({}), "{sse}");
    assert_eq!(contents(&sse), ["Caf"]);
}

#[test]
fn a_long_prompt_reports_each_chunk_read() {
    let prompt: Vec<u32> = (0..(PREFILL_CHUNK * 3 + 3) as u32)
        .map(|i| 1 + i % 4)
        .collect();
    let mut model = Script {
        ids: vec![1, 0],
        at: 0,
        vocab: 8,
        context: 4096,
    };
    let greedy = SamplingParams {
        temperature: 0.0,
        ..SamplingParams::default()
    };
    let mut c = Completion::resume(
        prompt,
        PREFILL_CHUNK / 2,
        &greedy,
        None,
        vec![],
        false,
        SseWriter::new(1, "m"),
        0.0,
    );
    let mut processed = vec![];
    let mut clock = 0.0;
    while !c.is_done() {
        let p = c
            .step(&mut model, &vocab(), || {
                clock += 1.0;
                clock
            })
            .expect("step");
        for e in p.sse.split("\n\n").filter_map(|e| e.strip_prefix("data: ")) {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(e) {
                if let Some(n) = v["prompt_progress"]["processed"].as_u64() {
                    assert_eq!(v["prompt_progress"]["cache"], PREFILL_CHUNK as u64 / 2);
                    processed.push(n as usize);
                }
            }
        }
    }
    let half = PREFILL_CHUNK / 2;
    assert_eq!(
        processed,
        [half, half + PREFILL_CHUNK, half + 2 * PREFILL_CHUNK]
    );
    assert_eq!(c.cached(), half);
}

#[test]
fn a_request_without_sampling_gets_llama_cpps_defaults() {
    let r = parse_chat_request(r#"{"model":"smol","messages":[{"role":"user","content":"a"}]}"#)
        .expect("parses");
    assert_eq!(r.sampling.temperature, 0.8);
    assert_eq!(r.sampling.top_k, Some(40));
    assert_eq!(r.sampling.top_p, Some(0.95));
    assert_eq!(r.sampling.min_p, Some(0.05));
}

#[test]
fn min_p_cuts_what_is_less_likely_than_a_share_of_the_likeliest() {
    // Probabilities relative to the likeliest: e^(l - max). ln(0.05) ≈ −3.0.
    let mut logits = vec![2.0_f32, 1.0, -0.9, -1.1, f32::NEG_INFINITY];
    mask_below_min_p(&mut logits, 0.05);
    assert_eq!(logits[0], 2.0, "the likeliest stays");
    assert_eq!(logits[1], 1.0);
    assert_eq!(logits[2], -0.9, "e^-2.9 ≈ 0.055 of the likeliest stays");
    assert_eq!(logits[3], f32::NEG_INFINITY, "e^-3.1 ≈ 0.045 is cut");
    assert_eq!(logits[4], f32::NEG_INFINITY);
    // Off (0 or 1 and beyond) changes nothing, nor does an all-masked row.
    let mut same = vec![3.0_f32, -9.0];
    mask_below_min_p(&mut same, 0.0);
    mask_below_min_p(&mut same, 1.0);
    assert_eq!(same, [3.0, -9.0]);
    let mut none = vec![f32::NEG_INFINITY; 3];
    mask_below_min_p(&mut none, 0.05);
    assert!(none.iter().all(|l| *l == f32::NEG_INFINITY));
}

#[test]
fn request_parameters_are_read() {
    let r = parse_chat_request(
        r#"{"model":"smol","messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}],
            "max_tokens":5,"temperature":0.5,"top_p":0.9,"top_k":40,"min_p":0.1,"repeat_penalty":1.1,"seed":7,"stop":["\n\n","END"]}"#,
    )
    .expect("parses");
    assert_eq!(r.model, "smol");
    assert_eq!(r.messages[0].role, MessageRole::System);
    assert_eq!(r.messages[1].content, "a\nb");
    assert_eq!(r.max_tokens, Some(5));
    assert_eq!(r.sampling.temperature, 0.5);
    assert_eq!(r.sampling.top_p, Some(0.9));
    assert_eq!(r.sampling.top_k, Some(40));
    assert_eq!(r.sampling.min_p, Some(0.1));
    assert!((r.sampling.repeat_penalty - 1.1).abs() < 1e-6);
    assert_eq!(r.sampling.seed, 7);
    assert_eq!(r.stop, ["\n\n", "END"]);
    let one = parse_chat_request(r#"{"messages":[{"role":"user","content":"x"}],"stop":"Q:"}"#)
        .expect("parses");
    assert_eq!(one.stop, ["Q:"]);
}

#[test]
fn images_are_refused_with_the_text_only_sentence() {
    let e = parse_chat_request(
        r#"{"messages":[{"role":"user","content":[{"type":"text","text":"what is this"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]}"#,
    )
    .expect_err("refused");
    assert_eq!(e, ApiError::ImageContent);
    assert_eq!(e.status(), 400);
    assert_eq!(
        e.body(),
        r#"{"error":{"message":"This model reads text only; remove the image or pick another provider."}}"#
    );
}

#[test]
fn a_conversation_longer_than_the_context_is_refused_with_openais_code() {
    let e = ApiError::PromptTooLong {
        tokens: 3000,
        context: 2048,
    };
    assert_eq!(e.status(), 400);
    assert_eq!(
        e.body(),
        r#"{"error":{"code":"context_length_exceeded","message":"The conversation is 3000 tokens, more than this model's context of 2048 tokens set in Settings."}}"#
    );
    // The page's provider code reads it as a context refusal.
    let page = skiff_core::provider::error_from_response(400, &e.body());
    assert!(
        matches!(
            page,
            skiff_core::provider::ProviderError::ContextTooLong { .. }
        ),
        "{page:?}"
    );
}

fn record(id: &str, added_ms: f64) -> ModelRecord {
    ModelRecord {
        id: id.into(),
        name: id.into(),
        architecture: "llama".into(),
        quantization: "Q4_1".into(),
        context_length: Some(8192),
        context: 2048,
        size: 1,
        parameters: None,
        chat_template: None,
        added_ms,
        top_k: None,
        repeat_penalty: None,
        seed: None,
    }
}

#[test]
fn the_model_field_picks_a_stored_model() {
    assert_eq!(select_model(&[], "").unwrap_err(), ApiError::NoModelStored);
    assert!(ApiError::NoModelStored
        .to_string()
        .contains("Settings → Providers → In this browser"));
    let models = [record("new", 2.0), record("old", 1.0)];
    assert_eq!(select_model(&models, "").map(|m| m.id.as_str()), Ok("new"));
    assert_eq!(
        select_model(&models, "old").map(|m| m.id.as_str()),
        Ok("old")
    );
    let e = select_model(&models, "gpt-4o").unwrap_err();
    assert_eq!(e, ApiError::UnknownModel("gpt-4o".into()));
    assert_eq!(e.status(), 404);
}

#[test]
fn prompt_too_long_says_both_numbers() {
    let e = ApiError::PromptTooLong {
        tokens: 3000,
        context: 2048,
    };
    assert_eq!(
        e.to_string(),
        "The conversation is 3000 tokens, more than this model's context of 2048 tokens set in Settings."
    );
}

#[test]
fn queue_runs_in_arrival_order_one_at_a_time() {
    let mut q = Queue::default();
    q.submit(1, "a");
    q.submit(2, "b");
    q.submit(3, "c");
    assert_eq!(q.start_next(), Some((1, "a")));
    assert_eq!(q.start_next(), None, "one at a time");
    assert_eq!(q.abort(2), Aborted::Waiting("b"));
    assert_eq!(q.abort(1), Aborted::Running);
    assert_eq!(q.waiting(), 1);
    q.finish(1);
    assert_eq!(q.start_next(), Some((3, "c")));
    q.finish(3);
    assert_eq!(q.abort(3), Aborted::Unknown);
    assert_eq!(q.start_next(), None);
}

#[test]
fn model_ids_are_sanitized_and_unique() {
    assert_eq!(
        model_id("SmolLM2-135M-Instruct.Q4_1.gguf", &[]),
        "SmolLM2-135M-Instruct.Q4_1"
    );
    assert_eq!(model_id("my model (1).GGUF", &[]), "my-model-1");
    assert_eq!(model_id("../../etc/passwd", &[]), "passwd");
    assert_eq!(model_id("ü.gguf", &[]), "model");
    let taken = vec!["a".to_string(), "a-2".to_string()];
    assert_eq!(model_id("a.gguf", &taken), "a-3");
}

#[test]
fn startup_cleanup_removes_what_an_interrupted_add_left() {
    let names: Vec<String> = [
        "ok.gguf",
        "ok.json",
        "half.part",
        "half.json",
        "orphan.gguf",
        "lost.json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let mut gone = cleanup(&names);
    skiff_core::order::sort_by(&mut gone, |a, b| a.cmp(b));
    assert_eq!(gone, ["half.json", "half.part", "lost.json", "orphan.gguf"]);
}

#[test]
fn job_progress_is_reported_at_most_four_times_a_second() {
    let mut j = Job::start(1, JobKind::Url, "m.gguf", None, 0.0);
    let reported: Vec<bool> = [100.0, 200.0, 260.0, 300.0, 520.0]
        .iter()
        .map(|&t| j.progress(1, t))
        .collect();
    assert_eq!(reported, [false, false, true, false, true]);
    j.fail(JobError::NoBody);
    assert!(j.done);
    let listed = j.listed();
    assert_eq!(listed.kind, JobKind::Url);
    assert_eq!(listed.error, Some(JobError::NoBody));
}

#[test]
fn a_file_that_is_not_gguf_is_refused_from_its_first_bytes() {
    let mut p = HeaderProbe::default();
    assert_eq!(
        p.feed(b"\x89PNG\r\n", Some(1000)),
        Probe::Refused(JobError::NotAModel(GgufError::NotGguf))
    );
    let mut p = HeaderProbe::default();
    assert_eq!(p.feed(b"GG", Some(1000)), Probe::NeedMore);
    assert_eq!(
        p.finish(2).unwrap_err(),
        JobError::EndsInHeader,
        "a file that ends in its header is not stored"
    );
}

#[test]
fn context_is_clamped_to_what_the_model_allows() {
    let r = record("m", 0.0);
    assert_eq!(r.with_context(100_000).context, 8192);
    assert_eq!(r.with_context(1).context, 256);
    assert_eq!(skiff_worker::store::default_context(Some(32768)), 2048);
    assert_eq!(skiff_worker::store::default_context(Some(512)), 512);
}

#[test]
fn the_state_lists_what_the_panel_shows_and_keeps_the_records_private_fields_out() {
    let models = [record("m", 1.0).with_sampling(SamplingValue::TopK(Some(40)))];
    let jobs = [Job::start(2, JobKind::File, "m.gguf", Some(10), 5.0)];
    let generating = Generating {
        model: "m".into(),
        id: 9,
    };
    let state = Report {
        models: &models,
        jobs: &jobs,
        loaded: None,
        generating: Some(&generating),
        waiting: 2,
        storage: None,
        refused: Some(&Refusal::NotStored),
    }
    .state();
    assert_eq!(state.models[0].id, "m");
    assert_eq!(state.models[0].top_k, Some(40));
    assert_eq!(state.jobs[0].total, Some(10));
    assert_eq!(state.generating.as_deref(), Some("m"));
    assert_eq!(state.waiting, 2);
    // It travels as JSON and reads back whole on the page's side.
    let text = FromWorker::State(state.clone()).to_json();
    assert!(!text.contains("added_ms"), "{text}");
    assert_eq!(FromWorker::from_json(&text), Ok(FromWorker::State(state)));
}

#[test]
fn a_models_sampling_defaults_fill_only_what_the_request_leaves_out() {
    let r = record("m", 1.0)
        .with_sampling(SamplingValue::TopK(Some(40)))
        .with_sampling(SamplingValue::RepeatPenalty(Some(1.1)))
        .with_sampling(SamplingValue::Seed(Some(7)));
    assert_eq!(
        (r.top_k, r.repeat_penalty, r.seed),
        (Some(40), Some(1.1), Some(7))
    );
    // None clears (the page checked the value: skiff_core::model_panel::Sampling::parse).
    assert_eq!(r.with_sampling(SamplingValue::Seed(None)).seed, None);

    let body = r#"{"messages":[{"role":"user","content":"hi"}],"seed":3}"#;
    let mut req = parse_chat_request(body).unwrap();
    apply_model_defaults(&mut req, body, &r);
    assert_eq!(req.sampling.top_k, Some(40));
    assert!((req.sampling.repeat_penalty - 1.1).abs() < 1e-6);
    assert_eq!(req.sampling.seed, 3, "the request's own seed wins");
}
