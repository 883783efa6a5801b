//! The server form as HTML text (see `crate::html`), and the form read back from its values:
//! the page draws [`ServerForm::html`], and on submit hands `FormData`'s pairs to
//! [`ServerForm::from_pairs`] and the result to `ServerForm::to_config`, which decides.
//! As Leptos views the form's ten controls cost the page about 2 KiB; this writes the same
//! markup (labels, classes) the tests and stylesheet know.

use super::{ServerForm, TransportChoice};
use crate::html::Html;

/// `(name, label, class, placeholder)` of the one-line fields, in the order shown.
const TEXT: [(&str, &str, &str, &str); 2] = [
    ("name", "Server name", "mcp-name", "my server"),
    (
        "url",
        "Server URL",
        "mcp-url",
        "http://127.0.0.1:3001/mcp or ws://…",
    ),
];
const MORE: [(&str, &str, &str, &str); 4] = [
    (
        "proxy",
        "CORS proxy prefix (optional)",
        "mcp-proxy",
        "http://127.0.0.1:8089/",
    ),
    (
        "max_attempts",
        "Maximum reconnect attempts (empty: no limit)",
        "mcp-attempts",
        "",
    ),
    (
        "request_timeout_s",
        "Request timeout in seconds (empty: 60)",
        "mcp-timeout",
        "60",
    ),
    (
        "ping_interval_s",
        "Ping interval in seconds (empty: no pings)",
        "mcp-ping",
        "",
    ),
];

impl ServerForm {
    fn field(&self, name: &str) -> &str {
        match name {
            "name" => &self.name,
            "url" => &self.url,
            "headers" => &self.headers,
            "proxy" => &self.proxy,
            "max_attempts" => &self.max_attempts,
            "request_timeout_s" => &self.request_timeout_s,
            "ping_interval_s" => &self.ping_interval_s,
            _ => "",
        }
    }

    /// The form's values (`FormData` pairs) as a form; an unknown transport reads as Auto.
    pub fn from_pairs(pairs: &[(String, String)]) -> ServerForm {
        let mut f = ServerForm::default();
        for (k, v) in pairs {
            let v = v.clone();
            match k.as_str() {
                "name" => f.name = v,
                "url" => f.url = v,
                "transport" => f.transport = v.parse().unwrap_or_default(),
                "headers" => f.headers = v,
                "proxy" => f.proxy = v,
                "max_attempts" => f.max_attempts = v,
                "request_timeout_s" => f.request_timeout_s = v,
                "ping_interval_s" => f.ping_interval_s = v,
                _ => {}
            }
        }
        f
    }

    /// The form, saying `error` (what the last submit found wrong) under it. The submit
    /// button says "Save and reconnect" when `editing`, "Add and connect" otherwise; Cancel
    /// is `data-act="cancel"`.
    pub fn html(&self, editing: bool, error: Option<&str>) -> String {
        let mut h = Html::new();
        h.open("form").attr("class", "mcp-form").body();
        let input = |h: &mut Html, (name, label, class, hint): (&str, &str, &str, &str)| {
            h.open("label").attr("class", "field").body();
            h.el("span", "", label);
            h.open("input")
                .attr("class", class)
                .attr("name", name)
                .attr("spellcheck", "false")
                .attr("autocomplete", "off")
                .attr("placeholder", hint)
                .attr("value", self.field(name))
                .void();
            h.close("label");
        };
        for f in TEXT {
            input(&mut h, f);
        }
        h.open("label").attr("class", "field").body();
        h.el("span", "", "Transport");
        h.open("select")
            .attr("class", "mcp-transport")
            .attr("name", "transport")
            .body();
        for t in TransportChoice::ALL {
            h.option(t.as_str(), t.label(), self.transport == *t);
        }
        h.close("select").close("label");
        h.open("label").attr("class", "field").body();
        h.el("span", "", "Headers (one \"Name: value\" per line)");
        h.open("textarea")
            .attr("class", "mcp-headers")
            .attr("name", "headers")
            .attr("rows", "2")
            .attr("spellcheck", "false")
            .attr("placeholder", "Authorization: Bearer …")
            .body()
            .text(&self.headers)
            .close("textarea");
        h.close("label");
        for f in MORE {
            input(&mut h, f);
        }
        if let Some(e) = error {
            h.open("p")
                .attr("class", "error mcp-form-error")
                .attr("role", "alert")
                .body()
                .text(e)
                .close("p");
        }
        h.open("div").attr("class", "row").body();
        h.open("button")
            .attr("type", "submit")
            .attr("class", "primary mcp-save")
            .body()
            .text(if editing {
                "Save and reconnect"
            } else {
                "Add and connect"
            })
            .close("button");
        h.action("", "cancel", "Cancel");
        h.close("div").close("form");
        h.finish()
    }
}

