//! ModelInfo for both test models (values cross-checked with llama.cpp: `llama_model_n_params`
//! gives the same parameter counts), and each refusal's sentence.

use super::super::gguf::{GgufHeader, MetaValue, TensorInfo};
use super::super::test_models::{gemma3, smollm2};
use super::super::Tokenizer;
use super::*;

#[test]
fn smollm2_info() {
    let m = smollm2();
    let info = ModelInfo::from_header(&m.header, m.file_size).expect("supported");
    assert_eq!(info.architecture, Architecture::Llama);
    assert_eq!(info.name, "Smollm2 135M 8k Lc100K Mix1 Ep2");
    assert_eq!(info.quantization, "Q4_1");
    assert_eq!(info.context_length, Some(8192));
    assert_eq!(info.parameter_count, Some(134_515_008));
    assert_eq!(info.vocab_size, 49_152);
    assert_eq!(info.chat_template, ChatTemplate::ChatMl);
    assert_eq!(
        info.default_system_prompt.as_deref(),
        Some("You are a helpful AI assistant named SmolLM, trained by Hugging Face")
    );
    assert_eq!(info.file_size, 98_362_432);
}

#[test]
fn gemma3_info() {
    let m = gemma3();
    let info = ModelInfo::from_header(&m.header, m.file_size).expect("supported");
    assert_eq!(info.architecture, Architecture::Gemma3);
    assert_eq!(info.name, "Gemma 3 270m");
    assert_eq!(info.quantization, "Q4_K_M");
    assert_eq!(info.context_length, Some(32_768));
    assert_eq!(info.parameter_count, Some(268_098_176));
    assert_eq!(info.vocab_size, 262_144);
    // No chat template in this GGUF: chosen by architecture.
    assert!(m.header.get("tokenizer.chat_template").is_none());
    assert_eq!(info.chat_template, ChatTemplate::Gemma);
    assert_eq!(info.default_system_prompt, None);
}

#[test]
fn type_names() {
    assert_eq!(type_name(0), "F32");
    assert_eq!(type_name(3), "Q4_1");
    assert_eq!(type_name(12), "Q4_K");
    assert_eq!(type_name(30), "BF16");
    assert_eq!(type_name(23), "IQ4_XS");
    assert_eq!(type_name(4), "unknown");
    assert_eq!(type_name(9999), "unknown");
}

fn set(header: &mut GgufHeader, key: &str, value: MetaValue) {
    header.metadata.retain(|(k, _)| k != key);
    header.metadata.push((key.to_string(), value));
}

#[test]
fn unsupported_architecture_names_it() {
    let m = smollm2();
    let mut h = m.header.clone();
    set(
        &mut h,
        "general.architecture",
        MetaValue::String("qwen2".into()),
    );
    let e = ModelInfo::from_header(&h, m.file_size).expect_err("refused");
    assert_eq!(
        e.to_string(),
        "This model's architecture is \u{201c}qwen2\u{201d}, which Skiff cannot run in the page; \
         it runs Llama-architecture models (llama, such as SmolLM2) and Gemma 3 (gemma3)."
    );
}

#[test]
fn unsupported_quantization_names_type_and_tensor() {
    let m = gemma3();
    let mut h = m.header.clone();
    h.tensors[3].ggml_type = 23; // IQ4_XS
    let name = h.tensors[3].name.clone();
    let e = ModelInfo::from_header(&h, m.file_size).expect_err("refused");
    assert_eq!(
        e,
        UnsupportedModel::Quantization {
            tensor_type: "IQ4_XS".into(),
            tensor: name.clone()
        }
    );
    assert_eq!(
        e.to_string(),
        format!(
            "This model stores tensor {name} as IQ4_XS, a quantization the in-page engine \
             cannot compute with; choose a file quantized as one of F32, F16, Q4_0, Q4_1, Q5_0, \
             Q5_1, Q8_0, Q8_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K, Q8_K, BF16."
        )
    );
}

#[test]
fn missing_tokenizer_data_is_named() {
    let m = smollm2();
    for key in [
        "tokenizer.ggml.model",
        "tokenizer.ggml.tokens",
        "tokenizer.ggml.merges",
    ] {
        let mut h = m.header.clone();
        h.metadata.retain(|(k, _)| k != key);
        let e = ModelInfo::from_header(&h, m.file_size).expect_err(key);
        assert_eq!(
            e.to_string(),
            format!(
                "This model file has no usable tokenizer ({key} is missing), so Skiff cannot \
                 turn text into tokens for it."
            )
        );
        assert!(Tokenizer::from_header(&h).is_err());
    }
    let mut h = m.header.clone();
    set(
        &mut h,
        "tokenizer.ggml.model",
        MetaValue::String("bert".into()),
    );
    let e = ModelInfo::from_header(&h, m.file_size).expect_err("bert");
    assert!(e.to_string().starts_with(
        "This model uses the \u{201c}bert\u{201d} tokenizer with the \u{201c}smollm\u{201d} \
         pre-tokenizer, which Skiff cannot run in the page"
    ));
    let mut h = m.header.clone();
    set(
        &mut h,
        "tokenizer.ggml.pre",
        MetaValue::String("qwen2".into()),
    );
    assert!(matches!(
        Tokenizer::from_header(&h),
        Err(UnsupportedModel::UnsupportedTokenizer { .. })
    ));
}

#[test]
fn a_cut_off_file_is_incomplete() {
    let m = smollm2();
    let e = ModelInfo::from_header(&m.header, m.file_size - 1).expect_err("short");
    assert_eq!(
        e,
        UnsupportedModel::Truncated {
            needed: m.file_size,
            file_size: m.file_size - 1
        }
    );
    assert!(e.to_string().starts_with("This model file is incomplete"));
}

#[test]
fn impossible_tensor_sizes_are_damage() {
    let m = smollm2();
    let mut h = m.header.clone();
    h.tensors[0].offset = u64::MAX - 10;
    assert!(matches!(
        ModelInfo::from_header(&h, m.file_size),
        Err(UnsupportedModel::Damaged { .. })
    ));
    let mut h = m.header.clone();
    h.tensors.push(TensorInfo {
        name: "odd".into(),
        dims: vec![33],
        ggml_type: 2, // Q4_0 holds blocks of 32
        offset: 0,
    });
    assert!(matches!(
        ModelInfo::from_header(&h, m.file_size),
        Err(UnsupportedModel::Damaged { .. })
    ));
}

#[test]
fn fallbacks_for_name_and_quantization() {
    let m = gemma3();
    let mut h = m.header.clone();
    h.metadata
        .retain(|(k, _)| k != "general.name" && k != "general.file_type");
    let info = ModelInfo::from_header(&h, m.file_size).expect("supported");
    assert_eq!(info.name, "gemma-3 270M");
    // Without general.file_type, the type holding the most weights names the file: in this
    // "Q4_K_M" file that is Q8_0, because the 262,144 × 640 embedding is stored as Q8_0.
    assert_eq!(info.quantization, "Q8_0");
    h.metadata.retain(|(k, _)| k != "general.basename");
    let info = ModelInfo::from_header(&h, m.file_size).expect("supported");
    assert_eq!(info.name, "Unnamed gemma3 model");
    // A Llama-architecture model without a template gets ChatML.
    let mut h = m.header.clone();
    set(
        &mut h,
        "general.architecture",
        MetaValue::String("llama".into()),
    );
    assert_eq!(ChatTemplate::for_model(&h), ChatTemplate::ChatMl);
}
