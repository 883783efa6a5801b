//! Loading through `Engine` (header, tokenizer, template, tensors) and answering a request
//! end to end as SSE, natively.

use skiff_worker::engine::Engine;
use skiff_worker::request::parse_chat_request;
use skiff_worker::store::{HeaderProbe, ModelRecord, Probe};
use std::io::Read;
use std::path::PathBuf;
use std::time::Instant;

fn model_path(file: &str) -> PathBuf {
    let dir = match std::env::var_os("SKIFF_MODELS") {
        Some(d) => PathBuf::from(d),
        None => {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/skiff/models")
        }
    };
    let path = dir.join(file);
    assert!(
        path.exists(),
        "{} is missing: run scripts/setup-models.sh",
        path.display()
    );
    path
}

/// The record the worker would store, made the way an add makes it (header probe).
fn record_for(file: &str, id: &str) -> ModelRecord {
    let path = model_path(file);
    let mut f = std::fs::File::open(&path).expect("open");
    let size = f.metadata().expect("metadata").len();
    let mut probe = HeaderProbe::default();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf).expect("read");
        assert!(n > 0, "file ended before its header did");
        match probe.feed(&buf[..n], Some(size)) {
            Probe::NeedMore => continue,
            Probe::Accepted => break,
            Probe::Refused(why) => panic!("refused: {why}"),
        }
    }
    let info = probe.finish(size).expect("accepted at full size");
    ModelRecord::new(id, &info, 0.0).with_context(512)
}

fn answer(file: &str, id: &str) -> String {
    let record = record_for(file, id);
    let mut f = std::fs::File::open(model_path(file)).expect("open");
    let t = Instant::now();
    let mut engine = Engine::load(&mut std::io::BufReader::new(&mut f), &record).expect("loads");
    println!("{file}: loaded in {:?}", t.elapsed());
    let req = parse_chat_request(
        r#"{"model":"","temperature":0,"max_tokens":12,"messages":[{"role":"user","content":"What is the capital of France? Answer in one word."}]}"#,
    )
    .expect("parses");
    let mut completion = engine.start(7, &req, 0.0).expect("starts");
    let mut out = String::new();
    let mut clock = 0.0;
    while !completion.is_done() {
        let (model, tok) = engine.model_mut();
        let p = completion
            .step(model, tok, || {
                clock += 10.0;
                clock
            })
            .expect("step");
        out.push_str(&p.sse);
    }
    out
}

