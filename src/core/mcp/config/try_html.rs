//! Settings → MCP servers → Tools: each tool with its schema and a "try" form, as HTML text
//! (see `crate::html`), and the form's outcome line. The page redraws the list when the
//! server's tools change and only a tool's outcome while its call runs.

use crate::display::text;
use crate::html::Html;

/// One tool as the list shows it: name, description (as the server wrote it) and the input
/// schema, pretty-printed.
pub struct TryTool<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub schema: &'a str,
}

/// The list; a tool's Call button is `data-act="call:N"`, N its place in `tools`.
pub fn tools_html(tools: &[TryTool<'_>]) -> String {
    let mut h = Html::new();
    h.open("ul").attr("class", "mcp-tools").body();
    for (i, t) in tools.iter().enumerate() {
        h.open("li")
            .attr("class", "mcp-tool")
            .attr("data-tool", t.name)
            .body();
        h.open("details").body().open("summary").body();
        h.el("code", "mcp-tool-name", &text::name(t.name));
        h.text(" ");
        h.el("span", "muted", &text::prose(t.description));
        h.close("summary");
        h.el("pre", "mcp-schema", t.schema);
        h.open("label").attr("class", "field").body();
        h.el("span", "", "Arguments (JSON)");
        h.open("textarea")
            .attr("class", "mcp-try-args")
            .attr("rows", "3")
            .attr("spellcheck", "false")
            .body()
            .text("{}")
            .close("textarea");
        h.close("label");
        h.action("small primary mcp-try-call", &format!("call:{i}"), "Call");
        h.open("div")
            .attr("class", "mcp-try-out")
            .body()
            .close("div");
        h.close("details").close("li");
    }
    h.close("ul");
    h.finish()
}

/// Where a tried call stands.
#[derive(Debug, Clone, PartialEq)]
pub enum TryState {
    /// Running, with the server's last progress ("3/10 — copying") if it sent any.
    Running(String),
    /// The result, as pretty JSON.
    Done(String),
    /// Why the call failed, or why it was not made.
    Failed(String),
}

/// The outcome line under a tool's form. Text from the server is shown by prose rules (no
/// direction overrides or invisible characters) and escaped.
pub fn try_out_html(state: &TryState) -> String {
    let mut h = Html::new();
    match state {
        TryState::Running(progress) => h.el(
            "span",
            "muted mcp-try-running",
            &format!("Running… {}", text::prose(progress)),
        ),
        TryState::Done(result) => h.el("pre", "mcp-try-result", &text::prose(result)),
        TryState::Failed(why) => h.el("p", "error mcp-try-error", &text::prose(why)),
    };
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_and_outcomes_are_escaped_and_neutralised() {
        let list = tools_html(&[TryTool {
            name: "echo\"><b>",
            description: "Echoes \u{202e}back",
            schema: "{\n  \"type\": \"object\"\n}",
        }]);
        assert!(!list.contains("<b>"), "{list}");
        assert!(
            list.contains("data-tool=\"echo&quot;&gt;&lt;b&gt;\""),
            "{list}"
        );
        assert!(
            !list.contains('\u{202e}'),
            "a direction override is not shown as one"
        );
        assert!(list.contains("data-act=\"call:0\">Call</button>"));
        assert!(list.contains(">{}</textarea>"));
        assert_eq!(
            try_out_html(&TryState::Running("1/2".into())),
            "<span class=\"muted mcp-try-running\">Running… 1/2</span>"
        );
        assert_eq!(
            try_out_html(&TryState::Done("{\"a\": \"<x>\"}".into())),
            "<pre class=\"mcp-try-result\">{&quot;a&quot;: &quot;&lt;x&gt;&quot;}</pre>"
        );
        assert!(try_out_html(&TryState::Failed("no".into()))
            .starts_with("<p class=\"error mcp-try-error\">"));
    }
}
