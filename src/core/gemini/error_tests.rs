use super::*;

#[test]
fn gemini_statuses_map_to_the_shared_errors() {
    let body = |code: u16, status: &str, message: &str| {
        format!(r#"{{"error":{{"code":{code},"message":"{message}","status":"{status}"}}}}"#)
    };
    assert_eq!(
        error_from_response(403, &body(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.")),
        ProviderError::Unauthorized {
            status: 403,
            detail: "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.".into()
        }
    );
    assert_eq!(
        error_from_response(404, &body(404, "NOT_FOUND", "models/gemini-9 is not found for API version v1beta, or is not supported for generateContent.")),
        ProviderError::NotFound {
            detail: "models/gemini-9 is not found for API version v1beta, or is not supported for generateContent.".into()
        }
    );
    let e = error_from_response(
        503,
        &body(
            503,
            "UNAVAILABLE",
            "The model is overloaded. Please try again later.",
        ),
    );
    assert_eq!(
        e.to_string(),
        "The provider failed with a server error (HTTP 503): The model is overloaded. Please try again later. Retry in a moment; if it keeps failing, the service may be down."
    );
    assert!(e.is_retryable());
    // A 400 that says the input is over the window is a context error, not a bad key.
    assert_eq!(
        error_from_response(400, &body(400, "INVALID_ARGUMENT", "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).")),
        ProviderError::ContextTooLong {
            status: 400,
            detail: "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).".into()
        }
    );
    // A 429 without RetryInfo says "a moment"; with an odd duration, whole seconds rounded up.
    assert_eq!(
        error_from_response(
            429,
            &body(
                429,
                "RESOURCE_EXHAUSTED",
                "Resource has been exhausted (e.g. check quota)."
            )
        ),
        ProviderError::RateLimited {
            detail: "Resource has been exhausted (e.g. check quota).".into(),
            retry_after: None
        }
    );
    let fractional = r#"{"error":{"code":429,"message":"Slow down","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"2.5s"}]}}"#;
    assert!(matches!(
        error_from_response(429, fractional),
        ProviderError::RateLimited {
            retry_after: Some(3),
            ..
        }
    ));
}

#[test]
fn durations_read_as_whole_seconds_or_not_at_all() {
    assert_eq!(seconds("37s"), Some(37));
    assert_eq!(seconds("0.000s"), Some(0));
    assert_eq!(seconds("1.001s"), Some(2));
    assert_eq!(seconds("37"), None);
    assert_eq!(seconds("-1s"), None);
    assert_eq!(seconds("s"), None);
    assert_eq!(seconds("1.xs"), None);
}