#[test]
fn smollm2_answers_paris_as_sse() {
    let sse = answer("SmolLM2-135M-Instruct.Q4_1.gguf", "smol");
    assert!(sse.contains("Paris"), "{sse}");
    assert!(sse.ends_with("data: [DONE]\n\n"), "{sse}");
    assert!(sse.contains(r#""model":"smol""#), "{sse}");
}

#[test]
fn gemma3_answers_as_sse() {
    // A base (not instruction-tuned) model: it continues the text, so only the shape is
    // checked, with the 12-token cap reported as "length".
    let sse = answer("gemma-3-270m-q4_k_m.gguf", "gemma");
    assert!(sse.contains(r#""finish_reason":"length""#), "{sse}");
    assert!(sse.contains(r#""completion_tokens":12"#), "{sse}");
    assert!(sse.ends_with("data: [DONE]\n\n"), "{sse}");
}

/// Runs `body` on `engine` to the end; returns the SSE text.
fn turn(engine: &mut Engine, body: &str) -> String {
    let req = parse_chat_request(body).expect("parses");
    let mut completion = engine.start(1, &req, 0.0).expect("starts");
    let mut out = String::new();
    let mut clock = 0.0;
    while !completion.is_done() {
        let (model, tok) = engine.model_mut();
        let p = completion
            .step(model, tok, || {
                clock += 10.0;
                clock
            })
            .expect("step");
        out.push_str(&p.sse);
    }
    engine.settle(&completion, false);
    out
}

/// The answer's text, from the content deltas.
fn text(sse: &str) -> String {
    sse.split("\n\n")
        .filter_map(|e| e.strip_prefix("data: "))
        .filter_map(|e| serde_json::from_str::<serde_json::Value>(e).ok())
        .filter_map(|v| {
            v["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_string)
        })
        .collect()
}

fn timings(sse: &str, field: &str) -> u64 {
    sse.split("\n\n")
        .filter_map(|e| e.strip_prefix("data: "))
        .filter_map(|e| serde_json::from_str::<serde_json::Value>(e).ok())
        .find_map(|v| v["timings"][field].as_u64())
        .unwrap_or_else(|| panic!("no timings.{field} in {sse}"))
}

fn chat(messages: &[(&str, &str)]) -> String {
    let messages: Vec<serde_json::Value> = messages
        .iter()
        .map(|(role, content)| serde_json::json!({"role": role, "content": content}))
        .collect();
    serde_json::json!({"model": "", "temperature": 0, "max_tokens": 10, "messages": messages})
        .to_string()
}

/// A follow-up turn reads only what is new, and answers exactly as a fresh cache would; a
/// request that changes an earlier message reuses only what precedes the change.
fn prefix_reuse_is_exact(file: &str) {
    let record = record_for(file, "m");
    let load = || {
        let mut f = std::fs::File::open(model_path(file)).expect("open");
        Engine::load(&mut std::io::BufReader::new(&mut f), &record).expect("loads")
    };
    let mut warm = load();
    let first = turn(&mut warm, &chat(&[("user", "Name a colour.")]));
    assert_eq!(timings(&first, "cache_n"), 0, "{first}");
    let said = text(&first);
    let second = [
        ("user", "Name a colour."),
        ("assistant", said.as_str()),
        ("user", "And a fruit?"),
    ];
    let reused = turn(&mut warm, &chat(&second));
    let fresh = turn(&mut load(), &chat(&second));
    assert_eq!(text(&reused), text(&fresh));
    let (cached, read) = (timings(&reused, "cache_n"), timings(&reused, "prompt_n"));
    assert!(
        cached > 5 && read < cached + read,
        "cache_n {cached}, prompt_n {read}"
    );
    assert_eq!(cached + read, timings(&fresh, "prompt_n"));

    // Changing the first message: only the template's opening is shared.
    let changed = [
        ("user", "Name an animal."),
        ("assistant", "A cat."),
        ("user", "Another?"),
    ];
    let diverged = turn(&mut warm, &chat(&changed));
    let fresh = turn(&mut load(), &chat(&changed));
    assert_eq!(text(&diverged), text(&fresh));
    assert!(timings(&diverged, "cache_n") < cached, "{diverged}");
}

#[test]
fn smollm2_follow_up_turns_reuse_the_cache_exactly() {
    prefix_reuse_is_exact("SmolLM2-135M-Instruct.Q4_1.gguf");
}

#[test]
fn gemma3_follow_up_turns_reuse_the_cache_exactly() {
    prefix_reuse_is_exact("gemma-3-270m-q4_k_m.gguf");
}

/// The welcome screen's first turn (issue 31): the body the page posts for a small in-page
/// model (the short system template, no sampling fields), captured from the page's
/// `postMessage` to the worker. What the worker feeds SmolLM2 for it is pinned token for
/// token to what llama.cpp feeds it: the ids below are node-llama-cpp 3.21.1's, rendered by
/// the GGUF's own Jinja `tokenizer.chat_template` (JinjaTemplateChatWrapper) and tokenized
/// with special tokens parsed. No BOS (SmolLM2's `add_bos_token` is false), no default system
/// prompt (the conversation has its own), and the generation prompt last.
#[test]
fn the_welcome_turn_is_rendered_as_llama_cpp_renders_it() {
    use skiff_core::settings::SHORT_SYSTEM_TEMPLATE;
    use skiff_worker::engine::{read_header_from, Prepared};
    let file = "SmolLM2-135M-Instruct.Q4_1.gguf";
    let body = serde_json::json!({
        "model": "SmolLM2-135M-Instruct.Q4_1",
        "messages": [
            {"role": "system", "content": SHORT_SYSTEM_TEMPLATE},
            {"role": "user", "content": "What is the capital of France?"},
        ],
        "stream": true,
        "stream_options": {"include_usage": true},
    })
    .to_string();
    let req = parse_chat_request(&body).expect("parses");
    let mut f = std::io::BufReader::new(std::fs::File::open(model_path(file)).expect("open"));
    let ids = Prepared::read(&mut f, &record_for(file, "smol"))
        .expect("header")
        .prompt(&req.messages)
        .expect("fits");
    let llama_cpp: [u32; 35] = [
        1, 9690, 198, 2683, 359, 253, 5356, 11173, 30, 19842, 260, 1962, 281, 582, 1890, 6330, 30,
        2, 198, 1, 4093, 198, 1780, 314, 260, 3575, 282, 4649, 47, 2, 198, 1, 520, 9531, 198,
    ];
    assert_eq!(ids, llama_cpp);

    // The same tokens as text, special tokens written out.
    let header = read_header_from(&mut f).expect("header");
    let tok = skiff_core::local_model::Tokenizer::from_header(&header).expect("tokenizer");
    let text: String = ids
        .iter()
        .map(|&id| match tok.token_bytes(id) {
            b if b.is_empty() => tok.token_text(id),
            b => String::from_utf8(b).expect("utf-8"),
        })
        .collect();
    assert_eq!(
        text,
        "<|im_start|>system\nYou are a helpful assistant. Answer the question in one short \
         sentence.<|im_end|>\n<|im_start|>user\nWhat is the capital of France?<|im_end|>\n\
         <|im_start|>assistant\n"
    );
    // No sampling fields: llama.cpp's server defaults, with the worker's fixed seed, so the
    // newcomer's first answer is the same on every run of one build.
    assert_eq!(req.sampling.temperature, 0.8);
    assert_eq!(req.sampling.seed, 0);
}
