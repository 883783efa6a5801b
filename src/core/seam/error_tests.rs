use super::*;

/// (status, body, the sentence the user reads)
const CASES: &[(u16, &str, &str)] = &[
    // OpenAI: wrong key.
    (
        401,
        r#"{"error":{"message":"Incorrect API key provided: sk-foobar. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#,
        "The provider rejected the API key (HTTP 401): Incorrect API key provided: sk-foobar. You can find your API key at https://platform.openai.com/account/api-keys. Check the key in Settings.",
    ),
    // llama.cpp started with --api-key.
    (
        401,
        r#"{"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}}"#,
        "The provider rejected the API key (HTTP 401): Invalid API Key. Check the key in Settings.",
    ),
    // OpenRouter.
    (
        401,
        r#"{"error":{"message":"No auth credentials found","code":401}}"#,
        "The provider rejected the API key (HTTP 401): No auth credentials found. Check the key in Settings.",
    ),
    // A FastAPI gateway in front of a model server.
    (
        401,
        r#"{"detail":"Missing or invalid authorization"}"#,
        "The provider rejected the API key (HTTP 401): Missing or invalid authorization. Check the key in Settings.",
    ),
    (401, "", "The provider rejected the API key (HTTP 401). Check the key in Settings."),
    // OpenAI: project without access.
    (
        403,
        r#"{"error":{"message":"Project `proj_abc` does not have access to model `gpt-4o`","type":"invalid_request_error","param":null,"code":"model_not_found"}}"#,
        "The provider refused the request (HTTP 403): Project `proj_abc` does not have access to model `gpt-4o`. Check that the API key is allowed to use this model.",
    ),
    // OpenRouter moderation.
    (
        403,
        r#"{"error":{"code":403,"message":"Your chosen model requires moderation and your input was flagged","metadata":{"reasons":["violence"],"flagged_input":"...","provider_name":"OpenAI","model_slug":"openai/gpt-4o"}}}"#,
        "The provider refused the request (HTTP 403): Your chosen model requires moderation and your input was flagged. Check that the API key is allowed to use this model.",
    ),
    // OpenAI: unknown model.
    (
        404,
        r#"{"error":{"message":"The model `gpt-5-foo` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}"#,
        "The provider did not find that model or address (HTTP 404): The model `gpt-5-foo` does not exist or you do not have access to it. Check the base URL and the model name in Settings.",
    ),
    // Ollama.
    (
        404,
        r#"{"error":"model 'llama3.2' not found"}"#,
        "The provider did not find that model or address (HTTP 404): model 'llama3.2' not found. Check the base URL and the model name in Settings.",
    ),
    // llama.cpp: wrong path.
    (
        404,
        r#"{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}"#,
        "The provider did not find that model or address (HTTP 404): File Not Found. Check the base URL and the model name in Settings.",
    ),
    // A static file server answering for a wrong base URL.
    (
        404,
        "404 page not found\n",
        "The provider did not find that model or address (HTTP 404): 404 page not found. Check the base URL and the model name in Settings.",
    ),
    // OpenAI: rate limit.
    (
        429,
        r#"{"error":{"message":"Rate limit reached for gpt-4o-mini in organization org-abc on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s.","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#,
        "Rate limited by the provider (HTTP 429): Rate limit reached for gpt-4o-mini in organization org-abc on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 20s. Wait a moment and retry.",
    ),
    // OpenRouter free-tier limit.
    (
        429,
        r#"{"error":{"message":"Rate limit exceeded: free-models-per-min. ","code":429,"metadata":{"headers":{"X-RateLimit-Limit":"20"}}}}"#,
        "Rate limited by the provider (HTTP 429): Rate limit exceeded: free-models-per-min. Wait a moment and retry.",
    ),
    // OpenAI: out of quota is a 429 too, but waiting will not help.
    (
        429,
        r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#,
        "The provider account has no credit or quota left (HTTP 429): You exceeded your current quota, please check your plan and billing details. Check the plan or billing with the provider.",
    ),
    // OpenRouter: out of credits.
    (
        402,
        r#"{"error":{"code":402,"message":"Insufficient credits. Add more using https://openrouter.ai/settings/credits"}}"#,
        "The provider account has no credit or quota left (HTTP 402): Insufficient credits. Add more using https://openrouter.ai/settings/credits. Check the plan or billing with the provider.",
    ),
    // OpenAI: server error (message ends with "!").
    (
        500,
        r#"{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}"#,
        "The provider failed with a server error (HTTP 500): The server had an error while processing your request. Sorry about that! Retry in a moment; if it keeps failing, the service may be down.",
    ),
    (500, "Internal Server Error", "The provider failed with a server error (HTTP 500): Internal Server Error. Retry in a moment; if it keeps failing, the service may be down."),
    (500, "  \n", "The provider failed with a server error (HTTP 500). Retry in a moment; if it keeps failing, the service may be down."),
    // nginx in front of a stopped server.
    (
        502,
        "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n",
        "The provider failed with a server error (HTTP 502): 502 Bad Gateway. Retry in a moment; if it keeps failing, the service may be down.",
    ),
    // OpenRouter: upstream provider failure.
    (
        502,
        r#"{"error":{"code":502,"message":"Provider returned error","metadata":{"raw":"upstream connect error","provider_name":"Together"}}}"#,
        "The provider failed with a server error (HTTP 502): Provider returned error. Retry in a moment; if it keeps failing, the service may be down.",
    ),
    // llama.cpp still loading the model.
    (
        503,
        r#"{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}"#,
        "The provider failed with a server error (HTTP 503): Loading model. Retry in a moment; if it keeps failing, the service may be down.",
    ),
    // An HTML page with no title.
    (
        503,
        "<!DOCTYPE html><html><body><p>Service Unavailable</p></body></html>",
        "The provider failed with a server error (HTTP 503): the server answered with an HTML page. Retry in a moment; if it keeps failing, the service may be down.",
    ),
    // vLLM: context too long.
    (
        400,
        r#"{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.","type":"BadRequestError","param":null,"code":400}"#,
        "The conversation is too long for this model's context window (HTTP 400): This model's maximum context length is 4096 tokens. However, you requested 5000 tokens. Sending it again as it is cannot work: retry with the older messages left out, clear the context, or set the model's real context window in Settings.",
    ),
    // llama.cpp: the request exceeds the context it was started with.
    (
        400,
        r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":5000,"n_ctx":4096}}"#,
        "The conversation is too long for this model's context window (HTTP 400): the request exceeds the available context size, try increasing it. Sending it again as it is cannot work: retry with the older messages left out, clear the context, or set the model's real context window in Settings.",
    ),
    // Anthropic: the prompt is over the model's window.
    (
        400,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
        "The conversation is too long for this model's context window (HTTP 400): prompt is too long: 210000 tokens > 200000 maximum. Sending it again as it is cannot work: retry with the older messages left out, clear the context, or set the model's real context window in Settings.",
    ),
    // FastAPI validation error: `detail` is a list, shown compactly.
    (
        422,
        r#"{"detail":[{"loc":["body","messages"],"msg":"field required","type":"value_error.missing"}]}"#,
        r#"The provider refused the request (HTTP 422): [{"loc":["body","messages"],"msg":"field required","type":"value_error.missing"}]. Check the model and its settings."#,
    ),
];

