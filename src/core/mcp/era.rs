//! Which MCP era a server speaks, and which protocol version to use with it.
//!
//! Revision 2026-07-28 splits MCP into two eras (its versioning page): *modern* servers take the
//! protocol version in every request's `_meta` and answer `server/discover`; *legacy* servers
//! (2025-11-25 and earlier) need an `initialize` handshake. Over HTTP the client guidance is to
//! attempt a modern request first: a success or a recognized modern error (such as
//! `UnsupportedProtocolVersionError`, -32022) means modern, and anything else means legacy.
//! The verdict belongs to the server, so it is cached per server and re-probed when the cached
//! assumption fails.
//!
//! This module decides; it never sends anything. `session` acts on its verdicts.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::envelope;
use super::error::McpError;
use super::messages::RpcError;
use super::types_2026::{self, DiscoverInfo};
use crate::persist::PersistError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    Modern,
    Legacy,
}

crate::names::named_enum!(Era, "protocol era", {
    Modern => "modern",
    Legacy => "legacy",
});

/// Modern versions Skiff speaks, preferred first.
pub const MODERN_VERSIONS: &[&str] = &["2026-07-28"];
/// Legacy versions Skiff speaks, preferred first. 2024-11-05 is kept because HTTP+SSE servers
/// may still negotiate it, and nothing Skiff uses changed in a way that matters.
pub const LEGACY_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

pub fn default_modern() -> Vec<String> {
    MODERN_VERSIONS.iter().map(|s| s.to_string()).collect()
}

pub fn default_legacy() -> Vec<String> {
    LEGACY_VERSIONS.iter().map(|s| s.to_string()).collect()
}

/// The era and version detected for one server, persisted by the mcp store so the next page
/// load skips the probe.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EraCache {
    pub era: Era,
    pub version: String,
    pub detected_at_ms: f64,
}

pub const ERA_CACHE_VERSION: u32 = 1;

impl EraCache {
    pub fn encode(&self) -> String {
        envelope::encode(ERA_CACHE_VERSION, self)
    }

    pub fn decode(raw: &str) -> Result<EraCache, PersistError> {
        envelope::decode(raw, "MCP protocol era", ERA_CACHE_VERSION)
    }
}

/// Which era to try first: what the cache says, else modern (the HTTP client guidance).
pub fn first_attempt(cache: Option<&EraCache>) -> Era {
    cache.map(|c| c.era).unwrap_or(Era::Modern)
}

/// The first of `ours` (in our order of preference) that `theirs` also lists.
pub fn pick_version(ours: &[String], theirs: &[String]) -> Option<String> {
    ours.iter().find(|v| theirs.contains(v)).cloned()
}

/// What to do after the modern probe (`server/discover`) was answered.
#[derive(Debug, Clone, PartialEq)]
pub enum ProbeVerdict {
    /// Modern server; use this version.
    Modern {
        version: String,
        info: Box<DiscoverInfo>,
    },
    /// Modern server that rejected our version but speaks this one: ask again with it.
    RetryWith(String),
    /// Not a modern server: run the `initialize` handshake.
    Legacy,
    /// A modern server with which we share no version at all.
    Incompatible(McpError),
}

/// Judge a successful answer to `server/discover`.
pub fn judge_discover_result(result: &Value, modern: &[String], legacy: &[String]) -> ProbeVerdict {
    let Some(info) = types_2026::parse_discover(result) else {
        // Something answered, but not with a discovery result: a legacy server that replies
        // `{}` to any method it does not know.
        return ProbeVerdict::Legacy;
    };
    if let Some(version) = pick_version(modern, &info.supported_versions) {
        return ProbeVerdict::Modern {
            version,
            info: Box::new(info),
        };
    }
    if pick_version(legacy, &info.supported_versions).is_some() {
        // A dual-era server that only offers legacy versions to us.
        return ProbeVerdict::Legacy;
    }
    ProbeVerdict::Incompatible(McpError::UnsupportedVersion {
        ours: modern.iter().chain(legacy).cloned().collect(),
        theirs: info.supported_versions,
    })
}

/// Judge a JSON-RPC error answering `server/discover`. `tried` lists versions already rejected,
/// so a server that keeps advertising a version it then refuses cannot loop us.
pub fn judge_discover_error(
    error: &RpcError,
    modern: &[String],
    legacy: &[String],
    tried: &[String],
) -> ProbeVerdict {
    if let Some(u) = types_2026::unsupported_version(error) {
        if let Some(v) = retry_version(modern, &u.supported, tried) {
            return ProbeVerdict::RetryWith(v);
        }
        if pick_version(legacy, &u.supported).is_some() {
            return ProbeVerdict::Legacy;
        }
        return ProbeVerdict::Incompatible(McpError::UnsupportedVersion {
            ours: modern.iter().chain(legacy).cloned().collect(),
            theirs: u.supported,
        });
    }
    if types_2026::is_modern_error_code(error.code) {
        // A modern server rejecting the request itself (header mismatch, missing capability):
        // falling back would hide the real problem.
        return ProbeVerdict::Incompatible(error.clone().into());
    }
    ProbeVerdict::Legacy
}

