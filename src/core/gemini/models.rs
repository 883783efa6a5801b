//! `GET {base}/models`: the Gemini models a key may use, for the settings' model list.
//! The answer is `{"models":[{"name":"models/gemini-2.5-flash","supportedGenerationMethods":
//! [..]}],"nextPageToken":..}`; only models that can stream content are offered, by the id
//! the request builder takes (without `models/`).

use serde_json::Value;

use crate::http::{join_url, HttpRequest, Method};
use crate::records::capabilities::ModelEntry;
use crate::records::capabilities::{sorted_unique, Capabilities, Flag};
use crate::seam::ProviderError;

pub fn models_request(base_url: &str, api_key: Option<&str>) -> HttpRequest {
    let mut headers = vec![("accept".to_string(), "application/json".to_string())];
    if let Some(key) = api_key.map(str::trim).filter(|k| !k.is_empty()) {
        headers.push(("x-goog-api-key".to_string(), key.to_string()));
    }
    HttpRequest {
        method: Method::Get,
        url: join_url(base_url, "models?pageSize=1000"),
        headers,
        body: None,
    }
}

/// Model ids that take `streamGenerateContent` (embedding and image-only models do not),
/// sorted, without duplicates.
pub fn parse_models(body: &str) -> Result<Vec<String>, ProviderError> {
    Ok(parse_model_entries(body)?
        .into_iter()
        .map(|m| m.id)
        .collect())
}

/// [`parse_models`] with what each entry reports (`thinking`: reasoning).
pub fn parse_model_entries(body: &str) -> Result<Vec<ModelEntry>, ProviderError> {
    let v: Value = serde_json::from_str(body.trim()).map_err(|e| {
        ProviderError::Malformed(format!("the model list was not valid JSON ({e})"))
    })?;
    let Some(models) = v.get("models").and_then(Value::as_array) else {
        return Err(ProviderError::Malformed(
            "the answer to /models held no \"models\" list".to_string(),
        ));
    };
    let entries = models
        .iter()
        .filter(|m| {
            m.get("supportedGenerationMethods")
                .and_then(Value::as_array)
                // An entry that does not say is offered: the user may know better.
                .is_none_or(|methods| {
                    methods.iter().any(|x| {
                        matches!(
                            x.as_str(),
                            Some("generateContent" | "streamGenerateContent")
                        )
                    })
                })
        })
        .filter_map(|m| {
            let name = m.get("name").and_then(Value::as_str)?;
            let id = name.trim().trim_start_matches("models/");
            (!id.is_empty()).then(|| ModelEntry::new(id, from_gemini_entry(m)))
        })
        .collect();
    Ok(sorted_unique(entries))
}

/// What a Gemini `models.list` entry reports: `thinking` (reasoning). Gemini does not list
/// input kinds or tool support per model.
pub fn from_gemini_entry(entry: &Value) -> Capabilities {
    Capabilities {
        reasoning: entry
            .get("thinking")
            .and_then(Value::as_bool)
            .map_or(Flag::Unknown, Flag::Reported),
        ..Capabilities::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_in_its_header_never_in_the_url() {
        let r = models_request(
            "https://generativelanguage.googleapis.com/v1beta",
            Some("AIza"),
        );
        assert_eq!(
            r.url,
            "https://generativelanguage.googleapis.com/v1beta/models?pageSize=1000"
        );
        assert!(r
            .headers
            .contains(&("x-goog-api-key".into(), "AIza".into())));
        assert!(!r.url.contains("AIza"));
    }

    #[test]
    fn only_models_that_generate_content_by_their_short_id() {
        // The shape of Gemini's documented models.list answer.
        let body = r#"{"models":[
            {"name":"models/gemini-2.5-flash","version":"001","displayName":"Gemini 2.5 Flash","supportedGenerationMethods":["generateContent","countTokens","createCachedContent","batchGenerateContent"]},
            {"name":"models/text-embedding-004","supportedGenerationMethods":["embedContent"]},
            {"name":"models/gemini-2.5-pro","supportedGenerationMethods":["generateContent"]},
            {"name":"models/gemma-3-27b-it"}
        ],"nextPageToken":"x"}"#;
        assert_eq!(
            parse_models(body).unwrap(),
            vec!["gemini-2.5-flash", "gemini-2.5-pro", "gemma-3-27b-it"]
        );
        assert!(matches!(
            parse_models(r#"{"error":{"code":400}}"#),
            Err(ProviderError::Malformed(_))
        ));
    }
}