#[test]
fn a_context_too_long_sentence_is_recognized_from_its_lead() {
    let e = error_from_response(
        400,
        r#"{"error":{"code":"context_length_exceeded","message":"too big"}}"#,
    );
    assert!(matches!(
        e,
        ProviderError::ContextTooLong { status: 400, .. }
    ));
    assert!(!e.is_retryable());
    assert!(is_context_too_long_sentence(&e.to_string()));
    assert!(!is_context_too_long_sentence(
        &ProviderError::StreamCut.to_string()
    ));
}

#[test]
fn error_bodies_become_sentences() {
    for (status, body, expected) in CASES {
        assert_eq!(
            error_from_response(*status, body).to_string(),
            *expected,
            "HTTP {status} {body:?}"
        );
    }
}

#[test]
fn error_classes() {
    assert!(matches!(
        error_from_response(401, ""),
        ProviderError::Unauthorized { status: 401, .. }
    ));
    assert!(matches!(
        error_from_response(403, ""),
        ProviderError::Unauthorized { status: 403, .. }
    ));
    assert!(matches!(
        error_from_response(402, ""),
        ProviderError::QuotaExceeded { status: 402, .. }
    ));
    assert!(matches!(
        error_from_response(404, ""),
        ProviderError::NotFound { .. }
    ));
    assert_eq!(
        error_from_response(429, "{\"error\":{\"message\":\"slow down\"}}"),
        ProviderError::RateLimited {
            detail: "slow down".into(),
            retry_after: None
        }
    );
    assert!(matches!(
        error_from_response(503, ""),
        ProviderError::Server { status: 503, .. }
    ));
    assert!(matches!(
        error_from_response(599, ""),
        ProviderError::Server { status: 599, .. }
    ));
    assert!(matches!(
        error_from_response(400, ""),
        ProviderError::Http { status: 400, .. }
    ));
    assert!(matches!(
        error_from_response(418, ""),
        ProviderError::Http { status: 418, .. }
    ));
}

