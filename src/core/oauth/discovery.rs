//! The ordered addresses to try for the two metadata documents, as the MCP authorization spec
//! lists them ("Protected Resource Metadata Discovery Requirements" and "Authorization Server
//! Metadata Discovery", 2025-11-25; the same order in 2026-07-28's "Authorization Server
//! Discovery"). Only addresses: fetching is the page's, judging the answers is `metadata`'s.

use super::url::HttpUrl;

pub const PRM_WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";
pub const AS_WELL_KNOWN: &str = "/.well-known/oauth-authorization-server";
pub const OIDC_WELL_KNOWN: &str = "/.well-known/openid-configuration";

/// Where to look for the MCP server's protected resource metadata, in order:
/// the `resource_metadata` URL of the 401's challenge when there is one (the spec says to use
/// it when present, so nothing else is tried), else RFC 9728 §3.1's well-known URL with the
/// endpoint's path (`/.well-known/oauth-protected-resource/public/mcp`), then the root one.
/// An endpoint at the root gives the root URL once.
pub fn resource_metadata_urls(server: &HttpUrl, from_header: Option<&str>) -> Vec<String> {
    if let Some(u) = from_header.and_then(HttpUrl::parse) {
        return vec![u.as_string()];
    }
    let with_path = server.with_well_known_inserted(PRM_WELL_KNOWN);
    let root = format!("{}{}", server.origin(), PRM_WELL_KNOWN);
    if with_path == root {
        vec![root]
    } else {
        vec![with_path, root]
    }
}

/// Where to look for an authorization server's metadata, in the spec's order. With a path
/// (`https://auth.example.com/tenant1`): RFC 8414 path insertion, OpenID Connect path
/// insertion, OpenID Connect path appending. Without: RFC 8414, then OpenID Connect. A
/// terminating slash on the issuer is removed first (RFC 8414 §3.1).
pub fn server_metadata_urls(issuer: &HttpUrl) -> Vec<String> {
    let origin = issuer.origin();
    let path = issuer.trimmed_path();
    if path.is_empty() {
        vec![
            format!("{origin}{AS_WELL_KNOWN}"),
            format!("{origin}{OIDC_WELL_KNOWN}"),
        ]
    } else {
        vec![
            format!("{origin}{AS_WELL_KNOWN}{path}"),
            format!("{origin}{OIDC_WELL_KNOWN}{path}"),
            format!("{origin}{path}{OIDC_WELL_KNOWN}"),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> HttpUrl {
        HttpUrl::parse(s).unwrap()
    }

    #[test]
    fn resource_metadata_from_the_header_alone() {
        assert_eq!(
            resource_metadata_urls(
                &u("https://example.com/public/mcp"),
                Some("https://example.com/.well-known/oauth-protected-resource/public/mcp")
            ),
            vec!["https://example.com/.well-known/oauth-protected-resource/public/mcp"]
        );
    }

    #[test]
    fn resource_metadata_path_first_then_root() {
        assert_eq!(
            resource_metadata_urls(&u("https://example.com/public/mcp"), None),
            vec![
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource",
            ]
        );
        // A header value that is not an absolute URL is as good as none.
        assert_eq!(
            resource_metadata_urls(&u("https://example.com/mcp/"), Some("/relative")),
            vec![
                "https://example.com/.well-known/oauth-protected-resource/mcp",
                "https://example.com/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            resource_metadata_urls(&u("http://127.0.0.1:3000/"), None),
            vec!["http://127.0.0.1:3000/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            resource_metadata_urls(&u("https://example.com/mcp?tenant=a"), None),
            vec![
                "https://example.com/.well-known/oauth-protected-resource/mcp?tenant=a",
                "https://example.com/.well-known/oauth-protected-resource",
            ]
        );
    }

    #[test]
    fn server_metadata_with_a_path() {
        assert_eq!(
            server_metadata_urls(&u("https://auth.example.com/tenant1")),
            vec![
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            server_metadata_urls(&u("https://auth.example.com/a/b/")),
            vec![
                "https://auth.example.com/.well-known/oauth-authorization-server/a/b",
                "https://auth.example.com/.well-known/openid-configuration/a/b",
                "https://auth.example.com/a/b/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn server_metadata_without_a_path() {
        for issuer in ["https://auth.example.com", "https://auth.example.com/"] {
            assert_eq!(
                server_metadata_urls(&u(issuer)),
                vec![
                    "https://auth.example.com/.well-known/oauth-authorization-server",
                    "https://auth.example.com/.well-known/openid-configuration",
                ]
            );
        }
    }
}
