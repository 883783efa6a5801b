//! Roots: the places a user lets a server know about (`roots/list`), entered per server.
//!
//! The specification (2025-11-25) says a root's `uri` MUST be a `file://` URI; anything else
//! is refused when entered, with a sentence, rather than sent to a server that may choke on it.
//! A repeated URI is one root. Changing the list is what makes the client send
//! `notifications/roots/list_changed` ([`changed`]). Pure: no IO.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Root {
    pub uri: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
}

/// Why an entered root is refused, for the form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootError {
    NotFile(String),
    Duplicate(String),
}

impl std::fmt::Display for RootError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RootError::NotFile(u) => write!(
                f,
                "\u{201c}{u}\u{201d} is not a file:// URI; MCP roots are folders or files, such as file:///home/me/project."
            ),
            RootError::Duplicate(u) => write!(f, "{u} is already a root of this server."),
        }
    }
}

/// Add an entered root (trimmed; a missing name stays empty) to `roots`.
pub fn add(roots: &mut Vec<Root>, uri: &str, name: &str) -> Result<(), RootError> {
    let uri = uri.trim();
    let rest = uri
        .get(..7)
        .filter(|s| s.eq_ignore_ascii_case("file://"))
        .map(|_| &uri[7..]);
    // file:///path or file://host/path: something after the scheme, and no spaces a URI
    // cannot hold.
    if rest.is_none_or(|r| r.is_empty() || r.contains(char::is_whitespace)) {
        return Err(RootError::NotFile(uri.to_string()));
    }
    let normal = uri.trim_end_matches('/');
    if roots.iter().any(|r| r.uri.trim_end_matches('/') == normal) {
        return Err(RootError::Duplicate(uri.to_string()));
    }
    roots.push(Root {
        uri: uri.to_string(),
        name: name.trim().to_string(),
    });
    Ok(())
}

/// The `roots/list` result.
pub fn list_result(roots: &[Root]) -> Value {
    json!({ "roots": roots })
}

/// Whether an edit changed what `roots/list` answers (the client then notifies the server).
pub fn changed(before: &[Root], after: &[Root]) -> bool {
    before != after
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_file_uris_once_each() {
        let mut roots = Vec::new();
        assert_eq!(
            add(&mut roots, " file:///home/me/project ", " Project "),
            Ok(())
        );
        assert_eq!(add(&mut roots, "FILE:///srv/data/", ""), Ok(()));
        assert_eq!(
            add(&mut roots, "file:///home/me/project/", "again"),
            Err(RootError::Duplicate("file:///home/me/project/".into()))
        );
        for bad in [
            "https://example.com",
            "/home/me",
            "file://",
            "file:///a b",
            "",
        ] {
            assert!(
                matches!(add(&mut roots, bad, ""), Err(RootError::NotFile(_))),
                "{bad}"
            );
        }
        assert_eq!(
            RootError::NotFile("/home/me".into()).to_string(),
            "\u{201c}/home/me\u{201d} is not a file:// URI; MCP roots are folders or files, such as file:///home/me/project."
        );
        assert_eq!(
            list_result(&roots),
            json!({"roots": [{"uri": "file:///home/me/project", "name": "Project"}, {"uri": "FILE:///srv/data/"}]})
        );
        let before = roots.clone();
        assert!(!changed(&before, &roots));
        roots.pop();
        assert!(changed(&before, &roots));
    }
}
