//! What the page shows about a model file before loading it, and whether the in-page engine can
//! run it at all: `ModelInfo::from_header` either describes the model or says, in a sentence
//! for the user, why it cannot be used.
//!
//! The check is made from the header alone, so a file is refused in milliseconds instead of
//! after the worker has read hundreds of megabytes into candle.

use std::fmt;

use super::gguf::{GgufHeader, MetaArray};
use super::template::ChatTemplate;
use super::types::{data_size, file_type_name, is_supported, supported_names, type_name};

/// The model families the worker has candle code for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Architecture {
    /// GGUF "llama": SmolLM2 and the other Llama-architecture models.
    Llama,
    /// GGUF "gemma3".
    Gemma3,
}

impl Architecture {
    /// The GGUF `general.architecture` value, also the prefix of its metadata keys.
    pub fn as_str(self) -> &'static str {
        match self {
            Architecture::Llama => "llama",
            Architecture::Gemma3 => "gemma3",
        }
    }

    fn from_gguf(name: &str) -> Option<Self> {
        match name {
            "llama" => Some(Architecture::Llama),
            "gemma3" => Some(Architecture::Gemma3),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ModelInfo {
    /// `general.name`, else basename and size label, else the architecture.
    pub name: String,
    pub architecture: Architecture,
    /// The quantization as model hubs label files ("Q4_K_M"), from `general.file_type`; when
    /// that is absent or unknown, the tensor type holding the most weights ("Q4_K").
    pub quantization: String,
    /// `{arch}.context_length`: the longest context the model was trained for.
    pub context_length: Option<u64>,
    /// The sum of all tensors' element counts.
    pub parameter_count: Option<u64>,
    pub vocab_size: usize,
    pub chat_template: ChatTemplate,
    /// Whether the file has `tokenizer.chat_template`; without one it is a base model (the
    /// format above is then only a guess).
    pub has_chat_template: bool,
    /// What the GGUF's template says when a conversation has no system message; pass it to
    /// [`ChatTemplate::render_with_default`].
    pub default_system_prompt: Option<String>,
    pub file_size: u64,
}

/// Serializable: the model worker sends it to the page inside `model_panel::JobError`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum UnsupportedModel {
    Architecture {
        found: String,
    },
    Quantization {
        tensor_type: String,
        tensor: String,
    },
    MissingTokenizer {
        missing: String,
    },
    UnsupportedTokenizer {
        model: String,
        pre: Option<String>,
    },
    /// The file ends before its tensor data does (an interrupted download or copy).
    Truncated {
        needed: u64,
        file_size: u64,
    },
    /// A tensor's size or position makes no sense (not whole blocks, or overflowing).
    Damaged {
        tensor: String,
    },
}

impl fmt::Display for UnsupportedModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnsupportedModel::Architecture { found } => write!(
                f,
                "This model's architecture is \u{201c}{found}\u{201d}, which Skiff cannot run in \
                 the page; it runs Llama-architecture models (llama, such as SmolLM2) and \
                 Gemma 3 (gemma3)."
            ),
            UnsupportedModel::Quantization {
                tensor_type,
                tensor,
            } => write!(
                f,
                "This model stores tensor {tensor} as {tensor_type}, a quantization the in-page \
                 engine cannot compute with; choose a file quantized as one of {}.",
                supported_names()
            ),
            UnsupportedModel::MissingTokenizer { missing } => write!(
                f,
                "This model file has no usable tokenizer ({missing} is missing), so Skiff cannot \
                 turn text into tokens for it."
            ),
            UnsupportedModel::UnsupportedTokenizer { model, pre } => {
                let pre = pre
                    .as_deref()
                    .map(|p| format!(" with the \u{201c}{p}\u{201d} pre-tokenizer"))
                    .unwrap_or_default();
                write!(
                    f,
                    "This model uses the \u{201c}{model}\u{201d} tokenizer{pre}, which Skiff \
                     cannot run in the page; it runs GPT-2 style BPE (gpt2 with the smollm, \
                     gpt-2 or llama-bpe pre-tokenizers) and SentencePiece (llama) tokenizers."
                )
            }
            UnsupportedModel::Truncated { needed, file_size } => write!(
                f,
                "This model file is incomplete: its tensors need {needed} bytes but the file \
                 has {file_size}; download or copy it again."
            ),
            UnsupportedModel::Damaged { tensor } => write!(
                f,
                "This model file is damaged: the size or position of tensor {tensor} is \
                 impossible."
            ),
        }
    }
}

