//! What revision 2026-07-28 ("modern" MCP) adds that Skiff reads or writes, in one place.
//!
//! rmcp 3.x models most of it, but its `DiscoverResult` requires the cache fields (`ttlMs`,
//! `cacheScope`) and `resultType`, and a client probing an unknown server must accept a
//! discovery answer that omits them. So discovery, the per-request `_meta` keys and the modern
//! error codes live here, read tolerantly from `serde_json::Value`.

use crate::mcp::model::{Implementation, ServerCapabilities};
use serde_json::{json, Map, Value};

use super::messages::RpcError;

pub const META_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
pub const META_CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
pub const META_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
pub const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

pub const HEADER_MISMATCH: i64 = -32020;
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

pub const DISCOVER_METHOD: &str = "server/discover";
pub const LISTEN_METHOD: &str = "subscriptions/listen";

/// Whether a JSON-RPC error code is one only a modern server sends. The versioning page makes
/// such an error the proof that a server is modern, so a client must not fall back on it.
pub fn is_modern_error_code(code: i64) -> bool {
    matches!(
        code,
        HEADER_MISMATCH | MISSING_REQUIRED_CLIENT_CAPABILITY | UNSUPPORTED_PROTOCOL_VERSION
    )
}

/// The `data` of an `UnsupportedProtocolVersionError`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsupportedVersion {
    pub supported: Vec<String>,
    pub requested: Option<String>,
}

pub fn unsupported_version(error: &RpcError) -> Option<UnsupportedVersion> {
    if error.code != UNSUPPORTED_PROTOCOL_VERSION {
        return None;
    }
    let data = error.data.as_ref();
    Some(UnsupportedVersion {
        supported: string_list(data.and_then(|d| d.get("supported"))),
        requested: data
            .and_then(|d| d.get("requested"))
            .and_then(Value::as_str)
            .map(str::to_string),
    })
}