#[test]
fn retry_after() {
    assert_eq!(parse_retry_after(" 20 "), Some(20));
    assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
    assert_eq!(parse_retry_after("-1"), None);
    assert_eq!(parse_retry_after(""), None);
    let e = error_from_response(429, "").with_retry_after(Some(20));
    assert_eq!(
        e.to_string(),
        "Rate limited by the provider (HTTP 429). Wait 20 seconds and retry."
    );
    let e = error_from_response(429, "").with_retry_after(Some(1));
    assert_eq!(
        e.to_string(),
        "Rate limited by the provider (HTTP 429). Wait a second and retry."
    );
    // Only a rate limit carries a delay.
    assert_eq!(
        error_from_response(500, "").with_retry_after(Some(5)),
        error_from_response(500, "")
    );
}

#[test]
fn long_details_are_cut() {
    let body = format!("{{\"error\":{{\"message\":\"{}\"}}}}", "é".repeat(1000));
    match error_from_response(400, &body) {
        ProviderError::Http { detail, .. } => {
            assert_eq!(detail.chars().count(), MAX_DETAIL_CHARS + 1);
            assert!(detail.ends_with("é…"));
        }
        other => panic!("{other:?}"),
    }
    let text = "word ".repeat(500);
    let shown = error_from_response(500, &text).to_string();
    assert!(shown.len() < 500, "{shown}");
    assert!(shown.contains("word… Retry"), "{shown}");
}

#[test]
fn other_sentences() {
    assert_eq!(
        ProviderError::StreamCut.to_string(),
        "The connection closed before the answer was complete. Retry to get the full answer."
    );
    assert_eq!(
        ProviderError::Network("Failed to fetch".into()).to_string(),
        "Could not reach the provider: Failed to fetch. Check the base URL, your connection, and that the server allows requests from this page (CORS)."
    );
    assert_eq!(
        ProviderError::Malformed("a stream chunk was not valid JSON (EOF while parsing a string at line 1 column 9)".into()).to_string(),
        "The provider sent a response Skiff could not read: a stream chunk was not valid JSON (EOF while parsing a string at line 1 column 9). Check that the base URL points to an OpenAI-compatible API."
    );
    assert_eq!(
        ProviderError::InStream("Provider disconnected unexpectedly".into()).to_string(),
        "The provider reported an error while answering: Provider disconnected unexpectedly. Retry, or pick another model."
    );
    assert_eq!(
        ProviderError::InvalidBaseUrl("localhost:8080".into()).to_string(),
        "\u{201c}localhost:8080\u{201d} is not a usable base URL. Enter an address starting with http:// or https://, such as http://localhost:8080/v1."
    );
    assert_eq!(
        ProviderError::InvalidBaseUrl(String::new()).to_string(),
        "The base URL is empty. Enter an address starting with http:// or https://, such as http://localhost:8080/v1."
    );
}

