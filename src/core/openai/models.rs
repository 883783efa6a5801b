//! Reading the model list a server returns from `GET /models`.
//!
//! OpenAI, OpenRouter, LM Studio, vLLM and Ollama's `/v1/models` answer `{"data":[{"id":..}]}`;
//! Ollama's native `/api/tags` answers `{"models":[{"name":..,"model":..}]}`; recent llama.cpp
//! servers send both lists in one body. We accept all of them and never fail on extra fields.

use serde_json::Value;

use crate::records::capabilities::ModelEntry;
use crate::records::capabilities::{sorted_unique, Capabilities, Flag, Which};
use crate::seam::{detail_from_json, ProviderError};

/// Model IDs from a `/models` body, sorted and without duplicates.
pub fn parse_models(body: &str) -> Result<Vec<String>, ProviderError> {
    Ok(parse_model_entries(body)?
        .into_iter()
        .map(|m| m.id)
        .collect())
}

/// The models of a `/models` body with what each entry reports about its capabilities
/// ([`from_openai_entry`]), sorted and one per id.
pub fn parse_model_entries(body: &str) -> Result<Vec<ModelEntry>, ProviderError> {
    let v: Value = serde_json::from_str(body.trim()).map_err(|e| {
        ProviderError::Malformed(format!("the model list was not valid JSON ({e})"))
    })?;
    if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
        return Err(ProviderError::Malformed(format!(
            "expected a model list but got an error: {}",
            detail_from_json(err)
        )));
    }
    let lists: Vec<&Vec<Value>> = ["data", "models"]
        .iter()
        .filter_map(|k| v.get(*k).and_then(Value::as_array))
        .collect();
    // A bare array of entries is what a few small servers return.
    let lists = match (lists.is_empty(), v.as_array()) {
        (true, Some(arr)) => vec![arr],
        _ => lists,
    };
    if lists.is_empty() {
        return Err(ProviderError::Malformed(
            "the answer to /models held no \"data\" or \"models\" list".to_string(),
        ));
    }
    let entries = lists
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let id = match entry {
                Value::String(s) => Some(s.as_str()),
                // `id` is the OpenAI name; Ollama's `model` and `name` are the same tag.
                _ => ["id", "model", "name"]
                    .iter()
                    .find_map(|k| entry.get(*k).and_then(Value::as_str)),
            }?
            .trim();
            (!id.is_empty()).then(|| ModelEntry::new(id, from_openai_entry(entry)))
        })
        .collect();
    Ok(sorted_unique(entries))
}

fn words(v: Option<&Value>) -> Option<Vec<&str>> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
}

/// What an OpenAI-compatible list entry reports (OpenRouter's `architecture` and
/// `supported_parameters`; an Ollama-style `capabilities` array). A list that is present
/// but lacks a word reports "no"; an absent list reports nothing.
pub fn from_openai_entry(entry: &Value) -> Capabilities {
    let mut c = Capabilities::default();
    let reported = |list: &Option<Vec<&str>>, any: &[&str]| match list {
        Some(l) => Flag::Reported(l.iter().any(|w| any.contains(w))),
        None => Flag::Unknown,
    };
    let inputs = words(
        entry
            .get("architecture")
            .and_then(|a| a.get("input_modalities")),
    );
    let params = words(entry.get("supported_parameters"));
    let caps = words(entry.get("capabilities"));
    for (list, which, any) in [
        (&inputs, Which::Vision, &["image"][..]),
        (&inputs, Which::Pdf, &["file"][..]),
        (&params, Which::Tools, &["tools"][..]),
        (
            &params,
            Which::Reasoning,
            &["reasoning", "include_reasoning"][..],
        ),
        (&caps, Which::Vision, &["vision"][..]),
        (&caps, Which::Tools, &["tools"][..]),
        (&caps, Which::Reasoning, &["thinking", "reasoning"][..]),
    ] {
        let f = reported(list, any);
        // Any list saying "yes" wins; a "no" only fills a flag nothing else reported.
        if !f.is_unknown() && (c.get(which).is_unknown() || f == Flag::Reported(true)) {
            *c.get_mut(which) = f;
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_shape() {
        // Shape of OpenAI's documented list response.
        let body = r#"{"object":"list","data":[
            {"id":"gpt-4o-mini","object":"model","created":1721172741,"owned_by":"system"},
            {"id":"gpt-4.1","object":"model","created":1744316542,"owned_by":"system"},
            {"id":"gpt-4o-mini","object":"model","created":1,"owned_by":"system"}]}"#;
        assert_eq!(parse_models(body).unwrap(), vec!["gpt-4.1", "gpt-4o-mini"]);
    }

    #[test]
    fn ollama_native_and_llama_cpp_combined() {
        let ollama = r#"{"models":[{"name":"qwen2.5:0.5b","model":"qwen2.5:0.5b","size":397821319},
            {"name":"llama3.2:latest","model":"llama3.2:latest"}]}"#;
        assert_eq!(
            parse_models(ollama).unwrap(),
            vec!["llama3.2:latest", "qwen2.5:0.5b"]
        );
        // llama.cpp sends an Ollama-style list and an OpenAI-style list naming the same model.
        let llama = r#"{"models":[{"name":"m.gguf","model":"m.gguf","modified_at":"","size":"","digest":"","type":"model"}],
            "object":"list","data":[{"id":"m.gguf","object":"model","created":1757764296,"owned_by":"llamacpp","meta":{"n_ctx_train":4096}}]}"#;
        assert_eq!(parse_models(llama).unwrap(), vec!["m.gguf"]);
    }

    #[test]
    fn empty_and_odd_lists() {
        assert_eq!(
            parse_models(r#"{"object":"list","data":[]}"#).unwrap(),
            Vec::<String>::new()
        );
        assert_eq!(
            parse_models(r#"["b","a",{"id":" c "},{"x":1},{"id":""}]"#).unwrap(),
            vec!["a", "b", "c"]
        );
    }

    #[test]
    fn errors() {
        assert!(matches!(
            parse_models("<html>nope</html>"),
            Err(ProviderError::Malformed(_))
        ));
        assert!(matches!(
            parse_models(r#"{"object":"list"}"#),
            Err(ProviderError::Malformed(_))
        ));
        assert_eq!(
            parse_models(
                r#"{"error":{"message":"Invalid API Key","type":"authentication_error","code":401}}"#
            ),
            Err(ProviderError::Malformed(
                "expected a model list but got an error: Invalid API Key".into()
            ))
        );
    }
}