/// Settings → MCP servers' "Import or export" block as HTML text: the `mcpServers` JSON in a
/// text box, Import (`data-act="import"`) and Export (`data-act="export"`), and the report of
/// the last import (`Ok`: what was imported and skipped, one per line; `Err`: why nothing
/// was). Drawn open after an action, so the report shows where the user clicked.
pub fn import_export_html(text: &str, report: Option<Result<&str, &str>>) -> String {
    let mut h = Html::new();
    h.open("details")
        .attr("class", "mcp-import-export")
        .flag("open", report.is_some() || !text.is_empty())
        .body();
    h.open("summary")
        .body()
        .text("Import or export (Claude Desktop / Cursor mcpServers JSON)")
        .close("summary");
    h.open("textarea")
        .attr("class", "mcp-import-text")
        .attr("aria-label", "mcpServers JSON")
        .attr("rows", "6")
        .attr("spellcheck", "false")
        .attr(
            "placeholder",
            "{\"mcpServers\": {\"name\": {\"url\": \"https://…\", \"headers\": {…}}}}",
        )
        .body()
        .text(text)
        .close("textarea");
    h.open("div").attr("class", "row").body();
    h.action("small mcp-import", "import", "Import");
    h.action("small mcp-export", "export", "Export current servers");
    h.close("div");
    match report {
        Some(Ok(lines)) => {
            h.el("pre", "mcp-import-report", lines);
        }
        Some(Err(e)) => {
            h.open("p")
                .attr("class", "error mcp-import-report")
                .attr("role", "alert")
                .body()
                .text(e)
                .close("p");
        }
        None => {}
    }
    h.close("details");
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_round_trips_through_its_values_and_escapes_them() {
        let form = ServerForm {
            name: "a\"><script>x</script>".into(),
            url: "http://127.0.0.1:3001/mcp".into(),
            transport: TransportChoice::Sse,
            headers: "Authorization: Bearer <t>\nX-A: b".into(),
            proxy: String::new(),
            max_attempts: "3".into(),
            request_timeout_s: "60".into(),
            ping_interval_s: String::new(),
        };
        let html = form.html(true, Some("The URL <bad>."));
        assert!(!html.contains("<script>"), "{html}");
        assert!(html.contains("value=\"a&quot;&gt;&lt;script&gt;x&lt;/script&gt;\""));
        assert!(html.contains("<option value=\"sse\" selected>HTTP+SSE (deprecated)</option>"));
        assert!(html.contains(">Authorization: Bearer &lt;t&gt;\nX-A: b</textarea>"));
        assert!(html.contains("role=\"alert\">The URL &lt;bad&gt;.</p>"));
        assert!(html.contains(">Save and reconnect</button>"));
        assert!(ServerForm::default()
            .html(false, None)
            .contains(">Add and connect</button>"));
        // What the browser hands back from that form reads as the same form.
        let pairs: Vec<(String, String)> = [
            ("name", form.name.as_str()),
            ("url", &form.url),
            ("transport", "sse"),
            ("headers", &form.headers),
            ("proxy", ""),
            ("max_attempts", "3"),
            ("request_timeout_s", "60"),
            ("ping_interval_s", ""),
            ("unknown", "x"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(ServerForm::from_pairs(&pairs), form);
        let odd = [("transport".to_string(), "carrier-pigeon".to_string())];
        assert_eq!(
            ServerForm::from_pairs(&odd).transport,
            TransportChoice::Auto
        );
    }

    #[test]
    fn the_import_block_shows_its_report_escaped_and_opens_for_it() {
        let closed = import_export_html("", None);
        assert!(closed.starts_with("<details class=\"mcp-import-export\"><summary>"));
        let ok = import_export_html(
            "{\"mcpServers\":{}}",
            Some(Ok("Imported 1 server.\nNot imported: <x>")),
        );
        assert!(
            ok.starts_with("<details class=\"mcp-import-export\" open>"),
            "{ok}"
        );
        assert!(
            ok.contains(">{&quot;mcpServers&quot;:{}}</textarea>"),
            "{ok}"
        );
        assert!(ok.contains(
            "<pre class=\"mcp-import-report\">Imported 1 server.\nNot imported: &lt;x&gt;</pre>"
        ));
        let err = import_export_html("", Some(Err("the text is not valid JSON.")));
        assert!(
            err.contains("role=\"alert\">the text is not valid JSON.</p>"),
            "{err}"
        );
    }
}
