//! HTML text for panels the page draws as one string instead of as Leptos views.
//!
//! Why: every `view!` is its own generic type, and a form-like panel with a dozen input kinds
//! costs the page several KiB of wasm (the elicitation card was 14.8 KiB gzip). A rare panel
//! whose only state is "what the user typed so far" is cheaper as text written here, set as
//! the container's `innerHTML`, with one delegated listener reading `data-act` on clicks.
//!
//! Safety: tag and attribute names are `&'static str` (ours, never input); every value and
//! text passes through [`escape_into`], which escapes the five characters that can end a text
//! node or a double-quoted attribute. There is no way to append raw input.

/// Escapes text for an element body or a double-quoted attribute value.
pub fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// A string of HTML being written: `open`/`attr`/`flag` start a tag, `body` or `void` end its
/// start tag, `text` writes escaped text, `close` ends an element.
#[derive(Default)]
pub struct Html {
    out: String,
}

impl Html {
    pub fn new() -> Self {
        Self::default()
    }

    /// `<tag` (finish it with `body` or `void`).
    pub fn open(&mut self, tag: &'static str) -> &mut Self {
        self.out.push('<');
        self.out.push_str(tag);
        self
    }

    /// ` name="value"`, the value escaped.
    pub fn attr(&mut self, name: &'static str, value: &str) -> &mut Self {
        self.out.push(' ');
        self.out.push_str(name);
        self.out.push_str("=\"");
        escape_into(&mut self.out, value);
        self.out.push('"');
        self
    }

    /// ` name="value"` when there is a value.
    pub fn attr_opt(&mut self, name: &'static str, value: Option<&str>) -> &mut Self {
        if let Some(v) = value {
            self.attr(name, v);
        }
        self
    }

    /// A boolean attribute (` required`) when `on`.
    pub fn flag(&mut self, name: &'static str, on: bool) -> &mut Self {
        if on {
            self.out.push(' ');
            self.out.push_str(name);
        }
        self
    }

    /// Ends a start tag whose element has content (and a `close`).
    pub fn body(&mut self) -> &mut Self {
        self.out.push('>');
        self
    }

    /// Ends a void element's tag (`<input>`).
    pub fn void(&mut self) -> &mut Self {
        self.out.push('>');
        self
    }

    pub fn text(&mut self, s: &str) -> &mut Self {
        escape_into(&mut self.out, s);
        self
    }

    pub fn close(&mut self, tag: &'static str) -> &mut Self {
        self.out.push_str("</");
        self.out.push_str(tag);
        self.out.push('>');
        self
    }

    /// `<button type="button" class="class" data-act="act"` (finish it with `body`): the start
    /// of every button a panel's one listener reads by `data-act`.
    pub fn action_open(&mut self, class: &str, act: &str) -> &mut Self {
        self.open("button")
            .attr("type", "button")
            .attr("class", class)
            .attr("data-act", act)
    }

    /// A whole action button with `label` as its text.
    pub fn action(&mut self, class: &str, act: &str, label: &str) -> &mut Self {
        self.action_open(class, act)
            .body()
            .text(label)
            .close("button")
    }

    /// An action button whose accessible name (`aria`) says more than its text ("Delete" →
    /// "Delete 🌐 Translator"), for rows of look-alike buttons.
    pub fn labeled_action(&mut self, class: &str, act: &str, label: &str, aria: &str) -> &mut Self {
        self.action_open(class, act)
            .attr("aria-label", aria)
            .body()
            .text(label)
            .close("button")
    }

    /// `<option value="value" selected>label</option>`.
    pub fn option(&mut self, value: &str, label: &str, selected: bool) -> &mut Self {
        self.open("option")
            .attr("value", value)
            .flag("selected", selected)
            .body()
            .text(label)
            .close("option")
    }

    /// `<tag class="class">text</tag>`.
    pub fn el(&mut self, tag: &'static str, class: &str, text: &str) -> &mut Self {
        self.open(tag)
            .attr("class", class)
            .body()
            .text(text)
            .close(tag)
    }

    pub fn finish(self) -> String {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_text_cannot_leave_their_place() {
        let hostile = r#""><script>alert('x')</script>&"#;
        let mut h = Html::new();
        h.open("p")
            .attr("title", hostile)
            .flag("hidden", true)
            .flag("required", false)
            .body()
            .text(hostile)
            .close("p");
        assert_eq!(
            h.finish(),
            "<p title=\"&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;\" hidden>\
             &quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;</p>"
        );
    }

    #[test]
    fn optional_attributes_and_void_elements() {
        let mut h = Html::new();
        h.open("input")
            .attr("type", "text")
            .attr_opt("min", None)
            .attr_opt("max", Some("9"))
            .void();
        h.el("span", "a b", "x");
        assert_eq!(
            h.finish(),
            r#"<input type="text" max="9"><span class="a b">x</span>"#
        );
    }
}