fn string_list(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// What `server/discover` told us, read tolerantly.
#[derive(Debug, Clone, PartialEq)]
pub struct DiscoverInfo {
    pub supported_versions: Vec<String>,
    pub capabilities: ServerCapabilities,
    pub instructions: Option<String>,
    pub server_info: Option<Implementation>,
}

/// Read a discovery result. `None` when it is not one: a legacy server that answered the probe
/// with some other result (an empty `{}`, say) must be treated as legacy, not as modern.
pub fn parse_discover(result: &Value) -> Option<DiscoverInfo> {
    let supported_versions = string_list(result.get("supportedVersions"));
    if supported_versions.is_empty() {
        return None;
    }
    let capabilities = result
        .get("capabilities")
        .and_then(|c| serde_json::from_value(c.clone()).ok())
        .unwrap_or_default();
    Some(DiscoverInfo {
        supported_versions,
        capabilities,
        instructions: result
            .get("instructions")
            .and_then(Value::as_str)
            .map(str::to_string),
        server_info: server_info_from_meta(result),
    })
}

/// `_meta["io.modelcontextprotocol/serverInfo"]` of any modern result.
pub fn server_info_from_meta(result: &Value) -> Option<Implementation> {
    let v = result.get("_meta")?.get(META_SERVER_INFO)?;
    serde_json::from_value(v.clone()).ok()
}

/// The `resultType` of a result; absent means `complete` (results from legacy servers).
pub fn result_type(result: &Value) -> &str {
    result
        .get("resultType")
        .and_then(Value::as_str)
        .unwrap_or("complete")
}

/// The request `_meta` every modern request carries, merged into `params`.
pub fn with_request_meta(
    params: Option<Value>,
    version: &str,
    client_info: &Value,
    log_level: Option<&str>,
) -> Value {
    let mut params = match params {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    let mut meta = match params.remove("_meta") {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    meta.insert(META_PROTOCOL_VERSION.into(), json!(version));
    meta.insert(META_CLIENT_INFO.into(), client_info.clone());
    meta.insert(
        META_CLIENT_CAPABILITIES.into(),
        super::session::client_capabilities(),
    );
    if let Some(level) = log_level {
        meta.insert(META_LOG_LEVEL.into(), json!(level));
    }
    params.insert("_meta".into(), Value::Object(meta));
    Value::Object(params)
}

/// The `_meta` key on every frame of a listen stream (its acknowledgement, its notifications,
/// its closing result): the JSON-RPC id of the `subscriptions/listen` request it belongs to.
pub const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// The first frame of a listen stream: the subset of the filter the server will honour.
pub const LISTEN_ACK: &str = "notifications/subscriptions/acknowledged";

/// The `subscriptions/listen` params (`{notifications: SubscriptionFilter}`): the list changes
/// the server says it announces, and `resourceSubscriptions` (which replaced the legacy
/// `resources/subscribe`) for the URIs the user follows, when the server offers
/// `resources.subscribe`. `None` when there is nothing to ask for, so no stream is opened.
pub fn listen_filter(caps: &ServerCapabilities, uris: &[String]) -> Option<Value> {
    let tools = caps
        .tools
        .as_ref()
        .and_then(|t| t.list_changed)
        .unwrap_or(false);
    let prompts = caps
        .prompts
        .as_ref()
        .and_then(|t| t.list_changed)
        .unwrap_or(false);
    let resources = caps
        .resources
        .as_ref()
        .and_then(|t| t.list_changed)
        .unwrap_or(false);
    let uris = if offers_subscribe(caps) { uris } else { &[] };
    if !(tools || prompts || resources) && uris.is_empty() {
        return None;
    }
    let mut filter = json!({
        "toolsListChanged": tools,
        "promptsListChanged": prompts,
        "resourcesListChanged": resources,
    });
    if !uris.is_empty() {
        filter["resourceSubscriptions"] = json!(uris);
    }
    Some(json!({ "notifications": filter }))
}

/// Whether the server says it delivers `notifications/resources/updated` for subscribed URIs.
pub fn offers_subscribe(caps: &ServerCapabilities) -> bool {
    caps.resources
        .as_ref()
        .and_then(|r| r.subscribe)
        .unwrap_or(false)
}

/// The listen stream a frame belongs to (`_meta` subscriptionId), when it says.
pub fn subscription_id(params: &Value) -> Option<&Value> {
    params.get("_meta")?.get(META_SUBSCRIPTION_ID)
}

/// The URIs an acknowledgement says the server honours (`notifications.resourceSubscriptions`).
pub fn honoured_uris(ack_params: &Value) -> Vec<String> {
    string_list(ack_params.pointer("/notifications/resourceSubscriptions"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::messages::error_body;

    #[test]
    fn spec_unsupported_version_example_is_read() {
        // The example from the 2026-07-28 versioning page.
        let body = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28","2025-11-25"],"requested":"1900-01-01"}}}"#;
        let err = error_body(body).unwrap();
        assert!(is_modern_error_code(err.code));
        let u = unsupported_version(&err).unwrap();
        assert_eq!(u.supported, ["2026-07-28", "2025-11-25"]);
        assert_eq!(u.requested.as_deref(), Some("1900-01-01"));
        // A 1.x TypeScript server's own "unsupported version" is -32000: not a modern error.
        assert!(!is_modern_error_code(-32000));
    }

    #[test]
    fn discovery_without_versions_is_not_discovery() {
        assert_eq!(parse_discover(&json!({})), None);
        let d = parse_discover(&json!({
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {"listChanged": true}, "somethingNew": {}},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "py", "version": "2.0"}}
        }))
        .unwrap();
        assert_eq!(d.server_info.map(|s| s.name), Some("py".to_string()));
        assert!(listen_filter(&d.capabilities, &[]).is_some());
    }

    #[test]
    fn request_meta_keeps_existing_meta() {
        let p = with_request_meta(
            Some(json!({"name": "t", "_meta": {"progressToken": 3}})),
            "2026-07-28",
            &json!({"name": "skiff", "version": "1"}),
            None,
        );
        assert_eq!(p["_meta"]["progressToken"], 3);
        assert_eq!(p["_meta"][META_PROTOCOL_VERSION], "2026-07-28");
        assert_eq!(
            p["_meta"][META_CLIENT_CAPABILITIES],
            super::super::session::client_capabilities()
        );
        assert_eq!(p["name"], "t");
    }
}
