//! Token ids against llama.cpp's, captured by scripts/capture-model-fixtures.py for both test
//! models: every fixture text with and without special-token parsing, the chat prompts, the
//! bytes each sampled token decodes to, and the end-of-generation set.

use std::time::Instant;

use super::super::test_models::{both, gemma3, smollm2, unhex, TestModel};
use super::Tokenizer;

fn ids(value: &serde_json::Value) -> Vec<u32> {
    value
        .as_array()
        .expect("ids")
        .iter()
        .map(|v| v.as_u64().expect("id") as u32)
        .collect()
}

/// Reports every mismatch of a model at once, with token texts, rather than the first.
fn check_texts(m: &TestModel) {
    let tok = m.tokenizer();
    let mut failures = Vec::new();
    for case in m.fixture()["texts"].as_array().expect("texts") {
        let text = case["text"].as_str().expect("text");
        for (parse_special, key) in [(false, "ids"), (true, "ids_special")] {
            let want = ids(&case[key]);
            let got = tok.encode(text, parse_special);
            if got != want {
                let show = |v: &[u32]| {
                    v.iter()
                        .map(|&id| format!("{id}:{:?}", tok.token_text(id)))
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                failures.push(format!(
                    "{text:?} special={parse_special}\n  llama.cpp: {}\n  skiff:     {}",
                    show(&want),
                    show(&got)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}:\n{}", m.file, failures.join("\n"));
}

#[test]
fn smollm2_ids_equal_llama_cpp() {
    check_texts(smollm2());
}

#[test]
fn gemma3_ids_equal_llama_cpp() {
    check_texts(gemma3());
}

#[test]
fn chat_prompt_ids_equal_llama_cpp() {
    for m in both() {
        let tok = m.tokenizer();
        let chat = &m.fixture()["chat"];
        for c in [chat, &chat["no_system"]] {
            let rendered = c["rendered"].as_str().expect("rendered");
            assert_eq!(
                tok.encode_prompt(rendered),
                ids(&c["prompt_ids"]),
                "{}",
                m.file
            );
        }
    }
}

#[test]
fn decoding_round_trips_plain_text() {
    for m in both() {
        let tok = m.tokenizer();
        for case in m.fixture()["texts"].as_array().expect("texts") {
            let text = case["text"].as_str().expect("text");
            let bytes: Vec<u8> = ids(&case["ids"])
                .into_iter()
                .flat_map(|id| tok.token_bytes(id))
                .collect();
            assert_eq!(
                String::from_utf8_lossy(&bytes),
                text,
                "{}: decoding {text:?}",
                m.file
            );
        }
    }
}

#[test]
fn token_bytes_equal_llama_cpp_pieces() {
    for m in both() {
        let tok = m.tokenizer();
        let pieces = m.fixture()["detokenized"].as_object().expect("detokenized");
        assert!(pieces.len() > 300);
        let mut failures = Vec::new();
        for (id, hex) in pieces {
            let id: u32 = id.parse().expect("id");
            let want = unhex(hex.as_str().expect("hex"));
            let got = tok.token_bytes(id);
            if got != want {
                failures.push(format!(
                    "{id} {:?}: {want:?} != {got:?}",
                    tok.token_text(id)
                ));
            }
        }
        assert!(failures.is_empty(), "{}:\n{}", m.file, failures.join("\n"));
    }
    // Generated text assembles from the pieces.
    for m in both() {
        let generation = &m.fixture()["generation"];
        let bytes: Vec<u8> = ids(&generation["ids"])
            .into_iter()
            .flat_map(|id| m.tokenizer().token_bytes(id))
            .collect();
        assert_eq!(
            String::from_utf8_lossy(&bytes),
            generation["text"].as_str().expect("text")
        );
    }
}

#[test]
fn special_ids_equal_llama_cpp() {
    for m in both() {
        let tok = m.tokenizer();
        let special = &m.fixture()["special"];
        assert_eq!(
            tok.vocab_size() as u64,
            special["n_vocab"].as_u64().expect("n")
        );
        assert_eq!(tok.bos().map(u64::from), special["bos"].as_u64());
        assert_eq!(tok.eos().map(u64::from), special["eos"].as_u64());
        let add_bos = special["add_bos"].as_bool().expect("add_bos");
        assert_eq!(tok.add_bos(), if add_bos { tok.bos() } else { None });
        assert_eq!(tok.end_of_generation(), ids(&special["eog"]).as_slice());
        for &id in tok.end_of_generation() {
            assert!(tok.is_end_of_generation(id));
        }
    }
    let s = smollm2().tokenizer();
    assert!(s.is_end_of_generation(2)); // <|im_end|>
    assert!(!s.is_end_of_generation(1)); // <|im_start|>
    let g = gemma3().tokenizer();
    assert!(g.is_end_of_generation(106)); // <end_of_turn>
    assert!(!g.is_end_of_generation(105)); // <start_of_turn>
                                           // Control tokens contribute nothing to the answer.
    assert!(s.token_bytes(1).is_empty());
    assert!(g.token_bytes(106).is_empty());
    assert!(g.token_bytes(u32::MAX).is_empty());
}

/// A ~2,000-token prompt must tokenize in milliseconds in the worker (release wasm). Debug
/// builds are 10-30× slower, so the bound here is loose; the timing is printed.
#[test]
fn long_prompts_tokenize_quickly() {
    for m in both() {
        let start = Instant::now();
        let fresh = Tokenizer::from_header(&m.header).expect("tokenizer");
        eprintln!("{}: tokenizer built in {:?}", m.file, start.elapsed());
        drop(fresh);
        let tok = m.tokenizer();
        let paragraph = m.fixture()["texts"]
            .as_array()
            .expect("texts")
            .iter()
            .filter_map(|t| t["text"].as_str())
            .max_by_key(|t| t.len())
            .expect("a long text");
        let mut text = String::new();
        while tok.encode(&text, false).len() < 2000 {
            text.push_str(paragraph);
        }
        // One unbroken "word" too: BPE merges inside it must not be quadratic.
        text.push_str(&"abcdefghij".repeat(400));
        let start = Instant::now();
        let n = tok.encode(&text, true).len();
        let elapsed = start.elapsed();
        eprintln!(
            "{}: {n} tokens from {} bytes in {elapsed:?}",
            m.file,
            text.len()
        );
        assert!(n >= 2000);
        assert!(elapsed.as_secs_f64() < 2.0, "{}: {elapsed:?}", m.file);
    }
}

#[test]
fn hostile_text_does_not_panic() {
    for m in both() {
        let tok = m.tokenizer();
        for text in [
            "",
            "\u{0}",
            "\u{fffd}\u{10ffff}",
            "<<<<<<<<|im_start|",
            "<start_of_turn><start_of_turn",
            &" ".repeat(1000),
            &"\n".repeat(100),
            &"<unused1".repeat(50),
            "'s'S'll'LL'",
            "\u{0301}\u{0301}e\u{0301}",
        ] {
            let ids = tok.encode(text, true);
            let plain = tok.encode(text, false);
            let bytes: Vec<u8> = plain.iter().flat_map(|&id| tok.token_bytes(id)).collect();
            assert_eq!(bytes, text.as_bytes(), "{}: {text:?}", m.file);
            assert!(ids.iter().all(|&id| (id as usize) < tok.vocab_size()));
        }
    }
}
