//! ggml tensor types and llama.cpp file types: their names, and which ones the in-page engine
//! (candle 0.11's quantized k-quants) can compute with.
//!
//! The ids are ggml's `enum ggml_type` and llama.cpp's `enum llama_ftype`; both are part of the
//! GGUF format in practice (every converter writes them), so they are fixed here, not guessed.

/// ggml type ids the in-page engine supports, with their block geometry:
/// (id, name, elements per block, bytes per block). The geometry lets [`super::ModelInfo`]
/// check that every tensor's data lies inside the file (a cut-off download is caught before
/// inference starts).
const SUPPORTED: &[(u32, &str, u64, u64)] = &[
    (0, "F32", 1, 4),
    (1, "F16", 1, 2),
    (2, "Q4_0", 32, 18),
    (3, "Q4_1", 32, 20),
    (6, "Q5_0", 32, 22),
    (7, "Q5_1", 32, 24),
    (8, "Q8_0", 32, 34),
    (9, "Q8_1", 32, 36),
    (10, "Q2_K", 256, 84),
    (11, "Q3_K", 256, 110),
    (12, "Q4_K", 256, 144),
    (13, "Q5_K", 256, 176),
    (14, "Q6_K", 256, 210),
    (15, "Q8_K", 256, 292),
    (30, "BF16", 1, 2),
];

/// Types ggml knows but the in-page engine does not compute with; named so the error can say
/// which one a file uses.
const OTHER: &[(u32, &str)] = &[
    (16, "IQ2_XXS"),
    (17, "IQ2_XS"),
    (18, "IQ3_XXS"),
    (19, "IQ1_S"),
    (20, "IQ4_NL"),
    (21, "IQ3_S"),
    (22, "IQ2_S"),
    (23, "IQ4_XS"),
    (24, "I8"),
    (25, "I16"),
    (26, "I32"),
    (27, "I64"),
    (28, "F64"),
    (29, "IQ1_M"),
    (34, "TQ1_0"),
    (35, "TQ2_0"),
    (39, "MXFP4"),
];

/// The name of a ggml tensor type ("Q4_K", "F16"), or "unknown" for an id ggml does not have.
pub fn type_name(ggml_type: u32) -> &'static str {
    SUPPORTED
        .iter()
        .find(|t| t.0 == ggml_type)
        .map(|t| t.1)
        .or_else(|| OTHER.iter().find(|t| t.0 == ggml_type).map(|t| t.1))
        .unwrap_or("unknown")
}

pub(super) fn is_supported(ggml_type: u32) -> bool {
    SUPPORTED.iter().any(|t| t.0 == ggml_type)
}

/// Bytes a tensor of this supported type and element count occupies, or `None` when the type
/// is not supported, the count is not a whole number of blocks, or the size overflows.
pub(super) fn data_size(ggml_type: u32, elements: u64) -> Option<u64> {
    let &(_, _, per_block, block_bytes) = SUPPORTED.iter().find(|t| t.0 == ggml_type)?;
    if !elements.is_multiple_of(per_block) {
        return None;
    }
    (elements / per_block).checked_mul(block_bytes)
}

/// The label for llama.cpp's `general.file_type` (`enum llama_ftype`), as the model hubs name
/// files ("Q4_K_M"). `None` for ids this table does not know.
pub(super) fn file_type_name(file_type: u64) -> Option<&'static str> {
    Some(match file_type {
        0 => "F32",
        1 => "F16",
        2 => "Q4_0",
        3 => "Q4_1",
        7 => "Q8_0",
        8 => "Q5_0",
        9 => "Q5_1",
        10 => "Q2_K",
        11 => "Q3_K_S",
        12 => "Q3_K_M",
        13 => "Q3_K_L",
        14 => "Q4_K_S",
        15 => "Q4_K_M",
        16 => "Q5_K_S",
        17 => "Q5_K_M",
        18 => "Q6_K",
        19 => "IQ2_XXS",
        20 => "IQ2_XS",
        21 => "Q2_K_S",
        22 => "IQ3_XS",
        23 => "IQ3_XXS",
        24 => "IQ1_S",
        25 => "IQ4_NL",
        26 => "IQ3_S",
        27 => "IQ3_M",
        28 => "IQ2_S",
        29 => "IQ2_M",
        30 => "IQ4_XS",
        31 => "IQ1_M",
        32 => "BF16",
        36 => "TQ1_0",
        37 => "TQ2_0",
        38 => "MXFP4_MOE",
        _ => return None,
    })
}

/// The names of the supported types, for the "unsupported quantization" sentence.
pub(super) fn supported_names() -> String {
    SUPPORTED.iter().map(|t| t.1).collect::<Vec<_>>().join(", ")
}