#[test]
fn retryable() {
    assert!(ProviderError::StreamCut.is_retryable());
    assert!(error_from_response(503, "").is_retryable());
    assert!(error_from_response(429, "").is_retryable());
    assert!(!error_from_response(401, "").is_retryable());
    assert!(!error_from_response(429, r#"{"error":{"code":"insufficient_quota"}}"#).is_retryable());
    assert!(!ProviderError::InvalidBaseUrl("x".into()).is_retryable());
}

#[test]
fn offline_says_nothing_was_sent_and_retry_helps() {
    let e = ProviderError::Offline;
    let text = e.to_string();
    assert!(
        text.starts_with("You are offline, so nothing was sent"),
        "{text}"
    );
    assert!(text.contains("press Retry"), "{text}");
    assert!(e.is_retryable());
}

#[test]
fn a_stalled_stream_names_the_wait_and_retry_helps() {
    let e = ProviderError::Stalled { after_s: 60 };
    let text = e.to_string();
    assert!(text.contains("nothing arrived for 60 s"), "{text}");
    assert!(text.contains("The text so far is kept"), "{text}");
    assert!(e.is_retryable());
}

#[test]
fn a_refused_redirect_says_the_key_stayed_home_and_is_not_retried() {
    let e = ProviderError::RedirectRefused { to: None };
    let s = e.to_string();
    assert!(
        s.contains("redirect the request elsewhere")
            && s.contains("did not follow")
            && s.contains("does not reveal"),
        "{s}"
    );
    assert!(!e.is_retryable());
}

#[test]
fn a_server_reached_without_cors_is_named_with_what_it_must_allow() {
    let anthropic = crate::anthropic::step_request(
        "https://api.anthropic.com/v1",
        Some("sk-ant"),
        &crate::seam::ChatParams::default(),
        &crate::seam::StepContext {
            system_template: "",
            system_prompt: "",
            recap: "",
            history: &[],
            tools: &[],
            mode: crate::records::tool_mode::ToolMode::Off,
            result_char_limit: 1,
            vision: false,
        },
    );
    let page = "https://skiff.example";
    let e = unanswered(&anthropic, page, true, true, "Failed to fetch".into());
    assert!(!e.is_retryable());
    assert_eq!(
        e.to_string(),
        "The provider at https://api.anthropic.com answered, but its CORS settings do not let this page read the answer. The server must send Access-Control-Allow-Origin: https://skiff.example (or *) and allow the headers x-api-key, anthropic-version, content-type, anthropic-dangerous-direct-browser-access (Access-Control-Allow-Headers), answering the OPTIONS preflight. For Ollama set OLLAMA_ORIGINS; a proxy in front of the server must pass these headers on."
    );
    // Not reached: the network, the browser's words.
    assert_eq!(
        unanswered(&anthropic, page, false, true, "Failed to fetch".into()),
        ProviderError::Network("Failed to fetch".into())
    );
    // A request with only safelisted headers needs only the origin allowed.
    let plain = crate::http::HttpRequest {
        method: crate::http::Method::Get,
        url: "http://127.0.0.1:11434/v1/models".into(),
        headers: vec![
            ("Accept".into(), "application/json".into()),
            ("Content-Type".into(), "text/plain;charset=UTF-8".into()),
        ],
        body: None,
    };
    assert!(plain.cors_headers().is_empty());
    assert_eq!(
        unanswered(&plain, page, true, true, String::new()).to_string(),
        "The provider at http://127.0.0.1:11434 answered, but its CORS settings do not let this page read the answer. The server must send Access-Control-Allow-Origin: https://skiff.example (or *). For Ollama set OLLAMA_ORIGINS; a proxy in front of the server must pass these headers on."
    );
    // Offline, a local server that was tried and failed did not answer: the probe cannot
    // tell CORS from a stopped server without a network, so the sentence says to check it.
    let offline = unanswered(&plain, page, false, false, "Failed to fetch".into());
    assert!(offline.is_retryable());
    assert_eq!(
        offline.to_string(),
        "The server at http://127.0.0.1:11434 did not answer. The browser reports no network, so only servers on this computer or the local network can be reached: check that this one is running. Your message is kept: press Retry."
    );
}
