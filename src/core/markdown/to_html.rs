//! Tests only: the tree written out as HTML text, so the tests keep checking the exact strings
//! they always checked (and the allowlist checker in `render_tests.rs` keeps parsing them).
//!
//! Every text and attribute value is escaped here, as the DOM would store them; the page never
//! uses this (it builds DOM nodes from the tree, `ui/markdown_body.rs`).

use super::node::MdNode;
use super::streaming::{ParseWork, StreamingMarkdown};

/// Escapes text for an element body or a double-quoted attribute value.
pub(crate) fn escape_into(out: &mut String, text: &str) {
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

/// `nodes` as HTML text.
pub(crate) fn to_html(nodes: &[MdNode]) -> String {
    let mut out = String::new();
    write_nodes(&mut out, nodes);
    out
}

fn write_nodes(out: &mut String, nodes: &[MdNode]) {
    for node in nodes {
        match node {
            MdNode::Text(t) => escape_into(out, t),
            MdNode::Element(el) => {
                out.push('<');
                out.push_str(el.tag.as_str());
                for attr in &el.attrs {
                    out.push(' ');
                    out.push_str(attr.name());
                    out.push_str("=\"");
                    escape_into(out, &attr.value());
                    out.push('"');
                }
                if el.tag.is_void() {
                    assert!(el.children.is_empty(), "void {:?} has children", el.tag);
                    out.push_str(" />");
                    continue;
                }
                out.push('>');
                write_nodes(out, &el.children);
                out.push_str("</");
                out.push_str(el.tag.as_str());
                out.push('>');
            }
        }
    }
}

/// [`super::render`] as HTML text.
pub(crate) fn render(md: &str) -> String {
    to_html(&super::render(md))
}

/// [`super::render_blocks`] as HTML text, one string per block.
pub(crate) fn render_blocks(md: &str) -> Vec<String> {
    super::render_blocks(md)
        .iter()
        .map(|b| to_html(b))
        .collect()
}

/// [`super::MarkdownUpdate`] as HTML text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct HtmlUpdate {
    pub(crate) finished: Vec<String>,
    pub(crate) tail: String,
}

/// [`StreamingMarkdown`] whose output is HTML text.
#[derive(Debug, Default, Clone)]
pub(crate) struct HtmlStream(StreamingMarkdown);

impl HtmlStream {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    pub(crate) fn push(&mut self, delta: &str) -> HtmlUpdate {
        let update = self.0.push(delta);
        HtmlUpdate {
            finished: update.finished.iter().map(|b| to_html(b)).collect(),
            tail: to_html(&update.tail),
        }
    }

    pub(crate) fn finish(&mut self) -> Vec<String> {
        self.0.finish().iter().map(|b| to_html(b)).collect()
    }

    pub(crate) fn source(&self) -> &str {
        self.0.source()
    }

    pub(crate) fn parse_work(&self) -> ParseWork {
        self.0.parse_work()
    }
}
