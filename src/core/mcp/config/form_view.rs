//! The server form and the import block as the page shows them: each field's label, class
//! and placeholder, the form's text per field, the submit button's words, and the sentence
//! an import leaves. The page lays these out as form fields (`ui::fields`); what the fields
//! amount to is [`ServerForm::to_config`]'s decision. Never markup.

use super::{ImportReport, ServerForm};
use crate::display::text;

/// The label of the transport `<select>` (its options are `TransportChoice::ALL`).
pub const TRANSPORT_LABEL: &str = "Transport";

/// The form's text fields, in the order shown (the transport `<select>` comes after `Url`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerField {
    Name,
    Url,
    /// One `Name: value` per line (a text area).
    Headers,
    Proxy,
    MaxAttempts,
    RequestTimeout,
    PingInterval,
}

impl ServerField {
    /// Above the transport `<select>`.
    pub const BEFORE_TRANSPORT: [ServerField; 2] = [ServerField::Name, ServerField::Url];
    /// Below it.
    pub const AFTER_TRANSPORT: [ServerField; 5] = [
        ServerField::Headers,
        ServerField::Proxy,
        ServerField::MaxAttempts,
        ServerField::RequestTimeout,
        ServerField::PingInterval,
    ];

    pub fn label(self) -> &'static str {
        match self {
            ServerField::Name => "Server name",
            ServerField::Url => "Server URL",
            ServerField::Headers => "Headers (one \"Name: value\" per line)",
            ServerField::Proxy => "CORS proxy prefix (optional)",
            ServerField::MaxAttempts => "Maximum reconnect attempts (empty: no limit)",
            ServerField::RequestTimeout => "Request timeout in seconds (empty: 60)",
            ServerField::PingInterval => "Ping interval in seconds (empty: no pings)",
        }
    }

    /// The control's class (the stylesheet and the tests find it by it).
    pub fn class(self) -> &'static str {
        match self {
            ServerField::Name => "mcp-name",
            ServerField::Url => "mcp-url",
            ServerField::Headers => "mcp-headers",
            ServerField::Proxy => "mcp-proxy",
            ServerField::MaxAttempts => "mcp-attempts",
            ServerField::RequestTimeout => "mcp-timeout",
            ServerField::PingInterval => "mcp-ping",
        }
    }

    pub fn placeholder(self) -> &'static str {
        match self {
            ServerField::Name => "my server",
            ServerField::Url => "http://127.0.0.1:3001/mcp or ws://…",
            ServerField::Headers => "Authorization: Bearer …",
            ServerField::Proxy => "http://127.0.0.1:8089/",
            ServerField::MaxAttempts | ServerField::PingInterval => "",
            ServerField::RequestTimeout => "60",
        }
    }

    /// Whether the field takes several lines.
    pub fn multiline(self) -> bool {
        self == ServerField::Headers
    }
}

impl ServerForm {
    /// The text of `field` as typed.
    pub fn text(&self, field: ServerField) -> &str {
        match field {
            ServerField::Name => &self.name,
            ServerField::Url => &self.url,
            ServerField::Headers => &self.headers,
            ServerField::Proxy => &self.proxy,
            ServerField::MaxAttempts => &self.max_attempts,
            ServerField::RequestTimeout => &self.request_timeout_s,
            ServerField::PingInterval => &self.ping_interval_s,
        }
    }

    /// Sets the text of `field` as typed.
    pub fn set_text(&mut self, field: ServerField, value: String) {
        *match field {
            ServerField::Name => &mut self.name,
            ServerField::Url => &mut self.url,
            ServerField::Headers => &mut self.headers,
            ServerField::Proxy => &mut self.proxy,
            ServerField::MaxAttempts => &mut self.max_attempts,
            ServerField::RequestTimeout => &mut self.request_timeout_s,
            ServerField::PingInterval => &mut self.ping_interval_s,
        } = value;
    }
}

/// The submit button's words: "Save and reconnect" for a server being edited, "Add and
/// connect" for a new one.
pub fn submit_label(editing: bool) -> &'static str {
    if editing {
        "Save and reconnect"
    } else {
        "Add and connect"
    }
}

impl ImportReport {
    /// What an import did, one line each: how many servers came in, then each entry left out
    /// with why (names and reasons as the user should see them).
    pub fn summary(&self) -> String {
        let mut lines = vec![format!("Imported {} server(s).", self.imported.len())];
        for s in &self.skipped {
            lines.push(format!(
                "Not imported: {}: {}",
                text::name(&s.name),
                text::prose(&s.reason)
            ));
        }
        lines.join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::super::{SkippedEntry, TransportChoice};
    use super::*;

    #[test]
    fn every_field_is_named_and_holds_its_own_text() {
        let all: Vec<ServerField> = ServerField::BEFORE_TRANSPORT
            .into_iter()
            .chain(ServerField::AFTER_TRANSPORT)
            .collect();
        let mut form = ServerForm::default();
        for (i, f) in all.iter().enumerate() {
            assert!(!f.label().is_empty() && f.class().starts_with("mcp-"));
            form.set_text(*f, format!("v{i}"));
        }
        for (i, f) in all.iter().enumerate() {
            assert_eq!(form.text(*f), format!("v{i}"), "{f:?} keeps its own text");
        }
        for (i, f) in all.iter().enumerate() {
            assert!(
                all[..i].iter().all(|g| g.class() != f.class()),
                "{f:?} has a class of its own"
            );
        }
        assert_eq!(
            (form.name.as_str(), form.ping_interval_s.as_str()),
            ("v0", "v6")
        );
        assert_eq!(form.transport, TransportChoice::Auto);
        assert!(ServerField::Headers.multiline() && !ServerField::Url.multiline());
        assert_eq!(ServerField::Url.label(), "Server URL");
        assert_eq!(ServerField::MaxAttempts.class(), "mcp-attempts");
        assert_eq!(submit_label(true), "Save and reconnect");
        assert_eq!(submit_label(false), "Add and connect");
    }

    #[test]
    fn an_import_says_what_came_in_and_what_did_not_neutralised() {
        let report = ImportReport {
            imported: vec![super::super::ServerConfig::new("a", "a", "http://a/")],
            skipped: vec![SkippedEntry {
                name: "files\u{202e}".into(),
                reason: "stdio servers cannot run in a browser".into(),
            }],
        };
        assert_eq!(
            report.summary(),
            "Imported 1 server(s).\nNot imported: files<U+202E>: stdio servers cannot run in a browser"
        );
        assert_eq!(ImportReport::default().summary(), "Imported 0 server(s).");
    }
}
