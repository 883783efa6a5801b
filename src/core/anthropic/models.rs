//! `GET {base}/models`: the models an Anthropic key may use, for the settings' model list.
//! The answer is `{"data":[{"id","display_name",..}],"has_more",..}`, which the shared
//! `openai::parse_models` already reads (by `data[].id`).

use super::API_VERSION;
use crate::http::{join_url, HttpRequest, Method};

/// Up to 1,000 models in one page: more than Anthropic lists, so no paging is needed.
pub fn models_request(base_url: &str, api_key: Option<&str>) -> HttpRequest {
    let mut headers = vec![("accept".to_string(), "application/json".to_string())];
    if let Some(key) = api_key.map(str::trim).filter(|k| !k.is_empty()) {
        headers.push(("x-api-key".to_string(), key.to_string()));
    }
    headers.push(("anthropic-version".to_string(), API_VERSION.to_string()));
    headers.push((
        "anthropic-dangerous-direct-browser-access".to_string(),
        "true".to_string(),
    ));
    HttpRequest {
        method: Method::Get,
        url: join_url(base_url, "models?limit=1000"),
        headers,
        body: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_and_version_headers_and_no_empty_key() {
        let r = models_request("https://api.anthropic.com/v1", Some(" sk-ant "));
        assert_eq!(r.url, "https://api.anthropic.com/v1/models?limit=1000");
        assert!(r.headers.contains(&("x-api-key".into(), "sk-ant".into())));
        assert!(r.headers.contains(&(
            "anthropic-dangerous-direct-browser-access".into(),
            "true".into()
        )));
        let blank = models_request("https://api.anthropic.com/v1", Some("  "));
        assert!(!blank.headers.iter().any(|(k, _)| k == "x-api-key"));
        // Anthropic's documented list shape reads through the shared parser.
        let body = r#"{"data":[{"type":"model","id":"claude-sonnet-4-5","display_name":"Claude Sonnet 4.5","created_at":"2025-09-29T00:00:00Z"},{"type":"model","id":"claude-haiku-4-5","display_name":"Claude Haiku 4.5","created_at":"2025-10-01T00:00:00Z"}],"has_more":false,"first_id":"claude-sonnet-4-5","last_id":"claude-haiku-4-5"}"#;
        assert_eq!(
            crate::openai::parse_models(body).unwrap(),
            vec!["claude-haiku-4-5", "claude-sonnet-4-5"]
        );
    }
}