impl std::error::Error for UnsupportedModel {}

impl ModelInfo {
    pub fn from_header(header: &GgufHeader, file_size: u64) -> Result<ModelInfo, UnsupportedModel> {
        let arch_name = header.get_str("general.architecture").unwrap_or("");
        let architecture =
            Architecture::from_gguf(arch_name).ok_or_else(|| UnsupportedModel::Architecture {
                found: if arch_name.is_empty() {
                    "unnamed".to_string()
                } else {
                    arch_name.to_string()
                },
            })?;

        // The tokenizer's own checks run when the worker builds it; these are the cheap ones
        // that let the page refuse a file without building a 262,144-entry vocabulary.
        let missing = |what: &str| UnsupportedModel::MissingTokenizer {
            missing: what.to_string(),
        };
        let tokenizer_model = header
            .get_str("tokenizer.ggml.model")
            .ok_or_else(|| missing("tokenizer.ggml.model"))?;
        let vocab_size = match header.get_array("tokenizer.ggml.tokens") {
            Some(tokens @ MetaArray::String(_)) if !tokens.is_empty() => tokens.len(),
            _ => return Err(missing("tokenizer.ggml.tokens")),
        };
        if tokenizer_model == "gpt2" && header.get_array("tokenizer.ggml.merges").is_none() {
            return Err(missing("tokenizer.ggml.merges"));
        }
        if tokenizer_model != "gpt2" && tokenizer_model != "llama" {
            return Err(UnsupportedModel::UnsupportedTokenizer {
                model: tokenizer_model.to_string(),
                pre: header.get_str("tokenizer.ggml.pre").map(str::to_string),
            });
        }

        let mut parameter_count = Some(0u64);
        let mut data_end = header.data_offset;
        // Elements per tensor type, for the fallback quantization label.
        let mut by_type: Vec<(u32, u64)> = Vec::new();
        for t in &header.tensors {
            if !is_supported(t.ggml_type) {
                let name = type_name(t.ggml_type);
                return Err(UnsupportedModel::Quantization {
                    tensor_type: if name == "unknown" {
                        format!("unknown type {}", t.ggml_type)
                    } else {
                        name.to_string()
                    },
                    tensor: t.name.clone(),
                });
            }
            let damaged = || UnsupportedModel::Damaged {
                tensor: t.name.clone(),
            };
            let elements = t.element_count().ok_or_else(damaged)?;
            let size = data_size(t.ggml_type, elements).ok_or_else(damaged)?;
            let end = header
                .data_offset
                .checked_add(t.offset)
                .and_then(|v| v.checked_add(size))
                .ok_or_else(damaged)?;
            data_end = data_end.max(end);
            parameter_count = parameter_count.and_then(|p| p.checked_add(elements));
            match by_type.iter_mut().find(|(ty, _)| *ty == t.ggml_type) {
                Some((_, n)) => *n = n.saturating_add(elements),
                None => by_type.push((t.ggml_type, elements)),
            }
        }
        if data_end > file_size {
            return Err(UnsupportedModel::Truncated {
                needed: data_end,
                file_size,
            });
        }
        if header.tensors.is_empty() {
            parameter_count = None;
        }

        let quantization = header
            .get_u64("general.file_type")
            .and_then(file_type_name)
            .map(str::to_string)
            .or_else(|| {
                by_type
                    .iter()
                    .max_by_key(|(_, n)| *n)
                    .map(|(ty, _)| type_name(*ty).to_string())
            })
            .unwrap_or_else(|| "unknown".to_string());

        let name = header
            .get_str("general.name")
            .filter(|n| !n.trim().is_empty())
            .map(str::to_string)
            .or_else(|| {
                let base = header.get_str("general.basename")?;
                Some(match header.get_str("general.size_label") {
                    Some(size) => format!("{base} {size}"),
                    None => base.to_string(),
                })
            })
            .unwrap_or_else(|| format!("Unnamed {} model", architecture.as_str()));

        Ok(ModelInfo {
            name,
            architecture,
            quantization,
            context_length: header.get_u64(&format!("{}.context_length", architecture.as_str())),
            parameter_count,
            vocab_size,
            chat_template: ChatTemplate::for_model(header),
            has_chat_template: header.get_str("tokenizer.chat_template").is_some(),
            default_system_prompt: ChatTemplate::default_system_prompt(header),
            file_size,
        })
    }
}

#[cfg(test)]
#[path = "info_tests.rs"]
mod tests;