/// How many times one version may be asked for during a probe. A server may refuse the very
/// version it then lists as supported (one mid-upgrade behind a balancer, or one that refuses a
/// client's first request on principle, as the conformance suite's `request-metadata` does):
/// the client asks once more with it. A second refusal ends it, so a server that keeps
/// advertising a version it refuses cannot loop us.
pub const ASKS_PER_VERSION: usize = 2;

/// The version to ask again with after an unsupported-version refusal: ours, listed by the
/// server, preferring one not asked for yet over one asked for once; `None` when every shared
/// version was refused [`ASKS_PER_VERSION`] times.
pub fn retry_version(ours: &[String], theirs: &[String], tried: &[String]) -> Option<String> {
    let asked = |v: &String| tried.iter().filter(|t| *t == v).count();
    (0..ASKS_PER_VERSION).find_map(|times| {
        let candidates: Vec<String> = ours.iter().filter(|v| asked(v) == times).cloned().collect();
        pick_version(&candidates, theirs)
    })
}

/// Judge the version a legacy server chose in its `InitializeResult`.
pub fn judge_initialize_version(server_version: &str, legacy: &[String]) -> Result<(), McpError> {
    if legacy.iter().any(|v| v == server_version) {
        Ok(())
    } else {
        Err(McpError::UnsupportedVersion {
            ours: legacy.to_vec(),
            theirs: vec![server_version.to_string()],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(code: i64, data: Value) -> RpcError {
        RpcError {
            code,
            message: "x".into(),
            data: Some(data),
        }
    }

    #[test]
    fn modern_first_unless_cached_legacy() {
        assert_eq!(first_attempt(None), Era::Modern);
        let cache = EraCache {
            era: Era::Legacy,
            version: "2025-11-25".into(),
            detected_at_ms: 5.0,
        };
        assert_eq!(first_attempt(Some(&cache)), Era::Legacy);
        assert_eq!(EraCache::decode(&cache.encode()).unwrap(), cache);
        assert!(matches!(
            EraCache::decode(r#"{"v":9,"data":{}}"#),
            Err(PersistError::TooNew { .. })
        ));
        assert!(EraCache::decode("nope").is_err());
    }

    #[test]
    fn discover_verdicts() {
        let (m, l) = (default_modern(), default_legacy());
        let ok = json!({"supportedVersions": ["2025-11-25", "2026-07-28"], "capabilities": {}});
        assert!(
            matches!(judge_discover_result(&ok, &m, &l), ProbeVerdict::Modern { version, .. } if version == "2026-07-28")
        );
        assert_eq!(
            judge_discover_result(&json!({}), &m, &l),
            ProbeVerdict::Legacy
        );
        let only_legacy = json!({"supportedVersions": ["2025-06-18"]});
        assert_eq!(
            judge_discover_result(&only_legacy, &m, &l),
            ProbeVerdict::Legacy
        );
        let future = json!({"supportedVersions": ["2099-01-01"]});
        assert!(matches!(
            judge_discover_result(&future, &m, &l),
            ProbeVerdict::Incompatible(_)
        ));
    }

    #[test]
    fn unsupported_version_retries_once_then_gives_up() {
        let modern = vec!["2027-01-01".to_string(), "2026-07-28".to_string()];
        let l = default_legacy();
        let e = err(
            -32022,
            json!({"supported": ["2026-07-28"], "requested": "2027-01-01"}),
        );
        assert_eq!(
            judge_discover_error(&e, &modern, &l, &["2027-01-01".into()]),
            ProbeVerdict::RetryWith("2026-07-28".into())
        );
        // The server refuses the version it advertised: asked once more, then no loop.
        let tried = ["2027-01-01".to_string(), "2026-07-28".to_string()];
        assert_eq!(
            judge_discover_error(&e, &modern, &l, &tried),
            ProbeVerdict::RetryWith("2026-07-28".into())
        );
        let tried = [
            "2027-01-01".to_string(),
            "2026-07-28".to_string(),
            "2026-07-28".to_string(),
        ];
        assert!(matches!(
            judge_discover_error(&e, &modern, &l, &tried),
            ProbeVerdict::Incompatible(_)
        ));
        // A version never asked for comes before one asked for once.
        let both = err(-32022, json!({"supported": ["2026-07-28", "2027-01-01"]}));
        assert_eq!(
            judge_discover_error(&both, &modern, &l, &["2026-07-28".into()]),
            ProbeVerdict::RetryWith("2027-01-01".into())
        );
        // Legacy servers answer with anything else, -32601 and -32000 included.
        for code in [-32601, -32000, -32600] {
            assert_eq!(
                judge_discover_error(&err(code, json!(null)), &modern, &l, &[]),
                ProbeVerdict::Legacy
            );
        }
        assert!(matches!(
            judge_discover_error(&err(-32020, json!(null)), &modern, &l, &[]),
            ProbeVerdict::Incompatible(_)
        ));
    }

    #[test]
    fn initialize_version_must_be_ours() {
        let l = default_legacy();
        assert!(judge_initialize_version("2025-06-18", &l).is_ok());
        assert!(matches!(
            judge_initialize_version("2023-01-01", &l),
            Err(McpError::UnsupportedVersion { .. })
        ));
    }
}
